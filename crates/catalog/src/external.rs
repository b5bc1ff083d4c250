//! External data sources, file formats and tables (SQL Server 2022's PolyBase objects, as
//! `CREATE EXTERNAL DATA SOURCE | FILE FORMAT | TABLE` make them) and their persistent encoding:
//! catalog B-tree rows of kind `E` (README "Persistent format").

use common::{SqlError, SqlResult};
use serde_json::{json, Value as J};
use types::DataType;

use crate::serial::{type_from_text, type_to_text};

/// Which external object a definition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExternalObjectKind {
    DataSource,
    FileFormat,
    Table,
}

impl ExternalObjectKind {
    fn code(self) -> &'static str {
        match self {
            ExternalObjectKind::DataSource => "DS",
            ExternalObjectKind::FileFormat => "FF",
            ExternalObjectKind::Table => "ET",
        }
    }

    fn from_code(s: &str) -> Option<Self> {
        Some(match s {
            "DS" => ExternalObjectKind::DataSource,
            "FF" => ExternalObjectKind::FileFormat,
            "ET" => ExternalObjectKind::Table,
            _ => return None,
        })
    }
}

/// A column of an external table (`sys.columns` of the table).
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalColumn {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
}

/// One external object. Data sources and file formats are database-scoped (no schema, ids
/// `data_source_id` / `file_format_id` from 65536 as SQL Server numbers them); an external
/// table is a schema object (`object_id` from the database's object ids, in `sys.objects` as
/// type 'U').
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalObjectDef {
    pub kind: ExternalObjectKind,
    /// Catalog row key id: unique in the database (taken from the object id counter).
    pub key_id: i32,
    /// `data_source_id`, `file_format_id`, or the table's `object_id`.
    pub id: i32,
    /// Tables only (empty for data sources and file formats).
    pub schema: String,
    pub name: String,
    /// Data source: `LOCATION` as written; table: `LOCATION` relative to its data source.
    pub location: String,
    /// File format: `FORMAT_TYPE` (upper case).
    pub format_type: String,
    /// File format: `DATA_COMPRESSION` as written (None = not given).
    pub data_compression: Option<String>,
    /// Table: the ids of its data source and file format.
    pub data_source_id: i32,
    pub file_format_id: i32,
    /// Table: the declared (or CETAS-derived) columns.
    pub columns: Vec<ExternalColumn>,
    /// `datetime` text.
    pub create_date: String,
}

fn corrupt(what: &str) -> SqlError {
    SqlError::custom(
        8966,
        16,
        1,
        format!("Unable to read and latch a catalog row: malformed external object {what}."),
    )
}

/// Encodes an external object (kind `E` row value).
pub fn encode_external(o: &ExternalObjectDef) -> Vec<u8> {
    let columns: Vec<J> = o
        .columns
        .iter()
        .map(|c| json!([c.name, type_to_text(&c.data_type), c.nullable]))
        .collect();
    let v = json!({
        "kind": o.kind.code(), "key": o.key_id, "id": o.id, "schema": o.schema, "name": o.name,
        "location": o.location, "format": o.format_type, "compression": o.data_compression,
        "ds": o.data_source_id, "ff": o.file_format_id, "columns": columns,
        "created": o.create_date,
    });
    v.to_string().into_bytes()
}

/// Decodes [`encode_external`] output; a malformed document is error 8966, never a panic.
pub fn decode_external(bytes: &[u8]) -> SqlResult<ExternalObjectDef> {
    let v: J = serde_json::from_slice(bytes).map_err(|_| corrupt("document"))?;
    let o = v.as_object().ok_or_else(|| corrupt("document"))?;
    let text = |k: &str| o.get(k).and_then(J::as_str).map(str::to_string);
    let int = |k: &str| -> SqlResult<i32> {
        o.get(k)
            .and_then(J::as_i64)
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| corrupt(k))
    };
    let kind = text("kind")
        .and_then(|k| ExternalObjectKind::from_code(&k))
        .ok_or_else(|| corrupt("kind"))?;
    let mut columns = Vec::new();
    for c in o
        .get("columns")
        .and_then(J::as_array)
        .map_or(&[][..], |a| a)
    {
        let (Some(name), Some(ty), Some(nullable)) = (
            c.get(0).and_then(J::as_str),
            c.get(1).and_then(J::as_str),
            c.get(2).and_then(J::as_bool),
        ) else {
            return Err(corrupt("column"));
        };
        columns.push(ExternalColumn {
            name: name.to_string(),
            data_type: type_from_text(ty).map_err(|_| corrupt("column type"))?,
            nullable,
        });
    }
    Ok(ExternalObjectDef {
        kind,
        key_id: int("key")?,
        id: int("id")?,
        schema: text("schema").unwrap_or_default(),
        name: text("name").ok_or_else(|| corrupt("name"))?,
        location: text("location").unwrap_or_default(),
        format_type: text("format").unwrap_or_default(),
        data_compression: text("compression"),
        data_source_id: int("ds").unwrap_or(0),
        file_format_id: int("ff").unwrap_or(0),
        columns,
        create_date: text("created").unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_objects_round_trip_and_garbage_is_8966() {
        let t = ExternalObjectDef {
            kind: ExternalObjectKind::Table,
            key_id: 565_577_060,
            id: 565_577_060,
            schema: "dbo".into(),
            name: "t_export".into(),
            location: "export/t/".into(),
            format_type: String::new(),
            data_compression: None,
            data_source_id: 65536,
            file_format_id: 65537,
            columns: vec![
                ExternalColumn {
                    name: "id".into(),
                    data_type: DataType::Int,
                    nullable: false,
                },
                ExternalColumn {
                    name: "d".into(),
                    data_type: DataType::Decimal {
                        precision: 18,
                        scale: 4,
                    },
                    nullable: true,
                },
            ],
            create_date: "2026-01-01 00:00:00.000".into(),
        };
        assert_eq!(decode_external(&encode_external(&t)).unwrap(), t);
        let f = ExternalObjectDef {
            kind: ExternalObjectKind::FileFormat,
            format_type: "PARQUET".into(),
            data_compression: Some("org.apache.hadoop.io.compress.SnappyCodec".into()),
            columns: Vec::new(),
            ..t
        };
        assert_eq!(decode_external(&encode_external(&f)).unwrap(), f);
        for bad in [
            &b"{"[..],
            b"[]",
            br#"{"kind":"ZZ"}"#,
            br#"{"kind":"ET","key":1,"id":1,"name":"x","columns":[[1]]}"#,
        ] {
            assert_eq!(decode_external(bad).unwrap_err().number, 8966);
        }
    }
}
