//! sqlcmd scripting variables: `$(name)` substitution, `:setvar`, `-v name=value`.
//!
//! Precedence (low to high), as sqlcmd: environment variables, `-v`, `:setvar`. The built-in
//! `SQLCMD*` variables hold what the command line set (`-d` → SQLCMDDBNAME, `-s` →
//! SQLCMDCOLSEP, …); names are case-insensitive. An environment variable is looked up by its
//! exact name when no scripting variable of that name exists.

use std::collections::BTreeMap;

/// Built-ins that `:setvar` and `-v` may not change: the connection's (as in sqlcmd) and the
/// output settings, which latchkey reads from the command line only (changing them later would
/// be accepted without effect).
const READ_ONLY: &[&str] = &[
    "SQLCMDDBNAME",
    "SQLCMDINI",
    "SQLCMDPACKETSIZE",
    "SQLCMDSERVER",
    "SQLCMDUSER",
    "SQLCMDWORKSTATION",
    "SQLCMDCOLSEP",
    "SQLCMDCOLWIDTH",
    "SQLCMDHEADERS",
    "SQLCMDMAXVARTYPEWIDTH",
    "SQLCMDMAXFIXEDTYPEWIDTH",
    "SQLCMDSTATTIMEOUT",
    "SQLCMDLOGINTIMEOUT",
    "SQLCMDERRORLEVEL",
    "SQLCMDEDITOR",
];

/// Why `:setvar` / `-v` refused a setting; `Display` is sqlcmd's text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum VarError {
    ReadOnly(String),
    Undefined(String),
    BadName(String),
    BadValue(String),
}

impl std::fmt::Display for VarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VarError::ReadOnly(n) => {
                write!(
                    f,
                    "Sqlcmd: Error: The scripting variable: '{n}' is read-only"
                )
            }
            VarError::Undefined(n) => write!(f, "'{n}' scripting variable not defined."),
            VarError::BadName(n) => write!(f, "Sqlcmd: Error: Invalid variable identifier {n}"),
            VarError::BadValue(v) => write!(f, "Sqlcmd: Error: Invalid variable value {v}"),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Vars {
    /// Upper-cased name → value.
    map: BTreeMap<String, String>,
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// A valid variable name: a letter first, then letters, digits, `_` or `-` (sqlcmd's rule).
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// sqlcmd's value syntax: a bare word, or `"text"` with `""` for a quote inside.
pub(crate) fn parse_value(v: &str) -> Result<String, VarError> {
    let bad = || VarError::BadValue(v.to_string());
    let Some(inner) = v.strip_prefix('"') else {
        if v.contains(char::is_whitespace) {
            return Err(bad());
        }
        return Ok(v.to_string());
    };
    let inner = inner.strip_suffix('"').ok_or_else(bad)?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' && chars.next_if_eq(&'"').is_none() {
            return Err(bad());
        }
        out.push(c);
    }
    Ok(out)
}

impl Vars {
    /// The built-ins with their defaults and what the command line gave (`builtins`: name,
    /// value pairs that override the defaults).
    pub(crate) fn new(builtins: &[(&str, String)]) -> Vars {
        let host = host_name();
        let user = std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .unwrap_or_default();
        let mut map = BTreeMap::new();
        for (k, v) in [
            ("SQLCMDCOLSEP", " ".to_string()),
            ("SQLCMDCOLWIDTH", "0".into()),
            ("SQLCMDDBNAME", String::new()),
            ("SQLCMDEDITOR", "vi".into()),
            ("SQLCMDERRORLEVEL", "0".into()),
            ("SQLCMDHEADERS", "0".into()),
            ("SQLCMDINI", String::new()),
            ("SQLCMDLOGINTIMEOUT", "8".into()),
            ("SQLCMDMAXFIXEDTYPEWIDTH", "0".into()),
            ("SQLCMDMAXVARTYPEWIDTH", "256".into()),
            ("SQLCMDPACKETSIZE", "4096".into()),
            ("SQLCMDSERVER", host.clone()),
            ("SQLCMDSTATTIMEOUT", "0".into()),
            ("SQLCMDUSER", user),
            ("SQLCMDWORKSTATION", host),
        ] {
            map.insert(k.to_string(), v);
        }
        for (k, v) in builtins {
            map.insert(k.to_ascii_uppercase(), v.clone());
        }
        Vars { map }
    }

    pub(crate) fn get(&self, name: &str) -> Option<String> {
        self.map
            .get(&name.to_uppercase())
            .cloned()
            .or_else(|| std::env::var(name).ok())
    }

    /// `-v name=value` (the value already unquoted by the shell, so any text is allowed).
    pub(crate) fn set_from_command_line(&mut self, setting: &str) -> Result<(), VarError> {
        let (name, value) = setting
            .split_once('=')
            .ok_or_else(|| VarError::BadValue(setting.to_string()))?;
        let name = name.trim();
        self.check_settable(name)?;
        self.map
            .insert(name.to_uppercase(), value.trim().to_string());
        Ok(())
    }

    fn check_settable(&self, name: &str) -> Result<(), VarError> {
        if !valid_name(name) {
            return Err(VarError::BadName(name.to_string()));
        }
        let upper = name.to_uppercase();
        if READ_ONLY.contains(&upper.as_str()) {
            return Err(VarError::ReadOnly(name.to_string()));
        }
        Ok(())
    }

    /// `:setvar name [value]`: no value removes the variable (an error when it is not set).
    pub(crate) fn setvar(&mut self, args: &str) -> Result<(), VarError> {
        let args = args.trim();
        let (name, value) = match args.split_once(char::is_whitespace) {
            Some((n, v)) => (n, v.trim()),
            None => (args, ""),
        };
        self.check_settable(name)?;
        let key = name.to_uppercase();
        if value.is_empty() {
            return match self.map.remove(&key) {
                Some(_) => Ok(()),
                None => Err(VarError::Undefined(name.to_string())),
            };
        }
        let value = parse_value(value)?;
        self.map.insert(key, value);
        Ok(())
    }

    /// `:listvar`: every variable as `NAME = "value"`, sorted by name.
    pub(crate) fn listing(&self) -> Vec<String> {
        self.map
            .iter()
            .map(|(k, v)| format!("{k} = \"{v}\""))
            .collect()
    }

    /// Replaces every `$(name)` in `line`. `Err(name)`: the first variable that is not
    /// defined. `$(` not followed by a valid name and `)` stays as it is.
    pub(crate) fn substitute(&self, line: &str) -> Result<String, String> {
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find("$(") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            match after.find(')') {
                Some(end) if valid_name(&after[..end]) => {
                    let name = &after[..end];
                    let value = self.get(name).ok_or_else(|| name.to_string())?;
                    out.push_str(&value);
                    rest = &after[end + 1..];
                }
                _ => {
                    out.push_str("$(");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_names_and_substitution() {
        let mut v = Vars::new(&[("SQLCMDDBNAME", "db1".into())]);
        assert_eq!(parse_value("\"a \"\"b\"\"\""), Ok("a \"b\"".into()));
        assert!(parse_value("a b").is_err());
        assert!(parse_value("\"a\"b\"").is_err());
        v.setvar("Tbl \"my table\"").unwrap();
        assert_eq!(
            v.substitute("SELECT '$(tbl)', '$(SQLCMDDBNAME)', $(x"),
            Ok("SELECT 'my table', 'db1', $(x".into())
        );
        assert_eq!(
            v.substitute("$(nosuch_var_xyz)"),
            Err("nosuch_var_xyz".into())
        );
        assert_eq!(
            v.setvar("SQLCMDDBNAME x"),
            Err(VarError::ReadOnly("SQLCMDDBNAME".into()))
        );
        assert_eq!(v.setvar("1x y"), Err(VarError::BadName("1x".into())));
        v.setvar("tbl").unwrap();
        assert_eq!(v.setvar("tbl"), Err(VarError::Undefined("tbl".into())));
    }
}
