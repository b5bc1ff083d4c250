//! The procedural interpreter: runs the statements of a batch (or module body) in order,
//! handling control flow, variables, transactions, TRY/CATCH and the SQL Server rules about
//! which errors end the statement and which end the batch.
//!
//! Error rules (engine/README E1..E4):
//! E1. A syntax error stops the whole batch before anything runs.
//! E2. Statement-terminating errors (constraint violations 2627/2601/515/547, divide by zero
//!     8134, truncation 8152/2628, RAISERROR ...) are reported and the batch goes on with the
//!     next statement; `@@ERROR` is set.
//! E3. Batch-aborting errors (name resolution 207/208/4104, conversion 245/8114/241, ...; every
//!     error when XACT_ABORT is ON, THROW outside TRY) stop the batch; with XACT_ABORT ON the
//!     transaction is rolled back.
//! E4. Inside TRY every error of severity > 10 transfers control to the CATCH block instead.

use std::sync::Arc;

use common::{SqlError, SqlResult};
use parser::ast::{self, Statement, StatementKind};
use types::{DataType, Value};

use crate::events::{EventSink, InfoMessage};
use crate::session::Session;

/// How a statement list ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Flow {
    Normal,
    Break,
    Continue,
    Return(Option<i32>),
    /// `GOTO label` (label id of the program) unwinding to the list that holds the label.
    Goto(usize),
}

/// Converts a value to a declared type (variable assignment, parameters).
pub(crate) fn convert_value(v: Value, t: &DataType) -> SqlResult<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    // a max-typed value moves into a max-typed target: no copy of a string up to 2 GB
    if matches!(
        (&v, t),
        (Value::VarChar(_), DataType::VarChar(None))
            | (Value::NVarChar(_), DataType::NVarChar(None))
            | (Value::VarBinary(_), DataType::VarBinary(None))
    ) {
        return Ok(v);
    }
    crate::query::cast_value(v, t)
}

/// Errors that end the batch (E3).
pub(crate) fn is_batch_abort(e: &SqlError) -> bool {
    matches!(
        e.number,
        102 | 105
            | 137
            | 156
            | 207
            | 208
            | 209
            | 4104
            | 245
            | 241
            | 8114
            | 116
            | 8120
            | 4145
            | 1205
            | 3960
            | 3961
            | 3964
            | 8180
            | 266
            | 3930
            | 217
            | 2812
    ) || e.severity >= 20
}

/// Marker put into `SqlError::state` handling: errors raised by THROW carry this flag through
/// the interpreter so they abort the batch (E3).
pub(crate) const THROW_MARK: &str = "\u{1}throw";

impl Session {
    /// Runs one batch, emitting its events into `sink` (ENGINE_INTERFACE.md).
    pub fn execute_batch(&mut self, text: &str, sink: &mut dyn EventSink) {
        if self.live.is_killed() {
            self.report_killed(sink);
            return;
        }
        if !self.caller_resets_cancel {
            self.cancel.reset();
        }
        let _live = self.begin_request(text);
        let mut key = if self.showplan_on() || self.parseonly_on() {
            None
        } else {
            crate::plan_cache::PlanKey::new(text, Vec::new(), &self.database, &self.options)
        };
        let generation = self.schema_generation();
        let cached = key
            .as_ref()
            .and_then(|k| self.plan_cache.take(k, generation));
        let mut entry = match cached {
            Some(e) => e,
            None => {
                let stmts = match parser::parse_batch_with(
                    text,
                    parser::ParseOptions {
                        quoted_identifier: self.options.quoted_identifier,
                    },
                )
                .and_then(|stmts| {
                    crate::showplan::check_showplan_alone(&stmts)?;
                    Ok(stmts)
                }) {
                    Ok(s) => s,
                    Err(e) => {
                        self.error = e.number;
                        sink.error(&e);
                        return;
                    }
                };
                // PARSEONLY (parse-time): a batch that leaves it ON is only parsed
                let parseonly = crate::noops::parseonly_after(&stmts);
                if let Some(on) = parseonly {
                    self.options.flags.insert("PARSEONLY".into(), on);
                    key = None;
                }
                if self.parseonly_on() {
                    self.finish_request(Ok(()), sink);
                    return;
                }
                if self.showplan_on() {
                    self.showplan_batch(text, &stmts, sink);
                    return;
                }
                let prog = match self.compile_program(stmts, Vec::new(), false) {
                    Ok(p) => p,
                    Err(e) => {
                        self.error = e.number;
                        sink.error(&e);
                        return;
                    }
                };
                let mut rc = crate::compile::RunCache::for_program(&prog);
                rc.entry = key.as_ref().map(|k| self.register_plan(k, "", text, &prog));
                crate::plan_cache::CachedProgram::new(std::sync::Arc::new(prog), rc, generation)
            }
        };
        if let Some(e) = &entry.rc.entry {
            e.used();
        }
        let prog = entry.prog.clone();
        let r = match self
            .contain_panic(|me| me.run_program(&prog, &mut entry.rc, Vec::new(), sink).0)
        {
            Ok(r) => r,
            Err(e) => {
                key = None; // its run caches may be half-written
                Err(e)
            }
        };
        if let Some(k) = key {
            let now = self.schema_generation();
            self.plan_cache.put(k, entry, now);
        }
        self.finish_request(r.map(|_| ()), sink);
    }

    /// Runs one parameterised statement list the way a client's RPC call of `sp_executesql`
    /// does: `params` are (name with `@`, type, value); the compiled program is cached by text
    /// and parameter types (plan_cache.rs), so repeated calls with other values skip parsing,
    /// binding and optimisation. Returns the parameters' final values (OUTPUT parameters).
    pub fn execute_parameterized(
        &mut self,
        text: &str,
        params: Vec<(String, DataType, Value)>,
        sink: &mut dyn EventSink,
    ) -> Vec<Value> {
        if self.live.is_killed() {
            self.report_killed(sink);
            return Vec::new();
        }
        if !self.caller_resets_cancel {
            self.cancel.reset();
        }
        let _live = self.begin_request(text);
        let params = params
            .into_iter()
            .map(|(n, data_type, value)| (n, crate::session::Variable { data_type, value }))
            .collect();
        let r = self
            .contain_panic(|me| me.run_dynamic(text, params, sink))
            .and_then(|r| r);
        let out = r.as_ref().cloned().unwrap_or_default();
        self.finish_request(r.map(|_| ()), sink);
        out
    }

    /// End of a request (batch or RPC): reports a batch-aborting error, rolls back a doomed
    /// transaction (3998) and resets the per-request state.
    fn finish_request(&mut self, r: SqlResult<()>, sink: &mut dyn EventSink) {
        if self.frames.is_empty() {
            self.frames.push(Default::default());
        }
        if let Err(e) = r {
            self.report_batch_abort(e, sink);
        }
        self.report_killed(sink);
        if self.doomed && self.trancount > 0 {
            self.trancount = 0;
            let _ = self.abort_all();
            sink.error(&SqlError::custom(
                3998,
                16,
                1,
                "Uncommittable transaction is detected at the end of the batch. The transaction is rolled back.",
            ));
        }
        self.modules.clear();
        self.try_depth = 0;
        self.trig = Default::default();
    }

    fn report_batch_abort(&mut self, mut e: SqlError, sink: &mut dyn EventSink) {
        if e.procedure == THROW_MARK {
            e.procedure.clear();
        }
        // An attention ends the batch without an error message (SQL Server answers it with
        // DONE_ATTN); the client sees the cancel through `cancel_handle`.
        if !e.is_attention() {
            self.error = e.number;
            sink.error(&e);
        }
        if self.options.xact_abort && self.trancount > 0 {
            self.trancount = 0;
            let _ = self.abort_all();
        }
        if self.trancount == 0 && !self.txns.is_empty() {
            let _ = self.abort_all();
        }
    }

    pub(crate) fn exec_stmt(&mut self, s: &Statement, sink: &mut dyn EventSink) -> SqlResult<Flow> {
        use StatementKind as K;
        self.begin_implicit_transaction(&s.kind);
        match &s.kind {
            // The compile step (compile.rs) turns these into nodes the node walker runs
            // (run.rs); a statement reaches this interpreter only as `NodeKind::Other`.
            K::Select(_)
            | K::Insert(_)
            | K::Update(_)
            | K::Delete(_)
            | K::Merge(_)
            | K::Declare(_)
            | K::If { .. }
            | K::While { .. }
            | K::Block(_)
            | K::TryCatch { .. }
            | K::Break
            | K::Continue
            | K::Return(_)
            | K::Print(_)
            | K::Label(_)
            | K::Goto(_) => {
                return Err(SqlError::internal(
                    "a compiled statement reached the statement interpreter",
                ))
            }
            K::CreateExternal(c) => {
                // catalog rows under the statement's transaction (external.rs)
                self.autocommit(|me| me.create_external(c, sink))?;
                self.error = 0;
            }
            K::DropExternal { kind, name } => {
                self.autocommit(|me| me.drop_external(*kind, name))?;
                self.error = 0;
            }
            K::BulkInsert(b) => {
                // transactions per batch are the statement's own (BATCHSIZE); @@ERROR is
                // the last rejected row's error, else 0
                self.error = 0;
                self.bulk_insert(b, s.line, sink)?;
            }
            K::Truncate(name) => {
                self.autocommit(|me| me.truncate_table(name))?;
                self.error = 0;
            }
            K::CreateTable(_)
            | K::AlterTable(_)
            | K::Drop { .. }
            | K::DropIndex { .. }
            | K::CreateIndex(_)
            | K::CreateView(_)
            | K::CreateProcedure(_)
            | K::CreateFunction(_)
            | K::CreateTrigger(_)
            | K::CreateSchema { .. }
            | K::CreateSequence(_)
            | K::AlterSequence(_)
            | K::CreateType(_)
            | K::AlterIndex(_)
            | K::CreateStatistics(_)
            | K::UpdateStatistics(_) => {
                if let Some(p) = crate::security::ddl_permission(&s.kind) {
                    self.check_ddl_permission(p)?;
                }
                self.autocommit(|me| me.exec_ddl(s, sink))?;
                self.error = 0;
            }
            K::CreateDatabase(cd) => {
                if self.trancount > 0 {
                    return Err(SqlError::custom(
                        226,
                        16,
                        1,
                        "CREATE DATABASE statement not allowed within multi-statement transaction.",
                    ));
                }
                crate::files::create_database(&self.engine, cd)?;
            }
            K::AlterDatabase(a) => {
                if self.trancount > 0
                    && matches!(
                        a.action,
                        ast::AlterDatabaseAction::ModifyFile(_)
                            | ast::AlterDatabaseAction::AddFile { .. }
                            | ast::AlterDatabaseAction::RemoveFile(_)
                            | ast::AlterDatabaseAction::AddFilegroup(_)
                            | ast::AlterDatabaseAction::RemoveFilegroup(_)
                            | ast::AlterDatabaseAction::ModifyFilegroup { .. }
                    )
                {
                    return Err(SqlError::custom(
                        226,
                        16,
                        1,
                        "ALTER DATABASE statement not allowed within multi-statement transaction.",
                    ));
                }
                let current = self.database().to_string();
                let mut messages = Vec::new();
                let done =
                    crate::files::alter_database_files(&self.engine, &current, a, &mut messages)?;
                for m in &messages {
                    sink.message(m);
                }
                if !done {
                    self.alter_database(a)?
                }
            }
            K::AlterDatabaseScopedConfiguration(c) => self.alter_scoped_configuration(c)?,
            K::Use(db) => {
                let h = self.db(&db.value)?;
                self.check_database_access(&h)?;
                self.database = h.def.name.clone();
                self.engine.sessions.set_database(self.spid, &self.database);
                self.schema_view.invalidate();
                sink.message(&InfoMessage {
                    text: format!("Changed database context to '{}'.", h.def.name),
                    number: 5701,
                    severity: 0,
                    state: 1,
                });
            }
            // A declared variable's SET is a compiled `NodeKind::Set`; only an undeclared one
            // comes here.
            K::SetVariable { name, .. } => return Err(SqlError::new(137, &[name])),
            K::SetOption(opt) => {
                self.set_option(opt)?;
                self.rowcount = 0;
            }
            K::RaisError(r) => self.raiserror(r, sink)?,
            K::Throw(args) => return Err(self.throw(args.as_deref())?),
            K::BeginTransaction { name } => {
                if self.trancount == 0 {
                    // Only the outermost transaction's name is registered (ROLLBACK TRAN name).
                    self.tran_name = name.clone();
                }
                self.trancount += 1;
                self.error = 0;
                self.rowcount = 0;
            }
            K::Commit { .. } => {
                if self.trancount == 0 {
                    return Err(SqlError::new(3902, &[]));
                }
                if self.doomed {
                    return Err(SqlError::new(3930, &[]));
                }
                self.trancount -= 1;
                if self.trancount == 0 {
                    self.commit_all()?;
                }
                self.error = 0;
            }
            K::Rollback { name } => {
                if self.trancount == 0 {
                    return Err(SqlError::new(3903, &[]));
                }
                match name {
                    Some(n)
                        if self
                            .savepoints
                            .iter()
                            .any(|(s, _)| s.eq_ignore_ascii_case(n)) =>
                    {
                        self.rollback_to_savepoint(n)?;
                    }
                    // Neither a savepoint nor the outermost transaction: nothing is rolled back.
                    Some(n)
                        if !self
                            .tran_name
                            .as_deref()
                            .is_some_and(|t| t.eq_ignore_ascii_case(n)) =>
                    {
                        return Err(SqlError::new(6401, &[&n]));
                    }
                    _ => {
                        self.trancount = 0;
                        self.abort_all()?;
                    }
                }
                self.error = 0;
            }
            K::SaveTransaction { name } => {
                if self.trancount == 0 {
                    return Err(SqlError::custom(
                        628,
                        16,
                        0,
                        "Cannot issue SAVE TRANSACTION when there is no active transaction.",
                    ));
                }
                let mark = self.mark();
                self.savepoints.push((name.clone(), mark));
            }
            K::Exec(ex) => return self.exec_exec(ex, sink).map(|_| Flow::Normal),
            K::Checkpoint(_) => {
                let h = self.current_db()?;
                h.store.checkpoint()?;
            }
            K::Dbcc(d) => self.dbcc(d, s.line, sink)?,
            K::WaitFor { delay, value } => {
                let v = self.eval(value)?;
                let ticks = waitfor_ticks(&v)?;
                let wait = if *delay {
                    ticks
                } else {
                    // WAITFOR TIME: until the next occurrence of that time of day.
                    let now = server_ticks_of_day();
                    (ticks - now).rem_euclid(TICKS_PER_DAY)
                };
                let _wait = common::waits::begin(common::waits::WaitType::WAITFOR);
                self.cancel
                    .sleep(std::time::Duration::from_nanos(wait as u64 * 100))?;
            }
            K::DeclareCursor(_)
            | K::Open(_)
            | K::Fetch(_)
            | K::Close(_)
            | K::Deallocate(_)
            | K::SetCursorVariable { .. } => return Err(SqlError::unsupported("cursors")),
            K::CreatePartitionFunction(_) | K::CreatePartitionScheme(_) => {
                return Err(SqlError::unsupported("partitioning"))
            }
            K::Unsupported { keyword, text }
                if matches!(keyword.as_str(), "ENABLE" | "DISABLE")
                    && self.autocommit(|me| me.enable_disable_trigger(keyword, text))? => {}
            K::Unsupported { keyword, text } if keyword == "KILL" => {
                self.kill_statement(text, sink)?
            }
            K::Unsupported { keyword, text } if keyword == "RECONFIGURE" => {
                crate::config::reconfigure(&self.engine, text, self.trancount)?
            }
            K::Security { stmt, .. } => {
                self.autocommit(|me| me.exec_security(stmt))?;
                self.error = 0;
            }
            K::Unsupported { keyword, .. } => return Err(SqlError::unsupported(keyword)),
        }
        Ok(Flow::Normal)
    }

    /// Runs `f` as one statement: in autocommit mode its txns commit on success and abort on
    /// failure (session T2).
    pub(crate) fn autocommit<T>(
        &mut self,
        f: impl FnOnce(&mut Session) -> SqlResult<T>,
    ) -> SqlResult<T> {
        if self.doomed {
            return Err(SqlError::new(3930, &[]));
        }
        // lock escalation counts one statement's row locks (locks/manager.rs)
        self.engine.locks.statement_started(self.lock_owner);
        let sp = if self.trancount > 0 {
            // Statement atomicity inside an explicit transaction: roll back only the statement.
            Some(self.mark())
        } else {
            None
        };
        // READ_COMMITTED_SNAPSHOT: each statement reads its own snapshot (a nested one, in a
        // function, its own too; the outer one's comes back after it)
        let outer_snapshot = self.versions.stmt_snapshot.take();
        let r = f(self);
        self.versions.stmt_snapshot = outer_snapshot;
        match (&r, sp) {
            (Ok(_), _) => self.end_statement(true)?,
            (Err(_), None) => self.end_statement(false)?,
            (Err(e), Some(_)) if matches!(e.number, 1205 | 3960 | 3961 | 3964) => {
                // the deadlock victim's whole transaction is rolled back, so the other
                // transactions in the cycle get its locks
                self.trancount = 0;
                self.abort_all()?;
            }
            (Err(_), Some(marks)) => {
                if self.options.xact_abort && self.try_depth > 0 {
                    // Inside TRY the transaction becomes uncommittable (XACT_STATE() = -1);
                    // the CATCH block must roll it back.
                    self.rollback_to_mark(&marks)?;
                    self.doomed = true;
                } else if self.options.xact_abort {
                    self.trancount = 0;
                    self.abort_all()?;
                } else {
                    self.rollback_to_mark(&marks)?;
                }
            }
        }
        r
    }

    /// Resolves a declared type name (system or user-defined alias type).
    pub(crate) fn resolve_type_name(&self, t: &ast::DataTypeName) -> SqlResult<DataType> {
        let params: Vec<types::TypeParam> = t
            .params
            .iter()
            .map(|p| match p {
                ast::TypeParam::Number(n) => types::TypeParam::Num(*n as i64),
                ast::TypeParam::Max => types::TypeParam::Max,
            })
            .collect();
        match DataType::from_name(&t.name, &params) {
            Ok(dt) => Ok(dt),
            Err(e) => {
                let schema = t
                    .schema
                    .as_ref()
                    .map(|s| s.value.clone())
                    .unwrap_or_else(|| "dbo".into());
                let h = self.current_db()?;
                let found = self.user_type_committed(&h, &schema, &t.name)?;
                match found.and_then(|u| u.base.clone()) {
                    Some(b) => Ok(b),
                    None => Err(e),
                }
            }
        }
    }

    fn set_option(&mut self, opt: &ast::SetOption) -> SqlResult<()> {
        match opt {
            ast::SetOption::OnOff { options, on } => {
                let null_semantics = (
                    self.options.ansi_nulls,
                    self.options.concat_null_yields_null,
                );
                for o in options {
                    let on = *on;
                    match o.as_str() {
                        "NOCOUNT" => self.options.nocount = on,
                        // inside a module the setting recorded at its CREATE stays in force:
                        // SQL Server ignores SET ANSI_NULLS in a procedure, function or trigger
                        "ANSI_NULLS" if !self.modules.is_empty() => {}
                        "ANSI_NULLS" => self.options.ansi_nulls = on,
                        "ANSI_PADDING" => self.options.ansi_padding = on,
                        "ANSI_WARNINGS" => self.options.ansi_warnings = on,
                        "ANSI_NULL_DFLT_ON" => self.options.ansi_null_dflt_on = on,
                        "ANSI_NULL_DFLT_OFF" => self.options.ansi_null_dflt_on = !on,
                        "CONCAT_NULL_YIELDS_NULL" => self.options.concat_null_yields_null = on,
                        "QUOTED_IDENTIFIER" => self.options.quoted_identifier = on,
                        "ARITHABORT" => self.options.arithabort = on,
                        "XACT_ABORT" => self.options.xact_abort = on,
                        "STATISTICS IO" => {
                            self.options.statistics_io = on;
                            // this thread's per-object counters (server.rs statistics_io_lines)
                            storage::objio::set_thread_collect(on);
                        }
                        "STATISTICS TIME" => self.options.statistics_time = on,
                        "IMPLICIT_TRANSACTIONS" => self.options.implicit_transactions = on,
                        "CURSOR_CLOSE_ON_COMMIT" => self.options.cursor_close_on_commit = on,
                        "ANSI_DEFAULTS" => {
                            self.options.ansi_nulls = on;
                            self.options.ansi_padding = on;
                            self.options.ansi_warnings = on;
                            self.options.ansi_null_dflt_on = on;
                            self.options.quoted_identifier = on;
                            // SET ANSI_DEFAULTS' list also holds these two (SQL Server docs)
                            self.options.implicit_transactions = on;
                            self.options.cursor_close_on_commit = on;
                        }
                        other => crate::noops::check_set_on_off(other, on)?,
                    }
                    self.options.flags.insert(o.clone(), on);
                }
                // The binder lowers `= NULL` and string `+` by these two: expressions and plans
                // cached in running programs (a WHILE body, a procedure) must be re-bound.
                if null_semantics
                    != (
                        self.options.ansi_nulls,
                        self.options.concat_null_yields_null,
                    )
                {
                    self.schema_view.invalidate();
                }
            }
            ast::SetOption::IdentityInsert { table, on } => {
                let q = crate::ddl::qualified(table);
                let Some((h, obj)) = self.find_object(&q)? else {
                    return Err(SqlError::invalid_object(&q.display()));
                };
                let catalog::SchemaObject::Table(t) = obj else {
                    return Err(SqlError::custom(
                        8105,
                        16,
                        1,
                        format!(
                            "'{}' is not a user table. Cannot perform SET operation.",
                            q.display()
                        ),
                    ));
                };
                if t.identity().is_none() {
                    return Err(SqlError::custom(
                        8106,
                        16,
                        1,
                        format!(
                            "Table '{}' does not have the identity property. Cannot perform SET operation.",
                            q.display()
                        ),
                    ));
                }
                // The binder reads IDENTITY_INSERT: cached INSERT plans must be re-bound.
                self.schema_view.invalidate();
                self.options.identity_insert = if *on {
                    Some((h.def.name.clone(), t.object_id))
                } else {
                    None
                };
            }
            ast::SetOption::TransactionIsolation(l) => {
                // the level is part of the plan cache key (plan_cache.rs); how a plan reads
                // (locks, versions) is chosen when it runs, so running programs keep theirs
                self.options.isolation = crate::locks::IsolationLevel::from_ast(l);
            }
            ast::SetOption::Value { option, value } => {
                let word = match value {
                    ast::Expr::Column(n) => Value::VarChar(n.name_str().to_string()),
                    e => self.eval(e)?,
                };
                let num = || value_to_i64(&word);
                match option.as_str() {
                    "ROWCOUNT" => self.options.rowcount = num()?,
                    "DATEFIRST" => self.options.datefirst = num()? as i32,
                    "LOCK_TIMEOUT" => self.options.lock_timeout = num()?,
                    "DEADLOCK_PRIORITY" => {
                        self.options.deadlock_priority = crate::locks::parse_deadlock_priority(
                            &crate::render::value_text(&word, &DataType::VarChar(None))
                                .unwrap_or_default(),
                        )?
                    }
                    "TEXTSIZE" => self.options.textsize = num()?,
                    "DATEFORMAT" => {
                        self.options.dateformat =
                            crate::render::value_text(&word, &DataType::VarChar(None))
                                .unwrap_or_default()
                                .to_lowercase()
                    }
                    "LANGUAGE" => {
                        self.options.language =
                            crate::render::value_text(&word, &DataType::VarChar(None))
                                .unwrap_or_default()
                    }
                    other => crate::noops::check_set_value(
                        other,
                        &crate::render::value_text(&word, &DataType::VarChar(None))
                            .unwrap_or_default(),
                    )?,
                }
            }
        }
        Ok(())
    }

    fn raiserror(&mut self, r: &ast::RaisError, sink: &mut dyn EventSink) -> SqlResult<()> {
        let msg = self.eval(&r.message)?;
        let severity = value_to_i64(&self.eval(&r.severity)?)?.clamp(0, 25) as u8;
        let state = value_to_i64(&self.eval(&r.state)?)?.clamp(0, 255) as u8;
        let mut args = Vec::new();
        for a in &r.args {
            args.push(self.eval(a)?);
        }
        let (number, template) = match &msg {
            Value::Int(_) | Value::BigInt(_) | Value::SmallInt(_) | Value::TinyInt(_) => {
                let n = value_to_i64(&msg)? as i32;
                return Err(SqlError::custom(
                    18054,
                    16,
                    1,
                    format!("Error {n}, severity {severity}, state {state} was raised, but no message with that error number was found in sys.messages. If error is larger than 50000, make sure the user-defined message is added using sp_addmessage."),
                ));
            }
            v => (
                50000,
                crate::render::value_text(v, &DataType::VarChar(None)).unwrap_or_default(),
            ),
        };
        let text = types::functions::format_message(&template, &args)?;
        if severity <= 10 {
            sink.message(&InfoMessage {
                text,
                number,
                severity,
                state,
            });
            self.error = 0;
            return Ok(());
        }
        Err(SqlError::custom(number, severity, state, text))
    }

    fn throw(&mut self, args: Option<&(ast::Expr, ast::Expr, ast::Expr)>) -> SqlResult<SqlError> {
        let mut e = match args {
            None => match self.caught.last() {
                Some(c) => c.error.clone(),
                None => {
                    return Ok(SqlError::custom(
                        10704,
                        15,
                        1,
                        "To rethrow an error, a THROW statement must be used inside a CATCH block. Insert a semicolon at the end of the statement that precedes THROW.",
                    ))
                }
            },
            Some((n, m, s)) => {
                let n = value_to_i64(&self.eval(n)?)? as i32;
                let m = crate::render::value_text(&self.eval(m)?, &DataType::NVarChar(None)).unwrap_or_default();
                let s = value_to_i64(&self.eval(s)?)?.clamp(0, 255) as u8;
                if n < 50000 {
                    return Ok(SqlError::custom(
                        35100,
                        16,
                        10,
                        "Error number  in the THROW statement is outside the valid range. Specify an error number in the valid range of 50000 to 2147483647.".replace("number  in", &format!("number {n} in")),
                    ));
                }
                SqlError::custom(n, 16, s, m)
            }
        };
        e.procedure = THROW_MARK.into();
        Ok(e)
    }

    fn dbcc(&mut self, d: &ast::Dbcc, line: u32, sink: &mut dyn EventSink) -> SqlResult<()> {
        if crate::repair::is_repair(d) {
            return crate::repair::checkdb_repair(self, d, sink);
        }
        if matches!(d.command.as_str(), "CHECKDB" | "CHECKTABLE" | "CHECKALLOC") {
            return self.dbcc_check(d, line, sink);
        }
        let h = self.current_db()?;
        match d.command.as_str() {
            "DROPCLEANBUFFERS" => h.store.drop_clean_buffers()?,
            "FREEPROCCACHE" | "FREESYSTEMCACHE" | "FREESESSIONCACHE" => {
                // This session's caches (plan_cache.rs) and the engine's registry of every
                // session's plans (plan_stats.rs; `DBCC FREEPROCCACHE (plan_handle)` removes
                // one); moving master's generation, which every session depends on, makes the
                // other sessions recompile too (schema_gen.rs).
                // Entries of running modules are re-created when they finish.
                let handle = match (d.command.as_str(), d.args.first()) {
                    ("FREEPROCCACHE", Some(a)) => match self.eval(a)? {
                        Value::VarBinary(b) | Value::Binary(b) => Some(b),
                        _ => None,
                    },
                    _ => None,
                };
                self.engine().plans.remove(handle.as_deref());
                if let Some(m) = self.engine().database("master") {
                    m.generation.bump();
                }
                self.schema_view.invalidate();
                self.plan_cache.clear();
                self.proc_cache.clear();
            }
            "TRACEON" | "TRACEOFF" | "SETCPUWEIGHT" | "SETIOWEIGHT" => {
                crate::query_hints::check_dbcc_trace(d)?
            }
            "CHECKIDENT" => return self.checkident(d, sink),
            "SHOW_STATISTICS" => return self.show_statistics(d, sink),
            "SQLPERF" => crate::sysfuncs::dbcc_sqlperf(&d.args)?,
            "USEROPTIONS" => {
                let col = |n: &str| crate::events::OutColumn {
                    name: n.into(),
                    data_type: DataType::NVarChar(Some(128)),
                };
                let rows = crate::locks::user_options(&self.options);
                sink.result_start(&[col("Set Option"), col("Value")]);
                for (k, v) in &rows {
                    sink.row(&[Value::NVarChar(k.to_string()), Value::NVarChar(v.clone())]);
                }
                sink.result_end(rows.len() as u64, false, !self.options.nocount);
            }
            other => return Err(SqlError::unsupported(format!("DBCC {other}"))),
        }
        if !d.options.iter().any(|o| o == "NO_INFOMSGS") {
            sink.message(&InfoMessage {
                text: "DBCC execution completed. If DBCC printed error messages, contact your system administrator.".into(),
                number: 2528,
                severity: 10,
                state: 1,
            });
        }
        Ok(())
    }

    fn checkident(&mut self, d: &ast::Dbcc, sink: &mut dyn EventSink) -> SqlResult<()> {
        let Some(first) = d.args.first() else {
            return Err(SqlError::unsupported("DBCC CHECKIDENT without table"));
        };
        let name = match first {
            ast::Expr::Column(n) => crate::ddl::qualified(n),
            e => {
                let v = self.eval(e)?;
                let text =
                    crate::render::value_text(&v, &DataType::VarChar(None)).unwrap_or_default();
                crate::ddl::qualified_from_text(&text)
            }
        };
        let Some((h, catalog::SchemaObject::Table(t))) = self.find_object(&name)? else {
            return Err(SqlError::custom(
                2501,
                16,
                45,
                format!(
                    "Cannot find a table or object with the name \"{}\". Check the system catalog.",
                    name.display()
                ),
            ));
        };
        let Some((_, spec)) = t.identity() else {
            return Err(SqlError::custom(
                7997,
                16,
                1,
                format!("'{}' does not contain an identity column.", t.name),
            ));
        };
        let reseed = matches!(d.args.get(1), Some(ast::Expr::Column(w)) if w.name_str().eq_ignore_ascii_case("RESEED"));
        let tree = h.store.catalog_btree()?;
        let current = h.cat.read().identity.get(&t.object_id).copied();
        if reseed {
            let v = match d.args.get(2) {
                Some(e) => value_to_i64(&self.eval(e)?)? as i128,
                None => current.unwrap_or(spec.seed as i128),
            };
            let db = h.def.name.clone();
            self.autocommit(|me| {
                let txn = me.txn_for(&db)?;
                h.cat.write().set_identity(&tree, txn, t.object_id, v)?;
                Ok(())
            })?;
        }
        let shown = current
            .map(|c| c.to_string())
            .unwrap_or_else(|| "NULL".into());
        sink.message(&InfoMessage {
            text: format!("Checking identity information: current identity value '{shown}'."),
            number: 7998,
            severity: 10,
            state: 1,
        });
        Ok(())
    }

    /// EXEC of a procedure or of dynamic SQL.
    pub(crate) fn exec_exec(
        &mut self,
        ex: &ast::Exec,
        sink: &mut dyn EventSink,
    ) -> SqlResult<Option<i32>> {
        match ex {
            ast::Exec::Sql { sql, .. } => {
                let v = self.eval(sql)?;
                let text =
                    crate::render::value_text(&v, &DataType::NVarChar(None)).unwrap_or_default();
                self.run_dynamic(&text, Vec::new(), sink)?;
                Ok(None)
            }
            ast::Exec::Module {
                return_status,
                module,
                args,
                ..
            } => {
                let name = match module {
                    ast::ExecModule::Name(n) => crate::ddl::qualified(n),
                    ast::ExecModule::Variable(v) => {
                        let val = self.eval(&ast::Expr::Variable(v.clone()))?;
                        crate::ddl::qualified_from_text(
                            &crate::render::value_text(&val, &DataType::NVarChar(None))
                                .unwrap_or_default(),
                        )
                    }
                };
                let status = self.call_procedure(&name, args, sink)?;
                if let Some(rs) = return_status {
                    self.assign_var(rs, Value::Int(status))?;
                }
                Ok(Some(status))
            }
        }
    }

    pub(crate) fn sp_executesql(
        &mut self,
        args: &[ast::ExecArg],
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let Some(first) = args.first() else {
            return Err(SqlError::new(201, &[&"sp_executesql", &"@statement"]));
        };
        let v = self.eval(&first.value)?;
        let text = crate::render::value_text(&v, &DataType::NVarChar(None)).unwrap_or_default();
        let mut params = Vec::new();
        let mut outputs: Vec<(usize, String)> = Vec::new();
        if let Some(decl) = args.get(1) {
            let d = self.eval(&decl.value)?;
            let d = crate::render::value_text(&d, &DataType::NVarChar(None)).unwrap_or_default();
            // Parse "@a int, @b varchar(10) OUTPUT" through a DECLARE statement; an empty
            // declaration list (N'', as tiberius sends with no parameters) declares nothing.
            let decl_text = format!("DECLARE {}", d.replace("OUTPUT", "").replace("output", ""));
            let stmts = if d.trim().is_empty() {
                Vec::new()
            } else {
                parser::parse_batch(&decl_text)?
            };
            let mut declared = Vec::new();
            for s in &stmts {
                if let StatementKind::Declare(items) = &s.kind {
                    for it in items {
                        if let ast::DeclareItem::Scalar {
                            name, data_type, ..
                        } = it
                        {
                            declared.push((name.clone(), self.resolve_type_name(data_type)?));
                        }
                    }
                }
            }
            for (i, (name, t)) in declared.iter().enumerate() {
                let arg = args[2..].iter().enumerate().find(|(j, a)| match &a.name {
                    Some(n) => n.eq_ignore_ascii_case(name),
                    None => *j == i,
                });
                let value = match arg {
                    Some((_, a)) => {
                        if a.output {
                            if let ast::Expr::Variable(v) = &a.value {
                                outputs.push((i, v.clone()));
                            }
                        }
                        convert_value(self.eval(&a.value)?, t)?
                    }
                    None => return Err(SqlError::new(201, &[&"sp_executesql", name])),
                };
                params.push((
                    name.clone(),
                    crate::session::Variable {
                        data_type: t.clone(),
                        value,
                    },
                ));
            }
        }
        let values = self.run_dynamic(&text, params, sink)?;
        for (i, var) in outputs {
            if let Some(v) = values.get(i) {
                self.assign_var(&var, v.clone())?;
            }
        }
        Ok(())
    }
}

/// `@v op= e` as `@v op e`.
pub(crate) fn compound(name: &str, op: ast::AssignOp, value: &ast::Expr) -> ast::Expr {
    let bop = match op {
        ast::AssignOp::Assign | ast::AssignOp::Add => ast::BinaryOp::Add,
        ast::AssignOp::Sub => ast::BinaryOp::Sub,
        ast::AssignOp::Mul => ast::BinaryOp::Mul,
        ast::AssignOp::Div => ast::BinaryOp::Div,
        ast::AssignOp::Mod => ast::BinaryOp::Mod,
        ast::AssignOp::BitAnd => ast::BinaryOp::BitAnd,
        ast::AssignOp::BitOr => ast::BinaryOp::BitOr,
        ast::AssignOp::BitXor => ast::BinaryOp::BitXor,
    };
    ast::Expr::Binary {
        op: bop,
        left: Box::new(ast::Expr::Variable(name.to_string())),
        right: Box::new(ast::Expr::Nested(Box::new(value.clone()))),
    }
}

/// Integer value of a numeric value (RETURN, RAISERROR arguments, SET options).
pub(crate) fn value_to_i64(v: &Value) -> SqlResult<i64> {
    match crate::query::cast_value(v.clone(), &DataType::BigInt)? {
        Value::BigInt(n) => Ok(n),
        Value::Null => Ok(0),
        other => Err(SqlError::internal(format!(
            "expected bigint, got {other:?}"
        ))),
    }
}

/// `hh:mm:ss[.fff]` → seconds.
const TICKS_PER_DAY: i64 = 864_000_000_000;

/// The time of day (100 ns ticks) of a WAITFOR argument: a `datetime`-convertible value without
/// a date ('hh:mm[:ss[.mmm]]'); anything else is Msg 148.
fn waitfor_ticks(v: &Value) -> SqlResult<i64> {
    let text = crate::render::value_text(v, &DataType::VarChar(None)).unwrap_or_default();
    let bad = || SqlError::new(148, &[&text]);
    if v.is_null() {
        return Err(bad());
    }
    match exec::valops::cast(v, &DataType::DateTime) {
        // 693_595 = 1900-01-01 in days since 0001-01-01: a time without a date.
        Ok(Value::DateTime {
            days: 693_595,
            ticks,
        }) => Ok(ticks),
        _ => Err(bad()),
    }
}

/// The server's current time of day in 100 ns ticks, on the clock GETDATE() reads (UTC).
fn server_ticks_of_day() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_nanos() / 100).rem_euclid(TICKS_PER_DAY as u128) as i64
}

#[allow(dead_code)]
fn _assert_send(_: Arc<crate::server::Engine>) {}
