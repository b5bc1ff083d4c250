//! Server configuration: `sp_configure`, `RECONFIGURE [WITH OVERRIDE]`, `sys.configurations`.
//!
//! * `sp_configure 'name', value` stores the configured value (`value` in sys.configurations)
//!   in master's catalog (a `C` row, key = configuration_id) and prints SQL Server's message
//!   15457; `RECONFIGURE` installs every configured value of a dynamic option
//!   (`value_in_use`); a non-dynamic one is installed at the next start (every start installs
//!   every configured value).
//! * Options latchkey acts on: `max server memory (MB)` (the buffer pool of each database
//!   opened after the start is at most this size; pools are not resized while open, so the
//!   option is not dynamic here), `max degree of parallelism` and `cost threshold for
//!   parallelism` (read when a statement is compiled: `query_hints::apply_parallelism`), and `latchkey storage read latency (ms)` (latchkey's own: the latency added to every
//!   data-file read of every database, the S2/S6 model; also `latchkey --io-latency-ms N`).
//! * Every other option listed is shown with SQL Server's default and refused with Msg 40517
//!   naming it when set to another value (nothing is accepted without effect).
//! * Names are matched as SQL Server does: an exact name first, else a unique name containing
//!   the text (15123 when none, 15124 when several); advanced options need `show advanced
//!   options` = 1 in use.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use common::{SqlError, SqlResult};
use parking_lot::Mutex;
use types::{DataType, Value};

use crate::events::{EventSink, InfoMessage, OutColumn};
use crate::server::Engine;

/// One configuration option (a sys.configurations row).
pub struct ConfigOption {
    pub id: i32,
    pub name: &'static str,
    pub minimum: i64,
    pub maximum: i64,
    pub default: i64,
    pub is_dynamic: bool,
    pub is_advanced: bool,
    /// Whether latchkey acts on the value (else only the default is accepted).
    pub acted_on: bool,
    pub description: &'static str,
}

pub const SHOW_ADVANCED: i32 = 518;
pub const MAX_SERVER_MEMORY: i32 = 1544;
pub const MAX_DOP: i32 = 1539;
pub const COST_THRESHOLD: i32 = 1538;
/// `latchkey storage read latency (ms)`: an id outside SQL Server's range.
pub const READ_LATENCY: i32 = 90001;

const fn opt(
    id: i32,
    name: &'static str,
    (minimum, maximum, default): (i64, i64, i64),
    is_dynamic: bool,
    is_advanced: bool,
    acted_on: bool,
    description: &'static str,
) -> ConfigOption {
    ConfigOption {
        id,
        name,
        minimum,
        maximum,
        default,
        is_dynamic,
        is_advanced,
        acted_on,
        description,
    }
}

/// The options, sorted by name as sp_configure lists them. Ids, ranges, defaults and
/// descriptions are SQL Server's (sys.configurations of SQL Server 2019), but for
/// `max server memory (MB)`'s is_dynamic (see the module doc) and latchkey's own option.
pub static OPTIONS: &[ConfigOption] = &[
    opt(16391, "Ad Hoc Distributed Queries", (0, 1, 0), true, true, false, "Enable or disable Ad Hoc Distributed Queries"),
    opt(102, "allow updates", (0, 1, 0), true, false, false, "Allow updates to system tables"),
    opt(1579, "backup compression default", (0, 1, 0), true, false, false, "Enable compression of backups by default"),
    opt(1562, "clr enabled", (0, 1, 0), true, false, false, "CLR user code execution enabled in the server"),
    opt(16393, "contained database authentication", (0, 1, 0), true, false, false, "Enables contained databases and contained authentication"),
    opt(COST_THRESHOLD, "cost threshold for parallelism", (0, 32767, 5), true, true, true, "cost threshold for parallelism"),
    opt(16386, "Database Mail XPs", (0, 1, 0), true, true, false, "Enable or disable Database Mail XPs"),
    opt(109, "fill factor (%)", (0, 100, 0), false, true, false, "Default fill factor percentage"),
    opt(READ_LATENCY, "latchkey storage read latency (ms)", (0, 10000, 0), true, false, true, "Latency added to every data file read (latchkey's storage model)"),
    opt(MAX_DOP, "max degree of parallelism", (0, 32767, 0), true, true, true, "maximum degree of parallelism"),
    opt(MAX_SERVER_MEMORY, "max server memory (MB)", (128, 2147483647, 2147483647), false, true, true, "Maximum size of server memory (MB)"),
    opt(503, "max worker threads", (128, 65535, 0), false, true, false, "Maximum worker threads"),
    opt(1543, "min server memory (MB)", (0, 2147483647, 0), true, true, false, "Minimum size of server memory (MB)"),
    opt(115, "nested triggers", (0, 1, 1), true, false, false, "Allow triggers to be invoked within triggers"),
    opt(505, "network packet size (B)", (512, 32767, 4096), true, true, false, "Network packet size"),
    opt(1581, "optimize for ad hoc workloads", (0, 1, 0), true, true, false, "When this option is set, plan cache size is further reduced for single-use adhoc OLTP workload."),
    opt(117, "remote access", (0, 1, 1), false, false, false, "Allow remote access"),
    opt(SHOW_ADVANCED, "show advanced options", (0, 1, 0), true, false, true, "show advanced options"),
    opt(103, "user connections", (0, 32767, 0), false, true, false, "Number of user connections allowed"),
    opt(16390, "xp_cmdshell", (0, 1, 0), true, true, false, "Enable or disable command shell"),
];

pub fn option(id: i32) -> Option<&'static ConfigOption> {
    OPTIONS.iter().find(|o| o.id == id)
}

/// The values in use (`value_in_use`), shared by all sessions; the hot ones are atomics.
pub struct Settings {
    in_use: Mutex<BTreeMap<i32, i64>>,
    read_latency_ms: AtomicU64,
    /// When the engine started (sys.dm_io_virtual_file_stats.sample_ms).
    pub started: Instant,
}

impl Settings {
    pub fn new(read_latency: Duration) -> Settings {
        let ms = read_latency.as_millis().min(10_000) as i64;
        let mut in_use = BTreeMap::new();
        in_use.insert(READ_LATENCY, ms);
        Settings {
            in_use: Mutex::new(in_use),
            read_latency_ms: AtomicU64::new(ms as u64),
            started: Instant::now(),
        }
    }

    /// The value in use of option `id` (its default when never set).
    pub fn in_use(&self, id: i32) -> i64 {
        let v = self.in_use.lock().get(&id).copied();
        v.or_else(|| option(id).map(|o| o.default)).unwrap_or(0)
    }

    /// The value in use of option `id`; `run_default` (a `LATCHKEY_CONFIG` value, run_config.rs)
    /// in place of the option's default when sp_configure never set it.
    pub fn in_use_or(&self, id: i32, run_default: Option<i64>) -> i64 {
        let v = self.in_use.lock().get(&id).copied();
        v.or(run_default).unwrap_or_else(|| self.in_use(id))
    }

    /// The data-file read latency every database gets (applied at open and at RECONFIGURE).
    pub fn read_latency(&self) -> Duration {
        Duration::from_millis(self.read_latency_ms.load(Relaxed))
    }

    /// The buffer pool size for a database opened now: `configured` capped by
    /// `max server memory (MB)`.
    pub fn pool_bytes(&self, configured: usize) -> usize {
        let mb = self.in_use(MAX_SERVER_MEMORY);
        let cap = usize::try_from(mb)
            .unwrap_or(usize::MAX)
            .saturating_mul(1 << 20);
        configured.min(cap)
    }

    fn install(&self, id: i32, value: i64) {
        self.in_use.lock().insert(id, value);
        if id == READ_LATENCY {
            self.read_latency_ms.store(value.max(0) as u64, Relaxed);
        }
    }
}

/// At start, after master is open: every configured value is in use (non-dynamic ones
/// included); `--io-latency-ms` overrides the stored latency for this run.
pub(crate) fn load_at_start(engine: &Engine, configured: &BTreeMap<i32, i64>, cli_latency: bool) {
    let s = engine.settings();
    for (&id, &v) in configured {
        if id == READ_LATENCY && cli_latency {
            continue;
        }
        s.install(id, v);
    }
}

/// Applies the values in use to the open databases (read latency).
fn apply(engine: &Engine) {
    let latency = engine.settings().read_latency();
    for h in engine.databases() {
        h.store.set_read_latency(latency);
    }
}

fn configured(engine: &Engine) -> SqlResult<BTreeMap<i32, i64>> {
    Ok(engine.master()?.cat.read().configs.clone())
}

fn value_of(configured: &BTreeMap<i32, i64>, engine: &Engine, o: &ConfigOption) -> i64 {
    configured
        .get(&o.id)
        .copied()
        .unwrap_or_else(|| engine.settings().in_use(o.id))
}

/// Options sp_configure may see: advanced ones only with `show advanced options` in use.
fn visible(engine: &Engine, o: &ConfigOption) -> bool {
    !o.is_advanced || engine.settings().in_use(SHOW_ADVANCED) == 1
}

/// SQL Server's lookup: exact name, else the unique visible option containing the text.
fn find(engine: &Engine, name: &str) -> SqlResult<&'static ConfigOption> {
    let lower = name.to_lowercase();
    let exact: Vec<_> = OPTIONS
        .iter()
        .filter(|o| visible(engine, o) && o.name.to_lowercase() == lower)
        .collect();
    if let [o] = exact[..] {
        return Ok(o);
    }
    let partial: Vec<_> = OPTIONS
        .iter()
        .filter(|o| visible(engine, o) && o.name.to_lowercase().contains(&lower))
        .collect();
    match partial[..] {
        [o] => Ok(o),
        [] => Err(SqlError::new(15123, &[&name])),
        _ => Err(SqlError::new(15124, &[&name])),
    }
}

fn listing(
    engine: &Engine,
    opts: &[&ConfigOption],
    show_count: bool,
    sink: &mut dyn EventSink,
) -> SqlResult<()> {
    let conf = configured(engine)?;
    let cols = [
        ("name", DataType::NVarChar(Some(35))),
        ("minimum", DataType::Int),
        ("maximum", DataType::Int),
        ("config_value", DataType::Int),
        ("run_value", DataType::Int),
    ];
    let cols: Vec<OutColumn> = cols
        .into_iter()
        .map(|(n, t)| OutColumn {
            name: n.into(),
            data_type: t,
        })
        .collect();
    sink.result_start(&cols);
    for o in opts {
        let int = |v: i64| Value::Int(v.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
        sink.row(&[
            Value::NVarChar(o.name.to_string()),
            int(o.minimum),
            int(o.maximum),
            int(value_of(&conf, engine, o)),
            int(engine.settings().in_use(o.id)),
        ]);
    }
    sink.result_end(opts.len() as u64, false, show_count);
    Ok(())
}

/// `EXEC sp_configure [name [, value]]`: `args` are the evaluated arguments; `show_count`
/// = not SET NOCOUNT ON.
pub(crate) fn sp_configure(
    engine: &Engine,
    args: &[Value],
    show_count: bool,
    sink: &mut dyn EventSink,
) -> SqlResult<()> {
    let text = |v: &Value| crate::render::value_text(v, &DataType::NVarChar(None));
    let name = match args.first() {
        None | Some(Value::Null) => {
            let all: Vec<&ConfigOption> = OPTIONS.iter().filter(|o| visible(engine, o)).collect();
            return listing(engine, &all, show_count, sink);
        }
        Some(v) => text(v).unwrap_or_default(),
    };
    let o = find(engine, name.trim())?;
    let value = match args.get(1) {
        None | Some(Value::Null) => return listing(engine, &[o], show_count, sink),
        Some(v) => {
            let t = text(v).unwrap_or_default();
            t.trim()
                .parse::<i64>()
                .map_err(|_| SqlError::new(8114, &[&"varchar", &"int"]))?
        }
    };
    if value < o.minimum || value > o.maximum {
        return Err(SqlError::new(15129, &[&value, &o.name]));
    }
    if !o.acted_on && value != o.default {
        return Err(SqlError::unsupported(format!(
            "sp_configure '{}' = {value}",
            o.name
        )));
    }
    let master = engine.master()?;
    let old = value_of(&configured(engine)?, engine, o);
    let tree = master.store.catalog_btree()?;
    let mut txn = master.store.begin()?;
    master
        .cat
        .write()
        .put_config(&tree, &mut txn, o.id, value)?;
    txn.commit()?;
    sink.message(&InfoMessage {
        text: format!(
            "Configuration option '{}' changed from {old} to {value}. Run the RECONFIGURE statement to install.",
            o.name
        ),
        number: 15457,
        severity: 0,
        state: 1,
    });
    Ok(())
}

/// `RECONFIGURE [WITH OVERRIDE]`: installs the configured values of the dynamic options.
pub(crate) fn reconfigure(engine: &Engine, text: &str, trancount: u32) -> SqlResult<()> {
    let rest: Vec<String> = text
        .split_whitespace()
        .skip(1)
        .map(|w| w.trim_end_matches(';').to_ascii_uppercase())
        .filter(|w| !w.is_empty())
        .collect();
    if !(rest.is_empty() || rest == ["WITH", "OVERRIDE"]) {
        let near = match rest.first().map(String::as_str) {
            Some("WITH") => rest.get(1).cloned().unwrap_or_else(|| "WITH".into()),
            _ => rest.first().cloned().unwrap_or_default(),
        };
        return Err(SqlError::syntax_near(&near));
    }
    if trancount > 0 {
        return Err(SqlError::new(574, &[&"RECONFIGURE"]));
    }
    let conf = configured(engine)?;
    let s = engine.settings();
    for o in OPTIONS.iter().filter(|o| o.is_dynamic) {
        if let Some(&v) = conf.get(&o.id) {
            s.install(o.id, v);
        }
    }
    apply(engine);
    Ok(())
}

/// sys.configurations: (columns, rows).
pub(crate) fn configurations_view(
    engine: &Engine,
) -> SqlResult<(Vec<catalog::ColumnDef>, Vec<Vec<Value>>)> {
    let conf = configured(engine)?;
    let cols = [
        ("configuration_id", DataType::Int),
        ("name", DataType::NVarChar(Some(35))),
        ("value", DataType::Int),
        ("minimum", DataType::Int),
        ("maximum", DataType::Int),
        ("value_in_use", DataType::Int),
        ("description", DataType::NVarChar(Some(255))),
        ("is_dynamic", DataType::Bit),
        ("is_advanced", DataType::Bit),
    ];
    let cols = cols
        .into_iter()
        .map(|(n, t)| catalog::ColumnDef::new(n, t, n != "configuration_id" && n != "name"))
        .collect();
    let mut opts: Vec<&ConfigOption> = OPTIONS.iter().collect();
    opts.sort_by_key(|o| o.id);
    let int = |v: i64| Value::Int(v.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
    let rows = opts
        .iter()
        .map(|o| {
            vec![
                Value::Int(o.id),
                Value::NVarChar(o.name.to_string()),
                int(value_of(&conf, engine, o)),
                int(o.minimum),
                int(o.maximum),
                int(engine.settings().in_use(o.id)),
                Value::NVarChar(o.description.to_string()),
                Value::Bit(o.is_dynamic),
                Value::Bit(o.is_advanced),
            ]
        })
        .collect();
    Ok((cols, rows))
}
