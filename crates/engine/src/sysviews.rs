//! System catalog views (`sys.*`, `INFORMATION_SCHEMA.*`) materialized on demand from the
//! catalog caches, with SQL Server's column names and types.

use crate::dbcat::MetaClass;
use catalog::{ColumnDef, SchemaObject, TableDef, TableStorage, VirtualTable};
use common::SqlResult;
use types::{DataType, Value};

use crate::session::Session;

fn col(name: &str, t: DataType, nullable: bool) -> ColumnDef {
    ColumnDef::new(name, t, nullable)
}

pub(crate) fn sysname() -> DataType {
    DataType::NVarChar(Some(128))
}

pub(crate) fn s(v: &str) -> Value {
    Value::NVarChar(v.to_string())
}

fn vs(v: &str) -> Value {
    Value::VarChar(v.to_string())
}

pub(crate) fn b(v: bool) -> Value {
    Value::Bit(v)
}

pub(crate) fn dt(text: &str) -> Value {
    // create_date text "yyyy-mm-dd hh:mi:ss.mmm" → datetime; fall back to NULL.
    match exec::valops::cast(&Value::VarChar(text.to_string()), &DataType::DateTime) {
        Ok(v) => v,
        Err(_) => Value::Null,
    }
}

/// (system_type_id, max_length, precision, scale) of a type, as in sys.columns / sys.types.
pub fn type_info(t: &DataType) -> (i32, i32, i32, i32) {
    let len = |n: Option<u32>, w: i32| n.map(|n| n as i32 * w).unwrap_or(-1);
    match t {
        DataType::Bit => (104, 1, 1, 0),
        DataType::TinyInt => (48, 1, 3, 0),
        DataType::SmallInt => (52, 2, 5, 0),
        DataType::Int => (56, 4, 10, 0),
        DataType::BigInt => (127, 8, 19, 0),
        DataType::Decimal { precision, scale } => (
            106,
            types::datatype::decimal_storage_bytes(*precision) as i32,
            *precision as i32,
            *scale as i32,
        ),
        DataType::Numeric { precision, scale } => (
            108,
            types::datatype::decimal_storage_bytes(*precision) as i32,
            *precision as i32,
            *scale as i32,
        ),
        DataType::Float => (62, 8, 53, 0),
        DataType::Real => (59, 4, 24, 0),
        DataType::Money => (60, 8, 19, 4),
        DataType::SmallMoney => (122, 4, 10, 4),
        DataType::Char(n) => (175, *n as i32, 0, 0),
        DataType::VarChar(n) => (167, len(*n, 1), 0, 0),
        DataType::NChar(n) => (239, *n as i32 * 2, 0, 0),
        DataType::NVarChar(n) => (231, len(*n, 2), 0, 0),
        DataType::Binary(n) => (173, *n as i32, 0, 0),
        DataType::VarBinary(n) => (165, len(*n, 1), 0, 0),
        DataType::Date => (40, 3, 10, 0),
        DataType::Time(p) => (
            41,
            types::datatype::time_bytes(*p) as i32,
            8 + if *p > 0 { 1 + *p as i32 } else { 0 },
            *p as i32,
        ),
        DataType::DateTime => (61, 8, 23, 3),
        DataType::DateTime2(p) => (
            42,
            3 + types::datatype::time_bytes(*p) as i32,
            19 + if *p > 0 { 1 + *p as i32 } else { 0 },
            *p as i32,
        ),
        DataType::SmallDateTime => (58, 4, 16, 0),
        DataType::DateTimeOffset(p) => (
            43,
            5 + types::datatype::time_bytes(*p) as i32,
            26 + if *p > 0 { 1 + *p as i32 } else { 0 },
            *p as i32,
        ),
        DataType::UniqueIdentifier => (36, 16, 0, 0),
        #[allow(unreachable_patterns)] // reason: DataType may grow variants
        _ => (56, 4, 10, 0),
    }
}

pub(crate) const SYSTEM_TYPES: &[(&str, i32)] = &[
    ("image", 34),
    ("text", 35),
    ("uniqueidentifier", 36),
    ("date", 40),
    ("time", 41),
    ("datetime2", 42),
    ("datetimeoffset", 43),
    ("tinyint", 48),
    ("smallint", 52),
    ("int", 56),
    ("smalldatetime", 58),
    ("real", 59),
    ("money", 60),
    ("datetime", 61),
    ("float", 62),
    ("sql_variant", 98),
    ("ntext", 99),
    ("bit", 104),
    ("decimal", 106),
    ("numeric", 108),
    ("smallmoney", 122),
    ("bigint", 127),
    ("varbinary", 165),
    ("varchar", 167),
    ("binary", 173),
    ("char", 175),
    ("timestamp", 189),
    ("nvarchar", 231),
    ("nchar", 239),
    ("xml", 241),
    ("sysname", 231),
];

pub(crate) fn objects_columns() -> Vec<ColumnDef> {
    vec![
        col("name", sysname(), false),
        col("object_id", DataType::Int, false),
        col("principal_id", DataType::Int, true),
        col("schema_id", DataType::Int, false),
        col("parent_object_id", DataType::Int, false),
        col("type", DataType::Char(2), true),
        col("type_desc", DataType::NVarChar(Some(60)), true),
        col("create_date", DataType::DateTime, false),
        col("modify_date", DataType::DateTime, false),
        col("is_ms_shipped", DataType::Bit, false),
        col("is_published", DataType::Bit, false),
        col("is_schema_published", DataType::Bit, false),
    ]
}

fn type_desc(o: &SchemaObject) -> &'static str {
    match o {
        SchemaObject::Table(_) => "USER_TABLE",
        SchemaObject::View(_) => "VIEW",
        SchemaObject::Module(m) => m.kind.type_desc(),
        SchemaObject::Sequence(_) => "SEQUENCE_OBJECT",
    }
}

fn created(o: &SchemaObject) -> &str {
    match o {
        SchemaObject::Table(t) => &t.create_date,
        SchemaObject::View(v) => &v.create_date,
        SchemaObject::Module(m) => &m.create_date,
        SchemaObject::Sequence(s) => &s.create_date,
    }
}

/// The kinds of catalog entries a system view shows rows of (objects' definitions, columns,
/// indexes, constraints, modules; schemas, types, principals and permissions, statistics):
/// SQL Server reads those rows under READ COMMITTED, so an entry another transaction created,
/// altered or dropped blocks the reader until that transaction ends
/// (`Session::await_committed_catalog`). A view waits only for the kinds it shows: an
/// uncommitted CREATE PROCEDURE does not hold up `sys.tables`. Empty: DMVs and server-level
/// views, which do not wait.
pub(crate) fn metadata_classes(schema: &str, name: &str) -> &'static [MetaClass] {
    use MetaClass as C;
    const OBJECTS: &[MetaClass] = MetaClass::OBJECTS;
    const TABLES: &[MetaClass] = &[C::Table];
    const RELATIONS: &[MetaClass] = &[C::Table, C::View];
    const MODULES: &[MetaClass] = &[C::Module];
    let name = name.to_ascii_lowercase();
    if schema.eq_ignore_ascii_case("INFORMATION_SCHEMA") {
        return match name.as_str() {
            "tables" | "columns" | "view_table_usage" | "view_column_usage" | "views" => RELATIONS,
            "routines" | "parameters" | "routine_columns" => &[C::Module, C::Table, C::View],
            "schemata" => &[C::Schema],
            "sequences" => &[C::Sequence],
            "domains" | "column_domain_usage" => &[C::Type, C::Table],
            _ => OBJECTS,
        };
    }
    if !schema.eq_ignore_ascii_case("sys") {
        return &[];
    }
    match name.as_str() {
        "objects" | "all_objects" => OBJECTS,
        "tables"
        | "key_constraints"
        | "foreign_keys"
        | "foreign_key_columns"
        | "check_constraints"
        | "default_constraints"
        | "computed_columns"
        | "identity_columns"
        | "partitions" => TABLES,
        "views" | "all_views" => &[C::View],
        "procedures" | "triggers" | "parameters" => MODULES,
        "sequences" => &[C::Sequence],
        "sql_modules" | "all_sql_modules" => &[C::Module, C::View],
        // a table-valued function's result columns are sys.columns rows too
        "columns" | "all_columns" => &[C::Table, C::View, C::Module],
        "indexes" | "index_columns" => RELATIONS,
        "stats" | "stats_columns" => &[C::Table, C::View, C::Stats],
        "schemas" => &[C::Schema],
        "types" | "table_types" => &[C::Type],
        "database_principals"
        | "database_role_members"
        | "database_permissions"
        | "server_principals"
        | "sql_logins"
        | "server_role_members" => &[C::Security],
        _ => &[],
    }
}

/// Whether system view `name` shows master's logins (its readers also wait for master's
/// uncommitted security changes).
pub(crate) fn reads_logins(name: &str) -> bool {
    ["server_principals", "sql_logins", "server_role_members"]
        .iter()
        .any(|v| v.eq_ignore_ascii_case(name))
}

/// Materializes a system view of database `db`; `Ok(None)` if the name is not one.
pub fn system_view(
    session: &Session,
    db: &str,
    schema: &str,
    name: &str,
) -> SqlResult<Option<VirtualTable>> {
    let Some(h) = session.engine().database(db) else {
        return Ok(None);
    };
    let cat = h.cat.read();
    let schema_id = |n: &str| cat.schema(n).map(|s| s.schema_id).unwrap_or(1);
    let lname = name.to_ascii_lowercase();
    let is_sys = schema.eq_ignore_ascii_case("sys");
    let mut objs: Vec<&SchemaObject> = cat.objects_sorted();
    // Temp tables of other sessions are invisible by name but listed in tempdb's sys.objects.
    objs.retain(|_| true);
    let (columns, rows): (Vec<ColumnDef>, Vec<Vec<Value>>) = match (is_sys, lname.as_str()) {
        (true, "objects") | (true, "all_objects") => {
            let mut rows = Vec::new();
            for o in &objs {
                let parent = match o {
                    SchemaObject::Module(m) => m.trigger.as_ref().map(|t| t.table_object_id).unwrap_or(0),
                    _ => 0,
                };
                rows.push(object_row(o, schema_id(o.schema()), parent));
                if let SchemaObject::Table(t) = o {
                    for (oid, n, ty, desc) in constraint_objects(t) {
                        rows.push(vec![
                            s(&n), Value::Int(oid), Value::Null, Value::Int(schema_id(&t.schema)), Value::Int(t.object_id),
                            Value::Char(format!("{ty:<2}")), s(desc), dt(&t.create_date), dt(&t.create_date), b(false), b(false), b(false),
                        ]);
                    }
                }
            }
            for t in crate::external_views::tables(&cat) {
                rows.push(crate::external_views::object_row(t, schema_id(&t.schema)));
            }
            (objects_columns(), rows)
        }
        (true, "tables") => {
            let mut c = objects_columns();
            c.push(col("lob_data_space_id", DataType::Int, false));
            c.push(col("is_memory_optimized", DataType::Bit, true));
            c.push(col("temporal_type", DataType::TinyInt, true));
            c.push(col("is_external", DataType::Bit, false));
            let mut rows: Vec<Vec<Value>> = objs
                .iter()
                .filter(|o| matches!(o, SchemaObject::Table(_)))
                .map(|o| {
                    let mut r = object_row(o, schema_id(o.schema()), 0);
                    r.push(Value::Int(0));
                    r.push(b(false));
                    r.push(Value::TinyInt(0));
                    r.push(b(false));
                    r
                })
                .collect();
            for t in crate::external_views::tables(&cat) {
                let mut r = crate::external_views::object_row(t, schema_id(&t.schema));
                r.extend([Value::Int(0), b(false), Value::TinyInt(0), b(true)]);
                rows.push(r);
            }
            (c, rows)
        }
        (true, "views") => (
            objects_columns(),
            objs.iter().filter(|o| matches!(o, SchemaObject::View(_))).map(|o| object_row(o, schema_id(o.schema()), 0)).collect(),
        ),
        (true, "procedures") => (
            objects_columns(),
            objs.iter()
                .filter(|o| matches!(o, SchemaObject::Module(m) if m.kind == catalog::ModuleKind::Procedure))
                .map(|o| object_row(o, schema_id(o.schema()), 0))
                .collect(),
        ),
        (true, "triggers") => {
            let c = vec![
                col("name", sysname(), false),
                col("object_id", DataType::Int, false),
                col("parent_class", DataType::TinyInt, false),
                col("parent_class_desc", DataType::NVarChar(Some(60)), true),
                col("parent_id", DataType::Int, false),
                col("type", DataType::Char(2), false),
                col("type_desc", DataType::NVarChar(Some(60)), true),
                col("create_date", DataType::DateTime, false),
                col("modify_date", DataType::DateTime, false),
                col("is_ms_shipped", DataType::Bit, false),
                col("is_disabled", DataType::Bit, false),
                col("is_not_for_replication", DataType::Bit, false),
                col("is_instead_of_trigger", DataType::Bit, false),
            ];
            let rows = objs
                .iter()
                .filter_map(|o| match o {
                    SchemaObject::Module(m) => m.trigger.as_ref().map(|t| (m, t)),
                    _ => None,
                })
                .map(|(m, t)| {
                    vec![
                        s(&m.name), Value::Int(m.object_id), Value::TinyInt(1), s("OBJECT_OR_COLUMN"), Value::Int(t.table_object_id),
                        Value::Char("TR".into()), s("SQL_TRIGGER"), dt(&m.create_date), dt(&m.create_date), b(false), b(t.disabled), b(false), b(t.instead_of),
                    ]
                })
                .collect();
            (c, rows)
        }
        (true, "sequences") => (
            objects_columns(),
            objs.iter().filter(|o| matches!(o, SchemaObject::Sequence(_))).map(|o| object_row(o, schema_id(o.schema()), 0)).collect(),
        ),
        (true, "sql_modules") | (true, "all_sql_modules") => {
            let c = vec![
                col("object_id", DataType::Int, false),
                col("definition", DataType::NVarChar(None), true),
                col("uses_ansi_nulls", DataType::Bit, true),
                col("uses_quoted_identifier", DataType::Bit, true),
                col("is_schema_bound", DataType::Bit, true),
                col("uses_database_collation", DataType::Bit, true),
                col("is_recompiled", DataType::Bit, true),
                col("null_on_null_input", DataType::Bit, true),
                col("execute_as_principal_id", DataType::Int, true),
                col("uses_native_compilation", DataType::Bit, true),
            ];
            let mut rows = Vec::new();
            for o in &objs {
                let (id, text, ansi_nulls, quoted) = match o {
                    SchemaObject::Module(m) => {
                        (m.object_id, m.text.clone(), m.uses_ansi_nulls, m.uses_quoted_identifier)
                    }
                    SchemaObject::View(v) => {
                        (v.object_id, v.text.clone(), v.uses_ansi_nulls, v.uses_quoted_identifier)
                    }
                    _ => continue,
                };
                rows.push(vec![
                    Value::Int(id), s(&text), b(ansi_nulls), b(quoted), b(false), b(false), b(false), b(false), Value::Null, b(false),
                ]);
            }
            (c, rows)
        }
        (true, "columns") | (true, "all_columns") => {
            let c = vec![
                col("object_id", DataType::Int, false),
                col("name", sysname(), true),
                col("column_id", DataType::Int, false),
                col("system_type_id", DataType::TinyInt, false),
                col("user_type_id", DataType::Int, false),
                col("max_length", DataType::SmallInt, false),
                col("precision", DataType::TinyInt, false),
                col("scale", DataType::TinyInt, false),
                col("collation_name", sysname(), true),
                col("is_nullable", DataType::Bit, true),
                col("is_ansi_padded", DataType::Bit, false),
                col("is_rowguidcol", DataType::Bit, false),
                col("is_identity", DataType::Bit, false),
                col("is_computed", DataType::Bit, false),
                col("default_object_id", DataType::Int, false),
            ];
            let mut rows = Vec::new();
            for o in &objs {
                if let SchemaObject::Table(t) = o {
                    for (i, cd) in t.columns.iter().enumerate() {
                        let (tid, ml, p, sc) = type_info(&cd.data_type);
                        rows.push(vec![
                            Value::Int(t.object_id),
                            s(&cd.name),
                            Value::Int(i as i32 + 1),
                            Value::TinyInt(tid as u8),
                            Value::Int(tid),
                            Value::SmallInt(ml as i16),
                            Value::TinyInt(p as u8),
                            Value::TinyInt(sc as u8),
                            if cd.data_type.is_string() { s("SQL_Latin1_General_CP1_CI_AS") } else { Value::Null },
                            b(cd.nullable),
                            b(cd.data_type.is_string() || cd.data_type.is_binary()),
                            b(cd.rowguidcol),
                            b(cd.identity.is_some()),
                            b(cd.computed.is_some()),
                            Value::Int(0),
                        ]);
                    }
                }
            }
            for t in crate::external_views::tables(&cat) {
                for (i, cd) in t.columns.iter().enumerate() {
                    let (tid, ml, p, sc) = type_info(&cd.data_type);
                    rows.push(vec![
                        Value::Int(t.id),
                        s(&cd.name),
                        Value::Int(i as i32 + 1),
                        Value::TinyInt(tid as u8),
                        Value::Int(tid),
                        Value::SmallInt(ml as i16),
                        Value::TinyInt(p as u8),
                        Value::TinyInt(sc as u8),
                        if cd.data_type.is_string() { s("SQL_Latin1_General_CP1_CI_AS") } else { Value::Null },
                        b(cd.nullable),
                        b(cd.data_type.is_string() || cd.data_type.is_binary()),
                        b(false),
                        b(false),
                        b(false),
                        Value::Int(0),
                    ]);
                }
            }
            (c, rows)
        }
        (true, "indexes") => {
            let c = vec![
                col("object_id", DataType::Int, false),
                col("name", sysname(), true),
                col("index_id", DataType::Int, false),
                col("type", DataType::TinyInt, false),
                col("type_desc", DataType::NVarChar(Some(60)), true),
                col("is_unique", DataType::Bit, true),
                col("data_space_id", DataType::Int, true),
                col("ignore_dup_key", DataType::Bit, true),
                col("is_primary_key", DataType::Bit, true),
                col("is_unique_constraint", DataType::Bit, true),
                col("fill_factor", DataType::TinyInt, false),
                col("is_padded", DataType::Bit, true),
                col("is_disabled", DataType::Bit, true),
                col("has_filter", DataType::Bit, true),
                col("filter_definition", DataType::NVarChar(None), true),
                col("is_hypothetical", DataType::Bit, true),
                col("allow_row_locks", DataType::Bit, true),
                col("allow_page_locks", DataType::Bit, true),
                col("auto_created", DataType::Bit, true),
                col("optimize_for_sequential_key", DataType::Bit, true),
            ];
            let mut rows = Vec::new();
            for o in &objs {
                if let SchemaObject::Table(t) = o {
                    if let TableStorage::Heap(hid) = t.storage {
                        let space = crate::filegroups::object_data_space(&h, hid);
                        rows.push(vec![
                            Value::Int(t.object_id), Value::Null, Value::Int(0), Value::TinyInt(0), s("HEAP"), b(false), Value::Int(space),
                            b(false), b(false), b(false), Value::TinyInt(0), b(false), b(false), b(false), Value::Null,
                            b(false), b(true), b(true), b(false), b(false),
                        ]);
                    }
                    let mut ixs: Vec<&catalog::IndexDef> = t.indexes.iter().collect();
                    ixs.sort_by_key(|i| i.index_id);
                    for ix in ixs {
                        let (ty, desc) = match (ix.clustered, ix.kind) {
                            (true, catalog::IndexKind::RowStore) => (1, "CLUSTERED"),
                            (false, catalog::IndexKind::RowStore) => (2, "NONCLUSTERED"),
                            (true, catalog::IndexKind::ColumnStore) => (5, "CLUSTERED COLUMNSTORE"),
                            (false, catalog::IndexKind::ColumnStore) => (6, "NONCLUSTERED COLUMNSTORE"),
                        };
                        rows.push(vec![
                            Value::Int(t.object_id), s(&ix.name), Value::Int(ix.index_id), Value::TinyInt(ty), s(desc), b(ix.unique),
                            Value::Int(crate::filegroups::object_data_space(&h, ix.storage_id)), b(ix.ignore_dup_key), b(ix.primary_key), b(ix.unique_constraint), Value::TinyInt(ix.fill_factor),
                            b(false), b(false), b(ix.filter.is_some()),
                            ix.filter.as_ref().map(|f| s(&format!("({f})"))).unwrap_or(Value::Null),
                            b(false), b(true), b(true), b(false), b(ix.optimize_for_sequential_key),
                        ]);
                    }
                }
            }
            (c, rows)
        }
        (true, "index_columns") => {
            let c = vec![
                col("object_id", DataType::Int, false),
                col("index_id", DataType::Int, false),
                col("index_column_id", DataType::Int, false),
                col("column_id", DataType::Int, false),
                col("key_ordinal", DataType::TinyInt, false),
                col("partition_ordinal", DataType::TinyInt, false),
                col("is_descending_key", DataType::Bit, true),
                col("is_included_column", DataType::Bit, true),
            ];
            let mut rows = Vec::new();
            for o in &objs {
                if let SchemaObject::Table(t) = o {
                    for ix in &t.indexes {
                        let mut n = 0;
                        for (k, (c, d)) in ix.key_columns.iter().enumerate() {
                            n += 1;
                            rows.push(vec![
                                Value::Int(t.object_id), Value::Int(ix.index_id), Value::Int(n), Value::Int(*c as i32 + 1),
                                Value::TinyInt(k as u8 + 1), Value::TinyInt(0), b(*d), b(false),
                            ]);
                        }
                        for c in &ix.included {
                            n += 1;
                            rows.push(vec![
                                Value::Int(t.object_id), Value::Int(ix.index_id), Value::Int(n), Value::Int(*c as i32 + 1),
                                Value::TinyInt(0), Value::TinyInt(0), b(false), b(true),
                            ]);
                        }
                    }
                }
            }
            (c, rows)
        }
        (true, "schemas") => {
            let c = vec![
                col("name", sysname(), false),
                col("schema_id", DataType::Int, false),
                col("principal_id", DataType::Int, true),
            ];
            let rows = cat.schemas.iter().map(|sc| vec![s(&sc.name), Value::Int(sc.schema_id), Value::Int(sc.principal_id)]).collect();
            (c, rows)
        }
        (true, "databases") => {
            let c = vec![
                col("name", sysname(), true),
                col("database_id", DataType::Int, false),
                col("source_database_id", DataType::Int, true),
                col("owner_sid", DataType::VarBinary(Some(85)), true),
                col("create_date", DataType::DateTime, false),
                col("compatibility_level", DataType::TinyInt, false),
                col("collation_name", sysname(), true),
                col("user_access", DataType::TinyInt, true),
                col("user_access_desc", DataType::NVarChar(Some(60)), true),
                col("is_read_only", DataType::Bit, true),
                col("state", DataType::TinyInt, true),
                col("state_desc", DataType::NVarChar(Some(60)), true),
                col("snapshot_isolation_state", DataType::TinyInt, true),
                col("snapshot_isolation_state_desc", DataType::NVarChar(Some(60)), true),
                col("is_read_committed_snapshot_on", DataType::Bit, true),
                col("recovery_model", DataType::TinyInt, true),
                col("recovery_model_desc", DataType::NVarChar(Some(60)), true),
                col("is_auto_create_stats_on", DataType::Bit, true),
                col("is_auto_update_stats_on", DataType::Bit, true),
            ];
            // statistics/: the AUTO_*_STATISTICS settings (this database's catalog is already
            // read-locked above: not locked twice)
            let auto_stats = |d: &crate::server::DbHandle| {
                let of = |st: &crate::statistics::TableStatistics| (st.auto_create(), st.auto_update());
                if d.def.database_id == cat.database_id { of(&cat.statistics) } else { of(&d.cat.read().statistics) }
            };
            let mut rows: Vec<(i32, Vec<Value>)> = session
                .engine()
                .databases()
                .iter()
                .map(|d| {
                    // EMERGENCY / SINGLE_USER (repair.rs)
                    let acc = session.engine().access(d.def.database_id);
                    let (st, st_desc) = if acc.emergency.is_some() { (5, "EMERGENCY") } else { (0, "ONLINE") };
                    let (ua, ua_desc) = if acc.single_user.is_some() { (1, "SINGLE_USER") } else { (0, "MULTI_USER") };
                    let (auto_create, auto_update) = auto_stats(d);
                    // row versioning options (versioning.rs; this database's catalog may be
                    // the one read-locked above)
                    let versioning = if d.def.database_id == cat.database_id {
                        cat.configs.get(&crate::versioning::VERSIONING_CONFIG_ID).copied().unwrap_or(0)
                    } else {
                        d.cat.read().configs.get(&crate::versioning::VERSIONING_CONFIG_ID).copied().unwrap_or(0)
                    };
                    let (si, si_desc, rcsi) = crate::versioning::sys_databases_columns(versioning);
                    (d.def.database_id, vec![
                        s(&d.def.name), Value::Int(d.def.database_id), Value::Null, Value::VarBinary(vec![1]),
                        dt("2024-01-01 00:00:00.000"), Value::TinyInt(d.def.compatibility_level as u8),
                        s("SQL_Latin1_General_CP1_CI_AS"), Value::TinyInt(ua), s(ua_desc), b(acc.emergency.is_some()), Value::TinyInt(st),
                        s(st_desc), Value::TinyInt(si), s(si_desc), b(rcsi),
                        Value::TinyInt(if d.def.database_id == 2 { 3 } else { 1 }),
                        s(if d.def.database_id == 2 { "SIMPLE" } else { "FULL" }),
                        b(auto_create), b(auto_update),
                    ])
                })
                .collect();
            // databases that could not be opened (dbstate.rs): RECOVERY_PENDING / SUSPECT
            for u in session.engine().unavailable_databases() {
                let single = session.engine().access(u.def.database_id).single_user.is_some();
                rows.push((u.def.database_id, vec![
                    s(&u.def.name), Value::Int(u.def.database_id), Value::Null, Value::VarBinary(vec![1]),
                    dt("2024-01-01 00:00:00.000"), Value::TinyInt(u.def.compatibility_level as u8),
                    s("SQL_Latin1_General_CP1_CI_AS"), Value::TinyInt(single as u8),
                    s(if single { "SINGLE_USER" } else { "MULTI_USER" }), b(false),
                    Value::TinyInt(u.state.code()), s(u.state.desc()), Value::Null, Value::Null, Value::Null,
                    Value::TinyInt(1), s("FULL"),
                    Value::Null, Value::Null,
                ]));
            }
            rows.sort_by_key(|r| r.0);
            (c, rows.into_iter().map(|r| r.1).collect())
        }
        (true, "types") => {
            let c = vec![
                col("name", sysname(), false),
                col("system_type_id", DataType::TinyInt, false),
                col("user_type_id", DataType::Int, false),
                col("schema_id", DataType::Int, false),
                col("principal_id", DataType::Int, true),
                col("max_length", DataType::SmallInt, false),
                col("precision", DataType::TinyInt, false),
                col("scale", DataType::TinyInt, false),
                col("collation_name", sysname(), true),
                col("is_nullable", DataType::Bit, true),
                col("is_user_defined", DataType::Bit, false),
                col("is_assembly_type", DataType::Bit, false),
                col("default_object_id", DataType::Int, false),
                col("rule_object_id", DataType::Int, false),
                col("is_table_type", DataType::Bit, false),
            ];
            let mut rows = Vec::new();
            for (n, id) in SYSTEM_TYPES {
                let t = catalog::serial::type_from_text(n).ok();
                let (_, ml, p, sc) = t.as_ref().map(type_info).unwrap_or((0, 16, 0, 0));
                let (ml, p, sc) = match *n {
                    "sysname" => (256, 0, 0),
                    "varchar" | "varbinary" | "char" | "binary" => (8000, 0, 0),
                    "nvarchar" | "nchar" => (8000, 0, 0),
                    "decimal" | "numeric" => (17, 38, 38),
                    "text" | "ntext" | "image" | "xml" => (16, 0, 0),
                    "sql_variant" => (8016, 0, 0),
                    "timestamp" => (8, 0, 0),
                    "time" => (5, 16, 7),
                    "datetime2" => (8, 27, 7),
                    "datetimeoffset" => (10, 34, 7),
                    _ => (ml, p, sc),
                };
                let user_id = if *n == "sysname" { 256 } else { *id };
                let is_str = matches!(*n, "char" | "varchar" | "nchar" | "nvarchar" | "text" | "ntext" | "sysname");
                rows.push(vec![
                    s(n), Value::TinyInt(*id as u8), Value::Int(user_id), Value::Int(4), Value::Null,
                    Value::SmallInt(ml as i16), Value::TinyInt(p as u8), Value::TinyInt(sc as u8),
                    if is_str { s("SQL_Latin1_General_CP1_CI_AS") } else { Value::Null },
                    b(*n != "sysname"), b(false), b(false), Value::Int(0), Value::Int(0), b(false),
                ]);
            }
            for t in &cat.types {
                let (tid, ml, p, sc) = t.base.as_ref().map(type_info).unwrap_or((243, -1, 0, 0));
                rows.push(vec![
                    s(&t.name), Value::TinyInt(tid as u8), Value::Int(t.user_type_id), Value::Int(schema_id(&t.schema)), Value::Null,
                    Value::SmallInt(ml as i16), Value::TinyInt(p as u8), Value::TinyInt(sc as u8), Value::Null, b(t.nullable),
                    b(true), b(false), Value::Int(0), Value::Int(0), b(t.base.is_none()),
                ]);
            }
            (c, rows)
        }
        (false, "tables") => {
            let c = vec![
                col("TABLE_CATALOG", sysname(), true),
                col("TABLE_SCHEMA", sysname(), true),
                col("TABLE_NAME", sysname(), false),
                col("TABLE_TYPE", DataType::VarChar(Some(10)), true),
            ];
            let rows = objs
                .iter()
                .filter_map(|o| match o {
                    SchemaObject::Table(t) => Some(vec![s(&h.def.name), s(&t.schema), s(&t.name), vs("BASE TABLE")]),
                    SchemaObject::View(v) => Some(vec![s(&h.def.name), s(&v.schema), s(&v.name), vs("VIEW")]),
                    _ => None,
                })
                .collect();
            (c, rows)
        }
        (false, "columns") => {
            let c = vec![
                col("TABLE_CATALOG", sysname(), true),
                col("TABLE_SCHEMA", sysname(), true),
                col("TABLE_NAME", sysname(), false),
                col("COLUMN_NAME", sysname(), true),
                col("ORDINAL_POSITION", DataType::Int, true),
                col("COLUMN_DEFAULT", DataType::NVarChar(Some(4000)), true),
                col("IS_NULLABLE", DataType::VarChar(Some(3)), true),
                col("DATA_TYPE", sysname(), true),
                col("CHARACTER_MAXIMUM_LENGTH", DataType::Int, true),
                col("CHARACTER_OCTET_LENGTH", DataType::Int, true),
                col("NUMERIC_PRECISION", DataType::TinyInt, true),
                col("NUMERIC_PRECISION_RADIX", DataType::SmallInt, true),
                col("NUMERIC_SCALE", DataType::Int, true),
                col("DATETIME_PRECISION", DataType::SmallInt, true),
                col("CHARACTER_SET_NAME", sysname(), true),
                col("COLLATION_NAME", sysname(), true),
            ];
            let mut rows = Vec::new();
            for o in &objs {
                if let SchemaObject::Table(t) = o {
                    for (i, cd) in t.columns.iter().enumerate() {
                        rows.push(info_column_row(&h.def.name, t, i, cd));
                    }
                }
            }
            (c, rows)
        }
        (false, "schemata") => {
            let c = vec![
                col("CATALOG_NAME", sysname(), true),
                col("SCHEMA_NAME", sysname(), false),
                col("SCHEMA_OWNER", sysname(), true),
                col("DEFAULT_CHARACTER_SET_CATALOG", DataType::VarChar(Some(6)), true),
                col("DEFAULT_CHARACTER_SET_SCHEMA", DataType::VarChar(Some(3)), true),
                col("DEFAULT_CHARACTER_SET_NAME", sysname(), true),
            ];
            let owner = |id: i32, name: &str| match id {
                1 => "dbo".to_string(),
                2 => "guest".to_string(),
                3 => "INFORMATION_SCHEMA".to_string(),
                4 => "sys".to_string(),
                _ => name.to_string(),
            };
            let rows = cat
                .schemas
                .iter()
                .map(|sc| {
                    vec![
                        s(&h.def.name), s(&sc.name), s(&owner(sc.principal_id, &sc.name)), Value::Null, Value::Null,
                        s("iso_1"),
                    ]
                })
                .collect();
            (c, rows)
        }
        (false, "views") => {
            let c = vec![
                col("TABLE_CATALOG", sysname(), true),
                col("TABLE_SCHEMA", sysname(), true),
                col("TABLE_NAME", sysname(), false),
                col("VIEW_DEFINITION", DataType::NVarChar(Some(4000)), true),
                col("CHECK_OPTION", DataType::VarChar(Some(7)), true),
                col("IS_UPDATABLE", DataType::VarChar(Some(2)), true),
            ];
            let rows = objs
                .iter()
                .filter_map(|o| match o {
                    SchemaObject::View(v) => Some(vec![
                        s(&h.def.name),
                        s(&v.schema),
                        s(&v.name),
                        s(&truncate_chars(&v.text, 4000)),
                        vs(if has_check_option(&v.text) { "CASCADE" } else { "NONE" }),
                        vs("NO"),
                    ]),
                    _ => None,
                })
                .collect();
            (c, rows)
        }
        (false, "routines") => {
            let c = vec![
                col("SPECIFIC_CATALOG", sysname(), true),
                col("SPECIFIC_SCHEMA", sysname(), true),
                col("SPECIFIC_NAME", sysname(), false),
                col("ROUTINE_CATALOG", sysname(), true),
                col("ROUTINE_SCHEMA", sysname(), true),
                col("ROUTINE_NAME", sysname(), false),
                col("ROUTINE_TYPE", DataType::NVarChar(Some(20)), true),
                col("DATA_TYPE", sysname(), true),
                col("ROUTINE_BODY", DataType::NVarChar(Some(30)), true),
                col("ROUTINE_DEFINITION", DataType::NVarChar(Some(4000)), true),
                col("IS_DETERMINISTIC", DataType::NVarChar(Some(10)), true),
                col("SQL_DATA_ACCESS", DataType::NVarChar(Some(30)), true),
                col("CREATED", DataType::DateTime, false),
                col("LAST_ALTERED", DataType::DateTime, false),
            ];
            let rows = objs
                .iter()
                .filter_map(|o| match o {
                    SchemaObject::Module(m) if m.kind != catalog::ModuleKind::Trigger => {
                        let is_proc = m.kind == catalog::ModuleKind::Procedure;
                        let data_type = match m.kind {
                            catalog::ModuleKind::Procedure | catalog::ModuleKind::Trigger => Value::Null,
                            catalog::ModuleKind::ScalarFunction => {
                                m.returns.as_ref().map(|t| s(t.sql_name())).unwrap_or(Value::Null)
                            }
                            _ => s("TABLE"),
                        };
                        Some(vec![
                            s(&h.def.name),
                            s(&m.schema),
                            s(&m.name),
                            s(&h.def.name),
                            s(&m.schema),
                            s(&m.name),
                            s(if is_proc { "PROCEDURE" } else { "FUNCTION" }),
                            data_type,
                            s("SQL"),
                            s(&truncate_chars(&m.text, 4000)),
                            s("NO"),
                            s(if is_proc { "MODIFIES" } else { "READS" }),
                            dt(&m.create_date),
                            dt(&m.create_date),
                        ])
                    }
                    _ => None,
                })
                .collect();
            (c, rows)
        }
        (true, "key_constraints") => crate::sysprocs::key_constraints(&objs, &schema_id)?,
        (true, other) => {
            if let Some(v) = crate::sysviews_sessions::sys_view(session, other)? {
                v
            } else if let Some(v) = crate::versioning::sys_view(session, other)? {
                v
            } else if let Some(v) = crate::sysviews_plans::sys_view(session, other)? {
                v
            } else if let Some(v) = crate::files::sys_view(session, other)? {
                v
            } else if let Some(v) = crate::security::security_view(session, &cat, other)? {
                v
            } else if let Some(v) = crate::external_views::sys_view(&cat, other, &schema_id)? {
                v
            } else if let Some(v) = crate::statistics::sys_view(&h.store, &cat, other)? {
                v
            } else if let Some(v) = crate::sysviews_more::catalog_sys_view(session, &objs, &schema_id, other)? {
                v
            } else {
                drop(objs);
                return crate::sysviews_more::more_sys_view(other);
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(VirtualTable {
        schema: if is_sys {
            "sys".into()
        } else {
            "INFORMATION_SCHEMA".into()
        },
        name: name.to_string(),
        columns,
        rows,
    }))
}

pub(crate) fn object_row(o: &SchemaObject, schema_id: i32, parent: i32) -> Vec<Value> {
    vec![
        s(o.name()),
        Value::Int(o.object_id()),
        Value::Null,
        Value::Int(schema_id),
        Value::Int(parent),
        Value::Char(format!("{:<2}", o.type_code())),
        s(type_desc(o)),
        dt(created(o)),
        dt(created(o)),
        b(crate::bootstrap::is_ms_shipped(o)),
        b(false),
        b(false),
    ]
}

/// Constraint objects of a table (PK, UQ, CHECK, FK, DEFAULT) for sys.objects, with derived ids.
pub(crate) fn constraint_objects(t: &TableDef) -> Vec<(i32, String, &'static str, &'static str)> {
    let mut v = Vec::new();
    let mut k = 1;
    let mut next = || {
        k += 1;
        t.object_id.wrapping_add(k * 16)
    };
    for ix in &t.indexes {
        if ix.primary_key {
            v.push((next(), ix.name.clone(), "PK", "PRIMARY_KEY_CONSTRAINT"));
        } else if ix.unique_constraint {
            v.push((next(), ix.name.clone(), "UQ", "UNIQUE_CONSTRAINT"));
        }
    }
    for c in &t.checks {
        v.push((next(), c.name.clone(), "C", "CHECK_CONSTRAINT"));
    }
    for f in &t.foreign_keys {
        v.push((next(), f.name.clone(), "F", "FOREIGN_KEY_CONSTRAINT"));
    }
    for c in &t.columns {
        if let (Some(_), Some(n)) = (&c.default, &c.default_name) {
            v.push((next(), n.clone(), "D", "DEFAULT_CONSTRAINT"));
        }
    }
    v
}

fn info_column_row(db: &str, t: &TableDef, i: usize, cd: &ColumnDef) -> Vec<Value> {
    let (_, _, p, sc) = type_info(&cd.data_type);
    let char_len = cd.data_type.char_length().map(|n| n as i32);
    let char_max = match &cd.data_type {
        DataType::VarChar(None) | DataType::NVarChar(None) | DataType::VarBinary(None) => Some(-1),
        DataType::Binary(n) | DataType::VarBinary(Some(n)) => Some(*n as i32),
        _ => char_len,
    };
    let octet = match (&cd.data_type, char_max) {
        (_, Some(-1)) => Some(-1),
        (DataType::NChar(_) | DataType::NVarChar(_), Some(n)) => Some(n * 2),
        (_, n) => n,
    };
    let numeric = cd.data_type.is_numeric();
    let is_dt = cd.data_type.is_datetime();
    vec![
        s(db),
        s(&t.schema),
        s(&t.name),
        s(&cd.name),
        Value::Int(i as i32 + 1),
        cd.default
            .as_ref()
            .map(|d| s(&format!("({d})")))
            .unwrap_or(Value::Null),
        vs(if cd.nullable { "YES" } else { "NO" }),
        s(cd.data_type.sql_name()),
        char_max.map(Value::Int).unwrap_or(Value::Null),
        octet.map(Value::Int).unwrap_or(Value::Null),
        if numeric {
            Value::TinyInt(p as u8)
        } else {
            Value::Null
        },
        if numeric {
            Value::SmallInt(if cd.data_type.is_float() { 2 } else { 10 })
        } else {
            Value::Null
        },
        if numeric && !cd.data_type.is_float() {
            Value::Int(sc)
        } else {
            Value::Null
        },
        if is_dt {
            Value::SmallInt(sc as i16)
        } else {
            Value::Null
        },
        if cd.data_type.is_string() {
            s(if cd.data_type.is_unicode() {
                "UNICODE"
            } else {
                "iso_1"
            })
        } else {
            Value::Null
        },
        if cd.data_type.is_string() {
            s("SQL_Latin1_General_CP1_CI_AS")
        } else {
            Value::Null
        },
    ]
}

/// The first `n` characters of `text` (INFORMATION_SCHEMA definitions are nvarchar(4000)).
fn truncate_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// Whether a `CREATE VIEW` text ends with `WITH CHECK OPTION` (INFORMATION_SCHEMA.VIEWS.CHECK_OPTION).
fn has_check_option(text: &str) -> bool {
    let words: Vec<String> = text
        .split_whitespace()
        .rev()
        .take(3)
        .map(|w| w.trim_end_matches(';').to_ascii_uppercase())
        .collect();
    words.len() == 3 && words[0] == "OPTION" && words[1] == "CHECK" && words[2] == "WITH"
}
