//! Window functions within the operator memory budget: with a tiny budget the sorts beneath
//! the windows and the partition buffers spill to work files, and every function returns
//! exactly what it returns in memory, in the same row order, leaving no work file behind.

mod common;

use common::Env;
use exec::SpillConfig;
use types::DataType;

const N: usize = 2000;

/// `w(k, g, v, s)`: k unique, g three partitions of unequal size plus NULLs, v with many ties,
/// s strings with NULLs.
fn setup() -> (Env, tempfile::TempDir) {
    let mut env = Env::new();
    let cols: Vec<(&str, DataType, bool)> = vec![
        ("k", DataType::Int, true),
        ("g", DataType::Int, true),
        ("v", DataType::Int, true),
        ("s", DataType::VarChar(Some(20)), true),
    ];
    env.create("w", &cols, None).expect("create w");
    let rows: Vec<String> = (0..N)
        .map(|i| {
            let g = match i % 10 {
                0 => "NULL".to_string(),
                1..=6 => "1".to_string(),
                7 | 8 => "2".to_string(),
                _ => "3".to_string(),
            };
            let s = if i % 13 == 0 {
                "NULL".to_string()
            } else {
                format!("'str{}'", (i * 7) % 50)
            };
            format!("({}, {g}, {}, {s})", (i * 7919) % 10007, (i * 31) % 97)
        })
        .collect();
    for chunk in rows.chunks(500) {
        env.run(&format!("INSERT INTO w VALUES {}", chunk.join(", ")))
            .expect("insert");
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

/// Runs `sql` in memory and with `budget`: same rows in the same order, work files used and
/// removed.
fn same_when_spilled(env: &mut Env, dir: &tempfile::TempDir, sql: &str, budget: usize) {
    env.spill = SpillConfig::default();
    let mem = env.q(sql);
    assert_eq!(env.last_spills.files, 0, "spilled in memory: {sql}");
    assert_eq!(mem.len(), N, "{sql}");
    env.spill = tiny(dir, budget);
    let spilled = env.q(sql);
    let files = env.last_spills.files;
    env.spill = SpillConfig::default();
    assert!(files > 0, "did not spill: {sql}");
    assert_eq!(leftover_files(dir), 0, "work files left behind: {sql}");
    assert_eq!(mem, spilled, "{sql}");
}

#[test]
fn every_window_function_spills_and_matches_memory() {
    let (mut env, dir) = setup();
    let windows = [
        "PARTITION BY g ORDER BY v",
        "PARTITION BY g ORDER BY v DESC, s",
        "ORDER BY s, v",
        "ORDER BY v",
    ];
    for win in windows {
        let calls = [
            "ROW_NUMBER() OVER (W), RANK() OVER (W), DENSE_RANK() OVER (W)",
            "NTILE(7) OVER (W), PERCENT_RANK() OVER (W), CUME_DIST() OVER (W)",
            "LAG(s) OVER (W), LEAD(v, 3, -1) OVER (W), LAG(k, 40) OVER (W)",
            "SUM(v) OVER (W), COUNT(*) OVER (W), MIN(s) OVER (W), AVG(v) OVER (W)",
            "SUM(v) OVER (W ROWS UNBOUNDED PRECEDING), MAX(k) OVER (W ROWS BETWEEN 5 PRECEDING AND 2 FOLLOWING)",
            "COUNT(s) OVER (W ROWS BETWEEN CURRENT ROW AND 30 FOLLOWING), \
             SUM(k) OVER (W RANGE BETWEEN CURRENT ROW AND CURRENT ROW)",
            "FIRST_VALUE(s) OVER (W), LAST_VALUE(k) OVER (W), \
             LAST_VALUE(v) OVER (W ROWS BETWEEN 3 PRECEDING AND 4 FOLLOWING)",
        ];
        for c in calls {
            let sql = format!(
                "SELECT k, g, v, s, {} FROM w",
                c.replace("(W", &format!("({win}"))
            );
            same_when_spilled(&mut env, &dir, &sql, 4 << 10);
        }
    }
}

#[test]
fn whole_partition_aggregates_and_several_windows() {
    let (mut env, dir) = setup();
    for sql in [
        // no ORDER BY: the frame is the whole partition
        "SELECT k, SUM(v) OVER (PARTITION BY g), COUNT(*) OVER (), MAX(s) OVER () FROM w",
        // several windows: each its own sort and pass, rows in the first window's order
        "SELECT k, ROW_NUMBER() OVER (ORDER BY v, k), SUM(k) OVER (PARTITION BY g), \
         RANK() OVER (PARTITION BY s ORDER BY g DESC), LAG(k) OVER (ORDER BY v, k) FROM w",
        "SELECT k, RANK() OVER (ORDER BY g), DENSE_RANK() OVER (PARTITION BY v % 5 ORDER BY s) \
         FROM w",
        // constant ORDER BY (no sort) over one big partition
        "SELECT k, ROW_NUMBER() OVER (ORDER BY (SELECT NULL)), \
         LAG(k) OVER (ORDER BY (SELECT NULL)), SUM(v) OVER (ORDER BY (SELECT NULL)) FROM w",
    ] {
        same_when_spilled(&mut env, &dir, sql, 2 << 10);
    }
}

#[test]
fn spilled_windows_give_the_known_values() {
    let (mut env, dir) = setup();
    env.spill = tiny(&dir, 1 << 10);
    // one partition of N rows far past the budget
    let sql = "SELECT MAX(rn), MIN(rn), SUM(rn), MAX(c), MIN(f), MAX(lg) FROM (SELECT \
               ROW_NUMBER() OVER (ORDER BY k) rn, COUNT(*) OVER () c, \
               FIRST_VALUE(k) OVER (ORDER BY k) f, LAG(k, 1999, 0) OVER (ORDER BY k) lg FROM w) x";
    let r = env.q(sql);
    assert!(env.last_spills.files > 0);
    assert_eq!(r, vec![format!("{N}|1|{}|{N}|0|0", N * (N + 1) / 2)]);
    env.spill = SpillConfig::default();
    assert_eq!(leftover_files(&dir), 0);
}

#[test]
fn errors_in_spilled_windows_remove_the_work_files() {
    let (mut env, dir) = setup();
    env.spill = tiny(&dir, 2 << 10);
    for sql in [
        // fails while the functions are computed over a spilled partition
        "SELECT k, SUM(10 / (k - 10006)) OVER (ORDER BY v) FROM w",
        "SELECT k, LAG(1 / (v - 96)) OVER (PARTITION BY g ORDER BY k) FROM w",
    ] {
        let e = env.err(sql);
        assert_eq!(e.number, 8134, "{sql}: {e:?}");
        assert_eq!(leftover_files(&dir), 0, "work files left behind: {sql}");
    }
}
