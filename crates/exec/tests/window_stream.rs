//! Streaming Window (Segment + Sequence Project): ROW_NUMBER / RANK / DENSE_RANK over input that
//! is already in window order are numbered as rows pass, with the same values and row order as
//! the materializing path.

mod common;

use common::Env;
use types::DataType;

fn emp(env: &mut Env) {
    let cols: Vec<(&str, DataType, bool)> = vec![
        ("name", DataType::VarChar(Some(10)), true),
        ("dept", DataType::VarChar(Some(5)), true),
        ("salary", DataType::Int, true),
    ];
    env.create("emp", &cols, None).expect("create emp");
    env.run(
        "INSERT INTO emp VALUES ('ann', 'd1', 100), ('bob', 'd1', 200), ('cid', 'd1', 200), \
         ('dan', 'd2', 50), ('eve', 'd2', 300), ('fay', 'd3', NULL), ('gus', NULL, 7)",
    )
    .expect("insert emp");
}

#[test]
fn constant_order_numbers_rows_in_input_order() {
    let mut env = Env::new();
    emp(&mut env);
    // streamed (only rank functions) vs materialized (LAG forces the buffering path)
    let streamed = env.q("SELECT name, ROW_NUMBER() OVER (ORDER BY (SELECT NULL)), \
         RANK() OVER (ORDER BY (SELECT NULL)), DENSE_RANK() OVER (ORDER BY (SELECT 1)) FROM emp");
    let buffered = env.q("SELECT name, ROW_NUMBER() OVER (ORDER BY (SELECT NULL)), \
         RANK() OVER (ORDER BY (SELECT NULL)), DENSE_RANK() OVER (ORDER BY (SELECT 1)), \
         LAG(name) OVER (ORDER BY (SELECT NULL)) FROM emp");
    assert_eq!(streamed.len(), 7);
    assert_eq!(streamed[0], "ann|1|1|1");
    assert_eq!(streamed[6], "gus|7|1|1");
    for (s, b) in streamed.iter().zip(&buffered) {
        assert!(b.starts_with(&format!("{s}|")), "{s} vs {b}");
    }
}

#[test]
fn streamed_window_reads_only_the_rows_it_returns() {
    let mut env = Env::new();
    // the third input row divides by zero: a window that buffers its whole input fails, one
    // that streams under TOP (1) never computes that row
    let sql = "SELECT TOP (1) r FROM (SELECT RANK() OVER (ORDER BY (SELECT NULL)) AS r, y \
               FROM (SELECT 1 / (x - 3) AS y FROM (VALUES (1), (2), (3)) v(x)) s) q";
    assert_eq!(env.q(sql), vec!["1"]);
    let buffered = "SELECT TOP (1) r FROM (SELECT RANK() OVER (ORDER BY (SELECT NULL)) AS r, \
                    LAG(y) OVER (ORDER BY (SELECT NULL)) AS l \
                    FROM (SELECT 1 / (x - 3) AS y FROM (VALUES (1), (2), (3)) v(x)) s) q";
    assert_eq!(env.err(buffered).number, 8134);
}

#[test]
fn partitions_and_peers_match_the_buffered_path() {
    let mut env = Env::new();
    emp(&mut env);
    let q = |extra: &str| {
        format!(
            "SELECT name, ROW_NUMBER() OVER (PARTITION BY dept ORDER BY salary DESC), \
             RANK() OVER (PARTITION BY dept ORDER BY salary DESC), \
             DENSE_RANK() OVER (PARTITION BY dept ORDER BY salary DESC){extra} \
             FROM emp ORDER BY name"
        )
    };
    let plain = env.q(&q(""));
    let with_lag = env.q(&q(
        ", LAG(name) OVER (PARTITION BY dept ORDER BY salary DESC)",
    ));
    assert_eq!(plain.len(), 7);
    for (s, b) in plain.iter().zip(&with_lag) {
        assert!(b.starts_with(&format!("{s}|")), "{s} vs {b}");
    }
    assert!(plain.contains(&"bob|1|1|1".to_string()), "{plain:?}");
    assert!(plain.contains(&"cid|2|1|1".to_string()), "{plain:?}");
    assert!(plain.contains(&"ann|3|3|2".to_string()), "{plain:?}");
}

#[test]
fn is_null_predicates_on_scans() {
    let mut env = Env::new();
    emp(&mut env);
    assert_eq!(
        env.q("SELECT COUNT(*) FROM emp WHERE salary IS NULL"),
        vec!["1"]
    );
    assert_eq!(
        env.q("SELECT COUNT(*) FROM emp WHERE dept IS NOT NULL"),
        vec!["6"]
    );
    assert_eq!(
        env.q("SELECT name, salary FROM emp WHERE salary IS NULL"),
        vec!["fay|NULL"]
    );
    assert_eq!(
        env.q("SELECT name FROM emp WHERE dept IS NULL"),
        vec!["gus"]
    );
}

#[test]
fn sorted_input_streams_partitions() {
    let mut env = Env::new();
    emp(&mut env);
    let q = |extra: &str| {
        format!(
            "SELECT name, ROW_NUMBER() OVER (PARTITION BY dept ORDER BY salary DESC), \
             RANK() OVER (PARTITION BY dept ORDER BY salary DESC), \
             DENSE_RANK() OVER (PARTITION BY dept ORDER BY salary DESC){extra} \
             FROM (SELECT TOP (100) name, dept, salary FROM emp ORDER BY dept, salary DESC) s"
        )
    };
    let plain = env.q(&q(""));
    let with_lag = env.q(&q(
        ", LAG(name) OVER (PARTITION BY dept ORDER BY salary DESC)",
    ));
    assert_eq!(
        plain,
        vec![
            "gus|1|1|1",
            "bob|1|1|1",
            "cid|2|1|1",
            "ann|3|3|2",
            "eve|1|1|1",
            "dan|2|2|2",
            "fay|1|1|1"
        ]
    );
    for (s, b) in plain.iter().zip(&with_lag) {
        assert!(b.starts_with(&format!("{s}|")), "{s} vs {b}");
    }
}
