//! The error log (`<data>/log/ERRORLOG`): start, listening address, failed logins with their
//! reason (which the client never sees), shutdown.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct ErrorLog(Option<Arc<Mutex<File>>>);

impl ErrorLog {
    /// Appends to `path` (creating its directory).
    pub fn open(path: &Path) -> std::io::Result<ErrorLog> {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        let f = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(ErrorLog(Some(Arc::new(Mutex::new(f)))))
    }

    /// A log that writes nowhere (tests that do not look at it).
    pub fn none() -> ErrorLog {
        ErrorLog(None)
    }

    pub fn line(&self, text: &str) {
        let Some(f) = &self.0 else { return };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let stamp = format_utc(now.as_secs(), now.subsec_millis());
        if let Ok(mut f) = f.lock() {
            let _ = writeln!(f, "{stamp} Server      {text}");
            let _ = f.flush();
        }
    }
}

/// `YYYY-MM-DD hh:mm:ss.mmm` (UTC) for a Unix time.
fn format_utc(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{millis:03}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_format() {
        assert_eq!(super::format_utc(0, 5), "1970-01-01 00:00:00.005");
        assert_eq!(
            super::format_utc(1_700_000_000, 0),
            "2023-11-14 22:13:20.000"
        );
    }
}
