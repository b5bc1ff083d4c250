//! The distribution property of parallel plans (issue 10): how a plan's rows are spread over
//! the threads that produce them, what an operator requires of its input, and the Exchange
//! enforcers that turn one distribution into another — the way the Sort enforcer turns any
//! order into the order a merge join requires (README "Winner per required order").
//!
//! | distribution | delivered by | required by |
//! |---|---|---|
//! | `Single` | a serial plan, Gather Streams | the plan's root, a merge-at-gather global aggregate |
//! | `Any` (split, no key) | a zone: morsels of a scan, a shared-build probe | a partial aggregate, a zone's Filter / Compute Scalar |
//! | `Hash(keys)` | Repartition Streams (hash) on `keys` | a global aggregate grouped on (a superset of) `keys`; a partitioned hash join, on each input's join keys |
//!
//! Enforcers ([`enforce`]): Gather Streams (`Any`/`Hash` → `Single`), Repartition Streams
//! (`Any`/`Hash` → `Hash(keys)`), Distribute Streams (`Single` → `Any`/`Hash`). A delivered
//! `Hash(k)` satisfies a required `Hash(r)` when `k ⊆ r` (rows equal on `r` are equal on `k`,
//! so they already meet on one thread).
//!
//! Today the parallel pass (`parallelize.rs`) still runs on the costed serial plan rather than
//! in the memo; the aggregate is the one decision costed through this module: the global half
//! of a local-then-global aggregate either requires `Single` (merge every worker's partial
//! groups on the coordinator, after a Gather enforcer) or `Hash(group keys)` (a Repartition
//! enforcer, the merge split over the consumers, then a Gather of the results) —
//! [`aggregate_plans`]. Not yet: a distribution column in the memo's groups so that joins
//! choose between a shared build (`Any` probe, `Single` build) and a partitioned join (both
//! inputs `Hash` on the keys) by cost, which needs exec's partitioned hash join.

use crate::cost;

/// How the rows of a plan are spread over its threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Distribution {
    /// On one thread (the coordinator's).
    Single,
    /// Over the workers of a zone, by morsel: no key is on one thread.
    Any,
    /// Over consumers by a hash of these columns: equal keys are on one thread.
    Hash(Vec<usize>),
}

impl Distribution {
    /// Whether rows delivered as `self` meet the requirement `required` without an exchange.
    pub(crate) fn satisfies(&self, required: &Distribution) -> bool {
        match (self, required) {
            (_, Distribution::Any) => true,
            (Distribution::Single, Distribution::Single) => true,
            (Distribution::Hash(k), Distribution::Hash(r)) => {
                !k.is_empty() && k.iter().all(|c| r.contains(c))
            }
            _ => false,
        }
    }
}

/// The exchange that turns `from` into `to` (None: already satisfied) and its cost for
/// `rows` rows crossing it: SQL Server's exchange costs (startup + per row, `cost.rs`).
pub(crate) fn enforce(
    from: &Distribution,
    to: &Distribution,
    rows: f64,
) -> Option<(&'static str, f64)> {
    if from.satisfies(to) {
        return None;
    }
    let name = match (from, to) {
        (_, Distribution::Single) => "Gather Streams",
        (Distribution::Single, _) => "Distribute Streams",
        _ => "Repartition Streams",
    };
    Some((
        name,
        cost::EXCHANGE_STARTUP + cost::EXCHANGE_ROW * rows.max(0.0),
    ))
}

/// The two local-then-global aggregate plans over a zone (its partial aggregates deliver
/// `Any`), costed through the enforcers: (merge at the gather, repartitioned). The CPU of
/// merging `partials` partial groups is the hash aggregate's per-row build cost, on one
/// thread when the global aggregate requires `Single`, split over `dop` consumers when it
/// requires `Hash(keys)`; the final Gather of the repartitioned plan carries `groups` rows.
pub(crate) fn aggregate_plans(groups: f64, partials: f64, dop: u16, keys: &[usize]) -> (f64, f64) {
    let dop = f64::from(dop.max(1));
    let partial = Distribution::Any;
    let merge = cost::HASH_AGG_ROW * partials;
    let at_gather = enforce(&partial, &Distribution::Single, partials).map_or(0.0, |e| e.1) + merge;
    let hashed = Distribution::Hash(keys.to_vec());
    let repartitioned = enforce(&partial, &hashed, partials).map_or(0.0, |e| e.1)
        + merge / dop
        + enforce(&hashed, &Distribution::Single, groups).map_or(0.0, |e| e.1);
    (at_gather, repartitioned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_on_fewer_keys_satisfies_hash_on_more() {
        let h = |k: &[usize]| Distribution::Hash(k.to_vec());
        assert!(h(&[0]).satisfies(&h(&[0, 1])));
        assert!(!h(&[0, 1]).satisfies(&h(&[0])));
        assert!(!Distribution::Any.satisfies(&h(&[0])));
        assert!(h(&[2]).satisfies(&Distribution::Any));
        assert!(!h(&[0]).satisfies(&Distribution::Single));
        assert_eq!(
            enforce(&Distribution::Any, &h(&[0]), 10.0).map(|e| e.0),
            Some("Repartition Streams")
        );
        assert_eq!(
            enforce(&h(&[0]), &Distribution::Single, 10.0).map(|e| e.0),
            Some("Gather Streams")
        );
        assert_eq!(
            enforce(&Distribution::Single, &h(&[0]), 10.0).map(|e| e.0),
            Some("Distribute Streams")
        );
        assert!(enforce(&Distribution::Single, &Distribution::Single, 10.0).is_none());
    }

    #[test]
    fn many_groups_pay_for_the_repartition_few_do_not() {
        let (gather, repart) = aggregate_plans(100.0, 200.0, 2, &[0]);
        assert!(gather < repart, "{gather} {repart}");
        let (gather, repart) = aggregate_plans(1_000_000.0, 2_000_000.0, 2, &[0]);
        assert!(repart < gather, "{gather} {repart}");
        // more consumers split the merge further
        let (_, r2) = aggregate_plans(1_000_000.0, 2_000_000.0, 2, &[0]);
        let (_, r16) = aggregate_plans(1_000_000.0, 16_000_000.0, 16, &[0]);
        let (g16, _) = aggregate_plans(1_000_000.0, 16_000_000.0, 16, &[0]);
        assert!(r16 < g16 && r2 > 0.0);
    }
}
