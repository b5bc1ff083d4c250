//! Catalog visibility between sessions (engine README "Catalog visibility"): SQL Server reads
//! metadata under READ COMMITTED whatever the isolation level ("Transaction isolation
//! levels", Microsoft's T-SQL reference), so a catalog view or metadata function that meets
//! another transaction's uncommitted DDL waits for it and then shows what it committed or what
//! its rollback left; `NOLOCK` / READ UNCOMMITTED see the uncommitted catalog. Also Msg 3961
//! for DDL committed after a snapshot began, Msg 3964, and `#temp` DDL leaving other
//! sessions' cached plans alone.

use super::{level, setup, Actor, Outcome};

/// `setup`'s table `t` in database `cvdb` (ALLOW_SNAPSHOT_ISOLATION ON), both actors using it.
fn snap_setup(
    tag: &str,
) -> (
    super::support::TempDir,
    std::sync::Arc<engine::Engine>,
    Actor,
    Actor,
) {
    let (d, e, a, b) = setup(tag);
    a.run("CREATE DATABASE cvdb; ALTER DATABASE cvdb SET ALLOW_SNAPSHOT_ISOLATION ON")
        .ok();
    a.run("USE cvdb; CREATE TABLE t (id int PRIMARY KEY, v int); INSERT t VALUES (1, 10), (2, 20)")
        .ok();
    b.run("USE cvdb").ok();
    (d, e, a, b)
}

fn text(o: &Outcome) -> String {
    assert!(o.errors.is_empty(), "unexpected errors {:?}", o.errors);
    match o.rows.first().and_then(|r| r.first()) {
        Some(types::Value::NVarChar(s)) | Some(types::Value::VarChar(s)) => s.clone(),
        Some(types::Value::Null) | None => "NULL".into(),
        other => panic!("not a string: {other:?}"),
    }
}

/// A runs `ddl` in a transaction; B's `probe` (an integer) waits for it; after A's rollback B
/// reads `before`, after A's commit (of the same DDL) `after`.
fn waits_then_sees(a: &Actor, b: &Actor, ddl: &str, probe: &str, before: i64, after: i64) {
    a.run(&format!("BEGIN TRAN; {ddl}")).ok();
    b.blocks(probe);
    a.run("ROLLBACK").ok();
    assert_eq!(
        b.finish().int(),
        before,
        "after the rollback of `{ddl}`: {probe}"
    );
    assert_eq!(b.run(probe).int(), before, "{probe}");
    a.run(&format!("BEGIN TRAN; {ddl}")).ok();
    b.blocks(probe);
    a.run("COMMIT").ok();
    assert_eq!(
        b.finish().int(),
        after,
        "after the commit of `{ddl}`: {probe}"
    );
}

#[test]
fn catalog_views_wait_for_an_uncommitted_create_table() {
    let (_d, _e, a, b) = setup("cv-create");
    let ddl = "CREATE TABLE n (x int PRIMARY KEY, y varchar(10))";
    for (probe, before, after) in [
        ("SELECT COUNT(*) FROM sys.tables WHERE name = 'n'", 0, 1),
        ("SELECT COUNT(*) FROM sys.objects WHERE name = 'n'", 0, 1),
        ("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'n'", 0, 1),
        ("SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'n'", 0, 2),
        ("SELECT COUNT(*) FROM sys.columns c JOIN sys.tables t ON t.object_id = c.object_id WHERE t.name = 'n'", 0, 2),
        ("SELECT COUNT(*) FROM sys.indexes i JOIN sys.tables t ON t.object_id = i.object_id WHERE t.name = 'n'", 0, 1),
        // a reader that does not look for the new table meets it in its scan: it waits too
        ("SELECT COUNT(*) FROM sys.tables WHERE name = 't'", 1, 1),
    ] {
        waits_then_sees(&a, &b, ddl, probe, before, after);
        a.run("DROP TABLE n").ok();
    }
}

#[test]
fn catalog_views_wait_for_every_kind_of_uncommitted_ddl() {
    let (_d, _e, a, b) = setup("cv-kinds");
    waits_then_sees(
        &a,
        &b,
        "EXEC('CREATE VIEW v AS SELECT id FROM t')",
        "SELECT COUNT(*) FROM sys.views WHERE name = 'v'",
        0,
        1,
    );
    waits_then_sees(
        &a,
        &b,
        "EXEC('CREATE PROCEDURE p AS SELECT 1')",
        "SELECT COUNT(*) FROM sys.procedures WHERE name = 'p'",
        0,
        1,
    );
    waits_then_sees(
        &a,
        &b,
        "CREATE INDEX ix_v ON t (v)",
        "SELECT COUNT(*) FROM sys.indexes WHERE object_id = OBJECT_ID('t') AND name = 'ix_v'",
        0,
        1,
    );
    waits_then_sees(
        &a,
        &b,
        "ALTER TABLE t ADD c int NULL",
        "SELECT COUNT(*) FROM sys.columns WHERE object_id = OBJECT_ID('t')",
        2,
        3,
    );
    waits_then_sees(
        &a,
        &b,
        "DROP VIEW v",
        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.VIEWS WHERE TABLE_NAME = 'v'",
        1,
        0,
    );
    waits_then_sees(
        &a,
        &b,
        "DROP TABLE t",
        "SELECT COUNT(*) FROM sys.tables WHERE name = 't'",
        1,
        0,
    );
}

#[test]
fn catalog_views_read_committed_metadata_at_every_isolation_level() {
    let (_d, _e, a, b) = snap_setup("cv-levels");
    let probe = "SELECT COUNT(*) FROM sys.tables WHERE name = 'n'";
    for l in [
        "REPEATABLE READ",
        "SERIALIZABLE",
        "SNAPSHOT",
        "READ COMMITTED",
    ] {
        level(&b, l);
        waits_then_sees(&a, &b, "CREATE TABLE n (x int)", probe, 0, 1);
        a.run("DROP TABLE n").ok();
    }
}

#[test]
fn nolock_and_read_uncommitted_see_uncommitted_ddl() {
    let (_d, _e, a, b) = setup("cv-nolock");
    a.run("BEGIN TRAN; CREATE TABLE n (x int); DROP TABLE t")
        .ok();
    let n = "SELECT COUNT(*) FROM sys.tables WITH (NOLOCK) WHERE name = 'n'";
    assert_eq!(b.run(n).int(), 1, "the uncommitted CREATE");
    let t = "SELECT COUNT(*) FROM sys.objects WITH (READUNCOMMITTED) WHERE name = 't'";
    assert_eq!(b.run(t).int(), 0, "the uncommitted DROP");
    level(&b, "READ UNCOMMITTED");
    assert_eq!(
        b.run("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME IN ('n', 't')")
            .int(),
        1
    );
    level(&b, "READ COMMITTED");
    b.blocks("SELECT COUNT(*) FROM sys.tables WHERE name IN ('n', 't')");
    a.run("ROLLBACK").ok();
    assert_eq!(b.finish().int(), 1, "t only");
}

#[test]
fn a_session_sees_its_own_uncommitted_ddl() {
    let (_d, _e, a, b) = setup("cv-own");
    a.run("BEGIN TRAN; CREATE TABLE n (x int); ALTER TABLE t ADD c int NULL")
        .ok();
    assert_eq!(
        a.run("SELECT COUNT(*) FROM sys.tables WHERE name IN ('n', 't')")
            .int(),
        2
    );
    assert_eq!(
        a.run("SELECT COUNT(*) FROM sys.columns WHERE object_id = OBJECT_ID('t')")
            .int(),
        3
    );
    b.blocks("SELECT COUNT(*) FROM sys.columns WHERE object_id = OBJECT_ID('t')");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().int(), 3);
}

#[test]
fn metadata_functions_wait_for_uncommitted_ddl() {
    let (_d, _e, a, b) = setup("cv-functions");
    // OBJECT_ID of a view another transaction is creating
    a.run("BEGIN TRAN; EXEC('CREATE VIEW v AS SELECT id FROM t')")
        .ok();
    b.blocks("SELECT CASE WHEN OBJECT_ID('v') IS NULL THEN 0 ELSE 1 END");
    a.run("ROLLBACK").ok();
    assert_eq!(b.finish().int(), 0);
    a.run("BEGIN TRAN; EXEC('CREATE VIEW v AS SELECT id FROM t')")
        .ok();
    b.blocks("SELECT CASE WHEN OBJECT_ID('v', 'V') IS NULL THEN 0 ELSE 1 END");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().int(), 1);
    // OBJECT_NAME of a view being dropped; then a query naming it
    let id = b.run("SELECT OBJECT_ID('v')").int();
    a.run("BEGIN TRAN; DROP VIEW v").ok();
    b.blocks(&format!("SELECT OBJECT_NAME({id})"));
    a.run("ROLLBACK").ok();
    assert_eq!(text(&b.finish()), "v");
    a.run("BEGIN TRAN; DROP VIEW v").ok();
    b.blocks("SELECT COUNT(*) FROM v");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().error(), 208);
    // a procedure being created: its EXEC waits, then runs it
    a.run("BEGIN TRAN; EXEC('CREATE PROCEDURE p AS SELECT 7')")
        .ok();
    b.blocks("EXEC p");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().int(), 7);
}

/// Msg 3961 compares the table's last *committed* DDL with the snapshot's start: a DDL begun
/// before the snapshot and committed after it counts; a rolled-back one does not.
#[test]
fn ddl_committed_after_a_snapshot_began_is_3961() {
    let (_d, _e, a, b) = snap_setup("cv-3961");
    a.run("CREATE TABLE other (x int)").ok();
    level(&b, "SNAPSHOT");
    a.run("BEGIN TRAN; ALTER TABLE t ADD c int NULL").ok();
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM other").int(), 0);
    a.run("COMMIT").ok();
    let out = b.run("SELECT COUNT(*) FROM t");
    assert_eq!(
        out.error(),
        3961,
        "the ALTER began before the snapshot, committed after"
    );
    assert_eq!(b.run("SELECT @@TRANCOUNT").int(), 0);
    // rolled back: not a change
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM other").int(), 0);
    a.run("BEGIN TRAN; ALTER TABLE t ADD d int NULL; ROLLBACK")
        .ok();
    assert_eq!(b.run("SELECT COUNT(*) FROM t").int(), 2);
    b.run("COMMIT").ok();
    // begun after the snapshot and still open: the snapshot reader waits on its Sch-M, then
    // fails once it commits
    assert_eq!(b.run("BEGIN TRAN; SELECT COUNT(*) FROM other").int(), 0);
    a.run("BEGIN TRAN; ALTER TABLE t ADD e int NULL").ok();
    b.blocks("SELECT COUNT(*) FROM t");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().error(), 3961);
}

#[test]
fn ddl_inside_a_snapshot_transaction_is_3964() {
    let (_d, _e, _a, b) = snap_setup("cv-3964");
    level(&b, "SNAPSHOT");
    for ddl in [
        "ALTER TABLE t ADD c int NULL",
        "CREATE INDEX ix_v ON t (v)",
        "ALTER INDEX ALL ON t REBUILD",
    ] {
        let out = b.run(&format!(
            "BEGIN TRAN; SELECT COUNT(*) FROM t; {ddl}; SELECT 'not reached'"
        ));
        assert_eq!(out.error(), 3964, "{ddl}");
        assert_eq!(
            out.errors[0].1,
            "Transaction failed because this DDL statement is not allowed inside a snapshot isolation transaction. Since metadata is not versioned, a metadata change can lead to inconsistency if mixed within snapshot isolation."
        );
        assert_eq!(b.run("SELECT @@TRANCOUNT").int(), 0, "{ddl}: rolled back");
    }
    b.run("CREATE INDEX ix_v ON t (v)").ok();
    let out = b.run("BEGIN TRAN; DROP INDEX ix_v ON t");
    assert_eq!(out.error(), 3964);
    // autocommit DDL and CREATE TABLE inside the transaction are allowed
    b.run("ALTER TABLE t ADD c int NULL").ok();
    b.run("BEGIN TRAN; CREATE TABLE n (x int); COMMIT").ok();
    assert_eq!(
        b.run("SELECT COUNT(*) FROM sys.columns WHERE object_id = OBJECT_ID('t')")
            .int(),
        3
    );
}

/// `#temp` tables and table variables belong to one session: creating and dropping them does
/// not recompile another session's cached plans (their usecounts go on).
#[test]
fn temp_objects_do_not_recompile_other_sessions_plans() {
    let (_d, _e, a, b) = setup("cv-temp");
    b.run("CREATE TABLE #mine (x int); INSERT #mine VALUES (1), (2)")
        .ok();
    let permanent = "SELECT COUNT(*) FROM t WHERE v > 0";
    let own_temp = "SELECT COUNT(*) FROM #mine WHERE x > 0";
    let escaped = |sql: &str| sql.replace('\'', "''");
    let uses = |sql: &str| {
        b.run(&format!(
            "SELECT cp.usecounts FROM sys.dm_exec_cached_plans cp CROSS APPLY sys.dm_exec_sql_text(cp.plan_handle) st WHERE st.text = N'{}'",
            escaped(sql)
        ))
        .int()
    };
    // a compile under a new schema state counts here (plan_stats.rs)
    let generation = |sql: &str| {
        b.run(&format!(
            "SELECT qs.plan_generation_num FROM sys.dm_exec_query_stats qs CROSS APPLY sys.dm_exec_sql_text(qs.sql_handle) st WHERE st.text = N'{}'",
            escaped(sql)
        ))
        .int()
    };
    for _ in 0..2 {
        assert_eq!(b.run(permanent).int(), 2);
        assert_eq!(b.run(own_temp).int(), 2);
    }
    assert_eq!(uses(permanent), 2);
    assert_eq!(uses(own_temp), 2);
    assert_eq!(generation(permanent), 1);
    assert_eq!(generation(own_temp), 1);
    a.run("CREATE TABLE #a (x int); INSERT #a VALUES (1); DROP TABLE #a")
        .ok();
    a.run("DECLARE @tv TABLE (x int); INSERT @tv VALUES (1); SELECT COUNT(*) FROM @tv")
        .ok();
    a.run("SELECT x INTO #b FROM (VALUES (1)) v (x); CREATE STATISTICS s ON #b (x); DROP TABLE #b")
        .ok();
    assert_eq!(b.run(permanent).int(), 2);
    assert_eq!(b.run(own_temp).int(), 2);
    assert_eq!(uses(permanent), 3);
    assert_eq!(uses(own_temp), 3);
    assert_eq!(
        generation(permanent),
        1,
        "not recompiled by A's #temp tables"
    );
    assert_eq!(
        generation(own_temp),
        1,
        "not recompiled by A's #temp tables"
    );
    // a ##global table is everyone's: its creation does recompile
    a.run("CREATE TABLE ##g (x int)").ok();
    assert_eq!(b.run(own_temp).int(), 2);
    assert_eq!(generation(own_temp), 2, "recompiled after a ##global table");
    // B's own #temp DDL still re-binds its plans
    b.run("DROP TABLE #mine; CREATE TABLE #mine (x int, y int); INSERT #mine VALUES (1, 1)")
        .ok();
    assert_eq!(b.run(own_temp).int(), 1);
}
