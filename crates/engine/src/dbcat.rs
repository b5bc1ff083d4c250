//! The in-memory catalog cache of one database and its persistence in the database's
//! `catalog_btree` (format: crates/catalog/README.md).
//!
//! Invariants (engine/README C1..C3):
//! C1. Every change to the cache during a transaction is also written to the catalog B-tree under
//!     the same storage transaction, so committing makes it durable.
//! C2. When a transaction that touched a database rolls back (fully or to a savepoint), the
//!     cache of that database is reloaded from the B-tree ([`DbCatalog::load`]).
//! C3. Object names are unique per schema (case-insensitive) across tables, views, modules and
//!     sequences (SQL Server's sys.objects rule, error 2714).

use std::collections::HashMap;
use std::ops::Bound;
use std::sync::Arc;

use catalog::serial::{self, ObjectKind};
use catalog::*;
use common::{ObjectId, SqlError, SqlResult};
use storage::{BTree, RowBatch, ScanDirection, Txn};

/// Fixed schema ids (SQL Server's).
pub const SCHEMA_DBO: i32 = 1;
pub const SCHEMA_GUEST: i32 = 2;
pub const SCHEMA_INFORMATION_SCHEMA: i32 = 3;
pub const SCHEMA_SYS: i32 = 4;

/// First object id handed out in a new database.
const FIRST_OBJECT_ID: i32 = 565_577_053;

/// The catalog cache of one database.
#[derive(Clone, Debug)]
pub struct DbCatalog {
    pub database: String,
    pub database_id: i32,
    pub schemas: Vec<SchemaDef>,
    pub objects: HashMap<ObjectId, SchemaObject>,
    /// (lower-case schema, lower-case name) → object id.
    names: HashMap<(String, String), ObjectId>,
    pub types: Vec<Arc<TypeDef>>,
    /// Last identity value handed out per table (None in map = none yet).
    pub identity: HashMap<ObjectId, i128>,
    /// The counter row's value per table: at or beyond `identity` (identity_cache.rs, I1).
    pub identity_persisted: HashMap<ObjectId, i128>,
    /// Per table whose counter a transaction wrote since the catalog was loaded: its last
    /// value and counter row before that write (`keep_identity_progress`).
    pub identity_before_txn: HashMap<ObjectId, (Option<i128>, Option<i128>)>,
    pub next_object_id: i32,
    pub next_schema_id: i32,
    pub next_type_id: i32,
    /// Databases registered here (master only).
    pub databases: Vec<DatabaseDef>,
    /// Server configuration values set by sp_configure, by configuration_id (master only;
    /// config.rs).
    pub configs: std::collections::BTreeMap<i32, i64>,
    /// Logins (master only), users, roles and permissions (security/).
    pub security: crate::security::DbSecurity,
    /// Statistics objects of the tables and the AUTO_*_STATISTICS settings (statistics/).
    pub statistics: crate::statistics::TableStatistics,
    /// External data sources, file formats and tables, by catalog key id (external.rs).
    pub external: std::collections::BTreeMap<i32, Arc<catalog::external::ExternalObjectDef>>,
    /// This database's schema generation (schema_gen.rs): moved by every change to the cache.
    pub generation: crate::schema_gen::DbGeneration,
    /// When each object's last created, altered or dropped definition was committed
    /// ([`crate::schema_gen::fresh_value`] at the commit, [`DbCatalog::ddl_committed`]): a
    /// SNAPSHOT transaction whose snapshot began before touching it fails with Msg 3961
    /// (versioning.rs). In memory only: no snapshot outlives the process.
    pub ddl_marks: HashMap<ObjectId, u64>,
    /// Catalog entries (objects, schemas, types, the security rows, a table's statistics)
    /// created, altered or dropped by a transaction not yet ended, with that storage
    /// transaction: what is in this cache for them is not committed. The transaction holds
    /// Sch-M on each ([`MetaKey::resource`], `Session::touch_catalog`), so other sessions'
    /// name resolution, permission checks and catalog views wait for its end (engine README
    /// "Catalog visibility"). Kept across reloads; the transaction's end removes its entries.
    pending_ddl: HashMap<MetaKey, common::TxnId>,
    /// Dropped objects by (lower-case schema, lower-case name): a session that does not find
    /// a name waits on the dropped object's schema lock first (the drop may roll back;
    /// `Session::find_object`). Kept across reloads; a stale entry costs one Sch-S that is
    /// free at once.
    dropped_tables: HashMap<(String, String), ObjectId>,
}

/// The kinds of catalog entries whose uncommitted changes other sessions wait for (engine
/// README "Catalog visibility"): a catalog view waits only for the kinds it shows
/// (`sysviews::metadata_classes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetaClass {
    Table,
    View,
    /// Procedures, functions, triggers.
    Module,
    Sequence,
    Schema,
    /// User-defined types.
    Type,
    /// The database's principals, role memberships and permissions (in master also the
    /// logins): one entry per database, as a permission check reads all of them.
    Security,
    /// The statistics objects of one table (id: the table's object id).
    Stats,
}

impl MetaClass {
    /// The classes that are schema-scoped objects (keyed by object id).
    pub const OBJECTS: &'static [MetaClass] = &[
        MetaClass::Table,
        MetaClass::View,
        MetaClass::Module,
        MetaClass::Sequence,
    ];

    fn of(o: &SchemaObject) -> MetaClass {
        match o {
            SchemaObject::Table(_) => MetaClass::Table,
            SchemaObject::View(_) => MetaClass::View,
            SchemaObject::Module(_) => MetaClass::Module,
            SchemaObject::Sequence(_) => MetaClass::Sequence,
        }
    }

    /// `sys.dm_tran_locks.resource_subtype` of a METADATA lock on this class.
    pub fn subtype(self) -> &'static str {
        match self {
            MetaClass::Table | MetaClass::View | MetaClass::Module | MetaClass::Sequence => "",
            MetaClass::Schema => "SCHEMA",
            MetaClass::Type => "USER_TYPE",
            MetaClass::Security => "PERMISSIONS",
            MetaClass::Stats => "STATS",
        }
    }

    /// `sys.dm_tran_locks.resource_description` of a METADATA lock on entry `id`.
    pub fn description(self, id: i32) -> String {
        match self {
            MetaClass::Schema => format!("schema_id = {id}"),
            MetaClass::Type => format!("user_type_id = {id}"),
            MetaClass::Stats => format!("object_id = {id}"),
            MetaClass::Security => String::new(),
            _ => format!("object_id = {id}"),
        }
    }
}

/// One catalog entry with uncommitted changes (`DbCatalog::pending_ddl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MetaKey {
    pub class: MetaClass,
    /// Object id, schema id, user type id, the table of statistics; 0 for Security.
    pub id: i32,
}

impl MetaKey {
    /// The lock resource the changing transaction holds Sch-M on: the OBJECT for objects
    /// (so DML and compiles of the object wait too, as SQL Server's Sch-M), a METADATA
    /// resource for the rest.
    pub fn resource(self, db: i32) -> crate::locks::Resource {
        if MetaClass::OBJECTS.contains(&self.class) {
            crate::locks::Resource::Object {
                db,
                object: self.id,
            }
        } else {
            crate::locks::Resource::Metadata {
                db,
                class: self.class,
                id: self.id,
            }
        }
    }
}

fn key_of(schema: &str, name: &str) -> (String, String) {
    (schema.to_lowercase(), name.to_lowercase())
}

impl DbCatalog {
    /// An empty catalog with the built-in schemas.
    pub fn new(database: &str, database_id: i32) -> Self {
        let schemas = vec![
            SchemaDef {
                schema_id: SCHEMA_DBO,
                name: "dbo".into(),
                principal_id: 1,
            },
            SchemaDef {
                schema_id: SCHEMA_GUEST,
                name: "guest".into(),
                principal_id: 2,
            },
            SchemaDef {
                schema_id: SCHEMA_INFORMATION_SCHEMA,
                name: "INFORMATION_SCHEMA".into(),
                principal_id: 3,
            },
            SchemaDef {
                schema_id: SCHEMA_SYS,
                name: "sys".into(),
                principal_id: 4,
            },
        ];
        DbCatalog {
            database: database.to_string(),
            database_id,
            schemas,
            objects: HashMap::new(),
            names: HashMap::new(),
            types: Vec::new(),
            identity: HashMap::new(),
            identity_persisted: HashMap::new(),
            identity_before_txn: HashMap::new(),
            next_object_id: FIRST_OBJECT_ID,
            next_schema_id: 5,
            next_type_id: 257,
            databases: Vec::new(),
            configs: std::collections::BTreeMap::new(),
            security: Default::default(),
            statistics: Default::default(),
            external: Default::default(),
            generation: Default::default(),
            ddl_marks: HashMap::new(),
            pending_ddl: HashMap::new(),
            dropped_tables: HashMap::new(),
        }
    }

    /// Loads the cache from the catalog B-tree (C2).
    pub fn load(database: &str, database_id: i32, tree: &BTree) -> SqlResult<Self> {
        let mut cat = DbCatalog::new(database, database_id);
        let mut scan = tree.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)?;
        let mut batch = RowBatch::new();
        loop {
            batch.clear();
            let more = scan.next_batch(&mut batch)?;
            for i in 0..batch.len() {
                let Some((kind, id)) = serial::parse_object_key(batch.key(i)) else {
                    continue;
                };
                let v = batch.record(i);
                match kind {
                    ObjectKind::Meta => {
                        let (o, s, t) = serial::decode_meta(v)?;
                        cat.next_object_id = o;
                        cat.next_schema_id = s;
                        cat.next_type_id = t;
                    }
                    ObjectKind::Schema => {
                        let s = serial::decode_schema(v)?;
                        cat.schemas.retain(|x| x.schema_id != s.schema_id);
                        cat.schemas.push(s);
                    }
                    ObjectKind::Table => {
                        let mut t = serial::decode_table(v)?;
                        t.database = database.to_string();
                        cat.insert_object(SchemaObject::Table(Arc::new(t)));
                    }
                    ObjectKind::View => {
                        let mut t = serial::decode_view(v)?;
                        t.database = database.to_string();
                        cat.insert_object(SchemaObject::View(Arc::new(t)));
                    }
                    ObjectKind::Module => {
                        let mut t = serial::decode_module(v)?;
                        t.database = database.to_string();
                        cat.insert_object(SchemaObject::Module(Arc::new(t)));
                    }
                    ObjectKind::Sequence => {
                        let mut t = serial::decode_sequence(v)?;
                        t.database = database.to_string();
                        cat.insert_object(SchemaObject::Sequence(Arc::new(t)));
                    }
                    ObjectKind::Type => cat.types.push(Arc::new(serial::decode_type(v)?)),
                    ObjectKind::Identity => {
                        let text = std::str::from_utf8(v).unwrap_or("");
                        if let Ok(n) = text.parse::<i128>() {
                            cat.identity.insert(id, n);
                            cat.identity_persisted.insert(id, n);
                        }
                    }
                    ObjectKind::Database => cat.databases.push(serial::decode_database(v)?),
                    ObjectKind::Login | ObjectKind::Principal | ObjectKind::Permissions => {
                        cat.security.load_row(kind, v)?
                    }
                    ObjectKind::Statistics => cat.statistics.load_row(id, v)?,
                    ObjectKind::External => {
                        let o = catalog::external::decode_external(v)?;
                        cat.external.insert(o.key_id, Arc::new(o));
                    }
                    ObjectKind::Config => {
                        let text = std::str::from_utf8(v).unwrap_or("");
                        if let Ok(n) = text.parse::<i64>() {
                            cat.configs.insert(id, n);
                        }
                    }
                }
            }
            if !more {
                break;
            }
        }
        cat.schemas.sort_by_key(|s| s.schema_id);
        Ok(cat)
    }

    fn insert_object(&mut self, o: SchemaObject) {
        let id = o.object_id();
        self.names.insert(key_of(o.schema(), o.name()), id);
        self.objects.insert(id, o);
    }

    /// Looks up any object by schema and name.
    pub fn lookup(&self, schema: &str, name: &str) -> Option<&SchemaObject> {
        self.names
            .get(&key_of(schema, name))
            .and_then(|id| self.objects.get(id))
    }

    /// The id of the table last dropped under `schema.name` (see `dropped_tables`).
    pub fn dropped_table(&self, schema: &str, name: &str) -> Option<ObjectId> {
        self.dropped_tables.get(&key_of(schema, name)).copied()
    }

    /// Carries what outlives a reload of the cache from storage (schema_gen.rs, versioning.rs,
    /// `Session::find_object`) from the cache being replaced.
    pub fn keep_schema_history(&mut self, before: &mut DbCatalog) {
        self.generation = before.generation.clone();
        self.ddl_marks = std::mem::take(&mut before.ddl_marks);
        self.pending_ddl = std::mem::take(&mut before.pending_ddl);
        self.statistics.keep_committed(&mut before.statistics);
        self.dropped_tables = std::mem::take(&mut before.dropped_tables);
    }

    /// A table by schema and name.
    pub fn table(&self, schema: &str, name: &str) -> Option<Arc<TableDef>> {
        match self.lookup(schema, name) {
            Some(SchemaObject::Table(t)) => Some(t.clone()),
            _ => None,
        }
    }

    /// A schema by name.
    pub fn schema(&self, name: &str) -> Option<&SchemaDef> {
        self.schemas.iter().find(|s| name_eq(&s.name, name))
    }

    /// A schema by id.
    pub fn schema_by_id(&self, id: i32) -> Option<&SchemaDef> {
        self.schemas.iter().find(|s| s.schema_id == id)
    }

    /// A user-defined type by schema and name.
    pub fn user_type(&self, schema: &str, name: &str) -> Option<Arc<TypeDef>> {
        self.types
            .iter()
            .find(|t| name_eq(&t.schema, schema) && name_eq(&t.name, name))
            .cloned()
    }

    /// Hands out a new object id (persisting the counter, C1).
    pub fn new_object_id(&mut self, tree: &BTree, txn: &mut Txn) -> SqlResult<ObjectId> {
        // The counter is transactional but ids are also handed out by transactions that commit
        // while another is open (other sessions, table variables: session.rs
        // `outside_transaction`); a rollback puts the counter back below theirs, so ids still
        // in use are skipped.
        let mut id = self.next_object_id;
        for _ in 0..1_000 {
            self.next_object_id = self.next_object_id.wrapping_add(16_000_057);
            if self.next_object_id <= 0 {
                self.next_object_id = self.next_object_id.wrapping_add(i32::MAX).max(1);
            }
            if !self.objects.contains_key(&id) {
                break;
            }
            id = self.next_object_id;
        }
        self.save_meta(tree, txn)?;
        Ok(id)
    }

    /// Persists the counters.
    pub fn save_meta(&self, tree: &BTree, txn: &mut Txn) -> SqlResult<()> {
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Meta, 0),
            &serial::encode_meta(self.next_object_id, self.next_schema_id, self.next_type_id),
        )
    }

    /// Adds or replaces an object (cache and B-tree).
    pub fn put(&mut self, tree: &BTree, txn: &mut Txn, o: SchemaObject) -> SqlResult<()> {
        if !self.is_private_temp(o.name()) {
            self.generation.bump();
        }
        let (kind, bytes) = match &o {
            SchemaObject::Table(t) => (ObjectKind::Table, serial::encode_table(t)),
            SchemaObject::View(v) => (ObjectKind::View, serial::encode_view(v)),
            SchemaObject::Module(m) => (ObjectKind::Module, serial::encode_module(m)),
            SchemaObject::Sequence(s) => (ObjectKind::Sequence, serial::encode_sequence(s)),
        };
        tree.upsert(txn, &serial::object_key(kind, o.object_id()), &bytes)?;
        // A rename leaves a stale name entry behind: drop entries pointing at this id first.
        let id = o.object_id();
        self.mark_pending(MetaClass::of(&o), id, txn.id());
        self.mark_trigger_parent(&o, txn.id());
        self.names.retain(|_, v| *v != id);
        self.insert_object(o);
        Ok(())
    }

    /// Removes an object (cache and B-tree).
    pub fn remove(&mut self, tree: &BTree, txn: &mut Txn, id: ObjectId) -> SqlResult<()> {
        let private = self
            .objects
            .get(&id)
            .is_some_and(|o| self.is_private_temp(o.name()));
        if !private {
            self.generation.bump();
        }
        if let Some(o) = self.objects.remove(&id) {
            self.mark_pending(MetaClass::of(&o), id, txn.id());
            self.mark_trigger_parent(&o, txn.id());
            let kind = match o {
                SchemaObject::Table(_) => ObjectKind::Table,
                SchemaObject::View(_) => ObjectKind::View,
                SchemaObject::Module(_) => ObjectKind::Module,
                SchemaObject::Sequence(_) => ObjectKind::Sequence,
            };
            tree.delete(txn, &serial::object_key(kind, id))?;
            let key = self.names.iter().find(|(_, v)| **v == id).map(|(k, _)| k);
            if let Some(key) = key.cloned() {
                self.dropped_tables.insert(key, id);
            }
            self.names.retain(|_, v| *v != id);
            if kind == ObjectKind::Table {
                self.statistics.remove_table(tree, txn, id)?;
            }
        }
        self.identity_persisted.remove(&id);
        if self.identity.remove(&id).is_some() {
            tree.delete(txn, &serial::object_key(ObjectKind::Identity, id))?;
        }
        Ok(())
    }

    /// A `#temp` table or table variable of one session in tempdb: no other session can name
    /// it, so its DDL moves no generation other sessions depend on (the owner re-binds its
    /// own entries, `Session::touch_catalog`). `##global` tables are shared.
    pub fn is_private_temp(&self, name: &str) -> bool {
        self.database_id == crate::server::TEMPDB_ID
            && name.starts_with('#')
            && !name.starts_with("##")
    }

    /// Records that storage transaction `txn` changed catalog entry (`class`, `id`) (see
    /// `pending_ddl`); `Session::touch_catalog` then takes its Sch-M.
    pub fn mark_pending(&mut self, class: MetaClass, id: i32, txn: common::TxnId) {
        self.pending_ddl.insert(MetaKey { class, id }, txn);
    }

    /// A DML trigger's CREATE, ALTER, DROP, ENABLE or DISABLE changes its table: SQL Server
    /// takes Sch-M on the table (or view) for it, so no other session's statement on the table
    /// runs (or fires the trigger) before the transaction ends.
    fn mark_trigger_parent(&mut self, o: &SchemaObject, txn: common::TxnId) {
        let SchemaObject::Module(m) = o else {
            return;
        };
        let Some(parent) = m.trigger.as_ref().map(|t| t.table_object_id) else {
            return;
        };
        if let Some(p) = self.objects.get(&parent) {
            let class = MetaClass::of(p);
            self.mark_pending(class, parent, txn);
        }
    }

    /// The catalog entries storage transaction `txn` changed (not yet ended).
    pub fn pending_ddl_of(&self, txn: common::TxnId) -> Vec<MetaKey> {
        self.pending_ddl
            .iter()
            .filter(|(_, t)| **t == txn)
            .map(|(k, _)| *k)
            .collect()
    }

    /// Every entry of one of `classes` with uncommitted changes, of any transaction.
    pub fn pending_ddl(&self, classes: &[MetaClass]) -> Vec<MetaKey> {
        self.pending_ddl
            .keys()
            .filter(|k| classes.contains(&k.class))
            .copied()
            .collect()
    }

    /// Whether object `id` has uncommitted DDL.
    pub fn is_ddl_pending(&self, id: ObjectId) -> bool {
        MetaClass::OBJECTS
            .iter()
            .any(|&class| self.pending_ddl.contains_key(&MetaKey { class, id }))
    }

    /// The transaction with uncommitted changes to entry (`class`, `id`), if any.
    pub fn pending_txn(&self, class: MetaClass, id: i32) -> Option<common::TxnId> {
        self.pending_ddl.get(&MetaKey { class, id }).copied()
    }

    /// Whether entry (`class`, `id`) has uncommitted changes.
    pub fn is_pending(&self, class: MetaClass, id: i32) -> bool {
        self.pending_ddl.contains_key(&MetaKey { class, id })
    }

    /// Whether catalog entry (`class`, `id`) is in the cache (for a pending one: not dropped).
    pub fn entry_exists(&self, class: MetaClass, id: i32) -> bool {
        match class {
            MetaClass::Schema => self.schema_by_id(id).is_some(),
            MetaClass::Type => self.types.iter().any(|t| t.user_type_id == id),
            MetaClass::Security => true,
            _ => self.objects.contains_key(&id),
        }
    }

    /// `txn` committed: its DDL is the committed definition from now on, and later than the
    /// start of every snapshot already running (Msg 3961 for them, versioning.rs).
    pub fn ddl_committed(&mut self, txn: common::TxnId) {
        let keys = self.pending_ddl_of(txn);
        for k in keys {
            self.pending_ddl.remove(&k);
            if k.class == MetaClass::Stats {
                self.statistics.settle(k.id);
            }
            if MetaClass::OBJECTS.contains(&k.class) {
                self.ddl_marks
                    .insert(k.id, crate::schema_gen::fresh_value());
            }
        }
    }

    /// `txn` rolled back (the cache was reloaded from storage): its DDL never happened.
    pub fn ddl_rolled_back(&mut self, txn: common::TxnId) {
        for k in self.pending_ddl_of(txn) {
            if k.class == MetaClass::Stats {
                self.statistics.settle(k.id);
            }
        }
        self.pending_ddl.retain(|_, t| *t != txn);
    }

    /// Adds a schema.
    pub fn put_schema(&mut self, tree: &BTree, txn: &mut Txn, name: &str) -> SqlResult<i32> {
        self.generation.bump();
        let id = self.next_schema_id;
        self.next_schema_id += 1;
        let s = SchemaDef {
            schema_id: id,
            name: name.to_string(),
            principal_id: 1,
        };
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Schema, id),
            &serial::encode_schema(&s),
        )?;
        self.save_meta(tree, txn)?;
        self.schemas.push(s);
        self.mark_pending(MetaClass::Schema, id, txn.id());
        Ok(id)
    }

    /// Removes a schema.
    pub fn remove_schema(&mut self, tree: &BTree, txn: &mut Txn, id: i32) -> SqlResult<()> {
        self.generation.bump();
        tree.delete(txn, &serial::object_key(ObjectKind::Schema, id))?;
        self.schemas.retain(|s| s.schema_id != id);
        self.mark_pending(MetaClass::Schema, id, txn.id());
        Ok(())
    }

    /// Adds a user-defined type.
    pub fn put_type(&mut self, tree: &BTree, txn: &mut Txn, mut t: TypeDef) -> SqlResult<()> {
        self.generation.bump();
        if t.user_type_id == 0 {
            t.user_type_id = self.next_type_id;
            self.next_type_id += 1;
            self.save_meta(tree, txn)?;
        }
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Type, t.user_type_id),
            &serial::encode_type(&t),
        )?;
        self.mark_pending(MetaClass::Type, t.user_type_id, txn.id());
        self.types.retain(|x| x.user_type_id != t.user_type_id);
        self.types.push(Arc::new(t));
        Ok(())
    }

    /// Removes a user-defined type.
    pub fn remove_type(&mut self, tree: &BTree, txn: &mut Txn, id: i32) -> SqlResult<()> {
        self.generation.bump();
        tree.delete(txn, &serial::object_key(ObjectKind::Type, id))?;
        self.types.retain(|t| t.user_type_id != id);
        self.mark_pending(MetaClass::Type, id, txn.id());
        Ok(())
    }

    /// After a reload (C2): identity values handed out before the rollback are not given out
    /// again (SQL Server does not roll identity back). A counter written in the transaction
    /// (TRUNCATE, RESEED, table rewrites: `set_identity` / `reset_identity`) was restored by
    /// the rollback; keep the further of the restored counter and the in-memory one for every
    /// table that still has its identity column. The counter row holds a cached block's end
    /// (identity_cache.rs), not the last value: where the rollback restored the row to what it
    /// was before the transaction wrote it, the last value then (`identity_before_txn`) is the
    /// restored counter; where the transaction never wrote it, the in-memory value is.
    pub fn keep_identity_progress(&mut self, before: &DbCatalog) {
        let ids: std::collections::BTreeSet<ObjectId> = before
            .identity
            .keys()
            .chain(before.identity_before_txn.keys())
            .copied()
            .collect();
        for id in ids {
            let Some(SchemaObject::Table(t)) = self.objects.get(&id) else {
                continue;
            };
            let Some((_, spec)) = t.identity() else {
                continue;
            };
            let further = |a: i128, b: i128| {
                if spec.increment >= 0 {
                    a.max(b)
                } else {
                    a.min(b)
                }
            };
            let disk = self.identity.get(&id).copied();
            let restored = match before.identity_before_txn.get(&id) {
                Some(&(last, persisted)) if disk.is_some() && disk == persisted => last,
                Some(_) => disk,
                None if disk.is_some() && before.identity_persisted.get(&id).copied() == disk => {
                    None
                }
                None => disk,
            };
            let cur = match (restored, before.identity.get(&id).copied()) {
                (Some(r), Some(old)) => further(r, old),
                (Some(r), None) => r,
                (None, Some(old)) => old,
                (None, None) => {
                    self.identity.remove(&id);
                    continue;
                }
            };
            self.identity.insert(id, cur);
        }
    }

    /// Remembers, the first time a transaction writes a table's counter, its last value and
    /// counter row before (for `keep_identity_progress`).
    fn note_identity_before_txn(&mut self, table: ObjectId) {
        let last = self.identity.get(&table).copied();
        let persisted = self.identity_persisted.get(&table).copied();
        self.identity_before_txn
            .entry(table)
            .or_insert((last, persisted));
    }

    /// Records the last identity value handed out for a table outside the caller's transaction
    /// (SQL Server does not roll identity values back): in a system transaction of its own,
    /// committed without waiting for the log (the row that uses the value commits after it in
    /// the same log, so a crash loses both or neither). The caller holds this catalog's write
    /// lock across its read of the current value and this call, so two sessions never get the
    /// same value, and the user transaction never writes the counter's row (no lost update of
    /// it by a rollback, no lock on it held to the user's commit).
    pub fn set_identity_autonomous(
        &mut self,
        store: &storage::Database,
        tree: &BTree,
        table: ObjectId,
        value: i128,
    ) -> SqlResult<()> {
        let mut txn = store.begin()?;
        match tree.upsert(
            &mut txn,
            &serial::object_key(ObjectKind::Identity, table),
            value.to_string().as_bytes(),
        ) {
            Ok(_) => txn.commit_lazy()?,
            Err(e) => {
                let _ = txn.abort();
                return Err(e);
            }
        }
        self.identity.insert(table, value);
        self.identity_persisted.insert(table, value);
        Ok(())
    }

    /// Records the last identity value of a table.
    pub fn set_identity(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        table: ObjectId,
        value: i128,
    ) -> SqlResult<()> {
        self.note_identity_before_txn(table);
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Identity, table),
            value.to_string().as_bytes(),
        )?;
        self.identity.insert(table, value);
        self.identity_persisted.insert(table, value);
        Ok(())
    }

    /// Clears the identity counter (TRUNCATE TABLE, DBCC CHECKIDENT RESEED without value).
    pub fn reset_identity(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        table: ObjectId,
    ) -> SqlResult<()> {
        self.note_identity_before_txn(table);
        tree.delete(txn, &serial::object_key(ObjectKind::Identity, table))?;
        self.identity.remove(&table);
        self.identity_persisted.remove(&table);
        Ok(())
    }

    /// Registers a database (master only).
    pub fn put_database(&mut self, tree: &BTree, txn: &mut Txn, d: DatabaseDef) -> SqlResult<()> {
        self.generation.bump();
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Database, d.database_id),
            &serial::encode_database(&d),
        )?;
        self.databases.retain(|x| x.database_id != d.database_id);
        self.databases.push(d);
        Ok(())
    }

    /// Stores a server configuration value (master only; config.rs).
    pub fn put_config(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        id: i32,
        value: i64,
    ) -> SqlResult<()> {
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Config, id),
            value.to_string().as_bytes(),
        )?;
        self.configs.insert(id, value);
        Ok(())
    }

    /// Unregisters a database (master only).
    pub fn remove_database(&mut self, tree: &BTree, txn: &mut Txn, id: i32) -> SqlResult<()> {
        self.generation.bump();
        tree.delete(txn, &serial::object_key(ObjectKind::Database, id))?;
        self.databases.retain(|x| x.database_id != id);
        Ok(())
    }

    /// Fails with 2714 when `schema.name` is taken (C3).
    pub fn check_free(&self, schema: &str, name: &str) -> SqlResult<()> {
        if self.lookup(schema, name).is_some() || self.external_table(schema, name).is_some() {
            return Err(SqlError::new(2714, &[&name]));
        }
        Ok(())
    }

    /// All tables.
    pub fn tables(&self) -> impl Iterator<Item = &Arc<TableDef>> {
        self.objects.values().filter_map(|o| match o {
            SchemaObject::Table(t) => Some(t),
            _ => None,
        })
    }

    /// Objects sorted by id (stable output for sys.objects).
    pub fn objects_sorted(&self) -> Vec<&SchemaObject> {
        let mut v: Vec<&SchemaObject> = self.objects.values().collect();
        v.sort_by_key(|o| o.object_id());
        v
    }
}
