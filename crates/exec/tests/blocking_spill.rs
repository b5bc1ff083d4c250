//! Blocking operators besides sort / hash join / hash aggregate / window within the operator
//! memory budget: Hash Match (Flow Distinct) and hash EXCEPT / INTERSECT spill to work files
//! (partitioned by key hash, several levels) and return the same rows as in memory, leaving
//! no work file behind. Recursive CTE work tables
//! (one level each) spill too, and the CTE streams its rows.

mod common;

use common::Env;
use exec::SpillConfig;
use types::DataType;

const N: usize = 3000;

fn setup() -> (Env, tempfile::TempDir) {
    let mut env = Env::new();
    let cols: Vec<(&str, DataType, bool)> = vec![
        ("k", DataType::Int, true),
        ("s", DataType::VarChar(Some(20)), true),
    ];
    env.create("a", &cols, None).expect("create a");
    env.create("b", &cols, None).expect("create b");
    // a.k covers 0..1500, b.k 700..2200: both EXCEPT and INTERSECT have rows
    for (t, m, shift) in [("a", 7usize, 0usize), ("b", 11, 700)] {
        let rows: Vec<String> = (0..N)
            .map(|i| {
                let k = if i % 41 == 0 {
                    "NULL".to_string()
                } else {
                    ((i * m) % 1500 + shift).to_string()
                };
                let s = if i % 17 == 0 {
                    "NULL".to_string()
                } else if i % 2 == 0 {
                    format!("'Key{}'", (i * m) % 90)
                } else {
                    format!("'KEY{}'", (i * m) % 90)
                };
                format!("({k}, {s})")
            })
            .collect();
        for chunk in rows.chunks(500) {
            env.run(&format!("INSERT INTO {t} VALUES {}", chunk.join(", ")))
                .expect("insert");
        }
    }
    (env, tempfile::tempdir().expect("spill dir"))
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn distinct_union_except_intersect_spill_and_match_memory() {
    let (mut env, dir) = setup();
    let queries = [
        "SELECT k, s FROM a UNION SELECT k, s FROM b",
        "SELECT k FROM a UNION SELECT k FROM b UNION SELECT k + 1 FROM a",
        "SELECT k, s FROM a EXCEPT SELECT k, s FROM b",
        "SELECT k FROM a EXCEPT SELECT k FROM b",
        "SELECT k, s FROM a INTERSECT SELECT k, s FROM b",
        "SELECT k FROM a INTERSECT SELECT k FROM b",
        "SELECT s FROM a INTERSECT SELECT s FROM b",
    ];
    for sql in queries {
        env.spill = SpillConfig::default();
        let mem = env.q(sql);
        assert_eq!(env.last_spills.files, 0, "{sql}");
        assert!(!mem.is_empty(), "{sql}");
        for budget in [64usize, 1 << 10, 4 << 10] {
            env.spill = SpillConfig {
                operator_budget: budget,
                dir: Some(dir.path().join("workfiles").into()),
            };
            let spilled = env.q(sql);
            let files = env.last_spills.files;
            env.spill = SpillConfig::default();
            assert!(files > 0, "did not spill at {budget}: {sql}");
            let left = std::fs::read_dir(dir.path().join("workfiles"))
                .map(|d| d.count())
                .unwrap_or(0);
            assert_eq!(left, 0, "work files left behind: {sql}");
            assert_eq!(sorted(mem.clone()), sorted(spilled), "{budget}: {sql}");
        }
    }
}

#[test]
fn recursive_cte_levels_spill_and_stream() {
    let (mut env, dir) = setup();
    // every level has N rows: each level's work table spills under a small budget
    let sql = "WITH r AS (SELECT k, s, 0 AS d FROM a UNION ALL \
               SELECT k + 1, s, d + 1 FROM r WHERE d < 4) SELECT k, s, d FROM r";
    env.spill = SpillConfig::default();
    let mem = env.q(sql);
    assert_eq!(env.last_spills.files, 0);
    assert_eq!(mem.len(), 5 * N);
    env.spill = SpillConfig {
        operator_budget: 8 << 10,
        dir: Some(dir.path().join("workfiles").into()),
    };
    let spilled = env.q(sql);
    assert!(env.last_spills.files >= 4, "levels did not spill");
    assert_eq!(mem, spilled);
    // rows stream: TOP stops the recursion long before MAXRECURSION 0 would
    let top = env.q("WITH n AS (SELECT 1 AS i UNION ALL SELECT i + 1 FROM n) \
         SELECT TOP (3) i FROM n OPTION (MAXRECURSION 0)");
    assert_eq!(top, vec!["1", "2", "3"]);
    let e =
        env.err("WITH n AS (SELECT 1 AS i UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n");
    assert_eq!(e.number, 530);
    env.spill = SpillConfig::default();
    let left = std::fs::read_dir(dir.path().join("workfiles"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(left, 0);
}

#[test]
fn dml_input_spools_spill_with_the_same_effect() {
    let statements = [
        // Halloween protection: the input reads the target
        "INSERT INTO a SELECT k + 5000, s FROM a WHERE k IS NOT NULL",
        "UPDATE a SET k = k + 1, s = s + 'x' WHERE k % 3 = 0",
        "DELETE FROM a WHERE k IN (SELECT k FROM b)",
        "SELECT k, s INTO c FROM a WHERE k % 2 = 0",
        "MERGE INTO a AS t USING (SELECT DISTINCT k, s FROM b WHERE k < 1200) AS src \
         ON t.k = src.k AND t.s = src.s \
         WHEN MATCHED THEN UPDATE SET s = src.s + '!' \
         WHEN NOT MATCHED BY TARGET THEN INSERT (k, s) VALUES (src.k, src.s) \
         WHEN NOT MATCHED BY SOURCE AND t.k % 5 = 0 THEN DELETE;",
    ];
    let check = "SELECT COUNT(*), SUM(CAST(k AS bigint)), MAX(s), MIN(s) FROM a";
    let (mut mem_env, _) = setup();
    let (mut env, dir) = setup();
    env.spill = SpillConfig {
        operator_budget: 4 << 10,
        dir: Some(dir.path().join("workfiles").into()),
    };
    for sql in statements {
        mem_env.run(sql).expect("in memory");
        assert_eq!(mem_env.last_spills.files, 0, "{sql}");
        env.run(sql).expect("spilled");
        assert!(env.last_spills.files > 0, "did not spill: {sql}");
        assert_eq!(mem_env.q(check), env.q(check), "{sql}");
    }
    assert_eq!(
        sorted(mem_env.q("SELECT k, s FROM c")),
        sorted(env.q("SELECT k, s FROM c"))
    );
    let left = std::fs::read_dir(dir.path().join("workfiles"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(left, 0);
}

#[test]
fn merge_join_streams_and_spills_long_runs() {
    let (mut env, dir) = setup();
    // s has ~180 distinct values over 3000 rows: long runs of equal right keys
    for cond in [
        "a.s = b.s",
        "a.k = b.k",
        "a.s = b.s AND a.k < b.k",
        // runs of ~150 right rows per key: the run itself spills
        "a.k % 2 = b.k % 2 WHERE a.k < 30 AND b.k < 1000",
    ] {
        let hash = format!("SELECT a.k, a.s, b.k FROM a INNER HASH JOIN b ON {cond}");
        let merge = hash.replace("HASH", "MERGE");
        assert!(env.explain(&merge).contains("Merge Join"), "{merge}");
        env.spill = SpillConfig::default();
        let expected = sorted(env.q(&hash));
        assert!(!expected.is_empty());
        assert_eq!(sorted(env.q(&merge)), expected, "{merge}");
        env.spill = SpillConfig {
            operator_budget: 2 << 10,
            dir: Some(dir.path().join("workfiles").into()),
        };
        assert_eq!(sorted(env.q(&merge)), expected, "{merge}");
        assert!(env.last_spills.files > 0, "did not spill: {merge}");
        env.spill = SpillConfig::default();
    }
    let left = std::fs::read_dir(dir.path().join("workfiles"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(left, 0);
}
