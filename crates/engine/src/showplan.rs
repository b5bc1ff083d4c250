//! Plans shown to the client.
//!
//! `SET SHOWPLAN_TEXT | SHOWPLAN_ALL | SHOWPLAN_XML ON`: while on, batches are compiled but not
//! run; SET statements still execute (so `SET SHOWPLAN_... OFF` works).
//! * SHOWPLAN_TEXT: per query / DML statement two result sets of one `StmtText` column: the
//!   statement text, then one row per operator line of `optimizer::explain`. Other statements
//!   give only the statement-text result set.
//! * SHOWPLAN_ALL: the same two result sets with SQL Server's full column list
//!   ([`PLAN_COLUMNS`]): the statement row (Type = the statement's kind) and one PLAN_ROW per
//!   operator with its estimates (`optimizer::showplan_rows`).
//! * SHOWPLAN_XML: one result set per statement, one row, one nvarchar(max) column named
//!   `Microsoft SQL Server 2005 XML Showplan` holding a ShowPlanXML document
//!   (`optimizer::showplan_xml`).
//!
//! Actual plans (`SET STATISTICS XML | PROFILE ON`) run the statement, then add a result set
//! after its own: the XML plan with RunTimeInformation, or the SHOWPLAN_ALL rows preceded by
//! `Rows` and `Executes`. The counters come from exec's per-operator actuals (exec/actuals.rs).

use crate::events::{EventSink, OutColumn};
use crate::session::Session;
use common::{SqlError, SqlResult};
use optimizer::showplan_rows::{plan_rows, PlanRow};
use optimizer::showplan_xml::{showplan_xml_searched, RunTimeCounters, XmlStatement};
use parser::ast::{self, Statement, StatementKind};
use types::{DataType, Value};

/// Column name of SHOWPLAN_XML's and STATISTICS XML's result set, as SQL Server names it.
pub(crate) const XML_PLAN_COLUMN: &str = "Microsoft SQL Server 2005 XML Showplan";

/// SHOWPLAN_ALL's columns (STATISTICS PROFILE adds `Rows` and `Executes` in front).
const PLAN_COLUMNS: [(&str, DataType); 18] = [
    ("StmtText", DataType::NVarChar(None)),
    ("StmtId", DataType::Int),
    ("NodeId", DataType::Int),
    ("Parent", DataType::Int),
    ("PhysicalOp", DataType::NVarChar(None)),
    ("LogicalOp", DataType::NVarChar(None)),
    ("Argument", DataType::NVarChar(None)),
    ("DefinedValues", DataType::NVarChar(None)),
    ("EstimateRows", DataType::Real),
    ("EstimateIO", DataType::Real),
    ("EstimateCPU", DataType::Real),
    ("AvgRowSize", DataType::Int),
    ("TotalSubtreeCost", DataType::Real),
    ("OutputList", DataType::NVarChar(None)),
    ("Warnings", DataType::NVarChar(None)),
    ("Type", DataType::NVarChar(None)),
    ("Parallel", DataType::Bit),
    ("EstimateExecutions", DataType::Real),
];

/// Showplan's `StatementType` of a statement (its plan tells SELECT INTO apart).
pub(crate) fn statement_type(s: &Statement, plan: Option<&plan::PhysicalPlan>) -> String {
    match &s.kind {
        StatementKind::Select(_) if matches!(plan, Some(plan::Statement::SelectInto { .. })) => {
            "SELECT INTO".into()
        }
        StatementKind::Select(_) => "SELECT".into(),
        StatementKind::Insert(_) => "INSERT".into(),
        StatementKind::Update(_) => "UPDATE".into(),
        StatementKind::Delete(_) => "DELETE".into(),
        StatementKind::Merge(_) => "MERGE".into(),
        _ => {
            // the statement's leading keywords, e.g. DECLARE, CREATE TABLE
            let text = parser::print_batch(std::slice::from_ref(s));
            text.split_whitespace()
                .take_while(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
                .to_uppercase()
        }
    }
}

fn opt_text(v: &Option<String>) -> Value {
    v.as_ref()
        .map(|s| Value::NVarChar(s.clone()))
        .unwrap_or(Value::Null)
}

/// One result set of plan rows: the statement row, then the operator rows. `actuals`
/// (STATISTICS PROFILE) adds the leading Rows / Executes columns.
fn plan_rows_result(
    stmt_text: &str,
    stmt_type: &str,
    stmt_id: i32,
    plan: Option<&plan::PhysicalPlan>,
    actuals: Option<&[exec::actuals::OpActuals]>,
    show_count: bool,
    sink: &mut dyn EventSink,
) {
    let mut cols = Vec::new();
    if actuals.is_some() {
        cols.push(OutColumn {
            name: "Rows".into(),
            data_type: DataType::BigInt,
        });
        cols.push(OutColumn {
            name: "Executes".into(),
            data_type: DataType::BigInt,
        });
    }
    cols.extend(PLAN_COLUMNS.iter().map(|(n, t)| OutColumn {
        name: (*n).into(),
        data_type: t.clone(),
    }));
    sink.result_start(&cols);
    let rows: Vec<PlanRow> = plan.map(plan_rows).unwrap_or_default();
    let root = plan
        .and_then(optimizer::showplan_xml::plan_root)
        .map(optimizer::showplan_xml::shown_root);
    let counters = |row: &PlanRow, is_dml_root: bool| -> (i64, i64) {
        let Some(a) = actuals else { return (0, 0) };
        if is_dml_root {
            // the DML operator itself is not an exec operator: it ran once over its input
            let input = root.and_then(|r| a.get(r.node_id as usize));
            return (input.map_or(0, |c| c.rows as i64), 1);
        }
        let (n, e) = a
            .get(row.actual_node as usize)
            .map_or((0, 0), |c| (c.rows as i64, c.executions as i64));
        if row.lookup {
            (n, n)
        } else {
            (n, e)
        }
    };
    let real = |v: f64| Value::Real(if v.is_finite() { v as f32 } else { 0.0 });
    let mut out: Vec<Value> = Vec::new();
    if actuals.is_some() {
        let n = root
            .and_then(|r| actuals.and_then(|a| a.get(r.node_id as usize)))
            .map_or(0, |c| c.rows as i64);
        out.push(Value::BigInt(n));
        out.push(Value::BigInt(1));
    }
    out.extend([
        Value::NVarChar(stmt_text.to_string()),
        Value::Int(stmt_id),
        Value::Int(1),
        Value::Int(0),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        root.map_or(Value::Null, |r| real(r.est_rows)),
        Value::Null,
        Value::Null,
        Value::Null,
        root.map_or(Value::Null, |r| real(r.cost.subtree)),
        Value::Null,
        Value::Null,
        Value::NVarChar(stmt_type.to_string()),
        Value::Bit(false),
        Value::Null,
    ]);
    sink.row(&out);
    let dml_root = plan.is_some_and(|p| !matches!(p, plan::Statement::Select { .. }));
    for (i, r) in rows.iter().enumerate() {
        let mut out: Vec<Value> = Vec::new();
        if actuals.is_some() {
            let (n, e) = counters(r, dml_root && i == 0);
            out.push(Value::BigInt(n));
            out.push(Value::BigInt(e));
        }
        out.extend([
            Value::NVarChar(r.stmt_text.clone()),
            Value::Int(stmt_id),
            Value::Int(r.node_id as i32),
            Value::Int(r.parent as i32),
            Value::NVarChar(r.physical_op.clone()),
            Value::NVarChar(r.logical_op.clone()),
            opt_text(&r.argument),
            opt_text(&r.defined_values),
            real(r.estimate_rows),
            real(r.estimate_io),
            real(r.estimate_cpu),
            Value::Int(r.avg_row_size.round().clamp(0.0, i32::MAX as f64) as i32),
            real(r.total_subtree_cost),
            opt_text(&r.output_list),
            Value::Null,
            Value::NVarChar("PLAN_ROW".into()),
            Value::Bit(false),
            real(r.estimate_executions),
        ]);
        sink.row(&out);
    }
    sink.result_end(rows.len() as u64 + 1, false, show_count);
}

/// One result set of one row with a showplan XML document.
fn xml_result(xml: String, show_count: bool, sink: &mut dyn EventSink) {
    sink.result_start(&[OutColumn {
        name: XML_PLAN_COLUMN.into(),
        data_type: DataType::NVarChar(None),
    }]);
    sink.row(&[Value::NVarChar(xml)]);
    sink.result_end(1, false, show_count);
}

/// The thread CPU clock handed to exec while an actual plan is asked for: the calling
/// thread's CPU time in µs. Read twice per operator call, so it asks the kernel for
/// CLOCK_THREAD_CPUTIME_ID directly (no clock id lookup per read).
fn thread_cpu_us() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and CLOCK_THREAD_CPUTIME_ID always exists.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64) * 1_000_000 + (ts.tv_nsec as u64) / 1000
}

/// Option names (upper case, as the parser gives them) that switch showplan mode (each must be
/// alone in its batch, error 1067).
const SHOWPLAN_OPTIONS: [&str; 4] = [
    "SHOWPLAN_TEXT",
    "SHOWPLAN_ALL",
    "SHOWPLAN_XML",
    "SHOWPLAN_MEMO",
];

fn is_showplan_set(s: &Statement) -> bool {
    matches!(&s.kind, StatementKind::SetOption(ast::SetOption::OnOff { options, .. })
        if options.iter().any(|o| SHOWPLAN_OPTIONS.contains(&o.as_str())))
}

/// Error 1067 when a SET SHOWPLAN statement shares its batch with other statements.
pub(crate) fn check_showplan_alone(stmts: &[Statement]) -> SqlResult<()> {
    if stmts.len() > 1 {
        if let Some(s) = stmts.iter().find(|s| is_showplan_set(s)) {
            return Err(SqlError::custom(
                1067,
                15,
                1,
                "The SET SHOWPLAN statements must be the only statements in the batch.",
            )
            .at_line(s.line));
        }
    }
    Ok(())
}

/// Emits one result set with a single nvarchar `StmtText` column.
fn stmt_text_result(lines: &[String], show_count: bool, sink: &mut dyn EventSink) {
    sink.result_start(&[OutColumn {
        name: "StmtText".into(),
        data_type: DataType::NVarChar(None),
    }]);
    for l in lines {
        sink.row(&[Value::NVarChar(l.clone())]);
    }
    sink.result_end(lines.len() as u64, false, show_count);
}

impl Session {
    fn flag(&self, name: &str) -> bool {
        self.options.flags.get(name).copied().unwrap_or(false)
    }

    /// Whether a SHOWPLAN option is on (batches are compiled, not run).
    pub(crate) fn showplan_on(&self) -> bool {
        SHOWPLAN_OPTIONS.iter().any(|o| self.flag(o))
    }

    /// Whether an actual plan is asked for (STATISTICS XML / PROFILE): exec then collects
    /// per-operator times too.
    pub(crate) fn actual_plan_on(&self) -> bool {
        self.flag("STATISTICS XML") || self.flag("STATISTICS PROFILE")
    }

    /// `ExecEnv::op_cpu_clock` of the session.
    pub(crate) fn op_cpu_clock(&self) -> Option<fn() -> u64> {
        self.actual_plan_on()
            .then_some(thread_cpu_us as fn() -> u64)
    }

    /// After a query / DML statement ran: the actual-plan result sets asked for by STATISTICS
    /// XML / PROFILE (`actuals`: exec's counters of that execution).
    pub(crate) fn emit_actual_plans(
        &mut self,
        s: &Statement,
        physical: &plan::PhysicalPlan,
        actuals: &[exec::actuals::OpActuals],
        sink: &mut dyn EventSink,
    ) {
        let show = !self.options.nocount;
        let text = parser::print_batch(std::slice::from_ref(s));
        let text = text.trim().trim_end_matches(';').trim();
        let stmt_type = statement_type(s, Some(physical));
        if self.flag("STATISTICS PROFILE") {
            plan_rows_result(
                text,
                &stmt_type,
                1,
                Some(physical),
                Some(actuals),
                show,
                sink,
            );
        }
        if self.flag("STATISTICS XML") {
            let is_dml = !matches!(physical, plan::Statement::Select { .. });
            let root = optimizer::showplan_xml::plan_root(physical)
                .map(optimizer::showplan_xml::shown_root);
            let per_node = |node: u32| -> Vec<RunTimeCounters> {
                let mut c = actuals.get(node as usize).copied().unwrap_or_default();
                if is_dml && node == 0 {
                    // the DML operator is not an exec operator: it ran once over its input
                    let input = root.and_then(|r| actuals.get(r.node_id as usize));
                    c = exec::actuals::OpActuals {
                        executions: 1,
                        end_of_scans: 1,
                        ..input.copied().unwrap_or_default()
                    };
                }
                vec![RunTimeCounters {
                    thread: 0,
                    rows: c.rows,
                    executions: c.executions,
                    end_of_scans: c.end_of_scans,
                    elapsed_ms: Some(c.elapsed_us / 1000),
                    cpu_ms: Some(c.cpu_us / 1000),
                    rebinds: c.rebinds,
                    rewinds: c.rewinds,
                    batches: c.batches,
                }]
            };
            let search = self.last_search.take();
            let xml = showplan_xml_searched(
                &[XmlStatement {
                    text,
                    statement_type: &stmt_type,
                    plan: Some(physical),
                    compile_ms: self.last_compile_ms,
                    cached_plan_kb: None,
                    actuals: Some(&per_node),
                }],
                &[search.as_ref()],
            );
            xml_result(xml, show, sink);
        }
    }

    /// Whether SET PARSEONLY is ON: batches are parsed, not run (noops.rs).
    pub(crate) fn parseonly_on(&self) -> bool {
        self.options
            .flags
            .get("PARSEONLY")
            .copied()
            .unwrap_or(false)
    }

    /// Runs a batch in showplan mode: plans are reported, nothing but SET executes.
    pub(crate) fn showplan_batch(
        &mut self,
        text: &str,
        stmts: &[Statement],
        sink: &mut dyn EventSink,
    ) {
        self.showplan_stmt_id = 0;
        for s in stmts {
            if let Err(e) = self.showplan_stmt(text, s, sink) {
                let e = e.at_line(s.line);
                self.error = e.number;
                sink.error(&e);
            }
        }
    }

    fn showplan_stmt(
        &mut self,
        text: &str,
        s: &Statement,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let show = !self.options.nocount;
        match &s.kind {
            StatementKind::SetOption(_) => {
                self.exec_stmt(s, sink)?;
            }
            StatementKind::Block(b) => {
                for inner in b {
                    self.showplan_stmt(text, inner, sink)?;
                }
            }
            kind => {
                let stmt_text = text
                    .get(s.span.start as usize..s.span.end as usize)
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                let is_query = matches!(
                    kind,
                    StatementKind::Select(_)
                        | StatementKind::Insert(_)
                        | StatementKind::Update(_)
                        | StatementKind::Delete(_)
                        | StatementKind::Merge(_)
                );
                // Plan first so that a bind error comes before any output, as in SQL Server.
                self.last_search = None;
                let (started, cpu) = (std::time::Instant::now(), thread_cpu_us());
                let physical = if is_query && !matches!(kind, StatementKind::Merge(_)) {
                    Some(self.autocommit(|me| me.plan_statement(s))?.0)
                } else if is_query {
                    // MERGE has its own plan shape (plan::MergePlan), not shown yet
                    return Err(SqlError::unsupported("a showplan of MERGE"));
                } else {
                    None
                };
                let compile_ms = started.elapsed().as_millis() as u64;
                // CompileCPU: the compiling thread's CPU, not the elapsed time again
                let compile_cpu = thread_cpu_us().saturating_sub(cpu) / 1000;
                self.showplan_stmt_id += 1;
                let stmt_id = self.showplan_stmt_id;
                let stmt_type = statement_type(s, physical.as_ref());
                let search = self.last_search.take();
                if self.flag("SHOWPLAN_XML") {
                    let xml = showplan_xml_searched(
                        &[XmlStatement {
                            text: &stmt_text,
                            statement_type: &stmt_type,
                            plan: physical.as_ref(),
                            compile_ms: physical.as_ref().map(|_| (compile_ms, compile_cpu)),
                            cached_plan_kb: None,
                            actuals: None,
                        }],
                        &[search.as_ref()],
                    );
                    xml_result(xml, show, sink);
                } else if self.flag("SHOWPLAN_ALL") {
                    plan_rows_result(
                        &stmt_text,
                        &stmt_type,
                        stmt_id,
                        physical.as_ref(),
                        None,
                        show,
                        sink,
                    );
                } else if self.flag("SHOWPLAN_TEXT") {
                    stmt_text_result(&[stmt_text], show, sink);
                    if let Some(p) = &physical {
                        let text = optimizer::explain(p);
                        let lines: Vec<String> = text.lines().map(str::to_string).collect();
                        stmt_text_result(&lines, show, sink);
                    }
                }
                if self.showplan_memo_on() && !self.flag("SHOWPLAN_XML") {
                    let memo = search.as_ref().and_then(|r| r.memo.as_ref());
                    crate::showplan_memo::memo_result(memo, show, sink);
                }
            }
        }
        Ok(())
    }
}
