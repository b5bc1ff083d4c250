//! Joins on a composite key (composite_key.rs): a unique index or a multi-column density on
//! one side makes the key one unit instead of per-column backoff (TPC-H q09's partsupp ⋈
//! lineitem); without either, the backoff is floored at containment. And the Sort's I/O term
//! (cost.rs): in memory a fixed worktable charge, past the memory grant a spill.

use std::sync::Arc;

use catalog::statistics::{DensityEntry, StatisticsData, StatisticsObject};
use catalog::{
    Catalog, ColumnDef, IndexDef, IndexKind, QualifiedName, TableDef, TableRef, TableStorage,
};
use common::SqlResult;
use optimizer::cardinality::TableStats;
use optimizer::composite_key::{composite_floor, composite_selectivity};
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

/// A table of int columns `cols` clustered on the key `pk` (column ordinals).
fn table(id: i32, name: &str, cols: &[&str], pk: &[usize]) -> Arc<TableDef> {
    Arc::new(TableDef {
        object_id: id,
        database: "db".into(),
        schema: "dbo".into(),
        name: name.into(),
        columns: cols
            .iter()
            .map(|&c| ColumnDef::new(c, DataType::Int, false))
            .collect(),
        indexes: vec![IndexDef {
            index_id: 1,
            name: format!("PK_{name}"),
            unique: true,
            primary_key: true,
            unique_constraint: false,
            clustered: true,
            kind: IndexKind::RowStore,
            key_columns: pk.iter().map(|&c| (c, false)).collect(),
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

/// TPC-H's shape at SF 0.1: partsupp keyed on (partkey, suppkey), lineitem on its own id.
fn catalog() -> Cat {
    Cat(vec![
        (
            table(1, "ps", &["partkey", "suppkey", "cost"], &[0, 1]),
            80_000,
        ),
        (table(2, "li", &["id", "partkey", "suppkey"], &[0]), 600_000),
        (table(3, "p", &["partkey", "size"], &[0]), 20_000),
    ])
}

fn plan(sql: &str) -> PhysOp {
    let c = catalog();
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &c).expect("bind");
    match optimizer::optimize(bound, &c).expect("optimize") {
        Statement::Select { input, .. } => input,
        _ => panic!("not a select"),
    }
}

/// The estimated rows of the topmost join.
fn top_join_rows(op: &PhysOp) -> Option<f64> {
    match &op.kind {
        PhysKind::HashJoin { .. } | PhysKind::MergeJoin { .. } | PhysKind::NestedLoops { .. } => {
            Some(op.est_rows)
        }
        _ => op.children().into_iter().find_map(top_join_rows),
    }
}

#[test]
fn a_join_on_a_unique_composite_key_keeps_the_other_sides_rows() {
    // every lineitem row has its one partsupp row: 600,000 (per-column backoff said ~2,100)
    let p = plan(
        "SELECT COUNT(*) FROM li JOIN ps ON ps.partkey = li.partkey AND ps.suppkey = li.suppkey",
    );
    let rows = top_join_rows(&p).expect("a join");
    assert!((rows / 600_000.0 - 1.0).abs() < 0.01, "{rows}");
    // the same through the join order search (three relations)
    let p = plan(
        "SELECT COUNT(*) FROM li JOIN ps ON ps.partkey = li.partkey AND ps.suppkey = li.suppkey \
         JOIN p ON p.partkey = li.partkey",
    );
    let rows = top_join_rows(&p).expect("a join");
    assert!((rows / 600_000.0 - 1.0).abs() < 0.01, "{rows}");
}

#[test]
fn a_filtered_unique_side_keeps_its_fraction_of_the_combinations() {
    // a quarter of partsupp: a quarter of lineitem's rows find their row
    let p = plan(
        "SELECT COUNT(*) FROM li JOIN ps ON ps.partkey = li.partkey AND ps.suppkey = li.suppkey \
         WHERE ps.cost < 10",
    );
    let rows = top_join_rows(&p).expect("a join");
    // cost < 10 without statistics: the 30 % guess
    assert!((rows / (600_000.0 * 0.3) - 1.0).abs() < 0.01, "{rows}");
}

#[test]
fn a_key_whose_side_spans_two_tables_keeps_the_per_column_backoff() {
    // (li.partkey, p.size) = (ps.partkey, ps.suppkey): the left pair comes from two tables,
    // whose combinations are not partsupp's, so its primary key does not make the key one unit
    // (it would say every one of the 600,000 rows matches)
    let p = plan(
        "SELECT COUNT(*) FROM li JOIN p ON p.partkey = li.partkey \
         JOIN ps ON ps.partkey = li.partkey AND ps.suppkey = p.size OPTION (FORCE ORDER)",
    );
    let rows = top_join_rows(&p).expect("a join");
    assert!(rows < 10_000.0, "{rows}");
}

fn with_density(cols: Vec<usize>, densities: &[f64]) -> Arc<StatisticsObject> {
    Arc::new(StatisticsObject {
        stats_id: 2,
        name: "st".into(),
        columns: cols,
        index_id: None,
        auto_created: false,
        user_created: true,
        no_recompute: false,
        filter: None,
        data: Some(StatisticsData {
            rows: 600_000,
            rows_sampled: 600_000,
            null_rows: 0.0,
            steps: vec![],
            density: densities
                .iter()
                .map(|&d| DensityEntry {
                    columns: vec![],
                    all_density: d,
                    average_length: 8.0,
                })
                .collect(),
            updated: String::new(),
        }),
    })
}

#[test]
fn the_multi_column_density_covers_the_key_in_any_order() {
    let li = table(2, "li", &["id", "partkey", "suppkey"], &[0]);
    let ts = TableStats::with(
        li.clone(),
        600_000.0,
        vec![with_density(vec![2, 1], &[1e-3, 1.25e-5])],
    );
    // (suppkey, partkey) leads the statistics object: 80,000 combinations either way round
    assert_eq!(ts.distinct_set(&[1, 2]), Some((80_000.0, false)));
    assert_eq!(ts.distinct_set(&[2]), Some((1_000.0, false)));
    // partkey alone does not lead it
    assert_eq!(ts.distinct_set(&[1]), None);
    // the primary key among the columns: one row per combination
    assert_eq!(ts.distinct_set(&[0, 1]), Some((600_000.0, true)));
}

#[test]
fn composite_selectivity_is_containment_over_the_combinations() {
    // a unique side counts its table's combinations even when filtered to fewer rows
    assert_eq!(
        composite_selectivity(Some((80_000.0, true)), None, 20_000.0, 600_000.0),
        Some(1.0 / 80_000.0)
    );
    // a density side is capped at its rows; the larger side wins
    assert_eq!(
        composite_selectivity(
            Some((80_000.0, false)),
            Some((50_000.0, false)),
            1_000.0,
            600_000.0
        ),
        Some(1.0 / 50_000.0)
    );
    assert_eq!(composite_selectivity(None, None, 10.0, 10.0), None);
    // no combinations known: at most each side's rows, at most its columns' product
    assert_eq!(
        composite_floor(
            &[Some(20_000.0), Some(1_000.0)],
            &[None, None],
            80_000.0,
            600_000.0
        ),
        1.0 / 600_000.0
    );
    assert_eq!(
        composite_floor(
            &[Some(20.0), Some(10.0)],
            &[Some(20.0), Some(5.0)],
            8e4,
            6e5
        ),
        1.0 / 200.0
    );
}

#[test]
fn a_sort_pays_a_worktable_in_memory_and_its_pages_past_the_grant() {
    use optimizer::cost::{sort_io, SORT_IO, SORT_MEMORY_GRANT};
    assert_eq!(sort_io(10.0, 8.0), SORT_IO);
    assert_eq!(sort_io(1_000_000.0, 100.0), SORT_IO);
    // 10M rows of 100 bytes: ~1.1 GB past a 256 MiB grant, written and read once
    let rows = 10_000_000.0;
    assert!(rows * 111.0 > SORT_MEMORY_GRANT);
    let spilled = sort_io(rows, 100.0);
    let pages = optimizer::cost::pages(rows, 100.0);
    assert!(
        (spilled - SORT_IO - 2.0 * pages * optimizer::cost::SEQ_IO).abs() < 1e-6,
        "{spilled}"
    );
}
