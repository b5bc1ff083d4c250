//! The configuration of a whole run for tests and CI: `LATCHKEY_CONFIG`, read once when the
//! engine opens (`Engine::open`), so every process of a test run — the CLI, `latchkey serve`,
//! the engine interface of the conformance runners — plans and executes under it.
//!
//! `LATCHKEY_CONFIG="maxdop=2,cost_threshold=0,batch=force,buffer_pool_pages=64,grant_kb=64"`:
//!
//! * `maxdop=N`: the server's `max degree of parallelism` when sp_configure never set it.
//! * `cost_threshold=N`: the server's `cost threshold for parallelism` when never set
//!   (0: every plan the planner can parallelize runs in parallel).
//! * `batch=auto|force|off`: a statement without `USE HINT ('ALLOW_BATCH_MODE' /
//!   'DISALLOW_BATCH_MODE')` is planned as if it carried `ALLOW_BATCH_MODE` (force: every
//!   pipeline that has a batch implementation runs in batch mode, whatever its size) or
//!   `DISALLOW_BATCH_MODE` (off).
//! * `buffer_pool_pages=N`: each database's buffer pool holds N 8 KB pages (at least 16).
//! * `grant_kb=N`: the memory of one memory-consuming operator (sort, hash join, hash
//!   aggregate, window spool) before it spills (at least 1).
//! * `identity_cache=on|off`: whether IDENTITY values come from a cache of reserved values
//!   (identity_cache.rs), in place of each database's `ALTER DATABASE SCOPED CONFIGURATION
//!   SET IDENTITY_CACHE` (scoped_config.rs) when a database is opened.
//!
//! Nothing else changes: sys.configurations still shows the configured values, an explicit
//! `sp_configure`, `OPTION (MAXDOP n)` or `USE HINT` still wins, and a process without the
//! variable runs exactly as before. An unknown key or a bad value refuses to start (a test run
//! under a misspelt configuration would silently test the default one).

use common::{SqlError, SqlResult};
use optimizer::batch_mode::BatchModeHint;

/// The environment variable read at engine start.
pub const VAR: &str = "LATCHKEY_CONFIG";

/// Smallest buffer pool `buffer_pool_pages` accepts: the pages one statement may hold pinned
/// at once (a B-tree path plus a heap page and the allocation pages) fit with room to spare.
pub const MIN_POOL_PAGES: usize = 16;

/// What `LATCHKEY_CONFIG` set (`None`: the engine's own default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunConfig {
    pub max_dop: Option<i64>,
    pub cost_threshold: Option<i64>,
    pub batch: Option<BatchModeHint>,
    pub buffer_pool_pages: Option<usize>,
    pub grant_kb: Option<usize>,
    pub identity_cache: Option<bool>,
}

impl RunConfig {
    /// The run's configuration from `LATCHKEY_CONFIG` (the default one when unset or empty).
    pub fn from_env() -> SqlResult<RunConfig> {
        match std::env::var(VAR) {
            Ok(text) => RunConfig::parse(&text),
            Err(std::env::VarError::NotPresent) => Ok(RunConfig::default()),
            Err(std::env::VarError::NotUnicode(_)) => Err(bad(VAR, "is not UTF-8")),
        }
    }

    /// Parses `key=value[,key=value...]` (see the module doc).
    pub fn parse(text: &str) -> SqlResult<RunConfig> {
        let mut c = RunConfig::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(bad(item, "is not key=value"));
            };
            let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
            match key.as_str() {
                "maxdop" => c.max_dop = Some(number(&key, value, 0, 32767)?),
                "cost_threshold" => c.cost_threshold = Some(number(&key, value, 0, 32767)?),
                "batch" => {
                    c.batch = Some(match value.to_ascii_lowercase().as_str() {
                        "auto" => BatchModeHint::Auto,
                        "force" => BatchModeHint::Allow,
                        "off" => BatchModeHint::Disallow,
                        _ => return Err(bad(item, "wants auto, force or off")),
                    })
                }
                "buffer_pool_pages" => {
                    let n = number(&key, value, MIN_POOL_PAGES as i64, 1 << 40)?;
                    c.buffer_pool_pages = Some(n as usize);
                }
                "grant_kb" => c.grant_kb = Some(number(&key, value, 1, 1 << 40)? as usize),
                "identity_cache" => {
                    c.identity_cache = Some(match value.to_ascii_lowercase().as_str() {
                        "on" => true,
                        "off" => false,
                        _ => return Err(bad(item, "wants on or off")),
                    })
                }
                _ => return Err(bad(item, "has an unknown key")),
            }
        }
        Ok(c)
    }

    /// The batch-mode switch of a statement whose hints left it at `Auto`.
    pub fn batch_mode(&self, hinted: BatchModeHint) -> BatchModeHint {
        match (hinted, self.batch) {
            (BatchModeHint::Auto, Some(b)) => b,
            (h, _) => h,
        }
    }

    /// Applies the storage and memory knobs to the engine's configuration.
    pub(crate) fn apply(&self, config: &mut crate::EngineConfig) {
        if let Some(pages) = self.buffer_pool_pages {
            config.storage.buffer_pool_bytes = pages.saturating_mul(storage::page::PAGE_SIZE);
        }
        if let Some(kb) = self.grant_kb {
            config.operator_memory_bytes = Some(kb.saturating_mul(1024));
        }
    }
}

fn number(key: &str, value: &str, min: i64, max: i64) -> SqlResult<i64> {
    match value.parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(bad(
            &format!("{key}={value}"),
            &format!("wants a number from {min} to {max}"),
        )),
    }
}

fn bad(item: &str, why: &str) -> SqlError {
    SqlError::internal(format!("{VAR}: '{item}' {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key() {
        let c = RunConfig::parse(
            " maxdop=2, cost_threshold=0,batch=FORCE,buffer_pool_pages=64,grant_kb=64 ",
        )
        .unwrap();
        assert_eq!(c.max_dop, Some(2));
        assert_eq!(c.cost_threshold, Some(0));
        assert_eq!(c.batch, Some(BatchModeHint::Allow));
        assert_eq!(c.buffer_pool_pages, Some(64));
        assert_eq!(c.grant_kb, Some(64));
        assert_eq!(
            RunConfig::parse("identity_cache=OFF")
                .unwrap()
                .identity_cache,
            Some(false)
        );
        assert_eq!(RunConfig::parse("").unwrap(), RunConfig::default());
        assert_eq!(
            RunConfig::parse("batch=off").unwrap().batch,
            Some(BatchModeHint::Disallow)
        );
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for bad in [
            "maxdop",
            "maxdop=-1",
            "maxdop=two",
            "dop=2",
            "batch=sometimes",
            "buffer_pool_pages=15",
            "grant_kb=0",
            "identity_cache=1",
        ] {
            assert!(RunConfig::parse(bad).is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn a_statement_hint_wins_over_the_run() {
        let c = RunConfig::parse("batch=force").unwrap();
        assert_eq!(c.batch_mode(BatchModeHint::Auto), BatchModeHint::Allow);
        assert_eq!(
            c.batch_mode(BatchModeHint::Disallow),
            BatchModeHint::Disallow
        );
        assert_eq!(
            RunConfig::default().batch_mode(BatchModeHint::Auto),
            BatchModeHint::Auto
        );
    }
}
