//! Security principals and permissions: logins (server principals, master only), database
//! principals (users and roles) and permission rows, with their persistent encoding (catalog
//! B-tree rows `L`, `U` and `G`; README "Persistent format").

use common::{SqlError, SqlResult};
use serde_json::{json, Value as J};

/// A SQL login (`sys.server_principals` type `S`, `sys.sql_logins`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginDef {
    pub principal_id: i32,
    pub name: String,
    /// 16 bytes for created logins; `0x01` for sa.
    pub sid: Vec<u8>,
    /// SQL Server's format: 0x0200, 4-byte salt, SHA-512(UTF-16LE(password) + salt); empty =
    /// no password set (sa before it is provisioned): nobody can log in with it.
    pub password_hash: Vec<u8>,
    pub disabled: bool,
    pub default_database: String,
    pub check_policy: bool,
    pub check_expiration: bool,
    pub must_change: bool,
    /// Member of the fixed server role sysadmin.
    pub sysadmin: bool,
    /// `datetime` text (create_date, modify_date, PasswordLastSetTime).
    pub create_date: String,
    pub modify_date: String,
    pub password_set: String,
}

/// What a database principal is (`sys.database_principals.type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbPrincipalKind {
    /// A user mapped to a SQL login (`S`, SQL_USER).
    SqlUser,
    /// `CREATE USER .. WITHOUT LOGIN` (`S`, authentication_type NONE).
    NoLoginUser,
    /// A database role (`R`, DATABASE_ROLE).
    Role,
}

impl DbPrincipalKind {
    fn code(self) -> &'static str {
        match self {
            DbPrincipalKind::SqlUser => "S",
            DbPrincipalKind::NoLoginUser => "N",
            DbPrincipalKind::Role => "R",
        }
    }
    fn from_code(s: &str) -> Option<Self> {
        Some(match s {
            "S" => DbPrincipalKind::SqlUser,
            "N" => DbPrincipalKind::NoLoginUser,
            "R" => DbPrincipalKind::Role,
            _ => return None,
        })
    }
}

/// A user or role created in a database (the fixed principals are not stored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbPrincipalDef {
    pub principal_id: i32,
    pub name: String,
    pub kind: DbPrincipalKind,
    /// The login's sid (SqlUser) or a generated one (NoLoginUser); empty for roles.
    pub sid: Vec<u8>,
    pub default_schema: Option<String>,
    /// Owner of a role (`AUTHORIZATION`); dbo (1) by default.
    pub owner_id: i32,
    /// Roles this principal is a member of (`sys.database_role_members`).
    pub roles: Vec<i32>,
    pub create_date: String,
    pub modify_date: String,
}

/// The securable class of a permission row (`sys.database_permissions.class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PermClass {
    Database = 0,
    Object = 1,
    Schema = 3,
}

/// `G` grant, `W` grant with grant option, `D` deny.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermState {
    Grant,
    GrantWithGrantOption,
    Deny,
}

impl PermState {
    pub fn code(self) -> &'static str {
        match self {
            PermState::Grant => "G",
            PermState::GrantWithGrantOption => "W",
            PermState::Deny => "D",
        }
    }
    pub fn desc(self) -> &'static str {
        match self {
            PermState::Grant => "GRANT",
            PermState::GrantWithGrantOption => "GRANT_WITH_GRANT_OPTION",
            PermState::Deny => "DENY",
        }
    }
    fn from_code(s: &str) -> Option<Self> {
        Some(match s {
            "G" => PermState::Grant,
            "W" => PermState::GrantWithGrantOption,
            "D" => PermState::Deny,
            _ => return None,
        })
    }
}

/// One row of `sys.database_permissions`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionDef {
    pub class: PermClass,
    /// Object id, schema id, or 0 for the database.
    pub major_id: i32,
    pub grantee: i32,
    pub grantor: i32,
    /// Upper-case permission name (`SELECT`, `EXECUTE`, `CONNECT` ...).
    pub permission: String,
    pub state: PermState,
}

fn corrupt(what: &str) -> SqlError {
    SqlError::custom(
        8966,
        16,
        1,
        format!("Unable to read and latch a catalog row: malformed {what}."),
    )
}

/// Lower-case hex without prefix.
pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Inverse of [`to_hex`]; `None` on odd length or a non-hex digit.
pub fn from_hex(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if s.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

fn parse(bytes: &[u8], what: &str) -> SqlResult<J> {
    serde_json::from_slice(bytes).map_err(|_| corrupt(what))
}

fn s(v: &J, k: &str) -> String {
    v.get(k).and_then(J::as_str).unwrap_or("").to_string()
}

fn b(v: &J, k: &str) -> bool {
    v.get(k).and_then(J::as_bool).unwrap_or(false)
}

fn i(v: &J, k: &str, what: &str) -> SqlResult<i32> {
    v.get(k)
        .and_then(J::as_i64)
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| corrupt(what))
}

fn hex(v: &J, k: &str, what: &str) -> SqlResult<Vec<u8>> {
    from_hex(&s(v, k)).ok_or_else(|| corrupt(what))
}

/// Encodes a login (row `L`, key id = principal_id).
pub fn encode_login(l: &LoginDef) -> Vec<u8> {
    json!({
        "id": l.principal_id, "name": l.name, "sid": to_hex(&l.sid),
        "hash": to_hex(&l.password_hash), "disabled": l.disabled,
        "default_db": l.default_database, "policy": l.check_policy,
        "expiration": l.check_expiration, "must_change": l.must_change,
        "sysadmin": l.sysadmin, "created": l.create_date, "modified": l.modify_date,
        "pwd_set": l.password_set,
    })
    .to_string()
    .into_bytes()
}

/// Decodes [`encode_login`] output.
pub fn decode_login(bytes: &[u8]) -> SqlResult<LoginDef> {
    let v = parse(bytes, "login")?;
    Ok(LoginDef {
        principal_id: i(&v, "id", "login")?,
        name: s(&v, "name"),
        sid: hex(&v, "sid", "login")?,
        password_hash: hex(&v, "hash", "login")?,
        disabled: b(&v, "disabled"),
        default_database: s(&v, "default_db"),
        check_policy: b(&v, "policy"),
        check_expiration: b(&v, "expiration"),
        must_change: b(&v, "must_change"),
        sysadmin: b(&v, "sysadmin"),
        create_date: s(&v, "created"),
        modify_date: s(&v, "modified"),
        password_set: s(&v, "pwd_set"),
    })
}

/// Encodes a database principal (row `U`, key id = principal_id).
pub fn encode_principal(p: &DbPrincipalDef) -> Vec<u8> {
    json!({
        "id": p.principal_id, "name": p.name, "kind": p.kind.code(), "sid": to_hex(&p.sid),
        "schema": p.default_schema, "owner": p.owner_id, "roles": p.roles,
        "created": p.create_date, "modified": p.modify_date,
    })
    .to_string()
    .into_bytes()
}

/// Decodes [`encode_principal`] output.
pub fn decode_principal(bytes: &[u8]) -> SqlResult<DbPrincipalDef> {
    let what = "database principal";
    let v = parse(bytes, what)?;
    let roles = match v.get("roles").and_then(J::as_array) {
        Some(a) => a
            .iter()
            .map(|r| {
                r.as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| corrupt(what))
            })
            .collect::<SqlResult<Vec<i32>>>()?,
        None => Vec::new(),
    };
    Ok(DbPrincipalDef {
        principal_id: i(&v, "id", what)?,
        name: s(&v, "name"),
        kind: DbPrincipalKind::from_code(&s(&v, "kind")).ok_or_else(|| corrupt(what))?,
        sid: hex(&v, "sid", what)?,
        default_schema: v.get("schema").and_then(J::as_str).map(str::to_string),
        owner_id: v
            .get("owner")
            .and_then(J::as_i64)
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(1),
        roles,
        create_date: s(&v, "created"),
        modify_date: s(&v, "modified"),
    })
}

/// Encodes all permission rows of a database (row `G`, key id 0).
pub fn encode_permissions(perms: &[PermissionDef]) -> Vec<u8> {
    J::Array(
        perms
            .iter()
            .map(|p| {
                json!([p.class as i32, p.major_id, p.grantee, p.grantor, p.permission,
                    p.state.code()])
            })
            .collect(),
    )
    .to_string()
    .into_bytes()
}

/// Decodes [`encode_permissions`] output.
pub fn decode_permissions(bytes: &[u8]) -> SqlResult<Vec<PermissionDef>> {
    let what = "permission list";
    let v = parse(bytes, what)?;
    let arr = v.as_array().ok_or_else(|| corrupt(what))?;
    arr.iter()
        .map(|row| {
            let n = |k: usize| -> SqlResult<i32> {
                row.get(k)
                    .and_then(J::as_i64)
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| corrupt(what))
            };
            let class = match n(0)? {
                0 => PermClass::Database,
                1 => PermClass::Object,
                3 => PermClass::Schema,
                _ => return Err(corrupt(what)),
            };
            let text = |k: usize| row.get(k).and_then(J::as_str).unwrap_or("");
            Ok(PermissionDef {
                class,
                major_id: n(1)?,
                grantee: n(2)?,
                grantor: n(3)?,
                permission: text(4).to_string(),
                state: PermState::from_code(text(5)).ok_or_else(|| corrupt(what))?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn login_round_trips() {
        let l = LoginDef {
            principal_id: 256,
            name: "app".into(),
            sid: vec![1, 2, 3],
            password_hash: vec![2, 0, 9, 9],
            disabled: true,
            default_database: "master".into(),
            check_policy: true,
            check_expiration: false,
            must_change: false,
            sysadmin: true,
            create_date: "2026-01-01 00:00:00.000".into(),
            modify_date: "2026-01-01 00:00:00.000".into(),
            password_set: "2026-01-01 00:00:00.000".into(),
        };
        assert_eq!(decode_login(&encode_login(&l)).unwrap(), l);
        assert!(decode_login(b"{\"id\": 1, \"sid\": \"zz\"}").is_err());
        assert!(decode_login(b"not json").is_err());
    }

    #[test]
    fn principal_and_permissions_round_trip() {
        let p = DbPrincipalDef {
            principal_id: 5,
            name: "u".into(),
            kind: DbPrincipalKind::Role,
            sid: vec![],
            default_schema: Some("dbo".into()),
            owner_id: 1,
            roles: vec![16390],
            create_date: String::new(),
            modify_date: String::new(),
        };
        assert_eq!(decode_principal(&encode_principal(&p)).unwrap(), p);
        let perms = vec![PermissionDef {
            class: PermClass::Object,
            major_id: 7,
            grantee: 5,
            grantor: 1,
            permission: "SELECT".into(),
            state: PermState::Deny,
        }];
        assert_eq!(
            decode_permissions(&encode_permissions(&perms)).unwrap(),
            perms
        );
        assert!(decode_permissions(b"[[9,1,1,1,\"X\",\"G\"]]").is_err());
    }
}
