//! The plan-cache views in SQL Server's shapes, read from the engine's plan registry
//! (plan_stats.rs): `sys.dm_exec_cached_plans`, `sys.dm_exec_query_stats`, and the rows behind
//! the functions `sys.dm_exec_sql_text(handle)`, `sys.dm_exec_query_plan(plan_handle)` and
//! `sys.dm_exec_text_query_plan(plan_handle, start, end)` (the binder turns a call into a
//! filtered read of the view of the same name, plan crate binder/tvf.rs; each has its lookup
//! columns first).
//!
//! latchkey has no `xml` type: `dm_exec_query_plan.query_plan` is `nvarchar(max)` holding the
//! showplan XML document (as `SET SHOWPLAN_XML` returns it). Values latchkey does not track are
//! 0 where SQL Server documents 0 for "none" (CLR time, columnstore segments, page server
//! reads) and for the memory grant columns (no grant is reserved ahead of execution). The
//! `spills` columns count 8 KB pages written to work files, as SQL Server's do (serial
//! operators only: what parallel workers spill is not summed yet).

use std::sync::atomic::Ordering::Relaxed;

use catalog::ColumnDef;
use common::SqlResult;
use optimizer::showplan_xml::{showplan_xml, XmlStatement};
use types::Value;

use crate::plan_stats::{Measure, PlanEntry, StmtStats};
use crate::session::Session;
use crate::sysviews::{b, s};
use crate::sysviews_more::columns;

type Rows = (Vec<ColumnDef>, Vec<Vec<Value>>);

/// The views of this module, `Ok(None)` when `lname` (lower case) is not one.
pub(crate) fn sys_view(session: &Session, lname: &str) -> SqlResult<Option<Rows>> {
    Ok(Some(match lname {
        "dm_exec_cached_plans" => cached_plans(session)?,
        "dm_exec_query_stats" => query_stats(session)?,
        "dm_exec_sql_text" => sql_text(session)?,
        "dm_exec_query_plan" => query_plan(session, false)?,
        "dm_exec_text_query_plan" => query_plan(session, true)?,
        _ => return Ok(None),
    }))
}

fn big(v: u64) -> Value {
    Value::BigInt(v.min(i64::MAX as u64) as i64)
}

fn int(v: u64) -> Value {
    Value::Int(v.min(i32::MAX as u64) as i32)
}

fn datetime_us(us: u64) -> Value {
    if us == 0 {
        return Value::Null;
    }
    crate::sysviews::dt(&crate::ddl::datetime_text(crate::sysprocs::from_unix_us(
        us,
    )))
}

fn cached_plans(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "bucketid int",
        "refcounts int",
        "usecounts int",
        "size_in_bytes int",
        "memory_object_address varbinary(8)",
        "cacheobjtype nvarchar(50)",
        "objtype nvarchar(20)",
        "plan_handle varbinary(64)",
        "pool_id int",
        "parent_plan_handle varbinary(64)",
    ])?;
    let rows = session
        .engine()
        .plans
        .entries()
        .iter()
        .map(|e| {
            let addr = std::sync::Arc::as_ptr(e) as usize as u64;
            vec![
                // SQL Server hashes plans into 40,009 buckets (SQL Plans store)
                Value::Int(
                    (e.plan_handle[4..8]
                        .iter()
                        .fold(0u32, |h, b| h << 8 | *b as u32)
                        % 40_009) as i32,
                ),
                int(e.refcounts.load(Relaxed)),
                int(e.usecounts.load(Relaxed)),
                int(e.size_in_bytes()),
                Value::VarBinary(addr.to_be_bytes().to_vec()),
                s("Compiled Plan"),
                s(e.objtype),
                Value::VarBinary(e.plan_handle.clone()),
                Value::Int(2), // the default resource pool
                Value::Null,
            ]
        })
        .collect();
    Ok((c, rows))
}

fn measure_columns(name: &str) -> Vec<String> {
    ["total", "last", "min", "max"]
        .iter()
        .map(|p| format!("{p}_{name} bigint"))
        .collect()
}

fn measure_values(m: Option<&Measure>, row: &mut Vec<Value>) {
    match m {
        Some(m) => {
            row.push(big(m.total.load(Relaxed)));
            row.push(big(m.last.load(Relaxed)));
            row.push(big(m.min()));
            row.push(big(m.max.load(Relaxed)));
        }
        None => row.extend(std::iter::repeat_n(Value::BigInt(0), 4)),
    }
}

fn query_stats(session: &Session) -> SqlResult<Rows> {
    let mut spec: Vec<String> = [
        "sql_handle varbinary(64)",
        "statement_start_offset int",
        "statement_end_offset int",
        "plan_generation_num bigint",
        "plan_handle varbinary(64)",
        "creation_time datetime",
        "last_execution_time datetime",
        "execution_count bigint",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    for m in [
        "worker_time",
        "physical_reads",
        "logical_writes",
        "logical_reads",
        "clr_time",
        "elapsed_time",
    ] {
        spec.extend(measure_columns(m));
    }
    spec.push("query_hash binary(8)".into());
    spec.push("query_plan_hash binary(8)".into());
    spec.extend(measure_columns("rows"));
    spec.push("statement_sql_handle varbinary(64)".into());
    spec.push("statement_context_id bigint".into());
    for m in [
        "dop",
        "grant_kb",
        "used_grant_kb",
        "ideal_grant_kb",
        "reserved_threads",
        "used_threads",
        "columnstore_segment_reads",
        "columnstore_segment_skips",
        "spills",
        "num_physical_reads",
        "page_server_reads",
        "num_page_server_reads",
    ] {
        spec.extend(measure_columns(m));
    }
    let spec_ref: Vec<&str> = spec.iter().map(|x| x.as_str()).collect();
    let c = columns(&spec_ref)?;
    let mut rows = Vec::new();
    for e in session.engine().plans.entries() {
        for st in e.statements.iter().flatten() {
            if st.executions.load(Relaxed) == 0 {
                continue;
            }
            rows.push(query_stats_row(&e, st));
        }
    }
    Ok((c, rows))
}

fn query_stats_row(e: &PlanEntry, st: &StmtStats) -> Vec<Value> {
    let mut r = vec![
        Value::VarBinary(e.sql_handle.clone()),
        Value::Int(st.start_offset),
        Value::Int(st.end_offset),
        big(st.plan_generation.load(Relaxed)),
        Value::VarBinary(e.plan_handle.clone()),
        datetime_us(st.created_us.load(Relaxed)),
        datetime_us(st.last_execution_us.load(Relaxed)),
        big(st.executions.load(Relaxed)),
    ];
    measure_values(Some(&st.worker), &mut r);
    measure_values(Some(&st.physical_reads), &mut r);
    measure_values(Some(&st.logical_writes), &mut r);
    measure_values(Some(&st.logical_reads), &mut r);
    measure_values(None, &mut r); // clr_time: no CLR
    measure_values(Some(&st.elapsed), &mut r);
    r.push(Value::Binary(st.query_hash.to_be_bytes().to_vec()));
    r.push(Value::Binary(
        st.query_plan_hash.load(Relaxed).to_be_bytes().to_vec(),
    ));
    measure_values(Some(&st.rows), &mut r);
    // statement_sql_handle is filled only for Query Store's statements in SQL Server
    r.push(Value::Null);
    r.push(Value::BigInt(0));
    measure_values(Some(&st.dop), &mut r);
    for _ in 0..5 {
        measure_values(None, &mut r); // grants and reserved / used threads
    }
    measure_values(None, &mut r); // columnstore segment reads
    measure_values(None, &mut r); // columnstore segment skips
    measure_values(Some(&st.spills), &mut r); // pages written to work files
    measure_values(Some(&st.physical_reads), &mut r); // num_physical_reads: one page per read
    measure_values(None, &mut r); // page server reads
    measure_values(None, &mut r);
    r
}

fn sql_text(session: &Session) -> SqlResult<Rows> {
    let c = columns(&[
        "handle varbinary(64)",
        "dbid smallint",
        "objectid int",
        "number smallint",
        "encrypted bit",
        "text nvarchar(max)",
    ])?;
    let mut rows = Vec::new();
    let mut row = |handle: Vec<u8>, db: i32, text: &str| {
        rows.push(vec![
            Value::VarBinary(handle),
            Value::SmallInt(db as i16),
            Value::Null,
            Value::Null,
            b(false),
            s(text),
        ])
    };
    let entries = session.engine().plans.entries();
    for e in &entries {
        row(e.sql_handle.clone(), e.database_id, &e.text);
        row(e.plan_handle.clone(), e.database_id, &e.text);
    }
    // running requests (sys.dm_exec_requests.sql_handle) whose text is not cached
    for se in session.engine().sessions.snapshot() {
        let Some(r) = se.request.lock().clone() else {
            continue;
        };
        let h = r.sql_handle();
        if !entries.iter().any(|e| e.sql_handle == h) {
            row(h, 0, &r.text);
        }
    }
    Ok((c, rows))
}

/// The showplan XML of the given statements of a cached plan (None when none is compiled).
fn plan_xml(stmts: &[&StmtStats], kb: u64) -> Option<String> {
    let guards: Vec<_> = stmts
        .iter()
        .map(|st| st.plan.lock().unwrap_or_else(|e| e.into_inner()))
        .collect();
    let items: Vec<XmlStatement<'_>> = stmts
        .iter()
        .zip(guards.iter())
        .filter_map(|(st, g)| {
            let shown = g.as_ref()?;
            Some(XmlStatement {
                text: st.text.trim(),
                statement_type: &shown.statement_type,
                plan: Some(&shown.plan),
                compile_ms: Some(shown.compile_ms),
                cached_plan_kb: Some(kb),
                actuals: None,
            })
        })
        .collect();
    (!items.is_empty()).then(|| showplan_xml(&items))
}

fn query_plan(session: &Session, text_form: bool) -> SqlResult<Rows> {
    let mut spec = vec!["plan_handle varbinary(64)"];
    if text_form {
        spec.push("statement_start_offset int");
        spec.push("statement_end_offset int");
    }
    spec.extend([
        "dbid smallint",
        "objectid int",
        "number smallint",
        "encrypted bit",
        "query_plan nvarchar(max)",
    ]);
    let c = columns(&spec)?;
    let mut rows = Vec::new();
    let mut push = |e: &PlanEntry, offsets: Option<(i32, i32)>, xml: Option<String>| {
        let mut r = vec![Value::VarBinary(e.plan_handle.clone())];
        if let Some((a, z)) = offsets {
            r.push(Value::Int(a));
            r.push(Value::Int(z));
        }
        r.extend([
            Value::SmallInt(e.database_id as i16),
            Value::Null,
            Value::Null,
            b(false),
            xml.map(Value::NVarChar).unwrap_or(Value::Null),
        ]);
        rows.push(r);
    };
    for e in session.engine().plans.entries() {
        let kb = e.size_in_bytes() / 1024;
        let all: Vec<&StmtStats> = e.statements.iter().flatten().collect();
        push(&e, text_form.then_some((0, -1)), plan_xml(&all, kb));
        if text_form {
            for st in &all {
                if (st.start_offset, st.end_offset) != (0, -1) {
                    push(
                        &e,
                        Some((st.start_offset, st.end_offset)),
                        plan_xml(&[st], kb),
                    );
                }
            }
        }
    }
    Ok((c, rows))
}
