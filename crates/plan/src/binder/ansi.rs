//! The non-ISO NULL semantics of `SET ANSI_NULLS OFF` and `SET CONCAT_NULL_YIELDS_NULL OFF`.
//!
//! Both are decided when a statement is bound (the binder asks [`super::BindEnv`] once), and
//! lowered into ordinary IR (IS NULL / AND / OR / ISNULL), so the evaluator never looks at session
//! options per row and the plan cache keys on the two options (engine `plan_cache.rs`).
//!
//! ANSI_NULLS OFF, as SQL Server documents it: only `=` and `<>` change, and only when one
//! operand is a NULL literal or a variable (a parameter is a variable). When that operand is NULL,
//! `x = NULL` is `x IS NULL` and `x <> NULL` is `x IS NOT NULL` (TRUE or FALSE, never UNKNOWN);
//! otherwise the comparison is the usual one. Comparisons between columns or compound
//! expressions (joins) are not affected, nor are `<`, `>`, `<=`, `>=`.
//!
//! CONCAT_NULL_YIELDS_NULL OFF: string `+` treats a NULL operand as an empty string.

use types::{DataType, Value};

use super::expr::{compare, is_null_const};
use crate::scalar::{CmpOp, ScalarExpr, ScalarFunc, ScalarKind};

fn bit(kind: ScalarKind) -> ScalarExpr {
    ScalarExpr::new(kind, DataType::Bit)
}

fn is_null(e: &ScalarExpr) -> ScalarExpr {
    bit(ScalarKind::IsNull(Box::new(e.clone())))
}

fn not_null(e: &ScalarExpr) -> ScalarExpr {
    bit(ScalarKind::Not(Box::new(is_null(e))))
}

/// A variable, possibly under implicit conversions the binder inserted.
fn is_variable(e: &ScalarExpr) -> bool {
    match &e.kind {
        ScalarKind::Variable(_) => true,
        ScalarKind::Cast {
            expr,
            implicit: true,
            ..
        } => is_variable(expr),
        _ => false,
    }
}

/// True when an operand is one ANSI_NULLS OFF applies to: a NULL literal or a variable.
pub(crate) fn is_ansi_off_operand(e: &ScalarExpr) -> bool {
    is_null_const(e) || is_variable(e)
}

/// `a op b` under ANSI_NULLS OFF (`op` is `=` or `<>`; other operators compare as usual).
pub(crate) fn compare_ansi_off(op: CmpOp, a: ScalarExpr, b: ScalarExpr) -> ScalarExpr {
    let (ea, eb) = (is_ansi_off_operand(&a), is_ansi_off_operand(&b));
    if !matches!(op, CmpOp::Eq | CmpOp::Ne) || !(ea || eb) {
        return compare(op, a, b);
    }
    let eq = op == CmpOp::Eq;
    // a NULL literal: the comparison is a test of the other operand
    for (n, other) in [(&a, &b), (&b, &a)] {
        if is_null_const(n) {
            // (`NULL = NULL` stays a predicate: `NULL IS NULL`, which is TRUE)
            return if eq { is_null(other) } else { not_null(other) };
        }
    }
    let core = compare(op, a.clone(), b.clone());
    let when_null = |v: &ScalarExpr, x: &ScalarExpr| {
        bit(ScalarKind::And(vec![
            is_null(v),
            if eq { is_null(x) } else { not_null(x) },
        ]))
    };
    let parts = if ea && eb {
        // two variables: either one being NULL decides; both non-NULL compare as usual
        let both = bit(ScalarKind::And(vec![not_null(&a), not_null(&b), core]));
        if eq {
            vec![when_null(&a, &b), both]
        } else {
            vec![when_null(&a, &b), when_null(&b, &a), both]
        }
    } else {
        let (v, x) = if ea { (&a, &b) } else { (&b, &a) };
        vec![
            when_null(v, x),
            bit(ScalarKind::And(vec![not_null(v), core])),
        ]
    };
    bit(ScalarKind::Or(parts))
}

/// `x IN (list)` under ANSI_NULLS OFF: when an item is a NULL literal or a variable the list is
/// the OR of `x = item` (so `IN (…, NULL)` matches a NULL `x` and `NOT IN (…, NULL)` is decided
/// by the other items); None when no item is affected (the ordinary IN applies).
pub(crate) fn in_list_ansi_off(x: &ScalarExpr, list: &[ScalarExpr]) -> Option<ScalarExpr> {
    if !list.iter().any(is_ansi_off_operand) {
        return None;
    }
    let parts = list
        .iter()
        .map(|i| compare_ansi_off(CmpOp::Eq, x.clone(), i.clone()))
        .collect();
    Some(bit(ScalarKind::Or(parts)))
}

/// An operand of string `+` under CONCAT_NULL_YIELDS_NULL OFF: NULL reads as ''.
pub(crate) fn concat_operand_null_as_empty(e: ScalarExpr, result: &DataType) -> ScalarExpr {
    let empty = if result.is_unicode() {
        ScalarExpr::literal(Value::NVarChar(String::new()), DataType::NVarChar(Some(1)))
    } else {
        ScalarExpr::literal(Value::VarChar(String::new()), DataType::VarChar(Some(1)))
    };
    if is_null_const(&e) {
        return empty;
    }
    let t = if e.data_type == DataType::Null {
        empty.data_type.clone()
    } else {
        e.data_type.clone()
    };
    ScalarExpr::new(
        ScalarKind::Function {
            func: ScalarFunc::IsNull,
            name: "ISNULL".into(),
            args: vec![e, empty],
        },
        t,
    )
}
