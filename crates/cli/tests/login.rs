//! The login of a command-line session: the operating-system user in table mode (as a client
//! with integrated authentication), the conformance runners' `jdbc_user` under
//! `--format jsonl` (their expected outputs carry it).

use std::process::Command;

fn run(format: &str, user: &str) -> String {
    let dir = std::env::temp_dir().join(format!("latchkey-login-{}-{format}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .arg("--data")
        .arg(&dir)
        .arg("--format")
        .arg(format)
        .arg("-Q")
        .arg("SELECT SUSER_SNAME() AS a, SYSTEM_USER AS b, ORIGINAL_LOGIN() AS c, IS_SRVROLEMEMBER('sysadmin', SUSER_SNAME()) AS d, (SELECT login_name FROM sys.dm_exec_sessions WHERE session_id = @@SPID) AS e")
        .env("USER", user)
        .output()
        .expect("run latchkey");
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn table_mode_runs_as_the_operating_system_user() {
    let out = run("table", "noops_login");
    let row = out
        .lines()
        .find(|l| l.starts_with("noops_login"))
        .unwrap_or_else(|| panic!("no login row in:\n{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "noops_login",
            "noops_login",
            "noops_login",
            "1",
            "noops_login"
        ],
        "{out}"
    );
    assert!(!out.contains("jdbc_user"), "{out}");
}

#[test]
fn jsonl_mode_keeps_the_conformance_login() {
    let out = run("jsonl", "noops_login");
    assert!(out.contains("\"jdbc_user\""), "{out}");
    assert!(!out.contains("noops_login"), "{out}");
}
