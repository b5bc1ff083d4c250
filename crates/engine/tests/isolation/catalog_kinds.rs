//! Catalog visibility of the entries that are not objects (engine README "Catalog
//! visibility"): schemas, user-defined types, users and permissions, statistics; and the
//! table a DML trigger is created on. SQL Server X-locks those catalog rows for the creating
//! transaction: another session under READ COMMITTED waits (Msg 1222 under `SET
//! LOCK_TIMEOUT`), `NOLOCK` sees the uncommitted rows, a commit shows them and a rollback
//! leaves nothing. A catalog view waits only for the kinds of entries it shows.

use std::sync::Arc;

use super::{setup, Actor, Outcome};

/// B's `probe` (an integer) while A's transaction has run `ddl`: 1222 under a lock timeout,
/// `nolock` (the probe hinted NOLOCK, if any) reads `after` at once; B waits and reads
/// `before` after A's rollback and `after` after A's commit of the same DDL.
fn gap(
    a: &Actor,
    b: &Actor,
    ddl: &str,
    probe: &str,
    nolock: Option<&str>,
    before: i64,
    after: i64,
) {
    a.run(&format!("BEGIN TRAN; {ddl}")).ok();
    let timed_out = b.run(&format!("SET LOCK_TIMEOUT 200; {probe}"));
    assert_eq!(timed_out.error(), 1222, "`{probe}` during `{ddl}`");
    b.run("SET LOCK_TIMEOUT -1").ok();
    if let Some(n) = nolock {
        assert_eq!(
            b.run(n).int(),
            after,
            "NOLOCK sees `{ddl}` uncommitted: {n}"
        );
    }
    b.blocks(probe);
    a.run("ROLLBACK").ok();
    assert_eq!(
        b.finish().int(),
        before,
        "after the rollback of `{ddl}`: {probe}"
    );
    a.run(&format!("BEGIN TRAN; {ddl}")).ok();
    b.blocks(probe);
    a.run("COMMIT").ok();
    assert_eq!(
        b.finish().int(),
        after,
        "after the commit of `{ddl}`: {probe}"
    );
}

fn count_is(o: &Outcome, n: i64) {
    assert_eq!(o.int(), n, "{o:?}");
}

#[test]
fn an_uncommitted_schema_is_waited_for() {
    let (_d, _e, a, b) = setup("ck-schema");
    gap(
        &a,
        &b,
        "EXEC('CREATE SCHEMA s1')",
        "SELECT COUNT(*) FROM sys.schemas WHERE name = 's1'",
        Some("SELECT COUNT(*) FROM sys.schemas WITH (NOLOCK) WHERE name = 's1'"),
        0,
        1,
    );
    // creating an object in a schema another transaction is creating waits for it, then
    // fails after its rollback
    a.run("BEGIN TRAN; EXEC('CREATE SCHEMA s2')").ok();
    // the schema's lock shows as SQL Server's METADATA resource
    count_is(
        &b.run("SELECT COUNT(*) FROM sys.dm_tran_locks WHERE resource_type = 'METADATA' AND resource_subtype = 'SCHEMA' AND request_mode = 'Sch-M' AND resource_description LIKE 'schema_id = %'"),
        1,
    );
    b.blocks("CREATE TABLE s2.x (i int)");
    a.run("ROLLBACK").ok();
    assert_eq!(b.finish().error(), 2760);
    // SCHEMA_ID reads committed too
    a.run("BEGIN TRAN; EXEC('CREATE SCHEMA s2')").ok();
    b.blocks("SELECT CASE WHEN SCHEMA_ID('s2') IS NULL THEN 0 ELSE 1 END");
    a.run("COMMIT").ok();
    count_is(&b.finish(), 1);
    // a dropped schema: waited for, back after the rollback
    gap(
        &a,
        &b,
        "DROP SCHEMA s1",
        "SELECT COUNT(*) FROM sys.schemas WHERE name = 's1'",
        Some("SELECT COUNT(*) FROM sys.schemas WITH (NOLOCK) WHERE name = 's1'"),
        1,
        0,
    );
}

#[test]
fn an_uncommitted_type_is_waited_for() {
    let (_d, _e, a, b) = setup("ck-type");
    gap(
        &a,
        &b,
        "CREATE TYPE ssn FROM varchar(11) NOT NULL",
        "SELECT COUNT(*) FROM sys.types WHERE name = 'ssn'",
        Some("SELECT COUNT(*) FROM sys.types WITH (NOLOCK) WHERE name = 'ssn'"),
        0,
        1,
    );
    // a variable of a type another transaction is dropping waits, then fails after the commit
    a.run("BEGIN TRAN; DROP TYPE ssn").ok();
    b.blocks("DECLARE @x ssn = '123'; SELECT LEN(@x)");
    a.run("ROLLBACK").ok();
    count_is(&b.finish(), 3);
    a.run("BEGIN TRAN; DROP TYPE ssn").ok();
    b.blocks("DECLARE @x ssn = '123'; SELECT LEN(@x)");
    a.run("COMMIT").ok();
    assert!(!b.finish().errors.is_empty(), "the type is gone");
}

#[test]
fn an_uncommitted_user_is_waited_for() {
    let (_d, _e, a, b) = setup("ck-user");
    gap(
        &a,
        &b,
        "CREATE USER u1 WITHOUT LOGIN",
        "SELECT COUNT(*) FROM sys.database_principals WHERE name = 'u1'",
        Some("SELECT COUNT(*) FROM sys.database_principals WITH (NOLOCK) WHERE name = 'u1'"),
        0,
        1,
    );
    gap(
        &a,
        &b,
        "GRANT SELECT ON t TO u1",
        "SELECT COUNT(*) FROM sys.database_permissions WHERE grantee_principal_id = USER_ID('u1')",
        None,
        0,
        1,
    );
}

/// A GRANT gives nothing to another session before its commit; a rolled-back REVOKE or DENY
/// takes nothing away.
#[test]
fn uncommitted_permissions_are_not_used_by_other_sessions() {
    let (_d, e, a, _b) = setup("ck-grant");
    a.run(
        "CREATE LOGIN clerk WITH PASSWORD = 'Cl3rk!pass', CHECK_POLICY = OFF; CREATE USER clerk FOR LOGIN clerk",
    )
    .ok();
    let clerk = Actor::with_session("clerk", &e, |engine: Arc<engine::Engine>| {
        let auth = engine.authenticate("clerk", "Cl3rk!pass").expect("login");
        engine::Session::for_login(engine, &auth).expect("session")
    });
    let read = "SELECT COUNT(*) FROM t";
    assert_eq!(clerk.run(read).error(), 229);
    // GRANT: waited for; nothing after its rollback, the rows after its commit
    a.run("BEGIN TRAN; GRANT SELECT ON t TO clerk").ok();
    let timed_out = clerk.run(&format!("SET LOCK_TIMEOUT 200; {read}"));
    assert_eq!(timed_out.error(), 1222);
    clerk.run("SET LOCK_TIMEOUT -1").ok();
    clerk.blocks(read);
    a.run("ROLLBACK").ok();
    assert_eq!(clerk.finish().error(), 229);
    a.run("BEGIN TRAN; GRANT SELECT ON t TO clerk").ok();
    clerk.blocks(read);
    a.run("COMMIT").ok();
    count_is(&clerk.finish(), 2);
    // REVOKE and DENY rolled back: the permission is back
    for ddl in ["REVOKE SELECT ON t FROM clerk", "DENY SELECT ON t TO clerk"] {
        a.run(&format!("BEGIN TRAN; {ddl}")).ok();
        let timed_out = clerk.run(&format!("SET LOCK_TIMEOUT 200; {read}"));
        assert_eq!(timed_out.error(), 1222, "{ddl}");
        clerk.run("SET LOCK_TIMEOUT -1").ok();
        clerk.blocks(read);
        a.run("ROLLBACK").ok();
        count_is(&clerk.finish(), 2);
    }
    a.run("BEGIN TRAN; DENY SELECT ON t TO clerk").ok();
    clerk.blocks(read);
    a.run("COMMIT").ok();
    assert_eq!(clerk.finish().error(), 229);
}

/// A login (LOGIN7) reads the logins as committed: it waits for a transaction that created
/// or dropped one, then fails after an uncommitted CREATE LOGIN's rollback and still succeeds
/// after an uncommitted DROP LOGIN's rollback.
#[test]
fn a_login_waits_for_uncommitted_login_changes() {
    let (_d, e, a, _b) = setup("ck-login");
    let login = |pw: &'static str| {
        let (tx, rx) = std::sync::mpsc::channel();
        let e = e.clone();
        std::thread::spawn(move || {
            let _ = tx.send(e.authenticate("newbie", pw).is_ok());
        });
        rx
    };
    let blocks = |rx: &std::sync::mpsc::Receiver<bool>, what: &str| {
        assert!(
            rx.recv_timeout(super::BLOCK_PROBE).is_err(),
            "login did not wait for {what}"
        );
    };
    let create = "CREATE LOGIN newbie WITH PASSWORD = 'N3wbie!pass', CHECK_POLICY = OFF";
    let pw = "N3wbie!pass";
    a.run(&format!("BEGIN TRAN; {create}")).ok();
    let r = login(pw);
    blocks(&r, "an uncommitted CREATE LOGIN");
    a.run("ROLLBACK").ok();
    assert!(!r.recv_timeout(super::COMPLETE).expect("login ended"));
    a.run(&format!("BEGIN TRAN; {create}")).ok();
    let r = login(pw);
    blocks(&r, "an uncommitted CREATE LOGIN");
    a.run("COMMIT").ok();
    assert!(r.recv_timeout(super::COMPLETE).expect("login ended"));
    a.run("BEGIN TRAN; DROP LOGIN newbie").ok();
    let r = login(pw);
    blocks(&r, "an uncommitted DROP LOGIN");
    a.run("ROLLBACK").ok();
    assert!(r.recv_timeout(super::COMPLETE).expect("login ended"));
    // ALTER LOGIN's new password counts only once committed
    a.run("BEGIN TRAN; ALTER LOGIN newbie WITH PASSWORD = 'Chang3d!pass'")
        .ok();
    let old = login(pw);
    blocks(&old, "an uncommitted ALTER LOGIN");
    a.run("ROLLBACK").ok();
    assert!(old.recv_timeout(super::COMPLETE).expect("login ended"));
    a.run("BEGIN TRAN; DROP LOGIN newbie").ok();
    let r = login(pw);
    blocks(&r, "an uncommitted DROP LOGIN");
    a.run("COMMIT").ok();
    assert!(!r.recv_timeout(super::COMPLETE).expect("login ended"));
}

#[test]
fn uncommitted_statistics_are_waited_for() {
    let (_d, _e, a, b) = setup("ck-stats");
    gap(
        &a,
        &b,
        "CREATE STATISTICS st_v ON t (v)",
        "SELECT COUNT(*) FROM sys.stats WHERE name = 'st_v'",
        Some("SELECT COUNT(*) FROM sys.stats WITH (NOLOCK) WHERE name = 'st_v'"),
        0,
        1,
    );
    gap(
        &a,
        &b,
        "DROP STATISTICS t.st_v",
        "SELECT COUNT(*) FROM sys.stats WHERE name = 'st_v'",
        None,
        1,
        0,
    );
}

/// SQL Server's CREATE TRIGGER takes Sch-M on its table: another session's INSERT waits for
/// the transaction (1222 under a lock timeout) and fires the trigger only once it committed.
#[test]
fn an_uncommitted_trigger_does_not_fire_for_another_session() {
    let (_d, _e, a, b) = setup("ck-trigger");
    a.run("CREATE TABLE fired (n int)").ok();
    let trigger =
        "EXEC('CREATE TRIGGER trg ON t AFTER INSERT AS INSERT fired SELECT id FROM inserted')";
    a.run(&format!("BEGIN TRAN; {trigger}")).ok();
    let timed_out = b.run("SET LOCK_TIMEOUT 200; INSERT t VALUES (3, 30)");
    assert_eq!(timed_out.error(), 1222);
    b.run("SET LOCK_TIMEOUT -1").ok();
    b.blocks("INSERT t VALUES (3, 30); SELECT COUNT(*) FROM fired");
    a.run("ROLLBACK").ok();
    count_is(&b.finish(), 0);
    a.run(&format!("BEGIN TRAN; {trigger}")).ok();
    b.blocks("INSERT t VALUES (4, 40); SELECT COUNT(*) FROM fired");
    a.run("COMMIT").ok();
    count_is(&b.finish(), 1);
    // DROP TRIGGER likewise: the trigger fires until the drop commits
    a.run("BEGIN TRAN; DROP TRIGGER trg").ok();
    b.blocks("INSERT t VALUES (5, 50); SELECT COUNT(*) FROM fired");
    a.run("ROLLBACK").ok();
    count_is(&b.finish(), 2);
}

/// A catalog view waits only for the kinds of entries it shows.
#[test]
fn a_view_waits_only_for_the_kinds_it_shows() {
    let (_d, _e, a, b) = setup("ck-kinds");
    a.run("BEGIN TRAN; EXEC('CREATE PROCEDURE p AS SELECT 1'); CREATE TYPE ssn FROM varchar(11)")
        .ok();
    count_is(
        &b.run("SELECT COUNT(*) FROM sys.tables WHERE name = 't'"),
        1,
    );
    count_is(&b.run("SELECT COUNT(*) FROM sys.views"), 0);
    count_is(
        &b.run("SELECT COUNT(*) FROM sys.schemas WHERE name = 'dbo'"),
        1,
    );
    count_is(
        &b.run("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 't'"),
        1,
    );
    b.blocks("SELECT COUNT(*) FROM sys.procedures");
    a.run("ROLLBACK").ok();
    count_is(&b.finish(), 0);
    a.run("BEGIN TRAN; CREATE TABLE n (x int)").ok();
    count_is(&b.run("SELECT COUNT(*) FROM sys.procedures"), 0);
    count_is(
        &b.run("SELECT COUNT(*) FROM sys.types WHERE name = 'ssn'"),
        0,
    );
    b.blocks("SELECT COUNT(*) FROM sys.objects WHERE name = 'n'");
    a.run("COMMIT").ok();
    count_is(&b.finish(), 1);
}
