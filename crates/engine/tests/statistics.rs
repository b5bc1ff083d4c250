//! Statistics through the engine's `Catalog::statistics` (what the optimizer calls): automatic
//! creation on an asked-for column (AUTO_CREATE_STATISTICS), automatic update past SQL Server's
//! modification threshold (AUTO_UPDATE_STATISTICS), NORECOMPUTE, the database options, and
//! persistence across a restart of the engine.

use std::sync::Arc;

use catalog::Catalog;
use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

fn dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("latchkey-stats-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink
}

fn rows(s: &mut Session, sql: &str) -> Vec<Vec<Value>> {
    run(s, sql)
        .result_sets()
        .last()
        .map(|r| (*r).clone())
        .unwrap_or_default()
}

fn table(e: &Engine, name: &str) -> Arc<catalog::TableDef> {
    e.database("master")
        .expect("master")
        .cat
        .read()
        .table("dbo", name)
        .expect("table")
}

fn fill(s: &mut Session, name: &str, from: i32, to: i32) {
    run(
        s,
        &format!("SET NOCOUNT ON; INSERT INTO {name} (id, grp) SELECT value, value % 10 FROM GENERATE_SERIES({from}, {to});"),
    );
}

#[test]
fn auto_create_then_auto_update_past_the_threshold() {
    let d = dir("auto");
    let e = Engine::open(&d, EngineConfig::default()).expect("open");
    let mut s = Session::new(e.clone());
    run(
        &mut s,
        "CREATE TABLE w (id int NOT NULL, grp int NOT NULL);",
    );
    fill(&mut s, "w", 1, 1000);
    let t = table(&e, "w");
    // a WHERE on grp (column 1): created, with the SQL Server name and a full histogram
    let objs = s.statistics(&t, &[1]);
    assert_eq!(objs.len(), 1);
    let o = &objs[0];
    assert!(o.auto_created && !o.user_created);
    assert_eq!(
        o.name,
        format!("_WA_Sys_00000002_{:08X}", t.object_id as u32)
    );
    let data = o.data.as_ref().expect("built");
    assert_eq!(
        (data.rows, data.rows_sampled, data.steps.len()),
        (1000, 1000, 10)
    );
    assert_eq!(data.steps[3].eq_rows, 100.0);
    let seen = rows(
        &mut s,
        "SELECT name, auto_created FROM sys.stats WHERE object_id = OBJECT_ID('w')",
    );
    assert_eq!(
        seen,
        vec![vec![Value::NVarChar(o.name.clone()), Value::Bit(true)]]
    );
    // asking again creates nothing new
    assert_eq!(s.statistics(&t, &[1]).len(), 1);

    // threshold for 1000 rows: MIN(500 + 200, SQRT(1,000,000)) = 700 modifications
    fill(&mut s, "w", 1001, 1600);
    let o = s.statistics(&t, &[]).remove(0);
    assert_eq!(
        o.data.as_ref().unwrap().rows,
        1000,
        "600 modifications: not yet stale"
    );
    let counter = rows(
        &mut s,
        &format!(
            "SELECT modification_counter FROM sys.dm_db_stats_properties(OBJECT_ID('w'), {})",
            o.stats_id
        ),
    );
    assert_eq!(counter, vec![vec![Value::BigInt(600)]]);
    fill(&mut s, "w", 1601, 1700);
    let o = s.statistics(&t, &[]).remove(0);
    assert_eq!(
        o.data.as_ref().unwrap().rows,
        1700,
        "700 modifications: rebuilt"
    );
    let counter = rows(
        &mut s,
        &format!(
            "SELECT modification_counter FROM sys.dm_db_stats_properties(OBJECT_ID('w'), {})",
            o.stats_id
        ),
    );
    assert_eq!(counter, vec![vec![Value::BigInt(0)]]);

    // NORECOMPUTE objects are never rebuilt automatically
    run(
        &mut s,
        "CREATE STATISTICS sid ON w (id) WITH FULLSCAN, NORECOMPUTE;",
    );
    fill(&mut s, "w", 1701, 5000);
    let objs = s.statistics(&t, &[]);
    let sid = objs.iter().find(|o| o.name == "sid").expect("sid");
    assert_eq!(sid.data.as_ref().unwrap().rows, 1700);
    let wa = objs.iter().find(|o| o.auto_created).expect("auto");
    assert_eq!(wa.data.as_ref().unwrap().rows, 5000);
    drop(s);
    drop(e);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn database_options_turn_automatic_statistics_off() {
    let d = dir("off");
    let e = Engine::open(&d, EngineConfig::default()).expect("open");
    let mut s = Session::new(e.clone());
    run(&mut s, "CREATE TABLE o (id int NOT NULL, grp int NOT NULL); ALTER DATABASE CURRENT SET AUTO_CREATE_STATISTICS OFF;");
    fill(&mut s, "o", 1, 100);
    let t = table(&e, "o");
    assert!(s.statistics(&t, &[1]).is_empty());
    run(&mut s, "ALTER DATABASE CURRENT SET AUTO_CREATE_STATISTICS ON; ALTER DATABASE CURRENT SET AUTO_UPDATE_STATISTICS OFF;");
    assert_eq!(s.statistics(&t, &[1]).len(), 1);
    fill(&mut s, "o", 101, 5000);
    let o = s.statistics(&t, &[1]).remove(0);
    assert_eq!(
        o.data.as_ref().unwrap().rows,
        100,
        "AUTO_UPDATE_STATISTICS OFF"
    );
    // inside a transaction that changed the catalog, nothing is written outside it
    run(
        &mut s,
        "BEGIN TRAN; CREATE TABLE o2 (a int); INSERT INTO o2 VALUES (1);",
    );
    let t2 = table(&e, "o2");
    assert!(s.statistics(&t2, &[0]).is_empty());
    run(&mut s, "ROLLBACK;");
    drop(s);
    drop(e);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn statistics_survive_a_restart() {
    let d = dir("restart");
    {
        let e = Engine::open(&d, EngineConfig::default()).expect("open");
        let mut s = Session::new(e.clone());
        run(
            &mut s,
            "CREATE TABLE r (id int NOT NULL, grp int NOT NULL);",
        );
        fill(&mut s, "r", 1, 300);
        run(
            &mut s,
            "CREATE STATISTICS rg ON r (grp, id) WITH FULLSCAN; CREATE INDEX ix ON r (id);",
        );
        let t = table(&e, "r");
        assert_eq!(s.statistics(&t, &[]).len(), 2);
    }
    let e = Engine::open(&d, EngineConfig::default()).expect("reopen");
    let s = Session::new(e.clone());
    let t = table(&e, "r");
    let objs = s.statistics(&t, &[]);
    let names: Vec<&str> = objs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, vec!["rg", "ix"]);
    let rg = objs[0].data.as_ref().expect("rg data");
    assert_eq!(rg.steps.len(), 10);
    assert_eq!(rg.density[1].all_density, 1.0 / 300.0);
    let ix = objs[1]
        .data
        .as_ref()
        .expect("index statistics built with the index");
    assert_eq!((ix.rows, ix.steps.len()), (300, 200));
    drop(s);
    drop(e);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn objects_without_data_are_built_when_rows_exist() {
    let d = dir("nodata");
    let e = Engine::open(&d, EngineConfig::default()).expect("open");
    let mut s = Session::new(e.clone());
    // created on an empty table: no data until rows come
    run(
        &mut s,
        "CREATE TABLE n (id int NOT NULL, grp int NOT NULL); CREATE STATISTICS ng ON n (grp);",
    );
    let t = table(&e, "n");
    assert!(s.statistics(&t, &[]).iter().all(|o| o.data.is_none()));
    fill(&mut s, "n", 1, 50);
    let o = s.statistics(&t, &[]).remove(0);
    assert_eq!(o.data.as_ref().map(|d| d.rows), Some(50));
    // a primary key added by ALTER TABLE to a table with rows: built at the first request
    run(
        &mut s,
        "ALTER TABLE n ADD CONSTRAINT pk_n PRIMARY KEY (id);",
    );
    let t = table(&e, "n");
    let objs = s.statistics(&t, &[]);
    let pk = objs
        .iter()
        .find(|o| o.name == "pk_n")
        .expect("pk statistics");
    assert_eq!(
        pk.data.as_ref().map(|d| (d.rows, d.steps.len())),
        Some((50, 50))
    );
    drop(s);
    drop(e);
    let _ = std::fs::remove_dir_all(&d);
}

/// The optimizer of one session never uses the statistics another session's open transaction
/// created or updated (nor commits them with an automatic build): it reads them as committed,
/// and the owner its own. After the commit every session uses the new ones; after a rollback
/// nothing of them is left.
#[test]
fn another_sessions_uncommitted_statistics_are_not_used() {
    let d = dir("uncommitted");
    let e = Engine::open(&d, EngineConfig::default()).expect("open");
    let mut a = Session::new(e.clone());
    let b = Session::new(e.clone());
    run(&mut a, "CREATE TABLE u (id int NOT NULL, grp int NOT NULL); ALTER DATABASE CURRENT SET AUTO_CREATE_STATISTICS OFF;");
    fill(&mut a, "u", 1, 100);
    let t = table(&e, "u");
    assert!(b.statistics(&t, &[1]).is_empty());
    // CREATE STATISTICS: the owner uses it, the other session does not
    run(
        &mut a,
        "BEGIN TRAN; CREATE STATISTICS st_grp ON u (grp) WITH FULLSCAN;",
    );
    assert_eq!(
        a.statistics(&t, &[1]).len(),
        1,
        "own uncommitted statistics"
    );
    assert!(
        b.statistics(&t, &[1]).is_empty(),
        "another session's uncommitted CREATE STATISTICS"
    );
    run(&mut a, "ROLLBACK;");
    assert!(b.statistics(&t, &[1]).is_empty(), "after the rollback");
    run(
        &mut a,
        "BEGIN TRAN; CREATE STATISTICS st_grp ON u (grp) WITH FULLSCAN; COMMIT;",
    );
    assert_eq!(b.statistics(&t, &[1]).len(), 1, "after the commit");
    // UPDATE STATISTICS: the other session keeps the committed histogram and builds nothing
    // (AUTO_UPDATE_STATISTICS is on and the table has changed past the threshold)
    fill(&mut a, "u", 101, 400);
    run(
        &mut a,
        "BEGIN TRAN; UPDATE STATISTICS u st_grp WITH FULLSCAN;",
    );
    let rows_of = |s: &Session| -> u64 {
        let o = s.statistics(&t, &[1]);
        o.iter()
            .find(|o| o.name == "st_grp")
            .and_then(|o| o.data.as_ref())
            .map(|d| d.rows)
            .expect("st_grp with data")
    };
    assert_eq!(rows_of(&a), 400, "own uncommitted update");
    assert_eq!(rows_of(&b), 100, "another session's uncommitted update");
    run(&mut a, "ROLLBACK;");
    run(
        &mut a,
        "BEGIN TRAN; UPDATE STATISTICS u st_grp WITH FULLSCAN;",
    );
    assert_eq!(rows_of(&b), 100);
    run(&mut a, "COMMIT;");
    assert_eq!(rows_of(&b), 400, "after the commit");
    drop(a);
    drop(b);
    drop(e);
    let _ = std::fs::remove_dir_all(&d);
}
