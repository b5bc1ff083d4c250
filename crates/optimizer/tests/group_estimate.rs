//! GROUP BY over computed expressions (cardinality.rs, `StatsCache::group_rows_of`): a key that
//! is an expression of columns has at most the product of their distinct values, as SQL
//! Server estimates from the inputs' densities — TPC-H q09's `GROUP BY nation, o_year` over
//! `n_name` and `YEAR(o_orderdate)` of a derived table estimated the input's 550k rows as its
//! groups (175 actual).

use std::sync::Arc;

use catalog::statistics::{DensityEntry, StatisticsData, StatisticsObject};
use catalog::{
    Catalog, ColumnDef, IndexDef, IndexKind, QualifiedName, TableDef, TableRef, TableStorage,
};
use common::SqlResult;
use plan::{PhysKind, PhysOp, Statement};
use types::DataType;

/// Tables with their rows and each column's distinct values (None: no statistics).
struct Cat(Vec<(Arc<TableDef>, u64, Vec<Option<f64>>)>);

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
            .find(|(t, _, _)| t.name.eq_ignore_ascii_case(&name.name))
            .map(|(t, _, _)| TableRef::Table(t.clone())))
    }
    fn table_rows(&self, table: &TableDef) -> Option<u64> {
        self.0
            .iter()
            .find(|(t, _, _)| t.name == table.name)
            .map(|(_, r, _)| *r)
    }
    fn statistics(&self, table: &TableDef, _columns: &[usize]) -> Vec<Arc<StatisticsObject>> {
        let Some((_, rows, distinct)) = self.0.iter().find(|(t, _, _)| t.name == table.name) else {
            return Vec::new();
        };
        distinct
            .iter()
            .enumerate()
            .filter_map(|(col, d)| d.map(|d| density(col, *rows, d)))
            .collect()
    }
}

impl plan::BindEnv for Cat {
    fn variable_slot(&self, _: &str) -> Option<(usize, DataType)> {
        None
    }
}

fn density(col: usize, rows: u64, distinct: f64) -> Arc<StatisticsObject> {
    Arc::new(StatisticsObject {
        stats_id: col as i32 + 2,
        name: format!("st{col}"),
        columns: vec![col],
        index_id: None,
        auto_created: true,
        user_created: false,
        no_recompute: false,
        filter: None,
        data: Some(StatisticsData {
            rows,
            rows_sampled: rows,
            null_rows: 0.0,
            steps: vec![],
            density: vec![DensityEntry {
                columns: vec![],
                all_density: 1.0 / distinct,
                average_length: 4.0,
            }],
            updated: String::new(),
        }),
    })
}

/// A table of `cols` (name, type) clustered on its first column.
fn table(id: i32, name: &str, cols: &[(&str, DataType)]) -> Arc<TableDef> {
    Arc::new(TableDef {
        object_id: id,
        database: "db".into(),
        schema: "dbo".into(),
        name: name.into(),
        columns: cols
            .iter()
            .map(|(c, t)| ColumnDef::new(*c, t.clone(), false))
            .collect(),
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

/// TPC-H's orders and nation at SF 1 (2,406 order dates, 25 nations), and a table `t` of
/// 1M rows whose `a` has 100 values, `b` 50, `c` 10,000 and `u` none known.
fn catalog() -> Cat {
    use DataType::{Date, Int};
    let name = DataType::Char(25);
    Cat(vec![
        (
            table(
                1,
                "orders",
                &[
                    ("o_orderkey", Int),
                    ("o_nationkey", Int),
                    ("o_orderdate", Date),
                ],
            ),
            1_500_000,
            vec![None, Some(25.0), Some(2_406.0)],
        ),
        (
            table(2, "nation", &[("n_nationkey", Int), ("n_name", name)]),
            25,
            vec![None, Some(25.0)],
        ),
        (
            table(
                3,
                "t",
                &[("id", Int), ("a", Int), ("b", Int), ("c", Int), ("u", Int)],
            ),
            1_000_000,
            vec![None, Some(100.0), Some(50.0), Some(10_000.0), None],
        ),
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

/// The estimated groups of the (first) grouped aggregate in the plan.
fn groups(sql: &str) -> f64 {
    fn find(op: &PhysOp) -> Option<f64> {
        match &op.kind {
            PhysKind::HashAggregate { group_by, .. }
            | PhysKind::StreamAggregate { group_by, .. }
                if !group_by.is_empty() =>
            {
                Some(op.est_rows)
            }
            _ => op.children().into_iter().find_map(find),
        }
    }
    let p = plan(sql);
    find(&p).unwrap_or_else(|| panic!("no grouped aggregate in {p:#?}"))
}

fn close(got: f64, want: f64) {
    assert!(
        (got / want - 1.0).abs() < 0.01,
        "estimated {got}, expected {want}"
    );
}

#[test]
fn an_expression_of_one_column_has_at_most_its_distinct_values() {
    // YEAR(o_orderdate): at most the 2,406 dates (the input's 1.5M rows before)
    close(
        groups("SELECT YEAR(o_orderdate), COUNT(*) FROM orders GROUP BY YEAR(o_orderdate)"),
        2_406.0,
    );
    // through a derived table's computed column
    close(
        groups("SELECT y, COUNT(*) FROM (SELECT YEAR(o_orderdate) AS y FROM orders) d GROUP BY y"),
        2_406.0,
    );
}

#[test]
fn q09s_nation_and_year_multiply_their_columns_distinct_values() {
    // 25 nations x 2,406 dates = 60,150 groups over the join's 1.5M rows
    close(
        groups(
            "SELECT nation, o_year, COUNT(*) FROM \
             (SELECT n_name AS nation, YEAR(o_orderdate) AS o_year FROM orders \
              JOIN nation ON n_nationkey = o_nationkey) AS profit \
             GROUP BY nation, o_year",
        ),
        25.0 * 2_406.0,
    );
}

#[test]
fn an_expression_of_several_columns_has_at_most_their_product() {
    close(
        groups("SELECT a + b, COUNT(*) FROM t GROUP BY a + b"),
        5_000.0,
    );
    // a column read by two keys counts once
    close(
        groups("SELECT a, a * 2 + b, COUNT(*) FROM t GROUP BY a, a * 2 + b"),
        5_000.0,
    );
    // capped at the input rows
    close(
        groups("SELECT b * c, a, COUNT(*) FROM t GROUP BY b * c, a"),
        1_000_000.0,
    );
    close(
        groups("SELECT b * c, a, COUNT(*) FROM t WHERE id < 1000 GROUP BY b * c, a"),
        groups("SELECT id, COUNT(*) FROM t WHERE id < 1000 GROUP BY id"),
    );
}

#[test]
fn a_column_without_known_distinct_values_keeps_the_input_rows() {
    close(
        groups("SELECT a + u, COUNT(*) FROM t GROUP BY a + u"),
        1_000_000.0,
    );
}
