//! Filegroups: `ALTER DATABASE ... ADD FILEGROUP / REMOVE FILEGROUP / MODIFY FILEGROUP fg
//! DEFAULT`, `ADD FILE ... TO FILEGROUP fg`, `CREATE TABLE / CREATE INDEX ... ON fg`, the
//! views sys.filegroups and sys.data_spaces, and FILEGROUP_NAME / FILEGROUP_ID.
//!
//! * Where each thing is kept: the filegroup list (names, data space ids 2, 3, ...) and the
//!   DEFAULT filegroup are in master's registration of the database (`DatabaseDef`, written
//!   in one master transaction per change). Which filegroup a data file belongs to is in the
//!   file's own header, written before the file joins the database (storage README
//!   "Filegroups"), so a crash never leaves a file without its filegroup; an object's
//!   filegroup is the one of the file holding its first IAM page (nothing else to keep in
//!   step). PRIMARY is data space 1 and is not in the list.
//! * ADD FILEGROUP: a name in use is 5035, `DEFAULT` is 5051; REMOVE FILEGROUP: unknown 5043,
//!   with files 5042, PRIMARY 40517; prints 5044. MODIFY FILEGROUP fg DEFAULT: unknown 5043,
//!   no files 5050, already the default 5045; prints 5046 and storage creates objects
//!   without `ON` there from then on (also after a restart). READ_ONLY / READ_WRITE /
//!   AUTOGROW_* / NAME = are Msg 40517.
//! * `ON fg`: PRIMARY, `default` (the DEFAULT filegroup) or an added filegroup (else 1921);
//!   a filegroup without files is 622. A new table without `ON` goes to the DEFAULT
//!   filegroup; an index without `ON` goes where its table is (SQL Server's rule), and so
//!   does a table rebuilt by ALTER TABLE. One statement naming two different filegroups
//!   (a table and its constraint's index) and `ON scheme(col)` are Msg 40517.
//! * REMOVE FILE of the last file of the DEFAULT filegroup (other than PRIMARY) is 5031.

use catalog::{DatabaseDef, FilegroupDef, TableDef, TableStorage};
use common::{SqlError, SqlResult};
use parser::ast::{self, StatementKind, StorageTarget};
use types::Value;

use crate::events::InfoMessage;
use crate::server::{DbHandle, Engine};
use crate::session::Session;

/// The PRIMARY filegroup's data space id.
pub(crate) const PRIMARY: i32 = 1;

/// master's registration of an open database; `None` for master and tempdb (only PRIMARY).
fn registration(engine: &Engine, h: &DbHandle) -> Option<DatabaseDef> {
    let master = engine.master().ok()?;
    let cat = master.cat.read();
    cat.databases
        .iter()
        .find(|d| d.database_id == h.def.database_id)
        .cloned()
}

/// The filegroups of an open database by data space id (PRIMARY first) and the default's id.
pub(crate) fn filegroups_of(engine: &Engine, h: &DbHandle) -> (Vec<FilegroupDef>, i32) {
    let mut list = vec![FilegroupDef {
        data_space_id: PRIMARY,
        name: "PRIMARY".into(),
    }];
    let mut default = PRIMARY;
    if let Some(d) = registration(engine, h) {
        list.extend(d.filegroups);
        default = d.default_data_space;
    }
    list.sort_by_key(|g| g.data_space_id);
    (list, default)
}

/// Whether filegroup `ds` of the database has a data file.
fn has_files(h: &DbHandle, ds: i32) -> bool {
    h.store
        .data_file_spaces()
        .iter()
        .any(|&(_, s)| i32::from(s) == ds)
}

/// The data space id of filegroup `name`: PRIMARY, `default` (the DEFAULT filegroup) or an
/// added one; `None` when there is none of that name.
pub(crate) fn data_space_by_name(engine: &Engine, h: &DbHandle, name: &str) -> Option<i32> {
    let (list, default) = filegroups_of(engine, h);
    if name.eq_ignore_ascii_case("default") {
        return Some(default);
    }
    list.iter()
        .find(|g| catalog::name_eq(&g.name, name))
        .map(|g| g.data_space_id)
}

/// The data space id of the data file with storage index `index` (1 = PRIMARY's primary).
pub(crate) fn file_data_space(h: &DbHandle, index: u16) -> i32 {
    h.store
        .data_file_spaces()
        .iter()
        .find(|(id, _)| *id == index)
        .map_or(PRIMARY, |&(_, s)| i32::from(s))
}

/// The data space id of a storage object (sys.indexes.data_space_id); PRIMARY when unknown.
pub(crate) fn object_data_space(h: &DbHandle, storage_id: u64) -> i32 {
    h.store
        .object_data_space(storage::ObjId(storage_id))
        .map_or(PRIMARY, i32::from)
}

/// Where a table's rows are: the filegroup of its heap or clustered index.
pub(crate) fn table_data_space(h: &DbHandle, t: &TableDef) -> Option<u16> {
    let id = match t.storage {
        TableStorage::Heap(id) => id,
        TableStorage::Clustered { index } => t.indexes.get(index)?.storage_id,
        #[allow(unreachable_patterns)]
        _ => return None,
    };
    h.store.object_data_space(storage::ObjId(id)).ok()
}

/// The `ON` targets a DDL statement names (table, constraints, indexes, TEXTIMAGE_ON).
fn storage_targets(kind: &StatementKind) -> Vec<StorageTarget> {
    fn column(c: &ast::ColumnDefinition, out: &mut Vec<StorageTarget>) {
        for k in &c.constraints {
            match &k.kind {
                ast::ColumnConstraintKind::PrimaryKey { on, .. }
                | ast::ColumnConstraintKind::Unique { on, .. } => out.extend(on.clone()),
                _ => {}
            }
        }
    }
    fn constraint(c: &ast::TableConstraint, out: &mut Vec<StorageTarget>) {
        match &c.kind {
            ast::TableConstraintKind::PrimaryKey { on, .. }
            | ast::TableConstraintKind::Unique { on, .. } => out.extend(on.clone()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match kind {
        StatementKind::CreateTable(ct) => {
            out.extend(ct.on.clone());
            if let Some(g) = &ct.textimage_on {
                out.push(StorageTarget::Filegroup(g.clone()));
            }
            let d = &ct.definition;
            d.columns.iter().for_each(|c| column(c, &mut out));
            d.constraints.iter().for_each(|c| constraint(c, &mut out));
            d.indexes.iter().for_each(|i| out.extend(i.on.clone()));
        }
        StatementKind::CreateIndex(ci) => out.extend(ci.index.on.clone()),
        StatementKind::AlterTable(at) => {
            if let ast::AlterTableAction::Add(elems) = &at.action {
                for e in elems {
                    match e {
                        ast::TableElement::Column(c) => column(c, &mut out),
                        ast::TableElement::Constraint(c) => constraint(c, &mut out),
                        ast::TableElement::Index(i) => out.extend(i.on.clone()),
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The table a DDL statement creates or changes (whose database resolves `ON fg`).
fn statement_table(kind: &StatementKind) -> Option<&ast::ObjectName> {
    match kind {
        StatementKind::CreateTable(ct) => Some(&ct.name),
        StatementKind::CreateIndex(ci) => Some(&ci.table),
        StatementKind::AlterTable(at) => Some(&at.name),
        _ => None,
    }
}

impl Session {
    /// The filegroup a DDL statement's `ON` clauses name (module doc), checked: unknown
    /// 1921, no files 622, partition schemes and two different filegroups 40517. `None`
    /// when the statement names none.
    pub(crate) fn statement_data_space(&self, kind: &StatementKind) -> SqlResult<Option<u16>> {
        let targets = storage_targets(kind);
        if targets.is_empty() {
            return Ok(None);
        }
        let mut names = Vec::new();
        for t in &targets {
            match t {
                StorageTarget::Filegroup(g) => names.push(g.value.clone()),
                StorageTarget::PartitionScheme { scheme, .. } => {
                    return Err(SqlError::unsupported(format!(
                        "ON partition scheme {}",
                        scheme.value
                    )))
                }
            }
        }
        let h = match statement_table(kind) {
            Some(n) => {
                let (db, _) = self.resolve_parts(&crate::ddl::qualified(n));
                self.db(&db)?
            }
            None => self.current_db()?,
        };
        let mut found: Option<i32> = None;
        for name in names {
            let Some(ds) = data_space_by_name(self.engine(), &h, &name) else {
                return Err(SqlError::new(1921, &[&name]));
            };
            if !has_files(&h, ds) {
                return Err(SqlError::new(622, &[&name]).with_state(3));
            }
            match found {
                Some(f) if f != ds => {
                    return Err(SqlError::unsupported(
                        "a table and its indexes ON different filegroups in one statement",
                    ))
                }
                _ => found = Some(ds),
            }
        }
        Ok(found.and_then(|d| u16::try_from(d).ok()))
    }
}

/// Writes a changed registration of a database into master.
fn register(engine: &Engine, def: DatabaseDef) -> SqlResult<()> {
    let master = engine.master()?;
    let tree = master.store.catalog_btree()?;
    let mut txn = master.store.begin()?;
    master.cat.write().put_database(&tree, &mut txn, def)?;
    txn.commit()?;
    Ok(())
}

/// The database `db` for a filegroup change: open, a user database (master, model and
/// tempdb have PRIMARY only: 5013-style refusal as ADD FILE's), registered in master.
fn changeable(engine: &Engine, db: &str) -> SqlResult<(std::sync::Arc<DbHandle>, DatabaseDef)> {
    let Some(h) = engine.database(db) else {
        return Err(SqlError::new(5011, &[&db]));
    };
    if matches!(
        h.def.name.to_ascii_lowercase().as_str(),
        "master" | "model" | "tempdb"
    ) {
        return Err(SqlError::new(5013, &[]));
    }
    let Some(def) = registration(engine, &h) else {
        return Err(SqlError::unsupported(format!(
            "filegroups of database {}",
            h.def.name
        )));
    };
    Ok((h, def))
}

/// `ADD FILEGROUP name`: 5035 when the name is in use (PRIMARY included), 5051 for DEFAULT.
pub(crate) fn add_filegroup(engine: &Engine, db: &str, name: &str) -> SqlResult<()> {
    let (h, mut def) = changeable(engine, db)?;
    let _changing = crate::files::FILE_SET_CHANGE.lock();
    if name.eq_ignore_ascii_case("DEFAULT") {
        return Err(SqlError::new(5051, &[]));
    }
    if name.is_empty() || name.chars().count() > 128 {
        return Err(SqlError::syntax_near(name));
    }
    let (list, _) = filegroups_of(engine, &h);
    if list.iter().any(|g| catalog::name_eq(&g.name, name)) {
        return Err(SqlError::new(5035, &[&name]));
    }
    // ids are not reused while a file could still carry one: the highest known id + 1
    let highest = list
        .iter()
        .map(|g| g.data_space_id)
        .chain(
            h.store
                .data_file_spaces()
                .iter()
                .map(|&(_, s)| i32::from(s)),
        )
        .max()
        .unwrap_or(PRIMARY);
    if highest >= i32::from(u16::MAX) {
        return Err(SqlError::unsupported("more than 32,766 filegroups"));
    }
    def.filegroups.push(FilegroupDef {
        data_space_id: highest + 1,
        name: name.to_string(),
    });
    register(engine, def)
}

/// `REMOVE FILEGROUP name`: unknown 5043, PRIMARY 40517, a filegroup with files 5042; prints
/// 5044.
pub(crate) fn remove_filegroup(
    engine: &Engine,
    db: &str,
    name: &str,
    messages: &mut Vec<InfoMessage>,
) -> SqlResult<()> {
    if name.eq_ignore_ascii_case("PRIMARY") {
        return Err(SqlError::unsupported(
            "ALTER DATABASE REMOVE FILEGROUP PRIMARY",
        ));
    }
    let (h, mut def) = changeable(engine, db)?;
    let _changing = crate::files::FILE_SET_CHANGE.lock();
    let Some(pos) = def
        .filegroups
        .iter()
        .position(|g| catalog::name_eq(&g.name, name))
    else {
        return Err(SqlError::new(
            5043,
            &[&"filegroup", &name, &"sys.filegroups"],
        ));
    };
    let g = def.filegroups.remove(pos);
    if has_files(&h, g.data_space_id) {
        return Err(SqlError::new(5042, &[&"filegroup", &g.name]));
    }
    if def.default_data_space == g.data_space_id {
        // an empty filegroup cannot be made the default (5050), nor lose its last file
        // (5031): not reachable, but never leave a default that does not exist
        def.default_data_space = PRIMARY;
        h.store.set_default_data_space(PRIMARY as u16);
    }
    register(engine, def)?;
    messages.push(InfoMessage {
        text: format!("The filegroup '{}' has been removed.", g.name),
        number: 5044,
        severity: 10,
        state: 1,
    });
    Ok(())
}

/// `MODIFY FILEGROUP name DEFAULT` (module doc); the other properties are Msg 40517.
pub(crate) fn modify_filegroup(
    engine: &Engine,
    db: &str,
    name: &str,
    property: &str,
    messages: &mut Vec<InfoMessage>,
) -> SqlResult<()> {
    if property != "DEFAULT" {
        return Err(SqlError::unsupported(format!(
            "ALTER DATABASE MODIFY FILEGROUP {property}"
        )));
    }
    let (h, mut def) = changeable(engine, db)?;
    let _changing = crate::files::FILE_SET_CHANGE.lock();
    let Some(ds) =
        data_space_by_name(engine, &h, name).filter(|_| !name.eq_ignore_ascii_case("default"))
    else {
        return Err(SqlError::new(
            5043,
            &[&"filegroup", &name, &"sys.filegroups"],
        ));
    };
    let shown = filegroups_of(engine, &h)
        .0
        .into_iter()
        .find(|g| g.data_space_id == ds)
        .map_or_else(|| name.to_string(), |g| g.name);
    if !has_files(&h, ds) {
        return Err(SqlError::new(5050, &[&shown]));
    }
    if def.default_data_space == ds {
        return Err(SqlError::new(5045, &[&"filegroup", &"DEFAULT"]));
    }
    def.default_data_space = ds;
    register(engine, def)?;
    h.store
        .set_default_data_space(u16::try_from(ds).unwrap_or(PRIMARY as u16));
    messages.push(InfoMessage {
        text: "The filegroup property 'DEFAULT' has been set.".into(),
        number: 5046,
        severity: 10,
        state: 1,
    });
    Ok(())
}

/// `ADD FILE ... TO FILEGROUP name`: the data space id the new files go to (1921 unknown).
pub(crate) fn add_file_target(engine: &Engine, db: &str, name: Option<&str>) -> SqlResult<u16> {
    let Some(name) = name else {
        return Ok(PRIMARY as u16);
    };
    let Some(h) = engine.database(db) else {
        return Err(SqlError::new(5011, &[&db]));
    };
    match data_space_by_name(engine, &h, name).filter(|_| !name.eq_ignore_ascii_case("default")) {
        Some(ds) => Ok(u16::try_from(ds).unwrap_or(PRIMARY as u16)),
        None => Err(SqlError::new(1921, &[&name])),
    }
}

/// REMOVE FILE of `index`: 5031 when it is the last file of the DEFAULT filegroup (other
/// than PRIMARY, whose primary file cannot be removed anyway).
pub(crate) fn check_remove_file(
    engine: &Engine,
    h: &DbHandle,
    index: u16,
    logical: &str,
) -> SqlResult<()> {
    let ds = file_data_space(h, index);
    let (_, default) = filegroups_of(engine, h);
    let others = h
        .store
        .data_file_spaces()
        .iter()
        .filter(|&&(id, s)| id != index && i32::from(s) == ds)
        .count();
    if ds == default && ds != PRIMARY && others == 0 {
        return Err(SqlError::new(5031, &[&logical]));
    }
    Ok(())
}

/// At every open: objects created without `ON` go to the registered DEFAULT filegroup.
pub(crate) fn apply_default(def: &DatabaseDef, store: &storage::Database) {
    store.set_default_data_space(u16::try_from(def.default_data_space).unwrap_or(1));
}

fn s(v: &str) -> Value {
    Value::NVarChar(v.to_string())
}

/// Rows of sys.filegroups (`full`) or sys.data_spaces of the current database.
pub(crate) fn filegroup_rows(session: &Session, full: bool) -> Vec<Vec<Value>> {
    let Ok(h) = session.current_db() else {
        return Vec::new();
    };
    let (list, default) = filegroups_of(session.engine(), &h);
    list.into_iter()
        .map(|g| {
            let mut r = vec![
                s(&g.name),
                Value::Int(g.data_space_id),
                Value::Char("FG".into()),
                s("ROWS_FILEGROUP"),
                Value::Bit(g.data_space_id == default),
                Value::Bit(false),
            ];
            if full {
                r.extend([
                    Value::Null,
                    Value::Null,
                    Value::Bit(false),
                    Value::Bit(false),
                ]);
            }
            r
        })
        .collect()
}

/// FILEGROUP_NAME(id) of the current database (NULL when none).
pub(crate) fn filegroup_name(session: &Session, id: i64) -> Value {
    let Ok(h) = session.current_db() else {
        return Value::Null;
    };
    filegroups_of(session.engine(), &h)
        .0
        .into_iter()
        .find(|g| i64::from(g.data_space_id) == id)
        .map_or(Value::Null, |g| Value::NVarChar(g.name))
}

/// FILEGROUP_ID(name) of the current database (NULL when none).
pub(crate) fn filegroup_id(session: &Session, name: &str) -> Value {
    let Ok(h) = session.current_db() else {
        return Value::Null;
    };
    filegroups_of(session.engine(), &h)
        .0
        .into_iter()
        .find(|g| catalog::name_eq(&g.name, name))
        .map_or(Value::Null, |g| Value::Int(g.data_space_id))
}

/// sys.dm_db_file_space_usage columns.
pub(crate) const SPACE_USAGE_COLUMNS: &[&str] = &[
    "database_id smallint",
    "file_id smallint",
    "filegroup_id smallint",
    "total_page_count bigint",
    "allocated_extent_page_count bigint",
    "unallocated_extent_page_count bigint",
    "version_store_reserved_page_count bigint",
    "user_object_reserved_page_count bigint",
    "internal_object_reserved_page_count bigint",
    "mixed_extent_page_count bigint",
    "modified_extent_page_count bigint",
];

/// sys.dm_db_file_space_usage of the current database: one row per data file, pages of the
/// extents its GAM marks allocated (the header/GAM extent included) and of the rest of the
/// file. Shows which files a filegroup's objects take extents from.
pub(crate) fn space_usage_rows(session: &Session) -> Vec<Vec<Value>> {
    let Ok(h) = session.current_db() else {
        return Vec::new();
    };
    let sizes = h.store.io_stats().files;
    let big = |v: u64| Value::BigInt(i64::try_from(v).unwrap_or(i64::MAX));
    let mut rows = Vec::new();
    for (index, space) in h.store.data_file_spaces() {
        let Ok(used) = h.store.data_file_used_extents(index) else {
            continue;
        };
        let total = sizes
            .iter()
            .find(|f| f.file_id == index)
            .map_or(0, |f| f.size_bytes / 8192);
        let allocated = (used + 1) * 8;
        let file_id = if index == 1 { 1 } else { i32::from(index) + 1 };
        rows.push(vec![
            Value::SmallInt(i16::try_from(h.def.database_id).unwrap_or(i16::MAX)),
            Value::SmallInt(i16::try_from(file_id).unwrap_or(i16::MAX)),
            Value::SmallInt(i16::try_from(space).unwrap_or(i16::MAX)),
            big(total),
            big(allocated),
            big(total.saturating_sub(allocated)),
            big(0),
            big(0),
            big(0),
            big(0),
            big(0),
        ]);
    }
    rows.sort_by_key(|r| match r[1] {
        Value::SmallInt(i) => i,
        _ => 0,
    });
    rows
}

/// The name of filegroup `ds` of the database (`PRIMARY` when unknown).
pub(crate) fn data_space_name(engine: &Engine, h: &DbHandle, ds: i32) -> String {
    filegroups_of(engine, h)
        .0
        .into_iter()
        .find(|g| g.data_space_id == ds)
        .map_or_else(|| "PRIMARY".to_string(), |g| g.name)
}

/// The filegroup name of a storage object (sp_help, sp_helpindex).
pub(crate) fn object_filegroup_name(engine: &Engine, h: &DbHandle, storage_id: u64) -> String {
    data_space_name(engine, h, object_data_space(h, storage_id))
}

/// The filegroup name of the data file SQL Server numbers `file_id` (1, 3, 4, ...).
pub(crate) fn file_filegroup_name(engine: &Engine, h: &DbHandle, file_id: i16) -> String {
    let index = if file_id <= 1 {
        1
    } else {
        u16::try_from(file_id - 1).unwrap_or(1)
    };
    data_space_name(engine, h, file_data_space(h, index))
}
