//! Logins, database users and roles, permissions, and authentication (engine README
//! "Security").
//!
//! * Logins live in master's catalog B-tree (`L` rows), users and roles in each database's
//!   (`U` rows), permission rows in one `G` row per database (crates/catalog README). They are
//!   cached in [`DbSecurity`] inside each database's [`DbCatalog`], so they follow the catalog's
//!   transactional rules (dbcat C1/C2): a rolled-back `CREATE LOGIN` is gone.
//! * `sa` (principal 1, sid 0x01) exists from the first start with no password; a server sets
//!   it from `MSSQL_SA_PASSWORD` / `LATCHKEY_SA_PASSWORD` ([`Engine::provision_sa`]), as SQL
//!   Server's container image does at its first start. An embedded engine never needs it.
//! * [`Engine::authenticate`] checks a login and password for a server; a failure carries
//!   the reason for the error log and the client's Msg 18456 (no detail leaked).
//! * A session runs as a login ([`SessionPrincipal`]); the embedded CLI's session is sysadmin.
//!   Permission checks (perms.rs) apply to sessions that are neither sysadmin nor dbo.

pub mod password;
mod perms;
mod stmt;
mod views;

pub(crate) use views::security_view;

use catalog::security::*;
use catalog::serial::{self, ObjectKind};
use common::{SqlError, SqlResult};
use storage::{BTree, Txn};

use crate::dbcat::DbCatalog;
use crate::server::Engine;

/// Principal id and sid of `sa`.
pub const SA_ID: i32 = 1;
pub const SA_SID: &[u8] = &[1];

/// The first principal id given to a created login (SQL Server's are above its fixed roles).
const FIRST_LOGIN_ID: i32 = 256;
/// The first principal id given to a created database user or role.
const FIRST_DB_PRINCIPAL_ID: i32 = 5;

/// Fixed server roles: (principal id, name).
pub const SERVER_ROLES: &[(i32, &str)] = &[
    (2, "public"),
    (3, "sysadmin"),
    (4, "securityadmin"),
    (5, "serveradmin"),
    (6, "setupadmin"),
    (7, "processadmin"),
    (8, "diskadmin"),
    (9, "dbcreator"),
    (10, "bulkadmin"),
];

/// Fixed database principals every database has: (principal id, name, type).
pub const FIXED_DB_PRINCIPALS: &[(i32, &str, &str)] = &[
    (0, "public", "R"),
    (1, "dbo", "S"),
    (2, "guest", "S"),
    (3, "INFORMATION_SCHEMA", "S"),
    (4, "sys", "S"),
    (16384, "db_owner", "R"),
    (16385, "db_accessadmin", "R"),
    (16386, "db_securityadmin", "R"),
    (16387, "db_ddladmin", "R"),
    (16389, "db_backupoperator", "R"),
    (16390, "db_datareader", "R"),
    (16391, "db_datawriter", "R"),
    (16392, "db_denydatareader", "R"),
    (16393, "db_denydatawriter", "R"),
];

pub const DB_OWNER: i32 = 16384;
pub const DB_DATAREADER: i32 = 16390;
pub const DB_DATAWRITER: i32 = 16391;
pub const DB_DENYDATAREADER: i32 = 16392;
pub const DB_DENYDATAWRITER: i32 = 16393;

/// The security metadata of one database (logins only in master).
#[derive(Clone, Debug, Default)]
pub struct DbSecurity {
    pub logins: Vec<LoginDef>,
    pub principals: Vec<DbPrincipalDef>,
    pub permissions: Vec<PermissionDef>,
}

impl DbSecurity {
    /// Loads one catalog row of a security kind ([`DbCatalog::load`]).
    pub(crate) fn load_row(&mut self, kind: ObjectKind, bytes: &[u8]) -> SqlResult<()> {
        match kind {
            ObjectKind::Login => self.logins.push(decode_login(bytes)?),
            ObjectKind::Principal => self.principals.push(decode_principal(bytes)?),
            ObjectKind::Permissions => self.permissions = decode_permissions(bytes)?,
            _ => {}
        }
        Ok(())
    }

    /// A login by name (case-insensitive, like sysname).
    pub fn login(&self, name: &str) -> Option<&LoginDef> {
        self.logins
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(name.trim_end()))
    }

    /// A login by principal id.
    pub fn login_by_id(&self, id: i32) -> Option<&LoginDef> {
        self.logins.iter().find(|l| l.principal_id == id)
    }

    /// A login by sid.
    pub fn login_by_sid(&self, sid: &[u8]) -> Option<&LoginDef> {
        self.logins.iter().find(|l| l.sid == sid)
    }

    /// A created user or role by name.
    pub fn principal(&self, name: &str) -> Option<&DbPrincipalDef> {
        self.principals
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name.trim_end()))
    }

    /// Any database principal's id by name, fixed ones included.
    pub fn principal_id(&self, name: &str) -> Option<i32> {
        let name = name.trim_end();
        FIXED_DB_PRINCIPALS
            .iter()
            .find(|(_, n, _)| n.eq_ignore_ascii_case(name))
            .map(|(id, _, _)| *id)
            .or_else(|| self.principal(name).map(|p| p.principal_id))
    }

    /// Any database principal's name by id.
    pub fn principal_name(&self, id: i32) -> Option<String> {
        FIXED_DB_PRINCIPALS
            .iter()
            .find(|(i, _, _)| *i == id)
            .map(|(_, n, _)| n.to_string())
            .or_else(|| {
                self.principals
                    .iter()
                    .find(|p| p.principal_id == id)
                    .map(|p| p.name.clone())
            })
    }

    /// Is `id` a role (fixed or created)?
    pub fn is_role(&self, id: i32) -> bool {
        FIXED_DB_PRINCIPALS
            .iter()
            .any(|(i, _, t)| *i == id && *t == "R")
            || self
                .principals
                .iter()
                .any(|p| p.principal_id == id && p.kind == DbPrincipalKind::Role)
    }

    /// The user mapped to a login's sid.
    pub fn user_for_sid(&self, sid: &[u8]) -> Option<&DbPrincipalDef> {
        self.principals
            .iter()
            .find(|p| p.kind == DbPrincipalKind::SqlUser && p.sid == sid)
    }

    /// `principal` and every role it belongs to, transitively, plus public (0).
    pub fn closure(&self, principal: i32) -> Vec<i32> {
        let mut out = vec![principal, 0];
        let mut i = 0;
        while i < out.len() {
            let id = out[i];
            if let Some(p) = self.principals.iter().find(|p| p.principal_id == id) {
                for r in &p.roles {
                    if !out.contains(r) {
                        out.push(*r);
                    }
                }
            }
            i += 1;
        }
        out
    }

    fn next_login_id(&self) -> i32 {
        self.logins
            .iter()
            .map(|l| l.principal_id + 1)
            .max()
            .unwrap_or(0)
            .max(FIRST_LOGIN_ID)
    }

    fn next_principal_id(&self) -> i32 {
        self.principals
            .iter()
            .map(|p| p.principal_id + 1)
            .filter(|id| *id < DB_OWNER)
            .max()
            .unwrap_or(0)
            .max(FIRST_DB_PRINCIPAL_ID)
    }
}

impl DbCatalog {
    /// Adds or replaces a login (master only; dbcat C1).
    pub(crate) fn put_login(&mut self, tree: &BTree, txn: &mut Txn, l: LoginDef) -> SqlResult<()> {
        self.generation.bump();
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Login, l.principal_id),
            &encode_login(&l),
        )?;
        self.security
            .logins
            .retain(|x| x.principal_id != l.principal_id);
        self.security.logins.push(l);
        Ok(())
    }

    /// Removes a login (master only).
    pub(crate) fn remove_login(&mut self, tree: &BTree, txn: &mut Txn, id: i32) -> SqlResult<()> {
        self.generation.bump();
        tree.delete(txn, &serial::object_key(ObjectKind::Login, id))?;
        self.security.logins.retain(|x| x.principal_id != id);
        Ok(())
    }

    /// Adds or replaces a database user or role.
    pub(crate) fn put_principal(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        p: DbPrincipalDef,
    ) -> SqlResult<()> {
        self.generation.bump();
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Principal, p.principal_id),
            &encode_principal(&p),
        )?;
        self.security
            .principals
            .retain(|x| x.principal_id != p.principal_id);
        self.security.principals.push(p);
        Ok(())
    }

    /// Removes a database user or role, its memberships and its permission rows.
    pub(crate) fn remove_principal(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        id: i32,
    ) -> SqlResult<()> {
        tree.delete(txn, &serial::object_key(ObjectKind::Principal, id))?;
        self.security.principals.retain(|x| x.principal_id != id);
        let mut perms = self.security.permissions.clone();
        perms.retain(|p| p.grantee != id);
        self.put_permissions(tree, txn, perms)
    }

    /// Sets a schema's owner (`CREATE SCHEMA .. AUTHORIZATION`).
    pub(crate) fn set_schema_owner(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        schema_id: i32,
        owner: i32,
    ) -> SqlResult<()> {
        self.generation.bump();
        if let Some(s) = self.schemas.iter_mut().find(|s| s.schema_id == schema_id) {
            s.principal_id = owner;
            tree.upsert(
                txn,
                &serial::object_key(ObjectKind::Schema, schema_id),
                &serial::encode_schema(s),
            )?;
        }
        Ok(())
    }

    /// Replaces the database's permission rows.
    pub(crate) fn put_permissions(
        &mut self,
        tree: &BTree,
        txn: &mut Txn,
        perms: Vec<PermissionDef>,
    ) -> SqlResult<()> {
        // cached plans were checked against the old permissions (binder `checked`)
        self.generation.bump();
        tree.upsert(
            txn,
            &serial::object_key(ObjectKind::Permissions, 0),
            &encode_permissions(&perms),
        )?;
        self.security.permissions = perms;
        Ok(())
    }
}

/// Who a session is: the login's sid and whether it is sysadmin. The embedded session (the
/// command line, tests) is sysadmin, as the operating-system user is on SQL Server.
#[derive(Clone, Debug)]
pub struct SessionPrincipal {
    pub sid: Vec<u8>,
    pub sysadmin: bool,
    /// Modules being run (innermost last): (database, object id), for ownership chaining.
    pub(crate) chain: Vec<(String, common::ObjectId)>,
}

impl Default for SessionPrincipal {
    fn default() -> Self {
        SessionPrincipal {
            sid: SA_SID.to_vec(),
            sysadmin: true,
            chain: Vec::new(),
        }
    }
}

/// A login that passed [`Engine::authenticate`]: what the server hands to
/// `Session::set_authenticated_login`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthenticatedLogin {
    pub name: String,
    pub principal_id: i32,
    pub sid: Vec<u8>,
    pub sysadmin: bool,
    pub default_database: String,
}

/// Why a login failed: for the server's error log only, never for the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoginFailureReason {
    NoSuchLogin,
    WrongPassword,
    Disabled,
    /// sa before a password was provisioned.
    NoPassword,
    MustChangePassword,
}

/// A failed login: the reason (error log) and the client's error (always Msg 18456, Level 14,
/// State 1, "Login failed for user '<name>'.").
#[derive(Clone, Debug)]
pub struct LoginFailure {
    pub login: String,
    pub reason: LoginFailureReason,
    pub error: SqlError,
}

impl LoginFailure {
    fn new(login: &str, reason: LoginFailureReason) -> Self {
        LoginFailure {
            login: login.to_string(),
            reason,
            error: SqlError::new(18456, &[&login, &"", &""]),
        }
    }

    /// The error-log line, SQL Server's wording with the state that tells the reason.
    pub fn log_text(&self) -> String {
        let (state, why) = match self.reason {
            LoginFailureReason::NoSuchLogin => {
                (5, "Could not find a login matching the name provided.")
            }
            LoginFailureReason::WrongPassword => {
                (8, "Password did not match that for the login provided.")
            }
            LoginFailureReason::Disabled => (7, "Login is disabled."),
            LoginFailureReason::NoPassword => (
                8,
                "The login has no password (set MSSQL_SA_PASSWORD or LATCHKEY_SA_PASSWORD at the server's first start).",
            ),
            LoginFailureReason::MustChangePassword => {
                (18, "The password of the account must be changed.")
            }
        };
        format!(
            "Error: 18456, Severity: 14, State: {state}. Login failed for user '{}'. Reason: {why}",
            self.login
        )
    }
}

/// What [`Engine::provision_sa`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaProvisioning {
    /// sa had no password; it now has the one given.
    PasswordSet,
    /// sa already had a password (set at an earlier first start or by ALTER LOGIN): kept.
    AlreadySet,
}

/// The sa password a server's first start takes, as SQL Server's container image does:
/// `MSSQL_SA_PASSWORD`, else `LATCHKEY_SA_PASSWORD`.
pub fn sa_password_from_env() -> Option<String> {
    ["MSSQL_SA_PASSWORD", "LATCHKEY_SA_PASSWORD"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
}

fn sa_login() -> LoginDef {
    let now = crate::ddl::now_text();
    LoginDef {
        principal_id: SA_ID,
        name: "sa".into(),
        sid: SA_SID.to_vec(),
        password_hash: Vec::new(),
        disabled: false,
        default_database: "master".into(),
        check_policy: true,
        check_expiration: false,
        must_change: false,
        sysadmin: true,
        create_date: now.clone(),
        modify_date: now,
        password_set: String::new(),
    }
}

/// Creates `sa` (no password yet) when master has no logins: the first start.
pub(crate) fn bootstrap(engine: &Engine) -> SqlResult<()> {
    let master = engine.master()?;
    if master.cat.read().security.login_by_id(SA_ID).is_some() {
        return Ok(());
    }
    let tree = master.store.catalog_btree()?;
    let mut txn = master.store.begin()?;
    master.cat.write().put_login(&tree, &mut txn, sa_login())?;
    txn.commit()?;
    Ok(())
}

impl Engine {
    /// Checks a login name and password (a server's LOGIN7). The failure's `error` is what
    /// the client gets; its `log_text` is for the server's error log.
    pub fn authenticate(
        &self,
        login: &str,
        password: &str,
    ) -> Result<AuthenticatedLogin, LoginFailure> {
        let master = self
            .master()
            .map_err(|_| LoginFailure::new(login, LoginFailureReason::NoSuchLogin))?;
        self.await_committed_logins(&master);
        let cat = master.cat.read();
        let Some(l) = cat.security.login(login) else {
            return Err(LoginFailure::new(login, LoginFailureReason::NoSuchLogin));
        };
        if l.password_hash.is_empty() {
            return Err(LoginFailure::new(login, LoginFailureReason::NoPassword));
        }
        if !password::verify(password, &l.password_hash) {
            return Err(LoginFailure::new(login, LoginFailureReason::WrongPassword));
        }
        if l.disabled {
            return Err(LoginFailure::new(login, LoginFailureReason::Disabled));
        }
        if l.must_change {
            return Err(LoginFailure::new(
                login,
                LoginFailureReason::MustChangePassword,
            ));
        }
        Ok(AuthenticatedLogin {
            name: l.name.clone(),
            principal_id: l.principal_id,
            sid: l.sid.clone(),
            sysadmin: l.sysadmin,
            default_database: l.default_database.clone(),
        })
    }

    /// A login reads the logins as committed (engine README "Catalog visibility"): SQL
    /// Server's LOGIN7 waits for a transaction that created, altered or dropped a login (it
    /// holds the login's row X-locked), then sees what that transaction committed or what its
    /// rollback left. Here every uncommitted security change in master (`MetaClass::Security`,
    /// under the changing transaction's Sch-M to its end) is waited for, as
    /// `Session::await_committed_catalog` does for a permission check. The wait holds no other
    /// lock (so it is in no deadlock cycle) and has no timeout: a client's login timeout
    /// closes its connection, as against SQL Server.
    fn await_committed_logins(&self, master: &crate::server::DbHandle) {
        use crate::dbcat::{MetaClass, MetaKey};
        let owner = self.locks.new_owner();
        let req = crate::locks::LockRequest {
            owner,
            spid: 0,
            priority: 0,
            timeout_ms: -1,
            cancel: None,
        };
        let mut waited: Vec<MetaKey> = Vec::new();
        loop {
            let keys: Vec<MetaKey> = master
                .cat
                .read()
                .pending_ddl(&[MetaClass::Security])
                .into_iter()
                .filter(|k| !waited.contains(k))
                .collect();
            if keys.is_empty() {
                return;
            }
            for k in keys {
                let res = k.resource(master.def.database_id);
                // granted once the changing transaction ended; released at once
                let _ = self.locks.acquire(&req, res, crate::locks::LockMode::SchS);
                self.locks.release_all(owner);
                waited.push(k);
            }
        }
    }

    /// Gives `sa` its password at a server's first start: when sa has none yet, `password`
    /// (normally [`sa_password_from_env`]) must be given and meet the password policy (Msg
    /// 33062/33063/33064, as the container image refuses a weak MSSQL_SA_PASSWORD); once sa
    /// has a password, later starts keep it and ignore `password`.
    pub fn provision_sa(&self, password: Option<&str>) -> SqlResult<SaProvisioning> {
        bootstrap(self)?;
        let master = self.master()?;
        let Some(mut sa) = master.cat.read().security.login_by_id(SA_ID).cloned() else {
            return Err(SqlError::internal("sa login missing after bootstrap"));
        };
        if !sa.password_hash.is_empty() {
            return Ok(SaProvisioning::AlreadySet);
        }
        let Some(pw) = password else {
            return Err(SqlError::custom(
                18456,
                14,
                1,
                "The sa password is not set: set MSSQL_SA_PASSWORD (or LATCHKEY_SA_PASSWORD) for the server's first start.",
            ));
        };
        password::check_policy(pw).map_err(|mut e| {
            e.state = 2;
            e
        })?;
        sa.password_hash = password::new_hash(pw);
        sa.password_set = crate::ddl::now_text();
        sa.modify_date = sa.password_set.clone();
        let tree = master.store.catalog_btree()?;
        let mut txn = master.store.begin()?;
        master.cat.write().put_login(&tree, &mut txn, sa)?;
        txn.commit()?;
        Ok(SaProvisioning::PasswordSet)
    }
}

/// The database permission a DDL statement needs from a session that is neither sysadmin nor
/// dbo (`CREATE TABLE` ...; `ALTER` for changes to existing objects); None for statements on
/// temporary tables, which every session may create and change.
pub(crate) fn ddl_permission(kind: &parser::ast::StatementKind) -> Option<&'static str> {
    use parser::ast::{CreateMode, ObjectName, StatementKind as K};
    let temp = |n: &ObjectName| n.name_str().starts_with('#');
    Some(match kind {
        K::CreateTable(t) if temp(&t.name) => return None,
        K::AlterTable(t) if temp(&t.name) => return None,
        K::CreateIndex(i) if temp(&i.table) => return None,
        K::DropIndex { targets, .. } if targets.iter().all(|t| temp(&t.table)) => return None,
        K::Drop { names, .. } if names.iter().all(temp) => return None,
        K::CreateTable(_) => "CREATE TABLE",
        K::CreateView(v) if v.mode == CreateMode::Create => "CREATE VIEW",
        K::CreateProcedure(p) if p.mode == CreateMode::Create => "CREATE PROCEDURE",
        K::CreateFunction(f) if f.mode == CreateMode::Create => "CREATE FUNCTION",
        K::CreateSchema { .. } => "CREATE SCHEMA",
        K::CreateType(_) => "CREATE TYPE",
        K::CreateSequence(_) => "CREATE SEQUENCE",
        _ => "ALTER",
    })
}
