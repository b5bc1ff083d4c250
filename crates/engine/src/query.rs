//! Glue to the query pipeline: bind (plan) → optimize (optimizer) → execute (exec), and the
//! session's implementation of exec's `ExecEnv`.

use std::sync::Arc;

use catalog::{SchemaObject, TableDef};
use common::{SqlError, SqlResult};
use exec::{ExecEnv, ResultColumn, RowSink};
use parser::ast;
use types::{DataType, Value};

use crate::events::{EventSink, InfoMessage, OutColumn};
use crate::session::Session;

/// Converts a value to a type with SQL Server's rules (explicit CAST semantics).
pub(crate) fn cast_value(v: Value, t: &DataType) -> SqlResult<Value> {
    exec::valops::cast(&v, t)
}

/// Streams exec's result rows into the event sink.
/// With `defer`, the column metadata is held back until the first row (or the successful end):
/// a table-less SELECT (`SELECT 1/0`) that fails sends only its error, as SQL Server does when
/// it folds constants at compile time; a query over tables sends its metadata first.
struct SinkAdapter<'a> {
    sink: &'a mut dyn EventSink,
    started: bool,
    defer: bool,
    pending: Option<Vec<OutColumn>>,
    rows: u64,
}

impl SinkAdapter<'_> {
    fn flush_columns(&mut self) {
        if let Some(cols) = self.pending.take() {
            self.sink.result_start(&cols);
            self.started = true;
        }
    }
}

/// Whether a statement is a SELECT without any table (see [`SinkAdapter`]).
pub(crate) fn defer_metadata(s: &ast::Statement) -> bool {
    matches!(&s.kind, ast::StatementKind::Select(q)
        if matches!(&q.body, ast::QueryBody::Select(sel) if sel.from.is_empty()))
}

impl RowSink for SinkAdapter<'_> {
    fn columns(&mut self, cols: &[ResultColumn]) -> SqlResult<()> {
        let out: Vec<OutColumn> = cols
            .iter()
            .map(|c| OutColumn {
                name: c.name.clone(),
                data_type: c.data_type.clone(),
            })
            .collect();
        self.pending = Some(out);
        if !self.defer {
            self.flush_columns();
        }
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> SqlResult<()> {
        self.flush_columns();
        self.sink.row(row);
        self.rows += 1;
        Ok(())
    }
}

impl Session {
    /// Evaluates a standalone expression (SET, IF, PRINT, DECLARE initialisers, arguments).
    pub(crate) fn eval(&mut self, e: &ast::Expr) -> SqlResult<Value> {
        // Fast paths that need no binding.
        match e {
            ast::Expr::Literal(ast::Literal::Null) => return Ok(Value::Null),
            ast::Expr::Variable(n) => {
                return match self.var(n) {
                    Some(v) => Ok(v.value.clone()),
                    None => Err(SqlError::new(137, &[n])),
                }
            }
            ast::Expr::Nested(inner) => return self.eval(inner),
            _ => {}
        }
        let bound = plan::bind_scalar(e, self)?;
        let bound = optimizer::optimize_scalar(bound, self)?;
        exec::eval_scalar(&bound, self)
    }

    /// Runs SELECT / INSERT / UPDATE / DELETE / MERGE through the query pipeline, emitting the
    /// result set or the row count.
    pub(crate) fn run_query_statement(
        &mut self,
        s: &ast::Statement,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        if matches!(s.kind, ast::StatementKind::Merge(_)) {
            return self.run_merge(s, sink);
        }
        if self.run_instead_of(s, sink)? {
            return Ok(());
        }
        let (physical, is_dml) = self.plan_statement(s)?;
        // kept aside while it runs (triggers and subqueries plan statements of their own)
        let search = self.last_search.take();
        self.with_grant(s, |me| {
            me.execute_plan(&physical, is_dml, defer_metadata(s), sink)
        })?;
        self.last_search = search;
        self.after_statement_plan(s, &physical, sink);
        Ok(())
    }

    /// STATISTICS XML / PROFILE: the actual plan of the statement that just ran (showplan.rs).
    pub(crate) fn after_statement_plan(
        &mut self,
        s: &ast::Statement,
        physical: &plan::PhysicalPlan,
        sink: &mut dyn EventSink,
    ) {
        if self.actual_plan_on() {
            let actuals = std::mem::take(&mut self.last_actuals);
            self.emit_actual_plans(s, physical, &actuals, sink);
        }
    }

    /// Runs `f` with the operator memory budget scaled by the statement's
    /// `OPTION (MAX_GRANT_PERCENT = p)` (p percent of the configured budget).
    pub(crate) fn with_grant<T>(
        &mut self,
        s: &ast::Statement,
        f: impl FnOnce(&mut Self) -> SqlResult<T>,
    ) -> SqlResult<T> {
        let options = crate::query_hints::statement_hints(s);
        let max = options.iter().find_map(|h| match *h {
            ast::QueryHint::MaxGrantPercent(p) => Some(p),
            _ => None,
        });
        let min = options.iter().find_map(|h| match *h {
            ast::QueryHint::MinGrantPercent(p) => Some(p),
            _ => None,
        });
        // Without MAX_GRANT_PERCENT the grant is the whole budget, which satisfies any minimum;
        // with both, the minimum wins over a smaller maximum (a guaranteed floor).
        let Some(p) = max.map(|m| m.max(min.unwrap_or(0.0))) else {
            return f(self);
        };
        let prev = self.grant_percent.replace(p);
        let r = f(self);
        self.grant_percent = prev;
        r
    }

    /// MERGE: bound into its own plan shape (`plan::MergePlan`: the source/target join and the
    /// per-clause actions), each input and expression optimized, then run as one DML statement.
    pub(crate) fn run_merge(
        &mut self,
        s: &ast::Statement,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        if self.options.rowcount > 0 {
            // not limited by rowcount.rs: refused rather than run unlimited
            return Err(SqlError::unsupported("SET ROWCOUNT with MERGE"));
        }
        if self.actual_plan_on() {
            // MERGE's plan shape (plan::MergePlan) has no showplan yet: refused, not run
            // without the plan that was asked for
            return Err(SqlError::unsupported(
                "SET STATISTICS XML / PROFILE with MERGE",
            ));
        }
        let options =
            crate::query_hints::optimizer_options(crate::query_hints::statement_hints(s))?;
        let bound = plan::bind_merge(s, &*self)?;
        self.check_merge_output_triggers(&bound.table, bound.output.as_ref())?;
        let physical = bound.try_map(
            &mut |op: plan::LogicalOp| {
                let columns = op.columns();
                let select = plan::Statement::Select {
                    input: op,
                    columns,
                    assign: None,
                };
                match optimizer::optimize_with(select, &*self, &options)? {
                    plan::Statement::Select { input, .. } => Ok(input),
                    _ => Err(SqlError::internal("optimizer changed a MERGE input's kind")),
                }
            },
            &mut |e| optimizer::optimize_scalar(e, &*self),
        )?;
        self.execute_with(true, defer_metadata(s), sink, |me, adapter| {
            exec::execute_merge(&physical, me, adapter)
        })
    }

    /// Binds and optimizes a query / DML statement; the flag tells whether it is DML.
    pub(crate) fn plan_statement(
        &mut self,
        s: &ast::Statement,
    ) -> SqlResult<(plan::PhysicalPlan, bool)> {
        let mut options =
            crate::query_hints::optimizer_options(crate::query_hints::statement_hints(s))?;
        crate::query_hints::apply_parallelism(
            &mut options,
            crate::query_hints::statement_hints(s),
            self.engine.settings(),
            crate::scoped_config::plan_settings(&*self.current_db()?),
            self.engine.run_config(),
        );
        let bound = plan::bind_statement(s, self)?;
        let is_dml = !matches!(bound, plan::Statement::Select { .. });
        let record_memo = self.showplan_memo_on();
        let (plan, search) = optimizer::optimize_searched(bound, self, &options, record_memo)?;
        self.last_search = Some(search);
        Ok((plan, is_dml))
    }

    /// Executes a physical plan, emitting its result set or row count.
    pub(crate) fn execute_plan(
        &mut self,
        physical: &plan::PhysicalPlan,
        is_dml: bool,
        defer: bool,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        if is_dml {
            self.check_output_triggers(physical)?;
        }
        let limited = match self.options.rowcount {
            n if n > 0 => crate::rowcount::limit_rows(physical, n),
            _ => None,
        };
        let physical = limited.as_ref().unwrap_or(physical);
        self.execute_with(is_dml, defer, sink, |me, adapter| {
            exec::execute(physical, me, adapter)
        })
    }

    /// Runs `run` against a sink adapter and reports its result set, messages and row count.
    fn execute_with(
        &mut self,
        is_dml: bool,
        defer: bool,
        sink: &mut dyn EventSink,
        run: impl FnOnce(&mut Self, &mut SinkAdapter) -> SqlResult<exec::ExecSummary>,
    ) -> SqlResult<()> {
        let mut adapter = SinkAdapter {
            sink,
            started: false,
            defer,
            pending: None,
            rows: 0,
        };
        let r = run(self, &mut adapter);
        let show = !self.options.nocount;
        match r {
            Ok(mut summary) => {
                self.last_actuals = std::mem::take(&mut summary.actuals);
                self.spilled_pages += summary.spills.bytes.div_ceil(8192);
                adapter.flush_columns();
                let (started, rows) = (adapter.started, adapter.rows);
                if started {
                    // DML with OUTPUT: its one count is the statement's row count below
                    // (sqlcmd prints "(N rows affected)" once, not for the OUTPUT rows too).
                    adapter.sink.result_end(rows, false, show && !is_dml);
                }
                for m in &summary.messages {
                    adapter.sink.message(&InfoMessage {
                        text: m.message.clone(),
                        number: m.number,
                        severity: m.severity,
                        state: m.state,
                    });
                }
                let n = summary.rows_affected.unwrap_or(rows);
                self.rowcount = n as i64;
                if let Some(d) = self.trig.deferred.as_mut() {
                    // INSERT ... EXEC inserts row by row; its triggers fire once at the end.
                    crate::trigger::merge_changes(d, summary.changes);
                } else if !summary.changes.is_empty() {
                    // AFTER triggers run inside the statement, before its row count.
                    self.fire_after_triggers(summary.changes, n, adapter.sink)?;
                    self.rowcount = n as i64;
                }
                if is_dml && show {
                    if started {
                        adapter.sink.output_row_count(n);
                    } else {
                        adapter.sink.row_count(n);
                    }
                }
                Ok(())
            }
            Err(e) => {
                if adapter.started {
                    let rows = adapter.rows;
                    adapter.sink.result_end(rows, true, false);
                }
                self.rowcount = 0;
                Err(e)
            }
        }
    }

    /// TRUNCATE TABLE.
    pub(crate) fn truncate_table(&mut self, name: &ast::ObjectName) -> SqlResult<()> {
        let q = crate::ddl::qualified(name);
        let Some((h, obj)) = self.find_object(&q)? else {
            return Err(SqlError::new(4701, &[&q.display()]));
        };
        let SchemaObject::Table(t) = obj else {
            return Err(SqlError::new(4701, &[&q.display()]));
        };
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        for ix in &t.indexes {
            h.store
                .truncate_object(txn, storage::ObjId(ix.storage_id))?;
        }
        if let catalog::TableStorage::Heap(id) = t.storage {
            h.store.truncate_object(txn, storage::ObjId(id))?;
        }
        if t.identity().is_some() {
            h.cat.write().reset_identity(&tree, txn, t.object_id)?;
            self.touch_catalog(&db)?;
        }
        Ok(())
    }

    /// Value of a session-level function or system variable (upper-case name, with `@@` for
    /// system variables).
    pub(crate) fn session_function(
        &mut self,
        name: &str,
        args: &[Value],
    ) -> SqlResult<Option<Value>> {
        let text = |v: &Value| crate::render::value_text(v, &DataType::NVarChar(None));
        let n = name.trim_start_matches("@@");
        Ok(Some(match n {
            "ROWCOUNT" => Value::Int(self.rowcount.clamp(i32::MIN as i64, i32::MAX as i64) as i32),
            "ROWCOUNT_BIG" => Value::BigInt(self.rowcount),
            "SPID" => Value::SmallInt(self.spid as i16),
            "TRANCOUNT" => Value::Int(self.trancount as i32),
            "ERROR" => Value::Int(self.error),
            "NESTLEVEL" => Value::Int(self.modules.len() as i32),
            "IDENTITY" => self.last_identity.clone().unwrap_or(Value::Null),
            "SCOPE_IDENTITY" => self.scope_identity.clone().unwrap_or(Value::Null),
            "VERSION" => Value::NVarChar(crate::VERSION_STRING.to_string()),
            "SERVERNAME" => Value::NVarChar("latchkey".into()),
            "SERVICENAME" => Value::NVarChar("MSSQLSERVER".into()),
            "LANGUAGE" => Value::NVarChar(self.options.language.clone()),
            "DATEFIRST" => Value::TinyInt(self.options.datefirst as u8),
            "LOCK_TIMEOUT" => Value::Int(self.options.lock_timeout as i32),
            "TEXTSIZE" => Value::Int(self.options.textsize as i32),
            "MAX_PRECISION" => Value::TinyInt(38),
            "FETCH_STATUS" => Value::Int(-1),
            "PROCID" => Value::Int(0),
            "OPTIONS" => Value::Int(self.options_bits()),
            "XACT_STATE" => Value::SmallInt(if self.trancount == 0 {
                0
            } else if self.doomed {
                -1
            } else {
                1
            }),
            "ERROR_NUMBER" => match self.caught.last() {
                Some(c) => Value::Int(c.error.number),
                None => Value::Null,
            },
            "ERROR_MESSAGE" => match self.caught.last() {
                Some(c) => Value::NVarChar(c.error.message.clone()),
                None => Value::Null,
            },
            "ERROR_SEVERITY" => match self.caught.last() {
                Some(c) => Value::Int(c.error.severity as i32),
                None => Value::Null,
            },
            "ERROR_STATE" => match self.caught.last() {
                Some(c) => Value::Int(c.error.state as i32),
                None => Value::Null,
            },
            "ERROR_LINE" => match self.caught.last() {
                Some(c) => Value::Int(c.error.line as i32),
                None => Value::Null,
            },
            "ERROR_PROCEDURE" => match self.caught.last() {
                Some(c) if !c.error.procedure.is_empty() => {
                    Value::NVarChar(c.error.procedure.clone())
                }
                _ => Value::Null,
            },
            "SERVERPROPERTY" => crate::sysprocs::server_property(self, args.first()),
            "DB_NAME" => match args.first() {
                None => Value::NVarChar(self.database.clone()),
                Some(Value::Null) => Value::Null,
                Some(v) => {
                    let id = crate::interp::value_to_i64(v)? as i32;
                    match self.engine.database_by_id(id) {
                        Some(h) => Value::NVarChar(h.def.name.clone()),
                        None => Value::Null,
                    }
                }
            },
            "DB_ID" => match args.first() {
                None => Value::SmallInt(self.current_db()?.def.database_id as i16),
                Some(v) => match text(v).and_then(|n| catalog::Catalog::database_id(self, &n)) {
                    Some(id) => Value::SmallInt(id as i16),
                    None => Value::Null,
                },
            },
            "OBJECT_ID" => {
                let Some(name) = args.first().and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                let kind = args.get(1).and_then(text).map(|k| k.trim().to_uppercase());
                let q = crate::ddl::qualified_from_text(&name);
                match self.find_object(&q)? {
                    Some((_, o)) if kind.as_deref().is_none_or(|k| k == o.type_code()) => {
                        Value::Int(o.object_id())
                    }
                    // an external table is a user table ('U') to OBJECT_ID (external.rs)
                    None if kind.as_deref().is_none_or(|k| k == "U") => {
                        self.external_table_id(&q).map_or(Value::Null, Value::Int)
                    }
                    _ => Value::Null,
                }
            }
            "OBJECT_NAME" => {
                let Some(id) = args.first() else {
                    return Ok(Some(Value::Null));
                };
                if id.is_null() {
                    return Ok(Some(Value::Null));
                }
                let id = crate::interp::value_to_i64(id)? as i32;
                let db = match args.get(1) {
                    Some(v) if !v.is_null() => Some(crate::interp::value_to_i64(v)? as i32),
                    _ => None,
                };
                match catalog::Catalog::object_name(self, id, db) {
                    Some(n) => Value::NVarChar(n),
                    None => Value::Null,
                }
            }
            "SCHEMA_NAME" => match args.first() {
                None => Value::NVarChar("dbo".into()),
                Some(v) if v.is_null() => Value::Null,
                Some(v) => {
                    let id = crate::interp::value_to_i64(v)? as i32;
                    match catalog::Catalog::schema_name(self, id) {
                        Some(n) => Value::NVarChar(n),
                        None => Value::Null,
                    }
                }
            },
            "SCHEMA_ID" => match args.first() {
                None => Value::Int(1),
                Some(v) => match text(v).and_then(|n| catalog::Catalog::schema_id(self, &n)) {
                    Some(id) => Value::Int(id),
                    None => Value::Null,
                },
            },
            "SUSER_NAME" | "SUSER_SNAME" | "ORIGINAL_LOGIN" | "SYSTEM_USER" => {
                Value::NVarChar(self.login.clone())
            }
            "HOST_NAME" => Value::NVarChar("localhost".into()),
            "APP_NAME" => Value::NVarChar("latchkey".into()),
            // `NEXT VALUE FOR seq`: the binder passes the sequence name as text.
            "NEXT VALUE FOR" | "NEXT_VALUE_FOR" => {
                let Some(name) = args.first().and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                let q = crate::ddl::qualified_from_text(&name);
                match self.find_object(&q)? {
                    Some((h, SchemaObject::Sequence(s))) => crate::sequence::next_value(&h, &s)?,
                    _ => return Err(SqlError::invalid_object(&q.display())),
                }
            }
            "IDENT_CURRENT" => {
                let Some(name) = args.first().and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                let q = crate::ddl::qualified_from_text(&name);
                match self.find_object(&q)? {
                    Some((h, SchemaObject::Table(t))) => match t.identity() {
                        Some((_, spec)) => {
                            let cur = h.cat.read().identity.get(&t.object_id).copied();
                            Value::Decimal {
                                mantissa: cur.unwrap_or(spec.seed as i128),
                                scale: 0,
                            }
                        }
                        None => Value::Null,
                    },
                    _ => Value::Null,
                }
            }
            "OBJECT_DEFINITION" => {
                let Some(id) = args.first().filter(|v| !v.is_null()) else {
                    return Ok(Some(Value::Null));
                };
                let id = crate::interp::value_to_i64(id)? as i32;
                let h = self.current_db()?;
                let cat = h.cat.read();
                match cat.objects.get(&id) {
                    Some(SchemaObject::Module(m)) => Value::NVarChar(m.text.clone()),
                    Some(SchemaObject::View(v)) => Value::NVarChar(v.text.clone()),
                    _ => Value::Null,
                }
            }
            _ => {
                if let Some(v) = self.system_function(n, args)? {
                    return Ok(Some(v));
                }
                // A scalar user-defined function (the binder passes its name as written).
                let q = crate::ddl::qualified_from_text(name);
                return match self.find_object(&q)? {
                    Some((h, SchemaObject::Module(m)))
                        if m.kind == catalog::ModuleKind::ScalarFunction =>
                    {
                        self.call_scalar_function(&h, &m, args).map(Some)
                    }
                    _ => Ok(None),
                };
            }
        }))
    }

    fn options_bits(&self) -> i32 {
        let o = &self.options;
        let mut bits = 0;
        if o.implicit_transactions {
            bits |= 2;
        }
        if o.cursor_close_on_commit {
            bits |= 4;
        }
        if o.ansi_warnings {
            bits |= 8;
        }
        if o.ansi_padding {
            bits |= 16;
        }
        if o.ansi_nulls {
            bits |= 32;
        }
        if o.arithabort {
            bits |= 64;
        }
        if o.quoted_identifier {
            bits |= 256;
        }
        if o.nocount {
            bits |= 512;
        }
        if o.ansi_null_dflt_on {
            bits |= 1024;
        }
        if o.concat_null_yields_null {
            bits |= 4096;
        }
        if o.xact_abort {
            bits |= 16384;
        }
        bits
    }
}

impl plan::BindEnv for Session {
    fn variable_slot(&self, name: &str) -> Option<(usize, DataType)> {
        // The running frame: a statement binds and runs in the frame of its batch or module
        // (compile.rs gives each program its own, slots in textual order).
        let f = self.frames.last()?;
        let slot = f.slot(name)?;
        if !f.in_scope(slot) {
            return None; // declared later in the batch: Msg 137, as in SQL Server
        }
        Some((slot, f.vars.get(slot)?.data_type.clone()))
    }

    fn external_table(&self, name: &ast::ObjectName) -> Option<(String, Vec<(String, DataType)>)> {
        let t = Session::external_table(self, name)?;
        let cols = t
            .columns
            .into_iter()
            .map(|c| (c.name, c.data_type))
            .collect();
        Some((t.path.to_string_lossy().into_owned(), cols))
    }

    fn identity_insert(&self, object_id: i32) -> bool {
        self.options
            .identity_insert
            .as_ref()
            .is_some_and(|(_, id)| *id == object_id)
    }

    fn ansi_nulls(&self) -> bool {
        self.options.ansi_nulls
    }

    fn concat_null_yields_null(&self) -> bool {
        self.options.concat_null_yields_null
    }
}

impl ExecEnv for Session {
    fn table_locker(
        &mut self,
        table: &TableDef,
        hints: &[String],
        access: exec::locking::TableAccess,
    ) -> SqlResult<Option<Box<dyn exec::locking::TableLocker>>> {
        // tempdb's tables are the session's own (#temp, table variables) or global temporary
        // tables: not locked (README "Locks")
        if table.is_temp || catalog::name_eq(&table.database, "tempdb") {
            return Ok(None);
        }
        let h = self.db(&table.database)?;
        let locker = self.versioned_locker(&h, table, hints, access, |me, level| {
            crate::locks::table_locker(
                &me.engine.locks,
                me.lock_request(),
                level,
                h.def.database_id,
                table,
                hints,
                access,
            )
        })?;
        // The plan was bound before the object lock was granted: a DDL of another session
        // (holding Sch-M) may have dropped or rebuilt the table meanwhile. Its storage is
        // then not the plan's; the statement fails rather than read freed pages.
        let same = match h.cat.read().objects.get(&table.object_id) {
            Some(SchemaObject::Table(now)) => {
                now.storage == table.storage
                    && now.indexes.len() == table.indexes.len()
                    && now
                        .indexes
                        .iter()
                        .zip(&table.indexes)
                        .all(|(a, b)| a.storage_id == b.storage_id)
            }
            _ => false,
        };
        if !same {
            return Err(SqlError::invalid_object(&format!(
                "{}.{}",
                table.schema, table.name
            )));
        }
        Ok(locker)
    }

    fn cancel_token(&self) -> Option<common::CancelToken> {
        Some(self.cancel.clone())
    }

    fn op_cpu_clock(&self) -> Option<fn() -> u64> {
        Session::op_cpu_clock(self)
    }

    fn spill_config(&self) -> exec::SpillConfig {
        let mut c = self.engine.spill_config();
        if let Some(p) = self.grant_percent {
            // like SQL Server's minimum required grant: never below 128 KiB
            let scaled = (c.operator_budget as f64 * p.clamp(0.0, 100.0) / 100.0) as usize;
            c.operator_budget = scaled.max(128 << 10).min(c.operator_budget);
        }
        c
    }

    fn storage(&mut self, database: &str) -> SqlResult<Arc<storage::Database>> {
        Ok(self.db(database)?.store.clone())
    }

    fn txn(&mut self, database: &str) -> SqlResult<&mut storage::Txn> {
        self.txn_for(database)
    }

    #[inline]
    fn variable_at(&self, slot: usize) -> Option<&Value> {
        self.frames.last()?.vars.get(slot).map(|v| &v.value)
    }

    fn set_variable_at(&mut self, slot: usize, v: Value) -> SqlResult<()> {
        self.assign_slot(slot, v)
    }

    fn session_id(&self) -> i32 {
        self.spid
    }

    fn create_table(&mut self, spec: &plan::NewTableSpec) -> SqlResult<Arc<TableDef>> {
        self.create_table_from_spec(spec)
    }

    fn next_identity(&mut self, table: &TableDef) -> SqlResult<i64> {
        let Some((_, spec)) = table.identity() else {
            return Err(SqlError::internal("table has no identity column"));
        };
        let h = self.db(&table.database)?;
        let next = crate::identity_cache::next_value(&h, table, spec)?;
        let v = i64::try_from(next).map_err(|_| SqlError::new(8115, &[&"IDENTITY", &"bigint"]))?;
        Ok(v)
    }

    fn identity_used(&mut self, table: &TableDef, value: i64, generated: bool) {
        if generated {
            let v = Value::Decimal {
                mantissa: value as i128,
                scale: 0,
            };
            self.last_identity = Some(v.clone());
            self.scope_identity = Some(v);
            return;
        }
        // Explicit value (IDENTITY_INSERT ON): move the counter past it.
        let Some((_, spec)) = table.identity() else {
            return;
        };
        let Ok(h) = self.db(&table.database) else {
            return;
        };
        let value = value as i128;
        if let Ok(tree) = h.store.catalog_btree() {
            let mut cat = h.cat.write();
            let beyond = match cat.identity.get(&table.object_id).copied() {
                None => true,
                Some(c) => {
                    if spec.increment >= 0 {
                        value > c
                    } else {
                        value < c
                    }
                }
            };
            if beyond {
                let _ = cat.set_identity_autonomous(&h.store, &tree, table.object_id, value);
            }
        }
        let v = Value::Decimal {
            mantissa: value,
            scale: 0,
        };
        self.last_identity = Some(v.clone());
        self.scope_identity = Some(v);
    }

    fn call_function(&mut self, name: &str, args: &[Value]) -> SqlResult<Option<Value>> {
        if let Some(r) = self.trigger_function(name, args) {
            return r.map(Some);
        }
        if let Some(v) = self.principal_function(name, args)? {
            return Ok(Some(v));
        }
        self.session_function(name, args)
    }

    fn call_table_function(
        &mut self,
        database: &str,
        object_id: i32,
        args: &[Value],
    ) -> SqlResult<Vec<Vec<Value>>> {
        Session::call_table_function(self, database, object_id, args)
    }

    fn open_bulk_rowset(
        &mut self,
        spec: &plan::BulkRowset,
        columns: &[plan::ColumnMeta],
    ) -> SqlResult<Box<dyn exec::BulkRowReader>> {
        crate::openrowset::open_bulk_rowset(spec, columns)
    }

    fn wants_images(&mut self, table: &TableDef) -> bool {
        self.trigger_wants_images(table)
    }

    fn referencing_tables(
        &mut self,
        database: &str,
        object_id: i32,
    ) -> SqlResult<Vec<Arc<TableDef>>> {
        let h = self.db(database)?;
        let cat = h.cat.read();
        let mut v: Vec<Arc<TableDef>> = cat
            .objects
            .values()
            .filter_map(|o| match o {
                SchemaObject::Table(t)
                    if t.foreign_keys
                        .iter()
                        .any(|fk| fk.ref_object_id == object_id) =>
                {
                    Some(t.clone())
                }
                _ => None,
            })
            .collect();
        v.sort_by_key(|t| t.object_id);
        Ok(v)
    }

    fn table_by_id(&mut self, database: &str, object_id: i32) -> SqlResult<Option<Arc<TableDef>>> {
        let h = self.db(database)?;
        let cat = h.cat.read();
        Ok(match cat.objects.get(&object_id) {
            Some(SchemaObject::Table(t)) => Some(t.clone()),
            _ => None,
        })
    }
}
