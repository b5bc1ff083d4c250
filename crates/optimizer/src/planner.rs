//! The rule-based planner: logical → physical, top-down, applying the rules of `rules.rs`.

use std::sync::Arc;

use catalog::{Catalog, IndexKind, TableStorage};

use crate::join_search::JoinAlgo;
use common::SqlResult;
use plan::*;
use types::DataType;

use crate::cardinality::StatsCache;
use crate::Options;

/// Planner state for one statement.
pub(crate) struct Planner<'o> {
    pub(crate) options: &'o Options,
    pub(crate) catalog: &'o dyn Catalog,
    /// Row counts and statistics of the tables read, loaded once per statement.
    pub(crate) stats: StatsCache,
    /// Set while planning a join tree JoinOrder built (it is not reordered again).
    pub(crate) reordering: bool,
    /// Set while GbAggBeforeJoin's alternatives are planned (the rule does not nest).
    pre_aggregating: bool,
    /// Parameter slots allocated by the optimizer (nested loops index lookups) start here.
    next_slot: usize,
    /// The row goal on the output of the operator about to be planned (row_goal.rs): set by
    /// TOP, FAST n and EXISTS, passed through projections, filters and joins' choices, taken
    /// (cleared) by every `op` call so it never leaks to an unrelated subtree.
    pub(crate) goal: Option<f64>,
    /// The memo being recorded (`SET SHOWPLAN_MEMO ON`), None otherwise (memo_record.rs).
    pub(crate) memo: Option<crate::memo::Memo>,
    /// Search stage counters and the early-abort reason (search_stages.rs).
    pub(crate) search: crate::search_stages::SearchState,
    /// The joins of the tree JoinOrder's search is having planned, with the implementation it
    /// chose for each: (outer group label, inner group label, algorithm) (join_search.rs).
    pub(crate) extracted: Vec<(String, String, crate::join_search::JoinAlgo)>,
}

const OPT_SLOT_BASE: usize = 1 << 20;

/// (index position, seek range, consumed conjuncts, score)
type SeekChoice = (usize, SeekRange, Vec<usize>, (usize, bool, bool));

/// The default estimate of a node from its children (the planner overrides it where it knows
/// better: table reads, filters, joins, aggregates).
fn est(kind: &PhysKind) -> f64 {
    let literal_count = |e: &Option<ScalarExpr>| match e.as_ref().map(|e| &e.kind) {
        Some(ScalarKind::Literal(v)) => v.as_f64(),
        _ => None,
    };
    match kind {
        PhysKind::ConstantScan { rows } => rows.len() as f64,
        PhysKind::VirtualScan { table } => table.rows.len() as f64,
        PhysKind::IndexSeek { .. } => 10.0,
        PhysKind::Filter { input, .. } => input.est_rows * crate::cardinality::OTHER_GUESS,
        PhysKind::ComputeScalar { input, .. }
        | PhysKind::Window { input, .. }
        | PhysKind::HashDistinct { input } => input.est_rows,
        PhysKind::Sort { input, top, .. } => match literal_count(top) {
            Some(n) => input.est_rows.min(n),
            None => input.est_rows,
        },
        PhysKind::Top { input, spec } if !spec.percent => match literal_count(&spec.count) {
            Some(n) => input.est_rows.min(n),
            None => input.est_rows,
        },
        PhysKind::Top { input, .. } => input.est_rows,
        PhysKind::HashAggregate {
            input, group_by, ..
        }
        | PhysKind::StreamAggregate {
            input, group_by, ..
        } => {
            if group_by.is_empty() {
                1.0
            } else {
                input.est_rows
            }
        }
        PhysKind::Concatenation { inputs } => inputs.iter().map(|i| i.est_rows).sum(),
        PhysKind::HashSetOp { left, .. } => left.est_rows,
        PhysKind::NestedLoops {
            outer, inner, kind, ..
        } => match kind {
            JoinKind::LeftSemi | JoinKind::LeftAntiSemi => outer.est_rows,
            _ => outer.est_rows * inner.est_rows,
        },
        PhysKind::HashJoin { left, right, .. } | PhysKind::MergeJoin { left, right, .. } => {
            left.est_rows.max(right.est_rows)
        }
        PhysKind::TableFunction { func, .. } => func.estimate(),
        _ => 1000.0,
    }
}

impl<'o> Planner<'o> {
    pub fn new(options: &'o Options, catalog: &'o dyn Catalog) -> Self {
        Planner {
            options,
            catalog,
            stats: StatsCache::default(),
            reordering: false,
            pre_aggregating: false,
            next_slot: OPT_SLOT_BASE,
            goal: None,
            memo: None,
            search: Default::default(),
            extracted: Vec::new(),
        }
    }

    pub(crate) fn enabled(&self, rule: &str) -> bool {
        !self
            .options
            .disabled_rules
            .iter()
            .any(|r| r.eq_ignore_ascii_case(rule))
    }

    /// Whether GROUP BY / DISTINCT must use ordering (Sort + Stream Aggregate) rather than
    /// hashing: only when `OPTION (ORDER GROUP)` is given without `HASH GROUP`. Grouping sets
    /// have only a hash implementation, so ORDER GROUP alone leaves them no plan (Msg 8622).
    fn stream_grouping(&self, grouping_sets: bool) -> SqlResult<bool> {
        let g = self.options.group;
        // QUERYRULEOFF GbAggToHS takes hashing away as ORDER GROUP alone does
        if (!g.order || g.hash) && self.enabled("GbAggToHS") {
            return Ok(false);
        }
        if grouping_sets {
            return Err(common::SqlError::new(8622, &[]));
        }
        Ok(true)
    }

    /// UNION is always planned as Concatenation (followed by a Hash Match distinct for UNION
    /// without ALL); `OPTION (HASH UNION)` / `(MERGE UNION)` without `CONCAT UNION` leave it no
    /// plan, which SQL Server reports as Msg 8622.
    fn check_union_hints(&self) -> SqlResult<()> {
        let u = self.options.union;
        if (u.hash || u.merge) && !u.concat {
            return Err(common::SqlError::new(8622, &[]));
        }
        Ok(())
    }

    /// A Sort over an already planned input (keys over its columns).
    fn sort_physical(&self, input: PhysOp, keys: Vec<SortKey>, distinct: bool) -> PhysOp {
        let columns = input.columns.clone();
        let e = input.est_rows;
        let mut n = self.node(
            PhysKind::Sort {
                input: Box::new(input),
                keys,
                top: None,
                distinct,
            },
            columns,
        );
        n.est_rows = e;
        n
    }

    pub(crate) fn node(&self, kind: PhysKind, columns: Vec<ColumnMeta>) -> PhysOp {
        let e = est(&kind);
        PhysOp::new(kind, columns, e)
    }

    pub fn statement(&mut self, s: BoundStatement) -> SqlResult<PhysicalPlan> {
        Ok(match s {
            Statement::Select {
                input,
                columns,
                assign,
            } => Statement::Select {
                input: {
                    // OPTION (FAST n): a row goal on the result
                    if !self.options.disable_row_goal {
                        self.goal = self.options.fast.map(f64::from);
                    }
                    // every table's statistics in one ask (stats_prefetch.rs)
                    crate::stats_prefetch::prefetch(&mut self.stats, self.catalog, &input);
                    self.op(input)?
                },
                columns,
                assign,
            },
            Statement::Insert {
                table,
                source,
                columns,
                identity_insert,
                checks,
                output,
            } => Statement::Insert {
                table,
                source: self.op(source)?,
                columns: columns
                    .into_iter()
                    .map(|c| {
                        Ok(match c {
                            InsertColumn::Default(e) => InsertColumn::Default(self.expr(e)?),
                            InsertColumn::Computed(e) => InsertColumn::Computed(self.expr(e)?),
                            other => other,
                        })
                    })
                    .collect::<SqlResult<_>>()?,
                identity_insert,
                checks: self.checks(checks)?,
                output,
            },
            Statement::Update {
                table,
                input,
                target_offset,
                sets,
                computed,
                checks,
                output,
                variables,
            } => Statement::Update {
                table,
                input: self.op(input)?,
                target_offset,
                sets: sets
                    .into_iter()
                    .map(|(c, e)| Ok((c, self.expr(e)?)))
                    .collect::<SqlResult<_>>()?,
                computed,
                checks: self.checks(checks)?,
                output,
                variables: variables
                    .into_iter()
                    .map(|mut v| {
                        v.expr = self.expr(v.expr)?;
                        Ok(v)
                    })
                    .collect::<SqlResult<_>>()?,
            },
            Statement::Delete {
                table,
                input,
                target_offset,
                output,
            } => Statement::Delete {
                table,
                input: self.op(input)?,
                target_offset,
                output,
            },
            Statement::Truncate { table } => Statement::Truncate { table },
            Statement::SelectInto { target, source } => Statement::SelectInto {
                target,
                source: self.op(source)?,
            },
        })
    }

    fn checks(&mut self, v: Vec<BoundCheck>) -> SqlResult<Vec<BoundCheck>> {
        v.into_iter()
            .map(|mut c| {
                c.expr = self.expr(c.expr)?;
                Ok(c)
            })
            .collect()
    }

    /// Converts subquery plans inside an expression.
    pub fn expr(&mut self, mut e: ScalarExpr) -> SqlResult<ScalarExpr> {
        self.expr_mut(&mut e)?;
        Ok(e)
    }

    fn expr_mut(&mut self, e: &mut ScalarExpr) -> SqlResult<()> {
        common::stack::grow(|| self.expr_mut_unguarded(e))
    }

    fn expr_mut_unguarded(&mut self, e: &mut ScalarExpr) -> SqlResult<()> {
        // EXISTS needs the subquery's first row only: a row goal of 1 (exec stops there)
        let exists_goal = (matches!(e.kind, ScalarKind::Exists(_))
            && !self.options.disable_row_goal)
            .then_some(1.0);
        if let Some(sq) = e.subquery_mut() {
            if let SubqueryPlan::Logical(l) = &mut sq.plan {
                let l = std::mem::replace(
                    &mut **l,
                    LogicalOp::Values {
                        rows: vec![],
                        columns: vec![],
                    },
                );
                self.goal = exists_goal;
                let mut p = self.op(l)?;
                if self.enabled("PruneColumns") {
                    let n = p.columns.len();
                    crate::prune::prune(&mut p, &vec![true; n]);
                }
                self.annotate(&mut p);
                if !self.options.disable_row_goal {
                    crate::row_goal::apply(&mut p, exists_goal);
                }
                sq.plan = SubqueryPlan::Physical(Arc::new(p));
            }
        }
        for c in e.children_mut() {
            self.expr_mut(c)?;
        }
        Ok(())
    }

    fn exprs(&mut self, v: Vec<ScalarExpr>) -> SqlResult<Vec<ScalarExpr>> {
        v.into_iter().map(|e| self.expr(e)).collect()
    }

    fn keys(&mut self, v: Vec<SortKey>) -> SqlResult<Vec<SortKey>> {
        v.into_iter()
            .map(|k| {
                Ok(SortKey {
                    expr: self.expr(k.expr)?,
                    desc: k.desc,
                })
            })
            .collect()
    }

    fn aggs(&mut self, v: Vec<AggCall>) -> SqlResult<Vec<AggCall>> {
        v.into_iter()
            .map(|mut a| {
                a.args = self.exprs(a.args)?;
                a.order_by = self.keys(a.order_by)?;
                Ok(a)
            })
            .collect()
    }

    pub fn op(&mut self, l: LogicalOp) -> SqlResult<PhysOp> {
        common::stack::grow(|| self.op_unguarded(l))
    }

    fn op_unguarded(&mut self, l: LogicalOp) -> SqlResult<PhysOp> {
        let columns = l.columns();
        // only the operators that stream their input pass the goal on (row_goal.rs)
        let goal = self.goal.take();
        Ok(match l {
            LogicalOp::Get(src) => self.access_path(src, vec![], columns)?,
            LogicalOp::VirtualGet { table, .. } => {
                self.node(PhysKind::VirtualScan { table }, columns)
            }
            LogicalOp::Values { rows, .. } => {
                let rows = rows
                    .into_iter()
                    .map(|r| self.exprs(r))
                    .collect::<SqlResult<_>>()?;
                self.node(PhysKind::ConstantScan { rows }, columns)
            }
            LogicalOp::Filter { input, predicate } => {
                self.goal = goal;
                self.filter(*input, predicate, columns)?
            }
            LogicalOp::Project { input, exprs, .. } => {
                let input = if self.enabled("EliminateOuterJoin") {
                    let mut read = Vec::new();
                    exprs.iter().for_each(|e| e.columns_used(&mut read));
                    crate::outer_join::eliminate_unused_join(*input, &read)
                } else {
                    *input
                };
                self.goal = goal;
                let input = self.op(input)?;
                let exprs = self.exprs(exprs)?;
                let e = input.est_rows;
                let mut n = self.node(
                    PhysKind::ComputeScalar {
                        input: Box::new(input),
                        exprs,
                    },
                    columns,
                );
                n.est_rows = e;
                n
            }
            LogicalOp::Join {
                left,
                right,
                kind,
                on,
                hint,
            } => {
                self.goal = goal;
                self.join(*left, *right, kind, on, hint, columns)?
            }
            LogicalOp::Apply {
                outer,
                inner,
                kind,
                params,
            } => {
                let outer = self.op(*outer)?;
                let inner = self.op(*inner)?;
                let params = params
                    .into_iter()
                    .map(|(s, e)| Ok((s, self.expr(e)?)))
                    .collect::<SqlResult<_>>()?;
                self.node(
                    PhysKind::NestedLoops {
                        outer: Box::new(outer),
                        inner: Box::new(inner),
                        kind,
                        predicate: None,
                        params,
                    },
                    columns,
                )
            }
            LogicalOp::Aggregate {
                input,
                group_by,
                aggs,
                grouping_sets,
            } if grouping_sets.is_none()
                && !self.pre_aggregating
                && self.enabled("GbAggBeforeJoin") =>
            {
                let alts = crate::gb_agg_before_join::alternatives(&input, &group_by, &aggs);
                let original = LogicalOp::Aggregate {
                    input,
                    group_by,
                    aggs,
                    grouping_sets,
                };
                self.pre_aggregating = true;
                let r = self.cheapest(original, alts);
                self.pre_aggregating = false;
                r?
            }
            LogicalOp::Aggregate {
                input,
                group_by,
                aggs,
                grouping_sets,
            } => {
                let memo_label = self.memo_aggregate_label(&input);
                let input = self.op(*input)?;
                let group_by = self.exprs(group_by)?;
                let aggs = self.aggs(aggs)?;
                let groups = self.stats.group_rows_of(self.catalog, &input, &group_by);
                let mut aggregate = if group_by.is_empty()
                    && grouping_sets.is_none()
                    && self.enabled("GbAggToStrm")
                {
                    let mut n = self.node(
                        PhysKind::StreamAggregate {
                            input: Box::new(input),
                            group_by,
                            aggs,
                        },
                        columns,
                    );
                    n.est_rows = 1.0;
                    n
                } else if self.stream_grouping(grouping_sets.is_some())? {
                    // OPTION (ORDER GROUP): sort on the keys, then aggregate the runs
                    let keys = group_by
                        .iter()
                        .map(|e| SortKey {
                            expr: e.clone(),
                            desc: false,
                        })
                        .collect();
                    let sorted = self.sort_physical(input, keys, false);
                    let mut n = self.node(
                        PhysKind::StreamAggregate {
                            input: Box::new(sorted),
                            group_by,
                            aggs,
                        },
                        columns,
                    );
                    n.est_rows = groups;
                    n
                } else {
                    let sets = grouping_sets.is_some();
                    let mut n = self.node(
                        PhysKind::HashAggregate {
                            input: Box::new(input),
                            group_by,
                            aggs,
                            grouping_sets,
                        },
                        columns,
                    );
                    // grouping sets: one result per set, left at the input's rows
                    if !sets {
                        n.est_rows = groups;
                    }
                    n
                };
                self.memo_aggregate(memo_label, &mut aggregate);
                aggregate
            }
            LogicalOp::Window { input, calls } => {
                let input = self.op(*input)?;
                let calls = calls
                    .into_iter()
                    .map(|mut c| {
                        c.args = self.exprs(c.args)?;
                        c.partition_by = self.exprs(c.partition_by)?;
                        c.order_by = self.keys(c.order_by)?;
                        Ok(c)
                    })
                    .collect::<SqlResult<_>>()?;
                self.node(
                    PhysKind::Window {
                        input: Box::new(input),
                        calls,
                    },
                    columns,
                )
            }
            LogicalOp::Sort { input, keys } => self.sort(*input, keys, None, columns)?,
            LogicalOp::Top { input, spec } => {
                let simple = spec.with_ties.is_empty()
                    && !spec.percent
                    && spec.offset.is_none()
                    && spec.count.is_some();
                if simple && self.enabled("TopSortToTopNSort") {
                    if let LogicalOp::Sort { input: si, keys } = *input {
                        let count = spec.count.map(|c| self.expr(c)).transpose()?;
                        return self.sort(*si, keys, count, columns);
                    } else {
                        self.goal = self.top_input_goal(goal, &spec);
                        let input = self.op(*input)?;
                        return self.top(input, spec, columns);
                    }
                }
                self.goal = self.top_input_goal(goal, &spec);
                let input = self.op(*input)?;
                self.top(input, spec, columns)?
            }
            LogicalOp::Distinct { input } => {
                let input = self.op(*input)?;
                let all: Vec<Option<usize>> = (0..input.columns.len()).map(Some).collect();
                let groups = self.stats.group_rows(self.catalog, &input, &all);
                if self.stream_grouping(false)? {
                    // OPTION (ORDER GROUP): a Distinct Sort on every column
                    let keys = columns
                        .iter()
                        .enumerate()
                        .map(|(i, c)| SortKey {
                            expr: ScalarExpr::column(i, c.data_type.clone()),
                            desc: false,
                        })
                        .collect();
                    let mut n = self.sort_physical(input, keys, true);
                    n.est_rows = groups;
                    return Ok(n);
                }
                let mut n = self.node(
                    PhysKind::HashDistinct {
                        input: Box::new(input),
                    },
                    columns,
                );
                n.est_rows = groups;
                n
            }
            LogicalOp::SetOp {
                kind,
                all,
                left,
                right,
                ..
            } => {
                let l = self.op(*left)?;
                let r = self.op(*right)?;
                match kind {
                    SetOpKind::Union => {
                        self.check_union_hints()?;
                        let mut inputs = Vec::new();
                        for x in [l, r] {
                            match x.kind {
                                PhysKind::Concatenation { inputs: inner } if all => {
                                    inputs.extend(inner)
                                }
                                _ => inputs.push(x),
                            }
                        }
                        let c = self.node(PhysKind::Concatenation { inputs }, columns.clone());
                        if all {
                            c
                        } else {
                            self.node(PhysKind::HashDistinct { input: Box::new(c) }, columns)
                        }
                    }
                    _ => self.node(
                        PhysKind::HashSetOp {
                            kind,
                            all,
                            left: Box::new(l),
                            right: Box::new(r),
                        },
                        columns,
                    ),
                }
            }
            LogicalOp::RecursiveCte {
                id,
                anchor,
                recursive,
                max_recursion,
                ..
            } => {
                let a = self.op(*anchor)?;
                let r = self.op(*recursive)?;
                self.node(
                    PhysKind::RecursiveCte {
                        id,
                        anchor: Box::new(a),
                        recursive: Box::new(r),
                        max_recursion,
                    },
                    columns,
                )
            }
            LogicalOp::WorkTable { id, .. } => self.node(PhysKind::WorkTableScan { id }, columns),
            LogicalOp::TableFunction { func, args, .. } => {
                let e = func.estimate();
                let args = self.exprs(args)?;
                let mut n = self.node(PhysKind::TableFunction { func, args }, columns);
                n.est_rows = e;
                n
            }
        })
    }

    /// Plans `original` and each alternative (same results), keeping the cheapest by
    /// `cost.subtree`. An alternative that has no plan (a hint it cannot satisfy) is skipped.
    fn cheapest(&mut self, original: LogicalOp, alts: Vec<LogicalOp>) -> SqlResult<PhysOp> {
        let mut best = self.op(original)?;
        if alts.is_empty() {
            return Ok(best);
        }
        self.annotate(&mut best);
        for alt in alts {
            let Ok(mut p) = self.op(alt) else {
                continue;
            };
            self.annotate(&mut p);
            if p.cost.subtree < best.cost.subtree {
                best = p;
            }
        }
        Ok(best)
    }

    /// The row goal a TOP sets on its input: its count (plus offset), or the goal from above
    /// when that is smaller; none when row goals are off.
    fn top_input_goal(&self, above: Option<f64>, spec: &TopSpec) -> Option<f64> {
        if self.options.disable_row_goal {
            return None;
        }
        match (above, crate::row_goal::top_goal(spec)) {
            (Some(a), Some(t)) => Some(a.min(t)),
            (a, t) => a.or(t),
        }
    }

    fn top(&mut self, input: PhysOp, spec: TopSpec, columns: Vec<ColumnMeta>) -> SqlResult<PhysOp> {
        let spec = TopSpec {
            count: spec.count.map(|c| self.expr(c)).transpose()?,
            percent: spec.percent,
            with_ties: self.keys(spec.with_ties)?,
            offset: spec.offset.map(|c| self.expr(c)).transpose()?,
        };
        Ok(self.node(
            PhysKind::Top {
                input: Box::new(input),
                spec,
            },
            columns,
        ))
    }

    fn sort(
        &mut self,
        input: LogicalOp,
        keys: Vec<SortKey>,
        top: Option<ScalarExpr>,
        columns: Vec<ColumnMeta>,
    ) -> SqlResult<PhysOp> {
        let mut input = self.op(input)?;
        let keys = self.keys(keys)?;
        if self.enabled("SortToOrderedScan") && try_ordered_scan(&mut input, &keys) {
            return Ok(match top {
                Some(count) => self.node(
                    PhysKind::Top {
                        input: Box::new(input),
                        spec: TopSpec {
                            count: Some(count),
                            percent: false,
                            with_ties: vec![],
                            offset: None,
                        },
                    },
                    columns,
                ),
                None => input,
            });
        }
        let e = input.est_rows;
        let mut n = self.node(
            PhysKind::Sort {
                input: Box::new(input),
                keys,
                top,
                distinct: false,
            },
            columns,
        );
        n.est_rows = e;
        Ok(n)
    }

    fn filter(
        &mut self,
        input: LogicalOp,
        predicate: ScalarExpr,
        columns: Vec<ColumnMeta>,
    ) -> SqlResult<PhysOp> {
        let goal = self.goal.take();
        let mut conj = predicate.into_conjuncts();
        if self.enabled("ExtractCommonConjuncts") {
            conj = crate::common_conjuncts::extract_common_conjuncts(conj);
        }
        {
            let la = input.arity();
            let mut rest = Vec::new();
            let mut semis = Vec::new();
            let mut post = Vec::new();
            for c in conj {
                if self.enabled("SubqueryToSemiJoin") {
                    if let Some(s) = crate::decorrelate::try_semi_join(&c, la) {
                        semis.push(s);
                        continue;
                    }
                }
                if crate::quantified::rule_for(&c).is_some_and(|r| self.enabled(r)) {
                    if let Some(q) = crate::quantified::try_quantified_join(&c, &columns) {
                        semis.push((q.inner, q.kind, q.on));
                        post.extend(q.post);
                        continue;
                    }
                }
                rest.push(c);
            }
            if !semis.is_empty() {
                // the other conjuncts filter the outer input first (seeks stay possible)
                let mut op = match ScalarExpr::conjunction(rest) {
                    Some(p) => LogicalOp::Filter {
                        input: Box::new(input),
                        predicate: p,
                    },
                    None => input,
                };
                // SemiJoinPushDown: without a row goal, the semi joins moved onto the relations
                // they read are an alternative costed against the written order (moved below
                // selective inner joins they can cost more: TPC-H q21)
                let push =
                    self.enabled("SemiJoinPushDown") && !self.options.force_order && goal.is_none();
                let hint = self.options.join_hint;
                let mut pushed: Option<LogicalOp> = None;
                for (inner, kind, on) in semis {
                    if push {
                        let had = pushed.is_some();
                        let from = pushed.take().unwrap_or_else(|| op.clone());
                        if had || crate::semi_join_pushdown::movable(&from, &on) {
                            let p = crate::semi_join_pushdown::push_down(
                                from,
                                inner.clone(),
                                kind,
                                on.clone(),
                                hint,
                            );
                            pushed = Some(p);
                        }
                    }
                    op = LogicalOp::Join {
                        left: Box::new(op),
                        right: Box::new(inner),
                        kind,
                        on: Some(on),
                        hint,
                    };
                }
                // NOT IN's NULL checks (uncorrelated subqueries, evaluated once) filter last
                let post = ScalarExpr::conjunction(post);
                let with_post = |op: LogicalOp| match &post {
                    Some(p) => LogicalOp::Filter {
                        input: Box::new(op),
                        predicate: p.clone(),
                    },
                    None => op,
                };
                if let Some(p) = pushed {
                    return self.cheapest(with_post(op), vec![with_post(p)]);
                }
                // the semi joins produce the filter's rows: its goal is theirs
                self.goal = goal;
                return self.op(with_post(op));
            }
            conj = rest;
        }
        let (input, conj) = if self.enabled("CorrelatedAggToJoin") {
            match crate::agg_subquery::try_agg_join(input, conj, &columns) {
                Ok(op) => return self.op(op),
                Err(back) => *back,
            }
        } else {
            (input, conj)
        };
        let mut input = input;
        if self.enabled("SimplifyOuterJoin") {
            crate::outer_join::simplify(&mut input, &conj);
        }
        match input {
            LogicalOp::Get(src) => {
                let conj = self.exprs(conj)?;
                self.access_path(src, conj, columns)
            }
            LogicalOp::Filter {
                input: inner,
                predicate: p2,
            } => {
                let mut all = p2.into_conjuncts();
                all.extend(conj);
                let p = ScalarExpr::conjunction(all)
                    .ok_or_else(|| common::SqlError::internal("empty filter"))?;
                self.goal = goal;
                self.filter(*inner, p, columns)
            }
            // a semi / anti semi join outputs its left input's rows: a filter over it filters
            // that input first (JoinOrder's relation filters over a SemiJoinPushDown result)
            LogicalOp::Join {
                left,
                right,
                kind: kind @ (JoinKind::LeftSemi | JoinKind::LeftAntiSemi),
                on,
                hint,
            } if self.enabled("PushSelectIntoJoin") && !conj.iter().any(|c| c.has_subquery()) => {
                let left = LogicalOp::Filter {
                    input: left,
                    predicate: ScalarExpr::conjunction(conj)
                        .ok_or_else(|| common::SqlError::internal("empty filter"))?,
                };
                self.goal = goal;
                self.op(LogicalOp::Join {
                    left: Box::new(left),
                    right,
                    kind,
                    on,
                    hint,
                })
            }
            LogicalOp::Join {
                left,
                right,
                kind: kind @ (JoinKind::Inner | JoinKind::Cross | JoinKind::LeftOuter),
                on,
                hint,
            } if self.enabled("PushSelectIntoJoin") => {
                let la = left.arity();
                let mut left_c = Vec::new();
                let mut right_c = Vec::new();
                let mut join_c = Vec::new();
                let mut keep = Vec::new();
                for c in conj {
                    let mut cols = Vec::new();
                    c.columns_used(&mut cols);
                    let uses_l = cols.iter().any(|&i| i < la);
                    let uses_r = cols.iter().any(|&i| i >= la);
                    if c.has_subquery() {
                        keep.push(c);
                    } else if !uses_r {
                        left_c.push(c);
                    } else if !uses_l && kind != JoinKind::LeftOuter {
                        let mut c = c;
                        c.remap_columns(&|i| i - la);
                        right_c.push(c);
                    } else if kind != JoinKind::LeftOuter {
                        join_c.push(c);
                    } else {
                        keep.push(c);
                    }
                }
                let left = match ScalarExpr::conjunction(left_c) {
                    Some(p) => LogicalOp::Filter {
                        input: left,
                        predicate: p,
                    },
                    None => *left,
                };
                let right = match ScalarExpr::conjunction(right_c) {
                    Some(p) => LogicalOp::Filter {
                        input: right,
                        predicate: p,
                    },
                    None => *right,
                };
                let (kind, on) = if join_c.is_empty() {
                    (kind, on)
                } else {
                    let mut all = on.map(|o| o.into_conjuncts()).unwrap_or_default();
                    all.extend(join_c);
                    (
                        if kind == JoinKind::Cross {
                            JoinKind::Inner
                        } else {
                            kind
                        },
                        ScalarExpr::conjunction(all),
                    )
                };
                self.goal = goal;
                let j = self.join(left, right, kind, on, hint, columns.clone())?;
                match ScalarExpr::conjunction(keep) {
                    Some(p) => {
                        let p = self.expr(p)?;
                        Ok(self.node(
                            PhysKind::Filter {
                                input: Box::new(j),
                                predicate: p,
                            },
                            columns,
                        ))
                    }
                    None => Ok(j),
                }
            }
            other => {
                let input = self.op(other)?;
                let conj = self.exprs(conj)?;
                // over an aggregate (HAVING): from the aggregated columns' histograms
                let e = match crate::having_estimate::selectivity(
                    &mut self.stats,
                    self.catalog,
                    &input,
                    &conj,
                ) {
                    // never below one row, as a range estimate
                    Some(sel) => (input.est_rows * sel).max(input.est_rows.min(1.0)),
                    None => input.est_rows * crate::cardinality::OTHER_GUESS,
                };
                let p = ScalarExpr::conjunction(conj)
                    .ok_or_else(|| common::SqlError::internal("empty filter"))?;
                let mut n = self.node(
                    PhysKind::Filter {
                        input: Box::new(input),
                        predicate: p,
                    },
                    columns,
                );
                n.est_rows = e;
                Ok(n)
            }
        }
    }

    /// Table access: index seek when conjuncts bind an index key prefix, else a scan.
    fn access_path(
        &mut self,
        src: TableSource,
        conj: Vec<ScalarExpr>,
        columns: Vec<ColumnMeta>,
    ) -> SqlResult<PhysOp> {
        let table = src.table.clone();
        let forced: Option<usize> = src.hints.index.first().and_then(|h| {
            if let Ok(id) = h.parse::<i32>() {
                if id == 0 {
                    return Some(usize::MAX);
                }
                table.indexes.iter().position(|i| i.index_id == id)
            } else {
                table
                    .indexes
                    .iter()
                    .position(|i| catalog::name_eq(&i.name, h))
            }
        });
        let mut predicate_columns = Vec::new();
        for c in &conj {
            c.columns_used(&mut predicate_columns);
        }
        predicate_columns.sort_unstable();
        predicate_columns.dedup();
        let ts = self
            .stats
            .get_with(self.catalog, &table, &predicate_columns);
        let informed = self.informed(&table);
        let scan_cost = crate::cost::scan_cost(&table, ts.rows);
        let mut best: Option<SeekChoice> = None;
        let mut best_cost = f64::INFINITY;
        self.search.tables += 1;
        let mut seek_candidates = 0u32;
        let mut memo_seeks = self.memo.is_some().then(Vec::new);
        let memo_bindable = self.memo_bindable(&conj, &table);
        if self.enabled("SelToIdxSeek") && !src.hints.force_scan && forced != Some(usize::MAX) {
            for (ix, index) in table.indexes.iter().enumerate() {
                if index.kind != IndexKind::RowStore || index.filter.is_some() {
                    continue;
                }
                if let Some(f) = forced {
                    if f != ix {
                        continue;
                    }
                }
                let (range, used) = match_index(&conj, &index.key_columns, &table);
                if range.eq.is_empty() && range.lower.is_none() && range.upper.is_none() {
                    continue;
                }
                let score = (
                    range.eq.len(),
                    range.lower.is_some() || range.upper.is_some(),
                    index.clustered || index.unique,
                );
                seek_candidates += 1;
                if let (false, Some(v)) = (informed, memo_seeks.as_mut()) {
                    v.push((ix, f64::NAN, 10.0));
                }
                if informed {
                    // cost based: the cheapest seek (its rows from the statistics)
                    let seek_conj =
                        seek_conjuncts(&conj, &used, index.key_columns.get(range.eq.len()));
                    let rows = ts.rows * ts.conj_selectivity(&seek_conj);
                    let (io, cpu) =
                        crate::cost::seek_cost(&table, ts.rows, ix, rows.max(1.0), false);
                    if let Some(v) = memo_seeks.as_mut() {
                        v.push((ix, io + cpu, rows.max(1.0)));
                    }
                    if io + cpu < best_cost {
                        best_cost = io + cpu;
                        best = Some((ix, range, used, score));
                    }
                } else if best.as_ref().is_none_or(|b| score > b.3) {
                    best = Some((ix, range, used, score));
                }
            }
        }
        // the scan wins when it is clearly cheaper; on tables of a few pages both are cheap and
        // the seek is kept (it reads, and locks, fewer rows)
        let seek_required = forced.is_some() || src.hints.force_seek || !self.enabled("GetToScan");
        if informed && !seek_required && best_cost > scan_cost + SEEK_PREFERENCE {
            best = None;
        }
        let est_out = if informed {
            ts.rows * ts.conj_selectivity(&conj)
        } else {
            0.0
        };
        if let Some((ix, range, used, _)) = best {
            let full_unique =
                table.indexes[ix].unique && range.eq.len() == table.indexes[ix].key_columns.len();
            let rest: Vec<ScalarExpr> = conj
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !used.contains(i))
                .map(|(_, c)| c)
                .collect();
            let mut n = self.node(
                PhysKind::IndexSeek {
                    source: src,
                    index: ix,
                    range,
                    predicate: ScalarExpr::conjunction(rest),
                    backward: false,
                },
                columns,
            );
            n.est_rows = if full_unique {
                1.0
            } else if informed {
                est_out
            } else {
                10.0
            };
            if informed && !full_unique {
                self.search.costed_choices += 1;
            }
            let memo_rows = if informed { est_out } else { f64::NAN };
            let memo_scan = if informed { scan_cost } else { f64::NAN };
            self.memo_access(
                &n,
                memo_seeks,
                Some(ix),
                memo_scan,
                memo_rows,
                &memo_bindable,
            );
            return Ok(n);
        }
        if src.hints.force_seek || !self.enabled("GetToScan") {
            // FORCESEEK with no index whose key the predicates can seek on: SQL Server refuses
            // the query rather than scanning
            return Err(common::SqlError::new(8622, &[]));
        }
        let predicate = ScalarExpr::conjunction(conj);
        let has_pred = predicate.is_some();
        let kind = match table.storage {
            TableStorage::Heap(_) => PhysKind::TableScan {
                source: src,
                predicate,
            },
            TableStorage::Clustered { .. } => PhysKind::ClusteredIndexScan {
                source: src,
                predicate,
                ordered: false,
                backward: false,
            },
        };
        let mut n = self.node(kind, columns);
        if informed {
            n.est_rows = est_out;
        } else if has_pred {
            n.est_rows *= 0.3;
        }
        if informed && seek_candidates > 0 {
            self.search.costed_choices += 1;
        }
        let memo_rows = n.est_rows;
        let memo_scan = if informed { scan_cost } else { f64::NAN };
        self.memo_access(&n, memo_seeks, None, memo_scan, memo_rows, &memo_bindable);
        Ok(n)
    }

    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        left: LogicalOp,
        right: LogicalOp,
        kind: JoinKind,
        on: Option<ScalarExpr>,
        hint: Option<JoinHint>,
        columns: Vec<ColumnMeta>,
    ) -> SqlResult<PhysOp> {
        let (mut left, mut right) = (left, right);
        if kind == JoinKind::Inner && self.enabled("SimplifyOuterJoin") {
            crate::outer_join::simplify_inputs(&mut left, &mut right, on.as_ref());
        }
        // the row goal on this join's output: its alternatives are compared under it
        let goal = self.goal.take();
        if matches!(kind, JoinKind::Inner | JoinKind::Cross)
            && hint.is_none()
            && !self.options.force_order
            && !self.reordering
            && self.enabled("JoinOrder")
        {
            if let Some(p) =
                self.reorder_joins(&left, &right, on.as_ref(), &columns, goal.is_some())?
            {
                return Ok(p);
            }
        }
        // a join of a tree JoinOrder's search ordered: its chosen implementation
        let forced = if kind == JoinKind::Inner && hint.is_none() {
            self.extracted_algo(&left, &right)
        } else {
            None
        };
        let la = left.arity();
        let ra = right.arity();
        if kind == JoinKind::RightOuter {
            // a RIGHT JOIN b  ==  b LEFT JOIN a, with the columns put back in order
            let on = on.map(|mut o| {
                o.remap_columns(&|i| if i < la { i + ra } else { i - la });
                o
            });
            let swapped_cols: Vec<ColumnMeta> = columns[la..]
                .iter()
                .chain(columns[..la].iter())
                .cloned()
                .collect();
            let j = self.join(right, left, JoinKind::LeftOuter, on, hint, swapped_cols)?;
            let exprs = (0..la + ra)
                .map(|i| {
                    let src = if i < la { ra + i } else { i - la };
                    ScalarExpr::column(src, columns[i].data_type.clone())
                })
                .collect();
            return Ok(self.node(
                PhysKind::ComputeScalar {
                    input: Box::new(j),
                    exprs,
                },
                columns,
            ));
        }
        // split ON into equi-join keys and a residual
        let mut lkeys = Vec::new();
        let mut rkeys = Vec::new();
        let mut residual = Vec::new();
        if let Some(on) = on {
            for c in on.into_conjuncts() {
                if let ScalarKind::Compare(CmpOp::Eq, a, b) = &c.kind {
                    if !c.has_subquery() {
                        let side = |e: &ScalarExpr| {
                            let mut v = Vec::new();
                            e.columns_used(&mut v);
                            if v.is_empty() {
                                0
                            } else if v.iter().all(|&i| i < la) {
                                1
                            } else if v.iter().all(|&i| i >= la) {
                                2
                            } else {
                                3
                            }
                        };
                        let (sa, sb) = (side(a), side(b));
                        if (sa, sb) == (1, 2) || (sa, sb) == (2, 1) {
                            let (l, r) = if sa == 1 { (a, b) } else { (b, a) };
                            let mut r = (**r).clone();
                            r.remap_columns(&|i| i - la);
                            lkeys.push((**l).clone());
                            rkeys.push(r);
                            continue;
                        }
                    }
                }
                residual.push(c);
            }
        }
        self.search.joins += 1;
        // (an extracted join's alternatives are the search's, recorded in its group)
        let memo_inputs = if forced.is_some() {
            None
        } else {
            self.memo_join_inputs(&left, &right, &lkeys, &rkeys)
        };
        let left_get = match &left {
            LogicalOp::Get(src) => Some(src.clone()),
            _ => None,
        };
        let informed_left = match &left_get {
            Some(src) => self.informed(&src.table),
            None => false,
        };
        // a semi join's inputs are often filtered tables: their row counts decide its sides
        let semi_informed = matches!(kind, JoinKind::LeftSemi | JoinKind::LeftAntiSemi)
            && [&left, &right]
                .into_iter()
                .all(|op| crate::costed::base_table(op).is_some_and(|t| self.informed(&t)));
        let lphys = self.op(left)?;
        let lkeys = self.exprs(lkeys)?;
        let residual = self.exprs(residual)?;
        if lkeys.is_empty() {
            let rphys = self.op(right)?;
            let predicate = ScalarExpr::conjunction(residual);
            if kind == JoinKind::FullOuter {
                return Ok(self.node(
                    PhysKind::HashJoin {
                        left: Box::new(lphys),
                        right: Box::new(rphys),
                        kind,
                        left_keys: vec![],
                        right_keys: vec![],
                        residual: predicate,
                    },
                    columns,
                ));
            }
            if !self.enabled("JNtoNL") {
                // nested loops is the only implementation of a join without equality keys
                return Err(common::SqlError::new(8622, &[]));
            }
            let mut e = lphys.est_rows * rphys.est_rows;
            if predicate.is_some() {
                e *= crate::cardinality::OTHER_GUESS;
            }
            let rphys = self.spool_inner(lphys.est_rows, rphys);
            let mut n = self.node(
                PhysKind::NestedLoops {
                    outer: Box::new(lphys),
                    inner: Box::new(rphys),
                    kind,
                    predicate,
                    params: vec![],
                },
                columns,
            );
            n.est_rows = e;
            return Ok(n);
        }
        // nested loops with an index seek on the inner side: with known row counts an
        // alternative costed against the hash join below; without them, when the outer input
        // is small (the rule-based preference)
        let informed_right = match &right {
            LogicalOp::Get(src) => self.informed(&src.table),
            _ => false,
        };
        let lookup_ok = matches!(
            kind,
            JoinKind::Inner | JoinKind::LeftOuter | JoinKind::LeftSemi | JoinKind::LeftAntiSemi
        ) && self.enabled("JNtoIdxLookup")
            && hint != Some(JoinHint::Hash)
            && hint != Some(JoinHint::Merge)
            && matches!(forced, None | Some(JoinAlgo::LoopsSeek))
            && (hint == Some(JoinHint::Loop)
                || forced.is_some()
                || informed_right
                || lphys.est_rows <= 100.0);
        let mut loops_alternative = None;
        if lookup_ok {
            if let LogicalOp::Get(src) = &right {
                if let Some(n) = self.index_lookup(
                    lphys.clone(),
                    src.clone(),
                    &lkeys,
                    &rkeys,
                    &residual,
                    kind,
                    columns.clone(),
                )? {
                    if hint == Some(JoinHint::Loop) || !informed_right || forced.is_some() {
                        let mut n = n;
                        self.memo_join(&memo_inputs, kind, hint, std::slice::from_mut(&mut n), 0);
                        return Ok(n);
                    }
                    loops_alternative = Some(n);
                }
            }
        }
        let rphys = self.op(right)?;
        let rkeys = self.exprs(rkeys)?;
        // Nested loops cannot preserve the unmatched inner rows of a FULL join: like the
        // key-less case above, a FULL join under a LOOP hint runs as a hash join.
        if hint == Some(JoinHint::Loop) && kind != JoinKind::FullOuter {
            if !self.enabled("JNtoNL") {
                return Err(common::SqlError::new(8622, &[]));
            }
            // loop join without a usable index: keys go back into the predicate
            let e = self.join_estimate(&lphys, &rphys, &lkeys, &rkeys, kind, &residual);
            let rphys = self.spool_inner(lphys.est_rows, rphys);
            let mut preds = residual;
            for (l, r) in lkeys.into_iter().zip(rkeys) {
                let mut r = r;
                r.remap_columns(&|i| i + la);
                preds.push(ScalarExpr::new(
                    ScalarKind::Compare(CmpOp::Eq, Box::new(l), Box::new(r)),
                    DataType::Bit,
                ));
            }
            let mut n = self.node(
                PhysKind::NestedLoops {
                    outer: Box::new(lphys),
                    inner: Box::new(rphys),
                    kind,
                    predicate: ScalarExpr::conjunction(preds),
                    params: vec![],
                },
                columns,
            );
            n.est_rows = e;
            self.memo_join(&memo_inputs, kind, hint, std::slice::from_mut(&mut n), 0);
            return Ok(n);
        }
        let merge_kind = matches!(
            kind,
            JoinKind::Inner | JoinKind::LeftOuter | JoinKind::LeftSemi | JoinKind::LeftAntiSemi
        );
        let merge = hint == Some(JoinHint::Merge) || forced == Some(JoinAlgo::Merge);
        if merge && merge_kind && self.enabled("JoinToMerge") {
            let sort = |p: &mut Self, input: PhysOp, keys: &[ScalarExpr]| {
                let cols = input.columns.clone();
                let e = input.est_rows;
                let mut n = p.node(
                    PhysKind::Sort {
                        input: Box::new(input),
                        keys: keys
                            .iter()
                            .map(|k| SortKey {
                                expr: k.clone(),
                                desc: false,
                            })
                            .collect(),
                        top: None,
                        distinct: false,
                    },
                    cols,
                );
                n.est_rows = e;
                n
            };
            let mut l = lphys;
            let mut r = rphys;
            let lk: Vec<SortKey> = lkeys
                .iter()
                .map(|k| SortKey {
                    expr: k.clone(),
                    desc: false,
                })
                .collect();
            let rk: Vec<SortKey> = rkeys
                .iter()
                .map(|k| SortKey {
                    expr: k.clone(),
                    desc: false,
                })
                .collect();
            if !try_ordered_scan(&mut l, &lk) {
                l = sort(self, l, &lkeys);
            }
            if !try_ordered_scan(&mut r, &rk) {
                r = sort(self, r, &rkeys);
            }
            let e = self.join_estimate(&l, &r, &lkeys, &rkeys, kind, &residual);
            let mut n = self.node(
                PhysKind::MergeJoin {
                    left: Box::new(l),
                    right: Box::new(r),
                    kind,
                    left_keys: lkeys,
                    right_keys: rkeys,
                    residual: ScalarExpr::conjunction(residual),
                },
                columns,
            );
            n.est_rows = e;
            self.memo_join(&memo_inputs, kind, hint, std::slice::from_mut(&mut n), 0);
            return Ok(n);
        }
        if hint == Some(JoinHint::Merge) && self.enabled("JoinToMerge") {
            // exec's Merge Join has no right/full outer form: a MERGE JOIN hint on those has
            // no plan here, which SQL Server reports as Msg 8622 (never a silent hash join)
            return Err(common::SqlError::new(8622, &[]));
        }
        let e = self.join_estimate(&lphys, &rphys, &lkeys, &rkeys, kind, &residual);
        let mut n = self.node(
            PhysKind::HashJoin {
                left: Box::new(lphys),
                right: Box::new(rphys),
                kind,
                left_keys: lkeys,
                right_keys: rkeys,
                residual: ScalarExpr::conjunction(residual),
            },
            columns.clone(),
        );
        n.est_rows = e;
        // one logical semi / anti semi join, one estimate: the loops alternative's own figure
        // assumes every seek finds its match (an anti join then sits at its floor), which
        // would make the two alternatives disagree about the rows a row goal scales by
        let semi = matches!(kind, JoinKind::LeftSemi | JoinKind::LeftAntiSemi);
        let mut alternatives: Vec<PhysOp> = loops_alternative
            .into_iter()
            .map(|mut a| {
                if semi {
                    a.est_rows = e;
                }
                a
            })
            .collect();
        let commute = kind == JoinKind::Inner
            && hint.is_none()
            && forced.is_none()
            && !self.options.force_order
            && (informed_right || informed_left)
            && self.enabled("JoinCommute");
        if commute {
            alternatives.extend(self.commuted_join(&n, left_get, la, ra, &columns)?);
        }
        // a semi / anti semi join may build on its preserved input instead (Right Semi Join);
        // OPTION (HASH JOIN) still allows it (it fixes no order), FORCE ORDER does not
        let swap_semi = semi
            && matches!(hint, None | Some(JoinHint::Hash))
            && forced.is_none()
            && !self.options.force_order
            && (informed_right || informed_left || semi_informed)
            && self.enabled("JoinCommute");
        if swap_semi {
            alternatives.extend(self.swapped_semi_join(&n, la));
        }
        if alternatives.is_empty() {
            self.memo_join(&memo_inputs, kind, hint, std::slice::from_mut(&mut n), 0);
            return Ok(n);
        }
        // the cheapest of the hash join and the alternatives, under the row goal if any
        let mut candidates = vec![n];
        candidates.extend(alternatives);
        for c in &mut candidates {
            self.annotate(c);
        }
        let best = crate::row_goal::choose_index(&candidates, goal, kind);
        self.memo_join(&memo_inputs, kind, hint, &mut candidates, best);
        Ok(candidates.swap_remove(best))
    }

    /// Nested loops + index seek on `src` when an index leads with the right key columns.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn index_lookup(
        &mut self,
        outer: PhysOp,
        src: TableSource,
        lkeys: &[ScalarExpr],
        rkeys: &[ScalarExpr],
        residual: &[ScalarExpr],
        kind: JoinKind,
        columns: Vec<ColumnMeta>,
    ) -> SqlResult<Option<PhysOp>> {
        let table = src.table.clone();
        let la = outer.columns.len();
        for (ix, index) in table.indexes.iter().enumerate() {
            if index.kind != IndexKind::RowStore || index.filter.is_some() {
                continue;
            }
            let mut eq = Vec::new();
            let mut params = Vec::new();
            let mut used = Vec::new();
            for &(kc, _) in &index.key_columns {
                let Some(k) = rkeys.iter().position(|r| r.as_column() == Some(kc)) else {
                    break;
                };
                if !seek_compatible(&lkeys[k].data_type, &table.columns[kc].data_type) {
                    break;
                }
                let slot = self.next_slot;
                self.next_slot += 1;
                params.push((slot, lkeys[k].clone()));
                eq.push(ScalarExpr::new(
                    ScalarKind::Param(slot),
                    lkeys[k].data_type.clone(),
                ));
                used.push(k);
            }
            if eq.is_empty() {
                continue;
            }
            // remaining key pairs + residual form the join predicate over outer ++ inner
            let mut preds: Vec<ScalarExpr> = residual.to_vec();
            for (k, (l, r)) in lkeys.iter().zip(rkeys).enumerate() {
                if used.contains(&k) {
                    continue;
                }
                let mut r = r.clone();
                r.remap_columns(&|i| i + la);
                preds.push(ScalarExpr::new(
                    ScalarKind::Compare(CmpOp::Eq, Box::new(l.clone()), Box::new(r)),
                    DataType::Bit,
                ));
            }
            let inner_cols = src.columns();
            let key_cols: Vec<usize> = index.key_columns.iter().map(|k| k.0).collect();
            let ts = self.stats.get_with(self.catalog, &table, &key_cols);
            let full_unique = index.unique && eq.len() == index.key_columns.len();
            let per_seek = if full_unique {
                1.0
            } else if ts.known {
                let sels = index.key_columns[..eq.len()]
                    .iter()
                    .map(|&(kc, _)| ts.eq_selectivity(kc, None))
                    .collect();
                (ts.rows * crate::cardinality::and_backoff(sels)).max(1.0)
            } else {
                10.0
            };
            let has_preds = !preds.is_empty();
            let mut seek = self.node(
                PhysKind::IndexSeek {
                    source: src,
                    index: ix,
                    range: SeekRange {
                        eq,
                        lower: None,
                        upper: None,
                    },
                    predicate: None,
                    backward: false,
                },
                inner_cols,
            );
            seek.est_rows = per_seek;
            let o = outer.est_rows;
            let matched = if has_preds {
                per_seek * crate::cardinality::OTHER_GUESS
            } else {
                per_seek
            };
            let e = match kind {
                JoinKind::LeftSemi => o * matched.min(1.0),
                JoinKind::LeftAntiSemi => {
                    (o * (1.0 - matched.min(1.0))).max(o * crate::row_goal::ANTI_SEMI_MIN_FRACTION)
                }
                JoinKind::LeftOuter => o * matched.max(1.0),
                _ => o * matched,
            };
            let mut n = self.node(
                PhysKind::NestedLoops {
                    outer: Box::new(outer),
                    inner: Box::new(seek),
                    kind,
                    predicate: ScalarExpr::conjunction(preds),
                    params,
                },
                columns,
            );
            n.est_rows = e;
            return Ok(Some(n));
        }
        Ok(None)
    }
}

/// Cost difference under which a seek is kept over a cheaper scan (about three page reads):
/// on tables of a few pages the two cost the same to the user and the seek touches fewer rows.
pub(crate) const SEEK_PREFERENCE: f64 = 0.01;

/// The conjuncts a seek's range applies: the consumed equalities and the range conjuncts on
/// the next key column `next` (those also stay in the residual).
fn seek_conjuncts(
    conj: &[ScalarExpr],
    used: &[usize],
    next: Option<&(usize, bool)>,
) -> Vec<ScalarExpr> {
    conj.iter()
        .enumerate()
        .filter(|(i, c)| {
            used.contains(i)
                || next.is_some_and(|&(kc, _)| match &c.kind {
                    ScalarKind::Compare(op, a, b) if !matches!(op, CmpOp::Eq | CmpOp::Ne) => {
                        (a.as_column() == Some(kc) && row_independent(b))
                            || (b.as_column() == Some(kc) && row_independent(a))
                    }
                    _ => false,
                })
        })
        .map(|(_, c)| c.clone())
        .collect()
}

/// Can a value of type `v` be used to seek a key column of type `col` (exact, order preserving)?
pub(crate) fn seek_compatible(v: &DataType, col: &DataType) -> bool {
    v == col
        || (v.is_integer() && col.is_integer())
        || (v.is_string() && col.is_string() && (!v.is_unicode() || col.is_unicode()))
        || (matches!(v, DataType::Date) && matches!(col, DataType::Date))
}

fn row_independent(e: &ScalarExpr) -> bool {
    let mut cols = Vec::new();
    e.columns_used(&mut cols);
    cols.is_empty() && !e.has_subquery()
}

/// Matches conjuncts against an index key: equality prefix + optional range on the next column.
/// Returns the seek range and the indexes of the conjuncts it consumed.
/// Indexes whose key prefix `conj` binds (for the memo's record of seeks never costed);
/// empty when no memo is recorded.
impl Planner<'_> {
    fn memo_bindable(&self, conj: &[ScalarExpr], table: &catalog::TableDef) -> Vec<usize> {
        if self.memo.is_none() {
            return Vec::new();
        }
        (0..table.indexes.len())
            .filter(|&ix| {
                let i = &table.indexes[ix];
                if i.kind != IndexKind::RowStore || i.filter.is_some() {
                    return false;
                }
                let (r, _) = match_index(conj, &i.key_columns, table);
                !r.eq.is_empty() || r.lower.is_some() || r.upper.is_some()
            })
            .collect()
    }
}

pub(crate) fn match_index(
    conj: &[ScalarExpr],
    key: &[(usize, bool)],
    table: &catalog::TableDef,
) -> (SeekRange, Vec<usize>) {
    let mut range = SeekRange::default();
    let mut used = Vec::new();
    // (conjunct index, op, value) with the column on the left
    let norm = |c: &ScalarExpr| -> Option<(usize, CmpOp, ScalarExpr)> {
        if let ScalarKind::Compare(op, a, b) = &c.kind {
            if let Some(col) = a.as_column() {
                if row_independent(b) {
                    return Some((col, *op, (**b).clone()));
                }
            }
            if let Some(col) = b.as_column() {
                if row_independent(a) {
                    return Some((col, op.swap(), (**a).clone()));
                }
            }
        }
        None
    };
    for &(kc, _) in key {
        let coltype = &table.columns[kc].data_type;
        let eq = conj.iter().enumerate().find_map(|(i, c)| {
            let (col, op, v) = norm(c)?;
            (col == kc && op == CmpOp::Eq && seek_compatible(&v.data_type, coltype))
                .then_some((i, v))
        });
        if let Some((i, v)) = eq {
            range.eq.push(v);
            used.push(i);
            continue;
        }
        // range on this column
        for (i, c) in conj.iter().enumerate() {
            let Some((col, op, v)) = norm(c) else {
                continue;
            };
            if col != kc || !seek_compatible(&v.data_type, coltype) {
                continue;
            }
            match op {
                // range conjuncts stay in the residual too: a bound the seek cannot encode
                // (out of the column's range) is dropped by exec and re-checked there
                CmpOp::Gt | CmpOp::Ge if range.lower.is_none() => {
                    range.lower = Some((v, op == CmpOp::Ge));
                    let _ = i;
                }
                CmpOp::Lt | CmpOp::Le if range.upper.is_none() => {
                    range.upper = Some((v, op == CmpOp::Le));
                }
                _ => {}
            }
        }
        break;
    }
    (range, used)
}

/// If `op` is (ComputeScalar/Filter over) a clustered index scan and `keys` are a prefix of the
/// clustered key with one direction, makes the scan ordered and returns true.
fn try_ordered_scan(op: &mut PhysOp, keys: &[SortKey]) -> bool {
    if keys.is_empty() {
        return false;
    }
    // map each key to a scan column through projections
    let mut cols: Vec<usize> = Vec::new();
    for k in keys {
        match k.expr.as_column() {
            Some(c) => cols.push(c),
            None => return false,
        }
    }
    fn find(op: &mut PhysOp, cols: Vec<usize>, keys: &[SortKey]) -> bool {
        match &mut op.kind {
            PhysKind::ComputeScalar { input, exprs } => {
                let mut mapped = Vec::new();
                for c in cols {
                    match exprs.get(c).and_then(|e| e.as_column()) {
                        Some(j) => mapped.push(j),
                        None => return false,
                    }
                }
                find(input, mapped, keys)
            }
            PhysKind::Filter { input, .. } => find(input, cols, keys),
            PhysKind::ClusteredIndexScan {
                source,
                ordered,
                backward,
                ..
            } => {
                let Some(ci) = source.table.clustered_index() else {
                    return false;
                };
                if cols.len() > ci.key_columns.len() {
                    return false;
                }
                let mut dir: Option<bool> = None;
                for (i, c) in cols.iter().enumerate() {
                    let (kc, kdesc) = ci.key_columns[i];
                    if kc != *c {
                        return false;
                    }
                    let rev = keys[i].desc != kdesc;
                    if dir.is_some_and(|d| d != rev) {
                        return false;
                    }
                    dir = Some(rev);
                }
                *ordered = true;
                *backward = dir.unwrap_or(false);
                true
            }
            _ => false,
        }
    }
    find(op, cols, keys)
}
