//! Scalar expression evaluation.
//!
//! `eval` returns an owned [`Value`]; numeric values are allocation-free. Subqueries run their
//! physical plan through the operator builder; uncorrelated ones are run once per statement and
//! cached in the [`ExecCtx`].

use std::cmp::Ordering;
use std::rc::Rc;

use common::{SqlError, SqlResult};
use plan::{
    CmpOp, Quantifier, ScalarExpr, ScalarFunc, ScalarKind, Subquery, SubqueryPlan, UnaryOp,
};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::operator;
use crate::valops::{self, compare, truth};

/// Calls `f` with the value of a literal, column or variable operand read in place; false
/// (and `f` not called) for any other expression.
fn with_operand(
    e: &ScalarExpr,
    row: &[Value],
    env: &dyn crate::ExecEnv,
    f: &mut dyn FnMut(&Value),
) -> bool {
    match &e.kind {
        ScalarKind::Literal(v) => f(v),
        ScalarKind::Column(i) => match row.get(*i) {
            Some(v) => f(v),
            None => return false,
        },
        ScalarKind::Variable(r) => f(env.variable_at(r.slot).unwrap_or(&Value::Null)),
        _ => return false,
    }
    true
}

/// A max-typed `+` whose operands are literals, columns or variables, computed on the operands
/// in place: `@s + @s` on a 1 GB string copies nothing before the 2 GB check (Msg 7119).
/// `None` when an operand needs evaluation.
fn arith_in_place(
    op: plan::BinaryOp,
    a: &ScalarExpr,
    b: &ScalarExpr,
    ty: &DataType,
    row: &[Value],
    ctx: &ExecCtx,
) -> Option<SqlResult<Value>> {
    let env: &dyn crate::ExecEnv = &*ctx.env;
    let mut out = None;
    with_operand(a, row, env, &mut |x| {
        with_operand(b, row, env, &mut |y| {
            out = Some(valops::arith(op, x, y, ty));
        });
    });
    out
}

/// The value of a literal, column or variable of an integer type (int, bigint, smallint,
/// tinyint), read in place; None for any other shape, type or NULL.
#[inline(always)]
fn int_leaf(e: &ScalarExpr, row: &[Value], env: &dyn crate::ExecEnv) -> Option<i64> {
    let v = match &e.kind {
        ScalarKind::Literal(v) => v,
        ScalarKind::Column(i) => row.get(*i)?,
        ScalarKind::Variable(r) => env.variable_at(r.slot)?,
        _ => return None,
    };
    match v {
        Value::Int(v) => Some(*v as i64),
        Value::BigInt(v) => Some(*v),
        Value::SmallInt(v) => Some(*v as i64),
        Value::TinyInt(v) => Some(*v as i64),
        _ => None,
    }
}

/// Integer `+`, `-`, `*` with an int or bigint result and comparisons of integers, when both
/// operands are literals, columns or variables: computed in place, with no context, copy or
/// allocation. These are the shapes of procedural loops (`SET @i = @i + 1`,
/// `WHILE @i < @n`) and of simple per-row predicates. None: another shape, a NULL, or an
/// overflow (the general path raises Msg 8115).
#[inline(always)]
fn eval_int(e: &ScalarExpr, row: &[Value], env: &dyn crate::ExecEnv) -> Option<Value> {
    match &e.kind {
        ScalarKind::Binary(op, a, b) => {
            if !matches!(e.data_type, DataType::Int | DataType::BigInt) {
                return None;
            }
            let (x, y) = (int_leaf(a, row, env)?, int_leaf(b, row, env)?);
            let r = match op {
                plan::BinaryOp::Add => x.checked_add(y),
                plan::BinaryOp::Sub => x.checked_sub(y),
                plan::BinaryOp::Mul => x.checked_mul(y),
                _ => None,
            }?;
            match e.data_type {
                DataType::Int => i32::try_from(r).ok().map(Value::Int),
                _ => Some(Value::BigInt(r)),
            }
        }
        ScalarKind::Compare(op, a, b) => {
            let (x, y) = (int_leaf(a, row, env)?, int_leaf(b, row, env)?);
            Some(Value::Bit(cmp_holds(*op, x.cmp(&y))))
        }
        _ => None,
    }
}

/// Evaluates an expression with no input row that needs no execution context (literals,
/// variables, the integer shapes of [`eval_int`]); None: build a context and use [`eval`].
/// What `eval_scalar` tries first, so a procedural statement such as `SET @i = @i + 1`
/// costs no context set-up.
#[inline(always)]
pub(crate) fn eval_without_ctx(e: &ScalarExpr, env: &dyn crate::ExecEnv) -> Option<Value> {
    match &e.kind {
        ScalarKind::Literal(v) => Some(v.clone()),
        ScalarKind::Variable(r) => Some(env.variable_at(r.slot).cloned().unwrap_or(Value::Null)),
        _ => eval_int(e, &[], env),
    }
}

/// Evaluates `e` over `row`.
pub fn eval(e: &ScalarExpr, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<Value> {
    common::stack::grow(|| eval_unguarded(e, row, ctx))
}

fn eval_unguarded(e: &ScalarExpr, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<Value> {
    match &e.kind {
        ScalarKind::Literal(v) => Ok(v.clone()),
        ScalarKind::Column(i) => row
            .get(*i)
            .cloned()
            .ok_or_else(|| SqlError::internal(format!("column {i} out of range"))),
        ScalarKind::Param(s) => Ok(ctx.param(*s)),
        ScalarKind::Variable(r) => Ok(ctx.env.variable_at(r.slot).cloned().unwrap_or(Value::Null)),
        ScalarKind::Unary(op, a) => {
            let v = eval(a, row, ctx)?;
            match op {
                UnaryOp::Neg => valops::negate(&v),
                UnaryOp::BitNot => Ok(match v {
                    Value::Null => Value::Null,
                    Value::Int(i) => Value::Int(!i),
                    Value::BigInt(i) => Value::BigInt(!i),
                    Value::SmallInt(i) => Value::SmallInt(!i),
                    Value::TinyInt(i) => Value::TinyInt(!i),
                    Value::Bit(b) => Value::Bit(!b),
                    other => {
                        return Err(SqlError::new(
                            8117,
                            &[&valops::type_name(&other), &"bitwise not"],
                        ))
                    }
                }),
            }
        }
        ScalarKind::Binary(op, a, b) => {
            if let Some(v) = eval_int(e, row, &*ctx.env) {
                return Ok(v);
            }
            if e.data_type.is_max() {
                if let Some(r) = arith_in_place(*op, a, b, &e.data_type, row, ctx) {
                    return r;
                }
            }
            let x = eval(a, row, ctx)?;
            if x.is_null() {
                return Ok(Value::Null);
            }
            let y = eval(b, row, ctx)?;
            valops::arith(*op, &x, &y, &e.data_type)
        }
        ScalarKind::Compare(op, a, b) => {
            if let Some(v) = eval_int(e, row, &*ctx.env) {
                return Ok(v);
            }
            let x = eval(a, row, ctx)?;
            if x.is_null() {
                return Ok(Value::Null);
            }
            let y = eval(b, row, ctx)?;
            Ok(match valops::compare_checked(&x, &y)? {
                None => Value::Null,
                Some(o) => Value::Bit(cmp_holds(*op, o)),
            })
        }
        ScalarKind::And(parts) => {
            let mut unknown = false;
            for p in parts {
                match truth(&eval(p, row, ctx)?) {
                    Some(false) => return Ok(Value::Bit(false)),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            Ok(if unknown {
                Value::Null
            } else {
                Value::Bit(true)
            })
        }
        ScalarKind::Or(parts) => {
            let mut unknown = false;
            for p in parts {
                match truth(&eval(p, row, ctx)?) {
                    Some(true) => return Ok(Value::Bit(true)),
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            Ok(if unknown {
                Value::Null
            } else {
                Value::Bit(false)
            })
        }
        ScalarKind::Not(a) => Ok(match truth(&eval(a, row, ctx)?) {
            None => Value::Null,
            Some(b) => Value::Bit(!b),
        }),
        ScalarKind::IsNull(a) => Ok(Value::Bit(eval(a, row, ctx)?.is_null())),
        ScalarKind::Like {
            expr,
            pattern,
            escape,
        } => {
            let v = eval(expr, row, ctx)?;
            let p = eval(pattern, row, ctx)?;
            if v.is_null() || p.is_null() {
                return Ok(Value::Null);
            }
            let esc = match escape {
                Some(e) => valops::to_text(&eval(e, row, ctx)?).chars().next(),
                None => None,
            };
            let s = valops::to_text(&v);
            let p = valops::to_text(&p);
            Ok(Value::Bit(types::functions::like_match(
                &s,
                &p,
                esc,
                types::Collation::DEFAULT,
            )))
        }
        ScalarKind::InList { expr, list } => {
            let v = eval(expr, row, ctx)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            let mut unknown = false;
            for item in list {
                let w = eval(item, row, ctx)?;
                match compare(&v, &w) {
                    Some(Ordering::Equal) => return Ok(Value::Bit(true)),
                    None => unknown = true,
                    _ => {}
                }
            }
            Ok(if unknown {
                Value::Null
            } else {
                Value::Bit(false)
            })
        }
        ScalarKind::Case { whens, else_ } => {
            for (w, t) in whens {
                if truth(&eval(w, row, ctx)?) == Some(true) {
                    return eval(t, row, ctx);
                }
            }
            match else_ {
                Some(e) => eval(e, row, ctx),
                None => Ok(Value::Null),
            }
        }
        ScalarKind::Cast {
            expr, try_, style, ..
        } => {
            let v = eval(expr, row, ctx)?;
            let r = match style {
                Some(s) => valops::cast_style(&v, &e.data_type, *s),
                None => valops::cast(&v, &e.data_type),
            };
            match r {
                Ok(v) => Ok(v),
                Err(_) if *try_ => Ok(Value::Null),
                Err(err) => Err(err),
            }
        }
        ScalarKind::Function { func, name, args } => eval_function(*func, name, args, e, row, ctx),
        ScalarKind::ScalarSubquery(sq) => {
            let key = correlated_key(sq, row, ctx)?;
            if let Some(k) = &key {
                if let Some(v) = ctx.corr_cache.get(k) {
                    return Ok(v.clone());
                }
            }
            let mut result = Value::Null;
            let mut count = 0;
            for_each_subquery_row(sq, row, ctx, &mut |r| {
                count += 1;
                if count > 1 {
                    return Err(SqlError::new(512, &[]));
                }
                result = r.first().cloned().unwrap_or(Value::Null);
                Ok(true)
            })?;
            remember(key, &result, ctx);
            Ok(result)
        }
        ScalarKind::Exists(sq) => {
            let key = correlated_key(sq, row, ctx)?;
            if let Some(k) = &key {
                if let Some(v) = ctx.corr_cache.get(k) {
                    return Ok(v.clone());
                }
            }
            let mut found = false;
            for_each_subquery_row(sq, row, ctx, &mut |_| {
                found = true;
                Ok(false)
            })?;
            let r = Value::Bit(found);
            remember(key, &r, ctx);
            Ok(r)
        }
        ScalarKind::InSubquery { expr, subquery } => {
            let v = eval(expr, row, ctx)?;
            if subquery.uncorrelated {
                return in_set(&v, subquery, row, ctx);
            }
            quantified(&v, CmpOp::Eq, Quantifier::Any, subquery, row, ctx)
        }
        ScalarKind::Quantified {
            expr,
            op,
            quantifier,
            subquery,
        } => {
            let v = eval(expr, row, ctx)?;
            quantified(&v, *op, *quantifier, subquery, row, ctx)
        }
    }
}

/// Evaluates a predicate: true only when the result is TRUE (NULL/unknown = false).
///
/// AND/OR are decided part by part (a conjunction is TRUE only if every part is TRUE; a
/// disjunction if some part is), and `column op constant` on integers is compared in place,
/// so the common filters allocate and clone nothing.
pub fn eval_pred(e: &ScalarExpr, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<bool> {
    common::stack::grow(|| eval_pred_unguarded(e, row, ctx))
}

fn eval_pred_unguarded(e: &ScalarExpr, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<bool> {
    match &e.kind {
        ScalarKind::And(parts) => {
            for p in parts {
                if !eval_pred(p, row, ctx)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        ScalarKind::Or(parts) => {
            for p in parts {
                if eval_pred(p, row, ctx)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        ScalarKind::Compare(op, a, b) => {
            if let Some(o) = int_compare_fast(a, b, row, ctx) {
                return Ok(o.is_some_and(|o| cmp_holds(*op, o)));
            }
            Ok(truth(&eval(e, row, ctx)?) == Some(true))
        }
        _ => Ok(truth(&eval(e, row, ctx)?) == Some(true)),
    }
}

/// Integer operand without cloning: a column, literal or parameter holding an integer.
#[inline]
fn int_operand(e: &ScalarExpr, row: &[Value], ctx: &ExecCtx) -> Option<Option<i64>> {
    let v = match &e.kind {
        ScalarKind::Column(i) => row.get(*i)?,
        ScalarKind::Literal(v) => v,
        ScalarKind::Param(s) => ctx.params.iter().find(|(k, _)| k == s).map(|p| &p.1)?,
        _ => return None,
    };
    match v {
        Value::Null => Some(None),
        Value::Int(i) => Some(Some(*i as i64)),
        Value::BigInt(i) => Some(Some(*i)),
        Value::SmallInt(i) => Some(Some(*i as i64)),
        Value::TinyInt(i) => Some(Some(*i as i64)),
        _ => None,
    }
}

/// `Some(None)` = unknown (NULL operand), `Some(Some(o))` = ordering, `None` = not applicable.
#[inline]
fn int_compare_fast(
    a: &ScalarExpr,
    b: &ScalarExpr,
    row: &[Value],
    ctx: &ExecCtx,
) -> Option<Option<Ordering>> {
    let x = int_operand(a, row, ctx)?;
    let y = int_operand(b, row, ctx)?;
    Some(match (x, y) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => None,
    })
}

#[inline]
pub fn cmp_holds(op: CmpOp, o: Ordering) -> bool {
    match op {
        CmpOp::Eq => o == Ordering::Equal,
        CmpOp::Ne => o != Ordering::Equal,
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Le => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Ge => o != Ordering::Less,
    }
}

fn quantified(
    v: &Value,
    op: CmpOp,
    q: Quantifier,
    sq: &Subquery,
    row: &[Value],
    ctx: &mut ExecCtx,
) -> SqlResult<Value> {
    // ANY: true if some comparison true; NULL if none true but some unknown; false otherwise.
    // ALL: false if some comparison false; NULL if none false but some unknown; true otherwise.
    let mut decided: Option<bool> = None;
    let mut unknown = false;
    let mut any_row = false;
    for_each_subquery_row(sq, row, ctx, &mut |r| {
        any_row = true;
        let w = r.first().cloned().unwrap_or(Value::Null);
        match (v.is_null(), compare(v, &w)) {
            (false, Some(o)) => {
                let h = cmp_holds(op, o);
                if q == Quantifier::Any && h {
                    decided = Some(true);
                    return Ok(false);
                }
                if q == Quantifier::All && !h {
                    decided = Some(false);
                    return Ok(false);
                }
            }
            _ => unknown = true,
        }
        Ok(true)
    })?;
    if let Some(d) = decided {
        return Ok(Value::Bit(d));
    }
    if !any_row {
        return Ok(Value::Bit(q == Quantifier::All));
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Bit(q == Quantifier::All)
    })
}

/// Most correlated subquery results remembered per statement.
const CORR_CACHE_MAX: usize = 100_000;

/// Cache key of a correlated subquery evaluation: the plan and every parameter value it can
/// see (its own parameters evaluated on `row`, plus all slots already set by enclosing
/// operators). None for uncorrelated subqueries (cached elsewhere).
fn correlated_key(
    sq: &Subquery,
    row: &[Value],
    ctx: &mut ExecCtx,
) -> SqlResult<Option<(usize, Vec<u8>)>> {
    if sq.uncorrelated {
        return Ok(None);
    }
    let SubqueryPlan::Physical(plan) = &sq.plan else {
        return Ok(None);
    };
    let mut key = Vec::new();
    for (slot, e) in &sq.params {
        key.extend_from_slice(&(*slot as u64).to_le_bytes());
        let v = eval(e, row, ctx)?;
        exact_key(&v, &mut key);
    }
    key.push(0xEE);
    for (slot, v) in &ctx.params {
        if sq.params.iter().any(|(s, _)| s == slot) {
            continue; // own parameters: already keyed by their fresh values
        }
        key.extend_from_slice(&(*slot as u64).to_le_bytes());
        exact_key(v, &mut key);
    }
    Ok(Some((std::sync::Arc::as_ptr(plan) as usize, key)))
}

/// A parameter value as the correlation cache must tell it apart: strings by their exact text,
/// not by the collation's sort key (`hash_key`), because 'b' and 'B ' are equal under the
/// collation yet `x2.b + x1.b` or LEN see them differ.
fn exact_key(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            out.push(0xE5);
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        _ => valops::hash_key(v, out),
    }
}

fn remember(key: Option<(usize, Vec<u8>)>, v: &Value, ctx: &mut ExecCtx) {
    if let Some(k) = key {
        if ctx.corr_cache.len() < CORR_CACHE_MAX {
            ctx.corr_cache.insert(k, v.clone());
        }
    }
}

/// `v IN (uncorrelated subquery)` through a hash set built once per statement.
fn in_set(v: &Value, sq: &Subquery, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<Value> {
    let SubqueryPlan::Physical(plan) = &sq.plan else {
        return Err(SqlError::internal("subquery was not planned"));
    };
    let k = std::sync::Arc::as_ptr(plan) as usize;
    let set = match ctx.in_sets.get(&k) {
        Some(s) => s.clone(),
        None => {
            let mut keys = hashbrown::HashSet::new();
            let mut has_null = false;
            let mut empty = true;
            for_each_subquery_row(sq, row, ctx, &mut |r| {
                empty = false;
                let w = r.first().unwrap_or(&Value::Null);
                if w.is_null() {
                    has_null = true;
                } else {
                    let mut b = Vec::new();
                    valops::hash_key(w, &mut b);
                    keys.insert(b);
                }
                Ok(true)
            })?;
            let s = Rc::new((keys, has_null, empty));
            ctx.in_sets.insert(k, s.clone());
            s
        }
    };
    let (keys, has_null, empty) = &*set;
    if *empty {
        return Ok(Value::Bit(false));
    }
    if v.is_null() {
        return Ok(Value::Null);
    }
    let mut b = Vec::new();
    valops::hash_key(v, &mut b);
    Ok(if keys.contains(&b) {
        Value::Bit(true)
    } else if *has_null {
        Value::Null
    } else {
        Value::Bit(false)
    })
}

/// Runs a subquery, calling `f` per row until it returns false.
pub fn for_each_subquery_row(
    sq: &Subquery,
    row: &[Value],
    ctx: &mut ExecCtx,
    f: &mut dyn FnMut(&[Value]) -> SqlResult<bool>,
) -> SqlResult<()> {
    let SubqueryPlan::Physical(plan) = &sq.plan else {
        return Err(SqlError::internal(
            "subquery was not planned (call optimizer::optimize_scalar before eval_scalar)",
        ));
    };
    for (slot, pe) in &sq.params {
        let v = eval(pe, row, ctx)?;
        ctx.set_param(*slot, v);
    }
    if sq.uncorrelated {
        let key = Rc::as_ptr(&Rc::new(())) as usize; // placeholder replaced below
        let _ = key;
        let k = std::sync::Arc::as_ptr(plan) as usize;
        let rows = match ctx.subquery_cache.get(&k) {
            Some(r) => r.clone(),
            None => {
                let mut op = operator::build(plan)?;
                op.open(ctx)?;
                let mut rows = Vec::new();
                while op.next(ctx)? {
                    rows.push(op.row().to_vec());
                }
                op.close();
                let rows = Rc::new(rows);
                ctx.subquery_cache.insert(k, rows.clone());
                rows
            }
        };
        for r in rows.iter() {
            if !f(r)? {
                break;
            }
        }
        return Ok(());
    }
    let mut op = operator::build(plan)?;
    op.open(ctx)?;
    while op.next(ctx)? {
        if !f(op.row())? {
            break;
        }
    }
    op.close();
    Ok(())
}

/// T-SQL LIKE (case-insensitive): `%`, `_`, `[abc]`, `[a-z]`, `[^a]`, optional escape char.
pub fn like(s: &str, p: &str, esc: Option<char>) -> bool {
    let s: Vec<char> = s.chars().flat_map(char::to_lowercase).collect();
    let p: Vec<char> = p.chars().flat_map(char::to_lowercase).collect();
    like_at(&s, &p, esc)
}

fn like_at(s: &[char], p: &[char], esc: Option<char>) -> bool {
    let (mut si, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi < p.len() {
            let c = p[pi];
            if Some(c) == esc && pi + 1 < p.len() {
                if si < s.len() && s[si] == p[pi + 1] {
                    si += 1;
                    pi += 2;
                    continue;
                }
            } else if c == '%' {
                star = Some((pi, si));
                pi += 1;
                continue;
            } else if si < s.len() {
                if c == '_' {
                    si += 1;
                    pi += 1;
                    continue;
                }
                if c == '[' {
                    if let Some(end) = p[pi + 1..].iter().position(|&x| x == ']') {
                        let set = &p[pi + 1..pi + 1 + end];
                        if set_match(set, s[si]) {
                            si += 1;
                            pi += end + 2;
                            continue;
                        }
                    } else if s[si] == '[' {
                        si += 1;
                        pi += 1;
                        continue;
                    }
                } else if s[si] == c {
                    si += 1;
                    pi += 1;
                    continue;
                }
            }
        } else if si == s.len() {
            return true;
        }
        // mismatch: backtrack
        match star {
            Some((sp, ss)) if ss < s.len() => {
                star = Some((sp, ss + 1));
                pi = sp + 1;
                si = ss + 1;
            }
            _ => {
                // trailing spaces in s are ignored when the pattern is exhausted
                if pi == p.len() && s[si..].iter().all(|&c| c == ' ') {
                    return true;
                }
                return false;
            }
        }
    }
}

fn set_match(set: &[char], c: char) -> bool {
    let (neg, set) = match set.first() {
        Some('^') => (true, &set[1..]),
        _ => (false, set),
    };
    let mut i = 0;
    let mut hit = false;
    while i < set.len() {
        if i + 2 < set.len() && set[i + 1] == '-' {
            if set[i] <= c && c <= set[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if set[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    hit != neg
}

/// Argument `i` (NULL when absent: never panics on a malformed plan).
#[inline]
fn at(v: &[Value], i: usize) -> &Value {
    v.get(i).unwrap_or(&Value::Null)
}

fn str_result(s: String, ty: &DataType) -> Value {
    match ty {
        DataType::NVarChar(_) | DataType::NChar(_) => Value::NVarChar(s),
        _ => Value::VarChar(s),
    }
}

fn arg_i64(v: &Value) -> SqlResult<Option<i64>> {
    Ok(match valops::cast(v, &DataType::BigInt)? {
        Value::BigInt(i) => Some(i),
        _ => None,
    })
}

fn arg_f64(v: &Value) -> SqlResult<Option<f64>> {
    Ok(match valops::cast(v, &DataType::Float)? {
        Value::Float(f) => Some(f),
        _ => None,
    })
}

fn eval_function(
    func: ScalarFunc,
    name: &str,
    args: &[ScalarExpr],
    e: &ScalarExpr,
    row: &[Value],
    ctx: &mut ExecCtx,
) -> SqlResult<Value> {
    // lazily-evaluated functions first
    match func {
        ScalarFunc::Coalesce | ScalarFunc::IsNull => {
            for a in args {
                let v = eval(a, row, ctx)?;
                if !v.is_null() {
                    return valops::cast(&v, &e.data_type);
                }
            }
            return Ok(Value::Null);
        }
        ScalarFunc::Iif => {
            let c = args
                .first()
                .ok_or_else(|| SqlError::internal("IIF arity"))?;
            let pick = if eval_pred(c, row, ctx)? { 1 } else { 2 };
            return match args.get(pick) {
                Some(a) => valops::cast(&eval(a, row, ctx)?, &e.data_type),
                None => Ok(Value::Null),
            };
        }
        _ => {}
    }
    let mut vals = Vec::with_capacity(args.len());
    for a in args {
        vals.push(eval(a, row, ctx)?);
    }
    let ty = &e.data_type;
    if func == ScalarFunc::Builtin {
        let is_max_arg = |i: usize| args.get(i).is_some_and(|a| a.data_type.is_max());
        let v = types::functions::call_with_types(name, &vals, Some(&is_max_arg))?;
        return if v.is_null() || v.data_type() == *ty {
            Ok(v)
        } else {
            v.cast(ty)
        };
    }
    // after the built-ins, which read their arguments in place: no copy of a large string
    let a0 = vals.first().cloned().unwrap_or(Value::Null);
    let null_in = vals.iter().any(Value::is_null);
    Ok(match func {
        ScalarFunc::Abs => match a0 {
            Value::Null => Value::Null,
            ref v if compare(v, &Value::Int(0)) == Some(Ordering::Less) => valops::negate(v)?,
            v => v,
        },
        ScalarFunc::NullIf => {
            let b = vals.get(1).cloned().unwrap_or(Value::Null);
            if compare(&a0, &b) == Some(Ordering::Equal) {
                Value::Null
            } else {
                a0
            }
        }
        ScalarFunc::Sign => match a0 {
            Value::Null => Value::Null,
            v => {
                let s = match compare(&v, &Value::Int(0)) {
                    Some(Ordering::Less) => -1,
                    Some(Ordering::Greater) => 1,
                    _ => 0,
                };
                valops::cast(&Value::Int(s), ty)?
            }
        },
        ScalarFunc::Ceiling | ScalarFunc::Floor => {
            if null_in {
                return Ok(Value::Null);
            }
            match a0 {
                Value::Decimal { mantissa, scale } => {
                    let d = 10i128.pow(scale as u32);
                    let mut q = mantissa / d;
                    let r = mantissa % d;
                    if func == ScalarFunc::Ceiling && r > 0 {
                        q += 1
                    }
                    if func == ScalarFunc::Floor && r < 0 {
                        q -= 1
                    }
                    valops::cast(
                        &Value::Decimal {
                            mantissa: q,
                            scale: 0,
                        },
                        ty,
                    )?
                }
                Value::Float(_) | Value::Real(_) | Value::Money(_) | Value::SmallMoney(_) => {
                    let f = arg_f64(&a0)?.unwrap_or(0.0);
                    let r = if func == ScalarFunc::Ceiling {
                        f.ceil()
                    } else {
                        f.floor()
                    };
                    valops::cast(&Value::Float(r), ty)?
                }
                v => v,
            }
        }
        ScalarFunc::Round => {
            if null_in {
                return Ok(Value::Null);
            }
            let n = arg_i64(vals.get(1).unwrap_or(&Value::Int(0)))?.unwrap_or(0);
            match a0 {
                Value::Decimal { mantissa, scale } => {
                    let keep = n.clamp(-38, scale as i64);
                    let drop = scale as i64 - keep;
                    let d = 10i128.pow(drop as u32);
                    let q = (mantissa.abs() + d / 2) / d * d * mantissa.signum();
                    Value::Decimal { mantissa: q, scale }
                }
                v if v.is_null() => v,
                v @ (Value::Float(_) | Value::Real(_)) => {
                    let f = arg_f64(&v)?.unwrap_or(0.0);
                    let m = 10f64.powi(n as i32);
                    valops::cast(&Value::Float((f * m).round() / m), ty)?
                }
                v => {
                    if n >= 0 {
                        v
                    } else {
                        let i = arg_i64(&v)?.unwrap_or(0);
                        let d = 10i64.pow((-n) as u32);
                        let q = (i.abs() + d / 2) / d * d * i.signum();
                        valops::cast(&Value::BigInt(q), ty)?
                    }
                }
            }
        }
        ScalarFunc::Power
        | ScalarFunc::Sqrt
        | ScalarFunc::Square
        | ScalarFunc::Exp
        | ScalarFunc::Log
        | ScalarFunc::Log10
        | ScalarFunc::Sin
        | ScalarFunc::Cos
        | ScalarFunc::Tan
        | ScalarFunc::Atan => {
            if null_in {
                return Ok(Value::Null);
            }
            let x = arg_f64(&a0)?.unwrap_or(0.0);
            let r = match func {
                ScalarFunc::Power => x.powf(arg_f64(at(&vals, 1))?.unwrap_or(0.0)),
                ScalarFunc::Sqrt => x.sqrt(),
                ScalarFunc::Square => x * x,
                ScalarFunc::Exp => x.exp(),
                ScalarFunc::Log => x.ln(),
                ScalarFunc::Log10 => x.log10(),
                ScalarFunc::Sin => x.sin(),
                ScalarFunc::Cos => x.cos(),
                ScalarFunc::Tan => x.tan(),
                _ => x.atan(),
            };
            if r.is_nan() {
                return Err(SqlError::custom(
                    3623,
                    16,
                    1,
                    "An invalid floating point operation occurred.",
                ));
            }
            valops::cast(&Value::Float(r), ty)?
        }
        ScalarFunc::Pi => Value::Float(std::f64::consts::PI),
        ScalarFunc::Len => match a0 {
            Value::Null => Value::Null,
            v => Value::Int(valops::to_text(&v).trim_end_matches(' ').chars().count() as i32),
        },
        ScalarFunc::DataLength => match a0 {
            Value::Null => Value::Null,
            Value::NVarChar(s) | Value::NChar(s) => Value::Int(s.encode_utf16().count() as i32 * 2),
            Value::VarChar(s) | Value::Char(s) => Value::Int(s.len() as i32),
            Value::Binary(b) | Value::VarBinary(b) => Value::Int(b.len() as i32),
            Value::Int(_) | Value::Real(_) | Value::SmallMoney(_) => Value::Int(4),
            Value::BigInt(_) | Value::Float(_) | Value::Money(_) => Value::Int(8),
            Value::SmallInt(_) => Value::Int(2),
            Value::TinyInt(_) | Value::Bit(_) => Value::Int(1),
            _ => Value::Int(8),
        },
        ScalarFunc::Upper
        | ScalarFunc::Lower
        | ScalarFunc::LTrim
        | ScalarFunc::RTrim
        | ScalarFunc::Trim
        | ScalarFunc::Reverse => {
            if null_in {
                return Ok(Value::Null);
            }
            let s = valops::to_text(&a0);
            let r = match func {
                ScalarFunc::Upper => types::functions::upper_text(&s),
                ScalarFunc::Lower => types::functions::lower_text(&s),
                ScalarFunc::LTrim => s.trim_start_matches(' ').to_string(),
                ScalarFunc::RTrim => s.trim_end_matches(' ').to_string(),
                ScalarFunc::Trim => s.trim_matches(' ').to_string(),
                _ => s.chars().rev().collect(),
            };
            str_result(r, ty)
        }
        ScalarFunc::Left | ScalarFunc::Right => {
            if null_in {
                return Ok(Value::Null);
            }
            let s = valops::to_text(&a0);
            let n = arg_i64(at(&vals, 1))?.unwrap_or(0);
            if n < 0 {
                return Err(SqlError::new(
                    536,
                    &[&(if func == ScalarFunc::Left {
                        "left"
                    } else {
                        "right"
                    })],
                ));
            }
            let chars: Vec<char> = s.chars().collect();
            let n = (n as usize).min(chars.len());
            let r: String = if func == ScalarFunc::Left {
                chars[..n].iter().collect()
            } else {
                chars[chars.len() - n..].iter().collect()
            };
            str_result(r, ty)
        }
        ScalarFunc::Substring => {
            if null_in {
                return Ok(Value::Null);
            }
            let s = valops::to_text(&a0);
            let start = arg_i64(at(&vals, 1))?.unwrap_or(1);
            let len = arg_i64(vals.get(2).unwrap_or(&Value::BigInt(i64::MAX / 4)))?.unwrap_or(0);
            if len < 0 {
                return Err(SqlError::new(537, &[]));
            }
            let end = start.saturating_add(len);
            let from = start.max(1);
            let r: String = s
                .chars()
                .enumerate()
                .filter(|(i, _)| {
                    let p = *i as i64 + 1;
                    p >= from && p < end
                })
                .map(|(_, c)| c)
                .collect();
            str_result(r, ty)
        }
        ScalarFunc::Replace => {
            if null_in {
                return Ok(Value::Null);
            }
            let s = valops::to_text(&a0);
            let from = valops::to_text(at(&vals, 1));
            let to = valops::to_text(at(&vals, 2));
            str_result(replace_ci(&s, &from, &to), ty)
        }
        ScalarFunc::Replicate => {
            if null_in {
                return Ok(Value::Null);
            }
            // one implementation, with the 2 GB cap and fallible allocation (types::lob)
            let is_max_arg = |i: usize| args.get(i).is_some_and(|a| a.data_type.is_max());
            let v = types::functions::call_with_types("REPLICATE", &vals, Some(&is_max_arg))?;
            valops::cast(&v, ty)?
        }
        ScalarFunc::Space => valops::cast(&types::functions::call("SPACE", &vals)?, ty)?,
        ScalarFunc::CharIndex => {
            if vals.len() < 2 || at(&vals, 0).is_null() || at(&vals, 1).is_null() {
                return Ok(Value::Null);
            }
            let needle: Vec<char> = valops::to_text(at(&vals, 0))
                .to_lowercase()
                .chars()
                .collect();
            let hay: Vec<char> = valops::to_text(at(&vals, 1))
                .to_lowercase()
                .chars()
                .collect();
            let start = match vals.get(2) {
                Some(v) => arg_i64(v)?.unwrap_or(1).max(1) as usize,
                None => 1,
            };
            let mut pos = 0;
            if !needle.is_empty() && needle.len() <= hay.len() {
                for i in (start - 1)..=(hay.len() - needle.len()) {
                    if hay[i..i + needle.len()] == needle[..] {
                        pos = i + 1;
                        break;
                    }
                }
            }
            Value::Int(pos as i32)
        }
        ScalarFunc::Concat => {
            let mut s = String::new();
            for v in &vals {
                if !v.is_null() {
                    s.push_str(&valops::to_text(v));
                }
            }
            str_result(s, ty)
        }
        ScalarFunc::ConcatWs => {
            let sep = valops::to_text(&a0);
            let parts: Vec<String> = vals
                .get(1..)
                .unwrap_or(&[])
                .iter()
                .filter(|v| !v.is_null())
                .map(valops::to_text)
                .collect();
            str_result(parts.join(&sep), ty)
        }
        ScalarFunc::Ascii | ScalarFunc::Unicode => match a0 {
            Value::Null => Value::Null,
            v => match valops::to_text(&v).chars().next() {
                Some(c) => Value::Int(c as i32),
                None => Value::Null,
            },
        },
        ScalarFunc::Char | ScalarFunc::NChar => match arg_i64(&a0)? {
            Some(n) if (0..=255).contains(&n) || func == ScalarFunc::NChar => {
                match char::from_u32(n as u32) {
                    Some(c) => str_result(c.to_string(), ty),
                    None => Value::Null,
                }
            }
            _ => Value::Null,
        },
        ScalarFunc::Choose => {
            let Some(i) = arg_i64(&a0)? else {
                return Ok(Value::Null);
            };
            if i >= 1 && (i as usize) < vals.len() {
                valops::cast(&vals[i as usize], ty)?
            } else {
                Value::Null
            }
        }
        ScalarFunc::Rand => {
            let n = ctx.rng_next();
            Value::Float(n)
        }
        _ => {
            if let Some(v) = ctx.env.call_function(name, &vals)? {
                return Ok(v);
            }
            return Err(SqlError::custom(
                195,
                15,
                1,
                format!("'{name}' is not a recognized built-in function name."),
            ));
        }
    })
}

fn replace_ci(s: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return s.to_string();
    }
    let ls = s.to_lowercase();
    let lf = from.to_lowercase();
    if ls.len() != s.len() || lf.len() != from.len() {
        return s.replace(from, to);
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(p) = ls[i..].find(&lf) {
        out.push_str(&s[i..i + p]);
        out.push_str(to);
        i += p + lf.len();
    }
    out.push_str(&s[i..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns() {
        assert!(like("abc", "a%", None));
        assert!(like("ABC", "a_c", None));
        assert!(!like("abd", "a_c", None));
        assert!(like("a1", "a[0-9]", None));
        assert!(!like("ab", "a[^b]", None));
        assert!(like("50%", "50!%", Some('!')));
        assert!(like("abc  ", "abc", None));
        assert!(like("", "%", None));
    }
}
