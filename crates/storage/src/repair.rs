//! SQL Server's explicit way out of a damaged database (storage README "Emergency and
//! repair"): EMERGENCY mode opens the data files read-only without the log; REPAIR_ALLOW_DATA_LOSS
//! replays what the readable prefix of the old log allows and continues with a new log.

use std::path::Path;
use std::sync::Arc;

use common::{PageId, SqlError, SqlResult};

use crate::db::RepairReport;
use crate::file::DataFile;
use crate::fileid::DbGuid;
use crate::page::{self, PageBuf, PAGE_SIZE};
use crate::wal::{self, Log, LOG_HDR};
use crate::StorageConfig;

/// EMERGENCY mode's log: an unlinked temporary file nothing is ever appended to (appends
/// fail with Msg 3906), so the database's own files are never written.
pub fn scratch_log(config: &StorageConfig, guid: DbGuid) -> SqlResult<Log> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let path = std::env::temp_dir().join(format!(
        "latchkey-emergency-{}-{nanos:08x}.ldf",
        std::process::id()
    ));
    let log = Log::create_fresh(&path, config.io_latency, false, guid, LOG_HDR)?;
    let _ = std::fs::remove_file(&path);
    Ok(log)
}

/// REPAIR_ALLOW_DATA_LOSS: reads the readable prefix of the old log (if it is there and
/// belongs to this database), moves the old file aside to `log.ldf.damaged`, and creates the
/// new log at an LSN above every page LSN and the old log's end (so page-LSN-guarded redo
/// never skips a later change). Returns the new log and the old prefix's base and bytes.
pub fn replace_log(
    log_path: &Path,
    config: &StorageConfig,
    guid: DbGuid,
    files: &[Arc<DataFile>],
    report: &mut RepairReport,
) -> SqlResult<(Log, u64, Vec<u8>)> {
    let mut old_base = LOG_HDR;
    let mut prefix = Vec::new();
    if log_path.exists() {
        match Log::read_for_repair(log_path) {
            Ok((g, base, data)) => {
                if g != [0; 16] && g != guid {
                    report.old_log = Some("the log belongs to another database".into());
                } else {
                    let valid = wal::valid_prefix(&data, base);
                    report.old_log = Some(String::new());
                    report.replayed_bytes = valid as u64;
                    report.discarded_bytes = (data.len() - valid) as u64;
                    old_base = base;
                    prefix = data;
                    prefix.truncate(valid);
                }
            }
            Err(e) => report.old_log = Some(e.message),
        }
        let aside = log_path.with_extension("ldf.damaged");
        std::fs::rename(log_path, &aside)
            .map_err(|e| SqlError::io("rename", &log_path.display().to_string(), &e))?;
    }
    let old_end = old_base + prefix.len() as u64;
    let base = old_end.max(max_page_lsn(files)? + 1).max(LOG_HDR);
    let log = Log::create_fresh(log_path, config.io_latency, config.sync_commit, guid, base)?;
    Ok((log, old_base, prefix))
}

/// The highest LSN of any sound page of the data files.
fn max_page_lsn(files: &[Arc<DataFile>]) -> SqlResult<u64> {
    const CHUNK: usize = 64;
    let mut buf = vec![0u8; CHUNK * PAGE_SIZE];
    let mut max = 0u64;
    for f in files {
        let pages = f.size_bytes().div_ceil(PAGE_SIZE as u64) as u32;
        let mut at = 0u32;
        while at < pages {
            let n = (pages - at).min(CHUNK as u32) as usize;
            f.read_pages(at, &mut buf[..n * PAGE_SIZE])?;
            for (i, chunk) in buf[..n * PAGE_SIZE].chunks_exact(PAGE_SIZE).enumerate() {
                let Ok(p) = <&PageBuf>::try_from(chunk) else {
                    continue;
                };
                if page::verify(p, PageId::new(f.id, at + i as u32)).is_ok() {
                    max = max.max(page::lsn(p));
                }
            }
            at += n as u32;
        }
    }
    Ok(max)
}
