//! Who a session is in a database, and the one permission check (engine README "Security").
//!
//! Rules (SQL Server's): sysadmin and the database's dbo (or a db_owner member) pass every
//! check; an object's owner (its schema's owner) may use it; a view or module uses objects
//! of the same owner without a check on them (ownership chaining, within one database); else
//! the permission rows of the user, its roles (transitively) and public decide: any DENY on
//! the object, its schema or the database wins, else any GRANT allows, else Msg 229.

use catalog::security::{PermClass, PermState};
use catalog::{Access, ObjectAccess};
use common::{SqlError, SqlResult};

use super::*;
use crate::server::DbHandle;
use crate::session::Session;

/// The database principal a session acts as in one database.
#[derive(Clone, Debug)]
pub(crate) struct DbUser {
    pub id: i32,
    pub name: String,
    /// dbo or a member of db_owner: no permission checks.
    pub dbo: bool,
    /// The user, its roles (transitively) and public.
    pub closure: Vec<i32>,
}

impl Session {
    /// A new session running as an authenticated login: what a server creates for a
    /// connection once [`Engine::authenticate`] accepted it. (`Session::new` is sysadmin: the
    /// embedded command line's operating-system user.)
    pub fn for_login(
        engine: std::sync::Arc<Engine>,
        login: &AuthenticatedLogin,
    ) -> SqlResult<Session> {
        let mut s = Session::new(engine);
        s.set_authenticated_login(login)?;
        Ok(s)
    }

    /// Runs the session as an authenticated login (what a server does after
    /// [`Engine::authenticate`]): SUSER_SNAME(), permission checks, then the login's default
    /// database (Msg 916 when the login has no user there and guest cannot connect).
    pub fn set_authenticated_login(&mut self, login: &AuthenticatedLogin) -> SqlResult<()> {
        self.login = login.name.clone();
        self.engine.sessions.set_login(self.spid, &login.name);
        self.principal.sid = login.sid.clone();
        self.principal.sysadmin = login.sysadmin;
        // Bound plans carry this session's permission checks (the binder checks at bind
        // time and a cached plan is not re-checked), so the session's own caches go; other
        // sessions' plans do not depend on this principal and stay.
        self.plan_cache.clear();
        self.proc_cache.clear();
        let db = if login.default_database.is_empty() {
            "master"
        } else {
            login.default_database.as_str()
        };
        let h = self.db(db)?;
        self.check_database_access(&h)?;
        self.database = h.def.name.clone();
        self.engine.sessions.set_database(self.spid, &self.database);
        Ok(())
    }

    /// Is the session's login a member of sysadmin?
    pub fn is_sysadmin(&self) -> bool {
        self.principal.sysadmin
    }

    /// The session's principal in database `h`; None when its login has no user there and the
    /// database is not master or tempdb (where guest may connect).
    pub(crate) fn db_user(&self, h: &DbHandle) -> Option<DbUser> {
        if self.principal.sysadmin {
            return Some(DbUser {
                id: 1,
                name: "dbo".into(),
                dbo: true,
                closure: vec![1, 0, DB_OWNER],
            });
        }
        let cat = h.cat.read();
        let sec = &cat.security;
        if let Some(u) = sec.user_for_sid(&self.principal.sid) {
            let closure = sec.closure(u.principal_id);
            return Some(DbUser {
                id: u.principal_id,
                name: u.name.clone(),
                dbo: closure.contains(&DB_OWNER),
                closure,
            });
        }
        let name = h.def.name.to_ascii_lowercase();
        (name == "master" || name == "tempdb").then(|| DbUser {
            id: 2,
            name: "guest".into(),
            dbo: false,
            closure: sec.closure(2),
        })
    }

    /// Msg 916 unless the session may enter database `h` (`USE`, the default database).
    pub(crate) fn check_database_access(&self, h: &DbHandle) -> SqlResult<()> {
        if !self.principal.sysadmin {
            // another transaction's uncommitted CREATE / DROP USER is waited for
            self.await_committed_class(h, crate::dbcat::MetaClass::Security)?;
        }
        if self.db_user(h).is_some() {
            return Ok(());
        }
        Err(SqlError::new(916, &[&self.login, &h.def.name]))
    }

    /// The one permission check: may the session use `a.object_id` as `a.access`? Msg 229.
    pub(crate) fn check_object_access(&self, a: &ObjectAccess) -> SqlResult<()> {
        if self.principal.sysadmin || a.database.eq_ignore_ascii_case("tempdb") {
            return Ok(());
        }
        if a.access == Access::CreateTable {
            return self.check_ddl_permission("CREATE TABLE");
        }
        let Some(h) = self.engine.database(&a.database) else {
            return Ok(());
        };
        // the permission rows are read committed: another transaction's uncommitted GRANT
        // gives nothing and its REVOKE / DENY takes nothing away before it ends (the check
        // waits for it, as SQL Server's reader of the X-locked rows)
        self.await_committed_class(&h, crate::dbcat::MetaClass::Security)?;
        let user = self.db_user(&h);
        let cat = h.cat.read();
        let Some(obj) = cat.objects.get(&a.object_id) else {
            return Ok(());
        };
        let denied = || {
            SqlError::new(
                229,
                &[&a.access.name(), &obj.name(), &h.def.name, &obj.schema()],
            )
        };
        let Some(user) = user else {
            return Err(denied());
        };
        if user.dbo {
            return Ok(());
        }
        let schema = cat.schema(obj.schema());
        let schema_id = schema.map(|s| s.schema_id).unwrap_or(0);
        let owner = schema.map(|s| s.principal_id).unwrap_or(1);
        if owner == user.id {
            return Ok(());
        }
        // ownership chaining: the referencing view or running module has the same owner
        let chain = a
            .via
            .clone()
            .or_else(|| self.principal.chain.last().cloned());
        if let Some((db, id)) = chain {
            if db.eq_ignore_ascii_case(&a.database) {
                if let Some(by) = cat.objects.get(&id) {
                    let by_owner = cat.schema(by.schema()).map(|s| s.principal_id);
                    if by_owner == Some(owner) {
                        return Ok(());
                    }
                }
            }
        }
        if decide(
            &cat.security,
            &user.closure,
            a.object_id,
            schema_id,
            a.access,
        ) {
            Ok(())
        } else {
            Err(denied())
        }
    }
}

/// Do the permission rows (and fixed roles) of `closure` allow `access` on the object?
fn decide(
    sec: &DbSecurity,
    closure: &[i32],
    object_id: i32,
    schema_id: i32,
    access: Access,
) -> bool {
    let name = access.name();
    let writes = matches!(access, Access::Insert | Access::Update | Access::Delete);
    if (access == Access::Select && closure.contains(&DB_DENYDATAREADER))
        || (writes && closure.contains(&DB_DENYDATAWRITER))
    {
        return false;
    }
    let mut granted = (access == Access::Select && closure.contains(&DB_DATAREADER))
        || (writes && closure.contains(&DB_DATAWRITER));
    for p in &sec.permissions {
        if !closure.contains(&p.grantee) || !(p.permission == name || p.permission == "CONTROL") {
            continue;
        }
        let applies = match p.class {
            PermClass::Object => p.major_id == object_id,
            PermClass::Schema => p.major_id == schema_id,
            PermClass::Database => true,
        };
        if !applies {
            continue;
        }
        match p.state {
            PermState::Deny => return false,
            PermState::Grant | PermState::GrantWithGrantOption => granted = true,
        }
    }
    granted
}
