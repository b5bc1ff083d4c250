//! Spill files ("workfiles" in SQL Server terms): rows that do not fit an operator's memory
//! budget are written to temporary files in the tempdb directory and read back later.
//!
//! * [`SpillConfig`]: the per-operator memory budget and the spill directory (from the session,
//!   see `ExecEnv::spill_config`).
//! * [`SpillWriter`] → [`SpillFile`] → [`SpillReader`]: a file is written once, then read any
//!   number of times (sequentially). The file is deleted when its `SpillFile` (or a writer that
//!   was never finished) is dropped, so an error or an early close removes it too.
//! * Row format: `u32 LE byte length | u16 LE value count | values`, each value a tag byte and a
//!   fixed or length-prefixed payload (see `encode_value`). The encoding is private to one
//!   statement's execution (never persisted across restarts: tempdb is recreated at start).
//! * I/O errors become SQL Server errors: a full disk is Msg 1105 on tempdb's PRIMARY
//!   filegroup, anything else Msg 823 (`SqlError::io`).
//! * [`value_size`]: the approximate memory a `Value` occupies, for operators' accounting.

use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use common::{SqlError, SqlResult};
use types::Value;

use crate::context::ExecCtx;

/// Default memory budget of one memory-consuming operator (sort, hash join build, hash
/// aggregate): 256 MiB.
pub const DEFAULT_OPERATOR_BUDGET: usize = 256 << 20;

/// Buffer size of spill readers and writers.
const IO_BUF: usize = 64 << 10;

/// Memory budget and spill location of the operators of one statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpillConfig {
    /// Approximate bytes of rows one operator may hold before it spills; `usize::MAX` = never
    /// spill.
    pub operator_budget: usize,
    /// Directory of spill files (the engine passes `<data_dir>/tempdb/workfiles`); `None` =
    /// the system temporary directory.
    /// Shared (`Arc`) because the engine hands a config to every statement.
    pub dir: Option<std::sync::Arc<std::path::Path>>,
}

impl Default for SpillConfig {
    fn default() -> Self {
        SpillConfig {
            operator_budget: DEFAULT_OPERATOR_BUDGET,
            dir: None,
        }
    }
}

/// What the operators of one statement spilled (for tests, benchmarks and statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpillStats {
    /// Spill files created.
    pub files: u64,
    /// Rows written to spill files.
    pub rows: u64,
    /// Bytes written to spill files.
    pub bytes: u64,
}

/// Approximate memory held by `v` (the enum itself plus its heap payload).
#[inline]
pub fn value_size(v: &Value) -> usize {
    std::mem::size_of::<Value>()
        + match v {
            Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => s.len(),
            Value::Binary(b) | Value::VarBinary(b) => b.len(),
            _ => 0,
        }
}

/// String / binary payload of `vals` (their memory besides the `Value`s themselves).
#[inline]
pub fn heap_size(vals: &[Value]) -> usize {
    vals.iter()
        .map(|v| match v {
            Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => s.len(),
            Value::Binary(b) | Value::VarBinary(b) => b.len(),
            _ => 0,
        })
        .sum()
}

/// Approximate memory held by a row.
#[inline]
pub fn row_size(row: &[Value]) -> usize {
    row.iter().map(value_size).sum()
}

static NEXT_FILE: AtomicU64 = AtomicU64::new(1);

/// Maps an I/O error on a spill file to the SQL Server error: 1105 when the disk is full,
/// 823 otherwise.
fn io_error(op: &str, path: &Path, e: &std::io::Error, object: &str) -> SqlError {
    // StorageFull: ENOSPC / ERROR_DISK_FULL; QuotaExceeded: EDQUOT
    let full = matches!(e.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded)
        || (cfg!(unix) && e.raw_os_error() == Some(28));
    if full {
        SqlError::new(1105, &[&object, &"", &"tempdb", &"PRIMARY"])
    } else {
        SqlError::io(op, &path.display().to_string(), e)
    }
}

/// Deletes the file when dropped.
struct TempPath(PathBuf);

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A spill file being written.
pub struct SpillWriter {
    out: BufWriter<File>,
    path: TempPath,
    object: &'static str,
    buf: Vec<u8>,
    rows: u64,
    bytes: u64,
}

impl SpillWriter {
    /// Creates a new, uniquely named spill file in the statement's spill directory. `object`
    /// names the work table in error messages (e.g. "dbo.SORT temporary run storage").
    pub fn create(ctx: &mut ExecCtx, object: &'static str) -> SqlResult<SpillWriter> {
        let dir = match &ctx.spill.dir {
            Some(d) => d.to_path_buf(),
            None => std::env::temp_dir(),
        };
        std::fs::create_dir_all(&dir)
            .map_err(|e| io_error("create directory", &dir, &e, object))?;
        // a stale file of an earlier process with the same id is skipped, never overwritten
        let mut tries = 0;
        let (path, file) = loop {
            let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("lk_work_{}_{n}.tmp", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(f) => break (path, f),
                Err(e) if e.kind() == ErrorKind::AlreadyExists && tries < 100 => tries += 1,
                Err(e) => return Err(io_error("create", &path, &e, object)),
            }
        };
        ctx.spill_stats.files += 1;
        Ok(SpillWriter {
            out: BufWriter::with_capacity(IO_BUF, file),
            path: TempPath(path),
            object,
            buf: Vec::new(),
            rows: 0,
            bytes: 0,
        })
    }

    /// Appends one row.
    pub fn write_row(&mut self, row: &[Value]) -> SqlResult<()> {
        self.write_parts(row, &[])
    }

    /// Appends one row made of `a` followed by `b` (e.g. sort keys then the row).
    pub fn write_parts(&mut self, a: &[Value], b: &[Value]) -> SqlResult<()> {
        self.start_row(a.len() + b.len())?;
        for v in a.iter().chain(b) {
            encode_value(v, &mut self.buf);
        }
        self.end_row()
    }

    /// Appends one row made of `key` (read back as one `varbinary` value) followed by `row`,
    /// without building the `Value` (pre-encoded sort keys).
    pub fn write_keyed(&mut self, key: &[u8], row: &[Value]) -> SqlResult<()> {
        self.start_row(1 + row.len())?;
        put_str(16, key, &mut self.buf);
        for v in row {
            encode_value(v, &mut self.buf);
        }
        self.end_row()
    }

    fn start_row(&mut self, n: usize) -> SqlResult<()> {
        let count = u16::try_from(n)
            .map_err(|_| SqlError::internal("too many columns in a spilled row"))?;
        self.buf.clear();
        self.buf.extend_from_slice(&[0, 0, 0, 0]);
        self.buf.extend_from_slice(&count.to_le_bytes());
        Ok(())
    }

    fn end_row(&mut self) -> SqlResult<()> {
        let len = u32::try_from(self.buf.len() - 4)
            .map_err(|_| SqlError::internal("spilled row too large"))?;
        self.buf[..4].copy_from_slice(&len.to_le_bytes());
        self.out
            .write_all(&self.buf)
            .map_err(|e| io_error("write", &self.path.0, &e, self.object))?;
        self.rows += 1;
        self.bytes += self.buf.len() as u64;
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Flushes the file; it can then be read.
    pub fn finish(mut self, ctx: &mut ExecCtx) -> SqlResult<SpillFile> {
        self.out
            .flush()
            .map_err(|e| io_error("write", &self.path.0, &e, self.object))?;
        ctx.spill_stats.rows += self.rows;
        ctx.spill_stats.bytes += self.bytes;
        Ok(SpillFile {
            path: self.path,
            object: self.object,
            rows: self.rows,
            bytes: self.bytes,
        })
    }
}

/// A finished spill file (deleted on drop).
pub struct SpillFile {
    path: TempPath,
    object: &'static str,
    rows: u64,
    bytes: u64,
}

impl SpillFile {
    /// Number of rows in the file.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Size of the file in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// A reader positioned at the first row.
    pub fn reader(&self) -> SqlResult<SpillReader> {
        let f = File::open(&self.path.0)
            .map_err(|e| io_error("read", &self.path.0, &e, self.object))?;
        Ok(SpillReader {
            input: BufReader::with_capacity(IO_BUF, f),
            path: self.path.0.clone(),
            object: self.object,
            remaining: self.rows,
            buf: Vec::new(),
        })
    }
}

/// Reads the rows of a [`SpillFile`] in write order.
pub struct SpillReader {
    input: BufReader<File>,
    path: PathBuf,
    object: &'static str,
    remaining: u64,
    buf: Vec<u8>,
}

impl SpillReader {
    /// Rows not read yet.
    pub fn remaining(&self) -> u64 {
        self.remaining
    }

    /// Reads the next row into `out` (cleared first); false at the end.
    pub fn next_row(&mut self, out: &mut Vec<Value>) -> SqlResult<bool> {
        out.clear();
        if self.remaining == 0 {
            return Ok(false);
        }
        let mut len = [0u8; 4];
        self.input
            .read_exact(&mut len)
            .map_err(|e| io_error("read", &self.path, &e, self.object))?;
        let len = u32::from_le_bytes(len) as usize;
        self.buf.resize(len, 0);
        self.input
            .read_exact(&mut self.buf)
            .map_err(|e| io_error("read", &self.path, &e, self.object))?;
        decode_row(&self.buf, out)?;
        self.remaining -= 1;
        Ok(true)
    }
}

fn put_str(tag: u8, s: &[u8], out: &mut Vec<u8>) {
    out.push(tag);
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s);
}

/// Appends the spill encoding of `v`.
fn encode_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0),
        Value::Bit(b) => out.extend_from_slice(&[1, u8::from(*b)]),
        Value::TinyInt(i) => out.extend_from_slice(&[2, *i]),
        Value::SmallInt(i) => {
            out.push(3);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Int(i) => {
            out.push(4);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::BigInt(i) => {
            out.push(5);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Decimal { mantissa, scale } => {
            out.push(6);
            out.extend_from_slice(&mantissa.to_le_bytes());
            out.push(*scale);
        }
        Value::Float(f) => {
            out.push(7);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::Real(f) => {
            out.push(8);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::Money(i) => {
            out.push(9);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::SmallMoney(i) => {
            out.push(10);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Char(s) => put_str(11, s.as_bytes(), out),
        Value::VarChar(s) => put_str(12, s.as_bytes(), out),
        Value::NChar(s) => put_str(13, s.as_bytes(), out),
        Value::NVarChar(s) => put_str(14, s.as_bytes(), out),
        Value::Binary(b) => put_str(15, b, out),
        Value::VarBinary(b) => put_str(16, b, out),
        Value::Date(d) => {
            out.push(17);
            out.extend_from_slice(&d.to_le_bytes());
        }
        Value::Time(t) => {
            out.push(18);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::DateTime { days, ticks } => {
            out.push(19);
            out.extend_from_slice(&days.to_le_bytes());
            out.extend_from_slice(&ticks.to_le_bytes());
        }
        Value::DateTime2 { days, ticks } => {
            out.push(20);
            out.extend_from_slice(&days.to_le_bytes());
            out.extend_from_slice(&ticks.to_le_bytes());
        }
        Value::SmallDateTime { days, ticks } => {
            out.push(21);
            out.extend_from_slice(&days.to_le_bytes());
            out.extend_from_slice(&ticks.to_le_bytes());
        }
        Value::DateTimeOffset {
            days,
            ticks,
            offset_minutes,
        } => {
            out.push(22);
            out.extend_from_slice(&days.to_le_bytes());
            out.extend_from_slice(&ticks.to_le_bytes());
            out.extend_from_slice(&offset_minutes.to_le_bytes());
        }
        Value::UniqueIdentifier(g) => {
            out.push(23);
            out.extend_from_slice(g);
        }
    }
}

/// Cursor over an encoded row; every read is bounds-checked (a damaged file gives an error).
struct Cur<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize) -> SqlResult<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| SqlError::internal("damaged spill file row"))?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn arr<const N: usize>(&mut self) -> SqlResult<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> SqlResult<u8> {
        Ok(self.take(1)?[0])
    }
    fn i32(&mut self) -> SqlResult<i32> {
        Ok(i32::from_le_bytes(self.arr()?))
    }
    fn i64(&mut self) -> SqlResult<i64> {
        Ok(i64::from_le_bytes(self.arr()?))
    }
    fn bytes(&mut self) -> SqlResult<&'a [u8]> {
        let n = u32::from_le_bytes(self.arr()?) as usize;
        self.take(n)
    }
    fn string(&mut self) -> SqlResult<String> {
        let b = self.bytes()?;
        String::from_utf8(b.to_vec()).map_err(|_| SqlError::internal("damaged spill file string"))
    }
}

fn decode_row(b: &[u8], out: &mut Vec<Value>) -> SqlResult<()> {
    let mut c = Cur { b, pos: 0 };
    let n = u16::from_le_bytes(c.arr()?) as usize;
    out.reserve(n);
    for _ in 0..n {
        let v = match c.u8()? {
            0 => Value::Null,
            1 => Value::Bit(c.u8()? != 0),
            2 => Value::TinyInt(c.u8()?),
            3 => Value::SmallInt(i16::from_le_bytes(c.arr()?)),
            4 => Value::Int(c.i32()?),
            5 => Value::BigInt(c.i64()?),
            6 => Value::Decimal {
                mantissa: i128::from_le_bytes(c.arr()?),
                scale: c.u8()?,
            },
            7 => Value::Float(f64::from_le_bytes(c.arr()?)),
            8 => Value::Real(f32::from_le_bytes(c.arr()?)),
            9 => Value::Money(c.i64()?),
            10 => Value::SmallMoney(c.i64()?),
            11 => Value::Char(c.string()?),
            12 => Value::VarChar(c.string()?),
            13 => Value::NChar(c.string()?),
            14 => Value::NVarChar(c.string()?),
            15 => Value::Binary(c.bytes()?.to_vec()),
            16 => Value::VarBinary(c.bytes()?.to_vec()),
            17 => Value::Date(c.i32()?),
            18 => Value::Time(c.i64()?),
            19 => Value::DateTime {
                days: c.i32()?,
                ticks: c.i64()?,
            },
            20 => Value::DateTime2 {
                days: c.i32()?,
                ticks: c.i64()?,
            },
            21 => Value::SmallDateTime {
                days: c.i32()?,
                ticks: c.i64()?,
            },
            22 => Value::DateTimeOffset {
                days: c.i32()?,
                ticks: c.i64()?,
                offset_minutes: i16::from_le_bytes(c.arr()?),
            },
            23 => Value::UniqueIdentifier(c.arr()?),
            _ => return Err(SqlError::internal("damaged spill file value tag")),
        };
        out.push(v);
    }
    Ok(())
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The partitioning seed of recursion level `level` (independent of the hash tables' hashes).
#[inline]
pub fn level_seed(level: u32) -> u64 {
    mix64(K.wrapping_mul(level as u64 + 1))
}

/// Partitioning hash of an encoded key.
#[inline]
pub fn hash_bytes(b: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (b.len() as u64).wrapping_mul(K);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K).rotate_left(29);
    }
    mix64(h)
}

/// Partitioning hash of an integer key.
#[inline]
pub fn hash_i64(k: i64, seed: u64) -> u64 {
    mix64((k as u64) ^ seed)
}

/// Partition (0..n) of hash `h`.
#[inline]
pub fn partition_of(h: u64, n: usize) -> usize {
    (((h >> 32) * n as u64) >> 32) as usize
}

/// A session stub for operator unit tests (no storage, no variables).
#[cfg(test)]
pub(crate) struct TestEnv(pub SpillConfig);

#[cfg(test)]
impl crate::ExecEnv for TestEnv {
    fn storage(&mut self, _database: &str) -> SqlResult<std::sync::Arc<storage::Database>> {
        Err(SqlError::internal("no storage in this test"))
    }
    fn txn(&mut self, _database: &str) -> SqlResult<&mut storage::Txn> {
        Err(SqlError::internal("no storage in this test"))
    }
    fn variable_at(&self, _slot: usize) -> Option<&Value> {
        None
    }
    fn set_variable_at(&mut self, _slot: usize, _v: Value) -> SqlResult<()> {
        Ok(())
    }
    fn session_id(&self) -> i32 {
        51
    }
    fn spill_config(&self) -> SpillConfig {
        self.0.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let row = vec![
            Value::Null,
            Value::Bit(true),
            Value::TinyInt(7),
            Value::SmallInt(-3),
            Value::Int(-123456),
            Value::BigInt(i64::MIN),
            Value::Decimal {
                mantissa: -123456789012345678901234567,
                scale: 4,
            },
            Value::Float(1.5),
            Value::Real(-2.25),
            Value::Money(10_000),
            Value::SmallMoney(-5),
            Value::Char("ab ".into()),
            Value::VarChar("héllo".into()),
            Value::NChar("x".into()),
            Value::NVarChar("日本".into()),
            Value::Binary(vec![0, 1]),
            Value::VarBinary(vec![]),
            Value::Date(738000),
            Value::Time(123),
            Value::DateTime { days: 1, ticks: 2 },
            Value::DateTime2 { days: 3, ticks: 4 },
            Value::SmallDateTime { days: 5, ticks: 6 },
            Value::DateTimeOffset {
                days: 7,
                ticks: 8,
                offset_minutes: -300,
            },
            Value::UniqueIdentifier([9; 16]),
        ];
        let mut buf = Vec::new();
        buf.extend_from_slice(&(row.len() as u16).to_le_bytes());
        for v in &row {
            encode_value(v, &mut buf);
        }
        let mut out = Vec::new();
        decode_row(&buf, &mut out).unwrap();
        assert_eq!(out, row);
        // truncated input never panics
        for n in 0..buf.len() {
            let mut o = Vec::new();
            assert!(decode_row(&buf[..n], &mut o).is_err());
        }
    }

    #[test]
    fn full_disk_is_msg_1105() {
        let e = io_error(
            "write",
            Path::new("/x"),
            &std::io::Error::from_raw_os_error(28),
            "dbo.SORT temporary run storage",
        );
        assert_eq!(e.number, 1105);
        assert_eq!(e.severity, 17);
        assert!(e.message.starts_with(
            "Could not allocate space for object 'dbo.SORT temporary run storage' in database \
             'tempdb' because the 'PRIMARY' filegroup is full"
        ));
        let e = io_error(
            "read",
            Path::new("/x"),
            &std::io::Error::from_raw_os_error(5),
            "w",
        );
        assert_eq!(e.number, 823);
    }

    #[test]
    fn partitions_spread() {
        let mut counts = [0usize; 8];
        for k in 0..8000i64 {
            counts[partition_of(hash_i64(k, level_seed(0)), 8)] += 1;
        }
        assert!(counts.iter().all(|&c| c > 800), "{counts:?}");
        let a = partition_of(hash_bytes(b"abc", level_seed(0)), 16);
        assert!(a < 16);
    }
}
