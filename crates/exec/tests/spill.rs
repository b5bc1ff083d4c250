//! Spilling operators: with a tiny operator memory budget, hash joins (grace partitioning,
//! recursion, block nested loops fallback), sorts (runs + multi-pass merge) and hash
//! aggregates must return exactly what they return in memory, and leave no work file behind.

mod common;

use common::Env;
use exec::SpillConfig;
use types::DataType;

const N: usize = 3000;

/// Two tables with duplicates, NULL keys, a skewed key (7) and case-variant strings.
fn setup() -> (Env, tempfile::TempDir) {
    let mut env = Env::new();
    let cols = |a: &'static str| -> Vec<(&'static str, DataType, bool)> {
        vec![
            ("k", DataType::Int, true),
            (a, DataType::Int, true),
            ("s", DataType::VarChar(Some(20)), true),
        ]
    };
    env.create("ta", &cols("v"), None).expect("create ta");
    env.create("tb", &cols("w"), None).expect("create tb");
    for (t, mul) in [("ta", 7usize), ("tb", 13usize)] {
        let mut rows = Vec::new();
        for i in 0..N {
            let k = if i % 37 == 0 {
                "NULL".to_string()
            } else if i % 25 == 0 {
                "7".to_string()
            } else {
                ((i * mul) % 400).to_string()
            };
            let s = if i % 11 == 0 {
                "NULL".to_string()
            } else if i % 2 == 0 {
                format!("'Key{}'", (i * mul) % 150)
            } else {
                format!("'KEY{}'", (i * mul) % 150)
            };
            rows.push(format!("({k}, {}, {s})", (i * 31) % 1000));
        }
        for chunk in rows.chunks(500) {
            env.run(&format!("INSERT INTO {t} VALUES {}", chunk.join(", ")))
                .expect("insert");
        }
    }
    let dir = tempfile::tempdir().expect("spill dir");
    (env, dir)
}

fn tiny(dir: &tempfile::TempDir, budget: usize) -> SpillConfig {
    SpillConfig {
        operator_budget: budget,
        dir: Some(dir.path().join("workfiles").into()),
    }
}

fn leftover_files(dir: &tempfile::TempDir) -> usize {
    std::fs::read_dir(dir.path().join("workfiles"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Runs `sql` in memory and with `budget`; returns (in-memory rows, spilled rows, files).
fn both(
    env: &mut Env,
    dir: &tempfile::TempDir,
    sql: &str,
    budget: usize,
) -> (Vec<String>, Vec<String>, u64) {
    env.spill = SpillConfig::default();
    let mem = env.q(sql);
    assert_eq!(env.last_spills.files, 0, "spilled in memory: {sql}");
    env.spill = tiny(dir, budget);
    let spilled = env.q(sql);
    let files = env.last_spills.files;
    env.spill = SpillConfig::default();
    assert_eq!(leftover_files(dir), 0, "work files left behind: {sql}");
    (mem, spilled, files)
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn hash_joins_spill_and_match_in_memory_results() {
    let (mut env, dir) = setup();
    let queries = [
        "SELECT ta.k, ta.v, tb.w FROM ta JOIN tb ON ta.k = tb.k",
        "SELECT ta.k, ta.v, tb.w FROM ta JOIN tb ON ta.k = tb.k AND ta.v < tb.w",
        "SELECT ta.k, ta.v, tb.w FROM ta LEFT JOIN tb ON ta.k = tb.k AND tb.w > 500",
        "SELECT ta.k, ta.v, tb.w FROM ta RIGHT JOIN tb ON ta.k = tb.k AND ta.v > 700",
        "SELECT ta.k, ta.v, tb.k, tb.w FROM ta FULL JOIN tb ON ta.k = tb.k AND ta.v + tb.w > 1500",
        "SELECT ta.k, ta.v FROM ta WHERE EXISTS (SELECT 1 FROM tb WHERE tb.k = ta.k AND tb.w < ta.v)",
        "SELECT ta.k, ta.v FROM ta WHERE NOT EXISTS (SELECT 1 FROM tb WHERE tb.k = ta.k AND tb.w < 300)",
        "SELECT ta.s, tb.s, ta.v FROM ta JOIN tb ON ta.s = tb.s",
        "SELECT ta.s, tb.s FROM ta FULL JOIN tb ON ta.s = tb.s AND ta.k = tb.k",
    ];
    for sql in queries {
        let plan = env.explain(sql);
        assert!(
            plan.contains("Hash Match"),
            "not a hash join: {sql}\n{plan}"
        );
        let (mem, spilled, files) = both(&mut env, &dir, sql, 16 << 10);
        assert!(!mem.is_empty(), "{sql}");
        assert!(files > 0, "did not spill: {sql}");
        assert_eq!(sorted(mem), sorted(spilled), "{sql}");
    }
}

#[test]
fn giant_key_partition_falls_back_to_block_nested_loops() {
    let (mut env, dir) = setup();
    // every row has key 1: no partitioning can split it
    let sql = "SELECT a.v, b.w FROM (SELECT 1 AS k, v FROM ta WHERE v < 400) a
               FULL JOIN (SELECT 1 AS k, w, s FROM tb WHERE w < 300) b
               ON a.k = b.k AND a.v > b.w + 250";
    let (mem, spilled, files) = both(&mut env, &dir, sql, 8 << 10);
    assert!(files > 16, "expected repartitioning");
    assert_eq!(sorted(mem), sorted(spilled));
    for sql in [
        "SELECT a.v FROM (SELECT 1 AS k, v FROM ta WHERE v < 250) a WHERE NOT EXISTS
             (SELECT 1 FROM (SELECT 1 AS k, w FROM tb WHERE w > 500) b WHERE b.k = a.k AND b.w > a.v + 3)",
        "SELECT a.v FROM (SELECT 1 AS k, v FROM ta WHERE v < 250) a WHERE EXISTS
             (SELECT 1 FROM (SELECT 1 AS k, w FROM tb WHERE w > 500) b WHERE b.k = a.k AND b.w > a.v + 900)",
        "SELECT a.v, b.w FROM (SELECT 1 AS k, v FROM ta WHERE v < 250) a LEFT JOIN
             (SELECT 1 AS k, w FROM tb WHERE w > 500) b ON b.k = a.k AND b.w > a.v + 990",
    ] {
        let (mem, spilled, files) = both(&mut env, &dir, sql, 8 << 10);
        assert!(files > 0, "did not spill: {sql}");
        assert_eq!(sorted(mem), sorted(spilled), "{sql}");
    }
}

#[test]
fn external_sort_multi_pass_is_stable_and_exact() {
    let (mut env, dir) = setup();
    for sql in [
        // integer keys (pre-encoded), ties keep scan order
        "SELECT k, v, s FROM ta ORDER BY v",
        "SELECT k, v, s FROM ta ORDER BY k DESC, v",
        // string keys (collation-aware), NULLs first
        "SELECT s, k, v FROM ta ORDER BY s, k DESC",
        "SELECT DISTINCT k, s FROM ta ORDER BY k, s",
        "SELECT TOP (5000) k, v FROM (SELECT k, v FROM ta UNION ALL SELECT k, w FROM tb) u ORDER BY v DESC, k",
    ] {
        let (mem, spilled, files) = both(&mut env, &dir, sql, 8 << 10);
        assert!(files > 2, "did not spill into several runs: {sql}");
        assert_eq!(mem, spilled, "{sql}");
    }
    // TOP N Sort keeps a bounded buffer and never spills
    let (mem, spilled, files) = both(
        &mut env,
        &dir,
        "SELECT TOP (10) k, v FROM ta ORDER BY v DESC, k",
        1 << 10,
    );
    assert_eq!(files, 0);
    assert_eq!(mem, spilled);
}

#[test]
fn hash_aggregate_spills_groups() {
    let (mut env, dir) = setup();
    for sql in [
        "SELECT k, COUNT(*), SUM(v), MIN(s), MAX(v) FROM ta GROUP BY k",
        "SELECT s, COUNT(DISTINCT k), AVG(v) FROM ta GROUP BY s",
        "SELECT k, s, COUNT(*) FROM ta GROUP BY k, s",
        "SELECT k, s, COUNT(*), GROUPING(s) FROM ta GROUP BY ROLLUP(k, s)",
    ] {
        let plan = env.explain(sql);
        let (mem, spilled, files) = both(&mut env, &dir, sql, 4 << 10);
        if plan.contains("Hash Match") {
            assert!(files > 0, "did not spill: {sql}");
        }
        assert_eq!(sorted(mem), sorted(spilled), "{sql}\n{plan}");
    }
}

#[test]
fn unusable_spill_directory_is_an_error_not_a_panic() {
    let (mut env, dir) = setup();
    let file = dir.path().join("plainfile");
    std::fs::write(&file, b"x").expect("write");
    env.spill = SpillConfig {
        operator_budget: 1 << 10,
        dir: Some(file.join("sub").into()),
    };
    let e = env.err("SELECT k, v FROM ta ORDER BY v");
    assert_eq!(e.number, 823, "{e:?}");
    env.spill = SpillConfig::default();
    assert_eq!(env.q("SELECT COUNT(*) FROM ta"), vec![N.to_string()]);
}

#[test]
fn errors_while_spilled_remove_the_work_files() {
    let (mut env, dir) = setup();
    env.spill = tiny(&dir, 8 << 10);
    for sql in [
        // the residual divides by zero while partitions are joined
        "SELECT ta.k FROM ta JOIN tb ON ta.k = tb.k AND 1 / (tb.w - ta.v) > 0",
        // the sort's output is consumed by an expression that fails on a late row
        "SELECT 1 / (999 - v) FROM (SELECT TOP (100000) v FROM ta ORDER BY v) x",
        // fails on the first group while spilled partitions are pending
        "SELECT k, 1 / (MAX(v) - MAX(v)) FROM ta GROUP BY k",
    ] {
        let e = env.err(sql);
        assert_eq!(e.number, 8134, "{sql}: {e:?}");
        assert_eq!(leftover_files(&dir), 0, "work files left behind: {sql}");
    }
}

#[test]
fn randomized_joins_under_several_budgets() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut env = Env::new();
    let dir = tempfile::tempdir().expect("spill dir");
    let cols: Vec<(&str, DataType, bool)> = vec![
        ("k", DataType::Int, true),
        ("j", DataType::VarChar(Some(8)), true),
        ("v", DataType::Int, true),
    ];
    env.create("ra", &cols, None).expect("create");
    env.create("rb", &cols, None).expect("create");
    for t in ["ra", "rb"] {
        let n = 300 + rnd(300);
        let rows: Vec<String> = (0..n)
            .map(|_| {
                let k = match rnd(10) {
                    0 => "NULL".to_string(),
                    1 | 2 => "3".to_string(),
                    _ => rnd(60).to_string(),
                };
                let j = match rnd(8) {
                    0 => "NULL".to_string(),
                    x if x < 4 => format!("'a{}'", rnd(5)),
                    _ => format!("'A{}'", rnd(5)),
                };
                format!("({k}, {j}, {})", rnd(100))
            })
            .collect();
        env.run(&format!("INSERT INTO {t} VALUES {}", rows.join(", ")))
            .expect("insert");
    }
    let queries = [
        "SELECT ra.v, rb.v FROM ra JOIN rb ON ra.k = rb.k AND ra.v <= rb.v",
        "SELECT ra.v, rb.v FROM ra LEFT JOIN rb ON ra.k = rb.k AND ra.j = rb.j",
        "SELECT ra.v, rb.v FROM ra RIGHT JOIN rb ON ra.j = rb.j AND ra.v > rb.v",
        "SELECT ra.v, rb.v FROM ra FULL JOIN rb ON ra.k = rb.k AND ra.v + rb.v < 90",
        "SELECT ra.v FROM ra WHERE EXISTS (SELECT 1 FROM rb WHERE rb.j = ra.j AND rb.v < ra.v)",
        "SELECT ra.v FROM ra WHERE NOT EXISTS (SELECT 1 FROM rb WHERE rb.k = ra.k AND rb.v > ra.v)",
    ];
    for budget in [1 << 10, 6 << 10] {
        for sql in queries {
            let (mem, spilled, files) = both(&mut env, &dir, sql, budget);
            assert!(files > 0, "did not spill: {sql}");
            assert_eq!(sorted(mem), sorted(spilled), "budget {budget}: {sql}");
        }
    }
}
