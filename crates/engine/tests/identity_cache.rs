//! IDENTITY values from a cache (engine identity_cache.rs, invariant I1): concurrent sessions
//! get ascending, distinct values; IDENT_CURRENT and DBCC CHECKIDENT show the last value
//! handed out, not the reserved block's end; an unclean stop (the engine dropped without its
//! clean-stop write-back) skips the rest of the block and reuses nothing; a clean stop, the
//! cache turned off, and a rolled-back DDL leave no gap.

mod support;

use std::sync::Arc;

use engine::{Engine, EngineConfig, Session};
use support::{run, TempDir};
use types::Value;

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i as i64,
        Value::BigInt(i) => *i,
        Value::Decimal { mantissa, .. } => *mantissa as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

fn open(dir: &TempDir) -> Arc<Engine> {
    Engine::open(dir.path(), EngineConfig::default()).expect("open")
}

/// Inserts one row into `table` and returns its identity value.
fn insert(s: &mut Session, table: &str) -> i64 {
    let r = run(
        s,
        &format!("INSERT INTO {table} (note) VALUES ('x'); SELECT SCOPE_IDENTITY()"),
    );
    int(&r[0][0])
}

fn create(s: &mut Session) {
    run(
        s,
        "CREATE TABLE big_t (id BIGINT IDENTITY(1, 1) PRIMARY KEY, note VARCHAR(10));
         CREATE TABLE int_t (id INT IDENTITY(1, 1) PRIMARY KEY, note VARCHAR(10));
         CREATE TABLE small_t (id SMALLINT IDENTITY(1, 1) PRIMARY KEY, note VARCHAR(10));",
    );
}

#[test]
fn concurrent_sessions_get_ascending_distinct_values() {
    let dir = TempDir::new("identity-cache-concurrent");
    let engine = open(&dir);
    create(&mut Session::new(engine.clone()));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                let mut s = Session::new(engine);
                (0..100)
                    .map(|_| insert(&mut s, "big_t"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in threads {
        let got = t.join().expect("session thread panicked");
        assert!(got.windows(2).all(|w| w[0] < w[1]), "ascending: {got:?}");
        all.extend(got);
    }
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 800, "no value handed out twice");
    assert_eq!(all, (1..=800).collect::<Vec<_>>(), "no gap while running");
    let mut s = Session::new(engine);
    let r = run(&mut s, "SELECT IDENT_CURRENT('big_t'), COUNT(*) FROM big_t");
    assert_eq!((int(&r[0][0]), int(&r[0][1])), (800, 800));
}

#[test]
fn an_unclean_stop_skips_the_cached_block_and_reuses_nothing() {
    let dir = TempDir::new("identity-cache-crash");
    {
        let engine = open(&dir);
        let mut s = Session::new(engine);
        create(&mut s);
        for t in ["big_t", "int_t", "small_t"] {
            for want in 1..=3 {
                assert_eq!(insert(&mut s, t), want);
            }
        }
        // the last value, not the reserved block's end
        let r = run(
            &mut s,
            "SELECT IDENT_CURRENT('big_t'), IDENT_CURRENT('int_t')",
        );
        assert_eq!((int(&r[0][0]), int(&r[0][1])), (3, 3));
        // dropped without Engine::release_identity_caches: as a SIGKILL leaves it
    }
    let engine = open(&dir);
    let mut s = Session::new(engine);
    assert_eq!(
        insert(&mut s, "big_t"),
        10_001,
        "bigint caches 10,000 values"
    );
    assert_eq!(insert(&mut s, "int_t"), 1_001, "int caches 1,000 values");
    assert_eq!(insert(&mut s, "small_t"), 4, "smallint is not cached");
    let r = run(&mut s, "SELECT COUNT(*), COUNT(DISTINCT id) FROM big_t");
    assert_eq!((int(&r[0][0]), int(&r[0][1])), (4, 4));
}

#[test]
fn a_clean_stop_writes_the_last_values_back() {
    let dir = TempDir::new("identity-cache-clean");
    {
        let engine = open(&dir);
        let mut s = Session::new(engine.clone());
        create(&mut s);
        for _ in 0..3 {
            insert(&mut s, "big_t");
            insert(&mut s, "int_t");
        }
        assert!(engine.release_identity_caches().is_empty());
    }
    let engine = open(&dir);
    let mut s = Session::new(engine);
    assert_eq!(insert(&mut s, "big_t"), 4);
    assert_eq!(insert(&mut s, "int_t"), 4);
}

#[test]
fn with_the_cache_off_an_unclean_stop_leaves_no_gap() {
    let dir = TempDir::new("identity-cache-off");
    {
        let engine = open(&dir);
        let mut s = Session::new(engine);
        run(
            &mut s,
            "ALTER DATABASE SCOPED CONFIGURATION SET IDENTITY_CACHE = OFF",
        );
        create(&mut s);
        for _ in 0..3 {
            insert(&mut s, "big_t");
        }
    }
    // the setting is the database's: it holds after the restart too
    let engine = open(&dir);
    let mut s = Session::new(engine);
    assert_eq!(insert(&mut s, "big_t"), 4);
    let r = run(
        &mut s,
        "SELECT value FROM sys.database_scoped_configurations WHERE name = 'IDENTITY_CACHE'",
    );
    assert_eq!(int(&r[0][0]), 0);
}

#[test]
fn turning_the_cache_off_mid_block_leaves_no_gap() {
    let dir = TempDir::new("identity-cache-off-mid-block");
    {
        let engine = open(&dir);
        let mut s = Session::new(engine);
        create(&mut s);
        for _ in 0..3 {
            insert(&mut s, "big_t");
        }
        // values 4..10,000 are reserved; OFF writes 3 back as the persisted value
        run(
            &mut s,
            "ALTER DATABASE SCOPED CONFIGURATION SET IDENTITY_CACHE = OFF",
        );
        assert_eq!(insert(&mut s, "big_t"), 4);
        // dropped without the clean-stop write-back
    }
    let engine = open(&dir);
    let mut s = Session::new(engine);
    assert_eq!(insert(&mut s, "big_t"), 5);
}

#[test]
fn checkident_and_rolled_back_ddl_see_the_last_value_handed_out() {
    let dir = TempDir::new("identity-cache-checkident");
    let engine = open(&dir);
    let mut s = Session::new(engine);
    create(&mut s);
    for _ in 0..5 {
        insert(&mut s, "big_t");
    }
    let mut sink = engine::CollectSink::default();
    s.execute_batch("DBCC CHECKIDENT ('big_t', NORESEED)", &mut sink);
    let text = format!("{sink:?}");
    assert!(text.contains("current identity value '5'"), "{text}");
    // a rolled-back DDL reloads the catalog from storage: the counter goes on from 5
    run(
        &mut s,
        "BEGIN TRANSACTION; CREATE TABLE gone (a int); ROLLBACK TRANSACTION",
    );
    assert_eq!(insert(&mut s, "big_t"), 6);
    // a rolled-back TRUNCATE (which restarted the counter at the seed, whose new block ends
    // where the old one did) gives the counter back as it was before it
    run(
        &mut s,
        "BEGIN TRANSACTION; TRUNCATE TABLE big_t; INSERT INTO big_t (note) VALUES ('y'); \
         ALTER TABLE big_t ADD extra int NULL; ROLLBACK TRANSACTION",
    );
    assert_eq!(insert(&mut s, "big_t"), 7);
    // RESEED writes the counter itself; the next value follows it
    run(&mut s, "DBCC CHECKIDENT ('big_t', RESEED, 100)");
    assert_eq!(insert(&mut s, "big_t"), 101);
    // TRUNCATE starts over at the seed
    run(&mut s, "TRUNCATE TABLE big_t");
    assert_eq!(insert(&mut s, "big_t"), 1);
}

/// Sequences share the clean-stop write-back (sequence.rs): after a clean stop the next value
/// follows the last one handed out; after an unclean one the rest of the cached block is
/// skipped, and no value comes twice.
#[test]
fn sequences_continue_after_a_clean_stop_and_skip_after_an_unclean_one() {
    let dir = TempDir::new("identity-cache-sequence");
    let next = |s: &mut Session| int(&run(s, "SELECT NEXT VALUE FOR dbo.sq")[0][0]);
    {
        let engine = open(&dir);
        let mut s = Session::new(engine.clone());
        run(
            &mut s,
            "CREATE SEQUENCE dbo.sq AS int START WITH 1 CACHE 50",
        );
        assert_eq!((next(&mut s), next(&mut s), next(&mut s)), (1, 2, 3));
        assert!(engine.release_identity_caches().is_empty());
        // a value after the write-back reserves a new block first (S1)
        assert_eq!(next(&mut s), 4);
        assert!(engine.release_identity_caches().is_empty());
    }
    let handed = {
        let engine = open(&dir);
        let mut s = Session::new(engine);
        let got = (next(&mut s), next(&mut s));
        assert_eq!(got, (5, 6), "a clean stop skips nothing");
        got.1
        // dropped without Engine::release_identity_caches: as a SIGKILL leaves it
    };
    let engine = open(&dir);
    let mut s = Session::new(engine);
    let after = next(&mut s);
    assert_eq!(after, 55, "the rest of the block (5..54) is skipped");
    assert!(after > handed, "no value twice");
}
