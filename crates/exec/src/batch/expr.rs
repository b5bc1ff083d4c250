//! Vectorized expression evaluation over a batch's selected rows.
//!
//! Kernels exist for column references and literals, comparisons of integers, floats,
//! decimals of one scale and dates, integer arithmetic, decimal / money + − × that needs no
//! rounding (`dense_decimal`: one loop over the scaled mantissas, NULL-masked; a row that
//! overflows sends the batch to the per-row path, which raises row mode's 8115 for it),
//! AND / OR / NOT and IS NULL. Every
//! other expression (CASE, CAST, LIKE, IN lists, string comparisons, decimal division,
//! functions) is evaluated value by value with row mode's own functions (`types::ops`,
//! `valops`, `eval`), so results, NULLs, collations and errors (8115 overflow, 8134 divide by
//! zero, conversions) are row mode's by construction.
//!
//! Evaluation order follows row mode's: an operand is evaluated only for the rows where row
//! mode would evaluate it (the right operand of an arithmetic or comparison only where the
//! left is not NULL; the parts of an AND only while no part was FALSE; a filter's AND only
//! while every part so far was TRUE), so a row that row mode never computes cannot raise an
//! error in batch mode either. Only the selected rows are computed; the others hold NULL.

use std::cmp::Ordering;

use common::SqlResult;
use plan::{BinaryOp, ScalarExpr, ScalarKind};
use types::{DataType, Value};

use super::vector::{Column, ColumnBuilder, Vector};
use super::Batch;
use crate::context::ExecCtx;
use crate::eval::{cmp_holds, eval};
use crate::valops;

use types::decimal::POW10 as POW10_I128;

/// An evaluated expression: a column vector or one value for every row.
#[derive(Clone, Debug)]
pub(crate) enum Operand {
    Col(Column),
    Const(Value),
}

impl Operand {
    pub fn value(&self, i: usize) -> Value {
        match self {
            Operand::Col(c) => c.value(i),
            Operand::Const(v) => v.clone(),
        }
    }
    pub fn is_null(&self, i: usize) -> bool {
        match self {
            Operand::Col(c) => c.is_null(i),
            Operand::Const(v) => v.is_null(),
        }
    }
    /// Whether any row may be NULL (false: the per-row NULL test can be skipped).
    fn may_be_null(&self) -> bool {
        match self {
            Operand::Col(c) => c.null_count() > 0,
            Operand::Const(v) => v.is_null(),
        }
    }
    /// Integer at `i` when the operand is an integer vector or constant (None: NULL).
    fn int(&self) -> Option<IntSrc<'_>> {
        match self {
            Operand::Col(Column {
                data: Vector::Int(a),
                ..
            }) => Some(IntSrc::Col(a)),
            Operand::Const(v) => match v {
                Value::TinyInt(x) => Some(IntSrc::Const(i64::from(*x))),
                Value::SmallInt(x) => Some(IntSrc::Const(i64::from(*x))),
                Value::Int(x) => Some(IntSrc::Const(i64::from(*x))),
                Value::BigInt(x) => Some(IntSrc::Const(*x)),
                _ => None,
            },
            _ => None,
        }
    }
}

enum IntSrc<'a> {
    Col(&'a arrow_array::Int64Array),
    Const(i64),
}

impl IntSrc<'_> {
    #[inline]
    fn get(&self, i: usize) -> i64 {
        match self {
            IntSrc::Col(a) => a.value(i),
            IntSrc::Const(x) => *x,
        }
    }
}

/// Ordered, comparable numbers of one kind (fast comparison paths).
enum NumSrc<'a> {
    Int(IntSrc<'a>),
    Float(&'a arrow_array::Float64Array),
    FloatConst(f64),
    Dec(&'a arrow_array::Decimal128Array, u8),
    DecConst(i128, u8),
    Date(&'a arrow_array::Date32Array),
    DateConst(i32),
}

fn num_src(o: &Operand) -> Option<NumSrc<'_>> {
    if let Some(i) = o.int() {
        return Some(NumSrc::Int(i));
    }
    match o {
        Operand::Col(c) => match &c.data {
            Vector::Float(a) => Some(NumSrc::Float(a)),
            Vector::Decimal(a, s) => Some(NumSrc::Dec(a, *s)),
            Vector::Date(a) => Some(NumSrc::Date(a)),
            _ => None,
        },
        Operand::Const(v) => match v {
            Value::Float(f) => Some(NumSrc::FloatConst(*f)),
            Value::Decimal { mantissa, scale } => Some(NumSrc::DecConst(*mantissa, *scale)),
            Value::Date(d) => Some(NumSrc::DateConst(*d)),
            _ => None,
        },
    }
}

/// Whether `v` and `w` are equal under the default collation: `Collation::compare`, after
/// two tests that decide most pairs without it (equal bytes are equal; ASCII texts of
/// different lengths once trailing blanks are trimmed are not, as `compare` orders them by
/// length after an equal common part).
#[inline]
fn eq_default(v: &str, w: &str) -> bool {
    if v.as_bytes() == w.as_bytes() {
        return true;
    }
    let (vt, wt) = (
        types::collation::trim_trailing_spaces(v),
        types::collation::trim_trailing_spaces(w),
    );
    if vt.len() != wt.len() && vt.is_ascii() && wt.is_ascii() {
        return false;
    }
    types::Collation::DEFAULT.compare(v, w) == Ordering::Equal
}

/// `a op b` for the selected rows when both sides are numbers of one kind (None: no kernel).
/// `eq_only`: only equality matters (= and <>): unequal strings may come back as Less.
fn compare_fast(
    a: &Operand,
    b: &Operand,
    sel: &[u32],
    len: usize,
    eq_only: bool,
) -> Option<Vec<Option<Ordering>>> {
    if let (Some(x), Some(y)) = (num_src(a), num_src(b)) {
        return compare_numbers(a, b, &x, &y, sel, len);
    }
    str_src(a)?;
    str_src(b)?;
    // strings: the default collation, as row mode's `types::compare` of two strings
    let mut out = vec![None; len];
    for &r in sel {
        let i = r as usize;
        if let (Some(p), Some(q)) = (str_at(a, i), str_at(b, i)) {
            out[i] = Some(if !eq_only {
                types::Collation::DEFAULT.compare(p, q)
            } else if eq_default(p, q) {
                Ordering::Equal
            } else {
                Ordering::Less
            });
        }
    }
    Some(out)
}

fn compare_numbers(
    a: &Operand,
    b: &Operand,
    x: &NumSrc<'_>,
    y: &NumSrc<'_>,
    sel: &[u32],
    len: usize,
) -> Option<Vec<Option<Ordering>>> {
    let mut out = vec![None; len];
    // the per-row NULL test only where a side has NULLs
    let nullable = a.may_be_null() || b.may_be_null();
    macro_rules! each {
        ($fx:expr, $fy:expr) => {{
            for &r in sel {
                let i = r as usize;
                if nullable && (a.is_null(i) || b.is_null(i)) {
                    continue;
                }
                out[i] = $fx(i).partial_cmp(&$fy(i));
            }
        }};
    }
    match (x, y) {
        (NumSrc::Int(p), NumSrc::Int(q)) => each!(|i| p.get(i), |i| q.get(i)),
        (NumSrc::Float(p), NumSrc::Float(q)) => each!(|i| p.value(i), |i| q.value(i)),
        (NumSrc::Float(p), NumSrc::FloatConst(q)) => each!(|i| p.value(i), |_| *q),
        (NumSrc::FloatConst(p), NumSrc::Float(q)) => each!(|_| *p, |i| q.value(i)),
        (NumSrc::Dec(p, s), NumSrc::Dec(q, t)) if s == t => each!(|i| p.value(i), |i| q.value(i)),
        (NumSrc::Dec(p, s), NumSrc::DecConst(q, t)) if s == t => each!(|i| p.value(i), |_| *q),
        (NumSrc::DecConst(p, s), NumSrc::Dec(q, t)) if s == t => each!(|_| *p, |i| q.value(i)),
        (NumSrc::Date(p), NumSrc::Date(q)) => each!(|i| p.value(i), |i| q.value(i)),
        (NumSrc::Date(p), NumSrc::DateConst(q)) => each!(|i| p.value(i), |_| *q),
        (NumSrc::DateConst(p), NumSrc::Date(q)) => each!(|_| *p, |i| q.value(i)),
        _ => {
            // exact numbers of different scales or kinds (decimal vs int, money): compared
            // exactly, as row mode's `types::compare` does
            let (p, q) = (dec_src(a, true)?, dec_src(b, true)?);
            for &r in sel {
                let i = r as usize;
                if nullable && (a.is_null(i) || b.is_null(i)) {
                    continue;
                }
                let ((xm, xs), (ym, ys)) = (p.get(i), q.get(i));
                out[i] = Some(types::compare::cmp_decimal(xm, xs, ym, ys));
            }
        }
    }
    Some(out)
}

/// A string vector or string constant.
fn str_src(o: &Operand) -> Option<()> {
    match o {
        Operand::Col(Column {
            data: Vector::Str(_),
            ..
        }) => Some(()),
        Operand::Const(v) => v.as_str().map(|_| ()),
        _ => None,
    }
}

/// Row `i` of a string vector or string constant (None: NULL or not a string).
#[inline]
fn str_at(o: &Operand, i: usize) -> Option<&str> {
    match o {
        Operand::Col(Column {
            data: Vector::Str(a),
            ..
        }) => (!arrow_array::Array::is_null(a.as_ref(), i)).then(|| a.value(i)),
        Operand::Const(v) => v.as_str(),
        _ => None,
    }
}

/// `x IN (list)` for the selected rows when `x` is a string or exact-number vector and the
/// list holds constants of the same family (None: no kernel). Row mode's answer: TRUE at
/// the first equal item, NULL when no item is equal and one was NULL, else FALSE.
fn in_list_fast(
    x: &Operand,
    list: &[Operand],
    sel: &[u32],
    len: usize,
) -> Option<Vec<Option<bool>>> {
    let mut out = vec![None; len];
    let has_null = list
        .iter()
        .any(|o| matches!(o, Operand::Const(Value::Null)));
    let items: Vec<&Operand> = list
        .iter()
        .filter(|o| !matches!(o, Operand::Const(Value::Null)))
        .collect();
    if !items.iter().all(|o| matches!(o, Operand::Const(_))) {
        return None;
    }
    let decide = |hit: bool| {
        if hit {
            Some(true)
        } else if has_null {
            None
        } else {
            Some(false)
        }
    };
    if matches!(
        x,
        Operand::Col(Column {
            data: Vector::Str(_),
            ..
        })
    ) {
        let strs: Vec<&str> = items.iter().map(|o| str_at(o, 0)).collect::<Option<_>>()?;
        for &r in sel {
            let i = r as usize;
            if let Some(v) = str_at(x, i) {
                let hit = strs.iter().any(|w| eq_default(v, w));
                out[i] = decide(hit);
            }
        }
        return Some(out);
    }
    let p = match x {
        Operand::Col(_) => dec_src(x, true)?,
        Operand::Const(_) => return None,
    };
    let nums: Vec<(i128, u8)> = items
        .iter()
        .map(|o| dec_src(o, true).map(|d| d.get(0)))
        .collect::<Option<_>>()?;
    for &r in sel {
        let i = r as usize;
        if x.is_null(i) {
            continue;
        }
        let (m, s) = p.get(i);
        let hit = nums
            .iter()
            .any(|&(n, t)| types::compare::cmp_decimal(m, s, n, t) == Ordering::Equal);
        out[i] = decide(hit);
    }
    Some(out)
}

/// An exact number as (mantissa, scale): a decimal or money vector, an integer vector (scale
/// 0), or such a constant.
enum DecSrc<'a> {
    Dec(&'a arrow_array::Decimal128Array, u8),
    Int(&'a arrow_array::Int64Array),
    Const(i128, u8),
}

impl DecSrc<'_> {
    /// The scale of every value.
    fn scale(&self) -> u8 {
        match self {
            DecSrc::Dec(_, s) | DecSrc::Const(_, s) => *s,
            DecSrc::Int(_) => 0,
        }
    }

    #[inline]
    fn get(&self, i: usize) -> (i128, u8) {
        match self {
            DecSrc::Dec(a, s) => (a.value(i), *s),
            DecSrc::Int(a) => (i128::from(a.value(i)), 0),
            DecSrc::Const(m, s) => (*m, *s),
        }
    }
}

/// `o` as an exact number; `bits`: whether bit values count (they do in comparisons, not in
/// arithmetic, where row mode converts them its own way).
fn dec_src(o: &Operand, bits: bool) -> Option<DecSrc<'_>> {
    match o {
        Operand::Col(c) => match &c.data {
            Vector::Decimal(a, s) => Some(DecSrc::Dec(a, *s)),
            Vector::Int(a) if bits || c.ty != DataType::Bit => Some(DecSrc::Int(a)),
            _ => None,
        },
        Operand::Const(v) => match v {
            Value::Bit(b) if bits => Some(DecSrc::Const(i128::from(*b), 0)),
            Value::TinyInt(_)
            | Value::SmallInt(_)
            | Value::Int(_)
            | Value::BigInt(_)
            | Value::Decimal { .. }
            | Value::Money(_)
            | Value::SmallMoney(_) => v.as_decimal().map(|(m, s)| DecSrc::Const(m, s)),
            _ => None,
        },
    }
}

/// The rows of `sel` where `o` is not NULL.
fn not_null(o: &Operand, sel: &[u32]) -> Vec<u32> {
    match o {
        Operand::Const(v) if v.is_null() => Vec::new(),
        Operand::Const(_) => sel.to_vec(),
        Operand::Col(c) => sel
            .iter()
            .copied()
            .filter(|&r| !c.is_null(r as usize))
            .collect(),
    }
}

/// Truth of a bit operand at `i` (None: unknown).
fn truth_at(o: &Operand, i: usize) -> Option<bool> {
    match o {
        Operand::Col(Column {
            data: Vector::Bool(a),
            ..
        }) => (!arrow_array::Array::is_null(a.as_ref(), i)).then(|| a.value(i)),
        _ => valops::truth(&o.value(i)),
    }
}

fn bools(len: usize, sel: &[u32], f: impl Fn(usize) -> Option<bool>) -> SqlResult<Operand> {
    let mut b = ColumnBuilder::bools(len);
    let mut next = 0usize;
    for &r in sel {
        let i = r as usize;
        while next < i {
            b.push_null();
            next += 1;
        }
        match f(i) {
            Some(t) => b.push_bool(t),
            None => b.push_null(),
        }
        next = i + 1;
    }
    while next < len {
        b.push_null();
        next += 1;
    }
    Ok(Operand::Col(b.finish()?))
}

/// Evaluates `e` for the rows `sel` (ascending) of `batch`.
pub(crate) fn eval_batch(
    e: &ScalarExpr,
    batch: &Batch,
    sel: &[u32],
    ctx: &mut ExecCtx,
) -> SqlResult<Operand> {
    common::stack::grow(|| eval_unguarded(e, batch, sel, ctx))
}

fn eval_unguarded(
    e: &ScalarExpr,
    batch: &Batch,
    sel: &[u32],
    ctx: &mut ExecCtx,
) -> SqlResult<Operand> {
    let len = batch.len;
    // a kernel's operands are vectors: an operand of another type (a CAST to datetime inside
    // a comparison) sends the whole expression to the row evaluator
    if !e
        .children()
        .iter()
        .all(|c| plan::ExecMode::vectorizable_type(&c.data_type))
    {
        return per_row(e, batch, sel, ctx);
    }
    match &e.kind {
        ScalarKind::Literal(v) => Ok(Operand::Const(v.clone())),
        ScalarKind::Column(i) => Ok(match batch.columns.get(*i).and_then(|c| c.as_ref()) {
            Some(c) => Operand::Col(c.clone()),
            // a column the scan does not decode is NULL, as in row mode
            None => Operand::Const(Value::Null),
        }),
        ScalarKind::Compare(op, a, b) => {
            let x = eval_batch(a, batch, sel, ctx)?;
            let sel_b = not_null(&x, sel);
            let y = eval_batch(b, batch, &sel_b, ctx)?;
            let eq_only = matches!(op, plan::CmpOp::Eq | plan::CmpOp::Ne);
            if let Some(ords) = compare_fast(&x, &y, &sel_b, len, eq_only) {
                return bools(len, sel, |i| ords[i].map(|o| cmp_holds(*op, o)));
            }
            let mut res = vec![None; len];
            for &r in &sel_b {
                let i = r as usize;
                res[i] =
                    valops::compare_checked(&x.value(i), &y.value(i))?.map(|o| cmp_holds(*op, o));
            }
            bools(len, sel, |i| res[i])
        }
        ScalarKind::Binary(op, a, b) if !e.data_type.is_max() => {
            let x = eval_batch(a, batch, sel, ctx)?;
            let sel_b = not_null(&x, sel);
            let y = eval_batch(b, batch, &sel_b, ctx)?;
            arith(*op, &x, &y, &e.data_type, sel, &sel_b, len)
        }
        ScalarKind::And(parts) | ScalarKind::Or(parts) => {
            let and = matches!(e.kind, ScalarKind::And(_));
            // None = unknown so far; decided rows drop out of the selection
            let mut state: Vec<Option<bool>> = vec![Some(and); len];
            let mut live = sel.to_vec();
            for p in parts {
                if live.is_empty() {
                    break;
                }
                let v = eval_batch(p, batch, &live, ctx)?;
                live.retain(|&r| {
                    let i = r as usize;
                    match truth_at(&v, i) {
                        Some(t) if t != and => {
                            state[i] = Some(t);
                            false
                        }
                        None => {
                            state[i] = None;
                            true
                        }
                        Some(_) => true,
                    }
                });
            }
            bools(len, sel, |i| state[i])
        }
        // a list of literals (what folding leaves of constant items): nothing in the list
        // can raise an error, so evaluating it up front changes nothing
        ScalarKind::InList { expr, list }
            if list
                .iter()
                .all(|item| matches!(item.kind, ScalarKind::Literal(_))) =>
        {
            let x = eval_batch(expr, batch, sel, ctx)?;
            let items: Vec<Operand> = list
                .iter()
                .filter_map(|item| match &item.kind {
                    ScalarKind::Literal(v) => Some(Operand::Const(v.clone())),
                    _ => None,
                })
                .collect();
            match in_list_fast(&x, &items, sel, len) {
                Some(res) => bools(len, sel, |i| res[i]),
                None => per_row(e, batch, sel, ctx),
            }
        }
        ScalarKind::Not(a) => {
            let v = eval_batch(a, batch, sel, ctx)?;
            bools(len, sel, |i| truth_at(&v, i).map(|t| !t))
        }
        ScalarKind::IsNull(a) => {
            let v = eval_batch(a, batch, sel, ctx)?;
            bools(len, sel, |i| Some(v.is_null(i)))
        }
        ScalarKind::Like {
            expr: x,
            pattern,
            escape,
        } if x.data_type.is_string() => match const_like(pattern, escape.as_deref()) {
            Some(pat) => {
                let v = eval_batch(x, batch, sel, ctx)?;
                like(&v, &pat, sel, len)
            }
            None => per_row(e, batch, sel, ctx),
        },
        ScalarKind::Case { whens, else_ } => case(e, whens, else_.as_deref(), batch, sel, ctx),
        ScalarKind::Function {
            func: plan::ScalarFunc::Builtin,
            name,
            args,
        } if args.len() == 1
            && args[0].data_type == DataType::Date
            && e.data_type == DataType::Int
            && date_part_fn(name).is_some() =>
        {
            let v = eval_batch(&args[0], batch, sel, ctx)?;
            match date_part_fn(name) {
                Some(f) => date_parts(&v, f, sel, len),
                None => per_row(e, batch, sel, ctx),
            }
        }
        ScalarKind::Function {
            func: plan::ScalarFunc::Builtin,
            name,
            args,
        } if e.data_type == DataType::Int && datepart_of_date(name, args).is_some() => {
            match datepart_of_date(name, args) {
                Some(f) => {
                    let v = eval_batch(&args[1], batch, sel, ctx)?;
                    date_parts(&v, f, sel, len)
                }
                None => per_row(e, batch, sel, ctx),
            }
        }
        _ => per_row(e, batch, sel, ctx),
    }
}

/// A LIKE whose pattern and escape are literal strings, compiled once (None: no kernel).
fn const_like(
    pattern: &ScalarExpr,
    escape: Option<&ScalarExpr>,
) -> Option<types::like::LikePattern> {
    let ScalarKind::Literal(p) = &pattern.kind else {
        return None;
    };
    let p = p.as_str()?;
    // row mode: the escape's text, its first character
    let esc = match escape {
        None => None,
        Some(ScalarExpr {
            kind: ScalarKind::Literal(v),
            ..
        }) => v.as_str()?.chars().next(),
        Some(_) => return None,
    };
    Some(types::like::LikePattern::compile_for_many(
        p,
        esc,
        types::Collation::DEFAULT,
    ))
}

/// `v LIKE pat` for the selected rows: row mode's `like_match` (NULL for a NULL value; the
/// value as it is stored, char padding included).
fn like(
    v: &Operand,
    pat: &types::like::LikePattern,
    sel: &[u32],
    len: usize,
) -> SqlResult<Operand> {
    match v {
        Operand::Col(Column {
            data: Vector::Str(a),
            ..
        }) => {
            let a = a.as_ref();
            bools(len, sel, |i| {
                (!arrow_array::Array::is_null(a, i)).then(|| pat.matches(a.value(i), false))
            })
        }
        Operand::Const(c) => {
            let t = if c.is_null() {
                None
            } else {
                Some(pat.matches(&valops::to_text(c), false))
            };
            bools(len, sel, |_| t)
        }
        Operand::Col(c) => bools(len, sel, |i| {
            let x = c.value(i);
            (!x.is_null()).then(|| pat.matches(&valops::to_text(&x), false))
        }),
    }
}

/// The date parts `YEAR` / `MONTH` / `DAY` (a built-in's name) as the index into
/// `civil_from_days`'s (year, month, day).
fn date_part_fn(name: &str) -> Option<usize> {
    ["YEAR", "MONTH", "DAY"]
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
}

/// `DATEPART(year | month | day, d)` of a date `d` (no `@@DATEFIRST` argument: the binder adds
/// it only for week and weekday) as the index into `civil_from_days`'s (year, month, day): the
/// same values as `YEAR` / `MONTH` / `DAY` (TPC-H Q7, Q8, Q9).
fn datepart_of_date(name: &str, args: &[ScalarExpr]) -> Option<usize> {
    if !name.eq_ignore_ascii_case("DATEPART") || args.len() != 2 {
        return None;
    }
    if args[1].data_type != DataType::Date {
        return None;
    }
    let part = args[0].as_literal()?.as_str()?;
    match types::functions::DatePart::parse(part).ok()? {
        types::functions::DatePart::Year => Some(0),
        types::functions::DatePart::Month => Some(1),
        types::functions::DatePart::Day => Some(2),
        _ => None,
    }
}

/// `YEAR` / `MONTH` / `DAY` of a date operand: `types::datetime::civil_from_days`, the
/// calendar `types::functions` computes them with (int results; NULL for NULL).
fn date_parts(v: &Operand, part: usize, sel: &[u32], len: usize) -> SqlResult<Operand> {
    let of = |d: i32| {
        let (y, m, day) = types::datetime::civil_from_days(d);
        [i64::from(y), i64::from(m), i64::from(day)][part]
    };
    let mut out = ColumnBuilder::new(&DataType::Int, len)
        .ok_or_else(|| common::SqlError::internal("batch mode: no int vector"))?;
    let mut next = 0usize;
    for &r in sel {
        let i = r as usize;
        while next < i {
            out.push_null();
            next += 1;
        }
        next = i + 1;
        let d = match v {
            Operand::Col(Column {
                data: Vector::Date(a),
                ..
            }) => (!arrow_array::Array::is_null(a.as_ref(), i)).then(|| a.value(i)),
            other => match other.value(i) {
                Value::Date(d) => Some(d),
                _ => None,
            },
        };
        match d {
            Some(d) => out.push_i64(of(d)),
            None => out.push_null(),
        }
    }
    while next < len {
        out.push_null();
        next += 1;
    }
    Ok(Operand::Col(out.finish()?))
}

/// Searched CASE: each WHEN evaluated for the rows no earlier WHEN took, each THEN only for
/// the rows its WHEN is TRUE for, the ELSE for the rest — the rows row mode evaluates each
/// part for. Values go into the CASE's type as row mode's per-row results do
/// (`ColumnBuilder::push`).
fn case(
    e: &ScalarExpr,
    whens: &[(ScalarExpr, ScalarExpr)],
    else_: Option<&ScalarExpr>,
    batch: &Batch,
    sel: &[u32],
    ctx: &mut ExecCtx,
) -> SqlResult<Operand> {
    let len = batch.len;
    let mut rest = sel.to_vec();
    // the branch of each row (usize::MAX: NULL)
    let mut which = vec![usize::MAX; len];
    let mut results: Vec<Operand> = Vec::new();
    for (w, t) in whens {
        if rest.is_empty() {
            break;
        }
        let c = eval_batch(w, batch, &rest, ctx)?;
        let (hit, miss): (Vec<u32>, Vec<u32>) = rest
            .iter()
            .partition(|&&r| truth_at(&c, r as usize) == Some(true));
        rest = miss;
        if hit.is_empty() {
            continue;
        }
        let v = eval_batch(t, batch, &hit, ctx)?;
        for &r in &hit {
            which[r as usize] = results.len();
        }
        results.push(v);
    }
    if let (Some(el), false) = (else_, rest.is_empty()) {
        let v = eval_batch(el, batch, &rest, ctx)?;
        for &r in &rest {
            which[r as usize] = results.len();
        }
        results.push(v);
    }
    let Some(mut out) = ColumnBuilder::new(&e.data_type, len) else {
        return Err(common::SqlError::internal(format!(
            "batch mode cannot hold {} values",
            e.data_type.sql_name()
        )));
    };
    for (i, &k) in which.iter().enumerate() {
        match results.get(k) {
            Some(v) => out.push(v.value(i))?,
            None => out.push_null(),
        }
    }
    Ok(Operand::Col(out.finish()?))
}

/// Row mode's evaluator, value by value: the input row holds the batch's columns that `e`
/// reads.
fn per_row(e: &ScalarExpr, batch: &Batch, sel: &[u32], ctx: &mut ExecCtx) -> SqlResult<Operand> {
    let mut used = Vec::new();
    e.columns_used(&mut used);
    used.sort_unstable();
    used.dedup();
    let width = batch.columns.len().max(used.last().map_or(0, |m| m + 1));
    let mut row = vec![Value::Null; width];
    let Some(mut out) = ColumnBuilder::new(&e.data_type, batch.len) else {
        return Err(common::SqlError::internal(format!(
            "batch mode cannot hold {} values",
            e.data_type.sql_name()
        )));
    };
    let mut next = 0usize;
    for &r in sel {
        let i = r as usize;
        while next < i {
            out.push_null();
            next += 1;
        }
        for &c in &used {
            row[c] = batch
                .columns
                .get(c)
                .and_then(|col| col.as_ref())
                .map_or(Value::Null, |col| col.value(i));
        }
        out.push(eval(e, &row, ctx)?)?;
        next = i + 1;
    }
    while next < batch.len {
        out.push_null();
        next += 1;
    }
    Ok(Operand::Col(out.finish()?))
}

/// `x op y` of result type `ty`: integer kernels with checked arithmetic; any row they cannot
/// decide (overflow, out of the result type's range, a zero divisor, other types) goes to
/// `types::ops::arith_typed`, row mode's arithmetic, which returns its value or its error.
fn arith(
    op: BinaryOp,
    x: &Operand,
    y: &Operand,
    ty: &DataType,
    sel: &[u32],
    sel_b: &[u32],
    len: usize,
) -> SqlResult<Operand> {
    let range = match ty {
        DataType::TinyInt => Some((0i64, 255i64)),
        DataType::SmallInt => Some((i64::from(i16::MIN), i64::from(i16::MAX))),
        DataType::Int => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
        DataType::BigInt => Some((i64::MIN, i64::MAX)),
        _ => None,
    };
    let ints = match (x.int(), y.int(), range) {
        (Some(p), Some(q), Some(r)) => Some((p, q, r)),
        _ => None,
    };
    // exact decimal and money results: row mode's own decimal arithmetic on the mantissas
    let dec_result = match ty {
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            let p = POW10_I128
                .get(usize::from(*precision))
                .copied()
                .unwrap_or(i128::MAX);
            Some((*scale, -p, p))
        }
        DataType::Money => Some((4, i128::from(i64::MIN) - 1, i128::from(i64::MAX) + 1)),
        DataType::SmallMoney => Some((4, i128::from(i32::MIN) - 1, i128::from(i32::MAX) + 1)),
        _ => None,
    };
    let decs = match (dec_result, dec_src(x, false), dec_src(y, false)) {
        (Some(r), Some(p), Some(q)) => Some((p, q, r)),
        _ => None,
    };
    // + − × whose operands need no rounding to reach the result scale (TPC-H's
    // decimal(15,2) prices, 1 − discount, and their products): exact i128 arithmetic with
    // per-operand factors computed once; equal to `decimal_arith` wherever it does not
    // overflow (an overflow takes the general path below)
    let exact = decs.as_ref().and_then(|(p, q, (scale, ..))| {
        let (xs, ys) = (p.scale(), q.scale());
        let factor = |from: u8| {
            POW10_I128
                .get(usize::from(scale.checked_sub(from)?))
                .copied()
        };
        match op {
            BinaryOp::Add | BinaryOp::Sub => Some((factor(xs)?, factor(ys)?)),
            BinaryOp::Mul => Some((factor(xs.checked_add(ys)?)?, 1)),
            _ => None,
        }
    });
    if let (Some((p, q, (_, lo, hi))), Some((fx, fy))) = (&decs, exact) {
        if let Some(v) = dense_decimal(op, p, q, (fx, fy), (*lo, *hi), y, sel_b, len)? {
            return Ok(Operand::Col(ColumnBuilder::decimals(ty, v.0, v.1)?));
        }
    }
    let Some(mut out) = ColumnBuilder::new(ty, len) else {
        return Err(common::SqlError::internal(format!(
            "batch mode cannot hold {} values",
            ty.sql_name()
        )));
    };
    let y_nulls = y.may_be_null();
    let aop = match op {
        BinaryOp::Add | BinaryOp::Concat => types::ArithOp::Add,
        BinaryOp::Sub => types::ArithOp::Sub,
        BinaryOp::Mul => types::ArithOp::Mul,
        BinaryOp::Div => types::ArithOp::Div,
        BinaryOp::Mod => types::ArithOp::Mod,
        BinaryOp::BitAnd => types::ArithOp::BitAnd,
        BinaryOp::BitOr => types::ArithOp::BitOr,
        BinaryOp::BitXor => types::ArithOp::BitXor,
    };
    let mut k = 0usize;
    let mut next = 0usize;
    for &r in sel {
        let i = r as usize;
        while next < i {
            out.push_null();
            next += 1;
        }
        next = i + 1;
        // rows where x is NULL are not in sel_b: NULL without evaluating y
        if sel_b.get(k) != Some(&r) {
            out.push_null();
            continue;
        }
        k += 1;
        if y_nulls && y.is_null(i) {
            out.push_null();
            continue;
        }
        if let Some((p, q, (lo, hi))) = &ints {
            let (a, b) = (p.get(i), q.get(i));
            let fast = match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                BinaryOp::Div if b != 0 => a.checked_div(b),
                BinaryOp::Mod if b != 0 => a.checked_rem(b),
                _ => None,
            };
            if let Some(v) = fast.filter(|v| (*lo..=*hi).contains(v)) {
                out.push_i64(v);
                continue;
            }
        }
        if let (Some((p, q, (_, lo, hi))), Some((fx, fy))) = (&decs, exact) {
            let (xm, ym) = (p.get(i).0, q.get(i).0);
            let m = match op {
                BinaryOp::Add => xm
                    .checked_mul(fx)
                    .zip(ym.checked_mul(fy))
                    .and_then(|(a, b)| a.checked_add(b)),
                BinaryOp::Sub => xm
                    .checked_mul(fx)
                    .zip(ym.checked_mul(fy))
                    .and_then(|(a, b)| a.checked_sub(b)),
                _ => xm.checked_mul(ym).and_then(|p| p.checked_mul(fx)),
            };
            if let Some(m) = m.filter(|m| *lo < *m && *m < *hi) {
                out.push_i128(m);
                continue;
            }
        }
        if let Some((p, q, (scale, lo, hi))) = &decs {
            let ((xm, xs), (ym, ys)) = (p.get(i), q.get(i));
            // (None: an overflow or a zero divisor; out of range: too many digits — row
            // mode's arithmetic below raises its error, 8115 or 8134)
            if let Some(Ok(m)) = types::ops::decimal_arith(aop, xm, xs, ym, ys, *scale) {
                if *lo < m && m < *hi {
                    out.push_i128(m);
                    continue;
                }
            }
        }
        out.push(types::ops::arith_typed(aop, &x.value(i), &y.value(i), ty)?)?;
    }
    while next < len {
        out.push_null();
        next += 1;
    }
    Ok(Operand::Col(out.finish()?))
}

/// Decimal digits that bound every value of `d` (|value| < 10^digits).
fn digits(d: &DecSrc<'_>) -> u32 {
    match d {
        DecSrc::Dec(a, _) => u32::from(a.precision()),
        DecSrc::Int(_) => 19,
        DecSrc::Const(m, _) => {
            let m = m.unsigned_abs();
            (0..39u32)
                .find(|&k| {
                    POW10_I128
                        .get(k as usize)
                        .is_none_or(|p| m < p.unsigned_abs())
                })
                .unwrap_or(39)
        }
    }
}

/// The mantissas and validity (None: no NULL) of a dense decimal result.
type DenseDecimals = (Vec<i128>, Option<Vec<bool>>);

/// `x op y` (+, −, ×) of exact numbers needing no rounding (`f`: the factors that bring x
/// and y, or a product's scale, to the result's scale) for the rows `sel_b` (x not NULL),
/// as one loop over the mantissas per operand kind: no `Value`, no per-row dispatch, and
/// no overflow test where the operands' precisions rule overflow out. The result is
/// NULL where y is NULL and for the rows outside `sel_b`. None when a row overflows or
/// leaves the result's range (`lo` < m < `hi`): the caller's per-row path then raises row
/// mode's error (8115) for exactly the first such row.
#[allow(clippy::too_many_arguments)]
fn dense_decimal(
    op: BinaryOp,
    p: &DecSrc<'_>,
    q: &DecSrc<'_>,
    (fx, fy): (i128, i128),
    (lo, hi): (i128, i128),
    y: &Operand,
    sel_b: &[u32],
    len: usize,
) -> SqlResult<Option<DenseDecimals>> {
    if !matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) {
        return Ok(None);
    }
    let rows: std::borrow::Cow<'_, [u32]> = if y.may_be_null() {
        sel_b
            .iter()
            .copied()
            .filter(|&r| !y.is_null(r as usize))
            .collect()
    } else {
        sel_b.into()
    };
    let mut out = vec![0i128; len];
    // |x·fx| < 10^(digits(x) + log fx): no i128 overflow below 10^38 (i128::MAX > 1.7·10^38)
    let log = |f: i128| {
        POW10_I128
            .iter()
            .position(|&p| p == f)
            .map_or(u32::MAX / 4, |k| k as u32)
    };
    let (dx, dy) = (digits(p) + log(fx), digits(q) + log(fy));
    let safe = match op {
        BinaryOp::Mul => digits(p) + digits(q) + log(fx) <= 38,
        _ => dx <= 37 && dy <= 37,
    };
    let mut ok = true;
    macro_rules! each {
        ($gx:expr, $gy:expr) => {{
            let (gx, gy) = ($gx, $gy);
            match (op, safe) {
                (BinaryOp::Add, true) => {
                    for &r in rows.iter() {
                        let i = r as usize;
                        let m = gx(i) * fx + gy(i) * fy;
                        ok &= lo < m && m < hi;
                        out[i] = m;
                    }
                }
                (BinaryOp::Sub, true) => {
                    for &r in rows.iter() {
                        let i = r as usize;
                        let m = gx(i) * fx - gy(i) * fy;
                        ok &= lo < m && m < hi;
                        out[i] = m;
                    }
                }
                (BinaryOp::Mul, true) => {
                    for &r in rows.iter() {
                        let i = r as usize;
                        let m = gx(i) * gy(i) * fx;
                        ok &= lo < m && m < hi;
                        out[i] = m;
                    }
                }
                _ => {
                    for &r in rows.iter() {
                        let i = r as usize;
                        let (a, b): (i128, i128) = (gx(i), gy(i));
                        let m = match op {
                            BinaryOp::Add => a
                                .checked_mul(fx)
                                .zip(b.checked_mul(fy))
                                .and_then(|(a, b)| a.checked_add(b)),
                            BinaryOp::Sub => a
                                .checked_mul(fx)
                                .zip(b.checked_mul(fy))
                                .and_then(|(a, b)| a.checked_sub(b)),
                            _ => a.checked_mul(b).and_then(|m| m.checked_mul(fx)),
                        };
                        match m {
                            Some(m) if lo < m && m < hi => out[i] = m,
                            _ => return Ok(None),
                        }
                    }
                }
            }
        }};
    }
    macro_rules! with_y {
        ($gx:expr) => {
            match q {
                DecSrc::Dec(b, _) => {
                    let b = b.values();
                    each!($gx, |i: usize| b[i])
                }
                DecSrc::Int(b) => {
                    let b = b.values();
                    each!($gx, |i: usize| i128::from(b[i]))
                }
                DecSrc::Const(m, _) => {
                    let m = *m;
                    each!($gx, |_: usize| m)
                }
            }
        };
    }
    match p {
        DecSrc::Dec(a, _) => {
            let a = a.values();
            with_y!(|i: usize| a[i])
        }
        DecSrc::Int(a) => {
            let a = a.values();
            with_y!(|i: usize| i128::from(a[i]))
        }
        DecSrc::Const(m, _) => {
            let m = *m;
            with_y!(|_: usize| m)
        }
    }
    if !ok {
        return Ok(None);
    }
    let valid = (rows.len() < len).then(|| {
        let mut v = vec![false; len];
        for &r in rows.iter() {
            v[r as usize] = true;
        }
        v
    });
    Ok(Some((out, valid)))
}

/// The rows of `sel` for which the predicate `e` is TRUE, evaluated as row mode's filter
/// does (`eval_pred`: an AND stops at the first part that is not TRUE; an OR at the first
/// that is).
pub(crate) fn filter(
    e: &ScalarExpr,
    batch: &Batch,
    sel: &[u32],
    ctx: &mut ExecCtx,
) -> SqlResult<Vec<u32>> {
    common::stack::grow(|| match &e.kind {
        ScalarKind::And(parts) => {
            let mut live = sel.to_vec();
            for p in parts {
                if live.is_empty() {
                    break;
                }
                live = filter(p, batch, &live, ctx)?;
            }
            Ok(live)
        }
        ScalarKind::Or(parts) => {
            let mut rest = sel.to_vec();
            let mut hit = vec![false; batch.len];
            for p in parts {
                if rest.is_empty() {
                    break;
                }
                let t = filter(p, batch, &rest, ctx)?;
                for &r in &t {
                    hit[r as usize] = true;
                }
                rest.retain(|&r| !hit[r as usize]);
            }
            Ok(sel.iter().copied().filter(|&r| hit[r as usize]).collect())
        }
        // a comparison with a kernel narrows the selection without a predicate vector
        ScalarKind::Compare(op, a, b)
            if plan::ExecMode::vectorizable_type(&a.data_type)
                && plan::ExecMode::vectorizable_type(&b.data_type) =>
        {
            let x = eval_batch(a, batch, sel, ctx)?;
            let sel_b = not_null(&x, sel);
            let y = eval_batch(b, batch, &sel_b, ctx)?;
            let eq_only = matches!(op, plan::CmpOp::Eq | plan::CmpOp::Ne);
            if let Some(ords) = compare_fast(&x, &y, &sel_b, batch.len, eq_only) {
                return Ok(sel_b
                    .into_iter()
                    .filter(|&r| ords[r as usize].is_some_and(|o| cmp_holds(*op, o)))
                    .collect());
            }
            let mut live = Vec::with_capacity(sel_b.len());
            for r in sel_b {
                let i = r as usize;
                let o = valops::compare_checked(&x.value(i), &y.value(i))?;
                if o.is_some_and(|o| cmp_holds(*op, o)) {
                    live.push(r);
                }
            }
            Ok(live)
        }
        _ => {
            let v = eval_batch(e, batch, sel, ctx)?;
            Ok(sel
                .iter()
                .copied()
                .filter(|&r| truth_at(&v, r as usize) == Some(true))
                .collect())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec_col(p: u8, s: u8, vals: &[Option<i128>]) -> Operand {
        let ty = DataType::Decimal {
            precision: p,
            scale: s,
        };
        let mut b = ColumnBuilder::new(&ty, vals.len()).expect("decimal vector");
        for v in vals {
            match v {
                Some(m) => b.push_i128(*m),
                None => b.push_null(),
            }
        }
        Operand::Col(b.finish().expect("finish"))
    }

    fn dense(
        op: BinaryOp,
        x: &Operand,
        y: &Operand,
        rscale: u8,
        rprec: usize,
        sel: &[u32],
        len: usize,
    ) -> Option<DenseDecimals> {
        let (p, q) = (dec_src(x, false).expect("x"), dec_src(y, false).expect("y"));
        let f = |from: u8| POW10_I128[usize::from(rscale - from)];
        let factors = match op {
            BinaryOp::Mul => (f(p.scale() + q.scale()), 1),
            _ => (f(p.scale()), f(q.scale())),
        };
        let hi = POW10_I128[rprec];
        let sel_b: Vec<u32> = sel
            .iter()
            .copied()
            .filter(|&r| !x.is_null(r as usize))
            .collect();
        dense_decimal(op, &p, &q, factors, (-hi, hi), y, &sel_b, len).expect("no error")
    }

    #[test]
    fn dense_decimal_scales_signs_and_nulls() {
        // decimal(15,2) − decimal(5,3) at scale 3: -1.50 − 0.250 = -1.750; 2.00 − -0.001 = 2.001
        let x = dec_col(15, 2, &[Some(-150), Some(200), None, Some(7)]);
        let y = dec_col(5, 3, &[Some(250), Some(-1), Some(5), None]);
        let (v, valid) = dense(BinaryOp::Sub, &x, &y, 3, 17, &[0, 1, 2, 3], 4).expect("fits");
        assert_eq!(&v[..2], &[-1750, 2001]);
        assert_eq!(valid, Some(vec![true, true, false, false]));
        // product at scale 5, an integer constant on the left; unselected rows are NULL
        let k = Operand::Const(Value::Int(-3));
        let (v, valid) = dense(BinaryOp::Mul, &k, &y, 3, 20, &[1], 4).expect("fits");
        assert_eq!(v[1], 3);
        assert_eq!(valid, Some(vec![false, true, false, false]));
        // no NULL anywhere: no validity
        let a = dec_col(15, 2, &[Some(-1), Some(2)]);
        let (v, valid) = dense(BinaryOp::Add, &a, &a, 2, 16, &[0, 1], 2).expect("fits");
        assert_eq!(v, vec![-2, 4]);
        assert_eq!(valid, None);
    }

    #[test]
    fn eq_default_is_collation_equality() {
        let words = [
            "",
            " ",
            "a",
            "A",
            "a ",
            "ab",
            "AB  ",
            "b",
            "1-URGENT",
            "1-urgent ",
            "1URGENT",
            "é",
            "É",
            "e",
            "straße",
            "STRASSE",
            "MAIL",
            "SHIP",
            "ж",
            "Ж ",
        ];
        for v in words {
            for w in words {
                let want = types::Collation::DEFAULT.compare(v, w) == Ordering::Equal;
                assert_eq!(eq_default(v, w), want, "{v:?} = {w:?}");
            }
        }
    }

    #[test]
    fn dense_decimal_declines_out_of_range_rows() {
        // 38 digits × 10 leaves decimal(38): the per-row path must raise 8115 for the row
        let big = POW10_I128[37] * 5;
        let x = dec_col(38, 0, &[Some(1), Some(big)]);
        let ten = Operand::Const(Value::Int(10));
        assert!(dense(BinaryOp::Mul, &x, &ten, 0, 38, &[0, 1], 2).is_none());
        assert!(dense(BinaryOp::Mul, &x, &ten, 0, 38, &[0], 2).is_some());
        // a sum beyond the result's precision (not beyond i128)
        let y = dec_col(5, 0, &[Some(99_999), Some(1)]);
        assert!(dense(BinaryOp::Add, &y, &y, 0, 5, &[0, 1], 2).is_none());
        assert!(dense(BinaryOp::Add, &y, &y, 0, 6, &[0, 1], 2).is_some());
        // division has no dense loop
        let (p, q) = (
            dec_src(&y, false).expect("y"),
            dec_src(&y, false).expect("y"),
        );
        assert!(
            dense_decimal(BinaryOp::Div, &p, &q, (1, 1), (-10, 10), &y, &[0], 2)
                .expect("no error")
                .is_none()
        );
    }
}
