//! Database files: `CREATE DATABASE ... ON (file specs) LOG ON (file spec)`, the catalog views
//! of files (sys.database_files, sys.master_files, sys.data_spaces,
//! sys.dm_io_virtual_file_stats, with config.rs's sys.configurations), and the storage targets
//! (`ON filegroup`) of tables and indexes.
//!
//! * Data spec i (0-based) is storage data file i+1 (`dataN.mdf` in the database directory):
//!   SQL Server's file id 1 for the first (primary), 3, 4, ... for the others; the log is file
//!   id 2. Storage allocates new extents over the files by proportional fill (storage README A2).
//! * `FILENAME`: absolute, or relative to the data directory. A file placed outside the
//!   database directory is created there and linked (a symbolic link `dataN.mdf` / `log.ldf`
//!   in the directory), so storage, recovery and the crash tests see one layout. The file
//!   must not exist (5170) and its directory must (5123, OS error 3).
//! * `SIZE` grows the file at once, `MAXSIZE` caps it (Msg 1105 past it, as a full disk),
//!   `FILEGROWTH` sets its growth step (0 = no growth); sizes are in MB unless KB/MB/GB/TB
//!   (or % for FILEGROWTH) is written. Data files hold at most 4 GB (one GAM page per file),
//!   so a larger SIZE is Msg 40517; UNLIMITED is shown as -1 but means 4 GB. Kept in master's
//!   registration of the database (`DatabaseDef::files`) and reapplied at every open.
//! * The log: one file (several = 40517). Its SIZE and FILEGROWTH are recorded and shown, but
//!   the log is sized by its checkpoints (its blocks are reused, wal/README W7); a MAXSIZE
//!   other than UNLIMITED is Msg 40517 (a limit that would not be enforced).
//! * Filegroups (ADD / REMOVE / MODIFY FILEGROUP, `TO FILEGROUP`, `ON fg`, sys.filegroups)
//!   are `filegroups.rs`; CREATE DATABASE's `FILEGROUP` clauses are Msg 40517.
//! * `ADD FILE (spec), ...` adds data files to an open database (storage's crash-safe file-set
//!   change, README "Changing the file set"), then rewrites master's file list; `REMOVE FILE`
//!   raises 5009 / 5020 / 5042 where they apply and removes an empty secondary file. Storage's
//!   file set is the truth when the two disagree after a crash (`files_of`).
//!   `MODIFY FILE` changes SIZE / MAXSIZE / FILEGROWTH and NEWNAME (5021), FILENAME is 40517.
//!   `ADD LOG FILE` is 40517 (one log file).

use std::path::{Path, PathBuf};

use catalog::{DatabaseDef, DbFileDef};
use common::{SqlError, SqlResult};
use parser::ast::{self, OptionValue};
use types::Value;

use crate::server::{DbHandle, Engine};
use crate::session::Session;

const PAGE: i64 = 8192;
/// Largest data file (64,768 extents of one GAM page, storage README).
const MAX_DATA_FILE: i64 = 64_768 * 8 * PAGE;

/// A size in a file spec.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Size {
    Bytes(i64),
    Percent(i64),
    Unlimited,
}

fn parse_size(option: &str, v: Option<&OptionValue>) -> SqlResult<Size> {
    let text = match v {
        Some(OptionValue::Number(n)) => n.clone(),
        Some(OptionValue::Word(w)) | Some(OptionValue::String(w)) => w.clone(),
        _ => return Err(SqlError::syntax_near(option)),
    };
    let upper = text.trim().to_ascii_uppercase();
    if upper == "UNLIMITED" && option == "MAXSIZE" {
        return Ok(Size::Unlimited);
    }
    let digits_end = upper
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(upper.len());
    let (num, unit) = upper.split_at(digits_end);
    let n: f64 = num.parse().map_err(|_| SqlError::syntax_near(&text))?;
    let scale: f64 = match unit.trim() {
        "" | "MB" => (1i64 << 20) as f64,
        "KB" => 1024.0,
        "GB" => (1i64 << 30) as f64,
        "TB" => (1i64 << 40) as f64,
        "%" if option == "FILEGROWTH" => return Ok(Size::Percent(n as i64)),
        _ => return Err(SqlError::syntax_near(&text)),
    };
    let bytes = n * scale;
    if !(0.0..=9.0e18).contains(&bytes) {
        return Err(SqlError::syntax_near(&text));
    }
    Ok(Size::Bytes(bytes as i64))
}

/// One parsed file spec.
struct Spec {
    name: Option<String>,
    filename: Option<String>,
    size: Option<Size>,
    max: Option<Size>,
    growth: Option<Size>,
}

fn parse_spec(spec: &ast::FileSpec) -> SqlResult<Spec> {
    let mut s = Spec {
        name: None,
        filename: None,
        size: None,
        max: None,
        growth: None,
    };
    for o in spec {
        let text = || match &o.value {
            Some(OptionValue::String(v)) | Some(OptionValue::Word(v)) => Ok(v.clone()),
            Some(OptionValue::Number(v)) => Ok(v.clone()),
            _ => Err(SqlError::syntax_near(&o.name)),
        };
        match o.name.as_str() {
            "NAME" => s.name = Some(text()?),
            "FILENAME" => s.filename = Some(text()?),
            "SIZE" => s.size = Some(parse_size("SIZE", o.value.as_ref())?),
            "MAXSIZE" => s.max = Some(parse_size("MAXSIZE", o.value.as_ref())?),
            "FILEGROWTH" => s.growth = Some(parse_size("FILEGROWTH", o.value.as_ref())?),
            other => return Err(SqlError::unsupported(format!("file option {other}"))),
        }
    }
    Ok(s)
}

fn pages(bytes: i64) -> i64 {
    (bytes + PAGE - 1) / PAGE
}

/// The files of a new database from its CREATE DATABASE specs, checked; files placed outside
/// `db_dir` are linked into it (module doc). Nothing is created when an error is returned.
fn plan_files(
    db_name: &str,
    cd: &ast::CreateDatabase,
    data_dir: &Path,
    db_dir: &Path,
) -> SqlResult<Vec<DbFileDef>> {
    if cd.log_files.len() > 1 {
        return Err(SqlError::unsupported("several log files"));
    }
    let mut files = Vec::new();
    let specs = cd
        .files
        .iter()
        .map(|f| (false, f))
        .chain(cd.log_files.iter().map(|f| (true, f)));
    let mut data_index = 0u16;
    for (log, spec) in specs {
        let s = parse_spec(spec)?;
        let (file_id, storage_index, default_name, local) = if log {
            (2, 0, format!("{db_name}_log"), db_dir.join("log.ldf"))
        } else {
            data_index += 1;
            let id = if data_index == 1 {
                1
            } else {
                i32::from(data_index) + 1
            };
            let name = if data_index == 1 {
                db_name.to_string()
            } else {
                format!("{db_name}_{id}")
            };
            (
                id,
                data_index,
                name,
                db_dir.join(format!("data{data_index}.mdf")),
            )
        };
        let physical = match &s.filename {
            Some(f) => {
                let p = PathBuf::from(f);
                if p.is_absolute() {
                    p
                } else {
                    data_dir.join(p)
                }
            }
            None => local,
        };
        let size = match s.size {
            None => 0,
            Some(Size::Bytes(b)) => pages(b),
            Some(_) => return Err(SqlError::syntax_near("SIZE")),
        };
        if !log && size * PAGE > MAX_DATA_FILE {
            return Err(SqlError::unsupported("SIZE above 4 GB for a data file"));
        }
        let max = match s.max {
            None | Some(Size::Unlimited) => -1,
            Some(Size::Bytes(b)) if !log => pages(b),
            Some(_) => return Err(SqlError::unsupported("MAXSIZE of the log file")),
        };
        let (growth, pct) = match s.growth {
            None => (-1, false),
            Some(Size::Bytes(b)) => (pages(b), false),
            Some(Size::Percent(p)) => (p, true),
            Some(Size::Unlimited) => return Err(SqlError::syntax_near("UNLIMITED")),
        };
        let name = s.name.unwrap_or(default_name);
        if files
            .iter()
            .any(|f: &DbFileDef| catalog::name_eq(&f.name, &name))
        {
            return Err(SqlError::new(1828, &[&name]));
        }
        let shown = physical.display().to_string();
        if files.iter().any(|f: &DbFileDef| f.physical_name == shown) || physical.exists() {
            return Err(SqlError::new(5170, &[&shown]));
        }
        if s.filename.is_some() && in_database_directory(&physical, data_dir) {
            // a database directory is removed with its database (and created empty)
            return Err(SqlError::new(5123, &[&"5(Access is denied.)", &shown]));
        }
        if !physical.parent().is_some_and(Path::is_dir) {
            return Err(SqlError::new(
                5123,
                &[&"3(The system cannot find the path specified.)", &shown],
            ));
        }
        files.push(DbFileDef {
            file_id,
            storage_index,
            name,
            physical_name: shown,
            size_pages: size,
            max_size_pages: max,
            growth,
            is_percent_growth: pct,
        });
    }
    if !files.iter().any(|f| !f.is_log()) {
        // LOG ON alone: the primary data file is the default one
        files.insert(0, default_file(db_name, db_dir, 1));
    }
    if !files.iter().any(DbFileDef::is_log) {
        files.push(default_log(db_name, db_dir));
    }
    std::fs::create_dir_all(db_dir)
        .map_err(|e| SqlError::io("create directory", &db_dir.display().to_string(), &e))?;
    for f in &files {
        let local = local_path(f, db_dir);
        if Path::new(&f.physical_name) != local {
            std::os::unix::fs::symlink(&f.physical_name, &local).map_err(|e| {
                SqlError::new(
                    5123,
                    &[
                        &format!("{}", e.raw_os_error().unwrap_or(0)),
                        &f.physical_name,
                    ],
                )
            })?;
        }
    }
    Ok(files)
}

/// Whether `path` lies in a directory of the data directory that belongs to a database
/// (`master`, `tempdb`, `db_N`), which DROP/CREATE DATABASE and each start may remove.
fn in_database_directory(path: &Path, data_dir: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(data_dir) else {
        return false;
    };
    let mut parts = rest.components();
    match (parts.next(), parts.next()) {
        (Some(first), Some(_)) => {
            let d = first.as_os_str().to_string_lossy();
            d == "master" || d == "tempdb" || d.starts_with("db_")
        }
        _ => false,
    }
}

fn default_file(db_name: &str, db_dir: &Path, index: u16) -> DbFileDef {
    let file_id = if index == 1 { 1 } else { i32::from(index) + 1 };
    DbFileDef {
        file_id,
        storage_index: index,
        name: if index == 1 {
            db_name.to_string()
        } else {
            format!("{db_name}_{file_id}")
        },
        physical_name: db_dir
            .join(format!("data{index}.mdf"))
            .display()
            .to_string(),
        size_pages: 0,
        max_size_pages: -1,
        growth: -1,
        is_percent_growth: false,
    }
}

fn default_log(db_name: &str, db_dir: &Path) -> DbFileDef {
    DbFileDef {
        file_id: 2,
        storage_index: 0,
        name: format!("{db_name}_log"),
        physical_name: db_dir.join("log.ldf").display().to_string(),
        size_pages: 0,
        max_size_pages: -1,
        growth: -1,
        is_percent_growth: false,
    }
}

/// Where storage opens file `f`: `dataN.mdf` / `log.ldf` in the database directory.
fn local_path(f: &DbFileDef, db_dir: &Path) -> PathBuf {
    if f.is_log() {
        db_dir.join("log.ldf")
    } else {
        db_dir.join(format!("data{}.mdf", f.storage_index))
    }
}

/// `CREATE DATABASE name [ON [PRIMARY] (spec), ...] [LOG ON (spec)]`.
pub(crate) fn create_database(engine: &Engine, cd: &ast::CreateDatabase) -> SqlResult<()> {
    let name = cd.name.value.as_str();
    if cd.files.is_empty() && cd.log_files.is_empty() {
        engine.create_database(name)?;
        return Ok(());
    }
    let data_dir = engine.data_dir().to_path_buf();
    engine.create_database_with(name, &|db_dir| plan_files(name, cd, &data_dir, db_dir))?;
    Ok(())
}

/// At every open: MAXSIZE and FILEGROWTH of each data file, and at creation its SIZE.
pub(crate) fn apply_file_limits(
    def: &DatabaseDef,
    store: &storage::Database,
    create: bool,
) -> SqlResult<()> {
    let present = store.data_file_ids();
    for f in def.files.iter().filter(|f| !f.is_log()) {
        if !present.contains(&f.storage_index) {
            // removed by REMOVE FILE, and the process stopped before master was updated
            continue;
        }
        let growth = match (f.growth, f.is_percent_growth) {
            (-1, _) => storage::FileGrowth::Default,
            (p, true) => storage::FileGrowth::Percent(u32::try_from(p).unwrap_or(u32::MAX)),
            (pages, false) => storage::FileGrowth::Bytes((pages * PAGE) as u64),
        };
        let size = (create && f.size_pages > 0).then_some((f.size_pages * PAGE) as u64);
        let mut max = (f.max_size_pages >= 0).then_some((f.max_size_pages * PAGE) as u64);
        if f.growth == 0 && !f.is_percent_growth {
            // FILEGROWTH = 0: the file keeps its size
            max = Some(
                max.unwrap_or(u64::MAX)
                    .min((f.size_pages.max(1) * PAGE) as u64),
            );
        }
        store.set_file_limits(f.storage_index, size, max, growth)?;
    }
    Ok(())
}

/// Removes a database's directory and the files linked into it from elsewhere (DROP
/// DATABASE, a failed CREATE DATABASE). Failures are not fatal (files may still be open).
pub(crate) fn remove_files(def: &DatabaseDef, db_dir: &Path) {
    for f in &def.files {
        let local = local_path(f, db_dir);
        if Path::new(&f.physical_name) != local
            && std::fs::symlink_metadata(&local).is_ok_and(|m| m.file_type().is_symlink())
        {
            let _ = std::fs::remove_file(&f.physical_name);
        }
    }
    // files linked by ADD FILE after `def` was read (the handle's copy is from the open)
    if let Ok(entries) = std::fs::read_dir(db_dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = name.starts_with("data") && name.ends_with(".mdf");
            if ours && e.file_type().is_ok_and(|t| t.is_symlink()) {
                if let Ok(target) = std::fs::read_link(e.path()) {
                    let _ = std::fs::remove_file(target);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(db_dir);
}

/// The file definitions of an open database: master's registration (updated by MODIFY
/// FILE), else the handle's own (master, tempdb).
fn defs_of(h: &DbHandle, engine: &Engine) -> Vec<DbFileDef> {
    let registered = engine.master().ok().and_then(|m| {
        let cat = m.cat.read();
        let d = cat
            .databases
            .iter()
            .find(|d| d.database_id == h.def.database_id);
        d.map(|d| d.files.clone())
    });
    registered.unwrap_or_else(|| h.def.files.clone())
}

/// The files of an open database: as CREATE DATABASE named them, or the defaults (one entry
/// per storage data file and the log), each with its current size in bytes.
fn files_of(h: &DbHandle, engine: &Engine) -> Vec<(DbFileDef, u64)> {
    let dir = h.store.path();
    let stats = h.store.io_stats();
    let mut files = defs_of(h, engine);
    if files.is_empty() {
        files.push(default_log(&h.def.name, dir));
    }
    // storage's file set is the truth (ADD / REMOVE FILE commit there first): a file storage
    // no longer has is not shown, one master does not know yet gets the default definition
    let ids = h.store.data_file_ids();
    files.retain(|f| f.is_log() || ids.contains(&f.storage_index));
    for i in ids {
        if !files.iter().any(|f| !f.is_log() && f.storage_index == i) {
            files.push(default_file(&h.def.name, dir, i));
        }
    }
    files
        .into_iter()
        .map(|f| {
            let size = if f.is_log() {
                std::fs::metadata(dir.join("log.ldf"))
                    .map(|m| m.len())
                    .unwrap_or(0)
            } else {
                stats
                    .files
                    .iter()
                    .find(|s| s.file_id == f.storage_index)
                    .map(|s| s.size_bytes)
                    .unwrap_or(0)
            };
            (f, size)
        })
        .collect()
}

fn s(v: &str) -> Value {
    Value::NVarChar(v.to_string())
}

fn int_pages(bytes: u64) -> Value {
    Value::Int(bytes.div_ceil(PAGE as u64).min(i32::MAX as u64) as i32)
}

/// sys.database_files columns (sys.master_files adds database_id first, credential_id last).
const FILE_COLUMNS: &[&str] = &[
    "file_id int",
    "file_guid uniqueidentifier",
    "type tinyint",
    "type_desc nvarchar(60)",
    "data_space_id int",
    "name nvarchar(128)",
    "physical_name nvarchar(260)",
    "state tinyint",
    "state_desc nvarchar(60)",
    "size int",
    "max_size int",
    "growth int",
    "is_media_read_only bit",
    "is_read_only bit",
    "is_sparse bit",
    "is_percent_growth bit",
    "is_name_reserved bit",
    "create_lsn numeric(25,0)",
    "drop_lsn numeric(25,0)",
    "read_only_lsn numeric(25,0)",
    "read_write_lsn numeric(25,0)",
    "differential_base_lsn numeric(25,0)",
    "differential_base_guid uniqueidentifier",
    "differential_base_time datetime",
    "redo_start_lsn numeric(25,0)",
    "redo_start_fork_guid uniqueidentifier",
    "redo_target_lsn numeric(25,0)",
    "redo_target_fork_guid uniqueidentifier",
    "backup_lsn numeric(25,0)",
];

/// sys.database_files rows of one database, by file id. The default growth (1/8 of the
/// size) shows as 12 percent.
fn file_rows(h: &DbHandle, engine: &Engine) -> Vec<Vec<Value>> {
    let mut rows: Vec<Vec<Value>> = files_of(h, engine)
        .into_iter()
        .map(|(f, size)| {
            let log = f.is_log();
            let (growth, pct) = match f.growth {
                -1 => (12, true),
                g => (g.min(i32::MAX as i64) as i32, f.is_percent_growth),
            };
            let mut r = vec![
                Value::Int(f.file_id),
                Value::Null,
                Value::TinyInt(u8::from(log)),
                s(if log { "LOG" } else { "ROWS" }),
                Value::Int(if log {
                    0
                } else {
                    crate::filegroups::file_data_space(h, f.storage_index)
                }),
                s(&f.name),
                s(&f.physical_name),
                Value::TinyInt(0),
                s("ONLINE"),
                int_pages(size),
                Value::Int(f.max_size_pages.min(i32::MAX as i64) as i32),
                Value::Int(growth),
                Value::Bit(false),
                Value::Bit(false),
                Value::Bit(false),
                Value::Bit(pct),
                Value::Bit(false),
            ];
            r.resize(FILE_COLUMNS.len(), Value::Null);
            r
        })
        .collect();
    rows.sort_by_key(|r| match r[0] {
        Value::Int(i) => i,
        _ => 0,
    });
    rows
}

fn columns(spec: &[&str]) -> SqlResult<Vec<catalog::ColumnDef>> {
    spec.iter()
        .map(|c| {
            let (name, t) = c.split_once(' ').unwrap_or((c, "int"));
            Ok(catalog::ColumnDef::new(
                name,
                catalog::serial::type_from_text(t)?,
                true,
            ))
        })
        .collect()
}

type ViewData = (Vec<catalog::ColumnDef>, Vec<Vec<Value>>);

/// The views of this module by lower-case name (sys schema); `None` = not one of them.
pub(crate) fn sys_view(session: &Session, name: &str) -> SqlResult<Option<ViewData>> {
    let engine = session.engine();
    Ok(Some(match name {
        "database_files" => {
            let rows = match session.current_db() {
                Ok(h) => file_rows(&h, engine),
                Err(_) => Vec::new(),
            };
            (columns(FILE_COLUMNS)?, rows)
        }
        "master_files" => {
            let mut spec = vec!["database_id int"];
            spec.extend_from_slice(FILE_COLUMNS);
            spec.push("credential_id int");
            let mut rows = Vec::new();
            for h in engine.databases() {
                for mut r in file_rows(&h, engine) {
                    r.insert(0, Value::Int(h.def.database_id));
                    r.push(Value::Null);
                    rows.push(r);
                }
            }
            (columns(&spec)?, rows)
        }
        "data_spaces" | "filegroups" => {
            let mut spec = vec![
                "name nvarchar(128)",
                "data_space_id int",
                "type char(2)",
                "type_desc nvarchar(60)",
                "is_default bit",
                "is_system bit",
            ];
            let full = name == "filegroups";
            if full {
                spec.extend([
                    "filegroup_guid uniqueidentifier",
                    "log_filegroup_id int",
                    "is_read_only bit",
                    "is_autogrow_all_files bit",
                ]);
            }
            (
                columns(&spec)?,
                crate::filegroups::filegroup_rows(session, full),
            )
        }
        "dm_io_virtual_file_stats" => (columns(IO_COLUMNS)?, io_rows(engine)),
        "dm_db_file_space_usage" => (
            columns(crate::filegroups::SPACE_USAGE_COLUMNS)?,
            crate::filegroups::space_usage_rows(session),
        ),
        "configurations" => crate::config::configurations_view(engine)?,
        "database_scoped_configurations" => crate::scoped_config::sys_view(session)?,
        _ => return Ok(None),
    }))
}

const IO_COLUMNS: &[&str] = &[
    "database_id smallint",
    "file_id smallint",
    "sample_ms bigint",
    "num_of_reads bigint",
    "num_of_bytes_read bigint",
    "io_stall_read_ms bigint",
    "io_stall_queued_read_ms bigint",
    "num_of_writes bigint",
    "num_of_bytes_written bigint",
    "io_stall_write_ms bigint",
    "io_stall_queued_write_ms bigint",
    "io_stall bigint",
    "size_on_disk_bytes bigint",
    "file_handle varbinary(8)",
];

/// sys.dm_io_virtual_file_stats for every file of every open database, from storage's
/// per-file counters (relaxed atomics, no lock). The log is file_id 2, as in SQL Server: its
/// num_of_writes counts log flushes (group commit: one flush serves every commit buffered
/// behind it), io_stall_write_ms the time spent writing and syncing them.
fn io_rows(engine: &Engine) -> Vec<Vec<Value>> {
    let sample_ms = engine
        .settings()
        .started
        .elapsed()
        .as_millis()
        .min(i64::MAX as u128) as i64;
    let big = |v: u64| Value::BigInt(v.min(i64::MAX as u64) as i64);
    let mut rows = Vec::new();
    for h in engine.databases() {
        for f in h.store.io_stats().files {
            let file_id = if f.file_id == 1 {
                1
            } else {
                i16::try_from(f.file_id)
                    .unwrap_or(i16::MAX)
                    .saturating_add(1)
            };
            rows.push(vec![
                Value::SmallInt(i16::try_from(h.def.database_id).unwrap_or(i16::MAX)),
                Value::SmallInt(file_id),
                Value::BigInt(sample_ms),
                big(f.num_of_reads),
                big(f.num_of_bytes_read),
                big(f.io_stall_read_ms),
                Value::BigInt(0),
                big(f.num_of_writes),
                big(f.num_of_bytes_written),
                big(f.io_stall_write_ms),
                Value::BigInt(0),
                big(f.io_stall_read_ms.saturating_add(f.io_stall_write_ms)),
                big(f.size_bytes),
                Value::Null,
            ]);
        }
        let l = h.store.log_stats();
        rows.push(vec![
            Value::SmallInt(i16::try_from(h.def.database_id).unwrap_or(i16::MAX)),
            Value::SmallInt(2),
            Value::BigInt(sample_ms),
            Value::BigInt(0),
            Value::BigInt(0),
            Value::BigInt(0),
            Value::BigInt(0),
            big(l.num_of_writes),
            big(l.num_of_bytes_written),
            big(l.io_stall_write_ms),
            Value::BigInt(0),
            big(l.io_stall_write_ms),
            big(l.size_bytes),
            Value::Null,
        ]);
    }
    rows
}

/// `ALTER DATABASE ... MODIFY FILE / ADD FILE / REMOVE FILE` act on the files; `ADD LOG FILE`
/// and `ADD FILEGROUP` are Msg 40517 naming them (never a silent success). Returns false for
/// the other actions.
pub(crate) fn alter_database_files(
    engine: &Engine,
    current_db: &str,
    a: &ast::AlterDatabase,
    messages: &mut Vec<crate::events::InfoMessage>,
) -> SqlResult<bool> {
    if let ast::AlterDatabaseAction::ModifyFile(spec) = &a.action {
        let name = a.name.as_ref().map_or(current_db, |n| n.value.as_str());
        if let Some(new_name) = modify_file(engine, name, spec)? {
            messages.push(crate::events::InfoMessage {
                text: format!("The file name '{new_name}' has been set."),
                number: 5021,
                severity: 10,
                state: 1,
            });
        }
        return Ok(true);
    }
    match &a.action {
        ast::AlterDatabaseAction::AddFile { log: true, .. } => {
            Err(SqlError::unsupported("ALTER DATABASE ADD LOG FILE"))
        }
        ast::AlterDatabaseAction::AddFile {
            files, filegroup, ..
        } => {
            let name = a.name.as_ref().map_or(current_db, |n| n.value.as_str());
            add_files(
                engine,
                name,
                files,
                filegroup.as_ref().map(|g| g.value.as_str()),
            )?;
            Ok(true)
        }
        ast::AlterDatabaseAction::AddFilegroup(g) => {
            let name = a.name.as_ref().map_or(current_db, |n| n.value.as_str());
            crate::filegroups::add_filegroup(engine, name, &g.value)?;
            Ok(true)
        }
        ast::AlterDatabaseAction::RemoveFile(file) => {
            let name = a.name.as_ref().map_or(current_db, |n| n.value.as_str());
            let done = remove_file(engine, name, &file.value)?;
            messages.push(crate::events::InfoMessage {
                text: format!("The file '{}' has been removed.", file.value),
                number: 5044,
                severity: 10,
                state: 1,
            });
            Ok(done)
        }
        ast::AlterDatabaseAction::RemoveFilegroup(g) => {
            let name = a.name.as_ref().map_or(current_db, |n| n.value.as_str());
            crate::filegroups::remove_filegroup(engine, name, &g.value, messages)?;
            Ok(true)
        }
        ast::AlterDatabaseAction::ModifyFilegroup {
            name: g, property, ..
        } => {
            let name = a.name.as_ref().map_or(current_db, |n| n.value.as_str());
            crate::filegroups::modify_filegroup(engine, name, &g.value, property, messages)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// `REMOVE FILE logical_name`: unknown name 5009, the primary data file or the log 5020, a
/// file holding extents 5042 (storage checks under the file's GAM latch); an empty secondary
/// file leaves the database crash-safely (storage README "Changing the file set"), its
/// registration in master goes, and a file placed outside the database directory is deleted
/// too (the link in the directory is storage's).
fn remove_file(engine: &Engine, db: &str, logical: &str) -> SqlResult<bool> {
    let Some(h) = engine.database(db) else {
        return Err(SqlError::new(5011, &[&db]));
    };
    let _changing = FILE_SET_CHANGE.lock();
    let files = files_of(&h, engine);
    let Some((f, _)) = files
        .iter()
        .find(|(f, _)| catalog::name_eq(&f.name, logical))
    else {
        return Err(SqlError::new(5009, &[]));
    };
    if f.is_log() || f.file_id == 1 {
        return Err(SqlError::new(5020, &[]));
    }
    crate::filegroups::check_remove_file(engine, &h, f.storage_index, &f.name)?;
    let local = local_path(f, h.store.path());
    let linked = Path::new(&f.physical_name) != local;
    h.store.remove_data_file(f.storage_index, &f.name)?;
    if linked {
        let _ = std::fs::remove_file(&f.physical_name);
    }
    let kept: Vec<DbFileDef> = files
        .iter()
        .map(|(d, _)| d.clone())
        .filter(|d| d.file_id != f.file_id)
        .collect();
    register_files(engine, &h, kept)?;
    Ok(true)
}

/// Serialises ADD / REMOVE / MODIFY FILE across sessions: ADD FILE reads the next storage
/// file id before the file is created (a file placed elsewhere is linked at that id first),
/// and each rewrites master's file list of the database.
pub(crate) static FILE_SET_CHANGE: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

/// Writes a database's file list into master's registration of it.
fn register_files(engine: &Engine, h: &DbHandle, files: Vec<DbFileDef>) -> SqlResult<()> {
    let master = engine.master()?;
    let found = master
        .cat
        .read()
        .databases
        .iter()
        .find(|d| d.database_id == h.def.database_id)
        .cloned();
    let Some(mut def) = found else {
        return Err(SqlError::unsupported(format!(
            "changing the files of database {}",
            h.def.name
        )));
    };
    def.files = files;
    let tree = master.store.catalog_btree()?;
    let mut txn = master.store.begin()?;
    master.cat.write().put_database(&tree, &mut txn, def)?;
    txn.commit()?;
    Ok(())
}

/// `ADD FILE (spec), ... [TO FILEGROUP fg]` (unknown fg: 1921, filegroups.rs): each spec is checked as CREATE DATABASE's
/// (1828 duplicate name, 5170 existing file, 5123 missing directory), then storage adds the
/// file crash-safely and proportional fill uses it at once; SIZE / MAXSIZE / FILEGROWTH apply
/// and the file is registered in master. Names default as CREATE DATABASE's (`db_N`).
fn add_files(
    engine: &Engine,
    db: &str,
    specs: &[ast::FileSpec],
    filegroup: Option<&str>,
) -> SqlResult<()> {
    let Some(h) = engine.database(db) else {
        return Err(SqlError::new(5011, &[&db]));
    };
    if matches!(
        h.def.name.to_ascii_lowercase().as_str(),
        "master" | "model" | "tempdb"
    ) {
        return Err(SqlError::new(5013, &[]));
    }
    let _changing = FILE_SET_CHANGE.lock();
    // resolved under the lock: REMOVE FILEGROUP cannot drop it before the files name it
    let data_space = crate::filegroups::add_file_target(engine, db, filegroup)?;
    let data_dir = engine.data_dir().to_path_buf();
    let db_dir = h.store.path().to_path_buf();
    for spec in specs {
        let mut files: Vec<DbFileDef> = files_of(&h, engine).into_iter().map(|(f, _)| f).collect();
        let s = parse_spec(spec)?;
        let index = h.store.next_data_file_id()?;
        let file_id = i32::from(index) + 1;
        let name = s
            .name
            .clone()
            .unwrap_or_else(|| format!("{}_{file_id}", h.def.name));
        if files.iter().any(|f| catalog::name_eq(&f.name, &name)) {
            return Err(SqlError::new(1828, &[&name]));
        }
        let local = db_dir.join(format!("data{index}.mdf"));
        let physical = match &s.filename {
            Some(f) => {
                let p = PathBuf::from(f);
                if p.is_absolute() {
                    p
                } else {
                    data_dir.join(p)
                }
            }
            None => local.clone(),
        };
        let shown = physical.display().to_string();
        if files.iter().any(|f| f.physical_name == shown)
            || (s.filename.is_some() && physical.exists())
        {
            return Err(SqlError::new(5170, &[&shown]));
        }
        if s.filename.is_some() && in_database_directory(&physical, &data_dir) {
            return Err(SqlError::new(5123, &[&"5(Access is denied.)", &shown]));
        }
        if !physical.parent().is_some_and(Path::is_dir) {
            return Err(SqlError::new(
                5123,
                &[&"3(The system cannot find the path specified.)", &shown],
            ));
        }
        let size = match s.size {
            None => 0,
            Some(Size::Bytes(b)) => pages(b),
            Some(_) => return Err(SqlError::syntax_near("SIZE")),
        };
        if size * PAGE > MAX_DATA_FILE {
            return Err(SqlError::unsupported("SIZE above 4 GB for a data file"));
        }
        let max = match s.max {
            None | Some(Size::Unlimited) => -1,
            Some(Size::Bytes(b)) => pages(b),
            Some(Size::Percent(_)) => return Err(SqlError::syntax_near("MAXSIZE")),
        };
        let (growth, pct) = match s.growth {
            None => (-1, false),
            Some(Size::Bytes(b)) => (pages(b), false),
            Some(Size::Percent(p)) => (p, true),
            Some(Size::Unlimited) => return Err(SqlError::syntax_near("UNLIMITED")),
        };
        if physical != local {
            // an orphan of a cut-short change may be there: it is not part of the database
            let _ = std::fs::remove_file(&local);
            std::os::unix::fs::symlink(&physical, &local).map_err(|e| {
                SqlError::new(
                    5123,
                    &[&format!("{}", e.raw_os_error().unwrap_or(0)), &shown],
                )
            })?;
        }
        let got = h.store.add_data_file_to((size * PAGE) as u64, data_space)?;
        if got != index {
            return Err(SqlError::internal(format!(
                "ADD FILE: storage gave file {got}, expected {index}"
            )));
        }
        let def = DbFileDef {
            file_id,
            storage_index: index,
            name,
            physical_name: shown,
            size_pages: size,
            max_size_pages: max,
            growth,
            is_percent_growth: pct,
        };
        let one = DatabaseDef {
            files: vec![def.clone()],
            ..h.def.clone()
        };
        apply_file_limits(&one, &h.store, false)?;
        files.push(def);
        register_files(engine, &h, files)?;
    }
    Ok(())
}

/// `MODIFY FILE (NAME = logical, SIZE = s | MAXSIZE = m | FILEGROWTH = g | NEWNAME = n)`: a
/// larger SIZE grows the file now (smaller or equal: 5039), MAXSIZE and FILEGROWTH apply at
/// once, NEWNAME renames the logical file (a name in use: 1828); kept in master's
/// registration. Returns the new name when renamed (SQL Server's message 5021 follows).
/// Moving a file (FILENAME) is 40517.
fn modify_file(engine: &Engine, db: &str, spec: &ast::FileSpec) -> SqlResult<Option<String>> {
    let Some(h) = engine.database(db) else {
        return Err(SqlError::new(5011, &[&db]));
    };
    let _changing = FILE_SET_CHANGE.lock();
    let Some(mut def) = engine
        .master()?
        .cat
        .read()
        .databases
        .iter()
        .find(|d| d.database_id == h.def.database_id)
        .cloned()
    else {
        return Err(SqlError::unsupported(format!(
            "MODIFY FILE of database {db}"
        )));
    };
    if spec.iter().any(|o| o.name == "FILENAME") {
        return Err(SqlError::unsupported(
            "MODIFY FILE FILENAME (moving a file)",
        ));
    }
    let mut new_name = None;
    let mut rest = Vec::new();
    for o in spec {
        if o.name == "NEWNAME" {
            match &o.value {
                Some(OptionValue::String(v)) | Some(OptionValue::Word(v)) => {
                    new_name = Some(v.clone())
                }
                _ => return Err(SqlError::syntax_near("NEWNAME")),
            }
        } else {
            rest.push(o.clone());
        }
    }
    let s = parse_spec(&rest)?;
    let logical = s.name.clone().unwrap_or_default();
    // storage's file set reconciled with master's list (files_of)
    let current = files_of(&h, engine);
    def.files = current.iter().map(|(f, _)| f.clone()).collect();
    let Some(at) = def
        .files
        .iter()
        .position(|f| catalog::name_eq(&f.name, &logical))
    else {
        return Err(SqlError::new(5041, &[&logical]));
    };
    let size_now = current
        .iter()
        .find(|(f, _)| f.file_id == def.files[at].file_id)
        .map_or(0, |(_, b)| *b as i64);
    if let Some(n) = &new_name {
        if n.is_empty() || n.len() > 128 {
            return Err(SqlError::syntax_near("NEWNAME"));
        }
        if def
            .files
            .iter()
            .enumerate()
            .any(|(i, f)| i != at && catalog::name_eq(&f.name, n))
        {
            return Err(SqlError::new(1828, &[n]));
        }
    }
    let f = &mut def.files[at];
    if let Some(n) = &new_name {
        f.name = n.clone();
    }
    if let Some(size) = s.size {
        let Size::Bytes(b) = size else {
            return Err(SqlError::syntax_near("SIZE"));
        };
        if b <= size_now {
            return Err(SqlError::new(5039, &[]));
        }
        if !f.is_log() && b > MAX_DATA_FILE {
            return Err(SqlError::unsupported("SIZE above 4 GB for a data file"));
        }
        f.size_pages = pages(b);
    }
    match s.max {
        None => {}
        Some(Size::Unlimited) => f.max_size_pages = -1,
        Some(Size::Bytes(b)) if !f.is_log() => f.max_size_pages = pages(b),
        Some(_) => return Err(SqlError::unsupported("MAXSIZE of the log file")),
    }
    match s.growth {
        None => {}
        Some(Size::Bytes(b)) => (f.growth, f.is_percent_growth) = (pages(b), false),
        Some(Size::Percent(p)) => (f.growth, f.is_percent_growth) = (p, true),
        Some(Size::Unlimited) => return Err(SqlError::syntax_near("UNLIMITED")),
    }
    let one = DatabaseDef {
        files: vec![f.clone()],
        ..def.clone()
    };
    apply_file_limits(&one, &h.store, s.size.is_some())?;
    let master = engine.master()?;
    let tree = master.store.catalog_btree()?;
    let mut txn = master.store.begin()?;
    master.cat.write().put_database(&tree, &mut txn, def)?;
    txn.commit()?;
    Ok(new_name)
}
