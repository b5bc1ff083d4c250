//! `sys.external_data_sources`, `sys.external_file_formats`, `sys.external_tables` over the
//! database's external objects (external.rs), with SQL Server's column names and types, and the
//! rows external tables add to `sys.objects`, `sys.tables` and `sys.columns`.

use catalog::external::{ExternalObjectDef, ExternalObjectKind};
use catalog::ColumnDef;
use common::SqlResult;
use types::Value;

use crate::dbcat::DbCatalog;
use crate::sysviews::{b, dt, s};
use crate::sysviews_more::columns;

type Rows = (Vec<ColumnDef>, Vec<Vec<Value>>);

fn opt(v: &Option<String>) -> Value {
    v.as_deref().map_or(Value::Null, s)
}

/// The `sys.objects` row of an external table: a user table ('U'), as SQL Server lists it.
pub(crate) fn object_row(t: &ExternalObjectDef, schema_id: i32) -> Vec<Value> {
    vec![
        s(&t.name),
        Value::Int(t.id),
        Value::Null,
        Value::Int(schema_id),
        Value::Int(0),
        Value::Char("U ".into()),
        s("USER_TABLE"),
        dt(&t.create_date),
        dt(&t.create_date),
        b(false),
        b(false),
        b(false),
    ]
}

/// The external tables of the database, by object id.
pub(crate) fn tables(cat: &DbCatalog) -> Vec<&std::sync::Arc<ExternalObjectDef>> {
    cat.externals(ExternalObjectKind::Table)
}

/// A view of this module, `Ok(None)` when `lname` (lower case) is not one.
pub(crate) fn sys_view(
    cat: &DbCatalog,
    lname: &str,
    schema_id: &dyn Fn(&str) -> i32,
) -> SqlResult<Option<Rows>> {
    Ok(Some(match lname {
        "external_data_sources" => {
            let c = columns(&[
                "data_source_id int",
                "name nvarchar(128)",
                "location nvarchar(4000)",
                "type_desc nvarchar(255)",
                "type tinyint",
                "resource_manager_location nvarchar(4000)",
                "credential_id int",
                "database_name nvarchar(128)",
                "shard_map_name nvarchar(128)",
                "connection_options nvarchar(4000)",
                "pushdown nvarchar(256)",
            ])?;
            let rows = cat
                .externals(ExternalObjectKind::DataSource)
                .into_iter()
                .map(|d| {
                    // a location without TYPE is SQL Server 2022's generic kind: NONE (6)
                    vec![
                        Value::Int(d.id),
                        s(&d.name),
                        s(&d.location),
                        s("NONE"),
                        Value::TinyInt(6),
                        Value::Null,
                        Value::Int(0),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        s("ON"),
                    ]
                })
                .collect();
            (c, rows)
        }
        "external_file_formats" => {
            // format_type is documented as tinyint but holds the type's name
            let c = columns(&[
                "file_format_id int",
                "name nvarchar(128)",
                "format_type nvarchar(100)",
                "field_terminator nvarchar(10)",
                "string_delimiter nvarchar(10)",
                "date_format nvarchar(50)",
                "use_type_default bit",
                "serde_method nvarchar(255)",
                "row_terminator nvarchar(10)",
                "encoding nvarchar(10)",
                "data_compression nvarchar(255)",
                "first_row int",
                "extractor nvarchar(255)",
                "null_values nvarchar(1000)",
                "parser_version nvarchar(8)",
            ])?;
            let rows = cat
                .externals(ExternalObjectKind::FileFormat)
                .into_iter()
                .map(|f| {
                    vec![
                        Value::Int(f.id),
                        s(&f.name),
                        s(&f.format_type),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        b(false),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        opt(&f.data_compression),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                    ]
                })
                .collect();
            (c, rows)
        }
        "external_tables" => {
            let mut c = crate::sysviews::objects_columns();
            c.extend(columns(&[
                "max_column_id_used int",
                "uses_ansi_nulls bit",
                "data_source_id int",
                "file_format_id int",
                "location nvarchar(4000)",
                "reject_type nvarchar(20)",
                "reject_value float",
                "reject_sample_value float",
                "distribution_type int",
                "distribution_desc nvarchar(120)",
                "sharding_col_id int",
                "remote_schema_name nvarchar(128)",
                "remote_object_name nvarchar(128)",
                "rejected_row_location nvarchar(4000)",
            ])?);
            let rows = tables(cat)
                .into_iter()
                .map(|t| {
                    let mut r = object_row(t, schema_id(&t.schema));
                    r.extend([
                        Value::Int(t.columns.len() as i32),
                        b(true),
                        Value::Int(t.data_source_id),
                        Value::Int(t.file_format_id),
                        s(&t.location),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                    ]);
                    r
                })
                .collect();
            (c, rows)
        }
        _ => return Ok(None),
    }))
}
