//! Cardinality estimation over hand-built statistics (the shapes `catalog::statistics`
//! defines): histogram hits, steps, ranges with interpolation, IN, IS NULL, LIKE prefixes,
//! exponential backoff, OR, the guesses without statistics, and join containment.

use std::sync::Arc;

use catalog::statistics::{DensityEntry, HistogramStep, StatisticsData, StatisticsObject};
use catalog::{ColumnDef, IndexDef, IndexKind, TableDef, TableStorage};
use optimizer::cardinality::{and_backoff, equi_selectivity, TableStats};
use plan::{CmpOp, ScalarExpr, ScalarKind};
use types::{DataType, Value};

fn table() -> Arc<TableDef> {
    Arc::new(TableDef {
        object_id: 1,
        database: "db".into(),
        schema: "dbo".into(),
        name: "t".into(),
        columns: vec![
            ColumnDef::new("id", DataType::Int, false),
            ColumnDef::new("v", DataType::Int, true),
            ColumnDef::new("s", DataType::VarChar(Some(20)), true),
        ],
        indexes: vec![IndexDef {
            index_id: 1,
            name: "PK_t".into(),
            unique: true,
            primary_key: true,
            unique_constraint: false,
            clustered: true,
            kind: IndexKind::RowStore,
            key_columns: vec![(0, false)],
            included: vec![],
            filter: None,
            storage_id: 7,
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

fn step(key: Value, range_rows: f64, eq_rows: f64, distinct: f64) -> HistogramStep {
    HistogramStep {
        range_hi_key: key,
        range_rows,
        eq_rows,
        distinct_range_rows: distinct,
        avg_range_rows: if distinct > 0.0 {
            range_rows / distinct
        } else {
            1.0
        },
    }
}

fn stats(
    id: i32,
    col: usize,
    null_rows: f64,
    steps: Vec<HistogramStep>,
    density: f64,
) -> Arc<StatisticsObject> {
    let rows: f64 = null_rows + steps.iter().map(|s| s.range_rows + s.eq_rows).sum::<f64>();
    Arc::new(StatisticsObject {
        stats_id: id,
        name: format!("st{id}"),
        columns: vec![col],
        index_id: None,
        auto_created: true,
        user_created: false,
        no_recompute: false,
        filter: None,
        data: Some(StatisticsData {
            rows: rows as u64,
            rows_sampled: rows as u64,
            null_rows,
            steps,
            density: vec![DensityEntry {
                columns: vec!["v".into()],
                all_density: density,
                average_length: 4.0,
            }],
            updated: String::new(),
        }),
    })
}

/// 500 rows: v NULL 40; 10 x100; (10,20) 200 rows in 20 values; 20 x50; (20,30) 100 rows in
/// 10 values; 30 x10. s: 'apple' 5, 'banana' 5 (+10 between), 'cherry' 5 (+10 between).
fn ts() -> TableStats {
    let v = stats(
        2,
        1,
        40.0,
        vec![
            step(Value::Int(10), 0.0, 100.0, 0.0),
            step(Value::Int(20), 200.0, 50.0, 20.0),
            step(Value::Int(30), 100.0, 10.0, 10.0),
        ],
        1.0 / 34.0,
    );
    let s = stats(
        3,
        2,
        465.0,
        vec![
            step(Value::VarChar("apple".into()), 0.0, 5.0, 0.0),
            step(Value::VarChar("banana".into()), 10.0, 5.0, 5.0),
            step(Value::VarChar("cherry".into()), 10.0, 5.0, 5.0),
        ],
        1.0 / 13.0,
    );
    TableStats::with(table(), 500.0, vec![v, s])
}

fn col(i: usize) -> ScalarExpr {
    ScalarExpr::column(i, DataType::Int)
}
fn int(v: i32) -> ScalarExpr {
    ScalarExpr::literal(Value::Int(v), DataType::Int)
}
fn cmp(op: CmpOp, a: ScalarExpr, b: ScalarExpr) -> ScalarExpr {
    ScalarExpr::new(
        ScalarKind::Compare(op, Box::new(a), Box::new(b)),
        DataType::Bit,
    )
}
fn var() -> ScalarExpr {
    ScalarExpr::new(
        ScalarKind::Variable(plan::VarRef {
            slot: 0,
            name: "@x".into(),
        }),
        DataType::Int,
    )
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

#[test]
fn equality_reads_the_histogram() {
    let t = ts();
    close(
        t.selectivity(&cmp(CmpOp::Eq, col(1), int(20))),
        50.0 / 500.0,
    );
    // inside a step: AVG_RANGE_ROWS
    close(
        t.selectivity(&cmp(CmpOp::Eq, col(1), int(15))),
        10.0 / 500.0,
    );
    // below the first step: one row
    close(t.selectivity(&cmp(CmpOp::Eq, col(1), int(5))), 1.0 / 500.0);
    // unknown value (variable): the density
    close(t.selectivity(&cmp(CmpOp::Eq, col(1), var())), 1.0 / 34.0);
    // the literal on the left
    close(t.selectivity(&cmp(CmpOp::Eq, int(20), col(1))), 0.1);
    // a unique key: one row
    close(t.selectivity(&cmp(CmpOp::Eq, col(0), int(3))), 1.0 / 500.0);
}

#[test]
fn ranges_interpolate_inside_steps() {
    let t = ts();
    close(
        t.selectivity(&cmp(CmpOp::Lt, col(1), int(20))),
        300.0 / 500.0,
    );
    close(
        t.selectivity(&cmp(CmpOp::Le, col(1), int(20))),
        350.0 / 500.0,
    );
    // v > 25: half of (20,30) plus 30's rows
    close(
        t.selectivity(&cmp(CmpOp::Gt, col(1), int(25))),
        60.0 / 500.0,
    );
    // BETWEEN 12 AND 18 is one range (not two backed-off guesses): 0.6 of (10,20)
    let between = [
        cmp(CmpOp::Ge, col(1), int(12)),
        cmp(CmpOp::Le, col(1), int(18)),
    ];
    close(t.conj_selectivity(&between), 120.0 / 500.0);
    // unknown bound: SQL Server's 30 % guess
    close(t.selectivity(&cmp(CmpOp::Gt, col(1), var())), 0.3);
}

#[test]
fn in_is_null_like_or_not() {
    let t = ts();
    let in_list = ScalarExpr::new(
        ScalarKind::InList {
            expr: Box::new(col(1)),
            list: vec![int(10), int(20)],
        },
        DataType::Bit,
    );
    close(t.selectivity(&in_list), 150.0 / 500.0);
    let is_null = |c| ScalarExpr::new(ScalarKind::IsNull(Box::new(col(c))), DataType::Bit);
    close(t.selectivity(&is_null(1)), 40.0 / 500.0);
    close(t.selectivity(&is_null(0)), 0.0);
    let not_null = ScalarExpr::new(ScalarKind::Not(Box::new(is_null(1))), DataType::Bit);
    close(t.selectivity(&not_null), 460.0 / 500.0);
    // OR: backoff over the complements (0.8 and 0.98)
    let or = ScalarExpr::new(
        ScalarKind::Or(vec![
            cmp(CmpOp::Eq, col(1), int(10)),
            cmp(CmpOp::Eq, col(1), int(30)),
        ]),
        DataType::Bit,
    );
    close(t.selectivity(&or), 1.0 - 0.8 * 0.98f64.sqrt());
    // LIKE 'b%': the range ['b', 'c') holds banana and the rows between apple and banana
    let like = ScalarExpr::new(
        ScalarKind::Like {
            expr: Box::new(ScalarExpr::column(2, DataType::VarChar(Some(20)))),
            pattern: Box::new(ScalarExpr::literal(
                Value::VarChar("b%".into()),
                DataType::VarChar(Some(2)),
            )),
            escape: None,
        },
        DataType::Bit,
    );
    let l = t.selectivity(&like);
    assert!((5.0 / 500.0..=15.0 / 500.0).contains(&l), "{l}");
}

#[test]
fn conjunctions_back_off_exponentially() {
    let t = ts();
    // v = 20 (0.1) AND id > @x (0.3): 0.1 * 0.3^(1/2)
    let c = [
        cmp(CmpOp::Eq, col(1), int(20)),
        cmp(CmpOp::Gt, col(0), var()),
    ];
    close(t.conj_selectivity(&c), 0.1 * 0.3f64.sqrt());
    close(
        and_backoff(vec![0.5, 0.1, 0.2, 0.4, 0.9]),
        0.1 * 0.2f64.sqrt() * 0.4f64.powf(0.25) * 0.5f64.powf(0.125),
    );
}

#[test]
fn guesses_without_statistics() {
    let t = TableStats::with(table(), 10_000.0, vec![]);
    // equality: rows^0.75 rows, i.e. selectivity rows^-0.25
    close(t.selectivity(&cmp(CmpOp::Eq, col(1), int(4))), 0.1);
    close(t.selectivity(&cmp(CmpOp::Lt, col(1), int(4))), 0.3);
    // BETWEEN: two 30 % ranges backed off, SQL Server's 16.43 %
    let between = [
        cmp(CmpOp::Ge, col(1), int(1)),
        cmp(CmpOp::Le, col(1), int(9)),
    ];
    close(t.conj_selectivity(&between), 0.3 * 0.3f64.sqrt());
    close(
        t.selectivity(&cmp(CmpOp::Eq, col(0), int(4))),
        1.0 / 10_000.0,
    );
}

#[test]
fn joins_assume_containment() {
    close(
        equi_selectivity(Some(10.0), Some(100.0), 50.0, 1000.0),
        0.01,
    );
    // the unknown side holds the known side's values
    close(equi_selectivity(Some(10.0), None, 10.0, 100_000.0), 0.1);
    // both unknown: the smaller side is a key
    close(equi_selectivity(None, None, 5.0, 100.0), 0.2);
}
