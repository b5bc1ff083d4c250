//! Rule `ExtractCommonConjuncts`: a WHERE conjunct `(A AND B) OR (A AND C)` becomes the two
//! conjuncts `A` and `(B OR C)`.
//!
//! Why: a join predicate repeated in every arm of an OR (TPC-H q19's `p_partkey = l_partkey`) is
//! invisible to `PushSelectIntoJoin` while it sits inside the OR, so the join runs as a nested
//! loops cross join; factored out, it becomes a hash join key, and single-table conjuncts common
//! to every arm filter their table before the join.
//!
//! Sound: `(A ∧ B) ∨ (A ∧ C) = A ∧ (B ∨ C)` and `A ∨ (A ∧ C) = A` hold in SQL's three-valued
//! logic (Kleene AND/OR distribute and absorb). Conjuncts calling a non-deterministic function
//! are never factored (each arm's call is its own evaluation), and an OR containing a subquery is
//! left alone (its subqueries are planned where they are).

use plan::{ScalarExpr, ScalarKind};

/// Rewrites each OR among `conjuncts` whose arms share conjuncts; the others pass unchanged.
pub(crate) fn extract_common_conjuncts(conjuncts: Vec<ScalarExpr>) -> Vec<ScalarExpr> {
    let mut out = Vec::with_capacity(conjuncts.len());
    for c in conjuncts {
        match factor_or(&c) {
            Some(parts) => out.extend(parts),
            None => out.push(c),
        }
    }
    out
}

/// The conjuncts replacing `e` when `e` is an OR whose every arm shares at least one conjunct.
fn factor_or(e: &ScalarExpr) -> Option<Vec<ScalarExpr>> {
    if !matches!(e.kind, ScalarKind::Or(_)) || e.has_subquery() {
        return None;
    }
    let mut arms = Vec::new();
    flatten_or(e, &mut arms);
    if arms.len() < 2 {
        return None;
    }
    // each arm as (conjunct, structural key) pairs
    let arms: Vec<Vec<(ScalarExpr, String)>> = arms
        .into_iter()
        .map(|a| {
            a.clone()
                .into_conjuncts()
                .into_iter()
                .map(|c| {
                    let k = structural_key(&c);
                    (c, k)
                })
                .collect()
        })
        .collect();
    let mut common: Vec<(ScalarExpr, String)> = Vec::new();
    for (c, k) in &arms[0] {
        if common.iter().any(|(_, ck)| ck == k) || c.calls_volatile() {
            continue;
        }
        if arms[1..]
            .iter()
            .all(|arm| arm.iter().any(|(_, ak)| ak == k))
        {
            common.push((c.clone(), k.clone()));
        }
    }
    if common.is_empty() {
        return None;
    }
    let mut rest_arms = Vec::with_capacity(arms.len());
    let mut absorbed = false;
    for arm in arms {
        let rest: Vec<ScalarExpr> = arm
            .into_iter()
            .filter(|(_, k)| !common.iter().any(|(_, ck)| ck == k))
            .map(|(c, _)| c)
            .collect();
        match ScalarExpr::conjunction(rest) {
            Some(r) => rest_arms.push(r),
            // an arm made only of common conjuncts is TRUE once they are factored out, and
            // so is the whole remaining OR (absorption)
            None => absorbed = true,
        }
    }
    let mut parts: Vec<ScalarExpr> = common.into_iter().map(|(c, _)| c).collect();
    if !absorbed {
        parts.push(ScalarExpr::new(
            ScalarKind::Or(rest_arms),
            e.data_type.clone(),
        ));
    }
    Some(parts)
}

/// The arms of a (possibly nested) OR.
fn flatten_or<'a>(e: &'a ScalarExpr, out: &mut Vec<&'a ScalarExpr>) {
    match &e.kind {
        ScalarKind::Or(v) => v.iter().for_each(|a| flatten_or(a, out)),
        _ => out.push(e),
    }
}

/// A string equal for two expressions exactly when they are the same tree (kinds, operands,
/// literal values and types). `ScalarExpr` has no `PartialEq` (its subquery plans have none);
/// the factored expressions are subquery-free, and their `Debug` form spells every field.
fn structural_key(e: &ScalarExpr) -> String {
    format!("{e:?}")
}
