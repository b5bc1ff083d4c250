pub mod parquet_io;

use common::{SqlError, SqlResult};
use std::path::PathBuf;

/// A file location as written in `OPENROWSET(BULK ...)` or an external data source: a plain
/// path or a `file://` URL. Remote stores (`abfss://`, `s3://`, `https://` ...) are Msg 40517
/// naming the scheme: latchkey reads and writes local files only.
pub fn local_path(location: &str) -> SqlResult<PathBuf> {
    if let Some(rest) = location.strip_prefix("file://") {
        return Ok(PathBuf::from(rest));
    }
    if let Some(i) = location.find("://") {
        let scheme = &location[..i];
        if !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+')
        {
            return Err(SqlError::unsupported(format!(
                "location '{scheme}://' (only local files are supported)"
            )));
        }
    }
    Ok(PathBuf::from(location))
}
