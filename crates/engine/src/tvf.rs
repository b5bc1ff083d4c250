//! Table-valued user functions, engine side.
//!
//! * CREATE FUNCTION checks shared by every function kind: a body may not change anything but
//!   its own table variables (Msg 443) nor send rows to the client (Msg 444).
//! * The result columns of a multi-statement function (`RETURNS @t TABLE (...)`) are stored in
//!   its `ModuleDef::returns_table`, so the binder types a call without parsing the body.
//! * [`Session::call_table_function`] runs a multi-statement body (exec reaches it through
//!   `ExecEnv::call_table_function` from its Table Valued Function operator, once per open, so
//!   once per outer row inside an APPLY): the body is compiled once and cached per session like
//!   procedures (`proc_cache`), `@t` is created as a table variable before the first statement
//!   and its rows are the result.
//!
//! Inline functions (`RETURNS TABLE AS RETURN query`) need nothing here: the binder expands them.

use std::sync::Arc;

use catalog::{ColumnDef, ModuleDef, SchemaObject};
use common::{SqlError, SqlResult};
use parser::ast::{self, Statement, StatementKind};
use types::Value;

use crate::compile::RunCache;
use crate::run::{module_display_name, ProcEntry};
use crate::session::{Frame, Session};

fn side_effect(op: &str) -> SqlError {
    SqlError::custom(
        443,
        16,
        15,
        format!("Invalid use of a side-effecting operator '{op}' within a function."),
    )
}

fn returns_rows(q: &ast::Query) -> bool {
    match &q.body {
        ast::QueryBody::Select(s) => {
            s.into.is_none()
                && !s
                    .items
                    .iter()
                    .all(|i| matches!(i, ast::SelectItem::Assign { .. }))
        }
        _ => true,
    }
}

/// Whether an UPDATE/DELETE target is a table variable: `@t`, or an alias that the FROM
/// clause gives to one (`UPDATE r SET ... FROM @r r`).
fn targets_variable(target: &ast::DmlTarget, from: &[ast::TableRef]) -> bool {
    fn alias_of_variable(t: &ast::TableRef, name: &str) -> bool {
        match t {
            ast::TableRef::Variable { name: v, alias } => {
                alias.as_ref().map_or(v.eq_ignore_ascii_case(name), |a| {
                    a.value.eq_ignore_ascii_case(name)
                })
            }
            ast::TableRef::Join { left, right, .. } => {
                alias_of_variable(left, name) || alias_of_variable(right, name)
            }
            ast::TableRef::Nested(i) => alias_of_variable(i, name),
            _ => false,
        }
    }
    match target {
        ast::DmlTarget::Variable(_) => true,
        ast::DmlTarget::Table(n) => {
            n.parts.len() == 1 && from.iter().any(|t| alias_of_variable(t, n.name_str()))
        }
    }
}

/// Msg 443 / 444 checks of a function body: only table variables may be modified, nothing may
/// be sent to the client.
pub(crate) fn check_function_body(body: &[Statement]) -> SqlResult<()> {
    for s in body {
        let err = match &s.kind {
            StatementKind::Select(q) if returns_rows(q) => Some(SqlError::custom(
                444,
                16,
                2,
                "Select statements included within a function cannot return data to a client.",
            )),
            StatementKind::Insert(i) if matches!(i.target, ast::DmlTarget::Table(_)) => {
                Some(side_effect("INSERT"))
            }
            StatementKind::Update(u) if !targets_variable(&u.target, &u.from) => {
                Some(side_effect("UPDATE"))
            }
            StatementKind::Delete(d) if !targets_variable(&d.target, &d.from) => {
                Some(side_effect("DELETE"))
            }
            StatementKind::Merge(m) if !m.target.name_str().starts_with('@') => {
                Some(side_effect("MERGE"))
            }
            StatementKind::Truncate(_) => Some(side_effect("TRUNCATE TABLE")),
            StatementKind::Print(_) => Some(side_effect("PRINT")),
            StatementKind::RaisError(_) => Some(side_effect("RAISERROR")),
            // EXEC of a module is checked when it runs (only extended procedures may run)
            StatementKind::Exec(e) if matches!(**e, ast::Exec::Sql { .. }) => {
                Some(side_effect("EXECUTE STRING"))
            }
            StatementKind::SaveTransaction { .. } => Some(side_effect("SAVEPOINT")),
            StatementKind::WaitFor { .. } => Some(side_effect("WAITFOR")),
            StatementKind::BeginTransaction { .. } => Some(side_effect("BEGIN TRANSACTION")),
            StatementKind::Commit { .. } => Some(side_effect("COMMIT TRANSACTION")),
            StatementKind::Rollback { .. } => Some(side_effect("ROLLBACK TRANSACTION")),
            StatementKind::If {
                then_stmt,
                else_stmt,
                ..
            } => {
                check_function_body(std::slice::from_ref(then_stmt))?;
                if let Some(e) = else_stmt {
                    check_function_body(std::slice::from_ref(e))?;
                }
                None
            }
            StatementKind::While { body, .. } => {
                check_function_body(std::slice::from_ref(body))?;
                None
            }
            StatementKind::Block(b) => {
                check_function_body(b)?;
                None
            }
            StatementKind::TryCatch {
                try_block,
                catch_block,
            } => {
                check_function_body(try_block)?;
                check_function_body(catch_block)?;
                None
            }
            _ => None,
        };
        if let Some(e) = err {
            return Err(e.at_line(s.line));
        }
    }
    Ok(())
}

/// ALTER (or CREATE OR ALTER) FUNCTION may not change the kind of function (scalar, inline,
/// multi-statement) nor alter another kind of object: Msg 2010.
pub(crate) fn check_alter_kind(
    s: &Session,
    mode: ast::CreateMode,
    name: &ast::ObjectName,
    kind: catalog::ModuleKind,
) -> SqlResult<()> {
    if mode == ast::CreateMode::Create {
        return Ok(());
    }
    let q = crate::ddl::qualified(name);
    let existing = match s.find_object(&q)? {
        Some((_, SchemaObject::Module(m))) => Some(m.kind),
        Some(_) => None,
        None => return Ok(()),
    };
    if existing == Some(kind) {
        return Ok(());
    }
    Err(SqlError::custom(
        2010,
        16,
        1,
        format!(
            "Cannot perform alter on '{}' because it is an incompatible object type.",
            q.display()
        ),
    ))
}

impl Session {
    /// Result columns of `RETURNS @t TABLE (...)`.
    pub(crate) fn function_table_columns(
        &self,
        table: &ast::TableDefinition,
        function: &str,
    ) -> SqlResult<Vec<ColumnDef>> {
        table
            .columns
            .iter()
            .map(|c| self.column_def(c, function))
            .collect()
    }

    /// Binds an inline function's query with its parameters (errors at CREATE, as SQL Server).
    pub(crate) fn check_inline_function(
        &self,
        query: &ast::Query,
        params: &[ast::ProcParam],
    ) -> SqlResult<()> {
        let mut typed = Vec::with_capacity(params.len());
        for p in params {
            typed.push((p.name.clone(), self.resolve_type_name(&p.data_type)?));
        }
        plan::check_inline_function(query, &typed, self)?;
        Ok(())
    }

    /// Stores the result columns of a just created multi-statement function.
    pub(crate) fn set_function_table(
        &mut self,
        name: &ast::ObjectName,
        columns: Vec<ColumnDef>,
    ) -> SqlResult<()> {
        let q = crate::ddl::qualified(name);
        let Some((h, SchemaObject::Module(m))) = self.find_object(&q)? else {
            return Err(SqlError::internal("function vanished after CREATE"));
        };
        let mut m = (*m).clone();
        m.returns_table = columns;
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Module(Arc::new(m)))?;
        self.touch_catalog(&db)?;
        Ok(())
    }

    /// Runs a multi-statement table-valued function and returns the rows of its table.
    pub(crate) fn call_table_function(
        &mut self,
        database: &str,
        object_id: common::ObjectId,
        args: &[Value],
    ) -> SqlResult<Vec<Vec<Value>>> {
        let h = self.db(database)?;
        let module: Arc<ModuleDef> = match h.cat.read().objects.get(&object_id) {
            Some(SchemaObject::Module(m)) => m.clone(),
            _ => return Err(SqlError::invalid_object(&object_id.to_string())),
        };
        let display = module_display_name(&module.name);
        if self.modules.len() >= 32 {
            return Err(SqlError::new(217, &[&32]));
        }
        let key = (h.def.name.clone(), object_id);
        let (prog, cache) = match self.proc_cache.get_mut(&key) {
            Some(e) if e.text == module.text => (e.prog.clone(), e.cache.take()),
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
                let ast::FunctionBody::MultiStatement {
                    variable,
                    table,
                    body,
                } = cf.body
                else {
                    return Err(SqlError::internal(
                        "not a multi-statement table-valued function",
                    ));
                };
                let decls = self.param_decls(&cf.params)?;
                // `@t` is declared before the body: a table variable the body fills
                let mut stmts = Vec::with_capacity(body.len() + 1);
                stmts.push(Statement {
                    line: 1,
                    span: ast::Span::default(),
                    kind: StatementKind::Declare(vec![ast::DeclareItem::Table {
                        name: variable,
                        definition: table,
                    }]),
                });
                stmts.extend(body);
                let prog = Arc::new(
                    self.compile_program(stmts, decls, false)
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
                (prog, None)
            }
        };
        let table_slot = prog
            .vars
            .iter()
            .position(|v| v.table.is_some())
            .ok_or_else(|| SqlError::internal("function without a result table"))?;
        let mut frame = Frame::for_program(&prog);
        for (i, a) in args.iter().enumerate() {
            let Some(decl) = prog.vars.get(i) else {
                return Err(SqlError::custom(
                    8144,
                    16,
                    2,
                    format!("Procedure or function {display} has too many arguments specified."),
                ));
            };
            if let Some(var) = frame.vars.get_mut(i) {
                var.value = crate::interp::convert_value(a.clone(), &decl.data_type)?;
            }
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
        self.frames.push(frame);
        let caller_ansi_nulls =
            std::mem::replace(&mut self.options.ansi_nulls, module.uses_ansi_nulls);
        let r = self.run_nodes(&prog.nodes, &mut rc, &mut sink);
        self.options.ansi_nulls = caller_ansi_nulls;
        let rows = match &r {
            Ok(_) => self.read_result_table(table_slot),
            Err(_) => Ok(Vec::new()),
        };
        let frame = self.frames.pop().unwrap_or_default();
        self.drop_table_variables(&frame);
        self.function_result = saved;
        self.function_depth -= 1;
        self.modules.pop();
        self.principal.chain.pop();
        if let Some(e) = self.proc_cache.get_mut(&key) {
            if Arc::ptr_eq(&e.prog, &prog) {
                e.cache = Some(rc);
            }
        }
        r.map_err(|e| *e)?;
        if let Some(e) = sink.errors().first() {
            return Err((*e).clone());
        }
        rows
    }

    /// Rows of the table variable in `slot` of the innermost frame.
    fn read_result_table(&mut self, slot: usize) -> SqlResult<Vec<Vec<Value>>> {
        let id = self
            .frames
            .last()
            .and_then(|f| f.tables.iter().find(|(s, _)| *s == slot).map(|(_, id)| *id))
            .ok_or_else(|| SqlError::internal("function result table was not created"))?;
        let h = self.db("tempdb")?;
        let table = match h.cat.read().objects.get(&id) {
            Some(SchemaObject::Table(t)) => t.clone(),
            _ => return Err(SqlError::internal("function result table vanished")),
        };
        let store = exec::table_io::TableStore::open(h.store.clone(), table)?;
        let mut rows = Vec::new();
        store.for_each_row(&mut |r, _| {
            rows.push(r.to_vec());
            Ok(())
        })?;
        Ok(rows)
    }
}
