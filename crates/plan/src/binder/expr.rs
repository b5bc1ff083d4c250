//! Expression binding: names, literals, operators with implicit conversions, subqueries,
//! aggregates (grouped queries) and window calls.

use common::{SqlError, SqlResult};
use parser::ast;
use types::{DataType, Value};

use super::query::{has_aggregate, is_aggregate_name, strip, WINDOW_BASE};
use super::{convert_to, Binder, ExprCtx, Scope};
use crate::logical::*;
use crate::scalar::*;
use crate::typing;

fn bit(kind: ScalarKind) -> ScalarExpr {
    ScalarExpr::new(kind, DataType::Bit)
}

/// Type of a literal and its value.
pub(crate) fn literal(l: &ast::Literal) -> SqlResult<ScalarExpr> {
    Ok(match l {
        ast::Literal::Integer(t) => match t.parse::<i64>() {
            Ok(v) if i32::try_from(v).is_ok() => {
                ScalarExpr::literal(Value::Int(v as i32), DataType::Int)
            }
            _ => {
                let m: i128 = t
                    .parse()
                    .map_err(|_| SqlError::custom(1007, 15, 1, format!("The number '{t}' is out of the range for numeric representation (maximum precision 38).")))?;
                let p = t.trim_start_matches('0').len().clamp(1, 38) as u8;
                ScalarExpr::literal(
                    Value::Decimal {
                        mantissa: m,
                        scale: 0,
                    },
                    DataType::Numeric {
                        precision: p,
                        scale: 0,
                    },
                )
            }
        },
        ast::Literal::Decimal(t) => {
            let (ip, fp) = t.split_once('.').unwrap_or((t.as_str(), ""));
            let digits: String = format!("{ip}{fp}");
            let m: i128 = if digits.is_empty() {
                0
            } else {
                digits.parse().map_err(|_| SqlError::custom(1007, 15, 1, format!("The number '{t}' is out of the range for numeric representation (maximum precision 38).")))?
            };
            let s = fp.len() as u8;
            let p = (ip.trim_start_matches('0').len() as u8 + s).max(s).max(1);
            ScalarExpr::literal(
                Value::Decimal {
                    mantissa: m,
                    scale: s,
                },
                DataType::Numeric {
                    precision: p.min(38),
                    scale: s,
                },
            )
        }
        ast::Literal::Float(t) => {
            let f: f64 = t.parse().map_err(|_| SqlError::syntax_near(t))?;
            ScalarExpr::literal(Value::Float(f), DataType::Float)
        }
        ast::Literal::Money(t) => {
            let f: f64 = t.parse().map_err(|_| SqlError::syntax_near(t))?;
            ScalarExpr::literal(Value::Money((f * 10000.0).round() as i64), DataType::Money)
        }
        // SQL Server types a string constant by its length: varchar(n) / nvarchar(n), and
        // varchar(max) / nvarchar(max) / varbinary(max) past 8000 bytes ("Constants
        // (Transact-SQL)"); Value::data_type applies exactly that rule
        ast::Literal::String { value, national } => {
            let v = if *national {
                Value::NVarChar(value.clone())
            } else {
                Value::VarChar(value.clone())
            };
            let t = v.data_type();
            ScalarExpr::literal(v, t)
        }
        ast::Literal::Binary(b) => {
            let v = Value::VarBinary(b.clone());
            let t = v.data_type();
            ScalarExpr::literal(v, t)
        }
        ast::Literal::Null => ScalarExpr::literal(Value::Null, DataType::Null),
    })
}

fn cmp_op(op: ast::BinaryOp) -> Option<CmpOp> {
    Some(match op {
        ast::BinaryOp::Eq => CmpOp::Eq,
        ast::BinaryOp::NotEq => CmpOp::Ne,
        ast::BinaryOp::Lt => CmpOp::Lt,
        ast::BinaryOp::Le | ast::BinaryOp::NotGt => CmpOp::Le,
        ast::BinaryOp::Gt => CmpOp::Gt,
        ast::BinaryOp::Ge | ast::BinaryOp::NotLt => CmpOp::Ge,
        _ => return None,
    })
}

/// Builds `a op b` with implicit conversion of the lower-precedence side when needed.
pub(crate) fn compare(op: CmpOp, a: ScalarExpr, b: ScalarExpr) -> ScalarExpr {
    let (a, b) = unify_for_compare(a, b);
    bit(ScalarKind::Compare(op, Box::new(a), Box::new(b)))
}

pub(crate) fn unify_for_compare(a: ScalarExpr, b: ScalarExpr) -> (ScalarExpr, ScalarExpr) {
    let t = typing::comparison_type(&a.data_type, &b.data_type);
    let a = if typing::needs_conversion(&a.data_type, &t) {
        convert_to(a, &t)
    } else {
        a
    };
    let b = if typing::needs_conversion(&b.data_type, &t) {
        convert_to(b, &t)
    } else {
        b
    };
    (a, b)
}

/// Data type from a type name in CAST/CONVERT.
pub(crate) fn cast_type(t: &ast::DataTypeName) -> SqlResult<DataType> {
    let params: Vec<types::TypeParam> = t
        .params
        .iter()
        .map(|p| match p {
            ast::TypeParam::Number(n) => types::TypeParam::Num(*n as i64),
            ast::TypeParam::Max => types::TypeParam::Max,
        })
        .collect();
    DataType::from_name_in_cast(&t.name, &params)
}

/// Data type from a type name in a declaration (column, variable).
pub fn decl_type_impl(t: &ast::DataTypeName) -> SqlResult<DataType> {
    let params: Vec<types::TypeParam> = t
        .params
        .iter()
        .map(|p| match p {
            ast::TypeParam::Number(n) => types::TypeParam::Num(*n as i64),
            ast::TypeParam::Max => types::TypeParam::Max,
        })
        .collect();
    DataType::from_name(&t.name, &params)
}

/// A NULL literal, possibly under casts / unary minus.
pub(crate) fn is_null_const(e: &ScalarExpr) -> bool {
    match &e.kind {
        ScalarKind::Literal(v) => v.is_null(),
        ScalarKind::Cast { expr, .. } | ScalarKind::Unary(_, expr) => is_null_const(expr),
        _ => false,
    }
}

fn is_predicate(e: &ScalarExpr) -> bool {
    // a comparison folded to UNKNOWN
    if matches!(&e.kind, ScalarKind::Literal(Value::Null)) && e.data_type == DataType::Bit {
        return true;
    }
    matches!(
        e.kind,
        ScalarKind::Compare(..)
            | ScalarKind::And(_)
            | ScalarKind::Or(_)
            | ScalarKind::Not(_)
            | ScalarKind::IsNull(_)
            | ScalarKind::Like { .. }
            | ScalarKind::InList { .. }
            | ScalarKind::Exists(_)
            | ScalarKind::InSubquery { .. }
            | ScalarKind::Quantified { .. }
    )
}

impl Binder<'_> {
    /// Binds a search condition (WHERE, ON, HAVING, WHEN, IF).
    pub(crate) fn bind_predicate(&self, e: &ast::Expr, ctx: &mut ExprCtx) -> SqlResult<ScalarExpr> {
        let b = self.bind_expr(e, ctx)?;
        if !is_predicate(&b) {
            let near = match strip(e) {
                ast::Expr::Column(n) => n.name_str().to_string(),
                _ => String::new(),
            };
            return Err(SqlError::new(4145, &[&near]));
        }
        Ok(b)
    }

    /// Binds an expression at the innermost level.
    pub(crate) fn bind_expr(&self, e: &ast::Expr, ctx: &mut ExprCtx) -> SqlResult<ScalarExpr> {
        common::stack::grow(|| self.bind_expr_unguarded(e, ctx))
    }

    fn bind_expr_unguarded(&self, e: &ast::Expr, ctx: &mut ExprCtx) -> SqlResult<ScalarExpr> {
        // grouped query: group-by expressions and aggregates map to the aggregate's output
        if let Some(g) = ctx.grouping.as_deref_mut() {
            if !g.in_aggregate {
                let s = strip(e);
                if let Some(i) = g.group_asts.iter().position(|x| x == s) {
                    return Ok(ScalarExpr::column(i, g.group_exprs[i].data_type.clone()));
                }
                if let ast::Expr::Column(n) = s {
                    let parts: Vec<String> = n.parts.iter().map(|p| p.value.clone()).collect();
                    let b = self.resolve_column(&parts)?;
                    return match b.kind {
                        ScalarKind::Column(c) => {
                            match g.group_cols.iter().position(|x| *x == Some(c)) {
                                Some(gi) => Ok(ScalarExpr::column(gi, b.data_type)),
                                None => Err(SqlError::new(8120, &[&self.column_display(c)])),
                            }
                        }
                        _ => Ok(b),
                    };
                }
                if let ast::Expr::Function(f) = s {
                    if f.over.is_none()
                        && f.name.parts.len() == 1
                        && is_aggregate_name(f.name.name_str())
                    {
                        if let Some(k) = g.agg_asts.iter().position(|x| x == s) {
                            let t = g.aggs[k].data_type.clone();
                            return Ok(ScalarExpr::column(g.group_exprs.len() + k, t));
                        }
                        g.in_aggregate = true;
                        let r = self.bind_aggregate(f, &mut ExprCtx::plain(), Some(&g.group_asts));
                        g.in_aggregate = false;
                        let call = r?;
                        let t = call.data_type.clone();
                        g.aggs.push(call);
                        g.agg_asts.push(s.clone());
                        return Ok(ScalarExpr::column(
                            g.group_exprs.len() + g.aggs.len() - 1,
                            t,
                        ));
                    }
                }
            }
        }
        use ast::Expr as E;
        match e {
            E::Literal(l) => literal(l),
            E::Nested(i) => self.bind_expr(i, ctx),
            E::Variable(name) if self.in_tvf_body() => self.tvf_variable(name),
            E::Variable(name) => match self.env.variable_slot(name) {
                Some((slot, t)) => Ok(ScalarExpr::new(
                    ScalarKind::Variable(crate::scalar::VarRef {
                        slot,
                        name: name.clone(),
                    }),
                    t,
                )),
                None => Err(SqlError::new(137, &[name])),
            },
            E::SystemVariable(name) => Ok(self.system_variable(name)),
            E::Column(n) => {
                let parts: Vec<String> = n.parts.iter().map(|p| p.value.clone()).collect();
                // `$action` exists only in a MERGE's OUTPUT scope
                if parts.len() == 1
                    && parts[0].starts_with('$')
                    && !parts[0].eq_ignore_ascii_case("$action")
                {
                    return Err(SqlError::new(207, &[&parts[0]]));
                }
                self.resolve_column(&parts)
            }
            E::Unary { op, expr } => {
                if let (ast::UnaryOp::Minus, E::Literal(l)) = (op, strip(expr)) {
                    if let ast::Literal::Integer(t) = l {
                        if let Ok(v) = format!("-{t}").parse::<i64>() {
                            if let Ok(i) = i32::try_from(v) {
                                return Ok(ScalarExpr::literal(Value::Int(i), DataType::Int));
                            }
                        }
                    }
                    if matches!(
                        l,
                        ast::Literal::Integer(_)
                            | ast::Literal::Decimal(_)
                            | ast::Literal::Float(_)
                            | ast::Literal::Money(_)
                    ) {
                        let p = literal(l)?;
                        let v = match p.kind {
                            ScalarKind::Literal(Value::Decimal { mantissa, scale }) => {
                                Value::Decimal {
                                    mantissa: -mantissa,
                                    scale,
                                }
                            }
                            ScalarKind::Literal(Value::Int(i)) => Value::Int(-i),
                            ScalarKind::Literal(Value::Float(f)) => Value::Float(-f),
                            ScalarKind::Literal(Value::Money(m)) => Value::Money(-m),
                            ScalarKind::Literal(v) => v,
                            _ => Value::Null,
                        };
                        return Ok(ScalarExpr::literal(v, p.data_type));
                    }
                }
                let inner = self.bind_expr(expr, ctx)?;
                if matches!(op, ast::UnaryOp::Minus | ast::UnaryOp::BitNot) && is_null_const(&inner)
                {
                    return Ok(ScalarExpr::literal(Value::Null, inner.data_type));
                }
                match op {
                    ast::UnaryOp::Plus => Ok(inner),
                    ast::UnaryOp::Minus => {
                        let t = match inner.data_type {
                            DataType::TinyInt | DataType::Bit => DataType::SmallInt,
                            ref t => t.clone(),
                        };
                        Ok(ScalarExpr::new(
                            ScalarKind::Unary(UnaryOp::Neg, Box::new(inner)),
                            t,
                        ))
                    }
                    ast::UnaryOp::BitNot => {
                        let t = inner.data_type.clone();
                        Ok(ScalarExpr::new(
                            ScalarKind::Unary(UnaryOp::BitNot, Box::new(inner)),
                            t,
                        ))
                    }
                    ast::UnaryOp::Not => {
                        if !is_predicate(&inner) {
                            return Err(SqlError::new(4145, &[&"NOT"]));
                        }
                        Ok(bit(ScalarKind::Not(Box::new(inner))))
                    }
                }
            }
            E::Binary { op, left, right } => {
                match op {
                    ast::BinaryOp::And | ast::BinaryOp::Or => {
                        let l = self.bind_expr(left, ctx)?;
                        let r = self.bind_expr(right, ctx)?;
                        let is_and = *op == ast::BinaryOp::And;
                        let mut parts = Vec::new();
                        for x in [l, r] {
                            match x.kind {
                                ScalarKind::And(v) if is_and => parts.extend(v),
                                ScalarKind::Or(v) if !is_and => parts.extend(v),
                                _ => parts.push(x),
                            }
                        }
                        return Ok(bit(if is_and {
                            ScalarKind::And(parts)
                        } else {
                            ScalarKind::Or(parts)
                        }));
                    }
                    _ => {}
                }
                // an operand that is a NULL constant makes the whole operation NULL; SQL Server
                // folds it before checking the other operand against GROUP BY (8120)
                let (l, r) = match (self.bind_expr(left, ctx), self.bind_expr(right, ctx)) {
                    (Ok(l), Ok(r)) => (l, r),
                    (Ok(n), Err(e)) | (Err(e), Ok(n)) if e.number == 8120 && is_null_const(&n) => {
                        let t = if cmp_op(*op).is_some() {
                            DataType::Bit
                        } else {
                            n.data_type.clone()
                        };
                        return Ok(ScalarExpr::literal(Value::Null, t));
                    }
                    (Err(e), _) | (_, Err(e)) => return Err(e),
                };
                if let Some(c) = cmp_op(*op) {
                    if !self.ansi_nulls() && matches!(c, CmpOp::Eq | CmpOp::Ne) {
                        return Ok(super::ansi::compare_ansi_off(c, l, r));
                    }
                    if is_null_const(&l) || is_null_const(&r) {
                        return Ok(ScalarExpr::literal(Value::Null, DataType::Bit));
                    }
                    return Ok(compare(c, l, r));
                }
                let bop = match op {
                    ast::BinaryOp::Add => {
                        if (l.data_type.is_string() || l.data_type == DataType::Null)
                            && (r.data_type.is_string() || r.data_type == DataType::Null)
                            && (l.data_type.is_string() || r.data_type.is_string())
                        {
                            BinaryOp::Concat
                        } else {
                            BinaryOp::Add
                        }
                    }
                    ast::BinaryOp::Sub => BinaryOp::Sub,
                    ast::BinaryOp::Mul => BinaryOp::Mul,
                    ast::BinaryOp::Div => BinaryOp::Div,
                    ast::BinaryOp::Mod => BinaryOp::Mod,
                    ast::BinaryOp::BitAnd => BinaryOp::BitAnd,
                    ast::BinaryOp::BitOr => BinaryOp::BitOr,
                    ast::BinaryOp::BitXor => BinaryOp::BitXor,
                    _ => return Err(SqlError::internal("unexpected binary operator")),
                };
                let t = typing::arith_result(bop, &l.data_type, &r.data_type)?;
                let (l, r) = if bop == BinaryOp::Concat && !self.env.concat_null_yields_null() {
                    (
                        super::ansi::concat_operand_null_as_empty(l, &t),
                        super::ansi::concat_operand_null_as_empty(r, &t),
                    )
                } else {
                    (l, r)
                };
                // constant folding as SQL Server does: an operator with a NULL constant operand
                // is NULL (the other operand is never evaluated)
                if is_null_const(&l) || is_null_const(&r) {
                    return Ok(ScalarExpr::literal(Value::Null, t));
                }
                Ok(ScalarExpr::new(
                    ScalarKind::Binary(bop, Box::new(l), Box::new(r)),
                    t,
                ))
            }
            E::IsNull { expr, negated } => {
                let x = self.bind_expr(expr, ctx)?;
                let p = bit(ScalarKind::IsNull(Box::new(x)));
                Ok(if *negated {
                    bit(ScalarKind::Not(Box::new(p)))
                } else {
                    p
                })
            }
            E::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let lo = self.bind_expr(low, ctx)?;
                let hi = self.bind_expr(high, ctx)?;
                let p = bit(ScalarKind::And(vec![
                    compare(CmpOp::Ge, x.clone(), lo),
                    compare(CmpOp::Le, x, hi),
                ]));
                Ok(if *negated {
                    bit(ScalarKind::Not(Box::new(p)))
                } else {
                    p
                })
            }
            E::InList {
                expr,
                negated,
                list,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let mut items = Vec::new();
                let mut t = x.data_type.clone();
                for i in list {
                    let b = self.bind_expr(i, ctx)?;
                    t = typing::comparison_type(&t, &b.data_type);
                    items.push(b);
                }
                let x = if typing::needs_conversion(&x.data_type, &t) {
                    convert_to(x, &t)
                } else {
                    x
                };
                let items = items
                    .into_iter()
                    .map(|b| {
                        if typing::needs_conversion(&b.data_type, &t) {
                            convert_to(b, &t)
                        } else {
                            b
                        }
                    })
                    .collect();
                let items: Vec<ScalarExpr> = items;
                let p = match (self.ansi_nulls(), super::ansi::in_list_ansi_off(&x, &items)) {
                    (false, Some(p)) => p,
                    _ => bit(ScalarKind::InList {
                        expr: Box::new(x),
                        list: items,
                    }),
                };
                Ok(if *negated {
                    bit(ScalarKind::Not(Box::new(p)))
                } else {
                    p
                })
            }
            E::InSubquery {
                expr,
                negated,
                query,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let sq = self.bind_subquery(query, ctx, true)?;
                let st = sq.1.clone();
                let t = typing::comparison_type(&x.data_type, &st);
                let x = if typing::needs_conversion(&x.data_type, &t) {
                    convert_to(x, &t)
                } else {
                    x
                };
                let mut sub = sq.0;
                if typing::needs_conversion(&st, &t) {
                    convert_subquery_output(&mut sub, &t);
                }
                let p = bit(ScalarKind::InSubquery {
                    expr: Box::new(x),
                    subquery: Box::new(sub),
                });
                Ok(if *negated {
                    bit(ScalarKind::Not(Box::new(p)))
                } else {
                    p
                })
            }
            E::Like {
                expr,
                negated,
                pattern,
                escape,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let p = self.bind_expr(pattern, ctx)?;
                let esc = match escape {
                    Some(e) => Some(Box::new(self.bind_expr(e, ctx)?)),
                    None => None,
                };
                let l = bit(ScalarKind::Like {
                    expr: Box::new(x),
                    pattern: Box::new(p),
                    escape: esc,
                });
                Ok(if *negated {
                    bit(ScalarKind::Not(Box::new(l)))
                } else {
                    l
                })
            }
            E::Exists(q) => {
                let (sq, _) = self.bind_subquery(q, ctx, false)?;
                Ok(bit(ScalarKind::Exists(Box::new(sq))))
            }
            E::Subquery(q) => {
                let (sq, t) = self.bind_subquery(q, ctx, true)?;
                Ok(ScalarExpr::new(ScalarKind::ScalarSubquery(Box::new(sq)), t))
            }
            E::Quantified {
                left,
                op,
                quantifier,
                query,
            } => {
                let x = self.bind_expr(left, ctx)?;
                let (mut sq, st) = self.bind_subquery(query, ctx, true)?;
                let c = cmp_op(*op).ok_or_else(|| SqlError::internal("quantified operator"))?;
                let t = typing::comparison_type(&x.data_type, &st);
                let x = if typing::needs_conversion(&x.data_type, &t) {
                    convert_to(x, &t)
                } else {
                    x
                };
                if typing::needs_conversion(&st, &t) {
                    convert_subquery_output(&mut sq, &t);
                }
                Ok(bit(ScalarKind::Quantified {
                    expr: Box::new(x),
                    op: c,
                    quantifier: if *quantifier == ast::Quantifier::All {
                        Quantifier::All
                    } else {
                        Quantifier::Any
                    },
                    subquery: Box::new(sq),
                }))
            }
            E::Case {
                operand,
                when_then,
                else_result,
            } => {
                let op = match operand {
                    Some(o) => Some(self.bind_expr(o, ctx)?),
                    None => None,
                };
                let mut whens = Vec::new();
                let mut t = DataType::Null;
                for (w, th) in when_then {
                    let cond = match &op {
                        Some(o) => {
                            let v = self.bind_expr(w, ctx)?;
                            if self.ansi_nulls() {
                                compare(CmpOp::Eq, o.clone(), v)
                            } else {
                                super::ansi::compare_ansi_off(CmpOp::Eq, o.clone(), v)
                            }
                        }
                        None => self.bind_predicate(w, ctx)?,
                    };
                    let r = self.bind_expr(th, ctx)?;
                    t = typing::unify(&t, &r.data_type);
                    whens.push((cond, r));
                }
                let els = match else_result {
                    Some(e) => {
                        let r = self.bind_expr(e, ctx)?;
                        t = typing::unify(&t, &r.data_type);
                        Some(r)
                    }
                    None => None,
                };
                let whens = whens
                    .into_iter()
                    .map(|(c, r)| (c, convert_to(r, &t)))
                    .collect();
                let els = els.map(|r| Box::new(convert_to(r, &t)));
                Ok(ScalarExpr::new(ScalarKind::Case { whens, else_: els }, t))
            }
            E::Cast {
                expr,
                data_type,
                try_cast,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let t = cast_type(data_type)?;
                Ok(ScalarExpr::new(
                    ScalarKind::Cast {
                        expr: Box::new(x),
                        style: None,
                        try_: *try_cast,
                        implicit: false,
                    },
                    t,
                ))
            }
            E::Convert {
                data_type,
                expr,
                style,
                try_convert,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let t = cast_type(data_type)?;
                let style = match style {
                    Some(s) => match self.bind_expr(s, ctx)?.kind {
                        ScalarKind::Literal(Value::Int(i)) => Some(i),
                        _ => None,
                    },
                    None => None,
                };
                Ok(ScalarExpr::new(
                    ScalarKind::Cast {
                        expr: Box::new(x),
                        style,
                        try_: *try_convert,
                        implicit: false,
                    },
                    t,
                ))
            }
            E::Collate { expr, .. } => self.bind_expr(expr, ctx),
            E::Niladic(n) => {
                let (f, t) = match n.as_str() {
                    "CURRENT_TIMESTAMP" => (ScalarFunc::GetDate, DataType::DateTime),
                    "SYSTEM_USER" => (ScalarFunc::SuserSname, DataType::NVarChar(Some(128))),
                    _ => (ScalarFunc::UserName, DataType::NVarChar(Some(128))),
                };
                Ok(ScalarExpr::new(
                    ScalarKind::Function {
                        func: f,
                        name: n.clone(),
                        args: vec![],
                    },
                    t,
                ))
            }
            E::Default => Err(SqlError::syntax_near_keyword("DEFAULT")),
            E::NextValueFor(n) => {
                // evaluated by the engine (`ExecEnv::call_function("NEXT VALUE FOR", [name])`)
                let qn = super::qualified_name(n);
                let Some(seq) = self.env.resolve_sequence(&qn)? else {
                    return Err(SqlError::invalid_object(&qn.display()));
                };
                let full = format!("{}.{}.{}", seq.database, seq.schema, seq.name);
                Ok(ScalarExpr::new(
                    ScalarKind::Function {
                        func: ScalarFunc::Named,
                        name: "NEXT VALUE FOR".into(),
                        args: vec![ScalarExpr::literal(
                            Value::NVarChar(full),
                            DataType::NVarChar(Some(386)),
                        )],
                    },
                    seq.data_type.clone(),
                ))
            }
            E::IdentityFunction { .. } => Err(SqlError::unsupported("IDENTITY() function")),
            E::Function(f) => {
                if let Some(over) = &f.over {
                    return self.bind_window(f, over, ctx);
                }
                if f.name.parts.len() == 1 && is_aggregate_name(f.name.name_str()) {
                    // aggregates outside a grouped context
                    if ctx.grouping.is_some() {
                        // inside an aggregate argument: nested aggregate
                        return Err(SqlError::custom(130, 16, 1, "Cannot perform an aggregate function on an expression containing an aggregate or a subquery."));
                    }
                    return Err(SqlError::custom(147, 15, 1, "An aggregate may not appear in the WHERE clause unless it is in a subquery contained in a HAVING clause or a select list, and the column being aggregated is an outer reference."));
                }
                self.bind_function(f, ctx)
            }
        }
    }

    pub(crate) fn system_variable(&self, name: &str) -> ScalarExpr {
        let up = name.to_ascii_uppercase();
        let t = match up.as_str() {
            "ROWCOUNT" | "ERROR" | "TRANCOUNT" | "FETCH_STATUS" | "NESTLEVEL" | "DATEFIRST"
            | "PROCID" | "MAX_PRECISION" | "TEXTSIZE" | "LOCK_TIMEOUT" | "CURSOR_ROWS"
            | "OPTIONS" => DataType::Int,
            "SPID" | "LANGID" => DataType::SmallInt,
            "IDENTITY" => DataType::Numeric {
                precision: 38,
                scale: 0,
            },
            "DBTS" => DataType::VarBinary(Some(8)),
            _ => DataType::NVarChar(Some(128)),
        };
        ScalarExpr::new(
            ScalarKind::Function {
                func: ScalarFunc::Named,
                name: format!("@@{up}"),
                args: vec![],
            },
            t,
        )
    }

    /// Display name for error 8120 (`table.column`).
    fn column_display(&self, col: usize) -> String {
        let levels = self.levels.borrow();
        let Some(l) = levels.last() else {
            return String::new();
        };
        let Some(c) = l.scope.cols.get(col) else {
            return String::new();
        };
        match c.table.and_then(|t| l.scope.tables.get(t)) {
            Some(t) if !t.exposed.is_empty() => format!("{}.{}", t.exposed, c.name),
            _ => c.name.clone(),
        }
    }

    /// Binds a subquery at a new level; returns it and the type of its first column.
    pub(crate) fn bind_subquery(
        &self,
        q: &ast::Query,
        ctx: &mut ExprCtx,
        single_column: bool,
    ) -> SqlResult<(Subquery, DataType)> {
        super::check_nested_order_by(q)?;
        self.push_level(Scope::default(), false);
        let r = self.bind_query(q);
        let (mut params, correlated) = self.pop_level_full();
        let (op, _) = r?;
        let cols = op.columns();
        if single_column && cols.len() != 1 {
            return Err(SqlError::new(116, &[]));
        }
        // in a grouped query, outer references must map onto the aggregate's output
        if let Some(g) = ctx.grouping.as_deref() {
            if !g.in_aggregate {
                for (_, e) in &mut params {
                    if let ScalarKind::Column(c) = e.kind {
                        match g.group_cols.iter().position(|x| *x == Some(c)) {
                            Some(gi) => *e = ScalarExpr::column(gi, e.data_type.clone()),
                            None => return Err(SqlError::new(8120, &[&self.column_display(c)])),
                        }
                    }
                }
            }
        }
        let t = cols
            .first()
            .map(|c| c.data_type.clone())
            .unwrap_or(DataType::Int);
        Ok((
            Subquery {
                plan: SubqueryPlan::Logical(Box::new(op)),
                params,
                uncorrelated: !correlated,
            },
            t,
        ))
    }

    /// Binds an aggregate call's arguments (over the FROM scope).
    pub(crate) fn bind_aggregate(
        &self,
        f: &ast::FunctionCall,
        ctx: &mut ExprCtx,
        group_asts: Option<&Vec<ast::Expr>>,
    ) -> SqlResult<AggCall> {
        let name = f.name.name_str().to_ascii_uppercase();
        for a in &f.args {
            if has_aggregate(a) {
                return Err(SqlError::custom(130, 16, 1, "Cannot perform an aggregate function on an expression containing an aggregate or a subquery."));
            }
        }
        let mut args = Vec::new();
        if name == "GROUPING" || name == "GROUPING_ID" {
            let ga = group_asts.cloned().unwrap_or_default();
            let a = f.args.first().map(strip);
            let idx = a.and_then(|a| ga.iter().position(|x| x == a)).ok_or_else(|| {
                SqlError::custom(8161, 16, 1, "Argument 1 of the GROUPING function does not match any of the expressions in the GROUP BY clause.")
            })?;
            return Ok(AggCall {
                func: AggFunc::Grouping,
                args: vec![ScalarExpr::literal(Value::Int(idx as i32), DataType::Int)],
                distinct: false,
                order_by: vec![],
                data_type: DataType::TinyInt,
                serialize: None,
            });
        }
        for a in &f.args {
            args.push(self.bind_expr(a, ctx)?);
        }
        let arg_t = args
            .first()
            .map(|a| a.data_type.clone())
            .unwrap_or(DataType::Int);
        let arg_t = if arg_t == DataType::Null {
            DataType::Int
        } else {
            arg_t
        };
        let need = |n: usize| -> SqlResult<()> {
            if args.len() != n && !(f.star && n == 1) {
                return Err(SqlError::new(174, &[&name.to_lowercase(), &n]));
            }
            Ok(())
        };
        let (func, t) = match name.as_str() {
            "COUNT" if f.star => (AggFunc::CountStar, DataType::Int),
            "COUNT" => {
                need(1)?;
                (AggFunc::Count, DataType::Int)
            }
            "COUNT_BIG" if f.star => (AggFunc::CountBigStar, DataType::BigInt),
            "COUNT_BIG" => (AggFunc::CountBig, DataType::BigInt),
            "SUM" | "AVG" => {
                need(1)?;
                if !arg_t.is_numeric() {
                    return Err(SqlError::new(
                        8117,
                        &[
                            &arg_t.sql_name(),
                            &(if name == "SUM" { "sum" } else { "avg" }),
                        ],
                    ));
                }
                if name == "SUM" {
                    (AggFunc::Sum, typing::sum_type(&arg_t))
                } else {
                    (AggFunc::Avg, typing::avg_type(&arg_t))
                }
            }
            "MIN" => (AggFunc::Min, arg_t),
            "MAX" => (AggFunc::Max, arg_t),
            "STDEV" => (AggFunc::Stdev, DataType::Float),
            "STDEVP" => (AggFunc::StdevP, DataType::Float),
            "VAR" => (AggFunc::Var, DataType::Float),
            "VARP" => (AggFunc::VarP, DataType::Float),
            "CHECKSUM_AGG" => (AggFunc::ChecksumAgg, DataType::Int),
            "APPROX_COUNT_DISTINCT" => {
                if f.star {
                    return Err(SqlError::new(102, &[&"*"]));
                }
                need(1)?;
                (AggFunc::ApproxCountDistinct, DataType::BigInt)
            }
            "STRING_AGG" => {
                need(2)?;
                // SQL Server's result types: max stays max (2 GB, 7119), any other string
                // is varchar(8000) / nvarchar(4000) and any other type nvarchar(4000) — both
                // end at 8,000 bytes (9829)
                let t = match arg_t {
                    DataType::VarChar(None) | DataType::NVarChar(None) => arg_t.clone(),
                    DataType::VarChar(_) | DataType::Char(_) => DataType::VarChar(Some(8000)),
                    _ => DataType::NVarChar(Some(4000)),
                };
                (AggFunc::StringAgg, t)
            }
            _ => {
                return Err(SqlError::custom(
                    195,
                    15,
                    1,
                    format!("'{name}' is not a recognized built-in function name."),
                ))
            }
        };
        let mut order_by = Vec::new();
        for o in &f.within_group {
            order_by.push(SortKey {
                expr: self.bind_expr(&o.expr, ctx)?,
                desc: o.desc,
            });
        }
        Ok(AggCall {
            func,
            args,
            distinct: f.distinct,
            order_by,
            data_type: t,
            serialize: None,
        })
    }

    fn bind_window(
        &self,
        f: &ast::FunctionCall,
        over: &ast::WindowSpec,
        ctx: &mut ExprCtx,
    ) -> SqlResult<ScalarExpr> {
        if ctx.windows.is_none() {
            return Err(SqlError::new(4108, &[]));
        }
        let name = f.name.name_str().to_ascii_uppercase();
        let mut args = Vec::new();
        for a in &f.args {
            args.push(self.bind_window_operand(a, ctx)?);
        }
        let mut partition_by = Vec::new();
        for p in &over.partition_by {
            partition_by.push(self.bind_window_operand(p, ctx)?);
        }
        let mut order_by = Vec::new();
        for o in &over.order_by {
            order_by.push(SortKey {
                expr: self.bind_window_operand(&o.expr, ctx)?,
                desc: o.desc,
            });
        }
        let arg_t = args
            .first()
            .map(|a| a.data_type.clone())
            .unwrap_or(DataType::Int);
        let (func, t) = match name.as_str() {
            "ROW_NUMBER" => (WindowFunc::RowNumber, DataType::BigInt),
            "RANK" => (WindowFunc::Rank, DataType::BigInt),
            "DENSE_RANK" => (WindowFunc::DenseRank, DataType::BigInt),
            "NTILE" => (WindowFunc::Ntile, DataType::BigInt),
            "LAG" => (WindowFunc::Lag, arg_t),
            "LEAD" => (WindowFunc::Lead, arg_t),
            "FIRST_VALUE" => (WindowFunc::FirstValue, arg_t),
            "LAST_VALUE" => (WindowFunc::LastValue, arg_t),
            "PERCENT_RANK" => (WindowFunc::PercentRank, DataType::Float),
            "CUME_DIST" => (WindowFunc::CumeDist, DataType::Float),
            n if is_aggregate_name(n) => {
                let mut plain = ExprCtx::plain();
                let call = self.bind_aggregate_typed(f, args.clone(), &mut plain)?;
                (WindowFunc::Agg(call.func), call.data_type)
            }
            _ => {
                return Err(SqlError::custom(
                    195,
                    15,
                    1,
                    format!("'{name}' is not a recognized windowing function."),
                ))
            }
        };
        if matches!(
            func,
            WindowFunc::RowNumber
                | WindowFunc::Rank
                | WindowFunc::DenseRank
                | WindowFunc::Ntile
                | WindowFunc::Lag
                | WindowFunc::Lead
        ) && order_by.is_empty()
        {
            return Err(SqlError::custom(
                4112,
                16,
                1,
                format!(
                    "The function '{}' must have an OVER clause with ORDER BY.",
                    name.to_lowercase()
                ),
            ));
        }
        let frame = match &over.frame {
            Some(fr) => Some(Frame {
                units: if fr.units == ast::FrameUnits::Rows {
                    FrameUnits::Rows
                } else {
                    FrameUnits::Range
                },
                start: self.frame_bound(&fr.start)?,
                end: match &fr.end {
                    Some(e) => self.frame_bound(e)?,
                    None => FrameBound::CurrentRow,
                },
            }),
            None => None,
        };
        let w = ctx
            .windows
            .as_deref_mut()
            .ok_or_else(|| SqlError::new(4108, &[]))?;
        w.calls.push(WindowCall {
            func,
            args,
            distinct: f.distinct,
            partition_by,
            order_by,
            frame,
            data_type: t.clone(),
        });
        w.asts.push(ast::Expr::Function(Box::new(f.clone())));
        Ok(ScalarExpr::column(WINDOW_BASE + w.calls.len() - 1, t))
    }

    /// Window operands are bound in the current (possibly grouped) context without windows.
    fn bind_window_operand(&self, e: &ast::Expr, ctx: &mut ExprCtx) -> SqlResult<ScalarExpr> {
        let mut inner = ExprCtx {
            grouping: ctx.grouping.as_deref_mut(),
            windows: None,
            aggregates_allowed: ctx.aggregates_allowed,
        };
        self.bind_expr(e, &mut inner).map_err(|err| {
            if err.number == 4108 {
                SqlError::new(4109, &[])
            } else {
                err
            }
        })
    }

    fn bind_aggregate_typed(
        &self,
        f: &ast::FunctionCall,
        args: Vec<ScalarExpr>,
        _ctx: &mut ExprCtx,
    ) -> SqlResult<AggCall> {
        let name = f.name.name_str().to_ascii_uppercase();
        let arg_t = args
            .first()
            .map(|a| a.data_type.clone())
            .unwrap_or(DataType::Int);
        let (func, t) = match name.as_str() {
            "COUNT" if f.star => (AggFunc::CountStar, DataType::Int),
            "COUNT" => (AggFunc::Count, DataType::Int),
            "COUNT_BIG" if f.star => (AggFunc::CountBigStar, DataType::BigInt),
            "COUNT_BIG" => (AggFunc::CountBig, DataType::BigInt),
            "SUM" => (AggFunc::Sum, typing::sum_type(&arg_t)),
            "AVG" => (AggFunc::Avg, typing::avg_type(&arg_t)),
            "MIN" => (AggFunc::Min, arg_t),
            "MAX" => (AggFunc::Max, arg_t),
            "STDEV" => (AggFunc::Stdev, DataType::Float),
            "STDEVP" => (AggFunc::StdevP, DataType::Float),
            "VAR" => (AggFunc::Var, DataType::Float),
            "VARP" => (AggFunc::VarP, DataType::Float),
            _ => {
                return Err(SqlError::custom(
                    195,
                    15,
                    1,
                    format!("'{name}' is not a recognized windowing function."),
                ))
            }
        };
        Ok(AggCall {
            func,
            args,
            distinct: f.distinct,
            order_by: vec![],
            data_type: t,
            serialize: None,
        })
    }

    fn frame_bound(&self, b: &ast::FrameBound) -> SqlResult<FrameBound> {
        let n = |e: &ast::Expr| -> SqlResult<u64> {
            match self.bind_expr(e, &mut ExprCtx::plain())?.kind {
                ScalarKind::Literal(Value::Int(i)) if i >= 0 => Ok(i as u64),
                _ => Err(SqlError::syntax_near("PRECEDING")),
            }
        };
        Ok(match b {
            ast::FrameBound::UnboundedPreceding => FrameBound::UnboundedPreceding,
            ast::FrameBound::Preceding(e) => FrameBound::Preceding(n(e)?),
            ast::FrameBound::CurrentRow => FrameBound::CurrentRow,
            ast::FrameBound::Following(e) => FrameBound::Following(n(e)?),
            ast::FrameBound::UnboundedFollowing => FrameBound::UnboundedFollowing,
        })
    }
}

#[allow(dead_code)]
fn op_word(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add | BinaryOp::Concat => "add",
        BinaryOp::Sub => "subtract",
        BinaryOp::Mul => "multiply",
        BinaryOp::Div => "divide",
        BinaryOp::Mod => "modulo",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "^",
    }
}

/// Converts the single output column of a (logical) subquery to `t`.
fn convert_subquery_output(sq: &mut Subquery, t: &DataType) {
    if let SubqueryPlan::Logical(op) = &mut sq.plan {
        let inner = std::mem::replace(
            &mut **op,
            LogicalOp::Values {
                rows: vec![],
                columns: vec![],
            },
        );
        **op = super::query::cast_columns(inner, std::slice::from_ref(t));
    }
}
