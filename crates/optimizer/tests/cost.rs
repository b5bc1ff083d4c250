//! The cost model's invariants on plans the optimizer builds over a catalog that knows its row
//! counts: every node has an estimate and cost figures, a subtree's cost is its own cost times
//! its executions plus its children's subtrees, and the inner side of nested loops runs once
//! per outer row.

use std::sync::Arc;

use catalog::{
    Catalog, ColumnDef, IndexDef, IndexKind, QualifiedName, TableDef, TableRef, TableStorage,
};
use common::SqlResult;
use plan::{PhysKind, PhysOp, Statement};
use types::DataType;

struct Cat(Vec<(Arc<TableDef>, u64)>);

impl Catalog for Cat {
    fn current_database(&self) -> String {
        "db".into()
    }
    fn current_schema(&self) -> String {
        "dbo".into()
    }
    fn resolve_table(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        Ok(self
            .0
            .iter()
            .find(|(t, _)| t.name.eq_ignore_ascii_case(&name.name))
            .map(|(t, _)| TableRef::Table(t.clone())))
    }
    fn table_rows(&self, table: &TableDef) -> Option<u64> {
        self.0
            .iter()
            .find(|(t, _)| t.name == table.name)
            .map(|(_, r)| *r)
    }
}

impl plan::BindEnv for Cat {
    fn variable_slot(&self, _: &str) -> Option<(usize, DataType)> {
        None
    }
}

fn table(id: i32, name: &str) -> Arc<TableDef> {
    Arc::new(TableDef {
        object_id: id,
        database: "db".into(),
        schema: "dbo".into(),
        name: name.into(),
        columns: vec![
            ColumnDef::new("id", DataType::Int, false),
            ColumnDef::new("k", DataType::Int, false),
        ],
        indexes: vec![IndexDef {
            index_id: 1,
            name: format!("PK_{name}"),
            unique: true,
            primary_key: true,
            unique_constraint: false,
            clustered: true,
            kind: IndexKind::RowStore,
            key_columns: vec![(0, false)],
            included: vec![],
            filter: None,
            storage_id: id as u64,
            ignore_dup_key: false,
            fill_factor: 0,
            optimize_for_sequential_key: false,
        }],
        storage: TableStorage::Clustered { index: 0 },
        checks: vec![],
        foreign_keys: vec![],
        is_temp: false,
        create_date: String::new(),
    })
}

fn plan(sql: &str) -> PhysOp {
    let c = Cat(vec![(table(1, "small"), 10), (table(2, "big"), 100_000)]);
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &c).expect("bind");
    match optimizer::optimize(bound, &c).expect("optimize") {
        Statement::Select { input, .. } => input,
        _ => panic!("not a select"),
    }
}

fn check(op: &PhysOp, executions: f64, seen: &mut Vec<String>) {
    assert!(
        op.est_rows >= 0.0 && op.est_rows.is_finite(),
        "{:?}",
        op.kind
    );
    assert!(
        (op.cost.executions - executions).abs() < 1e-9,
        "executions of {:?}",
        op.kind
    );
    let children: f64 = op.children().iter().map(|c| c.cost.subtree).sum();
    let own = (op.cost.io + op.cost.cpu) * op.cost.executions;
    assert!(op.cost.io + op.cost.cpu > 0.0, "no cost on {:?}", op.kind);
    assert!(
        (op.cost.subtree - own - children).abs() < 1e-9,
        "subtree of {:?}",
        op.kind
    );
    seen.push(format!("{:?}", std::mem::discriminant(&op.kind)));
    match &op.kind {
        PhysKind::NestedLoops { outer, inner, .. } => {
            check(outer, executions, seen);
            check(inner, executions * outer.est_rows.max(1.0), seen);
        }
        _ => {
            for c in op.children() {
                check(c, executions, seen);
            }
        }
    }
}

#[test]
fn subtree_costs_add_up_and_loops_multiply_the_inner_side() {
    // 10 rows seeking into 100,000: nested loops, the seek runs 10 times
    let p = plan("SELECT COUNT(*) FROM small s JOIN big b ON b.id = s.k");
    let mut seen = Vec::new();
    check(&p, 1.0, &mut seen);
    let text = optimizer::explain(&{
        let c = Cat(vec![(table(1, "small"), 10), (table(2, "big"), 100_000)]);
        let stmts = parser::parse_batch("SELECT COUNT(*) FROM small s JOIN big b ON b.id = s.k")
            .expect("parse");
        optimizer::optimize(plan::bind_statement(&stmts[0], &c).expect("bind"), &c)
            .expect("optimize")
    });
    assert!(
        text.contains("Nested Loops") && text.contains("Clustered Index Seek"),
        "{text}"
    );

    // both large: a hash join; estimates follow the row counts
    let p = plan("SELECT b1.id FROM big b1 JOIN big b2 ON b2.k = b1.k WHERE b1.id < 50");
    let mut seen = Vec::new();
    check(&p, 1.0, &mut seen);
    assert!(p.cost.subtree > 0.0);
}

#[test]
fn a_seek_is_cheaper_than_the_scan_it_replaces() {
    let seek = plan("SELECT k FROM big WHERE id = 5");
    let scan = plan("SELECT k FROM big WHERE k = 5");
    assert!(
        seek.cost.subtree < scan.cost.subtree / 10.0,
        "{} vs {}",
        seek.cost.subtree,
        scan.cost.subtree
    );
    assert_eq!(seek.est_rows, 1.0);
    // no statistics on k: SQL Server's rows^0.75 guess
    let guess = 100_000f64.powf(0.75);
    assert!((scan.est_rows - guess).abs() < 1.0, "{}", scan.est_rows);
}

fn plan_with(sql: &str, options: &optimizer::Options) -> PhysOp {
    let c = Cat(vec![(table(1, "small"), 10), (table(2, "big"), 100_000)]);
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &c).expect("bind");
    match optimizer::optimize_with(bound, &c, options).expect("optimize") {
        Statement::Select { input, .. } => input,
        _ => panic!("not a select"),
    }
}

/// Every node under a row goal: the goal-discounted rows with the full estimate kept beside
/// them, and subtree costs still own + children (the discount applied once).
fn goal_nodes(op: &PhysOp, out: &mut Vec<(f64, f64)>) {
    if let Some(full) = op.cost.rows_without_row_goal {
        out.push((op.est_rows, full));
    }
    for c in op.children() {
        goal_nodes(c, out);
    }
}

#[test]
fn row_goal_costs_add_up_and_keep_the_full_estimate() {
    let sql = "SELECT TOP 3 s.id FROM big s WHERE EXISTS (SELECT 1 FROM big b WHERE b.id = s.k)";
    let goal = plan_with(sql, &optimizer::Options::default());
    let mut seen = Vec::new();
    check(&goal, 1.0, &mut seen);
    let mut discounted = Vec::new();
    goal_nodes(&goal, &mut discounted);
    assert!(!discounted.is_empty(), "no node shows a row goal");
    assert!(discounted.iter().all(|(g, full)| g < full));
    let text = optimizer::explain(&Statement::Select {
        input: goal.clone(),
        columns: vec![],
        assign: None,
    });
    assert!(text.contains("Nested Loops(Left Semi Join"), "{text}");

    let off = optimizer::Options {
        disable_row_goal: true,
        ..Default::default()
    };
    let full = plan_with(sql, &off);
    let mut seen = Vec::new();
    check(&full, 1.0, &mut seen);
    let mut none = Vec::new();
    goal_nodes(&full, &mut none);
    assert!(
        none.is_empty(),
        "DISABLE_OPTIMIZER_ROWGOAL left a goal: {none:?}"
    );
    assert!(goal.cost.subtree < full.cost.subtree);
}

#[test]
fn repeated_seeks_share_the_pages_they_read() {
    use optimizer::cost::{repeated_io, SeekCost, RANDOM_IO};
    // a few seeks into a large table: each pays its own random read
    assert!((repeated_io(RANDOM_IO, 10.0, 1e6) / RANDOM_IO - 1.0).abs() < 1e-4);
    assert_eq!(repeated_io(RANDOM_IO, 1.0, 700.0), RANDOM_IO);
    // 100,000 seeks into 700 pages read each page about once: ~700 reads in all, not 100,000
    let total = repeated_io(RANDOM_IO, 100_000.0, 700.0) * 100_000.0;
    assert!((total / (700.0 * RANDOM_IO) - 1.0).abs() < 0.01, "{total}");
    // in between, Cardenas' estimate: 700 requests over 700 pages touch 1 - 1/e of them
    let total = repeated_io(RANDOM_IO, 700.0, 700.0) * 700.0;
    let want = 700.0 * (1.0 - (-1.0f64).exp()) * RANDOM_IO;
    assert!((total / want - 1.0).abs() < 1e-9, "{total} vs {want}");
    // the join search prices a loop's seeks the same way
    let seek = SeekCost {
        io: RANDOM_IO,
        cpu: 0.0001,
        pages: 700.0,
    };
    let want = 700.0 * RANDOM_IO + 0.0001 * 100_000.0;
    assert!((seek.times(100_000.0) / want - 1.0).abs() < 0.01);
    assert_eq!(SeekCost::flat(0.5).times(4.0), 2.0);
}
