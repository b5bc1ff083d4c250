//! The memo of the search: every group (a logical sub-expression: a table access, a subset of
//! a join tree, a join, the root) with every alternative the search considered for it —
//! logical (JoinOrder's splits of a join subset) and physical (scan, seek, hash, nested
//! loops, commuted inputs) — the rule that produced it, its estimated rows and costs, the
//! winner, and for each loser why it lost.
//!
//! Recording is off unless asked for (`SET SHOWPLAN_MEMO ON`, [`crate::Options`] is untouched:
//! the engine calls [`crate::optimize_searched`] with `record_memo`): the planner holds an
//! `Option<Memo>` and every hook is a no-op on `None`, so a statement compiled without it pays
//! one branch per costed decision.
//!
//! Groups are found by their label (the sorted exposed names of the base tables under them,
//! `{c, o}`): JoinOrder's subset `{c, o}` and the physical join the planner later builds for
//! those two tables are the same group, its logical and physical alternatives side by side.
//!
//! Costs: physical alternatives carry the cost model's figures (`cost.rs`, SQL Server's
//! units); JoinOrder's logical alternatives (splits) carry the cost of their cheapest physical
//! alternative, which is what the join search (join_search.rs) minimises. The join search
//! records its own physical alternatives in its groups; the joins it then has the planner build
//! (the extracted winner) are not recorded a second time.

use plan::{LogicalOp, PhysKind, PhysOp};

/// Recorded alternatives past which the memo keeps only the count (a 12-relation clique has
/// hundreds of thousands of JoinOrder splits); the search itself is not affected.
pub const MEMO_ALTERNATIVES_CAP: usize = 20_000;

/// The memo of one statement's search.
#[derive(Clone, Debug, Default)]
pub struct Memo {
    pub groups: Vec<Group>,
    /// Alternatives considered but not kept because the memo was at [`MEMO_ALTERNATIVES_CAP`].
    pub dropped: u64,
    recorded: usize,
    /// The group the latest alternative went to (the planner records bottom-up, so after a
    /// statement it is the top of its tree).
    last_group: Option<u32>,
}

/// A logical sub-expression and its alternatives. `id` is 1-based (the position + 1).
#[derive(Clone, Debug)]
pub struct Group {
    pub id: u32,
    /// What the group computes: `{o}` (a table access), `{c, o}` (a join of those tables),
    /// `root`.
    pub label: String,
    pub alternatives: Vec<Alternative>,
}

/// One alternative of a group.
#[derive(Clone, Debug, Default)]
pub struct Alternative {
    /// Logical operator (`Get`, `Inner Join`, `Select` …).
    pub logical: String,
    /// Physical operator with its object, None for a logical alternative.
    pub physical: Option<String>,
    /// The rule that produced it (`rules::RULES` names).
    pub rule: &'static str,
    /// Group ids of its inputs.
    pub children: Vec<u32>,
    pub est_rows: Option<f64>,
    /// Its own cost (one execution), None where it was never costed.
    pub own_cost: Option<f64>,
    /// Its own cost plus its inputs' (for JoinOrder's logical alternatives: the cost of the
    /// split's cheapest physical alternative).
    pub subtree_cost: Option<f64>,
    /// Derived properties (the sort order it delivers), when it has any.
    pub properties: Option<String>,
    pub chosen: bool,
    /// Why it lost; None for the winner (and alternatives of a group not yet settled).
    pub why_lost: Option<String>,
}

impl Memo {
    /// The most recent group labelled `label`, else a new one.
    pub fn group(&mut self, label: &str) -> u32 {
        if let Some(g) = self.find(label) {
            return g;
        }
        let id = self.groups.len() as u32 + 1;
        self.groups.push(Group {
            id,
            label: label.to_string(),
            alternatives: Vec::new(),
        });
        id
    }

    /// The most recent group labelled `label`.
    pub fn find(&self, label: &str) -> Option<u32> {
        self.groups
            .iter()
            .rev()
            .find(|g| g.label == label)
            .map(|g| g.id)
    }

    /// Adds an alternative to group `g` (dropped, only counted, past the cap).
    pub fn add(&mut self, g: u32, alt: Alternative) {
        if self.recorded >= MEMO_ALTERNATIVES_CAP {
            self.dropped += 1;
            return;
        }
        if let Some(group) = self.groups.get_mut((g as usize).wrapping_sub(1)) {
            group.alternatives.push(alt);
            self.recorded += 1;
            self.last_group = Some(g);
        }
    }

    /// The group the latest alternative went to.
    pub fn last_group(&self) -> Option<u32> {
        self.last_group
    }

    /// Alternatives recorded so far.
    pub fn len(&self) -> usize {
        self.recorded
    }

    pub fn is_empty(&self) -> bool {
        self.recorded == 0
    }
}

/// Adds the `root` group: the statement's finished plan (its top operator, estimates and total
/// cost) over the group recorded last.
pub fn record_root(m: &mut Memo, plan: &plan::PhysicalPlan) {
    let Some(root) = crate::showplan_xml::plan_root(plan) else {
        return;
    };
    // the projection JoinOrder / JoinCommute put on top only restores the column order
    let root = strip_projection(root);
    let child = m.last_group;
    let g = m.group("root");
    m.add(
        g,
        Alternative {
            logical: crate::showplan_xml::op_names(root).1.to_string(),
            physical: Some(describe(root)),
            rule: "",
            children: child.into_iter().collect(),
            est_rows: Some(root.est_rows),
            own_cost: Some(root.cost.io + root.cost.cpu),
            subtree_cost: Some(root.cost.subtree),
            chosen: true,
            ..Default::default()
        },
    );
}

/// `higher cost by d (c vs w)`: the reason a costed alternative lost to the winner's cost.
pub fn higher_cost(cost: f64, winner: f64) -> String {
    format!(
        "higher cost by {} ({} vs {})",
        fmt_num(cost - winner),
        fmt_num(cost),
        fmt_num(winner)
    )
}

/// Six significant digits, no exponent for the magnitudes costs have.
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let digits = (6 - 1 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The label of the group a logical expression belongs to: the exposed names of the base
/// tables it reads, sorted, in braces (`{c, o}`); `{}` when it reads none.
pub fn label_of(op: &LogicalOp) -> String {
    let mut names = Vec::new();
    collect_names(op, &mut names);
    label_from(names)
}

/// A label from table names (sorted here).
pub fn label_from(mut names: Vec<String>) -> String {
    names.sort();
    format!("{{{}}}", names.join(", "))
}

fn collect_names(op: &LogicalOp, out: &mut Vec<String>) {
    let mut pending = vec![op];
    while let Some(op) = pending.pop() {
        match op {
            LogicalOp::Get(src) => out.push(src.alias.clone()),
            LogicalOp::VirtualGet { alias, .. } => out.push(alias.clone()),
            LogicalOp::Filter { input, .. }
            | LogicalOp::Project { input, .. }
            | LogicalOp::Aggregate { input, .. }
            | LogicalOp::Window { input, .. }
            | LogicalOp::Sort { input, .. }
            | LogicalOp::Top { input, .. }
            | LogicalOp::Distinct { input } => pending.push(input),
            LogicalOp::Join { left, right, .. } | LogicalOp::SetOp { left, right, .. } => {
                pending.push(left);
                pending.push(right);
            }
            LogicalOp::Apply { outer, inner, .. } => {
                pending.push(outer);
                pending.push(inner);
            }
            LogicalOp::RecursiveCte {
                anchor, recursive, ..
            } => {
                pending.push(anchor);
                pending.push(recursive);
            }
            LogicalOp::Values { .. }
            | LogicalOp::WorkTable { .. }
            | LogicalOp::TableFunction { .. } => {}
        }
    }
}

/// A physical operator as the memo names it: showplan's physical operator and the object it
/// reads (`Clustered Index Seek [o].[PK_o]`, `Hash Match (Inner Join)`).
pub fn describe(op: &PhysOp) -> String {
    let (phys, logical) = crate::showplan_xml::op_names(op);
    match &op.kind {
        PhysKind::TableScan { source, .. } => format!("Table Scan [{}]", source.alias),
        PhysKind::ClusteredIndexScan { source, .. } => {
            format!("Clustered Index Scan [{}]", source.alias)
        }
        PhysKind::IndexSeek { source, index, .. } => {
            let ix = source.table.indexes.get(*index);
            let kind = if ix.is_some_and(|i| i.clustered) {
                "Clustered Index Seek"
            } else {
                "Index Seek"
            };
            let name = ix.map_or("?", |i| i.name.as_str());
            format!("{kind} [{}].[{name}]", source.alias)
        }
        PhysKind::NestedLoops { inner, .. } => {
            let inner = strip_projection(inner);
            if matches!(inner.kind, PhysKind::IndexSeek { .. }) {
                format!("Nested Loops ({logical}) over {}", describe(inner))
            } else {
                format!("Nested Loops ({logical})")
            }
        }
        PhysKind::ComputeScalar { .. } if !std::ptr::eq(strip_projection(op), op) => {
            describe(strip_projection(op))
        }
        _ if phys == logical => phys.to_string(),
        _ => format!("{phys} ({logical})"),
    }
}

/// The operator under pure projections (JoinCommute's column reordering).
fn strip_projection(op: &PhysOp) -> &PhysOp {
    let mut op = op;
    while let PhysKind::ComputeScalar { input, exprs } = &op.kind {
        if !exprs.iter().all(|e| e.as_column().is_some()) {
            break;
        }
        op = input;
    }
    op
}

/// Whether `op` is a join with its inputs swapped behind a reordering projection.
pub(crate) fn is_commuted(op: &PhysOp) -> bool {
    match &op.kind {
        PhysKind::ComputeScalar { input, .. } => {
            matches!(
                input.kind,
                PhysKind::HashJoin { .. } | PhysKind::NestedLoops { .. }
            )
        }
        // a semi join building on its preserved input (Right Semi Join): no projection needed
        PhysKind::HashJoin { kind, .. } => !kind.outputs_left(),
        _ => false,
    }
}

/// The sort order an access path delivers, for the memo's properties column.
pub(crate) fn derived_order(op: &PhysOp) -> Option<String> {
    match &op.kind {
        PhysKind::IndexSeek { source, index, .. } => {
            let ix = source.table.indexes.get(*index)?;
            let cols: Vec<String> = ix
                .key_columns
                .iter()
                .filter_map(|&(c, desc)| {
                    let name = &source.table.columns.get(c)?.name;
                    Some(format!(
                        "[{}].[{}] {}",
                        source.alias,
                        name,
                        if desc { "DESC" } else { "ASC" }
                    ))
                })
                .collect();
            Some(format!("order: {}", cols.join(", ")))
        }
        _ => None,
    }
}
