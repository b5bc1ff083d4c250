//! Runs compiled programs (compile.rs): the node walker, cached expression evaluation with
//! variable slots, cached query plans, procedure calls with a per-session module cache.

use std::sync::Arc;

use common::{SqlError, SqlResult};
use parser::ast::{self, Statement, StatementKind};
use types::{DataType, Value};

use crate::compile::{self, ExprRef, Node, NodeKind, Program, RunCache, VarDecl};
use crate::events::{EventSink, InfoMessage};
use crate::interp::{is_batch_abort, value_to_i64, Flow, THROW_MARK};
use crate::session::{CaughtError, Frame, Session, Variable};

/// Results inside the node walker carry boxed errors: the hot path moves small values.
type RunResult<T> = Result<T, Box<SqlError>>;

/// A compiled procedure in the session's module cache.
pub(crate) struct ProcEntry {
    pub text: String,
    pub prog: Arc<Program>,
    pub params: Vec<ast::ProcParam>,
    pub cache: Option<RunCache>,
}

/// Whether `v` already has type `t` exactly (no conversion needed on assignment).
#[inline]
fn same_type(v: &Value, t: &DataType) -> bool {
    matches!(
        (v, t),
        (Value::Null, _)
            | (Value::Int(_), DataType::Int)
            | (Value::BigInt(_), DataType::BigInt)
            | (Value::SmallInt(_), DataType::SmallInt)
            | (Value::TinyInt(_), DataType::TinyInt)
            | (Value::Bit(_), DataType::Bit)
            | (Value::Float(_), DataType::Float)
            // a max-typed value moves into a max variable: no copy of a string up to 2 GB
            | (Value::VarChar(_), DataType::VarChar(None))
            | (Value::NVarChar(_), DataType::NVarChar(None))
            | (Value::VarBinary(_), DataType::VarBinary(None))
    )
}

/// The name of a module as users wrote it (`#p` for a temp procedure's storage name).
pub(crate) fn module_display_name(stored: &str) -> String {
    if stored.starts_with('#') && stored.chars().count() == 128 {
        let head: String = stored.chars().take(116).collect();
        return head.trim_end_matches('_').to_string();
    }
    stored.to_string()
}

/// Errors that end only the scope (procedure, dynamic SQL) they occur in: compilation and
/// name-resolution errors. The caller goes on with its next statement.
fn is_scope_abort(e: &SqlError) -> bool {
    matches!(
        e.number,
        102 | 105 | 137 | 156 | 207 | 208 | 4104 | 2812 | 134 | 133 | 132
    )
}

impl Session {
    /// Runs a nested scope (procedure body, dynamic SQL): drops the #temp tables it created
    /// when it ends, and turns scope-aborting errors (outside TRY) into reported errors.
    pub(crate) fn nested_scope<T>(
        &mut self,
        sink: &mut dyn EventSink,
        f: impl FnOnce(&mut Session, &mut dyn EventSink) -> SqlResult<T>,
    ) -> SqlResult<Option<T>> {
        let before: std::collections::HashSet<common::ObjectId> =
            self.temp_tables.values().copied().collect();
        let r = f(self, sink);
        let created: Vec<common::ObjectId> = self
            .temp_tables
            .values()
            .copied()
            .filter(|id| !before.contains(id))
            .collect();
        for id in created {
            let _ = self.autocommit(|me| me.drop_table_by_id("tempdb", id));
        }
        match r {
            Ok(v) => Ok(Some(v)),
            Err(e)
                if self.try_depth == 0
                    && !self.options.xact_abort
                    && e.procedure != THROW_MARK
                    && is_scope_abort(&e) =>
            {
                self.error = e.number;
                sink.error(&e);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Variable slots of a module's parameters, in declaration order.
    pub(crate) fn param_decls(&self, params: &[ast::ProcParam]) -> SqlResult<Vec<VarDecl>> {
        params
            .iter()
            .map(|p| {
                Ok(VarDecl {
                    name: p.name.to_lowercase(),
                    data_type: self.resolve_type_name(&p.data_type)?,
                    table: None,
                })
            })
            .collect()
    }

    /// Compiles a statement list with this session's type resolution.
    pub(crate) fn compile_program(
        &self,
        stmts: Vec<Statement>,
        params: Vec<VarDecl>,
        recompile: bool,
    ) -> SqlResult<Program> {
        compile::compile(stmts, params, recompile, &|t| self.resolve_type_name(t))
    }

    /// Runs `prog` in a new variable frame whose parameter slots hold `args`.
    pub(crate) fn run_program(
        &mut self,
        prog: &Program,
        rc: &mut RunCache,
        args: Vec<Value>,
        sink: &mut dyn EventSink,
    ) -> (SqlResult<Flow>, Frame) {
        let mut frame = Frame::for_program(prog);
        for (i, v) in args.into_iter().enumerate() {
            if let Some(var) = frame.vars.get_mut(i) {
                var.value = v;
            }
        }
        self.frames.push(frame);
        let r = self.run_nodes(&prog.nodes, rc, sink);
        let r = match r {
            Ok(Flow::Goto(_)) => Err(SqlError::internal("GOTO to a label outside the program")),
            Ok(f) => Ok(f),
            Err(e) => Err(*e),
        };
        let frame = self.frames.pop().unwrap_or_default();
        self.drop_table_variables(&frame);
        (r, frame)
    }

    /// Runs a node list. Statement-terminating errors are reported here (E2); batch-aborting
    /// ones and errors inside TRY are returned (E3, E4).
    pub(crate) fn run_nodes(
        &mut self,
        nodes: &[Node],
        rc: &mut RunCache,
        sink: &mut dyn EventSink,
    ) -> RunResult<Flow> {
        let mut i = 0;
        while i < nodes.len() {
            let n = &nodes[i];
            // between statements: a cancel ends the batch here (not reported, not caught)
            if self.cancel.is_cancelled() {
                return Err(Box::new(SqlError::attention().at_line(n.line)));
            }
            let stats = if self.options.statistics_io || self.options.statistics_time {
                match &n.kind {
                    NodeKind::Query { .. } => Some(self.stat_start()),
                    NodeKind::Other(s) if matches!(s.kind, StatementKind::Exec(_)) => {
                        Some(self.stat_start())
                    }
                    _ => None,
                }
            } else {
                None
            };
            self.publish_statement(n);
            let r = self.run_node(n, rc, sink);
            self.report_transaction(sink);
            self.publish_after_statement(n);
            if let Some(st) = stats {
                self.stat_end(st, n, sink);
            }
            match r {
                Ok(Flow::Normal) => {}
                Ok(Flow::Goto(l)) => {
                    if let Some(p) = nodes
                        .iter()
                        .position(|x| matches!(x.kind, NodeKind::Label(k) if k == l))
                    {
                        i = p + 1;
                        continue;
                    }
                    // The label is inside one of this list's blocks: enter it there.
                    if let Some(p) = nodes.iter().position(|x| contains_label(x, l)) {
                        match self.enter_at_label(&nodes[p], l, rc, sink)? {
                            Flow::Normal => {
                                i = p + 1;
                                continue;
                            }
                            f => return Ok(f),
                        }
                    }
                    return Ok(Flow::Goto(l));
                }
                Ok(f) => return Ok(f),
                Err(e) => {
                    // Parameter errors of a call are reported by SQL Server as
                    // "Procedure p, Line 0".
                    let call_error = e.line == 0
                        && !e.procedure.is_empty()
                        && matches!(e.number, 201 | 8144 | 8145);
                    let e = if call_error { e } else { e.at_line(n.line) };
                    let e = match self.modules.last() {
                        Some(m) if e.procedure.is_empty() => e.in_procedure(m.clone()),
                        _ => e,
                    };
                    // RAISERROR does not honor XACT_ABORT.
                    let raiserror = matches!(&n.kind, NodeKind::Other(s)
                        if matches!(s.kind, StatementKind::RaisError(_)));
                    if self.try_depth > 0
                        || is_batch_abort(&e)
                        || (self.options.xact_abort && !raiserror)
                        || self.trig.batch_abort
                        || e.procedure == THROW_MARK
                    {
                        return Err(Box::new(e));
                    }
                    self.error = e.number;
                    sink.error(&e);
                }
            }
            i += 1;
        }
        Ok(Flow::Normal)
    }

    /// Continues execution at label `l` inside `node` (a GOTO from outside the block): the
    /// rest of that block runs, then a WHILE re-tests its condition; IF conditions are not
    /// evaluated. Entering a TRY or CATCH block is Msg 1026, as in SQL Server.
    fn enter_at_label(
        &mut self,
        node: &Node,
        l: usize,
        rc: &mut RunCache,
        sink: &mut dyn EventSink,
    ) -> RunResult<Flow> {
        match &node.kind {
            NodeKind::Block(b) => self.run_nodes_from(b, l, rc, sink),
            NodeKind::If { then, els, .. } => {
                if then.iter().any(|n| contains_label(n, l)) {
                    self.run_nodes_from(then, l, rc, sink)
                } else {
                    self.run_nodes_from(els, l, rc, sink)
                }
            }
            NodeKind::While { body, .. } => match self.run_nodes_from(body, l, rc, sink)? {
                Flow::Break => Ok(Flow::Normal),
                Flow::Continue | Flow::Normal => self.run_node(node, rc, sink).map_err(Box::new),
                f => Ok(f),
            },
            NodeKind::Try { .. } => Err(Box::new(
                SqlError::custom(
                    1026,
                    16,
                    1,
                    "GOTO cannot be used to jump into a TRY or CATCH scope.",
                )
                .at_line(node.line),
            )),
            _ => Ok(Flow::Normal),
        }
    }

    /// Runs `nodes` from label `l` (directly in the list or inside one of its blocks).
    fn run_nodes_from(
        &mut self,
        nodes: &[Node],
        l: usize,
        rc: &mut RunCache,
        sink: &mut dyn EventSink,
    ) -> RunResult<Flow> {
        if let Some(p) = nodes
            .iter()
            .position(|x| matches!(x.kind, NodeKind::Label(k) if k == l))
        {
            return self.run_nodes(&nodes[p + 1..], rc, sink);
        }
        let Some(q) = nodes.iter().position(|x| contains_label(x, l)) else {
            return Ok(Flow::Goto(l));
        };
        match self.enter_at_label(&nodes[q], l, rc, sink)? {
            Flow::Normal => self.run_nodes(&nodes[q + 1..], rc, sink),
            f => Ok(f),
        }
    }

    fn run_node(
        &mut self,
        n: &Node,
        rc: &mut RunCache,
        sink: &mut dyn EventSink,
    ) -> SqlResult<Flow> {
        if let Some(f) = self.frames.last_mut() {
            f.scope = n.scope;
        }
        match &n.kind {
            NodeKind::Set { slot, expr } => {
                let v = self.eval_ref(expr, rc)?;
                self.assign_slot(*slot, v)?;
                self.rowcount = 1;
                self.error = 0;
            }
            NodeKind::While { cond, body } => loop {
                self.cancel.check()?;
                if !self.truth_ref(cond, rc)? {
                    break;
                }
                match self.run_nodes(body, rc, sink).map_err(|e| *e)? {
                    Flow::Break => break,
                    Flow::Continue | Flow::Normal => {}
                    r => return Ok(r),
                }
            },
            NodeKind::If { cond, then, els } => {
                let r = if self.truth_ref(cond, rc)? {
                    self.run_nodes(then, rc, sink)
                } else {
                    self.run_nodes(els, rc, sink)
                };
                return r.map_err(|e| *e);
            }
            NodeKind::Block(b) => return self.run_nodes(b, rc, sink).map_err(|e| *e),
            NodeKind::Declare(inits) => {
                for (slot, e) in inits {
                    let v = self.eval_ref(e, rc)?;
                    self.assign_slot(*slot, v)?;
                }
            }
            NodeKind::DeclareTable(slot) => self.declare_table_variable(*slot)?,
            NodeKind::Query {
                stmt,
                plan,
                recompile,
            } if matches!(&stmt.kind, StatementKind::Insert(i) if matches!(i.source, ast::InsertSource::Exec(_))) =>
            {
                let _ = (plan, recompile);
                self.begin_implicit_transaction(&stmt.kind);
                self.insert_exec(stmt, sink)?;
                self.error = 0;
            }
            NodeKind::Query {
                stmt,
                plan,
                recompile,
            } => {
                let recompile = *recompile;
                self.begin_implicit_transaction(&stmt.kind);
                let read_only = matches!(&stmt.kind, StatementKind::Select(q)
                    if matches!(&q.body, ast::QueryBody::Select(s) if s.into.is_none()));
                if self.doomed && read_only {
                    // An uncommittable transaction still allows reads.
                    self.run_query_cached(stmt, *plan, recompile, rc, sink)?;
                } else {
                    self.autocommit(|me| me.run_query_cached(stmt, *plan, recompile, rc, sink))?;
                }
                self.error = 0;
            }
            NodeKind::Try { body, catch } => {
                self.try_depth += 1;
                let r = self.run_nodes(body, rc, sink);
                self.try_depth -= 1;
                match r {
                    Ok(f) => return Ok(f),
                    Err(e) => {
                        let e = self.enter_catch(*e)?;
                        self.caught.push(CaughtError { error: e });
                        let r = self.run_nodes(catch, rc, sink);
                        self.caught.pop();
                        return r.map_err(|e| *e);
                    }
                }
            }
            NodeKind::Break => return Ok(Flow::Break),
            NodeKind::Continue => return Ok(Flow::Continue),
            NodeKind::Goto(l) => return Ok(Flow::Goto(*l)),
            NodeKind::Label(_) => {}
            NodeKind::Return(v) if self.function_depth > 0 => {
                // RETURN expr of a scalar function: the value, not a status.
                let r = match v {
                    Some(e) => self.eval_ref(e, rc)?,
                    None => Value::Null,
                };
                self.function_result = Some(r);
                return Ok(Flow::Return(None));
            }
            NodeKind::Return(v) => {
                let v = match v {
                    Some(e) => match self.eval_ref(e, rc)? {
                        Value::Null => Some(0),
                        v => Some(value_to_i64(&v)? as i32),
                    },
                    None => None,
                };
                return Ok(Flow::Return(v));
            }
            NodeKind::Print(e) => {
                let v = self.eval_ref(e, rc)?;
                let text =
                    crate::render::value_text(&v, &DataType::VarChar(None)).unwrap_or_default();
                sink.message(&InfoMessage::print(text));
                self.error = 0;
                self.rowcount = 0;
            }
            NodeKind::Other(s) => return self.exec_stmt(s, sink),
        }
        Ok(Flow::Normal)
    }

    /// Common CATCH entry: clears the THROW mark, re-raises fatal errors, dooms or ends the
    /// transaction as SQL Server does.
    pub(crate) fn enter_catch(&mut self, mut e: SqlError) -> SqlResult<SqlError> {
        self.trig.batch_abort = false;
        if e.procedure == THROW_MARK {
            e.procedure.clear();
        }
        if e.severity >= 20 {
            return Err(e);
        }
        self.error = e.number;
        if self.trancount > 0 && (self.options.xact_abort || is_batch_abort(&e)) {
            self.doomed = true;
        }
        if self.trancount == 0 && !self.txns.is_empty() {
            self.abort_all()?;
        }
        Ok(e)
    }

    /// Assigns slot `slot` of the current frame, converting to the declared type.
    /// A value already of the declared type (what `SET @i = @i + 1` produces) moves in place
    /// here; a conversion goes through [`Self::assign_slot_converting`].
    #[inline(always)]
    pub(crate) fn assign_slot(&mut self, slot: usize, v: Value) -> SqlResult<()> {
        if let Some(var) = self.frames.last_mut().and_then(|f| f.vars.get_mut(slot)) {
            if same_type(&v, &var.data_type) {
                var.value = v;
                return Ok(());
            }
        }
        self.assign_slot_converting(slot, v)
    }

    #[inline(never)]
    fn assign_slot_converting(&mut self, slot: usize, v: Value) -> SqlResult<()> {
        let Some(var) = self.frames.last_mut().and_then(|f| f.vars.get_mut(slot)) else {
            return Err(SqlError::internal("variable slot out of range"));
        };
        var.value = if same_type(&v, &var.data_type) {
            v
        } else {
            crate::interp::convert_value(v, &var.data_type)?
        };
        Ok(())
    }

    #[inline(always)]
    fn truth_ref(&mut self, e: &ExprRef, rc: &mut RunCache) -> SqlResult<bool> {
        Ok(matches!(self.eval_ref(e, rc)?, Value::Bit(true)))
    }

    /// Evaluates a program expression through exec's evaluator (the one evaluator), binding it
    /// on first use or after a schema change. Variables were resolved to frame slots when it
    /// was bound, so a cached expression runs without name lookups.
    #[inline(always)]
    pub(crate) fn eval_ref(&mut self, e: &ExprRef, rc: &mut RunCache) -> SqlResult<Value> {
        let gen = self.schema_generation();
        if let Some(Some((g, c))) = rc.exprs.get(e.id) {
            if *g == gen {
                return exec::eval_scalar(c, self);
            }
        }
        self.bind_and_eval_ref(e, rc, gen)
    }

    /// [`Self::eval_ref`] on first use or after a schema change: binds, evaluates and caches.
    /// Kept out of line so the cached path stays small where it is inlined.
    #[inline(never)]
    fn bind_and_eval_ref(&mut self, e: &ExprRef, rc: &mut RunCache, gen: u64) -> SqlResult<Value> {
        // Fast paths that need no binding (and must not fail at bind time).
        match &e.ast {
            ast::Expr::Literal(ast::Literal::Null) => return Ok(Value::Null),
            ast::Expr::Variable(n) if self.var(n).is_none() => {
                return Err(SqlError::new(137, &[n]));
            }
            _ => {}
        }
        self.bind_volatile.set(false);
        let bound = plan::bind_scalar(&e.ast, self)?;
        let bound = optimizer::optimize_scalar(bound, self)?;
        let v = exec::eval_scalar(&bound, self);
        if !self.bind_volatile.get() {
            if let Some(slot) = rc.exprs.get_mut(e.id) {
                *slot = Some((gen, bound));
            }
        }
        v
    }

    /// Runs a query statement with a cached plan (compile.rs).
    fn run_query_cached(
        &mut self,
        s: &Statement,
        id: usize,
        recompile: bool,
        rc: &mut RunCache,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        if matches!(s.kind, parser::ast::StatementKind::Merge(_)) {
            // MERGE has its own plan shape and is not cached yet.
            return self.run_merge(s, sink);
        }
        if self.run_instead_of(s, sink)? {
            return Ok(());
        }
        let stmt_stats = rc.entry.clone();
        let stmt_stats = stmt_stats.as_ref().and_then(|e| e.statement(id));
        if let Some(st) = stmt_stats {
            // published before the compile: a system view this statement reads is
            // materialised while it binds
            self.live.statement_offsets.store(
                crate::sysprocs::pack_statement_offsets(st.start_offset, st.end_offset),
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        let gen = self.schema_generation();
        let mut cached = match rc.plans.get(id) {
            Some(Some((g, p, dml))) if *g == gen && !recompile => Some((p.clone(), *dml)),
            _ => None,
        };
        if cached.is_some() && !self.plan_statistics_current(rc.stamps.get_mut(id)) {
            cached = None; // statistics-changed recompile (plan_stats.rs)
        }
        let (plan, is_dml) = match cached {
            Some(c) => {
                self.last_compile_ms = rc
                    .stamps
                    .get(id)
                    .and_then(|s| s.as_ref())
                    .map(|s| s.compile_ms);
                c
            }
            None => {
                self.bind_volatile.set(false);
                self.stats_used.borrow_mut().clear();
                let (started, cpu) = (std::time::Instant::now(), thread_cpu_us());
                let (p, dml) = self.plan_statement(s)?;
                let ms = (
                    started.elapsed().as_millis() as u64,
                    thread_cpu_us().saturating_sub(cpu) / 1000,
                );
                self.last_compile_ms = Some(ms);
                let p = Arc::new(p);
                if !recompile && !self.bind_volatile.get() {
                    if let Some(slot) = rc.plans.get_mut(id) {
                        *slot = Some((gen, p.clone(), dml));
                    }
                    let stamp = self.statistics_stamp(ms);
                    if let Some(slot) = rc.stamps.get_mut(id) {
                        *slot = Some(stamp);
                    }
                }
                if let Some(st) = stmt_stats {
                    st.compiled(
                        crate::plan_stats::ShownPlan {
                            plan: p.clone(),
                            statement_type: crate::showplan::statement_type(s, Some(&p)),
                            compile_ms: ms,
                        },
                        self.engine().schema_state(),
                    );
                }
                (p, dml)
            }
        };
        let measuring = stmt_stats.map(|_| crate::plan_stats::Measuring::start());
        let spilled_before = self.spilled_pages;
        self.with_grant(s, |me| {
            me.execute_plan(&plan, is_dml, crate::query::defer_metadata(s), sink)
        })?;
        if let (Some(st), Some(m)) = (stmt_stats, measuring) {
            let started_us = m.started_us;
            let mut e = m.finish(self.rowcount as u64);
            e.spills = self.spilled_pages - spilled_before;
            st.executed(started_us, &e);
        }
        self.after_statement_plan(s, &plan, sink);
        Ok(())
    }

    /// EXEC of a stored procedure: compiled once per session and text version.
    pub(crate) fn call_procedure(
        &mut self,
        name: &catalog::QualifiedName,
        args: &[ast::ExecArg],
        sink: &mut dyn EventSink,
    ) -> SqlResult<i32> {
        if name.name.eq_ignore_ascii_case("sp_executesql") {
            return self.sp_executesql(args, sink).map(|_| 0);
        }
        if name.name.eq_ignore_ascii_case("sp_recompile") {
            // every session's plans of the current database's objects recompile
            self.current_db()?.generation.bump();
            self.schema_view.invalidate();
            self.proc_cache.clear();
            if let Some(a) = args.first() {
                let v = self.eval(&a.value)?;
                let t =
                    crate::render::value_text(&v, &DataType::NVarChar(None)).unwrap_or_default();
                sink.message(&InfoMessage {
                    text: format!("Object '{t}' was successfully marked for recompilation."),
                    number: 15070,
                    severity: 0,
                    state: 1,
                });
            }
            return Ok(0);
        }
        if let Some(status) = self.call_system_procedure(name, args, sink)? {
            return Ok(status);
        }
        if name.name.eq_ignore_ascii_case("sp_configure") {
            let mut values = vec![types::Value::Null; 2];
            for (i, a) in args.iter().enumerate().take(2) {
                let at = match a.name.as_deref().map(str::to_ascii_lowercase).as_deref() {
                    Some("@configname") => 0,
                    Some("@configvalue") => 1,
                    Some(other) => return Err(SqlError::new(8145, &[&other, &"sp_configure"])),
                    None => i,
                };
                values[at] = self.eval(&a.value)?;
            }
            if args.len() > 2 {
                return Err(SqlError::new(8144, &[&"sp_configure"]));
            }
            let show_count = !self.options.nocount;
            crate::config::sp_configure(self.engine(), &values, show_count, sink)?;
            return Ok(0);
        }
        if name.name.eq_ignore_ascii_case("sp_sequence_get_range") {
            self.sp_sequence_get_range(args)?;
            return Ok(0);
        }
        let (h, module) = match self.find_object(name)? {
            Some((h, catalog::SchemaObject::Module(m)))
                if m.kind == catalog::ModuleKind::Procedure =>
            {
                (h, m)
            }
            _ => return Err(SqlError::new(2812, &[&name.display()])),
        };
        if self.modules.len() >= 32 {
            return Err(SqlError::new(217, &[&32]));
        }
        self.check_object_access(&catalog::ObjectAccess {
            database: h.def.name.clone(),
            object_id: module.object_id,
            access: catalog::Access::Execute,
            via: None,
        })?;
        let key = (h.def.name.clone(), module.object_id);
        let display = module_display_name(&module.name);
        let (prog, params, cache) = match self.proc_cache.get_mut(&key) {
            Some(e) if e.text == module.text => (e.prog.clone(), e.params.clone(), e.cache.take()),
            _ => {
                let stmts = parser::parse_batch_with(
                    &module.text,
                    parser::ParseOptions {
                        quoted_identifier: module.uses_quoted_identifier,
                    },
                )?;
                let Some(StatementKind::CreateProcedure(cp)) =
                    stmts.into_iter().find_map(|s| match s.kind {
                        k @ StatementKind::CreateProcedure(_) => Some(k),
                        _ => None,
                    })
                else {
                    return Err(SqlError::internal(
                        "procedure text does not define a procedure",
                    ));
                };
                let decls = self.param_decls(&cp.params)?;
                let recompile = cp.options.iter().any(|o| o == "RECOMPILE");
                let prog = Arc::new(
                    self.compile_program(cp.body, decls, recompile)
                        .map_err(|e| e.in_procedure(display.clone()))?,
                );
                self.proc_cache.insert(
                    key.clone(),
                    ProcEntry {
                        text: module.text.clone(),
                        prog: prog.clone(),
                        params: cp.params.clone(),
                        cache: None,
                    },
                );
                (prog, cp.params, None)
            }
        };
        let mut rc = match cache {
            Some(c) if !prog.recompile => c,
            _ => RunCache::for_program(&prog),
        };
        // Evaluate arguments in the caller's scope.
        if args.len() > params.len() {
            return Err(SqlError::new(8144, &[&display]).in_procedure(display.clone()));
        }
        for a in args {
            if let Some(n) = &a.name {
                if !params.iter().any(|p| p.name.eq_ignore_ascii_case(n)) {
                    return Err(SqlError::custom(
                        8145,
                        16,
                        2,
                        format!("{n} is not a parameter for procedure {display}."),
                    )
                    .in_procedure(display.clone()));
                }
            }
        }
        let mut values = Vec::with_capacity(params.len());
        let mut outputs: Vec<(usize, String)> = Vec::new();
        let mut positional = true;
        for (i, p) in params.iter().enumerate() {
            let t = prog.vars[i].data_type.clone();
            let arg = args.iter().enumerate().find(|(j, a)| match &a.name {
                Some(n) => {
                    positional = false;
                    n.eq_ignore_ascii_case(&p.name)
                }
                None => positional && *j == i,
            });
            let value = match arg {
                Some((_, a)) if !matches!(a.value, ast::Expr::Default) => {
                    if a.output && p.output {
                        if let ast::Expr::Variable(v) = &a.value {
                            outputs.push((i, v.clone()));
                        }
                    }
                    self.eval(&a.value)?
                }
                _ => match &p.default {
                    Some(d) => self.eval(d)?,
                    None => {
                        let mut e =
                            SqlError::new(201, &[&display, &p.name]).in_procedure(display.clone());
                        e.state = 4;
                        return Err(e);
                    }
                },
            };
            values.push(crate::interp::convert_value(value, &t)?);
        }
        self.modules.push(display.clone());
        self.principal.chain.push(key.clone());
        let saved_scope_identity = self.scope_identity.take();
        let trancount = self.trancount;
        let saved_options = self.options.clone();
        // a module runs under the ANSI_NULLS it was created with (restored below)
        self.options.ansi_nulls = module.uses_ansi_nulls;
        let mut frame = crate::session::Frame::default();
        let r = self
            .nested_scope(sink, |me, sink| {
                let (r, f) = me.run_program(&prog, &mut rc, values, sink);
                frame = f;
                r
            })
            .map(|f| f.unwrap_or(Flow::Return(None)));
        // SET options changed inside a procedure revert when it returns.
        self.options = saved_options;
        self.modules.pop();
        self.principal.chain.pop();
        self.scope_identity = saved_scope_identity;
        if let Some(e) = self.proc_cache.get_mut(&key) {
            if Arc::ptr_eq(&e.prog, &prog) {
                e.cache = Some(rc);
            }
        }
        let status = match r {
            Ok(Flow::Return(Some(n))) => n,
            Ok(_) => 0,
            Err(e) => return Err(e),
        };
        for (slot, v) in outputs {
            if let Some(var) = frame.vars.get(slot) {
                self.assign_var(&v, var.value.clone())?;
            }
        }
        if self.trancount != trancount && self.try_depth == 0 && self.trig.stack.is_empty() {
            sink.error(&SqlError::new(266, &[&trancount, &self.trancount]).in_procedure(display));
        }
        Ok(status)
    }

    /// Calls a scalar user-defined function (exec reaches it through `ExecEnv::call_function`).
    pub(crate) fn call_scalar_function(
        &mut self,
        h: &Arc<crate::server::DbHandle>,
        module: &Arc<catalog::ModuleDef>,
        args: &[Value],
    ) -> SqlResult<Value> {
        let display = module_display_name(&module.name);
        if self.modules.len() >= 32 {
            return Err(SqlError::new(217, &[&32]));
        }
        self.check_object_access(&catalog::ObjectAccess {
            database: h.def.name.clone(),
            object_id: module.object_id,
            access: catalog::Access::Execute,
            via: None,
        })?;
        let key = (h.def.name.clone(), module.object_id);
        let (prog, params, cache) = match self.proc_cache.get_mut(&key) {
            Some(e) if e.text == module.text => (e.prog.clone(), e.params.clone(), e.cache.take()),
            _ => {
                let stmts = parser::parse_batch_with(
                    &module.text,
                    parser::ParseOptions {
                        quoted_identifier: module.uses_quoted_identifier,
                    },
                )?;
                let Some(StatementKind::CreateFunction(cf)) =
                    stmts.into_iter().find_map(|s| match s.kind {
                        k @ StatementKind::CreateFunction(_) => Some(k),
                        _ => None,
                    })
                else {
                    return Err(SqlError::internal(
                        "function text does not define a function",
                    ));
                };
                let ast::FunctionBody::Scalar { body, .. } = cf.body else {
                    return Err(SqlError::unsupported(
                        "table-valued function in a scalar context",
                    ));
                };
                let decls = self.param_decls(&cf.params)?;
                let prog = Arc::new(
                    self.compile_program(body, decls, false)
                        .map_err(|e| e.in_procedure(display.clone()))?,
                );
                self.proc_cache.insert(
                    key.clone(),
                    ProcEntry {
                        text: module.text.clone(),
                        prog: prog.clone(),
                        params: cf.params.clone(),
                        cache: None,
                    },
                );
                (prog, cf.params, None)
            }
        };
        if args.len() != params.len() {
            return Err(SqlError::custom(
                if args.len() > params.len() { 8144 } else { 313 },
                16,
                1,
                if args.len() > params.len() {
                    format!("Procedure or function {display} has too many arguments specified.")
                } else {
                    format!("An insufficient number of arguments were supplied for the procedure or function {display}.")
                },
            ));
        }
        let mut values = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            values.push(crate::interp::convert_value(
                a.clone(),
                &prog.vars[i].data_type,
            )?);
        }
        let mut rc = match cache {
            Some(c) => c,
            None => RunCache::for_program(&prog),
        };
        self.modules.push(display.clone());
        self.principal.chain.push(key.clone());
        self.function_depth += 1;
        let saved = self.function_result.take();
        let mut sink = crate::events::CollectSink::default();
        let caller_ansi_nulls =
            std::mem::replace(&mut self.options.ansi_nulls, module.uses_ansi_nulls);
        let (r, _) = self.run_program(&prog, &mut rc, values, &mut sink);
        self.options.ansi_nulls = caller_ansi_nulls;
        let result = std::mem::replace(&mut self.function_result, saved);
        self.function_depth -= 1;
        self.modules.pop();
        self.principal.chain.pop();
        if let Some(e) = self.proc_cache.get_mut(&key) {
            if Arc::ptr_eq(&e.prog, &prog) {
                e.cache = Some(rc);
            }
        }
        r?;
        if let Some(e) = sink.errors().first() {
            return Err((*e).clone());
        }
        let v = result.unwrap_or(Value::Null);
        match &module.returns {
            Some(t) => crate::interp::convert_value(v, t),
            None => Ok(v),
        }
    }

    /// `sp_sequence_get_range @sequence_name, @range_size, @range_first_value OUTPUT
    /// [, @range_last_value OUTPUT, @range_cycle_count OUTPUT, @sequence_increment OUTPUT,
    /// @sequence_min_value OUTPUT, @sequence_max_value OUTPUT]`.
    fn sp_sequence_get_range(&mut self, args: &[ast::ExecArg]) -> SqlResult<()> {
        const NAMES: [&str; 8] = [
            "@sequence_name",
            "@range_size",
            "@range_first_value",
            "@range_last_value",
            "@range_cycle_count",
            "@sequence_increment",
            "@sequence_min_value",
            "@sequence_max_value",
        ];
        let mut slots: Vec<Option<&ast::ExecArg>> = vec![None; NAMES.len()];
        for (i, a) in args.iter().enumerate() {
            let pos = match &a.name {
                Some(n) => NAMES.iter().position(|x| x.eq_ignore_ascii_case(n)),
                None => Some(i),
            };
            match pos {
                Some(p) if p < NAMES.len() => slots[p] = Some(a),
                _ => {
                    return Err(SqlError::custom(
                        8145,
                        16,
                        2,
                        format!(
                            "{} is not a parameter for procedure sp_sequence_get_range.",
                            a.name.clone().unwrap_or_default()
                        ),
                    ))
                }
            }
        }
        let (Some(name_arg), Some(size_arg)) = (slots[0], slots[1]) else {
            return Err(SqlError::new(
                201,
                &[&"sp_sequence_get_range", &"@sequence_name"],
            ));
        };
        let v = self.eval(&name_arg.value)?;
        let text = crate::render::value_text(&v, &DataType::NVarChar(None)).unwrap_or_default();
        let q = crate::ddl::qualified_from_text(&text);
        let Some((h, catalog::SchemaObject::Sequence(s))) = self.find_object(&q)? else {
            return Err(SqlError::invalid_object(&q.display()));
        };
        let size = value_to_i64(&self.eval(&size_arg.value)?)? as i128;
        let (first, last) = crate::sequence::next_values(&h, &s, size).map_err(|e| {
            if e.number == 11728 {
                SqlError::custom(
                    11732,
                    16,
                    1,
                    format!("The requested range for sequence object '{}' exceeds the maximum or minimum limit. Retry with a smaller range.", s.name),
                )
            } else {
                e
            }
        })?;
        let outs: [Option<i128>; 8] = [
            None,
            None,
            Some(first),
            Some(last),
            Some(0),
            Some(s.increment),
            Some(s.min),
            Some(s.max),
        ];
        for (i, o) in outs.iter().enumerate() {
            if let (Some(v), Some(a)) = (o, slots[i]) {
                if let ast::Expr::Variable(var) = &a.value {
                    if a.output {
                        let val = crate::sequence::to_value(*v, &DataType::BigInt)?;
                        self.assign_var(var, val)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs dynamic SQL in a new variable scope (sp_executesql passes `params`); returns the
    /// final values of the parameters (for OUTPUT).
    pub(crate) fn run_dynamic(
        &mut self,
        text: &str,
        params: Vec<(String, Variable)>,
        sink: &mut dyn EventSink,
    ) -> SqlResult<Vec<Value>> {
        let r = self.nested_scope(sink, |me, sink| {
            let mut decls = Vec::with_capacity(params.len());
            let mut values = Vec::with_capacity(params.len());
            for (n, v) in params {
                decls.push(VarDecl {
                    name: n.to_lowercase(),
                    data_type: v.data_type,
                    table: None,
                });
                values.push(v.value);
            }
            let key = crate::plan_cache::PlanKey::new(
                text,
                decls
                    .iter()
                    .map(|d| (d.name.clone(), d.data_type.clone()))
                    .collect(),
                &me.database,
                &me.options,
            );
            let generation = me.schema_generation();
            let mut entry = match key.as_ref().and_then(|k| me.plan_cache.take(k, generation)) {
                Some(e) => e,
                None => {
                    // dynamic SQL is parsed with the session's current setting
                    let opts = parser::ParseOptions {
                        quoted_identifier: me.options.quoted_identifier,
                    };
                    let stmts = parser::parse_batch_with(text, opts)?;
                    // a parameterised statement shows as SQL Server's Prepared text:
                    // "(@p int)SELECT ..."
                    let prefix = crate::plan_stats::parameter_prefix(&decls);
                    let prog = me.compile_program(stmts, decls, false)?;
                    let mut rc = RunCache::for_program(&prog);
                    rc.entry = key
                        .as_ref()
                        .map(|k| me.register_plan(k, &prefix, text, &prog));
                    crate::plan_cache::CachedProgram::new(Arc::new(prog), rc, generation)
                }
            };
            if let Some(e) = &entry.rc.entry {
                e.used();
            }
            let n = values.len();
            let prog = entry.prog.clone();
            // dynamic SQL breaks the ownership chain of the module that runs it (SQL Server's
            // rule): its statements are checked against the session's own permissions
            let chain = std::mem::take(&mut me.principal.chain);
            let (r, frame) = me.run_program(&prog, &mut entry.rc, values, sink);
            me.principal.chain = chain;
            if let Some(k) = key {
                let now = me.schema_generation();
                me.plan_cache.put(k, entry, now);
            }
            r?;
            Ok(frame.vars.into_iter().take(n).map(|v| v.value).collect())
        })?;
        Ok(r.unwrap_or_default())
    }
}

/// Collects the result rows of the EXEC of an `INSERT ... EXEC`; everything else goes through.
struct InsertExecSink<'a> {
    inner: &'a mut dyn EventSink,
    columns: Option<Vec<crate::events::OutColumn>>,
    rows: Vec<Vec<Value>>,
}

impl EventSink for InsertExecSink<'_> {
    fn result_start(&mut self, columns: &[crate::events::OutColumn]) {
        if self.columns.is_none() {
            self.columns = Some(columns.to_vec());
        }
    }
    fn row(&mut self, row: &[Value]) {
        self.rows.push(row.to_vec());
    }
    fn result_end(&mut self, _rows: u64, _incomplete: bool, _show_count: bool) {}
    fn row_count(&mut self, count: u64) {
        self.inner.row_count(count);
    }
    fn message(&mut self, msg: &InfoMessage) {
        self.inner.message(msg);
    }
    fn error(&mut self, err: &SqlError) {
        self.inner.error(err);
    }
}

impl Session {
    /// `INSERT [INTO] t [(cols)] EXEC ...`: runs the EXEC collecting its result rows, then
    /// inserts them through one bound `INSERT ... VALUES (@__ie0, ...)` executed per row, all
    /// in one statement (atomic).
    fn insert_exec(&mut self, stmt: &Statement, sink: &mut dyn EventSink) -> SqlResult<()> {
        let StatementKind::Insert(ins) = &stmt.kind else {
            return Err(SqlError::internal("insert_exec: not an INSERT"));
        };
        let ast::InsertSource::Exec(ex) = &ins.source else {
            return Err(SqlError::internal("insert_exec: not INSERT ... EXEC"));
        };
        let mut collect = InsertExecSink {
            inner: sink,
            columns: None,
            rows: Vec::new(),
        };
        self.exec_exec(ex, &mut collect)?;
        let InsertExecSink { columns, rows, .. } = collect;
        let Some(columns) = columns else {
            if !self.options.nocount {
                sink.row_count(0);
            }
            self.rowcount = 0;
            return Ok(());
        };
        let names: Vec<String> = (0..columns.len()).map(|i| format!("@__ie{i}")).collect();
        {
            let Some(frame) = self.frames.last_mut() else {
                return Err(SqlError::internal("no variable frame"));
            };
            for (n, c) in names.iter().zip(&columns) {
                frame.insert(
                    n,
                    Variable {
                        data_type: c.data_type.clone(),
                        value: Value::Null,
                    },
                );
            }
        }
        let mut values_stmt = stmt.clone();
        if let StatementKind::Insert(i) = &mut values_stmt.kind {
            i.source = ast::InsertSource::Values(vec![names
                .iter()
                .map(|n| ast::Expr::Variable(n.clone()))
                .collect()]);
        }
        let nocount = self.options.nocount;
        let total = self.autocommit(|me| {
            let (plan, _) = me.plan_statement(&values_stmt)?;
            let mut quiet = crate::events::CollectSink::default();
            me.options.nocount = true;
            let mut total = 0u64;
            let mut r = Ok(());
            let outer_deferred = me.trig.deferred.replace(Vec::new());
            for row in &rows {
                if row.len() != names.len() {
                    r = Err(SqlError::custom(
                        213,
                        16,
                        7,
                        "Column name or number of supplied values does not match table definition.",
                    ));
                    break;
                }
                for (n, v) in names.iter().zip(row) {
                    if let Some(var) = me.frames.last_mut().and_then(|f| f.get_mut(n)) {
                        var.value = v.clone();
                    }
                }
                if let Err(e) = me.execute_plan(&plan, true, false, &mut quiet) {
                    r = Err(e);
                    break;
                }
                total += me.rowcount.max(0) as u64;
            }
            me.options.nocount = nocount;
            let changes = std::mem::replace(&mut me.trig.deferred, outer_deferred);
            r?;
            if let Some(changes) = changes.filter(|c| !c.is_empty()) {
                me.rowcount = total as i64;
                me.fire_after_triggers(changes, total, sink)?;
            }
            Ok(total)
        })?;
        self.rowcount = total as i64;
        if !nocount {
            sink.row_count(total);
        }
        Ok(())
    }
}

/// CPU time of the current thread in microseconds (0 when the clock is unavailable).
///
/// Read at the start of every batch (for `sys.dm_exec_requests.cpu_time`), so it must be cheap:
/// reading `/proc/thread-self/schedstat` instead cost a file open and read per batch, about a
/// third of the time of a one-row primary-key lookup.
pub(crate) fn thread_cpu_us() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call, and
    // CLOCK_THREAD_CPUTIME_ID is a clock id every Linux/POSIX libc accepts; the call only writes
    // into `ts` and reports failure through its return value.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64) * 1_000_000 + (ts.tv_nsec as u64) / 1000
}

/// Counters at the start of a statement for `SET STATISTICS TIME|IO ON`.
pub(crate) struct StatStart {
    wall: std::time::Instant,
    cpu_us: u64,
    io: crate::server::IoSnapshot,
}

/// First base table a statement reads or writes (for the `Table 'x'.` line).
fn statement_table(s: &Statement) -> Option<String> {
    fn from_ref(t: &ast::TableRef) -> Option<String> {
        match t {
            ast::TableRef::Table { name, .. } => name.parts.last().map(|p| p.value.clone()),
            ast::TableRef::Variable { name, .. } => Some(name.clone()),
            ast::TableRef::Join { left, right, .. } => from_ref(left).or_else(|| from_ref(right)),
            ast::TableRef::Nested(t) => from_ref(t),
            _ => None,
        }
    }
    fn from_body(b: &ast::QueryBody) -> Option<String> {
        match b {
            ast::QueryBody::Select(s) => s.from.iter().find_map(from_ref),
            ast::QueryBody::SetOp { left, right, .. } => {
                from_body(left).or_else(|| from_body(right))
            }
            _ => None,
        }
    }
    let target = |t: &ast::DmlTarget| match t {
        ast::DmlTarget::Table(n) => n.parts.last().map(|p| p.value.clone()),
        ast::DmlTarget::Variable(v) => Some(v.clone()),
    };
    match &s.kind {
        StatementKind::Select(q) => from_body(&q.body),
        StatementKind::Insert(i) => target(&i.target),
        StatementKind::Update(u) => target(&u.target),
        StatementKind::Delete(d) => target(&d.target),
        _ => None,
    }
}

impl Session {
    pub(crate) fn stat_start(&self) -> StatStart {
        let io = if self.options.statistics_io {
            self.engine.object_io_snapshot()
        } else {
            Vec::new()
        };
        StatStart {
            wall: std::time::Instant::now(),
            cpu_us: if self.options.statistics_time {
                thread_cpu_us()
            } else {
                0
            },
            io,
        }
    }

    /// Emits SQL Server's STATISTICS IO / TIME messages for one statement.
    pub(crate) fn stat_end(&self, st: StatStart, n: &Node, sink: &mut dyn EventSink) {
        if self.options.statistics_io {
            let table = match &n.kind {
                NodeKind::Query { stmt, .. } => statement_table(stmt),
                _ => None,
            };
            if table.is_some() {
                // one line per table whose pages the statement read (server.rs)
                for text in self.engine.statistics_io_lines(&st.io) {
                    sink.message(&InfoMessage {
                        text,
                        number: 3615,
                        severity: 0,
                        state: 1,
                    });
                }
            }
        }
        if self.options.statistics_time {
            let cpu = thread_cpu_us().saturating_sub(st.cpu_us) / 1000;
            let wall = st.wall.elapsed().as_millis();
            sink.message(&InfoMessage {
                text: format!(
                    "\n SQL Server Execution Times:\n   CPU time = {cpu} ms,  elapsed time = {wall} ms."
                ),
                number: 0,
                severity: 0,
                state: 1,
            });
        }
    }
}

/// Whether label `l` is declared inside `node` (at any depth).
fn contains_label(node: &Node, l: usize) -> bool {
    match &node.kind {
        NodeKind::Label(k) => *k == l,
        NodeKind::Block(b) => b.iter().any(|n| contains_label(n, l)),
        NodeKind::If { then, els, .. } => {
            then.iter().any(|n| contains_label(n, l)) || els.iter().any(|n| contains_label(n, l))
        }
        NodeKind::While { body, .. } => body.iter().any(|n| contains_label(n, l)),
        NodeKind::Try { body, catch } => {
            body.iter().any(|n| contains_label(n, l)) || catch.iter().any(|n| contains_label(n, l))
        }
        _ => false,
    }
}
