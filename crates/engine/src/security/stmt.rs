//! CREATE/ALTER/DROP LOGIN, USER, ROLE; ALTER SERVER ROLE; GRANT, DENY, REVOKE.
//!
//! Every change goes through the session's transaction on the database it belongs to (logins:
//! master) and marks that catalog touched, like other DDL (dbcat C1, session T4).

use catalog::security::*;
use common::{SqlError, SqlResult};
use parser::ast::{
    AlterLoginAction, Ident, PermissionAction, PermissionStatement, PrincipalOption,
    PrincipalValue, RoleAction, SecurityStatement,
};

use super::*;
use crate::server::DbHandle;
use crate::session::Session;

/// `Cannot <verb> the <what> '<name>', because it does not exist or you do not have
/// permission.`
fn not_found(verb: &str, what: &str, name: &str) -> SqlError {
    SqlError::new(15151, &[&verb, &what, &name])
}

/// A `0x..` literal's bytes.
fn binary(text: &str) -> SqlResult<Vec<u8>> {
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let hex = if !hex.len().is_multiple_of(2) {
        format!("0{hex}")
    } else {
        hex.to_string()
    };
    from_hex(&hex).ok_or_else(|| SqlError::syntax_near(text))
}

fn on_off(o: &PrincipalOption) -> SqlResult<bool> {
    match o.value {
        PrincipalValue::On => Ok(true),
        PrincipalValue::Off => Ok(false),
        _ => Err(SqlError::syntax_near(&o.name)),
    }
}

fn name_value(o: &PrincipalOption) -> SqlResult<String> {
    match &o.value {
        PrincipalValue::Name(n) => Ok(n.clone()),
        _ => Err(SqlError::syntax_near(&o.name)),
    }
}

fn random_sid() -> Vec<u8> {
    let mut v = Vec::with_capacity(16);
    for _ in 0..4 {
        v.extend_from_slice(&password::new_hash("")[2..6]);
    }
    v
}

impl Session {
    /// Runs a security statement (inside `autocommit`).
    pub(crate) fn exec_security(&mut self, stmt: &SecurityStatement) -> SqlResult<()> {
        match stmt {
            SecurityStatement::CreateLogin {
                name,
                source,
                options,
            } => self.create_login(name, source.as_deref(), options),
            SecurityStatement::AlterLogin { name, action } => self.alter_login(name, action),
            SecurityStatement::DropLogin { name } => self.drop_login(name),
            SecurityStatement::CreateUser {
                name,
                login,
                without_login,
                options,
            } => self.create_user(name, login.as_ref(), *without_login, options),
            SecurityStatement::AlterUser { name, options } => self.alter_user(name, options),
            SecurityStatement::DropUser { name, if_exists } => self.drop_user(name, *if_exists),
            SecurityStatement::CreateRole {
                name,
                authorization,
            } => self.create_role(name, authorization.as_ref()),
            SecurityStatement::AlterRole {
                name,
                action,
                server: false,
            } => self.alter_role(name, action),
            SecurityStatement::AlterRole {
                name,
                action,
                server: true,
            } => self.alter_server_role(name, action),
            SecurityStatement::DropRole { name, if_exists } => self.drop_role(name, *if_exists),
            SecurityStatement::Permission(p) => self.permission_statement(p),
        }
    }

    fn require_sysadmin(&self) -> SqlResult<()> {
        if self.principal.sysadmin {
            Ok(())
        } else {
            Err(SqlError::new(15247, &[]))
        }
    }

    fn require_dbo(&self, h: &DbHandle) -> SqlResult<()> {
        match self.db_user(h) {
            Some(u) if u.dbo => Ok(()),
            _ => Err(SqlError::new(15247, &[])),
        }
    }

    /// Applies `f` to master's catalog under the session's transaction.
    fn with_master<T>(
        &mut self,
        f: impl FnOnce(&mut crate::dbcat::DbCatalog, &storage::BTree, &mut storage::Txn) -> SqlResult<T>,
    ) -> SqlResult<T> {
        let h = self.engine.master()?;
        self.with_db(&h, f)
    }

    fn with_db<T>(
        &mut self,
        h: &DbHandle,
        f: impl FnOnce(&mut crate::dbcat::DbCatalog, &storage::BTree, &mut storage::Txn) -> SqlResult<T>,
    ) -> SqlResult<T> {
        let tree = h.store.catalog_btree()?;
        let db = h.def.name.clone();
        let txn = self.txn_for(&db)?;
        let txn_id = txn.id();
        let r = {
            let mut cat = h.cat.write();
            let r = f(&mut cat, &tree, txn)?;
            // other sessions' permission checks and security views wait for the end of the
            // transaction (README "Catalog visibility")
            cat.mark_pending(crate::dbcat::MetaClass::Security, 0, txn_id);
            r
        };
        self.touch_catalog(&db)?;
        Ok(r)
    }

    fn create_login(
        &mut self,
        name: &Ident,
        source: Option<&str>,
        options: &[PrincipalOption],
    ) -> SqlResult<()> {
        self.require_sysadmin()?;
        if let Some(s) = source {
            return Err(SqlError::unsupported(format!("CREATE LOGIN FROM {s}")));
        }
        let master = self.engine.master()?;
        if master.cat.read().security.login(&name.value).is_some()
            || SERVER_ROLES
                .iter()
                .any(|(_, n)| n.eq_ignore_ascii_case(&name.value))
        {
            return Err(SqlError::new(15025, &[&name.value]));
        }
        let now = crate::ddl::now_text();
        let mut l = LoginDef {
            principal_id: 0,
            name: name.value.clone(),
            sid: random_sid(),
            password_hash: Vec::new(),
            disabled: false,
            default_database: "master".into(),
            check_policy: true,
            check_expiration: false,
            must_change: false,
            sysadmin: false,
            create_date: now.clone(),
            modify_date: now.clone(),
            password_set: now,
        };
        let Some(pw) = options.iter().find(|o| o.name == "PASSWORD") else {
            return Err(SqlError::syntax_near(&name.value));
        };
        self.apply_login_options(&mut l, options, true)?;
        let _ = pw;
        let sid_taken = master.cat.read().security.login_by_sid(&l.sid).is_some();
        if sid_taken {
            return Err(SqlError::new(15025, &[&l.name]));
        }
        self.with_master(|cat, tree, txn| {
            l.principal_id = cat.security.next_login_id();
            cat.put_login(tree, txn, l)
        })
    }

    /// Applies CREATE/ALTER LOGIN options to `l`. `create`: SID allowed, PASSWORD required.
    fn apply_login_options(
        &self,
        l: &mut LoginDef,
        options: &[PrincipalOption],
        create: bool,
    ) -> SqlResult<()> {
        let mut new_password: Option<(&PrincipalOption, bool)> = None;
        let mut old_password: Option<String> = None;
        for o in options {
            match o.name.as_str() {
                "PASSWORD" => new_password = Some((o, o.flags.iter().any(|f| f == "HASHED"))),
                "OLD_PASSWORD" if !create => match &o.value {
                    PrincipalValue::Text(t) => old_password = Some(t.clone()),
                    _ => return Err(SqlError::syntax_near(&o.name)),
                },
                "DEFAULT_DATABASE" => {
                    let db = name_value(o)?;
                    let Some(h) = self.engine.database(&db) else {
                        return Err(SqlError::new(15010, &[&db]));
                    };
                    l.default_database = h.def.name.clone();
                }
                "DEFAULT_LANGUAGE" => {
                    let lang = name_value(o)?;
                    if !lang.eq_ignore_ascii_case("us_english")
                        && !lang.eq_ignore_ascii_case("english")
                    {
                        return Err(SqlError::unsupported(format!("DEFAULT_LANGUAGE = {lang}")));
                    }
                }
                "CHECK_POLICY" => l.check_policy = on_off(o)?,
                "CHECK_EXPIRATION" => l.check_expiration = on_off(o)?,
                "SID" if create => match &o.value {
                    PrincipalValue::Binary(b) => {
                        let sid = binary(b)?;
                        if sid.is_empty() || sid.len() > 85 {
                            return Err(SqlError::syntax_near(b));
                        }
                        l.sid = sid;
                    }
                    _ => return Err(SqlError::syntax_near(&o.name)),
                },
                "NAME" if !create => {
                    let n = name_value(o)?;
                    let master = self.engine.master()?;
                    let taken = master
                        .cat
                        .read()
                        .security
                        .login(&n)
                        .is_some_and(|x| x.principal_id != l.principal_id);
                    if taken {
                        return Err(SqlError::new(15025, &[&n]));
                    }
                    l.name = n;
                }
                other => return Err(SqlError::unsupported(format!("LOGIN option {other}"))),
            }
        }
        if l.check_expiration && !l.check_policy {
            return Err(SqlError::new(15122, &[]));
        }
        if let Some((o, hashed)) = new_password {
            let must_change = o.flags.iter().any(|f| f == "MUST_CHANGE");
            if must_change && !l.check_expiration {
                return Err(SqlError::new(15099, &[]));
            }
            if !create && !self.principal.sysadmin {
                // changing one's own password needs the old one
                let ok = old_password
                    .as_deref()
                    .is_some_and(|old| password::verify(old, &l.password_hash));
                if !ok {
                    return Err(not_found("alter", "login", &l.name));
                }
            }
            l.password_hash = match (&o.value, hashed) {
                (PrincipalValue::Binary(b), true) => {
                    let h = binary(b)?;
                    if !password::is_valid_hash(&h) {
                        return Err(SqlError::custom(
                            15021,
                            16,
                            1,
                            "Invalid value given for parameter PASSWORD. Specify a valid parameter value.",
                        ));
                    }
                    h
                }
                (PrincipalValue::Text(t), false) => {
                    if t.chars().count() > password::MAX_PASSWORD_CHARS {
                        return Err(SqlError::new(33063, &[&password::MAX_PASSWORD_CHARS]));
                    }
                    if l.check_policy {
                        password::check_policy(t).map_err(|mut e| {
                            e.state = 2;
                            e
                        })?;
                    }
                    password::new_hash(t)
                }
                _ => return Err(SqlError::syntax_near(&o.name)),
            };
            l.must_change = must_change;
            l.password_set = crate::ddl::now_text();
        }
        l.modify_date = crate::ddl::now_text();
        Ok(())
    }

    fn alter_login(&mut self, name: &Ident, action: &AlterLoginAction) -> SqlResult<()> {
        let master = self.engine.master()?;
        let Some(mut l) = master.cat.read().security.login(&name.value).cloned() else {
            return Err(not_found("alter", "login", &name.value));
        };
        let own_password_change = matches!(action, AlterLoginAction::Options(o)
            if o.iter().all(|x| x.name == "PASSWORD" || x.name == "OLD_PASSWORD"))
            && l.sid == self.principal.sid;
        if !own_password_change {
            self.require_sysadmin()?;
        }
        match action {
            AlterLoginAction::Enable => {
                l.disabled = false;
                l.modify_date = crate::ddl::now_text();
            }
            AlterLoginAction::Disable => {
                l.disabled = true;
                l.modify_date = crate::ddl::now_text();
            }
            AlterLoginAction::Options(o) => self.apply_login_options(&mut l, o, false)?,
        }
        self.with_master(|cat, tree, txn| cat.put_login(tree, txn, l))
    }

    fn drop_login(&mut self, name: &Ident) -> SqlResult<()> {
        self.require_sysadmin()?;
        let master = self.engine.master()?;
        let Some(l) = master.cat.read().security.login(&name.value).cloned() else {
            return Err(not_found("drop", "login", &name.value));
        };
        if l.principal_id == SA_ID {
            return Err(SqlError::new(15405, &[&l.name]));
        }
        let logged_in = self
            .engine
            .sessions
            .snapshot()
            .iter()
            .any(|e| e.login.lock().eq_ignore_ascii_case(&l.name));
        if logged_in {
            return Err(SqlError::new(15434, &[&l.name]));
        }
        self.with_master(|cat, tree, txn| cat.remove_login(tree, txn, l.principal_id))
    }

    fn create_user(
        &mut self,
        name: &Ident,
        login: Option<&Ident>,
        without_login: bool,
        options: &[PrincipalOption],
    ) -> SqlResult<()> {
        let h = self.current_db()?;
        self.require_dbo(&h)?;
        if h.cat.read().security.principal_id(&name.value).is_some() {
            return Err(SqlError::new(15023, &[&name.value]));
        }
        let now = crate::ddl::now_text();
        let mut p = DbPrincipalDef {
            principal_id: 0,
            name: name.value.clone(),
            kind: DbPrincipalKind::SqlUser,
            sid: Vec::new(),
            default_schema: None,
            owner_id: 1,
            roles: Vec::new(),
            create_date: now.clone(),
            modify_date: now,
        };
        if without_login {
            p.kind = DbPrincipalKind::NoLoginUser;
            p.sid = random_sid();
        } else {
            let login_name = login.map(|l| l.value.as_str()).unwrap_or(&name.value);
            p.sid = self.login_sid_for_user(&h, login_name, None)?;
        }
        self.apply_user_options(&h, &mut p, options)?;
        self.with_db(&h, |cat, tree, txn| {
            p.principal_id = cat.security.next_principal_id();
            cat.put_principal(tree, txn, p)
        })
    }

    /// The sid of login `login_name` for a user of `h` (Msg 15007 when there is no such login,
    /// 15063 when another user than `except` already maps it).
    fn login_sid_for_user(
        &self,
        h: &DbHandle,
        login_name: &str,
        except: Option<i32>,
    ) -> SqlResult<Vec<u8>> {
        let master = self.engine.master()?;
        let Some(sid) = master
            .cat
            .read()
            .security
            .login(login_name)
            .map(|l| l.sid.clone())
        else {
            return Err(SqlError::new(15007, &[&login_name]));
        };
        let cat = h.cat.read();
        if let Some(u) = cat.security.user_for_sid(&sid) {
            if Some(u.principal_id) != except {
                return Err(SqlError::new(15063, &[]));
            }
        }
        Ok(sid)
    }

    fn apply_user_options(
        &self,
        h: &DbHandle,
        p: &mut DbPrincipalDef,
        options: &[PrincipalOption],
    ) -> SqlResult<()> {
        for o in options {
            match o.name.as_str() {
                "DEFAULT_SCHEMA" => p.default_schema = Some(name_value(o)?),
                "NAME" => {
                    let n = name_value(o)?;
                    let taken = h
                        .cat
                        .read()
                        .security
                        .principal_id(&n)
                        .is_some_and(|id| id != p.principal_id);
                    if taken {
                        return Err(SqlError::new(15023, &[&n]));
                    }
                    p.name = n;
                }
                "LOGIN" if p.kind != DbPrincipalKind::Role => {
                    let l = name_value(o)?;
                    p.sid = self.login_sid_for_user(h, &l, Some(p.principal_id))?;
                    p.kind = DbPrincipalKind::SqlUser;
                }
                other => return Err(SqlError::unsupported(format!("USER option {other}"))),
            }
        }
        p.modify_date = crate::ddl::now_text();
        Ok(())
    }

    fn alter_user(&mut self, name: &Ident, options: &[PrincipalOption]) -> SqlResult<()> {
        let h = self.current_db()?;
        self.require_dbo(&h)?;
        let found = h.cat.read().security.principal(&name.value).cloned();
        let Some(mut p) = found.filter(|p| p.kind != DbPrincipalKind::Role) else {
            return Err(not_found("alter", "user", &name.value));
        };
        self.apply_user_options(&h, &mut p, options)?;
        self.with_db(&h, |cat, tree, txn| cat.put_principal(tree, txn, p))
    }

    fn drop_user(&mut self, name: &Ident, if_exists: bool) -> SqlResult<()> {
        let h = self.current_db()?;
        self.require_dbo(&h)?;
        if FIXED_DB_PRINCIPALS
            .iter()
            .any(|(_, n, t)| *t == "S" && n.eq_ignore_ascii_case(&name.value))
        {
            return Err(SqlError::new(15150, &[&"drop", &"user", &name.value]));
        }
        let found = h.cat.read().security.principal(&name.value).cloned();
        let Some(p) = found.filter(|p| p.kind != DbPrincipalKind::Role) else {
            if if_exists {
                return Ok(());
            }
            return Err(not_found("drop", "user", &name.value));
        };
        self.check_owns_nothing(&h, p.principal_id)?;
        self.with_db(&h, |cat, tree, txn| {
            cat.remove_principal(tree, txn, p.principal_id)
        })
    }

    /// Msg 15138 when the principal owns a schema or a role.
    fn check_owns_nothing(&self, h: &DbHandle, id: i32) -> SqlResult<()> {
        let cat = h.cat.read();
        if cat.schemas.iter().any(|s| s.principal_id == id) {
            return Err(SqlError::new(15138, &[&"schema"]));
        }
        if cat
            .security
            .principals
            .iter()
            .any(|p| p.kind == DbPrincipalKind::Role && p.owner_id == id)
        {
            return Err(SqlError::new(15138, &[&"role"]));
        }
        Ok(())
    }

    fn create_role(&mut self, name: &Ident, authorization: Option<&Ident>) -> SqlResult<()> {
        let h = self.current_db()?;
        self.require_dbo(&h)?;
        let owner_id = {
            let cat = h.cat.read();
            if cat.security.principal_id(&name.value).is_some() {
                return Err(SqlError::new(15023, &[&name.value]));
            }
            match authorization {
                None => 1,
                Some(o) => cat
                    .security
                    .principal_id(&o.value)
                    .ok_or_else(|| not_found("find", "user", &o.value))?,
            }
        };
        let now = crate::ddl::now_text();
        let mut p = DbPrincipalDef {
            principal_id: 0,
            name: name.value.clone(),
            kind: DbPrincipalKind::Role,
            sid: Vec::new(),
            default_schema: None,
            owner_id,
            roles: Vec::new(),
            create_date: now.clone(),
            modify_date: now,
        };
        self.with_db(&h, |cat, tree, txn| {
            p.principal_id = cat.security.next_principal_id();
            cat.put_principal(tree, txn, p)
        })
    }

    fn alter_role(&mut self, name: &Ident, action: &RoleAction) -> SqlResult<()> {
        let h = self.current_db()?;
        self.require_dbo(&h)?;
        let (role_id, member) = {
            let cat = h.cat.read();
            let sec = &cat.security;
            let role_id = sec
                .principal_id(&name.value)
                .filter(|id| sec.is_role(*id) && *id != 0)
                .ok_or_else(|| not_found("alter", "role", &name.value))?;
            let member = match action {
                RoleAction::AddMember(m) | RoleAction::DropMember(m) => {
                    let verb = if matches!(action, RoleAction::AddMember(_)) {
                        "add"
                    } else {
                        "drop"
                    };
                    let Some(p) = sec.principal(&m.value).cloned() else {
                        if FIXED_DB_PRINCIPALS
                            .iter()
                            .any(|(_, n, _)| n.eq_ignore_ascii_case(&m.value))
                        {
                            return Err(SqlError::new(15405, &[&m.value]));
                        }
                        return Err(not_found(verb, "principal", &m.value));
                    };
                    Some(p)
                }
                RoleAction::Rename(_) => None,
            };
            (role_id, member)
        };
        match (action, member) {
            (RoleAction::AddMember(_), Some(mut p)) => {
                if p.principal_id == role_id {
                    return Err(SqlError::new(15405, &[&p.name]));
                }
                if !p.roles.contains(&role_id) {
                    p.roles.push(role_id);
                }
                self.with_db(&h, |cat, tree, txn| cat.put_principal(tree, txn, p))
            }
            (RoleAction::DropMember(_), Some(mut p)) => {
                p.roles.retain(|r| *r != role_id);
                self.with_db(&h, |cat, tree, txn| cat.put_principal(tree, txn, p))
            }
            (RoleAction::Rename(new), _) => {
                let found = h.cat.read().security.principal(&name.value).cloned();
                let Some(mut p) = found else {
                    // the fixed roles cannot be renamed
                    return Err(SqlError::new(15405, &[&name.value]));
                };
                if h.cat.read().security.principal_id(&new.value).is_some() {
                    return Err(SqlError::new(15023, &[&new.value]));
                }
                p.name = new.value.clone();
                p.modify_date = crate::ddl::now_text();
                self.with_db(&h, |cat, tree, txn| cat.put_principal(tree, txn, p))
            }
            _ => Err(SqlError::internal("role action without member")),
        }
    }

    fn drop_role(&mut self, name: &Ident, if_exists: bool) -> SqlResult<()> {
        let h = self.current_db()?;
        self.require_dbo(&h)?;
        if FIXED_DB_PRINCIPALS
            .iter()
            .any(|(_, n, t)| *t == "R" && n.eq_ignore_ascii_case(&name.value))
        {
            return Err(SqlError::new(15405, &[&name.value]));
        }
        let found = h.cat.read().security.principal(&name.value).cloned();
        let Some(p) = found.filter(|p| p.kind == DbPrincipalKind::Role) else {
            if if_exists {
                return Ok(());
            }
            return Err(not_found("drop", "role", &name.value));
        };
        if h.cat
            .read()
            .security
            .principals
            .iter()
            .any(|m| m.roles.contains(&p.principal_id))
        {
            return Err(SqlError::new(15144, &[]));
        }
        self.check_owns_nothing(&h, p.principal_id)?;
        self.with_db(&h, |cat, tree, txn| {
            cat.remove_principal(tree, txn, p.principal_id)
        })
    }

    fn alter_server_role(&mut self, name: &Ident, action: &RoleAction) -> SqlResult<()> {
        self.require_sysadmin()?;
        if !SERVER_ROLES
            .iter()
            .any(|(_, n)| n.eq_ignore_ascii_case(&name.value))
        {
            return Err(not_found("alter", "server role", &name.value));
        }
        if !name.value.eq_ignore_ascii_case("sysadmin") {
            return Err(SqlError::unsupported(format!(
                "ALTER SERVER ROLE {}",
                name.value
            )));
        }
        let (member, add) = match action {
            RoleAction::AddMember(m) => (m, true),
            RoleAction::DropMember(m) => (m, false),
            RoleAction::Rename(_) => return Err(SqlError::new(15405, &[&name.value])),
        };
        let master = self.engine.master()?;
        let Some(mut l) = master.cat.read().security.login(&member.value).cloned() else {
            let verb = if add { "add" } else { "drop" };
            return Err(not_found(verb, "principal", &member.value));
        };
        if l.principal_id == SA_ID {
            return Err(SqlError::new(15405, &[&l.name]));
        }
        l.sysadmin = add;
        l.modify_date = crate::ddl::now_text();
        self.with_master(|cat, tree, txn| cat.put_login(tree, txn, l))
    }

    fn permission_statement(&mut self, p: &PermissionStatement) -> SqlResult<()> {
        let h = self.current_db()?;
        self.require_dbo(&h)?;
        if p.has_columns {
            return Err(SqlError::unsupported("column permissions"));
        }
        if p.as_principal.is_some() {
            return Err(SqlError::unsupported("GRANT ... AS"));
        }
        // the securable
        let (class, major_id, object_kind) = {
            let class = p.class.as_deref();
            match (&p.securable, class) {
                (None, _) | (Some(_), Some("DATABASE")) => (PermClass::Database, 0, None),
                (Some(n), Some("SCHEMA")) => {
                    let name = n.name_str();
                    let cat = h.cat.read();
                    let s = cat
                        .schema(name)
                        .ok_or_else(|| not_found("find", "schema", name))?;
                    (PermClass::Schema, s.schema_id, None)
                }
                (Some(n), None | Some("OBJECT")) => {
                    let q = crate::ddl::qualified(n);
                    match self.find_object(&q)? {
                        Some((oh, o)) if oh.def.database_id == h.def.database_id => {
                            (PermClass::Object, o.object_id(), Some(o))
                        }
                        _ => return Err(not_found("find", "object", n.name_str())),
                    }
                }
                (Some(_), Some(other)) => {
                    return Err(SqlError::unsupported(format!("permissions on {other}::")))
                }
            }
        };
        // the permissions
        let mut perms: Vec<String> = Vec::new();
        for raw in &p.permissions {
            let name = match raw.as_str() {
                "EXEC" => "EXECUTE".to_string(),
                "ALL" | "ALL PRIVILEGES" => {
                    let all: &[&str] = match &object_kind {
                        Some(catalog::SchemaObject::Module(_)) => &["EXECUTE"],
                        Some(_) => &["DELETE", "INSERT", "REFERENCES", "SELECT", "UPDATE"],
                        None => &["DELETE", "EXECUTE", "INSERT", "SELECT", "UPDATE"],
                    };
                    perms.extend(all.iter().map(|s| s.to_string()));
                    continue;
                }
                other => other.to_string(),
            };
            const ENFORCED: &[&str] = &[
                "SELECT", "INSERT", "UPDATE", "DELETE", "EXECUTE", "ALTER", "CONTROL",
            ];
            const RECORDED: &[&str] = &[
                "REFERENCES",
                "VIEW DEFINITION",
                "TAKE OWNERSHIP",
                "CONNECT",
                "SHOWPLAN",
                "VIEW DATABASE STATE",
                "CREATE TABLE",
                "CREATE VIEW",
                "CREATE PROCEDURE",
                "CREATE FUNCTION",
                "CREATE SCHEMA",
                "CREATE TYPE",
                "CREATE SEQUENCE",
            ];
            if !ENFORCED.contains(&name.as_str()) {
                if !RECORDED.contains(&name.as_str()) {
                    // server permissions, other database permissions: not modelled
                    return Err(SqlError::unsupported(format!("permission {name}")));
                }
                // a DENY latchkey would not act on is refused rather than ignored
                if p.action == PermissionAction::Deny {
                    return Err(SqlError::unsupported(format!("DENY {name}")));
                }
                if name.starts_with("CREATE") && class != PermClass::Database {
                    return Err(SqlError::syntax_near("ON"));
                }
            }
            perms.push(name);
        }
        // the principals
        let mut grantees = Vec::new();
        {
            let cat = h.cat.read();
            let sec = &cat.security;
            let me = self.db_user(&h).map(|u| u.id);
            for g in &p.principals {
                let Some(id) = sec.principal_id(&g.value) else {
                    return Err(not_found("find", "user", &g.value));
                };
                if matches!(id, 1 | 3 | 4) || Some(id) == me {
                    return Err(SqlError::new(4624, &[]));
                }
                if (DB_OWNER..=DB_DENYDATAWRITER).contains(&id) {
                    return Err(SqlError::new(4617, &[]));
                }
                grantees.push(id);
            }
        }
        let grantor = self.db_user(&h).map(|u| u.id).unwrap_or(1);
        let mut rows = h.cat.read().security.permissions.clone();
        for perm in &perms {
            for &grantee in &grantees {
                let same = |r: &PermissionDef| {
                    r.class == class
                        && r.major_id == major_id
                        && r.grantee == grantee
                        && &r.permission == perm
                };
                let existing = rows.iter().position(same);
                match p.action {
                    PermissionAction::Revoke if p.grant_option_for => {
                        if let Some(i) = existing {
                            if rows[i].state == PermState::GrantWithGrantOption {
                                rows[i].state = PermState::Grant;
                            }
                        }
                    }
                    PermissionAction::Revoke => rows.retain(|r| !same(r)),
                    PermissionAction::Grant | PermissionAction::Deny => {
                        let state = match p.action {
                            PermissionAction::Deny => PermState::Deny,
                            _ if p.with_grant_option => PermState::GrantWithGrantOption,
                            _ => PermState::Grant,
                        };
                        let row = PermissionDef {
                            class,
                            major_id,
                            grantee,
                            grantor,
                            permission: perm.clone(),
                            state,
                        };
                        match existing {
                            Some(i) => rows[i] = row,
                            None => rows.push(row),
                        }
                    }
                }
            }
        }
        self.with_db(&h, |cat, tree, txn| cat.put_permissions(tree, txn, rows))
    }

    /// DDL by a session that is neither sysadmin nor dbo needs db_ddladmin or the database
    /// permission `CREATE <kind>` (for CREATE): Msg 262.
    pub(crate) fn check_ddl_permission(&self, what: &str) -> SqlResult<()> {
        if self.principal.sysadmin {
            return Ok(());
        }
        let h = self.current_db()?;
        let Some(user) = self.db_user(&h) else {
            return Err(SqlError::new(916, &[&self.login, &h.def.name]));
        };
        if user.dbo || user.closure.contains(&16387) {
            return Ok(());
        }
        let cat = h.cat.read();
        let granted = what.starts_with("CREATE")
            && cat.security.permissions.iter().any(|p| {
                p.class == PermClass::Database
                    && p.permission == what
                    && user.closure.contains(&p.grantee)
                    && p.state != PermState::Deny
            });
        if granted {
            Ok(())
        } else {
            Err(SqlError::new(262, &[&what, &h.def.name]))
        }
    }
}
