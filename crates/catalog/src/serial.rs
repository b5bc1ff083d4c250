//! Persistent encoding of catalog objects.
//!
//! Each object is one JSON document (UTF-8 bytes) built by hand over `serde_json::Value` (no
//! derive macros). Data types are stored as their T-SQL text (`varchar(10)`, `decimal(18,2)`,
//! `nvarchar(max)`), which is stable across changes of the in-memory enum. Readers tolerate
//! missing fields (defaults) so new fields can be added without a format version bump; a
//! malformed document is a corruption error, never a panic.

use common::{SqlError, SqlResult};
use serde_json::{json, Map, Value as J};
use types::DataType;

use crate::*;

/// Object kinds as stored in the catalog B-tree key's first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ObjectKind {
    /// Database-wide counters (next object id ...), key id 0.
    Meta = b'M',
    Schema = b'S',
    Table = b'T',
    View = b'V',
    Module = b'P',
    Sequence = b'Q',
    Type = b'Y',
    /// Identity counter of a table (key id = table object id), value = decimal text.
    Identity = b'I',
    /// A database registered in master (key id = database id).
    Database = b'D',
    /// A server configuration value set by sp_configure, in master (key id =
    /// configuration_id), value = decimal text.
    Config = b'C',
    /// A login (master only; key id = principal_id; `security::encode_login`).
    Login = b'L',
    /// A database user or role (key id = principal_id; `security::encode_principal`).
    Principal = b'U',
    /// The database's permission rows (key id 0; `security::encode_permissions`).
    Permissions = b'G',
    /// Statistics objects of a table (key id = table object id; id 0 = the database's
    /// AUTO_CREATE / AUTO_UPDATE_STATISTICS settings). The engine encodes the value
    /// (engine/src/statistics/persist.rs), since histogram keys are stored in the row format.
    Statistics = b'X',
    /// An external data source, file format or table (key id = its catalog key id;
    /// `external::encode_external`).
    External = b'E',
}

impl ObjectKind {
    pub fn from_byte(b: u8) -> Option<ObjectKind> {
        Some(match b {
            b'M' => ObjectKind::Meta,
            b'S' => ObjectKind::Schema,
            b'T' => ObjectKind::Table,
            b'V' => ObjectKind::View,
            b'P' => ObjectKind::Module,
            b'Q' => ObjectKind::Sequence,
            b'Y' => ObjectKind::Type,
            b'I' => ObjectKind::Identity,
            b'D' => ObjectKind::Database,
            b'C' => ObjectKind::Config,
            b'L' => ObjectKind::Login,
            b'U' => ObjectKind::Principal,
            b'G' => ObjectKind::Permissions,
            b'X' => ObjectKind::Statistics,
            b'E' => ObjectKind::External,
            _ => return None,
        })
    }
}

/// Catalog B-tree key: kind byte + object id as big-endian with the sign bit flipped (so keys
/// sort by id).
pub fn object_key(kind: ObjectKind, id: i32) -> [u8; 5] {
    let b = ((id as u32) ^ 0x8000_0000).to_be_bytes();
    [kind as u8, b[0], b[1], b[2], b[3]]
}

/// Inverse of [`object_key`].
pub fn parse_object_key(key: &[u8]) -> Option<(ObjectKind, i32)> {
    if key.len() != 5 {
        return None;
    }
    let kind = ObjectKind::from_byte(key[0])?;
    let id = (u32::from_be_bytes([key[1], key[2], key[3], key[4]]) ^ 0x8000_0000) as i32;
    Some((kind, id))
}

fn corrupt(what: &str) -> SqlError {
    SqlError::custom(
        8966,
        16,
        1,
        format!("Unable to read and latch a catalog row: malformed {what}."),
    )
}

// ---------------------------------------------------------------------------------------------
// Data types as text

/// T-SQL text of a data type (`varchar(10)`, `nvarchar(max)`, `decimal(18,2)`, `time(7)`).
pub fn type_to_text(t: &DataType) -> String {
    fn len(n: &Option<u32>) -> String {
        match n {
            Some(n) => n.to_string(),
            None => "max".to_string(),
        }
    }
    #[allow(unreachable_patterns)] // reason: DataType may grow variants in the types crate
    match t {
        DataType::Bit => "bit".into(),
        DataType::TinyInt => "tinyint".into(),
        DataType::SmallInt => "smallint".into(),
        DataType::Int => "int".into(),
        DataType::BigInt => "bigint".into(),
        DataType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        DataType::Numeric { precision, scale } => format!("numeric({precision},{scale})"),
        DataType::Float => "float".into(),
        DataType::Real => "real".into(),
        DataType::Money => "money".into(),
        DataType::SmallMoney => "smallmoney".into(),
        DataType::Char(n) => format!("char({n})"),
        DataType::VarChar(n) => format!("varchar({})", len(n)),
        DataType::NChar(n) => format!("nchar({n})"),
        DataType::NVarChar(n) => format!("nvarchar({})", len(n)),
        DataType::Binary(n) => format!("binary({n})"),
        DataType::VarBinary(n) => format!("varbinary({})", len(n)),
        DataType::Date => "date".into(),
        DataType::Time(n) => format!("time({n})"),
        DataType::DateTime => "datetime".into(),
        DataType::DateTime2(n) => format!("datetime2({n})"),
        DataType::SmallDateTime => "smalldatetime".into(),
        DataType::DateTimeOffset(n) => format!("datetimeoffset({n})"),
        DataType::UniqueIdentifier => "uniqueidentifier".into(),
        DataType::Null => "null".into(),
        // Variants added later are stored by their Debug text and read back by name.
        other => format!("{other:?}").to_lowercase(),
    }
}

/// Parses [`type_to_text`] output (also accepts plain T-SQL type names with defaults).
pub fn type_from_text(s: &str) -> SqlResult<DataType> {
    let s = s.trim();
    let (name, args): (&str, Vec<&str>) = match s.find('(') {
        Some(p) => {
            let inner = s[p + 1..].trim_end_matches(')');
            (s[..p].trim(), inner.split(',').map(str::trim).collect())
        }
        None => (s, Vec::new()),
    };
    let num = |i: usize, d: u32| -> SqlResult<u32> {
        match args.get(i) {
            None => Ok(d),
            Some(a) => a.parse::<u32>().map_err(|_| corrupt("data type")),
        }
    };
    let var = |d: u32| -> SqlResult<Option<u32>> {
        match args.first() {
            None => Ok(Some(d)),
            Some(a) if a.eq_ignore_ascii_case("max") => Ok(None),
            Some(a) => a.parse::<u32>().map(Some).map_err(|_| corrupt("data type")),
        }
    };
    let small = |v: u32| -> u8 { v.min(255) as u8 };
    Ok(match name.to_ascii_lowercase().as_str() {
        "bit" => DataType::Bit,
        "tinyint" => DataType::TinyInt,
        "smallint" => DataType::SmallInt,
        "int" => DataType::Int,
        "bigint" => DataType::BigInt,
        "decimal" => DataType::Decimal {
            precision: small(num(0, 18)?),
            scale: small(num(1, 0)?),
        },
        "numeric" => DataType::Numeric {
            precision: small(num(0, 18)?),
            scale: small(num(1, 0)?),
        },
        "float" => DataType::Float,
        "real" => DataType::Real,
        "money" => DataType::Money,
        "smallmoney" => DataType::SmallMoney,
        "char" => DataType::Char(num(0, 1)?),
        "varchar" => DataType::VarChar(var(1)?),
        "nchar" => DataType::NChar(num(0, 1)?),
        "nvarchar" => DataType::NVarChar(var(1)?),
        "binary" => DataType::Binary(num(0, 1)?),
        "varbinary" => DataType::VarBinary(var(1)?),
        "date" => DataType::Date,
        "time" => DataType::Time(small(num(0, 7)?)),
        "datetime" => DataType::DateTime,
        "datetime2" => DataType::DateTime2(small(num(0, 7)?)),
        "smalldatetime" => DataType::SmallDateTime,
        "datetimeoffset" => DataType::DateTimeOffset(small(num(0, 7)?)),
        "uniqueidentifier" => DataType::UniqueIdentifier,
        "null" => DataType::Null,
        _ => return Err(corrupt("data type")),
    })
}

// ---------------------------------------------------------------------------------------------
// Field access helpers

struct Obj<'a>(&'a Map<String, J>);

impl<'a> Obj<'a> {
    fn new(v: &'a J, what: &str) -> SqlResult<Self> {
        v.as_object().map(Obj).ok_or_else(|| corrupt(what))
    }
    fn str(&self, k: &str) -> SqlResult<String> {
        self.0
            .get(k)
            .and_then(J::as_str)
            .map(str::to_string)
            .ok_or_else(|| corrupt(k))
    }
    fn opt_str(&self, k: &str) -> Option<String> {
        self.0.get(k).and_then(J::as_str).map(str::to_string)
    }
    fn str_or(&self, k: &str, d: &str) -> String {
        self.opt_str(k).unwrap_or_else(|| d.to_string())
    }
    fn i64(&self, k: &str) -> SqlResult<i64> {
        self.0.get(k).and_then(J::as_i64).ok_or_else(|| corrupt(k))
    }
    fn i64_or(&self, k: &str, d: i64) -> i64 {
        self.0.get(k).and_then(J::as_i64).unwrap_or(d)
    }
    fn i32(&self, k: &str) -> SqlResult<i32> {
        i32::try_from(self.i64(k)?).map_err(|_| corrupt(k))
    }
    fn u64(&self, k: &str) -> SqlResult<u64> {
        self.0.get(k).and_then(J::as_u64).ok_or_else(|| corrupt(k))
    }
    fn bool(&self, k: &str) -> bool {
        self.0.get(k).and_then(J::as_bool).unwrap_or(false)
    }
    fn i128_text(&self, k: &str) -> SqlResult<i128> {
        self.str(k)?.parse::<i128>().map_err(|_| corrupt(k))
    }
    fn dtype(&self, k: &str) -> SqlResult<DataType> {
        type_from_text(&self.str(k)?)
    }
    fn arr(&self, k: &str) -> &'a [J] {
        self.0
            .get(k)
            .and_then(J::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
    fn usizes(&self, k: &str) -> SqlResult<Vec<usize>> {
        self.arr(k)
            .iter()
            .map(|v| v.as_u64().map(|x| x as usize).ok_or_else(|| corrupt(k)))
            .collect()
    }
    fn strings(&self, k: &str) -> SqlResult<Vec<String>> {
        self.arr(k)
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| corrupt(k)))
            .collect()
    }
}

fn parse(bytes: &[u8]) -> SqlResult<J> {
    serde_json::from_slice(bytes).map_err(|_| corrupt("catalog document"))
}

fn to_bytes(v: &J) -> Vec<u8> {
    v.to_string().into_bytes()
}

fn opt(s: &Option<String>) -> J {
    match s {
        Some(s) => J::String(s.clone()),
        None => J::Null,
    }
}

// ---------------------------------------------------------------------------------------------
// Columns

fn column_to_json(c: &ColumnDef) -> J {
    json!({
        "name": c.name,
        "type": type_to_text(&c.data_type),
        "nullable": c.nullable,
        "identity": c.identity.map(|i| json!([i.seed, i.increment])),
        "default": opt(&c.default),
        "default_name": opt(&c.default_name),
        "computed": opt(&c.computed),
        "persisted": c.persisted,
        "collation": opt(&c.collation),
        "rowguidcol": c.rowguidcol,
        "user_type": opt(&c.user_type),
    })
}

fn column_from_json(v: &J) -> SqlResult<ColumnDef> {
    let o = Obj::new(v, "column")?;
    let identity = match o.0.get("identity").and_then(J::as_array) {
        Some(a) if a.len() == 2 => Some(IdentitySpec {
            seed: a[0].as_i64().ok_or_else(|| corrupt("identity"))?,
            increment: a[1].as_i64().ok_or_else(|| corrupt("identity"))?,
        }),
        _ => None,
    };
    Ok(ColumnDef {
        name: o.str("name")?,
        data_type: o.dtype("type")?,
        nullable: o.bool("nullable"),
        identity,
        default: o.opt_str("default"),
        default_name: o.opt_str("default_name"),
        computed: o.opt_str("computed"),
        persisted: o.bool("persisted"),
        collation: o.opt_str("collation"),
        rowguidcol: o.bool("rowguidcol"),
        user_type: o.opt_str("user_type"),
    })
}

fn columns_from(o: &Obj, k: &str) -> SqlResult<Vec<ColumnDef>> {
    o.arr(k).iter().map(column_from_json).collect()
}

fn index_to_json(i: &IndexDef) -> J {
    json!({
        "id": i.index_id,
        "name": i.name,
        "unique": i.unique,
        "pk": i.primary_key,
        "uq": i.unique_constraint,
        "clustered": i.clustered,
        "columnstore": i.kind == IndexKind::ColumnStore,
        "keys": i.key_columns.iter().map(|(c, d)| json!([c, d])).collect::<Vec<_>>(),
        "include": i.included,
        "filter": opt(&i.filter),
        "storage": i.storage_id,
        "ignore_dup_key": i.ignore_dup_key,
        "fill_factor": i.fill_factor,
        "seq_key": i.optimize_for_sequential_key,
    })
}

fn index_from_json(v: &J) -> SqlResult<IndexDef> {
    let o = Obj::new(v, "index")?;
    let mut keys = Vec::new();
    for k in o.arr("keys") {
        let a = k.as_array().ok_or_else(|| corrupt("index key"))?;
        let c = a
            .first()
            .and_then(J::as_u64)
            .ok_or_else(|| corrupt("index key"))?;
        let d = a.get(1).and_then(J::as_bool).unwrap_or(false);
        keys.push((c as usize, d));
    }
    Ok(IndexDef {
        index_id: o.i32("id")?,
        name: o.str("name")?,
        unique: o.bool("unique"),
        primary_key: o.bool("pk"),
        unique_constraint: o.bool("uq"),
        clustered: o.bool("clustered"),
        kind: if o.bool("columnstore") {
            IndexKind::ColumnStore
        } else {
            IndexKind::RowStore
        },
        key_columns: keys,
        included: o.usizes("include")?,
        filter: o.opt_str("filter"),
        storage_id: o.u64("storage")?,
        ignore_dup_key: o.bool("ignore_dup_key"),
        fill_factor: o.i64_or("fill_factor", 0).clamp(0, 100) as u8,
        optimize_for_sequential_key: o.bool("seq_key"),
    })
}

fn action_text(a: RefAction) -> &'static str {
    match a {
        RefAction::NoAction => "NO_ACTION",
        RefAction::Cascade => "CASCADE",
        RefAction::SetNull => "SET_NULL",
        RefAction::SetDefault => "SET_DEFAULT",
    }
}

fn action_from(s: &str) -> RefAction {
    match s {
        "CASCADE" => RefAction::Cascade,
        "SET_NULL" => RefAction::SetNull,
        "SET_DEFAULT" => RefAction::SetDefault,
        _ => RefAction::NoAction,
    }
}

// ---------------------------------------------------------------------------------------------
// Tables

/// Encodes a table definition.
pub fn encode_table(t: &TableDef) -> Vec<u8> {
    let storage = match t.storage {
        TableStorage::Heap(id) => json!({"heap": id}),
        TableStorage::Clustered { index } => json!({"clustered": index}),
    };
    let v = json!({
        "id": t.object_id,
        "database": t.database,
        "schema": t.schema,
        "name": t.name,
        "columns": t.columns.iter().map(column_to_json).collect::<Vec<_>>(),
        "indexes": t.indexes.iter().map(index_to_json).collect::<Vec<_>>(),
        "storage": storage,
        "checks": t.checks.iter().map(|c| json!({
            "name": c.name, "text": c.text, "column": c.column,
            "disabled": c.disabled, "not_trusted": c.not_trusted,
        })).collect::<Vec<_>>(),
        "fks": t.foreign_keys.iter().map(|f| json!({
            "name": f.name, "columns": f.columns, "ref_id": f.ref_object_id,
            "ref_schema": f.ref_schema, "ref_table": f.ref_table, "ref_columns": f.ref_columns,
            "on_delete": action_text(f.on_delete), "on_update": action_text(f.on_update),
            "disabled": f.disabled, "not_trusted": f.not_trusted,
        })).collect::<Vec<_>>(),
        "temp": t.is_temp,
        "created": t.create_date,
    });
    to_bytes(&v)
}

/// Decodes [`encode_table`] output.
pub fn decode_table(bytes: &[u8]) -> SqlResult<TableDef> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "table")?;
    let st = Obj::new(
        o.0.get("storage").ok_or_else(|| corrupt("storage"))?,
        "storage",
    )?;
    let storage = if let Ok(h) = st.u64("heap") {
        TableStorage::Heap(h)
    } else {
        TableStorage::Clustered {
            index: st.u64("clustered")? as usize,
        }
    };
    let mut checks = Vec::new();
    for c in o.arr("checks") {
        let c = Obj::new(c, "check")?;
        checks.push(CheckDef {
            name: c.str("name")?,
            text: c.str("text")?,
            column: c.0.get("column").and_then(J::as_u64).map(|x| x as usize),
            disabled: c.bool("disabled"),
            not_trusted: c.bool("not_trusted"),
        });
    }
    let mut fks = Vec::new();
    for f in o.arr("fks") {
        let f = Obj::new(f, "foreign key")?;
        fks.push(ForeignKeyDef {
            name: f.str("name")?,
            columns: f.usizes("columns")?,
            ref_object_id: f.i32("ref_id")?,
            ref_schema: f.str_or("ref_schema", "dbo"),
            ref_table: f.str("ref_table")?,
            ref_columns: f.strings("ref_columns")?,
            on_delete: action_from(&f.str_or("on_delete", "")),
            on_update: action_from(&f.str_or("on_update", "")),
            disabled: f.bool("disabled"),
            not_trusted: f.bool("not_trusted"),
        });
    }
    Ok(TableDef {
        object_id: o.i32("id")?,
        database: o.str("database")?,
        schema: o.str("schema")?,
        name: o.str("name")?,
        columns: columns_from(&o, "columns")?,
        indexes: o
            .arr("indexes")
            .iter()
            .map(index_from_json)
            .collect::<SqlResult<_>>()?,
        storage,
        checks,
        foreign_keys: fks,
        is_temp: o.bool("temp"),
        create_date: o.str_or("created", ""),
    })
}

// ---------------------------------------------------------------------------------------------
// Views, modules, sequences, schemas, types

/// Encodes a view definition.
pub fn encode_view(v: &ViewDef) -> Vec<u8> {
    to_bytes(&json!({
        "id": v.object_id, "database": v.database, "schema": v.schema, "name": v.name,
        "text": v.text, "columns": v.columns, "schemabinding": v.schemabinding,
        "quoted_identifier_off": !v.uses_quoted_identifier, "created": v.create_date,
        "ansi_nulls": v.uses_ansi_nulls,
    }))
}

/// Decodes [`encode_view`] output.
pub fn decode_view(bytes: &[u8]) -> SqlResult<ViewDef> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "view")?;
    Ok(ViewDef {
        object_id: o.i32("id")?,
        database: o.str("database")?,
        schema: o.str("schema")?,
        name: o.str("name")?,
        text: o.str("text")?,
        columns: o.strings("columns")?,
        schemabinding: o.bool("schemabinding"),
        // absent in files written before the setting was kept: those were all created ON
        uses_quoted_identifier: !o.bool("quoted_identifier_off"),
        create_date: o.str_or("created", ""),
        uses_ansi_nulls: o.0.get("ansi_nulls").and_then(J::as_bool).unwrap_or(true),
    })
}

fn kind_text(k: ModuleKind) -> &'static str {
    k.type_code()
}

fn kind_from(s: &str) -> SqlResult<ModuleKind> {
    Ok(match s {
        "P" => ModuleKind::Procedure,
        "FN" => ModuleKind::ScalarFunction,
        "IF" => ModuleKind::InlineTableFunction,
        "TF" => ModuleKind::TableFunction,
        "TR" => ModuleKind::Trigger,
        _ => return Err(corrupt("module kind")),
    })
}

/// Encodes a module (procedure, function, trigger).
pub fn encode_module(m: &ModuleDef) -> Vec<u8> {
    let trigger = m.trigger.as_ref().map(|t| {
        json!({
            "table_id": t.table_object_id, "table_schema": t.table_schema,
            "table_name": t.table_name, "insert": t.on_insert, "update": t.on_update,
            "delete": t.on_delete, "instead_of": t.instead_of, "disabled": t.disabled,
        })
    });
    to_bytes(&json!({
        "id": m.object_id, "database": m.database, "schema": m.schema, "name": m.name,
        "kind": kind_text(m.kind), "text": m.text,
        "params": m.parameters.iter().map(|p| json!({
            "name": p.name, "type": type_to_text(&p.data_type), "default": opt(&p.default),
            "output": p.output, "readonly": p.readonly, "table_type": opt(&p.table_type),
        })).collect::<Vec<_>>(),
        "returns": m.returns.as_ref().map(type_to_text),
        "returns_table": m.returns_table.iter().map(column_to_json).collect::<Vec<_>>(),
        "trigger": trigger,
        "quoted_identifier_off": !m.uses_quoted_identifier,
        "created": m.create_date,
        "ansi_nulls": m.uses_ansi_nulls,
    }))
}

/// Decodes [`encode_module`] output.
pub fn decode_module(bytes: &[u8]) -> SqlResult<ModuleDef> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "module")?;
    let mut params = Vec::new();
    for p in o.arr("params") {
        let p = Obj::new(p, "parameter")?;
        params.push(ParameterDef {
            name: p.str("name")?,
            data_type: p.dtype("type")?,
            default: p.opt_str("default"),
            output: p.bool("output"),
            readonly: p.bool("readonly"),
            table_type: p.opt_str("table_type"),
        });
    }
    let trigger = match o.0.get("trigger") {
        Some(t) if !t.is_null() => {
            let t = Obj::new(t, "trigger")?;
            Some(TriggerDef {
                table_object_id: t.i32("table_id")?,
                table_schema: t.str_or("table_schema", "dbo"),
                table_name: t.str("table_name")?,
                on_insert: t.bool("insert"),
                on_update: t.bool("update"),
                on_delete: t.bool("delete"),
                instead_of: t.bool("instead_of"),
                disabled: t.bool("disabled"),
            })
        }
        _ => None,
    };
    Ok(ModuleDef {
        object_id: o.i32("id")?,
        database: o.str("database")?,
        schema: o.str("schema")?,
        name: o.str("name")?,
        kind: kind_from(&o.str("kind")?)?,
        text: o.str("text")?,
        parameters: params,
        returns: match o.opt_str("returns") {
            Some(t) => Some(type_from_text(&t)?),
            None => None,
        },
        returns_table: columns_from(&o, "returns_table")?,
        trigger,
        uses_quoted_identifier: !o.bool("quoted_identifier_off"),
        create_date: o.str_or("created", ""),
        // absent in catalogs written before the setting was recorded: ON, the default
        uses_ansi_nulls: o.0.get("ansi_nulls").and_then(J::as_bool).unwrap_or(true),
    })
}

/// Encodes a sequence.
pub fn encode_sequence(s: &SequenceDef) -> Vec<u8> {
    to_bytes(&json!({
        "id": s.object_id, "database": s.database, "schema": s.schema, "name": s.name,
        "type": type_to_text(&s.data_type), "start": s.start.to_string(),
        "increment": s.increment.to_string(), "min": s.min.to_string(), "max": s.max.to_string(),
        "cycle": s.cycle, "cache": s.cache, "current": s.current.map(|c| c.to_string()),
        "created": s.create_date,
    }))
}

/// Decodes [`encode_sequence`] output.
pub fn decode_sequence(bytes: &[u8]) -> SqlResult<SequenceDef> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "sequence")?;
    Ok(SequenceDef {
        object_id: o.i32("id")?,
        database: o.str("database")?,
        schema: o.str("schema")?,
        name: o.str("name")?,
        data_type: o.dtype("type")?,
        start: o.i128_text("start")?,
        increment: o.i128_text("increment")?,
        min: o.i128_text("min")?,
        max: o.i128_text("max")?,
        cycle: o.bool("cycle"),
        cache: o.0.get("cache").and_then(J::as_i64),
        current: match o.opt_str("current") {
            Some(c) => Some(c.parse::<i128>().map_err(|_| corrupt("current"))?),
            None => None,
        },
        create_date: o.str_or("created", ""),
    })
}

/// Encodes a schema.
pub fn encode_schema(s: &SchemaDef) -> Vec<u8> {
    to_bytes(&json!({"id": s.schema_id, "name": s.name, "principal": s.principal_id}))
}

/// Decodes [`encode_schema`] output.
pub fn decode_schema(bytes: &[u8]) -> SqlResult<SchemaDef> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "schema")?;
    Ok(SchemaDef {
        schema_id: o.i32("id")?,
        name: o.str("name")?,
        principal_id: o.i64_or("principal", 1) as i32,
    })
}

/// Encodes a user-defined type.
pub fn encode_type(t: &TypeDef) -> Vec<u8> {
    to_bytes(&json!({
        "id": t.user_type_id, "schema": t.schema, "name": t.name,
        "base": t.base.as_ref().map(type_to_text), "nullable": t.nullable,
        "columns": t.table_columns.iter().map(column_to_json).collect::<Vec<_>>(),
    }))
}

/// Decodes [`encode_type`] output.
pub fn decode_type(bytes: &[u8]) -> SqlResult<TypeDef> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "type")?;
    Ok(TypeDef {
        user_type_id: o.i32("id")?,
        schema: o.str("schema")?,
        name: o.str("name")?,
        base: match o.opt_str("base") {
            Some(t) => Some(type_from_text(&t)?),
            None => None,
        },
        nullable: o.bool("nullable"),
        table_columns: columns_from(&o, "columns")?,
    })
}

/// Encodes a database registration (stored in master).
pub fn encode_database(d: &DatabaseDef) -> Vec<u8> {
    to_bytes(&json!({
        "id": d.database_id, "name": d.name, "dir": d.dir, "compat": d.compatibility_level,
        "files": d.files.iter().map(|f| json!({
            "id": f.file_id, "storage": f.storage_index, "name": f.name,
            "path": f.physical_name, "size": f.size_pages, "max": f.max_size_pages,
            "growth": f.growth, "pct": f.is_percent_growth,
        })).collect::<Vec<_>>(),
        "filegroups": d.filegroups.iter().map(|g| json!({
            "id": g.data_space_id, "name": g.name,
        })).collect::<Vec<_>>(),
        "default_fg": d.default_data_space,
    }))
}

/// Decodes [`encode_database`] output.
pub fn decode_database(bytes: &[u8]) -> SqlResult<DatabaseDef> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "database")?;
    Ok(DatabaseDef {
        database_id: o.i32("id")?,
        name: o.str("name")?,
        dir: o.str("dir")?,
        compatibility_level: o.i64_or("compat", 150) as i32,
        files: o
            .arr("files")
            .iter()
            .map(|f| {
                let f = Obj::new(f, "database file")?;
                Ok(crate::DbFileDef {
                    file_id: f.i32("id")?,
                    storage_index: u16::try_from(f.i64("storage")?)
                        .map_err(|_| corrupt("storage"))?,
                    name: f.str("name")?,
                    physical_name: f.str("path")?,
                    size_pages: f.i64("size")?,
                    max_size_pages: f.i64("max")?,
                    growth: f.i64("growth")?,
                    is_percent_growth: f.bool("pct"),
                })
            })
            .collect::<SqlResult<Vec<_>>>()?,
        filegroups: o
            .arr("filegroups")
            .iter()
            .map(|g| {
                let g = Obj::new(g, "filegroup")?;
                Ok(crate::FilegroupDef {
                    data_space_id: g.i32("id")?,
                    name: g.str("name")?,
                })
            })
            .collect::<SqlResult<Vec<_>>>()?,
        default_data_space: o.i64_or("default_fg", 1) as i32,
    })
}

/// Encodes a database's meta row (counters) as JSON.
pub fn encode_meta(next_object_id: i32, next_schema_id: i32, next_type_id: i32) -> Vec<u8> {
    to_bytes(&json!({
        "next_object_id": next_object_id, "next_schema_id": next_schema_id,
        "next_type_id": next_type_id,
    }))
}

/// Decodes [`encode_meta`] output: (next object id, next schema id, next user type id).
pub fn decode_meta(bytes: &[u8]) -> SqlResult<(i32, i32, i32)> {
    let v = parse(bytes)?;
    let o = Obj::new(&v, "meta")?;
    Ok((
        o.i32("next_object_id")?,
        o.i64_or("next_schema_id", 5) as i32,
        o.i64_or("next_type_id", 257) as i32,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_table() -> TableDef {
        let mut c1 = ColumnDef::new("ID", DataType::Int, false);
        c1.identity = Some(IdentitySpec {
            seed: 1,
            increment: 1,
        });
        let mut c2 = ColumnDef::new("name", DataType::NVarChar(None), true);
        c2.default = Some("N'x'".into());
        c2.default_name = Some("DF_t_name".into());
        TableDef {
            object_id: 901578250,
            database: "master".into(),
            schema: "dbo".into(),
            name: "t".into(),
            columns: vec![
                c1,
                c2,
                ColumnDef::new(
                    "amt",
                    DataType::Decimal {
                        precision: 18,
                        scale: 2,
                    },
                    true,
                ),
            ],
            indexes: vec![IndexDef {
                index_id: 1,
                name: "PK_t".into(),
                unique: true,
                primary_key: true,
                unique_constraint: false,
                clustered: true,
                kind: IndexKind::RowStore,
                key_columns: vec![(0, false)],
                included: vec![],
                filter: None,
                storage_id: 7,
                ignore_dup_key: false,
                fill_factor: 0,
                optimize_for_sequential_key: true,
            }],
            storage: TableStorage::Clustered { index: 0 },
            checks: vec![CheckDef {
                name: "CK_amt".into(),
                text: "[amt]>(0)".into(),
                column: Some(2),
                disabled: false,
                not_trusted: false,
            }],
            foreign_keys: vec![ForeignKeyDef {
                name: "FK_x".into(),
                columns: vec![0],
                ref_object_id: 5,
                ref_schema: "dbo".into(),
                ref_table: "p".into(),
                ref_columns: vec!["id".into()],
                on_delete: RefAction::Cascade,
                on_update: RefAction::NoAction,
                disabled: false,
                not_trusted: true,
            }],
            is_temp: false,
            create_date: "2024-01-01 00:00:00.000".into(),
        }
    }

    #[test]
    fn table_round_trips() {
        let t = sample_table();
        let back = decode_table(&encode_table(&t)).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn types_round_trip() {
        for t in [
            DataType::VarChar(None),
            DataType::VarChar(Some(10)),
            DataType::NChar(3),
            DataType::Numeric {
                precision: 5,
                scale: 1,
            },
            DataType::Time(3),
            DataType::DateTimeOffset(7),
            DataType::VarBinary(Some(8000)),
        ] {
            assert_eq!(type_from_text(&type_to_text(&t)).unwrap(), t);
        }
        assert!(type_from_text("nosuch").is_err());
    }

    #[test]
    fn view_keeps_its_ansi_nulls_and_old_views_read_as_on() {
        let v = ViewDef {
            object_id: 4,
            database: "db".into(),
            schema: "dbo".into(),
            name: "v".into(),
            text: "CREATE VIEW v AS SELECT 1 AS a".into(),
            columns: vec![],
            schemabinding: false,
            uses_quoted_identifier: false,
            create_date: String::new(),
            uses_ansi_nulls: false,
        };
        assert_eq!(decode_view(&encode_view(&v)).unwrap(), v);
        // written before the setting was recorded: no "ansi_nulls" key
        let old = br#"{"id":4,"database":"db","schema":"dbo","name":"v","text":"x","columns":[]}"#;
        assert!(decode_view(old).unwrap().uses_ansi_nulls);
        assert!(decode_view(old).unwrap().uses_quoted_identifier);
    }

    #[test]
    fn module_and_sequence_round_trip() {
        let m = ModuleDef {
            object_id: 3,
            database: "db".into(),
            schema: "dbo".into(),
            name: "p".into(),
            kind: ModuleKind::Procedure,
            text: "CREATE PROCEDURE p @a int = 5 AS SELECT @a".into(),
            parameters: vec![ParameterDef {
                name: "@a".into(),
                data_type: DataType::Int,
                default: Some("5".into()),
                output: false,
                readonly: false,
                table_type: None,
            }],
            returns: None,
            returns_table: vec![],
            trigger: None,
            uses_quoted_identifier: false,
            create_date: String::new(),
            uses_ansi_nulls: false,
        };
        assert_eq!(decode_module(&encode_module(&m)).unwrap(), m);
        let s = SequenceDef {
            object_id: 4,
            database: "db".into(),
            schema: "dbo".into(),
            name: "s".into(),
            data_type: DataType::BigInt,
            start: 1,
            increment: 1,
            min: i64::MIN as i128,
            max: i64::MAX as i128,
            cycle: false,
            cache: None,
            current: Some(10),
            create_date: String::new(),
        };
        assert_eq!(decode_sequence(&encode_sequence(&s)).unwrap(), s);
    }

    #[test]
    fn keys_sort_by_id_and_garbage_is_an_error() {
        let a = object_key(ObjectKind::Table, -5);
        let b = object_key(ObjectKind::Table, 3);
        assert!(a < b);
        assert_eq!(parse_object_key(&b), Some((ObjectKind::Table, 3)));
        assert!(decode_table(b"{not json").is_err());
        assert!(decode_table(b"{}").is_err());
    }

    /// A database's files round-trip; a registration written before files existed reads
    /// as "defaults" (empty list); a malformed file entry is an error, not a panic.
    #[test]
    fn database_files_roundtrip_and_old_rows() {
        let d = DatabaseDef {
            database_id: 5,
            name: "s2".into(),
            dir: "db_5".into(),
            compatibility_level: 150,
            files: vec![crate::DbFileDef {
                file_id: 3,
                storage_index: 2,
                name: "s2_b".into(),
                physical_name: "/x/s2_b.ndf".into(),
                size_pages: 128,
                max_size_pages: -1,
                growth: 10,
                is_percent_growth: true,
            }],
            filegroups: vec![crate::FilegroupDef {
                data_space_id: 2,
                name: "fg".into(),
            }],
            default_data_space: 2,
        };
        assert_eq!(decode_database(&encode_database(&d)).unwrap(), d);
        let old = br#"{"id": 5, "name": "s2", "dir": "db_5", "compat": 150}"#;
        assert!(decode_database(old).unwrap().files.is_empty());
        assert!(decode_database(old).unwrap().filegroups.is_empty());
        assert_eq!(decode_database(old).unwrap().default_data_space, 1);
        let bad = br#"{"id": 5, "name": "s2", "dir": "db_5", "files": [{"id": 1}]}"#;
        assert!(decode_database(bad).is_err());
        assert_eq!(ObjectKind::from_byte(b'C'), Some(ObjectKind::Config));
    }
}
