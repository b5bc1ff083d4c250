//! Resource use stays bounded at the SQL level: window functions spill under a small
//! operator memory grant with the results they have in memory, and a LOB several times the
//! buffer pool's size is written, read, survives a restart and is deleted.

mod support;

use std::sync::Arc;

use engine::{Engine, EngineConfig, Session};
use storage::StorageConfig;
use support::{run, TempDir};
use types::Value;

fn open(dir: &std::path::Path, config: EngineConfig) -> Session {
    let e: Arc<Engine> = Engine::open(dir, config).expect("open engine");
    Session::new(e)
}

#[test]
fn windows_spill_under_a_small_grant_with_the_same_results() {
    let dir = TempDir::new("window-grant");
    let mut s = open(dir.path(), EngineConfig::default());
    run(
        &mut s,
        "SET NOCOUNT ON
         CREATE TABLE t (k int, g int, v int, s varchar(40));
         INSERT t SELECT value, value % 3, value * 37 % 1000, REPLICATE('x', value % 40)
         FROM GENERATE_SERIES(1, 6000)",
    );
    let work = dir.path().join("tempdb").join("workfiles");
    for q in [
        "SELECT k, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v, k), RANK() OVER (ORDER BY s), \
         SUM(v) OVER (PARTITION BY g ORDER BY k), LAG(s, 2) OVER (ORDER BY k), \
         COUNT(*) OVER (PARTITION BY g) FROM t ORDER BY k",
        "SELECT k, NTILE(9) OVER (ORDER BY s, k), AVG(v) OVER (ORDER BY k ROWS BETWEEN 10 \
         PRECEDING AND 10 FOLLOWING) FROM t ORDER BY k",
    ] {
        assert!(!work.exists() || std::fs::read_dir(&work).expect("dir").count() == 0);
        let mem = run(&mut s, q);
        assert_eq!(mem.len(), 6000);
        let _ = std::fs::remove_dir_all(&work);
        let small = run(&mut s, &format!("{q} OPTION (MAX_GRANT_PERCENT = 0)"));
        assert!(work.exists(), "did not spill: {q}");
        assert_eq!(std::fs::read_dir(&work).expect("dir").count(), 0, "{q}");
        assert_eq!(mem, small, "{q}");
    }
}

#[test]
fn lob_several_times_the_buffer_pool() {
    let dir = TempDir::new("lob-pool");
    let config = EngineConfig {
        storage: StorageConfig {
            buffer_pool_bytes: 2 << 20,
            ..StorageConfig::default()
        },
        ..EngineConfig::default()
    };
    let check = "SELECT id, LEN(b), SUBSTRING(b, 1, 3), SUBSTRING(b, 8191997, 4), \
                 CHECKSUM(b) FROM big ORDER BY id";
    let expected = [
        Value::Int(1),
        Value::BigInt(8_192_000),
        Value::VarChar("abc".into()),
        Value::VarChar("abcd".into()),
    ];
    let sum;
    {
        let mut s = open(dir.path(), config.clone());
        run(
            &mut s,
            "SET NOCOUNT ON
             CREATE TABLE big (id int PRIMARY KEY, b varchar(max));
             DECLARE @s varchar(max) = REPLICATE(CAST('abcd' AS varchar(max)), 2000), @i int = 0;
             WHILE @i < 10 BEGIN SET @s = @s + @s; SET @i += 1 END;
             INSERT big VALUES (1, @s), (2, 'small')",
        );
        let r = run(&mut s, check);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0][..4], expected[..]);
        sum = r[0][4].clone();
    }
    let mut s = open(dir.path(), config);
    let r = run(&mut s, check);
    assert_eq!(r[0][..4], expected[..]);
    assert_eq!(r[0][4], sum);
    run(&mut s, "DELETE big WHERE id = 1");
    let r = run(&mut s, "SELECT id, b FROM big");
    assert_eq!(r, vec![vec![Value::Int(2), Value::VarChar("small".into())]]);
}
