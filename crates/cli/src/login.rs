//! The login a command-line session runs as: the operating-system user, as a SQL Server
//! client connecting with integrated (Windows / Kerberos) authentication appears under its
//! own account name. `--format jsonl` keeps the engine's default login (`jdbc_user`), which the
//! conformance runners' expected outputs carry.

/// The operating-system user's name: `$USER`, else `$LOGNAME`, else the password database's
/// entry for the real uid; `latchkey` when none is known.
pub fn os_login() -> String {
    for var in ["USER", "LOGNAME"] {
        if let Some(v) = std::env::var_os(var) {
            let v = v.to_string_lossy().trim().to_string();
            if !v.is_empty() {
                return v;
            }
        }
    }
    passwd_name().unwrap_or_else(|| "latchkey".to_string())
}

fn passwd_name() -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 4096];
    // SAFETY: zeroed `passwd` is a valid out-parameter; getpwuid_r writes only into `pwd`
    // and `buf` (whose length it is told) and sets `result` to null or to `&pwd`.
    unsafe {
        let mut pwd: libc::passwd = std::mem::zeroed();
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut result,
        );
        if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(pwd.pw_name)
            .to_string_lossy()
            .into_owned();
        (!name.is_empty()).then_some(name)
    }
}
