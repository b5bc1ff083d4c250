//! `catalog`: latchkey's metadata model and the narrow [`Catalog`] trait the binder and the
//! optimizer see.
//!
//! Important types:
//! * [`DatabaseDef`], [`SchemaDef`], [`TableDef`] (with [`ColumnDef`], [`IndexDef`],
//!   [`CheckDef`], [`ForeignKeyDef`]), [`ViewDef`], [`ModuleDef`] (procedures, functions,
//!   triggers), [`SequenceDef`], [`TypeDef`] (alias types).
//! * [`QualifiedName`] — a resolved-or-not `database.schema.name`.
//! * [`TableRef`] — what a name in a FROM clause resolves to: a stored table, a view, or a
//!   [`VirtualTable`] (a `sys.*` / `INFORMATION_SCHEMA` view materialized on demand).
//! * [`Catalog`] — the trait the binder uses; implemented by `engine` over its catalog cache.
//! * [`serial`] — the persistent encoding of catalog objects (JSON text, hand-written over
//!   `serde_json::Value`, see README.md for the layout).
//!
//! What does NOT belong here: the storage of catalog rows (engine, in each database's
//! `catalog_btree`), row formats (exec), name binding rules (plan).

pub mod external;
pub mod security;
pub mod serial;
pub mod statistics;

use std::sync::Arc;

use common::{ObjectId, SqlResult};
use types::{DataType, Value};

/// A possibly partially qualified object name: `[database.][schema.]name`.
/// Parts are stored as written (without brackets); comparison is case-insensitive.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct QualifiedName {
    pub database: Option<String>,
    pub schema: Option<String>,
    pub name: String,
}

impl QualifiedName {
    /// A bare one-part name.
    pub fn bare(name: impl Into<String>) -> Self {
        QualifiedName {
            database: None,
            schema: None,
            name: name.into(),
        }
    }

    /// `schema.name`.
    pub fn with_schema(schema: impl Into<String>, name: impl Into<String>) -> Self {
        QualifiedName {
            database: None,
            schema: Some(schema.into()),
            name: name.into(),
        }
    }

    /// True for `#local` and `##global` temporary object names.
    pub fn is_temp(&self) -> bool {
        self.name.starts_with('#')
    }

    /// The name as SQL Server prints it in messages (`db.schema.name` with the parts given).
    pub fn display(&self) -> String {
        let mut s = String::new();
        if let Some(d) = &self.database {
            s.push_str(d);
            s.push('.');
            if self.schema.is_none() {
                s.push('.');
            }
        }
        if let Some(sc) = &self.schema {
            s.push_str(sc);
            s.push('.');
        }
        s.push_str(&self.name);
        s
    }
}

/// Case-insensitive identifier comparison (the default collation is case-insensitive, and so are
/// object names).
pub fn name_eq(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b) || (a.len() == b.len() && a.to_lowercase() == b.to_lowercase())
}

/// A database (`sys.databases` row).
#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseDef {
    pub database_id: i32,
    pub name: String,
    /// Directory name under the data directory.
    pub dir: String,
    /// Compatibility level (150 = SQL Server 2019).
    pub compatibility_level: i32,
    /// The files named by `CREATE DATABASE ... ON (...) LOG ON (...)` (sys.database_files);
    /// empty = the defaults (one data file and the log, named after the database).
    pub files: Vec<DbFileDef>,
    /// Filegroups other than PRIMARY (data space 1), from ALTER DATABASE ADD FILEGROUP. Which
    /// filegroup a data file belongs to is in the file's own header (storage README
    /// "Filegroups"), not here.
    pub filegroups: Vec<FilegroupDef>,
    /// Data space id of the DEFAULT filegroup (MODIFY FILEGROUP ... DEFAULT); 1 = PRIMARY.
    pub default_data_space: i32,
}

/// A filegroup other than PRIMARY (sys.filegroups row).
#[derive(Clone, Debug, PartialEq)]
pub struct FilegroupDef {
    /// 2, 3, ... (1 is PRIMARY).
    pub data_space_id: i32,
    pub name: String,
}

/// One file of a database as CREATE DATABASE named it (sys.database_files row). Storage
/// keeps data file `storage_index` as `dataN.mdf` in the database directory (a symbolic
/// link to `physical_name` when that lies elsewhere) and the log as `log.ldf`.
#[derive(Clone, Debug, PartialEq)]
pub struct DbFileDef {
    /// SQL Server's numbering: 1 = primary data file, 2 = the log, 3.. = other data files.
    pub file_id: i32,
    /// Storage data file number (`dataN.mdf`); 0 for the log.
    pub storage_index: u16,
    /// Logical name (`NAME =`).
    pub name: String,
    /// `FILENAME =` as an absolute path.
    pub physical_name: String,
    /// Requested size, maximum size (-1 = UNLIMITED) in 8 KB pages; growth in pages, or in
    /// percent when `is_percent_growth`.
    pub size_pages: i64,
    pub max_size_pages: i64,
    pub growth: i64,
    pub is_percent_growth: bool,
}

impl DbFileDef {
    pub fn is_log(&self) -> bool {
        self.file_id == 2
    }
}

/// A schema (`sys.schemas` row).
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaDef {
    pub schema_id: i32,
    pub name: String,
    pub principal_id: i32,
}

/// `IDENTITY(seed, increment)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdentitySpec {
    pub seed: i64,
    pub increment: i64,
}

/// A column of a table or view.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    pub identity: Option<IdentitySpec>,
    /// Default expression text as written (e.g. `(getdate())` without the outer parentheses
    /// added by SQL Server: stored as the parser printed it).
    pub default: Option<String>,
    /// Name of the default constraint (`DF__t__c__XXXX` when unnamed).
    pub default_name: Option<String>,
    /// Computed column expression text.
    pub computed: Option<String>,
    /// `PERSISTED` computed column.
    pub persisted: bool,
    /// Explicit `COLLATE` name, None = database default.
    pub collation: Option<String>,
    /// `ROWGUIDCOL`.
    pub rowguidcol: bool,
    /// Name of the user-defined alias type the column was declared with, if any.
    pub user_type: Option<String>,
}

impl ColumnDef {
    /// A plain nullable column.
    pub fn new(name: impl Into<String>, data_type: DataType, nullable: bool) -> Self {
        ColumnDef {
            name: name.into(),
            data_type,
            nullable,
            identity: None,
            default: None,
            default_name: None,
            computed: None,
            persisted: false,
            collation: None,
            rowguidcol: false,
            user_type: None,
        }
    }
}

/// Kind of an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    /// Ordinary B-tree (rowstore) index.
    RowStore,
    /// Columnstore index (clustered or nonclustered).
    ColumnStore,
}

/// An index (`sys.indexes` row). Index id 1 is the clustered index; nonclustered ids start at 2.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexDef {
    pub index_id: i32,
    pub name: String,
    pub unique: bool,
    /// Created by a PRIMARY KEY constraint.
    pub primary_key: bool,
    /// Created by a UNIQUE constraint.
    pub unique_constraint: bool,
    pub clustered: bool,
    pub kind: IndexKind,
    /// Key columns: (column ordinal in `TableDef::columns`, descending).
    pub key_columns: Vec<(usize, bool)>,
    /// INCLUDE columns (column ordinals).
    pub included: Vec<usize>,
    /// Filter predicate text of a filtered index.
    pub filter: Option<String>,
    /// The storage B-tree (storage `ObjId.0`) holding this index.
    pub storage_id: u64,
    /// `IGNORE_DUP_KEY = ON`.
    pub ignore_dup_key: bool,
    /// Fill factor (0 = default).
    pub fill_factor: u8,
    /// `OPTIMIZE_FOR_SEQUENTIAL_KEY = ON` (recorded and shown in sys.indexes; the insert
    /// path does not treat such indexes differently yet).
    pub optimize_for_sequential_key: bool,
}

/// Where a table's rows live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableStorage {
    /// A heap (storage `ObjId.0`).
    Heap(u64),
    /// Rows live in the clustered index at this position of `TableDef::indexes`.
    Clustered { index: usize },
}

/// A CHECK constraint.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckDef {
    pub name: String,
    /// Expression text.
    pub text: String,
    /// Column ordinal for a column-level constraint.
    pub column: Option<usize>,
    pub disabled: bool,
    /// `WITH NOCHECK`: not trusted.
    pub not_trusted: bool,
}

/// Referential action of a foreign key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefAction {
    NoAction,
    Cascade,
    SetNull,
    SetDefault,
}

/// A FOREIGN KEY constraint.
#[derive(Clone, Debug, PartialEq)]
pub struct ForeignKeyDef {
    pub name: String,
    /// Referencing column ordinals.
    pub columns: Vec<usize>,
    /// Referenced table (same database): object id and name.
    pub ref_object_id: ObjectId,
    pub ref_schema: String,
    pub ref_table: String,
    /// Referenced column names (names so the definition survives column reordering).
    pub ref_columns: Vec<String>,
    pub on_delete: RefAction,
    pub on_update: RefAction,
    pub disabled: bool,
    /// Added `WITH NOCHECK` or re-enabled without `WITH CHECK`: existing rows were not
    /// validated (`sys.foreign_keys.is_not_trusted`).
    pub not_trusted: bool,
}

/// A user table (or a temporary table).
#[derive(Clone, Debug, PartialEq)]
pub struct TableDef {
    pub object_id: ObjectId,
    /// Database holding the rows (`tempdb` for temporary tables).
    pub database: String,
    pub schema: String,
    /// Name as the user sees it (`#t` for a temp table).
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub indexes: Vec<IndexDef>,
    pub storage: TableStorage,
    pub checks: Vec<CheckDef>,
    pub foreign_keys: Vec<ForeignKeyDef>,
    pub is_temp: bool,
    /// Creation time as `datetime` text (yyyy-mm-dd hh:mi:ss.mmm).
    pub create_date: String,
}

impl TableDef {
    /// Ordinal of a column by name (case-insensitive).
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| name_eq(&c.name, name))
    }

    /// The identity column (ordinal and spec), if any.
    pub fn identity(&self) -> Option<(usize, IdentitySpec)> {
        self.columns
            .iter()
            .enumerate()
            .find_map(|(i, c)| c.identity.map(|s| (i, s)))
    }

    /// The clustered index, if the table is not a heap.
    pub fn clustered_index(&self) -> Option<&IndexDef> {
        match self.storage {
            TableStorage::Clustered { index } => self.indexes.get(index),
            TableStorage::Heap(_) => None,
        }
    }

    /// The primary key index, if any.
    pub fn primary_key(&self) -> Option<&IndexDef> {
        self.indexes.iter().find(|i| i.primary_key)
    }

    /// Index by name (case-insensitive).
    pub fn index_by_name(&self, name: &str) -> Option<&IndexDef> {
        self.indexes.iter().find(|i| name_eq(&i.name, name))
    }
}

/// A view.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewDef {
    pub object_id: ObjectId,
    pub database: String,
    pub schema: String,
    pub name: String,
    /// The full `CREATE VIEW ...` statement text as written (what `OBJECT_DEFINITION` returns).
    /// The binder re-parses it and binds its query.
    pub text: String,
    /// Explicit column list (`CREATE VIEW v (a, b) AS`), empty when the query names the columns.
    pub columns: Vec<String>,
    /// `WITH SCHEMABINDING`.
    pub schemabinding: bool,
    /// `QUOTED_IDENTIFIER` when it was created: `text` is re-parsed with it.
    pub uses_quoted_identifier: bool,
    pub create_date: String,
    /// `SET ANSI_NULLS` when the view was created: its query is bound under it.
    pub uses_ansi_nulls: bool,
}

/// Kind of a code module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleKind {
    Procedure,
    ScalarFunction,
    InlineTableFunction,
    TableFunction,
    Trigger,
}

impl ModuleKind {
    /// `sys.objects.type` code.
    pub fn type_code(self) -> &'static str {
        match self {
            ModuleKind::Procedure => "P",
            ModuleKind::ScalarFunction => "FN",
            ModuleKind::InlineTableFunction => "IF",
            ModuleKind::TableFunction => "TF",
            ModuleKind::Trigger => "TR",
        }
    }

    /// `sys.objects.type_desc`.
    pub fn type_desc(self) -> &'static str {
        match self {
            ModuleKind::Procedure => "SQL_STORED_PROCEDURE",
            ModuleKind::ScalarFunction => "SQL_SCALAR_FUNCTION",
            ModuleKind::InlineTableFunction => "SQL_INLINE_TABLE_VALUED_FUNCTION",
            ModuleKind::TableFunction => "SQL_TABLE_VALUED_FUNCTION",
            ModuleKind::Trigger => "SQL_TRIGGER",
        }
    }
}

/// A parameter of a procedure or function.
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterDef {
    /// With the leading `@`.
    pub name: String,
    pub data_type: DataType,
    /// Default value expression text.
    pub default: Option<String>,
    pub output: bool,
    pub readonly: bool,
    /// Table type name for table-valued parameters.
    pub table_type: Option<String>,
}

/// Trigger details.
#[derive(Clone, Debug, PartialEq)]
pub struct TriggerDef {
    pub table_object_id: ObjectId,
    pub table_schema: String,
    pub table_name: String,
    pub on_insert: bool,
    pub on_update: bool,
    pub on_delete: bool,
    /// INSTEAD OF (true) or AFTER/FOR (false).
    pub instead_of: bool,
    pub disabled: bool,
}

/// A procedure, function or trigger: the definition text plus what callers need without
/// parsing it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleDef {
    pub object_id: ObjectId,
    pub database: String,
    pub schema: String,
    pub name: String,
    pub kind: ModuleKind,
    /// The full `CREATE ...` statement text as written.
    pub text: String,
    pub parameters: Vec<ParameterDef>,
    /// Scalar function return type.
    pub returns: Option<DataType>,
    /// Table function result columns (multi-statement TVF).
    pub returns_table: Vec<ColumnDef>,
    pub trigger: Option<TriggerDef>,
    /// `QUOTED_IDENTIFIER` when it was created: `text` is re-parsed with it.
    pub uses_quoted_identifier: bool,
    pub create_date: String,
    /// `SET ANSI_NULLS` when the module was created (sys.sql_modules.uses_ansi_nulls): its body
    /// always runs under this setting, whatever the caller's.
    pub uses_ansi_nulls: bool,
}

/// A sequence object.
#[derive(Clone, Debug, PartialEq)]
pub struct SequenceDef {
    pub object_id: ObjectId,
    pub database: String,
    pub schema: String,
    pub name: String,
    pub data_type: DataType,
    pub start: i128,
    pub increment: i128,
    pub min: i128,
    pub max: i128,
    pub cycle: bool,
    pub cache: Option<i64>,
    /// Last value handed out (None = none yet).
    pub current: Option<i128>,
    pub create_date: String,
}

/// A user-defined alias type (`CREATE TYPE t FROM varchar(10) NOT NULL`) or table type.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDef {
    pub user_type_id: i32,
    pub schema: String,
    pub name: String,
    /// Base type for an alias type.
    pub base: Option<DataType>,
    pub nullable: bool,
    /// Columns of a table type.
    pub table_columns: Vec<ColumnDef>,
}

/// A system view materialized on demand (`sys.objects`, `INFORMATION_SCHEMA.TABLES`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualTable {
    pub schema: String,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub rows: Vec<Vec<Value>>,
}

/// What a table name resolves to.
#[derive(Clone, Debug)]
pub enum TableRef {
    Table(Arc<TableDef>),
    View(Arc<ViewDef>),
    Virtual(Arc<VirtualTable>),
}

/// Any schema-scoped object (for `OBJECT_ID`, `sys.objects`, 2714 checks).
#[derive(Clone, Debug)]
pub enum SchemaObject {
    Table(Arc<TableDef>),
    View(Arc<ViewDef>),
    Module(Arc<ModuleDef>),
    Sequence(Arc<SequenceDef>),
}

impl SchemaObject {
    pub fn object_id(&self) -> ObjectId {
        match self {
            SchemaObject::Table(t) => t.object_id,
            SchemaObject::View(v) => v.object_id,
            SchemaObject::Module(m) => m.object_id,
            SchemaObject::Sequence(s) => s.object_id,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            SchemaObject::Table(t) => &t.name,
            SchemaObject::View(v) => &v.name,
            SchemaObject::Module(m) => &m.name,
            SchemaObject::Sequence(s) => &s.name,
        }
    }

    pub fn schema(&self) -> &str {
        match self {
            SchemaObject::Table(t) => &t.schema,
            SchemaObject::View(v) => &v.schema,
            SchemaObject::Module(m) => &m.schema,
            SchemaObject::Sequence(s) => &s.schema,
        }
    }

    /// `sys.objects.type` code (`U`, `V`, `P`, `FN`, `SO`, ...).
    pub fn type_code(&self) -> &'static str {
        match self {
            SchemaObject::Table(_) => "U",
            SchemaObject::View(_) => "V",
            SchemaObject::Module(m) => m.kind.type_code(),
            SchemaObject::Sequence(_) => "SO",
        }
    }
}

/// A permission a statement needs on an object it uses (`sys.database_permissions`
/// permission_name), checked by [`Catalog::check_access`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Select,
    Insert,
    Update,
    Delete,
    Execute,
    Alter,
    /// The database permission CREATE TABLE (`SELECT .. INTO`; object id 0).
    CreateTable,
}

impl Access {
    /// The permission's name as SQL Server spells it in Msg 229 and the catalog views.
    pub fn name(self) -> &'static str {
        match self {
            Access::Select => "SELECT",
            Access::Insert => "INSERT",
            Access::Update => "UPDATE",
            Access::Delete => "DELETE",
            Access::Execute => "EXECUTE",
            Access::Alter => "ALTER",
            Access::CreateTable => "CREATE TABLE",
        }
    }
}

/// One use of an object by a statement: what the binder records for the permission check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectAccess {
    pub database: String,
    pub object_id: ObjectId,
    pub access: Access,
    /// The innermost view whose query referenced the object (database, view id): ownership
    /// chaining skips the check when the view and the object have the same owner.
    pub via: Option<(String, ObjectId)>,
}

/// The metadata interface the binder and optimizer see. Implemented by `engine::Session`
/// (over the per-database catalog caches). Methods beyond the first three have defaults so the
/// trait can grow without breaking implementors.
pub trait Catalog {
    /// Current database name (`USE`).
    fn current_database(&self) -> String;

    /// Default schema of the current user (`dbo`).
    fn current_schema(&self) -> String;

    /// Resolves a table-like name: user tables, views, temp tables (`#t`, in tempdb), and system
    /// views (`sys.objects`, `INFORMATION_SCHEMA.COLUMNS`, ...). `Ok(None)` = no such object
    /// (the binder raises 208).
    fn resolve_table(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>>;

    /// `resolve_table` for a reference hinted `NOLOCK` / `READUNCOMMITTED`: a catalog view
    /// read so shows other transactions' uncommitted DDL instead of waiting for it (SQL
    /// Server reads metadata under READ COMMITTED otherwise). Default: `resolve_table`.
    fn resolve_table_uncommitted(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        self.resolve_table(name)
    }

    /// Checks that the session may use an object as the statement does (Msg 229 when not).
    /// The binder calls it once per recorded use after binding a statement. Default: allowed.
    fn check_access(&self, _access: &ObjectAccess) -> SqlResult<()> {
        Ok(())
    }

    /// Resolves a procedure or function.
    fn resolve_module(&self, _name: &QualifiedName) -> SqlResult<Option<Arc<ModuleDef>>> {
        Ok(None)
    }

    /// Resolves a sequence (for `NEXT VALUE FOR`).
    fn resolve_sequence(&self, _name: &QualifiedName) -> SqlResult<Option<Arc<SequenceDef>>> {
        Ok(None)
    }

    /// Resolves a user-defined type name (alias or table type).
    fn resolve_type(&self, _name: &QualifiedName) -> SqlResult<Option<Arc<TypeDef>>> {
        Ok(None)
    }

    /// Resolves any schema-scoped object (for `OBJECT_ID('name')`).
    fn resolve_object(&self, _name: &QualifiedName) -> SqlResult<Option<SchemaObject>> {
        Ok(None)
    }

    /// `DB_ID(name)`; None = no such database.
    fn database_id(&self, _name: &str) -> Option<i32> {
        None
    }

    /// `DB_NAME(id)`.
    fn database_name(&self, _id: i32) -> Option<String> {
        None
    }

    /// `OBJECT_NAME(id [, db_id])`.
    fn object_name(&self, _object_id: ObjectId, _database_id: Option<i32>) -> Option<String> {
        None
    }

    /// `SCHEMA_ID(name)` in the current database.
    fn schema_id(&self, _name: &str) -> Option<i32> {
        None
    }

    /// `SCHEMA_NAME(id)` in the current database.
    fn schema_name(&self, _id: i32) -> Option<String> {
        None
    }

    /// The table's current row count as the optimizer should assume it (SQL Server's
    /// `sys.partitions.rows`): cheap, no scan per compile. None = unknown (the optimizer then
    /// guesses from the statistics or a default).
    fn table_rows(&self, _table: &TableDef) -> Option<u64> {
        None
    }

    /// The table's statistics objects (index statistics, auto-created and user-created ones),
    /// built ones with their data. The optimizer picks the object whose leading column a
    /// predicate reads. Implementations may auto-create or auto-update statistics here
    /// (`AUTO_CREATE_STATISTICS` / `AUTO_UPDATE_STATISTICS`) for the `columns` the optimizer
    /// asks about (ordinals of predicate / join / grouping columns; empty = only existing).
    fn statistics(
        &self,
        _table: &TableDef,
        _columns: &[usize],
    ) -> Vec<Arc<statistics::StatisticsObject>> {
        Vec::new()
    }
}

/// A catalog with no objects (tests, constant folding).
#[derive(Clone, Debug, Default)]
pub struct EmptyCatalog;

impl Catalog for EmptyCatalog {
    fn current_database(&self) -> String {
        "master".to_string()
    }

    fn current_schema(&self) -> String {
        "dbo".to_string()
    }

    fn resolve_table(&self, _name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_case_insensitively() {
        assert!(name_eq("Tbl_1", "TBL_1"));
        assert!(!name_eq("a", "b"));
        let q = QualifiedName::with_schema("dbo", "t");
        assert_eq!(q.display(), "dbo.t");
        assert!(QualifiedName::bare("#x").is_temp());
    }
}
