//! Table-valued functions in FROM: `dbo.f(args) [AS] alias [(cols)]`, also on the right of
//! CROSS/OUTER APPLY with arguments read from the left row.
//!
//! * Inline functions (`RETURNS TABLE AS RETURN query`) are expanded like views: the body is
//!   bound behind a name barrier with each `@param` replaced by its bound argument, so the
//!   optimizer sees through the call. Arguments that read the outer row are bound one level
//!   up, where they become parameter slots of an Apply (the same as a correlated derived
//!   table); references to them inside the body mark every level in between as correlated.
//! * Multi-statement functions and the built-ins (`STRING_SPLIT`, `GENERATE_SERIES`,
//!   `OPENJSON`) become a [`LogicalOp::TableFunction`] leaf whose arguments exec evaluates when
//!   the leaf opens.
//!
//! Argument count errors are 313 / 8144 (all parameters must be supplied; `DEFAULT` takes the
//! declared default). A scalar function or procedure in FROM is 208, a table or view given
//! arguments is 215, an unknown name 208.

use catalog::{ModuleDef, ModuleKind};
use common::{SqlError, SqlResult};
use parser::ast;
use types::{DataType, Value};

use super::{convert_to, qualified_name, Binder, ExprCtx, Scope};
use crate::logical::{ColumnMeta, LogicalOp};
use crate::scalar::{ScalarExpr, ScalarKind};
use crate::table_function::TableFunc;
use crate::typing;

/// Parameters of an inline function whose body is being bound.
pub(crate) struct TvfFrame {
    /// (`@name`, bound argument converted to the parameter type).
    pub params: Vec<(String, ScalarExpr)>,
    /// Index of the level the body's top query binds at.
    pub level: usize,
}

/// True when `e` reads parameter slots (directly or through a correlated subquery).
fn reads_params(e: &ScalarExpr) -> bool {
    let sub = match &e.kind {
        ScalarKind::Param(_) => return true,
        ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => Some(s),
        ScalarKind::InSubquery { subquery, .. } | ScalarKind::Quantified { subquery, .. } => {
            Some(subquery)
        }
        _ => None,
    };
    if sub.is_some_and(|s| !s.uncorrelated || !s.params.is_empty()) {
        return true;
    }
    e.children().into_iter().any(reads_params)
}

fn written_name(name: &ast::ObjectName) -> String {
    name.parts
        .iter()
        .map(|p| p.value.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

fn arg_count_error(given: usize, expected: usize, shown: &str) -> Option<SqlError> {
    if given > expected {
        Some(SqlError::custom(
            8144,
            16,
            2,
            format!("Procedure or function {shown} has too many arguments specified."),
        ))
    } else if given < expected {
        Some(SqlError::custom(
            313,
            16,
            2,
            format!("An insufficient number of arguments were supplied for the procedure or function {shown}."),
        ))
    } else {
        None
    }
}

impl Binder<'_> {
    /// Whether an inline function body is being bound (its `@names` are its parameters).
    pub(crate) fn in_tvf_body(&self) -> bool {
        !self.tvf_frames.borrow().is_empty()
    }

    /// `@name` inside an inline function body: the bound argument.
    pub(crate) fn tvf_variable(&self, name: &str) -> SqlResult<ScalarExpr> {
        let found = {
            let frames = self.tvf_frames.borrow();
            frames.last().and_then(|f| {
                f.params
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
                    .map(|(_, e)| (e.clone(), f.level))
            })
        };
        let Some((e, level)) = found else {
            return Err(SqlError::new(137, &[&name]));
        };
        if reads_params(&e) {
            // the slot is filled by the Apply around the call: every level between is correlated
            let mut levels = self.levels.borrow_mut();
            let n = levels.len();
            for l in levels.iter_mut().take(n).skip(level) {
                l.uses_outer = true;
            }
        }
        Ok(e)
    }

    /// Binds call arguments at a level of their own: references to the left side of an APPLY
    /// (or to an enclosing query) become parameters returned with the expressions.
    /// `params` gives the declared parameters (DEFAULT allowed, conversion to their types).
    fn bind_tvf_args(
        &self,
        args: &[ast::Expr],
        params: Option<&[catalog::ParameterDef]>,
        shown: &str,
    ) -> SqlResult<(Vec<ScalarExpr>, crate::scalar::Params)> {
        self.push_level(Scope::default(), false);
        let r = (|| {
            let mut out = Vec::with_capacity(args.len());
            for (i, a) in args.iter().enumerate() {
                let p = params.and_then(|ps| ps.get(i));
                let e = match (a, p) {
                    (ast::Expr::Default, Some(p)) => match &p.default {
                        Some(text) => {
                            let d = parser::parse_expression(text)?;
                            self.bind_expr(&d, &mut ExprCtx::plain())?
                        }
                        None => {
                            return Err(SqlError::custom(
                                313,
                                16,
                                3,
                                format!("An insufficient number of arguments were supplied for the procedure or function {shown}."),
                            ))
                        }
                    },
                    _ => self.bind_expr(a, &mut ExprCtx::plain())?,
                };
                out.push(match p {
                    Some(p) => convert_to(e, &p.data_type),
                    None => e,
                });
            }
            Ok(out)
        })();
        let captured = self.pop_level();
        Ok((r?, captured))
    }

    /// A table-valued function call in FROM.
    pub(crate) fn bind_table_function(
        &self,
        name: &ast::ObjectName,
        args: &[ast::Expr],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
        schema: &[ast::OpenJsonColumnDef],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let shown = written_name(name);
        let upper = name.name_str().to_ascii_uppercase();
        if !schema.is_empty() && (name.parts.len() != 1 || upper != "OPENJSON") {
            return Err(SqlError::syntax_near("WITH"));
        }
        if name.parts.len() == 1
            && matches!(
                upper.as_str(),
                "STRING_SPLIT" | "GENERATE_SERIES" | "OPENJSON"
            )
        {
            return self.bind_builtin_tvf(&upper, &shown, args, alias, columns, schema);
        }
        if upper == "DM_IO_VIRTUAL_FILE_STATS"
            && name.parts.len() == 2
            && name.parts[0].value.eq_ignore_ascii_case("sys")
        {
            return self.bind_io_file_stats(&shown, args, alias, columns);
        }
        if upper == "DM_DB_STATS_PROPERTIES"
            && name.parts.len() == 2
            && name.parts[0].value.eq_ignore_ascii_case("sys")
        {
            return self.bind_stats_properties(&shown, args, alias, columns);
        }
        if matches!(
            upper.as_str(),
            "DM_EXEC_SQL_TEXT" | "DM_EXEC_QUERY_PLAN" | "DM_EXEC_TEXT_QUERY_PLAN"
        ) && name.parts.len() == 2
            && name.parts[0].value.eq_ignore_ascii_case("sys")
        {
            return self.bind_plan_function(&upper, &shown, args, alias, columns);
        }
        let qn = qualified_name(name);
        let module = self.env.resolve_module(&qn)?;
        let Some(m) = module else {
            if self.env.resolve_table(&qn)?.is_some() {
                return Err(SqlError::custom(
                    215,
                    16,
                    1,
                    format!("Parameters supplied for object '{shown}' which is not a function. If the parameters are intended as a table hint, a WITH keyword is required."),
                ));
            }
            return Err(SqlError::invalid_object(&shown));
        };
        match m.kind {
            ModuleKind::InlineTableFunction => {
                self.bind_inline_tvf(&m, &shown, args, alias, columns)
            }
            ModuleKind::TableFunction => self.bind_multi_tvf(&m, &shown, args, alias, columns),
            _ => Err(SqlError::invalid_object(&shown)),
        }
    }

    /// `sys.dm_io_virtual_file_stats(database_id, file_id)`: the engine's view of every data
    /// file's counters (`sys.dm_io_virtual_file_stats` without arguments), filtered by the
    /// arguments (NULL = all), as SQL Server's function.
    fn bind_io_file_stats(
        &self,
        shown: &str,
        args: &[ast::Expr],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        if let Some(e) = arg_count_error(args.len(), 2, shown) {
            return Err(e);
        }
        let arg = |e: &ast::Expr| match e {
            ast::Expr::Default => "NULL".to_string(),
            e => format!("({e})"),
        };
        let (db, file) = (arg(&args[0]), arg(&args[1]));
        let text = format!(
            "SELECT * FROM sys.dm_io_virtual_file_stats AS f WHERE ({db} IS NULL OR f.database_id = {db}) AND ({file} IS NULL OR f.file_id = {file})"
        );
        let query = parser::parse_batch(&text)?
            .into_iter()
            .find_map(|s| match s.kind {
                ast::StatementKind::Select(q) => Some(q),
                _ => None,
            })
            .ok_or_else(|| SqlError::internal("dm_io_virtual_file_stats query"))?;
        let (op, names, _) = self.bind_query_level(&query, true)?;
        let exposed = alias
            .map(|a| a.value.clone())
            .unwrap_or_else(|| "dm_io_virtual_file_stats".to_string());
        let (op, mut sc) = self.derived_scope(op, names, &exposed, columns)?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = alias.is_some();
            t.schema = Some("sys".into());
        }
        Ok((op, sc, Vec::new()))
    }

    /// `sys.dm_db_stats_properties(object_id, stats_id)`: the engine's view of every
    /// statistics object filtered to one (the engine's statistics/show.rs).
    fn bind_stats_properties(
        &self,
        shown: &str,
        args: &[ast::Expr],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        if let Some(e) = arg_count_error(args.len(), 2, shown) {
            return Err(e);
        }
        let text = format!(
            "SELECT * FROM sys.dm_db_stats_properties AS f WHERE f.object_id = ({}) AND f.stats_id = ({})",
            args[0], args[1]
        );
        let query = parser::parse_batch(&text)?
            .into_iter()
            .find_map(|s| match s.kind {
                ast::StatementKind::Select(q) => Some(q),
                _ => None,
            })
            .ok_or_else(|| SqlError::internal("dm_db_stats_properties query"))?;
        // not a barrier: the arguments may name the left side of an APPLY (correlated)
        let (op, names, params) = self.bind_query_level(&query, false)?;
        let exposed = alias
            .map(|a| a.value.clone())
            .unwrap_or_else(|| "dm_db_stats_properties".to_string());
        let (op, mut sc) = self.derived_scope(op, names, &exposed, columns)?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = alias.is_some();
            t.schema = Some("sys".into());
        }
        Ok((op, sc, params))
    }

    /// `sys.dm_exec_sql_text(handle)`, `sys.dm_exec_query_plan(plan_handle)`,
    /// `sys.dm_exec_text_query_plan(plan_handle, start, end)`: the engine's view of the same
    /// name (every cached plan, its lookup columns first; engine sysviews_plans.rs) filtered to
    /// the arguments. DEFAULT or NULL offsets mean the whole batch (0, -1), as in SQL Server.
    fn bind_plan_function(
        &self,
        upper: &str,
        shown: &str,
        args: &[ast::Expr],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let expected = if upper == "DM_EXEC_TEXT_QUERY_PLAN" {
            3
        } else {
            1
        };
        if let Some(e) = arg_count_error(args.len(), expected, shown) {
            return Err(e);
        }
        let arg = |i: usize| match &args[i] {
            ast::Expr::Default => "NULL".to_string(),
            e => format!("({e})"),
        };
        let lname = upper.to_ascii_lowercase();
        let out = "f.dbid, f.objectid, f.number, f.encrypted";
        let text = match upper {
            "DM_EXEC_SQL_TEXT" => format!(
                "SELECT {out}, f.[text] FROM sys.{lname} AS f WHERE f.handle = {}",
                arg(0)
            ),
            "DM_EXEC_QUERY_PLAN" => format!(
                "SELECT {out}, f.query_plan FROM sys.{lname} AS f WHERE f.plan_handle = {}",
                arg(0)
            ),
            _ => format!(
                "SELECT {out}, f.query_plan FROM sys.{lname} AS f WHERE f.plan_handle = {} \
                 AND f.statement_start_offset = ISNULL({}, 0) \
                 AND f.statement_end_offset = ISNULL({}, -1)",
                arg(0),
                arg(1),
                arg(2)
            ),
        };
        let query = parser::parse_batch(&text)?
            .into_iter()
            .find_map(|s| match s.kind {
                ast::StatementKind::Select(q) => Some(q),
                _ => None,
            })
            .ok_or_else(|| SqlError::internal("plan function query"))?;
        // not a barrier: the argument usually names the left side of a CROSS APPLY
        let (op, names, params) = self.bind_query_level(&query, false)?;
        let exposed = alias.map(|a| a.value.clone()).unwrap_or(lname);
        let (op, mut sc) = self.derived_scope(op, names, &exposed, columns)?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = alias.is_some();
            t.schema = Some("sys".into());
        }
        Ok((op, sc, params))
    }

    fn tvf_exposed(&self, alias: Option<&ast::Ident>, m: &ModuleDef) -> String {
        alias
            .map(|a| a.value.clone())
            .unwrap_or_else(|| m.name.clone())
    }

    fn bind_inline_tvf(
        &self,
        m: &ModuleDef,
        shown: &str,
        args: &[ast::Expr],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        if let Some(e) = arg_count_error(args.len(), m.parameters.len(), shown) {
            return Err(e);
        }
        let stmts = parser::parse_batch_with(
            &m.text,
            parser::ParseOptions {
                quoted_identifier: m.uses_quoted_identifier,
            },
        )?;
        let query = stmts
            .into_iter()
            .find_map(|s| match s.kind {
                ast::StatementKind::CreateFunction(cf) => match cf.body {
                    ast::FunctionBody::InlineTable { query } => Some(query),
                    _ => None,
                },
                _ => None,
            })
            .ok_or_else(|| SqlError::internal(format!("function {} has no query", m.name)))?;
        let (bound, captured) = self.bind_tvf_args(args, Some(&m.parameters), shown)?;
        let frame = TvfFrame {
            params: m
                .parameters
                .iter()
                .map(|p| p.name.clone())
                .zip(bound)
                .collect(),
            level: self.levels.borrow().len(),
        };
        {
            let mut d = self.view_depth.borrow_mut();
            *d += 1;
            if *d > 32 {
                *d -= 1;
                return Err(SqlError::new(217, &[&32]));
            }
        }
        self.tvf_frames.borrow_mut().push(frame);
        let saved = std::mem::take(&mut *self.ctes.borrow_mut());
        // the function's body is bound under the ANSI_NULLS it was created with
        let outer_ansi_nulls = self.view_ansi_nulls.replace(Some(m.uses_ansi_nulls));
        let r = self.bind_query_level(&query, true);
        self.view_ansi_nulls.set(outer_ansi_nulls);
        *self.ctes.borrow_mut() = saved;
        self.tvf_frames.borrow_mut().pop();
        *self.view_depth.borrow_mut() -= 1;
        let (op, names, _) = r?;
        let exposed = self.tvf_exposed(alias, m);
        let (op, mut sc) = self.derived_scope(op, names, &exposed, columns)?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = alias.is_some();
            t.schema = Some(m.schema.clone());
        }
        Ok((op, sc, captured))
    }

    fn bind_multi_tvf(
        &self,
        m: &ModuleDef,
        shown: &str,
        args: &[ast::Expr],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        if let Some(e) = arg_count_error(args.len(), m.parameters.len(), shown) {
            return Err(e);
        }
        let (bound, captured) = self.bind_tvf_args(args, Some(&m.parameters), shown)?;
        let cols: Vec<ColumnMeta> = m
            .returns_table
            .iter()
            .map(|c| ColumnMeta::new(c.name.clone(), c.data_type.clone(), c.nullable))
            .collect();
        let names = cols.iter().map(|c| c.name.clone()).collect();
        let op = LogicalOp::TableFunction {
            func: TableFunc::User {
                database: m.database.clone(),
                object_id: m.object_id,
                name: format!("{}.{}", m.schema, m.name),
            },
            args: bound,
            columns: cols,
        };
        let exposed = self.tvf_exposed(alias, m);
        let (op, mut sc) = self.derived_scope(op, names, &exposed, columns)?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = alias.is_some();
            t.schema = Some(m.schema.clone());
        }
        Ok((op, sc, captured))
    }

    fn bind_builtin_tvf(
        &self,
        upper: &str,
        shown: &str,
        args: &[ast::Expr],
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
        schema: &[ast::OpenJsonColumnDef],
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let (min, max) = match upper {
            "STRING_SPLIT" => (2, 3),
            "GENERATE_SERIES" => (2, 3),
            _ => (1, 2),
        };
        if args.len() < min || args.len() > max {
            let expected = if args.len() < min { min } else { max };
            if let Some(e) = arg_count_error(args.len(), expected, shown) {
                return Err(e);
            }
        }
        let (mut bound, captured) = self.bind_tvf_args(args, None, shown)?;
        let (func, cols) = match upper {
            "STRING_SPLIT" => {
                for (i, b) in bound.iter().take(2).enumerate() {
                    if !(b.data_type.is_string() || b.data_type == DataType::Null) {
                        return Err(SqlError::new(
                            8116,
                            &[&b.data_type.sql_name(), &(i + 1), &"string_split"],
                        ));
                    }
                }
                let unicode = bound[0].data_type.is_unicode() || bound[1].data_type.is_unicode();
                let len = match &bound[0].data_type {
                    DataType::Char(n) | DataType::NChar(n) => Some(*n),
                    DataType::VarChar(n) | DataType::NVarChar(n) => *n,
                    DataType::Null => Some(1),
                    _ => Some(if unicode { 4000 } else { 8000 }),
                };
                let vt = if unicode {
                    DataType::NVarChar(len)
                } else {
                    DataType::VarChar(len)
                };
                let s = bound[0].clone();
                bound[0] = convert_to(s, &vt);
                let ordinal = match bound.get(2) {
                    None => false,
                    Some(e) => match &e.kind {
                        ScalarKind::Literal(Value::Null) => false,
                        ScalarKind::Literal(v)
                            if e.data_type.is_integer() || e.data_type == DataType::Bit =>
                        {
                            match v.cast(&DataType::Int) {
                                Ok(Value::Int(0)) => false,
                                Ok(Value::Int(1)) => true,
                                _ => return Err(ordinal_error()),
                            }
                        }
                        _ => return Err(ordinal_error()),
                    },
                };
                bound.truncate(2);
                let mut cols = vec![ColumnMeta::new("value", vt, true)];
                if ordinal {
                    cols.push(ColumnMeta::new("ordinal", DataType::BigInt, false));
                }
                (TableFunc::StringSplit { ordinal }, cols)
            }
            "GENERATE_SERIES" => {
                let mut t = DataType::Null;
                for b in &bound {
                    if !(b.data_type.is_exact_numeric() || b.data_type == DataType::Null)
                        || b.data_type.is_money()
                    {
                        return Err(series_type_error());
                    }
                    t = typing::unify(&t, &b.data_type);
                }
                if t == DataType::Null || t == DataType::Bit {
                    t = DataType::Int;
                }
                let bound: Vec<ScalarExpr> = bound.into_iter().map(|b| convert_to(b, &t)).collect();
                let op = LogicalOp::TableFunction {
                    func: TableFunc::GenerateSeries,
                    args: bound,
                    columns: vec![ColumnMeta::new("value", t, false)],
                };
                return self.finish_builtin(op, shown, alias, columns, captured);
            }
            _ => {
                let j = bound[0].clone();
                bound[0] = convert_to(j, &DataType::NVarChar(None));
                if let Some(p) = bound.get_mut(1) {
                    *p = convert_to(p.clone(), &DataType::NVarChar(Some(4000)));
                }
                if schema.is_empty() {
                    (
                        TableFunc::OpenJson { with: None },
                        vec![
                            ColumnMeta::new("key", DataType::NVarChar(Some(4000)), true),
                            ColumnMeta::new("value", DataType::NVarChar(None), true),
                            ColumnMeta::new("type", DataType::Int, true),
                        ],
                    )
                } else {
                    let mut with = Vec::with_capacity(schema.len());
                    for c in schema {
                        let t = super::expr_decl_type(&c.data_type)?;
                        if c.as_json && t != DataType::NVarChar(None) {
                            return Err(SqlError::custom(
                                13618,
                                16,
                                1,
                                "AS JSON option can be specified only for column of nvarchar(max) type in WITH clause.",
                            ));
                        }
                        with.push(crate::table_function::OpenJsonColumn {
                            name: c.name.value.clone(),
                            data_type: t,
                            path: c
                                .path
                                .clone()
                                .unwrap_or_else(|| format!("$.\"{}\"", c.name.value)),
                            as_json: c.as_json,
                        });
                    }
                    let cols = with
                        .iter()
                        .map(|c| ColumnMeta::new(c.name.clone(), c.data_type.clone(), true))
                        .collect();
                    (TableFunc::OpenJson { with: Some(with) }, cols)
                }
            }
        };
        let op = LogicalOp::TableFunction {
            func,
            args: bound,
            columns: cols,
        };
        self.finish_builtin(op, shown, alias, columns, captured)
    }

    pub(super) fn finish_builtin(
        &self,
        op: LogicalOp,
        shown: &str,
        alias: Option<&ast::Ident>,
        columns: &[ast::Ident],
        captured: crate::scalar::Params,
    ) -> SqlResult<(LogicalOp, Scope, crate::scalar::Params)> {
        let names = op.columns().iter().map(|c| c.name.clone()).collect();
        let exposed = alias
            .map(|a| a.value.clone())
            .unwrap_or_else(|| shown.to_string());
        let (op, mut sc) = self.derived_scope(op, names, &exposed, columns)?;
        if let Some(t) = sc.tables.first_mut() {
            t.has_alias = alias.is_some();
        }
        Ok((op, sc, captured))
    }
}

/// Msg 8748: a non-constant or out-of-range `enable_ordinal`.
fn ordinal_error() -> SqlError {
    SqlError::custom(
        8748,
        16,
        1,
        "The enable_ordinal argument for STRING_SPLIT only supports constant values (not variables or columns).",
    )
}

/// Msg 5373: GENERATE_SERIES over a non-numeric type.
fn series_type_error() -> SqlError {
    SqlError::custom(
        5373,
        16,
        1,
        "All the input parameters should be of the same type. Supported types are tinyint, smallint, int, bigint, decimal and numeric.",
    )
}

/// Whether a module is a table-valued function (inline or multi-statement).
pub(crate) fn is_table_function(m: &ModuleDef) -> bool {
    matches!(
        m.kind,
        ModuleKind::InlineTableFunction | ModuleKind::TableFunction
    )
}

/// CREATE FUNCTION ... RETURNS TABLE: binds the body with the parameters (typed, values
/// unknown) to report binding errors at creation, as SQL Server does; returns the result
/// columns. Errors: those of binding, 4514 for an unnamed column, 4515 for a duplicate one.
pub fn check_inline_function(
    query: &ast::Query,
    params: &[(String, DataType)],
    env: &dyn super::BindEnv,
) -> SqlResult<Vec<ColumnMeta>> {
    let b = Binder::new(env);
    b.tvf_frames.borrow_mut().push(TvfFrame {
        params: params
            .iter()
            .map(|(n, t)| {
                (
                    n.clone(),
                    ScalarExpr::new(
                        ScalarKind::Variable(crate::scalar::VarRef::unbound(n)),
                        t.clone(),
                    ),
                )
            })
            .collect(),
        level: 0,
    });
    super::check_nested_order_by(query)?;
    b.push_level(Scope::default(), true);
    let r = b.bind_query(query);
    b.pop_level();
    let (op, names) = r?;
    for (i, n) in names.iter().enumerate() {
        if n.is_empty() {
            return Err(SqlError::custom(
                4514,
                16,
                1,
                format!(
                    "CREATE FUNCTION failed because a column name is not specified for column {}.",
                    i + 1
                ),
            ));
        }
        if names[..i].iter().any(|m| catalog::name_eq(m, n)) {
            return Err(SqlError::custom(
                4515,
                16,
                1,
                format!("CREATE FUNCTION failed because column '{n}' in the result of the function has the same name as another column."),
            ));
        }
    }
    let cols = op
        .columns()
        .into_iter()
        .zip(names)
        .map(|(c, n)| ColumnMeta::new(n, c.data_type, c.nullable))
        .collect();
    Ok(cols)
}
