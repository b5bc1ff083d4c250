//! Statistics made visible: `DBCC SHOW_STATISTICS` (its three result sets in SQL Server's
//! shape), `sys.stats`, `sys.stats_columns`, `sys.dm_db_stats_properties` and `STATS_DATE`.

use std::sync::Arc;

use catalog::statistics::StatisticsObject;
use catalog::{name_eq, ColumnDef, SchemaObject, TableDef};
use common::{SqlError, SqlResult};
use parser::ast;
use types::{DataType, Value};

use super::{modification_counter, table_objects};
use crate::dbcat::DbCatalog;
use crate::events::{EventSink, OutColumn};
use crate::session::Session;
use crate::sysviews::{b, dt, s};
use crate::sysviews_more::columns;

type Rows = (Vec<ColumnDef>, Vec<Vec<Value>>);

/// `sys.stats`, `sys.stats_columns`, `sys.dm_db_stats_properties` (all objects; the function
/// form filters it, binder/tvf.rs); `Ok(None)` for other names.
pub(crate) fn sys_view(cat: &DbCatalog, lname: &str) -> SqlResult<Option<Rows>> {
    let mut tables: Vec<&Arc<TableDef>> = cat.tables().collect();
    tables.sort_by_key(|t| t.object_id);
    let each = |f: &mut dyn FnMut(&TableDef, &StatisticsObject)| {
        for t in &tables {
            for o in table_objects(cat, t) {
                f(t, &o);
            }
        }
    };
    let mut rows = Vec::new();
    let cols = match lname {
        "stats" => {
            each(&mut |t, o| {
                rows.push(vec![
                    Value::Int(t.object_id),
                    s(&o.name),
                    Value::Int(o.stats_id),
                    b(o.auto_created),
                    b(o.user_created),
                    b(o.no_recompute),
                    b(o.filter.is_some()),
                    o.filter.as_ref().map(|f| s(&format!("({f})"))).unwrap_or(Value::Null),
                    b(false),
                    b(false),
                    b(false),
                    Value::Int(0),
                    Value::VarChar("Sort based statistics".into()),
                    b(false),
                ])
            });
            columns(&[
                "object_id int",
                "name sysname",
                "stats_id int",
                "auto_created bit",
                "user_created bit",
                "no_recompute bit",
                "has_filter bit",
                "filter_definition nvarchar(max)",
                "is_temporary bit",
                "is_incremental bit",
                "has_persisted_sample bit",
                "stats_generation_method int",
                "stats_generation_method_desc varchar(80)",
                "auto_drop bit",
            ])?
        }
        "stats_columns" => {
            each(&mut |t, o| {
                for (k, c) in o.columns.iter().enumerate() {
                    rows.push(vec![
                        Value::Int(t.object_id),
                        Value::Int(o.stats_id),
                        Value::Int(k as i32 + 1),
                        Value::Int(*c as i32 + 1),
                    ]);
                }
            });
            columns(&["object_id int", "stats_id int", "stats_column_id int", "column_id int"])?
        }
        "dm_db_stats_properties" => {
            each(&mut |t, o| rows.push(properties_row(t, o)));
            columns(&[
                "object_id int",
                "stats_id int",
                "last_updated datetime2(7)",
                "rows bigint",
                "rows_sampled bigint",
                "steps int",
                "unfiltered_rows bigint",
                "modification_counter bigint",
                "persisted_sample_percent float",
            ])?
        }
        _ => return Ok(None),
    };
    Ok(Some((cols, rows)))
}

fn properties_row(t: &TableDef, o: &StatisticsObject) -> Vec<Value> {
    let Some(d) = &o.data else {
        // never built: SQL Server returns the ids and NULLs
        return vec![
            Value::Int(t.object_id),
            Value::Int(o.stats_id),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ];
    };
    let updated = exec::valops::cast(&dt(&d.updated), &DataType::DateTime2(7)).unwrap_or(Value::Null);
    vec![
        Value::Int(t.object_id),
        Value::Int(o.stats_id),
        updated,
        Value::BigInt(d.rows as i64),
        Value::BigInt(d.rows_sampled as i64),
        Value::Int(shown_steps(d) as i32),
        Value::BigInt(d.rows as i64),
        Value::BigInt(modification_counter(t, o.stats_id) as i64),
        Value::Float(0.0),
    ]
}

/// Steps as SQL Server counts them: a NULL step first when the leading column has NULLs.
fn shown_steps(d: &catalog::statistics::StatisticsData) -> usize {
    d.steps.len() + usize::from(d.null_rows > 0.0)
}

fn arg_text(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Literal(ast::Literal::String { value, .. }) => Some(value.clone()),
        ast::Expr::Column(n) => Some(n.parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join(".")),
        _ => None,
    }
}

fn out(name: &str, t: &str) -> SqlResult<OutColumn> {
    Ok(OutColumn {
        name: name.into(),
        data_type: catalog::serial::type_from_text(t)?,
    })
}

impl Session {
    /// `STATS_DATE(object_id, stats_id)`: when the statistics were last built (datetime),
    /// NULL when never or when there is no such object.
    pub(crate) fn stats_date_of(&self, object_id: i64, stats_id: i64) -> SqlResult<Value> {
        let h = self.current_db()?;
        let cat = h.cat.read();
        let Some(SchemaObject::Table(t)) = i32::try_from(object_id).ok().and_then(|id| cat.objects.get(&id)) else {
            return Ok(Value::Null);
        };
        Ok(table_objects(&cat, t)
            .iter()
            .find(|o| i64::from(o.stats_id) == stats_id)
            .and_then(|o| o.data.as_ref())
            .map(|d| dt(&d.updated))
            .unwrap_or(Value::Null))
    }

    /// `DBCC SHOW_STATISTICS ('table', target) [WITH STAT_HEADER | DENSITY_VECTOR | HISTOGRAM
    /// | NO_INFOMSGS]`; target: an index, a statistics object, or a column with automatic
    /// statistics.
    pub(crate) fn show_statistics(&mut self, d: &ast::Dbcc, sink: &mut dyn EventSink) -> SqlResult<()> {
        let (Some(tname), Some(target)) = (d.args.first().and_then(arg_text), d.args.get(1).and_then(arg_text)) else {
            return Err(SqlError::new(2583, &[]));
        };
        let q = crate::ddl::qualified_from_text(&tname);
        let Some((h, SchemaObject::Table(t))) = self.find_object(&q)? else {
            return Err(SqlError::new(2501, &[&tname]));
        };
        let objects = table_objects(&h.cat.read(), &t);
        let o = objects
            .iter()
            .find(|o| name_eq(&o.name, &target))
            .or_else(|| {
                let c = t.column_index(&target)?;
                objects.iter().find(|o| o.auto_created && o.columns.first() == Some(&c))
            })
            .cloned()
            .ok_or_else(|| SqlError::new(2767, &[&target]))?;
        let mut parts: Vec<&str> = d
            .options
            .iter()
            .map(|s| s.as_str())
            .filter(|o| matches!(*o, "STAT_HEADER" | "DENSITY_VECTOR" | "HISTOGRAM"))
            .collect();
        if let Some(bad) = d.options.iter().find(|o| !matches!(o.as_str(), "STAT_HEADER" | "DENSITY_VECTOR" | "HISTOGRAM" | "NO_INFOMSGS")) {
            return Err(SqlError::unsupported(format!("DBCC SHOW_STATISTICS WITH {bad}")));
        }
        if parts.is_empty() {
            parts = vec!["STAT_HEADER", "DENSITY_VECTOR", "HISTOGRAM"];
        }
        let show_count = !self.options.nocount;
        let key_col = o.columns.first().and_then(|&c| t.columns.get(c));
        for part in parts {
            match part {
                "STAT_HEADER" => {
                    sink.result_start(&[
                        out("Name", "nvarchar(128)")?,
                        out("Updated", "datetime")?,
                        out("Rows", "bigint")?,
                        out("Rows Sampled", "bigint")?,
                        out("Steps", "smallint")?,
                        out("Density", "real")?,
                        out("Average key length", "real")?,
                        out("String Index", "nvarchar(3)")?,
                        out("Filter Expression", "nvarchar(max)")?,
                        out("Unfiltered Rows", "bigint")?,
                        out("Persisted Sample Percent", "float")?,
                    ]);
                    let row = match &o.data {
                        Some(data) => {
                            let string = key_col.is_some_and(|c| c.data_type.is_string());
                            vec![
                                s(&o.name),
                                dt(&data.updated),
                                Value::BigInt(data.rows as i64),
                                Value::BigInt(data.rows_sampled as i64),
                                Value::SmallInt(shown_steps(data) as i16),
                                Value::Real(data.density.first().map(|e| e.all_density).unwrap_or(0.0) as f32),
                                Value::Real(data.density.last().map(|e| e.average_length).unwrap_or(0.0) as f32),
                                s(if string { "YES" } else { "NO" }),
                                o.filter.as_ref().map(|f| s(f)).unwrap_or(Value::Null),
                                Value::BigInt(data.rows as i64),
                                Value::Float(0.0),
                            ]
                        }
                        None => {
                            let mut r = vec![s(&o.name)];
                            r.resize(11, Value::Null);
                            r
                        }
                    };
                    sink.row(&row);
                    sink.result_end(1, false, show_count);
                }
                "DENSITY_VECTOR" => {
                    sink.result_start(&[
                        out("All density", "real")?,
                        out("Average Length", "real")?,
                        out("Columns", "nvarchar(4000)")?,
                    ]);
                    let mut n = 0;
                    for e in o.data.iter().flat_map(|d| d.density.iter()) {
                        sink.row(&[
                            Value::Real(e.all_density as f32),
                            Value::Real(e.average_length as f32),
                            s(&e.columns.join(", ")),
                        ]);
                        n += 1;
                    }
                    sink.result_end(n, false, show_count);
                }
                _ => {
                    let key_type = key_col.map(|c| c.data_type.clone()).unwrap_or(DataType::Int);
                    sink.result_start(&[
                        OutColumn {
                            name: "RANGE_HI_KEY".into(),
                            data_type: key_type,
                        },
                        out("RANGE_ROWS", "real")?,
                        out("EQ_ROWS", "real")?,
                        out("DISTINCT_RANGE_ROWS", "bigint")?,
                        out("AVG_RANGE_ROWS", "real")?,
                    ]);
                    let mut n = 0;
                    if let Some(data) = &o.data {
                        if data.null_rows > 0.0 {
                            sink.row(&[Value::Null, Value::Real(0.0), Value::Real(data.null_rows as f32), Value::BigInt(0), Value::Real(1.0)]);
                            n += 1;
                        }
                        for st in &data.steps {
                            sink.row(&[
                                st.range_hi_key.clone(),
                                Value::Real(st.range_rows as f32),
                                Value::Real(st.eq_rows as f32),
                                Value::BigInt(st.distinct_range_rows.round() as i64),
                                Value::Real(st.avg_range_rows as f32),
                            ]);
                            n += 1;
                        }
                    }
                    sink.result_end(n, false, show_count);
                }
            }
        }
        Ok(())
    }
}

/// `STATS_DATE` entry point for sysfuncs.rs.
pub(crate) fn stats_date(session: &Session, object_id: Option<i64>, stats_id: Option<i64>) -> SqlResult<Value> {
    match (object_id, stats_id) {
        (Some(o), Some(st)) => session.stats_date_of(o, st),
        _ => Ok(Value::Null),
    }
}
