//! DML triggers: AFTER (= FOR) and INSTEAD OF triggers on INSERT / UPDATE / DELETE.
//!
//! * AFTER triggers: exec hands back the row images of every DML statement on a table with
//!   enabled triggers (`ExecEnv::wants_images` → `ExecSummary::changes`); the engine then runs
//!   each enabled trigger of the table for that action once per statement (also for 0 rows),
//!   in creation order, before the statement's row count is reported.
//! * INSTEAD OF triggers: the statement is not run; its would-be images are computed by a
//!   SELECT derived from the statement (inserted: the new rows, deleted: the target rows) and
//!   the trigger runs instead. DML on the same object inside that trigger is not intercepted
//!   again. Works on tables and views.
//! * `inserted` / `deleted` resolve (one-part names only) to in-memory virtual tables of the
//!   innermost trigger frame ([`Session::trigger_table`]); `UPDATE(col)`, `COLUMNS_UPDATED()`
//!   and `TRIGGER_NESTLEVEL()` read the same frame.
//! * Transactions: the trigger runs inside the firing statement's transaction (an autocommit
//!   statement counts as one: `@@TRANCOUNT` is 1 inside). Triggers run with XACT_ABORT ON, as
//!   in SQL Server: an error ends the trigger, rolls the transaction back and aborts the batch
//!   (inside TRY it dooms the transaction instead). A transaction that ended inside the trigger
//!   (ROLLBACK / COMMIT) aborts the batch with 3609.
//! * Nesting: a trigger's DML fires other triggers up to 32 levels (217); a trigger does not
//!   fire itself directly (RECURSIVE_TRIGGERS OFF).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use catalog::{
    ColumnDef, ModuleDef, ModuleKind, QualifiedName, SchemaObject, TableDef, TableRef, VirtualTable,
};
use common::{ObjectId, SqlError, SqlResult};
use exec::{DmlAction, DmlChanges};
use parser::ast::{self, StatementKind};
use types::{DataType, Value};

use crate::compile::RunCache;
use crate::events::EventSink;
use crate::session::Session;

/// Maximum nesting of triggers (and modules).
const MAX_NEST: usize = 32;

/// One executing trigger.
pub(crate) struct TriggerFrame {
    pub(crate) trigger_id: ObjectId,
    pub(crate) inserted: Arc<VirtualTable>,
    pub(crate) deleted: Arc<VirtualTable>,
    /// Ordinals of the columns the statement assigned (all for INSERT).
    pub(crate) updated: Vec<usize>,
    /// `Session::modules` depth of the trigger body: `inserted` / `deleted` are visible
    /// there only, not in procedures it calls.
    pub(crate) scope: usize,
    /// The trigger's schema: one-part names in its body are looked up there first.
    pub(crate) schema: String,
}

/// Trigger state of a session.
#[derive(Default)]
pub(crate) struct TriggerState {
    pub(crate) stack: Vec<TriggerFrame>,
    /// An error ended a trigger (or its transaction ended there): the batch is aborted.
    pub(crate) batch_abort: bool,
    /// Per database (lower-case name): the objects that have triggers, valid for one schema
    /// generation (every catalog change and reload bumps it). Saves a catalog scan per DML
    /// statement on objects without triggers.
    parents: RefCell<(u64, HashMap<String, HashSet<ObjectId>>)>,
    /// While `Some`, DML row images are collected here instead of firing triggers
    /// (INSERT ... EXEC runs one INSERT per row and fires once at the end).
    pub(crate) deferred: Option<Vec<DmlChanges>>,
}

/// Appends `more` to `into`, merging entries of the same table and action.
pub(crate) fn merge_changes(into: &mut Vec<DmlChanges>, more: Vec<DmlChanges>) {
    for c in more {
        match into
            .iter_mut()
            .find(|d| d.action == c.action && d.table.object_id == c.table.object_id)
        {
            Some(d) => {
                d.inserted.extend(c.inserted);
                d.deleted.extend(c.deleted);
            }
            None => into.push(c),
        }
    }
}

/// Result-set collector for the internal SELECTs of INSTEAD OF triggers.
struct Rows(Vec<Vec<Value>>);

impl exec::RowSink for Rows {
    fn columns(&mut self, _cols: &[exec::ResultColumn]) -> SqlResult<()> {
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> SqlResult<()> {
        self.0.push(row.to_vec());
        Ok(())
    }
}

fn action_of(t: &catalog::TriggerDef, a: DmlAction) -> bool {
    match a {
        DmlAction::Insert => t.on_insert,
        DmlAction::Update => t.on_update,
        DmlAction::Delete => t.on_delete,
    }
}

fn virtual_table(name: &str, columns: &[ColumnDef], rows: Vec<Vec<Value>>) -> Arc<VirtualTable> {
    let columns = columns
        .iter()
        .map(|c| ColumnDef::new(c.name.clone(), c.data_type.clone(), true))
        .collect();
    Arc::new(VirtualTable {
        schema: String::new(),
        name: name.to_string(),
        columns,
        rows,
    })
}

/// `col op value` of a compound assignment as expression text.
fn assign_text(target: &str, op: ast::AssignOp, value: &ast::Expr) -> String {
    let bin = match op {
        ast::AssignOp::Assign => return format!("({value})"),
        ast::AssignOp::Add => "+",
        ast::AssignOp::Sub => "-",
        ast::AssignOp::Mul => "*",
        ast::AssignOp::Div => "/",
        ast::AssignOp::Mod => "%",
        ast::AssignOp::BitAnd => "&",
        ast::AssignOp::BitOr => "|",
        ast::AssignOp::BitXor => "^",
    };
    format!("({target} {bin} ({value}))")
}

fn quote(name: &str) -> String {
    format!("[{}]", name.replace(']', "]]"))
}

/// The table named `alias` in a FROM list.
fn find_alias(from: &[ast::TableRef], alias: &str) -> Option<ast::ObjectName> {
    from.iter().find_map(|t| alias_in(t, alias))
}

fn alias_in(t: &ast::TableRef, alias: &str) -> Option<ast::ObjectName> {
    match t {
        ast::TableRef::Table {
            name,
            alias: Some(a),
            ..
        } if a.value.eq_ignore_ascii_case(alias) => Some(name.clone()),
        ast::TableRef::Join { left, right, .. } => {
            alias_in(left, alias).or_else(|| alias_in(right, alias))
        }
        ast::TableRef::Nested(inner) => alias_in(inner, alias),
        _ => None,
    }
}

impl Session {
    /// Enabled triggers on object `parent` of `database`, in creation order.
    pub(crate) fn triggers_on(&self, database: &str, parent: ObjectId) -> Vec<Arc<ModuleDef>> {
        let Ok(h) = self.db(database) else {
            return Vec::new();
        };
        let gen = self.schema_generation();
        let key = database.to_lowercase();
        {
            let mut c = self.trig.parents.borrow_mut();
            if c.0 != gen {
                c.0 = gen;
                c.1.clear();
            }
            let set = c.1.entry(key).or_insert_with(|| {
                h.cat
                    .read()
                    .objects
                    .values()
                    .filter_map(|o| match o {
                        SchemaObject::Module(m) => m.trigger.as_ref().map(|t| t.table_object_id),
                        _ => None,
                    })
                    .collect()
            });
            if !set.contains(&parent) {
                return Vec::new();
            }
        }
        let cat = h.cat.read();
        let mut v: Vec<Arc<ModuleDef>> = cat
            .objects
            .values()
            .filter_map(|o| match o {
                SchemaObject::Module(m)
                    if m.kind == ModuleKind::Trigger
                        && m.trigger
                            .as_ref()
                            .is_some_and(|t| t.table_object_id == parent && !t.disabled) =>
                {
                    Some(m.clone())
                }
                _ => None,
            })
            .collect();
        v.sort_by_key(|m| m.object_id);
        v
    }

    /// 2111: at most one INSTEAD OF trigger per action and object (`name` is the trigger being
    /// created or altered, which does not conflict with itself).
    pub(crate) fn check_instead_of_unique(
        &self,
        parent: ObjectId,
        parent_name: &str,
        is_view: bool,
        name: &QualifiedName,
        events: &[ast::TriggerEvent],
    ) -> SqlResult<()> {
        let Ok((h, _)) = self.target_of(name) else {
            return Ok(());
        };
        let cat = h.cat.read();
        for o in cat.objects.values() {
            let SchemaObject::Module(m) = o else {
                continue;
            };
            let Some(t) = m.trigger.as_ref() else {
                continue;
            };
            if t.table_object_id != parent
                || !t.instead_of
                || m.name.eq_ignore_ascii_case(&name.name)
            {
                continue;
            }
            for (ev, on, word) in [
                (ast::TriggerEvent::Insert, t.on_insert, "INSERT"),
                (ast::TriggerEvent::Update, t.on_update, "UPDATE"),
                (ast::TriggerEvent::Delete, t.on_delete, "DELETE"),
            ] {
                if on && events.contains(&ev) {
                    return Err(SqlError::custom(
                        2111,
                        16,
                        1,
                        format!(
                            "Cannot CREATE trigger '{}' on {} '{}' because an INSTEAD OF {} trigger already exists on this object.",
                            name.name,
                            if is_view { "view" } else { "table" },
                            parent_name,
                            word
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether exec must hand back the row images of DML on `table` (AFTER triggers).
    pub(crate) fn trigger_wants_images(&self, table: &TableDef) -> bool {
        self.triggers_on(&table.database, table.object_id)
            .iter()
            .any(|m| m.trigger.as_ref().is_some_and(|t| !t.instead_of))
    }

    /// The schema of the trigger whose body is running (not of procedures it calls), unless
    /// it is `dbo` (the default anyway).
    pub(crate) fn trigger_schema(&self) -> Option<&str> {
        let f = self.trig.stack.last()?;
        (f.scope == self.modules.len() && !f.schema.eq_ignore_ascii_case("dbo"))
            .then_some(f.schema.as_str())
    }

    /// `inserted` / `deleted` inside a trigger.
    pub(crate) fn trigger_table(&self, name: &QualifiedName) -> Option<TableRef> {
        let frame = self.trig.stack.last()?;
        if name.schema.is_some() || name.database.is_some() || frame.scope != self.modules.len() {
            return None;
        }
        if name.name.eq_ignore_ascii_case("inserted") {
            Some(TableRef::Virtual(frame.inserted.clone()))
        } else if name.name.eq_ignore_ascii_case("deleted") {
            Some(TableRef::Virtual(frame.deleted.clone()))
        } else {
            None
        }
    }

    /// `UPDATE(col)`, `COLUMNS_UPDATED()`, `TRIGGER_NESTLEVEL()`; None for other names.
    pub(crate) fn trigger_function(&self, name: &str, args: &[Value]) -> Option<SqlResult<Value>> {
        match name {
            "TRIGGER_NESTLEVEL" => Some(Ok(Value::Int(match args.first() {
                // TRIGGER_NESTLEVEL(object_id): how often that trigger is on the stack
                Some(v) if !v.is_null() => {
                    let id = v.as_i64().unwrap_or(0);
                    self.trig
                        .stack
                        .iter()
                        .filter(|f| i64::from(f.trigger_id) == id)
                        .count() as i32
                }
                _ => self.trig.stack.len() as i32,
            }))),
            "UPDATE" => {
                let Some(frame) = self.trig.stack.last() else {
                    return Some(Err(SqlError::syntax_near("UPDATE")));
                };
                let col = match args.first() {
                    Some(Value::NVarChar(s)) | Some(Value::VarChar(s)) => s.clone(),
                    _ => String::new(),
                };
                let pos = frame
                    .inserted
                    .columns
                    .iter()
                    .chain(frame.deleted.columns.iter())
                    .position(|c| c.name.eq_ignore_ascii_case(&col));
                Some(match pos {
                    None => Err(SqlError::new(207, &[&col])),
                    Some(p) => {
                        let n = frame.inserted.columns.len().max(1);
                        Ok(Value::Bit(frame.updated.contains(&(p % n))))
                    }
                })
            }
            "COLUMNS_UPDATED" => {
                let Some(frame) = self.trig.stack.last() else {
                    return Some(Ok(Value::Null));
                };
                let ncols = frame
                    .inserted
                    .columns
                    .len()
                    .max(frame.deleted.columns.len());
                let mut bytes = vec![0u8; ncols.div_ceil(8).max(1)];
                for &c in &frame.updated {
                    if let Some(b) = bytes.get_mut(c / 8) {
                        *b |= 1 << (c % 8);
                    }
                }
                Some(Ok(Value::VarBinary(bytes)))
            }
            _ => None,
        }
    }

    /// Msg 334: OUTPUT without INTO on a table with enabled triggers.
    pub(crate) fn check_output_triggers(&self, plan: &plan::PhysicalPlan) -> SqlResult<()> {
        let (table, output) = match plan {
            plan::Statement::Insert { table, output, .. }
            | plan::Statement::Update { table, output, .. }
            | plan::Statement::Delete { table, output, .. } => (table, output),
            _ => return Ok(()),
        };
        match output {
            Some(o) if o.into.is_none() => {
                if !self
                    .triggers_on(&table.database, table.object_id)
                    .is_empty()
                {
                    return Err(SqlError::new(334, &[&table.name]));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Msg 334 for MERGE ... OUTPUT without INTO on a table with enabled triggers.
    pub(crate) fn check_merge_output_triggers(
        &self,
        table: &TableDef,
        output: Option<&plan::OutputSpec>,
    ) -> SqlResult<()> {
        if output.is_some_and(|o| o.into.is_none())
            && !self
                .triggers_on(&table.database, table.object_id)
                .is_empty()
        {
            return Err(SqlError::new(334, &[&table.name]));
        }
        Ok(())
    }

    /// Runs the AFTER triggers for the row images a statement produced.
    pub(crate) fn fire_after_triggers(
        &mut self,
        changes: Vec<DmlChanges>,
        rowcount: u64,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        for ch in changes {
            let triggers = self.triggers_on(&ch.table.database, ch.table.object_id);
            for m in triggers {
                let Some(td) = m.trigger.as_ref() else {
                    continue;
                };
                if td.instead_of || !action_of(td, ch.action) {
                    continue;
                }
                // RECURSIVE_TRIGGERS OFF: a trigger does not fire itself.
                if self
                    .trig
                    .stack
                    .last()
                    .is_some_and(|f| f.trigger_id == m.object_id)
                {
                    continue;
                }
                let frame = TriggerFrame {
                    trigger_id: m.object_id,
                    inserted: virtual_table("inserted", &ch.table.columns, ch.inserted.clone()),
                    deleted: virtual_table("deleted", &ch.table.columns, ch.deleted.clone()),
                    updated: ch.updated_columns.clone(),
                    scope: 0,
                    schema: m.schema.clone(),
                };
                self.run_trigger(&ch.table.database, &m, frame, rowcount, sink)?;
            }
        }
        Ok(())
    }

    /// Runs one trigger body with `frame` as its `inserted` / `deleted`.
    fn run_trigger(
        &mut self,
        database: &str,
        m: &Arc<ModuleDef>,
        frame: TriggerFrame,
        rowcount: u64,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        if self.trig.stack.len() >= MAX_NEST || self.modules.len() >= MAX_NEST {
            return Err(SqlError::new(217, &[&32]));
        }
        let display = crate::run::module_display_name(&m.name);
        let key = (database.to_string(), m.object_id);
        let prog = match self.proc_cache.get(&key) {
            Some(e) if e.text == m.text => e.prog.clone(),
            _ => {
                let stmts = parser::parse_batch_with(
                    &m.text,
                    parser::ParseOptions {
                        quoted_identifier: m.uses_quoted_identifier,
                    },
                )?;
                let Some(ct) = stmts.into_iter().find_map(|s| match s.kind {
                    StatementKind::CreateTrigger(ct) => Some(ct),
                    _ => None,
                }) else {
                    return Err(SqlError::internal("trigger text does not define a trigger"));
                };
                let prog = Arc::new(
                    self.compile_program(ct.body, Vec::new(), false)
                        .map_err(|e| e.in_procedure(display.clone()))?,
                );
                self.proc_cache.insert(
                    key,
                    crate::run::ProcEntry {
                        text: m.text.clone(),
                        prog: prog.clone(),
                        params: Vec::new(),
                        cache: None,
                    },
                );
                prog
            }
        };
        // Fresh caches: the bound `inserted` / `deleted` rows change with every firing.
        let mut rc = RunCache::for_program(&prog);
        let implicit = self.trancount == 0;
        if implicit {
            // The autocommit statement's transaction: @@TRANCOUNT is 1 inside the trigger and
            // the trigger's statements do not commit on their own.
            self.trancount = 1;
        }
        let saved_options = self.options.clone();
        let saved_scope_identity = self.scope_identity.take();
        self.options.xact_abort = true;
        // the trigger's creation-time ANSI_NULLS (restored with the other options)
        self.options.ansi_nulls = m.uses_ansi_nulls;
        self.rowcount = rowcount as i64;
        self.modules.push(display);
        // the trigger's statements use objects of its owner unchecked (ownership chaining)
        self.principal
            .chain
            .push((database.to_string(), m.object_id));
        let mut frame = frame;
        frame.scope = self.modules.len();
        self.trig.stack.push(frame);
        let r = self.nested_scope(sink, |me, sink| {
            let (r, _) = me.run_program(&prog, &mut rc, Vec::new(), sink);
            r
        });
        self.trig.stack.pop();
        self.modules.pop();
        self.principal.chain.pop();
        self.options = saved_options;
        self.scope_identity = saved_scope_identity;
        let ended = self.trancount == 0;
        match r {
            Err(e) => {
                // XACT_ABORT semantics: the transaction is rolled back and the batch aborted.
                // Inside TRY it stays open but uncommittable instead - also the autocommit
                // statement's own transaction (@@TRANCOUNT is 1 in the CATCH block).
                self.trig.batch_abort = true;
                if self.try_depth > 0 && !ended {
                    self.doomed = true;
                } else {
                    self.trancount = 0;
                    self.abort_all()?;
                }
                Err(e)
            }
            Ok(_) if ended => {
                self.trig.batch_abort = true;
                self.trancount = 0;
                self.abort_all()?;
                let mut e = SqlError::new(3609, &[]);
                e.state = 2;
                Err(e)
            }
            Ok(_) => {
                if implicit {
                    self.trancount = 0;
                }
                Ok(())
            }
        }
    }

    /// INSTEAD OF triggers: when `s` is DML on an object with an enabled INSTEAD OF trigger
    /// for its action (and that trigger is not the one running), runs the trigger instead of
    /// the statement and returns true.
    pub(crate) fn run_instead_of(
        &mut self,
        s: &ast::Statement,
        sink: &mut dyn EventSink,
    ) -> SqlResult<bool> {
        let (target, action, from, output) = match &s.kind {
            StatementKind::Insert(i) => (&i.target, DmlAction::Insert, &[][..], &i.output),
            StatementKind::Update(u) => (&u.target, DmlAction::Update, &u.from[..], &u.output),
            StatementKind::Delete(d) => (&d.target, DmlAction::Delete, &d.from[..], &d.output),
            _ => return Ok(false),
        };
        let ast::DmlTarget::Table(name) = target else {
            return Ok(false);
        };
        let mut q = crate::ddl::qualified(name);
        let mut found = self.find_object(&q)?;
        if found.is_none() && name.parts.len() == 1 {
            if let Some(n) = find_alias(from, &q.name) {
                q = crate::ddl::qualified(&n);
                found = self.find_object(&q)?;
            }
        }
        let Some((h, obj)) = found else {
            return Ok(false);
        };
        let parent = match &obj {
            SchemaObject::Table(t) => t.object_id,
            SchemaObject::View(v) => v.object_id,
            _ => return Ok(false),
        };
        let database = h.def.name.clone();
        let Some(m) = self.triggers_on(&database, parent).into_iter().find(|m| {
            m.trigger
                .as_ref()
                .is_some_and(|t| t.instead_of && action_of(t, action))
        }) else {
            return Ok(false);
        };
        if self.trig.stack.iter().any(|f| f.trigger_id == m.object_id) {
            // DML on the object inside its own INSTEAD OF trigger does the real work.
            return Ok(false);
        }
        if output.as_ref().is_some_and(|o| o.into.is_none()) {
            return Err(SqlError::new(334, &[&name.to_string()]));
        }
        let columns: Vec<ColumnDef> = match &obj {
            SchemaObject::Table(t) => t.columns.clone(),
            _ => self.object_columns(&q)?,
        };
        let (inserted, deleted, updated) = match &s.kind {
            StatementKind::Insert(i) => {
                let rows = self.instead_insert_rows(i, &obj, &columns)?;
                (rows, Vec::new(), (0..columns.len()).collect())
            }
            StatementKind::Update(u) => self.instead_update_rows(u, name, &q, &columns)?,
            StatementKind::Delete(d) => {
                let rows = self.instead_delete_rows(d, name, &q, &columns)?;
                (Vec::new(), rows, Vec::new())
            }
            _ => return Ok(false),
        };
        let n = inserted.len().max(deleted.len()) as u64;
        let frame = TriggerFrame {
            trigger_id: m.object_id,
            inserted: virtual_table("inserted", &columns, inserted),
            deleted: virtual_table("deleted", &columns, deleted),
            updated,
            scope: 0,
            schema: m.schema.clone(),
        };
        self.run_trigger(&database, &m, frame, n, sink)?;
        self.rowcount = n as i64;
        if !self.options.nocount {
            sink.row_count(n);
        }
        Ok(true)
    }

    /// Column names and types of a view (or any table-like object).
    fn object_columns(&mut self, q: &QualifiedName) -> SqlResult<Vec<ColumnDef>> {
        let text = format!("SELECT * FROM {}", qualified_text(q));
        let stmt = parse_one(&text)?;
        let (p, _) = self.plan_statement(&stmt)?;
        match p {
            plan::Statement::Select { columns, .. } => Ok(columns
                .iter()
                .map(|c| ColumnDef::new(c.name.clone(), c.data_type.clone(), true))
                .collect()),
            _ => Err(SqlError::internal("view columns")),
        }
    }

    fn query_rows(&mut self, text: &str) -> SqlResult<Vec<Vec<Value>>> {
        let stmt = parse_one(text)?;
        let (p, _) = self.plan_statement(&stmt)?;
        let mut rows = Rows(Vec::new());
        exec::execute(&p, self, &mut rows)?;
        Ok(rows.0)
    }

    fn instead_insert_rows(
        &mut self,
        i: &ast::Insert,
        obj: &SchemaObject,
        columns: &[ColumnDef],
    ) -> SqlResult<Vec<Vec<Value>>> {
        // target column ordinals in source order
        let targets: Vec<usize> = if i.columns.is_empty() {
            match obj {
                SchemaObject::Table(t) => (0..t.columns.len())
                    .filter(|&c| t.columns[c].identity.is_none() && t.columns[c].computed.is_none())
                    .collect(),
                _ => (0..columns.len()).collect(),
            }
        } else {
            let mut v = Vec::new();
            for c in &i.columns {
                match columns
                    .iter()
                    .position(|d| d.name.eq_ignore_ascii_case(&c.value))
                {
                    Some(p) => v.push(p),
                    None => return Err(SqlError::new(207, &[&c.value])),
                }
            }
            v
        };
        let with = if i.with.is_empty() {
            String::new()
        } else {
            let ctes: Vec<String> = i.with.iter().map(|c| c.to_string()).collect();
            format!("WITH {} ", ctes.join(", "))
        };
        let source = match &i.source {
            ast::InsertSource::Values(rows) => {
                let width = rows.first().map(|r| r.len()).unwrap_or(0);
                let mut text = String::from("SELECT * FROM (VALUES ");
                for (k, r) in rows.iter().enumerate() {
                    if r.len() != width {
                        return Err(SqlError::custom(
                            10709,
                            16,
                            1,
                            "The number of columns for each row in a table value constructor must be the same.",
                        ));
                    }
                    if k > 0 {
                        text.push_str(", ");
                    }
                    let vals: Vec<String> = r.iter().map(|e| e.to_string()).collect();
                    text.push_str(&format!("({})", vals.join(", ")));
                }
                let names: Vec<String> = (0..width).map(|k| format!("c{k}")).collect();
                text.push_str(&format!(") AS v({})", names.join(", ")));
                self.query_rows(&text)?
            }
            ast::InsertSource::Query(q) => self.query_rows(&format!("{with}{q}"))?,
            ast::InsertSource::DefaultValues => vec![Vec::new()],
            ast::InsertSource::Exec(_) => {
                return Err(SqlError::unsupported(
                    "INSERT ... EXEC into an object with an INSTEAD OF trigger",
                ))
            }
        };
        let default_values = matches!(i.source, ast::InsertSource::DefaultValues);
        let mut out = Vec::with_capacity(source.len());
        for r in source {
            if !default_values && r.len() != targets.len() {
                return Err(SqlError::custom(
                    213,
                    16,
                    1,
                    "Column name or number of supplied values does not match table definition.",
                ));
            }
            let mut row = vec![Value::Null; columns.len()];
            for (k, &c) in targets.iter().enumerate() {
                if let Some(v) = r.get(k) {
                    row[c] = convert(v, &columns[c].data_type)?;
                }
            }
            out.push(row);
        }
        Ok(out)
    }

    #[allow(clippy::type_complexity)]
    fn instead_update_rows(
        &mut self,
        u: &ast::Update,
        target: &ast::ObjectName,
        q: &QualifiedName,
        columns: &[ColumnDef],
    ) -> SqlResult<(Vec<Vec<Value>>, Vec<Vec<Value>>, Vec<usize>)> {
        let exposed = target
            .parts
            .iter()
            .map(|p| quote(&p.value))
            .collect::<Vec<_>>()
            .join(".");
        let mut new_exprs: Vec<Option<String>> = vec![None; columns.len()];
        let mut updated = Vec::new();
        for item in &u.set {
            let (col, text) = match item {
                ast::SetItem::Column { column, op, value } => {
                    let c = column.name_str().to_string();
                    (
                        c.clone(),
                        assign_text(&format!("{exposed}.{}", quote(&c)), *op, value),
                    )
                }
                ast::SetItem::VariableColumn { column, value, .. } => {
                    (column.name_str().to_string(), format!("({value})"))
                }
                ast::SetItem::Variable { .. } => continue,
            };
            let Some(p) = columns
                .iter()
                .position(|d| d.name.eq_ignore_ascii_case(&col))
            else {
                return Err(SqlError::new(207, &[&col]));
            };
            new_exprs[p] = Some(text);
            if !updated.contains(&p) {
                updated.push(p);
            }
        }
        let mut items = Vec::new();
        for (k, c) in columns.iter().enumerate() {
            match &new_exprs[k] {
                Some(t) => items.push(t.clone()),
                None => items.push(format!("{exposed}.{}", quote(&c.name))),
            }
        }
        for c in columns {
            items.push(format!("{exposed}.{}", quote(&c.name)));
        }
        let text = self.derived_select(&u.with, u.top.as_ref(), &items, &u.from, q, &u.selection);
        let rows = self.query_rows(&text)?;
        let n = columns.len();
        let mut ins = Vec::with_capacity(rows.len());
        let mut del = Vec::with_capacity(rows.len());
        for r in rows {
            let mut new = Vec::with_capacity(n);
            for (k, c) in columns.iter().enumerate() {
                new.push(convert(r.get(k).unwrap_or(&Value::Null), &c.data_type)?);
            }
            ins.push(new);
            del.push(r.get(n..).map(|s| s.to_vec()).unwrap_or_default());
        }
        updated.sort_unstable();
        Ok((ins, del, updated))
    }

    fn instead_delete_rows(
        &mut self,
        d: &ast::Delete,
        target: &ast::ObjectName,
        q: &QualifiedName,
        columns: &[ColumnDef],
    ) -> SqlResult<Vec<Vec<Value>>> {
        let exposed = target
            .parts
            .iter()
            .map(|p| quote(&p.value))
            .collect::<Vec<_>>()
            .join(".");
        let items: Vec<String> = columns
            .iter()
            .map(|c| format!("{exposed}.{}", quote(&c.name)))
            .collect();
        let text = self.derived_select(&d.with, d.top.as_ref(), &items, &d.from, q, &d.selection);
        self.query_rows(&text)
    }

    /// `WITH .. SELECT [TOP] items FROM (from | target) [WHERE ..]` text.
    fn derived_select(
        &self,
        with: &[ast::Cte],
        top: Option<&ast::Top>,
        items: &[String],
        from: &[ast::TableRef],
        q: &QualifiedName,
        selection: &Option<ast::Expr>,
    ) -> String {
        let mut text = String::new();
        if !with.is_empty() {
            let ctes: Vec<String> = with.iter().map(|c| c.to_string()).collect();
            text.push_str(&format!("WITH {} ", ctes.join(", ")));
        }
        text.push_str("SELECT ");
        if let Some(t) = top {
            text.push_str(&format!("{t} "));
        }
        text.push_str(&items.join(", "));
        text.push_str(" FROM ");
        if from.is_empty() {
            text.push_str(&qualified_text(q));
        } else {
            let f: Vec<String> = from.iter().map(|t| t.to_string()).collect();
            text.push_str(&f.join(", "));
        }
        if let Some(w) = selection {
            text.push_str(&format!(" WHERE {w}"));
        }
        text
    }

    /// `ENABLE | DISABLE TRIGGER { name [, ...] | ALL } ON { table | DATABASE | ALL SERVER }`
    /// (kept as raw text by the parser). Returns false when `text` is something else.
    pub(crate) fn enable_disable_trigger(&mut self, keyword: &str, text: &str) -> SqlResult<bool> {
        let enable = match keyword {
            "ENABLE" => true,
            "DISABLE" => false,
            _ => return Ok(false),
        };
        let body = text.trim().trim_end_matches(';');
        let mut words = body.split_whitespace();
        let _ = words.next(); // ENABLE / DISABLE
        if !words
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("TRIGGER"))
        {
            return Ok(false);
        }
        let rest: Vec<&str> = words.collect();
        let rest = rest.join(" ");
        let upper = rest.to_ascii_uppercase();
        let Some(on) = upper.rfind(" ON ") else {
            return Err(SqlError::syntax_near(
                rest.split_whitespace().last().unwrap_or(""),
            ));
        };
        let names_part = rest[..on].trim();
        let table_part = rest[on + 4..].trim();
        if table_part.eq_ignore_ascii_case("DATABASE")
            || table_part.eq_ignore_ascii_case("ALL SERVER")
        {
            // DDL triggers do not exist here: nothing to enable or disable.
            return Ok(true);
        }
        let tq = crate::ddl::qualified_from_text(table_part);
        let Some((h, obj)) = self.find_object(&tq)? else {
            return Err(SqlError::invalid_object(&tq.display()));
        };
        let parent = match obj {
            SchemaObject::Table(t) => t.object_id,
            SchemaObject::View(v) => v.object_id,
            _ => return Err(SqlError::invalid_object(&tq.display())),
        };
        let all: Vec<Arc<ModuleDef>> = h
            .cat
            .read()
            .objects
            .values()
            .filter_map(|o| match o {
                SchemaObject::Module(m)
                    if m.trigger
                        .as_ref()
                        .is_some_and(|t| t.table_object_id == parent) =>
                {
                    Some(m.clone())
                }
                _ => None,
            })
            .collect();
        let mut chosen = Vec::new();
        if names_part.eq_ignore_ascii_case("ALL") {
            chosen = all;
        } else {
            for n in names_part.split(',') {
                let nq = crate::ddl::qualified_from_text(n.trim());
                match all.iter().find(|m| m.name.eq_ignore_ascii_case(&nq.name)) {
                    Some(m) => chosen.push(m.clone()),
                    None => {
                        return Err(SqlError::custom(
                            3701,
                            11,
                            5,
                            format!(
                                "Cannot find the object \"{}\" because it does not exist or you do not have permissions.",
                                nq.name
                            ),
                        ))
                    }
                }
            }
        }
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        for m in chosen {
            let mut nm = (*m).clone();
            if let Some(t) = nm.trigger.as_mut() {
                t.disabled = !enable;
            }
            let txn = self.txn_for(&db)?;
            h.cat
                .write()
                .put(&tree, txn, SchemaObject::Module(Arc::new(nm)))?;
        }
        self.touch_catalog(&db)?;
        Ok(true)
    }
}

fn parse_one(text: &str) -> SqlResult<ast::Statement> {
    parser::parse_batch(text)?
        .into_iter()
        .next()
        .ok_or_else(|| SqlError::internal("empty internal query"))
}

fn qualified_text(q: &QualifiedName) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &q.database {
        parts.push(quote(d));
    }
    match &q.schema {
        Some(s) => parts.push(quote(s)),
        None if q.database.is_some() => parts.push(String::new()),
        None => {}
    }
    parts.push(quote(&q.name));
    parts.join(".")
}

fn convert(v: &Value, t: &DataType) -> SqlResult<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    crate::query::cast_value(v.clone(), t)
}
