//! Rules `NotInToAntiSemiJoin` and `AnyToSemiJoin`: WHERE conjuncts `x NOT IN (subquery)`,
//! `x op ALL (subquery)`, `x op ANY|SOME (subquery)` (and their negations) become anti semi /
//! semi joins of the filter's input with the subquery's input, so they can run as hash or
//! index nested loops joins instead of one subquery evaluation per outer row.
//!
//! Semantics (WHERE keeps a row only when the predicate is TRUE; y ranges over the subquery's
//! values, which are over the inner input's columns):
//!
//! * `x op ANY (S)` is TRUE iff some `x op y` is TRUE: a left semi join on `x op y` (plus the
//!   subquery's correlation). NULLs need nothing: a NULL comparison never matches, exactly as
//!   it never makes ANY TRUE.
//! * `x op ALL (S)` is TRUE iff no `y` makes `x op y` FALSE or UNKNOWN, i.e. no `y` with
//!   `x negop y OR x IS NULL OR y IS NULL` (negop: `=`↔`<>`, `<`↔`>=`, `>`↔`<=`). That is a left
//!   anti semi join on that predicate; an empty S keeps every row (x NULL included), as ALL
//!   over no rows is TRUE. `x NOT IN (S)` is `x <> ALL (S)`: an anti semi join on `x = y`
//!   when neither side can be NULL (a hash join key), the null-aware form otherwise:
//!   - uncorrelated S: an anti semi join on `x negop y` (keys for `=`), then a filter
//!     `NOT EXISTS (S WHERE y IS NULL)` (any NULL in S: no row) `AND (x IS NOT NULL OR NOT
//!     EXISTS (S))` (a NULL x survives only an empty S); both subqueries are uncorrelated, so
//!     exec evaluates each once. Terms for a side that cannot be NULL are left out;
//!   - correlated S: the anti join's predicate is the correlation `AND (x negop y OR x IS NULL
//!     OR y IS NULL)`, so the correlation equalities remain hash keys.
//! * `NOT (x op ANY S)` is TRUE iff ANY is FALSE iff every `x op y` is FALSE iff
//!   `x negop ALL S` is TRUE; likewise `NOT (x op ALL S)` is `x negop ANY S` (in WHERE).
//!
//! Nullability: a column is non-nullable when its metadata says so (NOT NULL table columns),
//! a literal when it is not NULL, a non-TRY cast when its operand is. Everything else counts
//! as nullable, which only costs the null-aware form, never a wrong row.

use plan::*;
use types::DataType;

use crate::decorrelate::{rewrite, subquery_parts, SubqueryParts};

/// A quantified comparison turned into a join: `inner`, joined by `kind` on `on`
/// (over `outer ++ inner`), then `post` filters the join's output (the outer columns).
pub(crate) struct QuantifiedJoin {
    pub inner: LogicalOp,
    pub kind: JoinKind,
    pub on: ScalarExpr,
    pub post: Option<ScalarExpr>,
}

/// The comparison that makes `x op y` not TRUE for non-NULL operands.
fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Le => CmpOp::Gt,
    }
}

/// True if `e` can never be NULL given the nullability of the columns it reads.
pub(crate) fn non_nullable(e: &ScalarExpr, cols: &[ColumnMeta]) -> bool {
    match &e.kind {
        ScalarKind::Column(i) => cols.get(*i).is_some_and(|c| !c.nullable),
        ScalarKind::Literal(v) => !v.is_null(),
        ScalarKind::Cast {
            expr, try_: false, ..
        } => non_nullable(expr, cols),
        _ => false,
    }
}

fn bit(kind: ScalarKind) -> ScalarExpr {
    ScalarExpr::new(kind, DataType::Bit)
}

fn compare(op: CmpOp, a: ScalarExpr, b: ScalarExpr) -> ScalarExpr {
    bit(ScalarKind::Compare(op, Box::new(a), Box::new(b)))
}

fn is_null(e: ScalarExpr) -> ScalarExpr {
    bit(ScalarKind::IsNull(Box::new(e)))
}

/// `EXISTS (SELECT * FROM op)` over a parameter-free input (evaluated once by exec).
fn exists(op: LogicalOp) -> ScalarExpr {
    bit(ScalarKind::Exists(Box::new(Subquery {
        plan: SubqueryPlan::Logical(Box::new(op)),
        params: vec![],
        uncorrelated: true,
    })))
}

/// Which of the two rules a conjunct needs (ANY → `AnyToSemiJoin`, ALL → `NotInToAntiSemiJoin`),
/// or None when it is no quantified comparison.
pub(crate) fn rule_for(c: &ScalarExpr) -> Option<&'static str> {
    normalize(c).map(|(_, _, q, _)| match q {
        Quantifier::Any => "AnyToSemiJoin",
        Quantifier::All => "NotInToAntiSemiJoin",
    })
}

/// `x op ANY|ALL (S)` in one shape: NOT IN is `<> ALL`, a NOT flips the quantifier and the
/// operator. Plain IN is left to `SubqueryToSemiJoin`.
fn normalize(c: &ScalarExpr) -> Option<(&ScalarExpr, CmpOp, Quantifier, &Subquery)> {
    let flip = |q| match q {
        Quantifier::Any => Quantifier::All,
        Quantifier::All => Quantifier::Any,
    };
    match &c.kind {
        ScalarKind::Quantified {
            expr,
            op,
            quantifier,
            subquery,
        } => Some((expr, *op, *quantifier, subquery)),
        ScalarKind::Not(inner) => match &inner.kind {
            ScalarKind::InSubquery { expr, subquery } => {
                Some((expr, CmpOp::Ne, Quantifier::All, subquery))
            }
            ScalarKind::Quantified {
                expr,
                op,
                quantifier,
                subquery,
            } => Some((expr, negate(*op), flip(*quantifier), subquery)),
            _ => None,
        },
        _ => None,
    }
}

/// Tries to unnest conjunct `c` of a filter whose input has the columns `outer`.
pub(crate) fn try_quantified_join(c: &ScalarExpr, outer: &[ColumnMeta]) -> Option<QuantifiedJoin> {
    let (x, op, q, sq) = normalize(c)?;
    if x.has_subquery() {
        return None;
    }
    let la = outer.len();
    let SubqueryParts {
        inner,
        mut join_parts,
        value,
    } = subquery_parts(sq, la, true)?;
    let y_inner = value?;
    let mut y = y_inner.clone();
    if !rewrite(&mut y, &[], la) {
        return None;
    }
    let x = x.clone();
    if q == Quantifier::Any {
        join_parts.push(compare(op, x, y));
        return Some(QuantifiedJoin {
            inner,
            kind: JoinKind::LeftSemi,
            on: ScalarExpr::conjunction(join_parts)?,
            post: None,
        });
    }
    let x_nullable = !non_nullable(&x, outer);
    let y_nullable = !non_nullable(&y_inner, &inner.columns());
    let mismatch = compare(negate(op), x.clone(), y.clone());
    if !x_nullable && !y_nullable {
        join_parts.push(mismatch);
        return Some(QuantifiedJoin {
            inner,
            kind: JoinKind::LeftAntiSemi,
            on: ScalarExpr::conjunction(join_parts)?,
            post: None,
        });
    }
    if join_parts.is_empty() {
        // uncorrelated: the NULL cases become two filters evaluated once
        let mut post = Vec::new();
        if y_nullable {
            let nulls = LogicalOp::Filter {
                input: Box::new(inner.clone()),
                predicate: is_null(y_inner),
            };
            post.push(bit(ScalarKind::Not(Box::new(exists(nulls)))));
        }
        if x_nullable {
            post.push(bit(ScalarKind::Or(vec![
                bit(ScalarKind::Not(Box::new(is_null(x)))),
                bit(ScalarKind::Not(Box::new(exists(inner.clone())))),
            ])));
        }
        return Some(QuantifiedJoin {
            inner,
            kind: JoinKind::LeftAntiSemi,
            on: mismatch,
            post: ScalarExpr::conjunction(post),
        });
    }
    let mut any_of = vec![mismatch];
    if x_nullable {
        any_of.push(is_null(x));
    }
    if y_nullable {
        any_of.push(is_null(y));
    }
    join_parts.push(bit(ScalarKind::Or(any_of)));
    Some(QuantifiedJoin {
        inner,
        kind: JoinKind::LeftAntiSemi,
        on: ScalarExpr::conjunction(join_parts)?,
        post: None,
    })
}
