//! sys.server_principals, sys.sql_logins, sys.server_role_members, sys.database_principals,
//! sys.database_role_members, sys.database_permissions, and the principal functions
//! (SUSER_SNAME, USER_NAME, IS_MEMBER, HAS_PERMS_BY_NAME, LOGINPROPERTY, PWDCOMPARE ...).

use catalog::security::*;
use catalog::ColumnDef;
use common::SqlResult;
use types::{DataType, Value};

use super::*;
use crate::dbcat::DbCatalog;
use crate::session::Session;

type View = (Vec<ColumnDef>, Vec<Vec<Value>>);

fn cols(spec: &[(&str, DataType)]) -> Vec<ColumnDef> {
    spec.iter()
        .map(|(n, t)| ColumnDef::new(*n, t.clone(), true))
        .collect()
}

fn sysname() -> DataType {
    DataType::NVarChar(Some(128))
}

fn nv(s: &str) -> Value {
    Value::NVarChar(s.to_string())
}

fn bin(b: &[u8]) -> Value {
    Value::VarBinary(b.to_vec())
}

fn dt(text: &str) -> Value {
    crate::sysviews::dt(text)
}

/// Permission type codes of `sys.database_permissions.type`.
fn perm_code(name: &str) -> &'static str {
    match name {
        "SELECT" => "SL",
        "INSERT" => "IN",
        "UPDATE" => "UP",
        "DELETE" => "DL",
        "EXECUTE" => "EX",
        "ALTER" => "AL",
        "CONTROL" => "CL",
        "REFERENCES" => "RF",
        "VIEW DEFINITION" => "VW",
        "TAKE OWNERSHIP" => "TO",
        "CONNECT" => "CO",
        "SHOWPLAN" => "SPLN",
        "VIEW DATABASE STATE" => "VWDS",
        "CREATE TABLE" => "CRTB",
        "CREATE VIEW" => "CRVW",
        "CREATE PROCEDURE" => "CRPR",
        "CREATE FUNCTION" => "CRFN",
        "CREATE SCHEMA" => "CRSC",
        "CREATE TYPE" => "CRTY",
        "CREATE SEQUENCE" => "CRSO",
        _ => "",
    }
}

fn server_principal_columns() -> Vec<(&'static str, DataType)> {
    vec![
        ("name", sysname()),
        ("principal_id", DataType::Int),
        ("sid", DataType::VarBinary(Some(85))),
        ("type", DataType::Char(1)),
        ("type_desc", DataType::NVarChar(Some(60))),
        ("is_disabled", DataType::Int),
        ("create_date", DataType::DateTime),
        ("modify_date", DataType::DateTime),
        ("default_database_name", sysname()),
        ("default_language_name", sysname()),
        ("credential_id", DataType::Int),
        ("owning_principal_id", DataType::Int),
        ("is_fixed_role", DataType::Bit),
    ]
}

fn login_row(l: &LoginDef) -> Vec<Value> {
    vec![
        nv(&l.name),
        Value::Int(l.principal_id),
        bin(&l.sid),
        Value::Char("S".into()),
        nv("SQL_LOGIN"),
        Value::Int(l.disabled as i32),
        dt(&l.create_date),
        dt(&l.modify_date),
        nv(&l.default_database),
        nv("us_english"),
        Value::Null,
        Value::Null,
        Value::Bit(false),
    ]
}

/// A security view of `cat` (the current database's catalog, already locked by the caller),
/// or None when `name` is not one.
pub(crate) fn security_view(
    session: &Session,
    cat: &DbCatalog,
    name: &str,
) -> SqlResult<Option<View>> {
    let server = matches!(
        name,
        "server_principals" | "sql_logins" | "server_role_members"
    );
    // server views read master's logins; avoid locking master twice when it is `cat`
    let master_guard;
    let logins: &[LoginDef] = if !server {
        &[]
    } else if cat.database_id == crate::server::MASTER_ID {
        &cat.security.logins
    } else {
        let m = session.engine().master()?;
        master_guard = m.cat.read().security.logins.clone();
        &master_guard
    };
    let mut logins: Vec<&LoginDef> = logins.iter().collect();
    logins.sort_by_key(|l| l.principal_id);
    let sec = &cat.security;
    Ok(Some(match name {
        "server_principals" => {
            let mut rows: Vec<Vec<Value>> = logins.iter().map(|l| login_row(l)).collect();
            for (id, n) in SERVER_ROLES {
                rows.push(vec![
                    nv(n),
                    Value::Int(*id),
                    bin(&[*id as u8]),
                    Value::Char("R".into()),
                    nv("SERVER_ROLE"),
                    Value::Int(0),
                    dt("2003-04-08 09:10:42.287"),
                    dt("2003-04-08 09:10:42.287"),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Int(SA_ID),
                    Value::Bit(*id != 2),
                ]);
            }
            rows.sort_by_key(|r| match r[1] {
                Value::Int(i) => i,
                _ => 0,
            });
            (cols(&server_principal_columns()), rows)
        }
        "sql_logins" => {
            let mut c = server_principal_columns();
            c.push(("is_policy_checked", DataType::Bit));
            c.push(("is_expiration_checked", DataType::Bit));
            c.push(("password_hash", DataType::VarBinary(Some(256))));
            let rows = logins
                .iter()
                .map(|l| {
                    let mut r = login_row(l);
                    r.push(Value::Bit(l.check_policy));
                    r.push(Value::Bit(l.check_expiration));
                    r.push(if l.password_hash.is_empty() {
                        Value::Null
                    } else {
                        bin(&l.password_hash)
                    });
                    r
                })
                .collect();
            (cols(&c), rows)
        }
        "server_role_members" => {
            let rows = logins
                .iter()
                .filter(|l| l.sysadmin)
                .map(|l| vec![Value::Int(3), Value::Int(l.principal_id)])
                .collect();
            (
                cols(&[
                    ("role_principal_id", DataType::Int),
                    ("member_principal_id", DataType::Int),
                ]),
                rows,
            )
        }
        "database_principals" => {
            let c = cols(&[
                ("name", sysname()),
                ("principal_id", DataType::Int),
                ("type", DataType::Char(1)),
                ("type_desc", DataType::NVarChar(Some(60))),
                ("default_schema_name", sysname()),
                ("create_date", DataType::DateTime),
                ("modify_date", DataType::DateTime),
                ("owning_principal_id", DataType::Int),
                ("sid", DataType::VarBinary(Some(85))),
                ("is_fixed_role", DataType::Bit),
                ("authentication_type", DataType::Int),
                ("authentication_type_desc", DataType::NVarChar(Some(60))),
            ]);
            let mut rows = Vec::new();
            let fixed_date = "2003-04-08 09:10:42.287";
            for (id, n, t) in FIXED_DB_PRINCIPALS {
                let role = *t == "R";
                let (sid, auth, auth_desc) = match *id {
                    1 => (bin(SA_SID), 1, "INSTANCE"),
                    2 => (bin(&[0]), 0, "NONE"),
                    _ => (Value::Null, 0, "NONE"),
                };
                rows.push(vec![
                    nv(n),
                    Value::Int(*id),
                    Value::Char(t.to_string()),
                    nv(if role { "DATABASE_ROLE" } else { "SQL_USER" }),
                    if role || *id > 2 { Value::Null } else { nv("dbo") },
                    dt(fixed_date),
                    dt(fixed_date),
                    if role { Value::Int(1) } else { Value::Null },
                    sid,
                    Value::Bit(*id >= DB_OWNER),
                    Value::Int(auth),
                    nv(auth_desc),
                ]);
            }
            for p in &sec.principals {
                let role = p.kind == DbPrincipalKind::Role;
                let (auth, auth_desc) = match p.kind {
                    DbPrincipalKind::SqlUser => (1, "INSTANCE"),
                    _ => (0, "NONE"),
                };
                rows.push(vec![
                    nv(&p.name),
                    Value::Int(p.principal_id),
                    Value::Char(if role { "R" } else { "S" }.into()),
                    nv(if role { "DATABASE_ROLE" } else { "SQL_USER" }),
                    if role {
                        Value::Null
                    } else {
                        nv(p.default_schema.as_deref().unwrap_or("dbo"))
                    },
                    dt(&p.create_date),
                    dt(&p.modify_date),
                    if role {
                        Value::Int(p.owner_id)
                    } else {
                        Value::Null
                    },
                    if role { Value::Null } else { bin(&p.sid) },
                    Value::Bit(false),
                    Value::Int(auth),
                    nv(auth_desc),
                ]);
            }
            rows.sort_by_key(|r| match r[1] {
                Value::Int(i) => i,
                _ => 0,
            });
            (c, rows)
        }
        "database_role_members" => {
            let mut rows = vec![vec![Value::Int(DB_OWNER), Value::Int(1)]];
            for p in &sec.principals {
                for r in &p.roles {
                    rows.push(vec![Value::Int(*r), Value::Int(p.principal_id)]);
                }
            }
            (
                cols(&[
                    ("role_principal_id", DataType::Int),
                    ("member_principal_id", DataType::Int),
                ]),
                rows,
            )
        }
        "database_permissions" => {
            let c = cols(&[
                ("class", DataType::TinyInt),
                ("class_desc", DataType::NVarChar(Some(60))),
                ("major_id", DataType::Int),
                ("minor_id", DataType::Int),
                ("grantee_principal_id", DataType::Int),
                ("grantor_principal_id", DataType::Int),
                ("type", DataType::Char(4)),
                ("permission_name", DataType::NVarChar(Some(128))),
                ("state", DataType::Char(1)),
                ("state_desc", DataType::NVarChar(Some(60))),
            ]);
            let rows = sec
                .permissions
                .iter()
                .map(|p| {
                    vec![
                        Value::TinyInt(p.class as u8),
                        nv(match p.class {
                            PermClass::Database => "DATABASE",
                            PermClass::Object => "OBJECT_OR_COLUMN",
                            PermClass::Schema => "SCHEMA",
                        }),
                        Value::Int(p.major_id),
                        Value::Int(0),
                        Value::Int(p.grantee),
                        Value::Int(p.grantor),
                        Value::Char(format!("{:<4}", perm_code(&p.permission))),
                        nv(&p.permission),
                        Value::Char(p.state.code().into()),
                        nv(p.state.desc()),
                    ]
                })
                .collect();
            (c, rows)
        }
        _ => return Ok(None),
    }))
}

fn text(v: &Value) -> Option<String> {
    crate::render::value_text(v, &DataType::NVarChar(None))
}

impl Session {
    /// The principal functions; `Ok(None)` when `name` (upper case) is not one of them.
    pub(crate) fn principal_function(
        &mut self,
        name: &str,
        args: &[Value],
    ) -> SqlResult<Option<Value>> {
        const NAMES: &[&str] = &[
            "SUSER_NAME",
            "SUSER_SNAME",
            "SUSER_ID",
            "SUSER_SID",
            "USER_NAME",
            "CURRENT_USER",
            "SESSION_USER",
            "USER",
            "USER_ID",
            "DATABASE_PRINCIPAL_ID",
            "IS_MEMBER",
            "IS_SRVROLEMEMBER",
            "HAS_PERMS_BY_NAME",
            "LOGINPROPERTY",
            "PWDCOMPARE",
            "PWDENCRYPT",
        ];
        if !NAMES.contains(&name) {
            return Ok(None);
        }
        let a0 = args.first();
        let master = self.engine.master()?;
        Ok(Some(match name {
            "SUSER_NAME" | "SUSER_SNAME" if a0.is_some() => {
                let cat = master.cat.read();
                let l = match (name, a0) {
                    (_, Some(Value::Null)) => None,
                    ("SUSER_SNAME", Some(Value::VarBinary(sid) | Value::Binary(sid))) => {
                        cat.security.login_by_sid(sid)
                    }
                    (_, Some(v)) => {
                        let id = crate::interp::value_to_i64(v)? as i32;
                        cat.security.login_by_id(id)
                    }
                    _ => None,
                };
                l.map(|l| nv(&l.name)).unwrap_or(Value::Null)
            }
            "SUSER_ID" | "SUSER_SID" => {
                let cat = master.cat.read();
                let l = match a0.and_then(text) {
                    None if a0.is_some_and(|v| v.is_null()) => None,
                    None => cat.security.login_by_sid(&self.principal.sid),
                    Some(n) => cat.security.login(&n),
                };
                match (name, l) {
                    (_, None) => Value::Null,
                    ("SUSER_ID", Some(l)) => Value::Int(l.principal_id),
                    (_, Some(l)) => bin(&l.sid),
                }
            }
            "USER_NAME" | "CURRENT_USER" | "SESSION_USER" | "USER" => {
                let h = self.current_db()?;
                match a0 {
                    None => self
                        .db_user(&h)
                        .map(|u| nv(&u.name))
                        .unwrap_or(Value::Null),
                    Some(v) if v.is_null() => Value::Null,
                    Some(v) => {
                        let id = crate::interp::value_to_i64(v)? as i32;
                        h.cat
                            .read()
                            .security
                            .principal_name(id)
                            .map(|n| nv(&n))
                            .unwrap_or(Value::Null)
                    }
                }
            }
            "USER_ID" | "DATABASE_PRINCIPAL_ID" => {
                let h = self.current_db()?;
                match a0.and_then(text) {
                    None if a0.is_some_and(|v| v.is_null()) => Value::Null,
                    None => self
                        .db_user(&h)
                        .map(|u| Value::Int(u.id))
                        .unwrap_or(Value::Null),
                    Some(n) => h
                        .cat
                        .read()
                        .security
                        .principal_id(&n)
                        .map(Value::Int)
                        .unwrap_or(Value::Null),
                }
            }
            "IS_MEMBER" => {
                let h = self.current_db()?;
                let Some(role) = a0.and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                let Some(id) = h.cat.read().security.principal_id(&role) else {
                    return Ok(Some(Value::Null));
                };
                match self.db_user(&h) {
                    Some(u) => Value::Int((u.closure.contains(&id) || (u.dbo && id == DB_OWNER)) as i32),
                    None => Value::Int(0),
                }
            }
            "IS_SRVROLEMEMBER" => {
                let Some(role) = a0.and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                let role = role.trim_end().to_ascii_lowercase();
                if !SERVER_ROLES.iter().any(|(_, n)| *n == role) {
                    return Ok(Some(Value::Null));
                }
                let cat = master.cat.read();
                let sysadmin = match args.get(1) {
                    None => self.principal.sysadmin,
                    Some(v) => match text(v).and_then(|n| cat.security.login(&n)) {
                        Some(l) => l.sysadmin,
                        None => return Ok(Some(Value::Null)),
                    },
                };
                Value::Int(match role.as_str() {
                    "public" => 1,
                    // sysadmin holds every server permission, so every fixed role's too
                    _ => sysadmin as i32,
                })
            }
            "HAS_PERMS_BY_NAME" => {
                let (Some(securable), Some(class), Some(perm)) = (
                    a0.and_then(text),
                    args.get(1).and_then(text),
                    args.get(2).and_then(text),
                ) else {
                    return Ok(Some(Value::Null));
                };
                let access = match perm.trim().to_ascii_uppercase().as_str() {
                    "SELECT" => catalog::Access::Select,
                    "INSERT" => catalog::Access::Insert,
                    "UPDATE" => catalog::Access::Update,
                    "DELETE" => catalog::Access::Delete,
                    "EXECUTE" => catalog::Access::Execute,
                    "ALTER" => catalog::Access::Alter,
                    _ if self.principal.sysadmin => return Ok(Some(Value::Int(1))),
                    _ => return Ok(Some(Value::Null)),
                };
                if !class.trim().eq_ignore_ascii_case("OBJECT") {
                    return Ok(Some(if self.principal.sysadmin {
                        Value::Int(1)
                    } else {
                        Value::Null
                    }));
                }
                let q = crate::ddl::qualified_from_text(&securable);
                let Some((h, o)) = self.find_object(&q)? else {
                    return Ok(Some(Value::Null));
                };
                let a = catalog::ObjectAccess {
                    database: h.def.name.clone(),
                    object_id: o.object_id(),
                    access,
                    via: None,
                };
                Value::Int(self.check_object_access(&a).is_ok() as i32)
            }
            "LOGINPROPERTY" => {
                let (Some(login), Some(prop)) = (a0.and_then(text), args.get(1).and_then(text))
                else {
                    return Ok(Some(Value::Null));
                };
                let cat = master.cat.read();
                let Some(l) = cat.security.login(&login) else {
                    return Ok(Some(Value::Null));
                };
                match prop.trim().to_ascii_lowercase().as_str() {
                    "passwordhash" => {
                        nv(&format!("0x{}", to_hex(&l.password_hash).to_uppercase()))
                    }
                    "passwordhashalgorithm" => nv("2"),
                    "islocked" | "isexpired" | "badpasswordcount" | "historylength" => nv("0"),
                    "ismustchange" => nv(if l.must_change { "1" } else { "0" }),
                    "passwordlastsettime" => nv(&l.password_set),
                    "defaultdatabase" => nv(&l.default_database),
                    "defaultlanguage" => nv("us_english"),
                    "daysuntilexpiration" | "lockouttime" | "badpasswordtime" => Value::Null,
                    _ => Value::Null,
                }
            }
            "PWDCOMPARE" => {
                let (Some(clear), Some(hash)) = (a0, args.get(1)) else {
                    return Ok(Some(Value::Null));
                };
                let hash = match hash {
                    Value::VarBinary(b) | Value::Binary(b) => b.clone(),
                    Value::Null => return Ok(Some(Value::Null)),
                    _ => return Ok(Some(Value::Int(0))),
                };
                let clear = text(clear).unwrap_or_default();
                Value::Int(password::verify(&clear, &hash) as i32)
            }
            "PWDENCRYPT" => match a0.and_then(text) {
                Some(pw) => bin(&password::new_hash(&pw)),
                None => Value::Null,
            },
            _ => return Ok(None),
        }))
    }
}
