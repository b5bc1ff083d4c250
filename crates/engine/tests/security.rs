//! Logins, users, permissions and authentication (engine README "Security").

mod support;

use engine::{CollectSink, Engine, EngineConfig, LoginFailureReason, SaProvisioning, Session};
use support::{run, TempDir};
use types::Value;

fn open(dir: &TempDir) -> std::sync::Arc<Engine> {
    Engine::open(dir.path(), EngineConfig::default()).expect("open")
}

/// Runs a batch and returns its errors as (number, message).
fn errors(s: &mut Session, sql: &str) -> Vec<(i32, String)> {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink.errors()
        .iter()
        .map(|e| (e.number, e.message.clone()))
        .collect()
}

/// A session logged in as `login` (through the authentication API, as a server does).
fn login_session(engine: &std::sync::Arc<Engine>, login: &str, password: &str) -> Session {
    let auth = engine.authenticate(login, password).expect("login");
    Session::for_login(engine.clone(), &auth).expect("default database")
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i as i64,
        Value::BigInt(i) => *i,
        Value::SmallInt(i) => *i as i64,
        Value::TinyInt(i) => *i as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

#[test]
fn authenticate_reports_reason_but_client_sees_only_18456() {
    let dir = TempDir::new("sec-auth");
    let engine = open(&dir);
    let mut admin = Session::new(engine.clone());
    run(
        &mut admin,
        "CREATE LOGIN app WITH PASSWORD = 'Str0ng!Passw0rd', CHECK_POLICY = ON",
    );
    let ok = engine
        .authenticate("APP", "Str0ng!Passw0rd")
        .expect("valid");
    assert_eq!(ok.name, "app");
    assert!(!ok.sysadmin);
    assert_eq!(ok.sid.len(), 16);

    let wrong = engine.authenticate("app", "nope").unwrap_err();
    assert_eq!(wrong.reason, LoginFailureReason::WrongPassword);
    let missing = engine.authenticate("ghost", "x").unwrap_err();
    assert_eq!(missing.reason, LoginFailureReason::NoSuchLogin);
    for f in [&wrong, &missing] {
        assert_eq!(
            (f.error.number, f.error.severity, f.error.state),
            (18456, 14, 1)
        );
        assert_eq!(
            f.error.message,
            format!("Login failed for user '{}'.", f.login)
        );
    }
    assert!(wrong.log_text().contains("Password did not match"));

    run(&mut admin, "ALTER LOGIN app DISABLE");
    let disabled = engine.authenticate("app", "Str0ng!Passw0rd").unwrap_err();
    assert_eq!(disabled.reason, LoginFailureReason::Disabled);
    run(&mut admin, "ALTER LOGIN app ENABLE");
    assert!(engine.authenticate("app", "Str0ng!Passw0rd").is_ok());
}

#[test]
fn sa_has_no_password_until_provisioned_and_weak_passwords_are_refused() {
    let dir = TempDir::new("sec-sa");
    let engine = open(&dir);
    let f = engine.authenticate("sa", "").unwrap_err();
    assert_eq!(f.reason, LoginFailureReason::NoPassword);
    let weak = engine.provision_sa(Some("short")).unwrap_err();
    assert_eq!(weak.number, 33062);
    let simple = engine.provision_sa(Some("alllowercase")).unwrap_err();
    assert_eq!(simple.number, 33064);
    assert!(engine.provision_sa(None).is_err());
    assert_eq!(
        engine.provision_sa(Some("Y0ur!Strong")).unwrap(),
        SaProvisioning::PasswordSet
    );
    // later starts keep the first password
    assert_eq!(
        engine.provision_sa(Some("0ther!Strong")).unwrap(),
        SaProvisioning::AlreadySet
    );
    let sa = engine.authenticate("sa", "Y0ur!Strong").expect("sa");
    assert!(sa.sysadmin);
    drop(engine);
    let engine = open(&dir);
    assert!(engine.authenticate("sa", "Y0ur!Strong").is_ok());
}

#[test]
fn login_ddl_errors_and_views() {
    let dir = TempDir::new("sec-ddl");
    let engine = open(&dir);
    let mut s = Session::new(engine.clone());
    run(&mut s, "CREATE LOGIN l1 WITH PASSWORD = 'Abcdefg1!'");
    assert_eq!(
        errors(&mut s, "CREATE LOGIN L1 WITH PASSWORD = 'Abcdefg1!'"),
        vec![(15025, "The server principal 'L1' already exists.".into())]
    );
    assert_eq!(
        errors(&mut s, "CREATE LOGIN l2 WITH PASSWORD = 'abc'")[0].0,
        33062
    );
    // CHECK_POLICY = OFF accepts a weak password
    run(
        &mut s,
        "CREATE LOGIN l2 WITH PASSWORD = 'abc', CHECK_POLICY = OFF, DEFAULT_DATABASE = master",
    );
    assert_eq!(
        errors(&mut s, "DROP LOGIN nobody"),
        vec![(
            15151,
            "Cannot drop the login 'nobody', because it does not exist or you do not have permission.".into()
        )]
    );
    assert_eq!(errors(&mut s, "DROP LOGIN sa")[0].0, 15405);
    assert_eq!(errors(&mut s, "CREATE LOGIN w FROM WINDOWS")[0].0, 40517);
    let rows = run(
        &mut s,
        "SELECT name, type, is_disabled FROM sys.server_principals WHERE type = 'S' ORDER BY principal_id",
    );
    let names: Vec<String> = rows
        .iter()
        .map(|r| match &r[0] {
            Value::NVarChar(n) => n.clone(),
            v => panic!("{v:?}"),
        })
        .collect();
    assert_eq!(names, ["sa", "l1", "l2"]);
    // the stored hash is SQL Server's: PWDCOMPARE agrees, LOGINPROPERTY shows it
    let rows = run(
        &mut s,
        "SELECT PWDCOMPARE('Abcdefg1!', password_hash), PWDCOMPARE('x', password_hash), DATALENGTH(password_hash) FROM sys.sql_logins WHERE name = 'l1'",
    );
    assert_eq!(
        (int(&rows[0][0]), int(&rows[0][1]), int(&rows[0][2])),
        (1, 0, 70)
    );
    let rows = run(&mut s, "SELECT LOGINPROPERTY('l1', 'PasswordHashAlgorithm'), SUSER_ID('l1'), IS_SRVROLEMEMBER('sysadmin', 'l1')");
    assert_eq!(rows[0][0], Value::NVarChar("2".into()));
    assert!(int(&rows[0][1]) >= 256);
    assert_eq!(int(&rows[0][2]), 0);
    run(&mut s, "ALTER SERVER ROLE sysadmin ADD MEMBER l1");
    let rows = run(&mut s, "SELECT IS_SRVROLEMEMBER('sysadmin', 'l1')");
    assert_eq!(int(&rows[0][0]), 1);
    assert!(engine.authenticate("l1", "Abcdefg1!").unwrap().sysadmin);
    run(&mut s, "ALTER LOGIN l2 WITH NAME = l3");
    assert!(engine.authenticate("l3", "abc").is_ok());
    run(&mut s, "DROP LOGIN l3");
    assert!(engine.authenticate("l3", "abc").is_err());
    // a rolled-back CREATE LOGIN leaves nothing behind
    run(
        &mut s,
        "BEGIN TRAN; CREATE LOGIN tx WITH PASSWORD = 'Abcdefg1!'; ROLLBACK",
    );
    assert!(engine.authenticate("tx", "Abcdefg1!").is_err());
}

#[test]
fn logins_users_and_grants_survive_restart() {
    let dir = TempDir::new("sec-restart");
    {
        let engine = open(&dir);
        let mut s = Session::new(engine.clone());
        run(
            &mut s,
            "CREATE DATABASE shop; CREATE LOGIN clerk WITH PASSWORD = 'Cl3rk!pass'",
        );
        run(
            &mut s,
            "USE shop; CREATE TABLE dbo.t (id int); CREATE USER clerk FOR LOGIN clerk; GRANT SELECT ON dbo.t TO clerk",
        );
    }
    let engine = open(&dir);
    assert!(engine.authenticate("clerk", "Cl3rk!pass").is_ok());
    let mut s = Session::new(engine.clone());
    let rows = run(
        &mut s,
        "USE shop; SELECT p.permission_name, p.state_desc, u.name FROM sys.database_permissions p JOIN sys.database_principals u ON u.principal_id = p.grantee_principal_id",
    );
    assert_eq!(
        rows,
        vec![vec![
            Value::NVarChar("SELECT".into()),
            Value::NVarChar("GRANT".into()),
            Value::NVarChar("clerk".into())
        ]]
    );
}

/// Setup shared by the enforcement tests: database `shop` with a table, a login `clerk`
/// mapped to user `clerk`.
fn shop(dir: &TempDir) -> (std::sync::Arc<Engine>, Session) {
    let engine = open(dir);
    let mut admin = Session::new(engine.clone());
    run(
        &mut admin,
        "CREATE DATABASE shop; CREATE LOGIN clerk WITH PASSWORD = 'Cl3rk!pass', DEFAULT_DATABASE = shop",
    );
    run(
        &mut admin,
        "USE shop; CREATE TABLE dbo.orders (id int, amount int); INSERT dbo.orders VALUES (1, 10); CREATE USER clerk FOR LOGIN clerk",
    );
    (engine, admin)
}

#[test]
fn denied_then_granted() {
    let dir = TempDir::new("sec-grant");
    let (engine, mut admin) = shop(&dir);
    let mut clerk = login_session(&engine, "clerk", "Cl3rk!pass");
    assert_eq!(clerk.database(), "shop");
    assert_eq!(
        errors(&mut clerk, "SELECT id FROM dbo.orders"),
        vec![(
            229,
            "The SELECT permission was denied on the object 'orders', database 'shop', schema 'dbo'.".into()
        )]
    );
    assert_eq!(
        errors(&mut clerk, "INSERT dbo.orders VALUES (2, 20)")[0].0,
        229
    );
    run(&mut admin, "GRANT SELECT ON OBJECT::dbo.orders TO clerk");
    assert_eq!(run(&mut clerk, "SELECT id FROM dbo.orders").len(), 1);
    // the grant is for SELECT only
    let e = errors(&mut clerk, "UPDATE dbo.orders SET amount = 0");
    assert_eq!(
        e[0].1,
        "The UPDATE permission was denied on the object 'orders', database 'shop', schema 'dbo'."
    );
    // schema-level grant covers every object of the schema
    run(&mut admin, "GRANT INSERT ON SCHEMA::dbo TO clerk");
    run(&mut clerk, "INSERT dbo.orders VALUES (2, 20)");
    run(&mut admin, "REVOKE SELECT ON dbo.orders FROM clerk");
    assert_eq!(errors(&mut clerk, "SELECT id FROM dbo.orders")[0].0, 229);
    // security DDL needs sysadmin / dbo
    assert_eq!(
        errors(&mut clerk, "CREATE LOGIN x WITH PASSWORD = 'Abcdefg1!'"),
        vec![(
            15247,
            "User does not have permission to perform this action.".into()
        )]
    );
    assert_eq!(
        errors(&mut clerk, "GRANT SELECT ON dbo.orders TO clerk")[0].0,
        15247
    );
    assert_eq!(
        errors(&mut clerk, "CREATE TABLE t2 (a int)"),
        vec![(
            262,
            "CREATE TABLE permission denied in database 'shop'.".into()
        )]
    );
    assert_eq!(errors(&mut clerk, "SELECT 1 AS a INTO dbo.t3")[0].0, 262);
    // temp tables need no permission; CREATE TABLE can be granted
    run(&mut clerk, "SELECT 1 AS a INTO #t; CREATE TABLE #u (a int)");
    run(&mut admin, "GRANT CREATE TABLE TO clerk");
    run(&mut clerk, "SELECT 1 AS a INTO dbo.t3");
    let rows = run(
        &mut clerk,
        "SELECT USER_NAME(), SUSER_SNAME(), IS_MEMBER('db_owner'), HAS_PERMS_BY_NAME('dbo.orders', 'OBJECT', 'INSERT'), HAS_PERMS_BY_NAME('dbo.orders', 'OBJECT', 'DELETE')",
    );
    assert_eq!(rows[0][0], Value::NVarChar("clerk".into()));
    assert_eq!(rows[0][1], Value::NVarChar("clerk".into()));
    assert_eq!(int(&rows[0][2]), 0);
    assert_eq!(int(&rows[0][3]), 1);
    assert_eq!(int(&rows[0][4]), 0);
}

#[test]
fn deny_beats_grant_and_roles() {
    let dir = TempDir::new("sec-deny");
    let (engine, mut admin) = shop(&dir);
    run(
        &mut admin,
        "CREATE ROLE readers; ALTER ROLE readers ADD MEMBER clerk; GRANT SELECT ON dbo.orders TO readers",
    );
    let mut clerk = login_session(&engine, "clerk", "Cl3rk!pass");
    assert_eq!(run(&mut clerk, "SELECT id FROM dbo.orders").len(), 1);
    run(&mut admin, "DENY SELECT ON dbo.orders TO clerk");
    assert_eq!(errors(&mut clerk, "SELECT id FROM dbo.orders")[0].0, 229);
    run(&mut admin, "REVOKE SELECT ON dbo.orders FROM clerk");
    assert_eq!(run(&mut clerk, "SELECT id FROM dbo.orders").len(), 1);
    // fixed roles
    run(&mut admin, "ALTER ROLE readers DROP MEMBER clerk");
    assert_eq!(errors(&mut clerk, "SELECT id FROM dbo.orders")[0].0, 229);
    run(&mut admin, "ALTER ROLE db_datareader ADD MEMBER clerk");
    assert_eq!(run(&mut clerk, "SELECT id FROM dbo.orders").len(), 1);
    run(&mut admin, "DENY SELECT ON SCHEMA::dbo TO clerk");
    assert_eq!(errors(&mut clerk, "SELECT id FROM dbo.orders")[0].0, 229);
    let rows = run(
        &mut admin,
        "SELECT r.name FROM sys.database_role_members m JOIN sys.database_principals r ON r.principal_id = m.role_principal_id JOIN sys.database_principals u ON u.principal_id = m.member_principal_id WHERE u.name = 'clerk'",
    );
    assert_eq!(rows, vec![vec![Value::NVarChar("db_datareader".into())]]);
    // principal errors
    assert_eq!(errors(&mut admin, "DROP ROLE readers"), vec![]);
    assert_eq!(
        errors(&mut admin, "CREATE USER clerk2 FOR LOGIN nobody")[0].0,
        15007
    );
    assert_eq!(
        errors(&mut admin, "CREATE USER clerk2 FOR LOGIN clerk")[0].0,
        15063
    );
    assert_eq!(errors(&mut admin, "CREATE USER clerk")[0].0, 15023);
    assert_eq!(
        errors(&mut admin, "GRANT SELECT ON dbo.orders TO dbo")[0].0,
        4624
    );
    assert_eq!(
        errors(&mut admin, "GRANT SELECT ON dbo.nothing TO clerk")[0].0,
        15151
    );
    assert_eq!(
        errors(&mut admin, "GRANT SELECT ON dbo.orders TO nobody")[0].0,
        15151
    );
    assert_eq!(
        errors(&mut admin, "GRANT SELECT ON dbo.orders (id) TO clerk")[0].0,
        40517
    );
    assert_eq!(errors(&mut admin, "DROP USER nobody")[0].0, 15151);
    run(&mut admin, "DROP USER IF EXISTS nobody");
}

#[test]
fn ownership_chaining_through_procedures_and_views() {
    let dir = TempDir::new("sec-chain");
    let (engine, mut admin) = shop(&dir);
    run(
        &mut admin,
        "CREATE PROCEDURE dbo.order_count AS SELECT COUNT(*) FROM dbo.orders",
    );
    run(
        &mut admin,
        "CREATE VIEW dbo.big_orders AS SELECT id FROM dbo.orders WHERE amount > 5",
    );
    run(
        &mut admin,
        "CREATE PROCEDURE dbo.dyn AS EXEC ('SELECT COUNT(*) FROM dbo.orders')",
    );
    let mut clerk = login_session(&engine, "clerk", "Cl3rk!pass");
    assert_eq!(
        errors(&mut clerk, "EXEC dbo.order_count")[0].1,
        "The EXECUTE permission was denied on the object 'order_count', database 'shop', schema 'dbo'."
    );
    run(&mut admin, "GRANT EXECUTE ON dbo.order_count TO clerk");
    // the procedure reads dbo.orders though clerk may not: same owner, no check
    let rows = run(&mut clerk, "EXEC dbo.order_count");
    assert_eq!(int(&rows[0][0]), 1);
    assert_eq!(errors(&mut clerk, "SELECT id FROM dbo.orders")[0].0, 229);
    // a view: SELECT on the view suffices
    assert_eq!(
        errors(&mut clerk, "SELECT id FROM dbo.big_orders")[0].0,
        229
    );
    run(&mut admin, "GRANT SELECT ON dbo.big_orders TO clerk");
    assert_eq!(run(&mut clerk, "SELECT id FROM dbo.big_orders").len(), 1);
    // a procedure in a schema owned by someone else breaks the chain to dbo's table
    run(
        &mut admin,
        "CREATE USER boss WITHOUT LOGIN; EXEC ('CREATE SCHEMA boss AUTHORIZATION boss'); EXEC ('CREATE PROCEDURE boss.order_count AS SELECT COUNT(*) FROM dbo.orders'); GRANT EXECUTE ON boss.order_count TO clerk",
    );
    assert_eq!(
        errors(&mut clerk, "EXEC boss.order_count")[0].1,
        "The SELECT permission was denied on the object 'orders', database 'shop', schema 'dbo'."
    );
    // dynamic SQL breaks the chain
    run(&mut admin, "GRANT EXECUTE ON dbo.dyn TO clerk");
    assert_eq!(errors(&mut clerk, "EXEC dbo.dyn")[0].0, 229);
    // a trigger writes to a table the session may not touch: same owner, no check
    run(
        &mut admin,
        "CREATE TABLE dbo.audit (n int); EXEC ('CREATE TRIGGER dbo.orders_audit ON dbo.orders AFTER INSERT AS INSERT dbo.audit SELECT id FROM inserted')",
    );
    run(&mut admin, "GRANT INSERT ON dbo.orders TO clerk");
    run(&mut clerk, "INSERT dbo.orders VALUES (7, 70)");
    assert_eq!(
        run(&mut admin, "SELECT n FROM dbo.audit"),
        vec![vec![Value::Int(7)]]
    );
    assert_eq!(errors(&mut clerk, "INSERT dbo.audit VALUES (8)")[0].0, 229);
    // INSERT ... EXEC checks the target too
    assert_eq!(
        errors(&mut clerk, "INSERT dbo.audit EXEC dbo.order_count")[0].0,
        229
    );
}

#[test]
fn login_without_user_cannot_use_database() {
    let dir = TempDir::new("sec-916");
    let (engine, mut admin) = shop(&dir);
    run(
        &mut admin,
        "CREATE LOGIN visitor WITH PASSWORD = 'V1sitor!pw'",
    );
    let mut visitor = login_session(&engine, "visitor", "V1sitor!pw");
    assert_eq!(visitor.database(), "master");
    assert_eq!(
        errors(&mut visitor, "USE shop"),
        vec![(
            916,
            "The server principal \"visitor\" is not able to access the database \"shop\" under the current security context.".into()
        )]
    );
    // in master the login is guest
    let rows = run(&mut visitor, "SELECT USER_NAME()");
    assert_eq!(rows[0][0], Value::NVarChar("guest".into()));
    // a user's own password change needs the old password
    assert_eq!(
        errors(
            &mut visitor,
            "ALTER LOGIN visitor WITH PASSWORD = 'N3w!passw' OLD_PASSWORD = 'wrong'"
        )[0]
        .0,
        15151
    );
    run(
        &mut visitor,
        "ALTER LOGIN visitor WITH PASSWORD = 'N3w!passw' OLD_PASSWORD = 'V1sitor!pw'",
    );
    assert!(engine.authenticate("visitor", "N3w!passw").is_ok());
    // a logged-in login cannot be dropped
    assert_eq!(errors(&mut admin, "DROP LOGIN visitor")[0].0, 15434);
}

/// KILL needs sysadmin (SQL Server: ALTER ANY CONNECTION): a plain login gets Msg 6102 and the
/// target session is untouched; sysadmin may kill it.
#[test]
fn kill_needs_sysadmin() {
    let dir = TempDir::new("security-kill");
    let engine = open(&dir);
    let mut admin = Session::new(engine.clone());
    run(
        &mut admin,
        "CREATE LOGIN plain WITH PASSWORD = 'Plain!Passw0rd', CHECK_POLICY = OFF",
    );
    let mut plain = login_session(&engine, "plain", "Plain!Passw0rd");
    let victim = Session::new(engine.clone());
    let denied = errors(&mut plain, &format!("KILL {}", victim.spid()));
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(denied[0].0, 6102, "{denied:?}");
    assert!(errors(&mut admin, &format!("KILL {}", victim.spid())).is_empty());
}
