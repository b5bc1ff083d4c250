//! Write-ahead log: record format, append, group commit, reading back (see wal/README.md).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::*};
use std::time::Duration;

use common::{PageId, SqlError, SqlResult};
use parking_lot::{Condvar, Mutex};

/// Size of the log file header; the first record starts here.
pub const LOG_HDR: u64 = 64;
/// Header magic of format 2 (database id at offset 16); format 1 (`LKLOG001`, no id) is
/// still read (storage README "File identity").
const MAGIC: &[u8; 8] = b"LKLOG002";
const MAGIC_V1: &[u8; 8] = b"LKLOG001";
/// Largest log file kept (and overwritten) by truncation; a bigger one is cut (W7).
const LOG_REUSE_MAX: u64 = 256 << 20;
/// The log file grows in whole chunks (W11): its length is always `LOG_HDR + k * LOG_CHUNK`,
/// so a file cut short by anything but latchkey is recognised (a crash never changes it).
pub const LOG_CHUNK: u64 = 1 << 20;

/// The file length that holds everything up to file offset `len` (W11).
fn chunked(len: u64) -> u64 {
    LOG_HDR + len.saturating_sub(LOG_HDR).div_ceil(LOG_CHUNK) * LOG_CHUNK
}

pub const REC_OP: u8 = 1;
pub const REC_COMMIT: u8 = 2;
pub const REC_ABORT: u8 = 3;
pub const REC_CHECKPOINT: u8 = 4;

/// Logical undo operations (wal/README "Log record types").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UndoOp {
    /// Undo of a B-tree insert: delete the key.
    BTreeRemove { obj: u64, key: Vec<u8> },
    /// Undo of a B-tree delete/update: put the old value back.
    BTreePut {
        obj: u64,
        key: Vec<u8>,
        value: Vec<u8>,
    },
    /// Undo of a heap insert: remove the row.
    HeapRemove { obj: u64, rid: [u8; 8] },
    /// Undo of a heap delete: re-insert at the same slot.
    HeapRestore {
        obj: u64,
        rid: [u8; 8],
        rec: Vec<u8>,
    },
    /// Undo of an in-place heap update.
    HeapReplace {
        obj: u64,
        rid: [u8; 8],
        rec: Vec<u8>,
    },
    /// Undo of create_heap/create_btree: free the object.
    Uncreate { obj: u64 },
    /// Undo of drop_object: mark live again.
    Undrop { obj: u64 },
    /// Undo of truncate_object: restore the old storage kept in `zombie`.
    Untruncate { obj: u64, zombie: u64 },
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

struct Rd<'a> {
    b: &'a [u8],
    at: usize,
}
impl<'a> Rd<'a> {
    fn take(&mut self, n: usize) -> SqlResult<&'a [u8]> {
        if self.at + n > self.b.len() {
            return Err(bad_log("truncated field"));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self) -> SqlResult<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> SqlResult<u16> {
        let s = self.take(2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> SqlResult<u32> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> SqlResult<u64> {
        let s = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_le_bytes(a))
    }
    fn bytes(&mut self) -> SqlResult<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn rid(&mut self) -> SqlResult<[u8; 8]> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(a)
    }
}

pub fn bad_log(what: &str) -> SqlError {
    SqlError::custom(
        9004,
        21,
        1,
        format!("An error occurred while processing the log for database 'latchkey'. ({what})"),
    )
}

/// Msg 9004 with SQL Server's text for damage found when a database is opened (the
/// engine names the database; storage names its directory). `state` tells the kind of damage
/// (wal/README "End of log or damage").
pub fn damaged_log(db: &str, state: u8) -> SqlError {
    let mut e = SqlError::new(9004, &[&db]);
    e.state = state;
    e
}

impl UndoOp {
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            UndoOp::BTreeRemove { obj, key } => {
                out.push(1);
                out.extend_from_slice(&obj.to_le_bytes());
                put_bytes(out, key);
            }
            UndoOp::BTreePut { obj, key, value } => {
                out.push(2);
                out.extend_from_slice(&obj.to_le_bytes());
                put_bytes(out, key);
                put_bytes(out, value);
            }
            UndoOp::HeapRemove { obj, rid } => {
                out.push(3);
                out.extend_from_slice(&obj.to_le_bytes());
                out.extend_from_slice(rid);
            }
            UndoOp::HeapRestore { obj, rid, rec } => {
                out.push(4);
                out.extend_from_slice(&obj.to_le_bytes());
                out.extend_from_slice(rid);
                put_bytes(out, rec);
            }
            UndoOp::HeapReplace { obj, rid, rec } => {
                out.push(5);
                out.extend_from_slice(&obj.to_le_bytes());
                out.extend_from_slice(rid);
                put_bytes(out, rec);
            }
            UndoOp::Uncreate { obj } => {
                out.push(6);
                out.extend_from_slice(&obj.to_le_bytes());
            }
            UndoOp::Undrop { obj } => {
                out.push(7);
                out.extend_from_slice(&obj.to_le_bytes());
            }
            UndoOp::Untruncate { obj, zombie } => {
                out.push(8);
                out.extend_from_slice(&obj.to_le_bytes());
                out.extend_from_slice(&zombie.to_le_bytes());
            }
        }
    }

    fn decode(r: &mut Rd<'_>) -> SqlResult<UndoOp> {
        let tag = r.u8()?;
        let obj = r.u64()?;
        Ok(match tag {
            1 => UndoOp::BTreeRemove {
                obj,
                key: r.bytes()?.to_vec(),
            },
            2 => UndoOp::BTreePut {
                obj,
                key: r.bytes()?.to_vec(),
                value: r.bytes()?.to_vec(),
            },
            3 => UndoOp::HeapRemove { obj, rid: r.rid()? },
            4 => UndoOp::HeapRestore {
                obj,
                rid: r.rid()?,
                rec: r.bytes()?.to_vec(),
            },
            5 => UndoOp::HeapReplace {
                obj,
                rid: r.rid()?,
                rec: r.bytes()?.to_vec(),
            },
            6 => UndoOp::Uncreate { obj },
            7 => UndoOp::Undrop { obj },
            8 => UndoOp::Untruncate {
                obj,
                zombie: r.u64()?,
            },
            _ => return Err(bad_log("unknown undo tag")),
        })
    }
}

/// A page change inside an Op record.
#[derive(Debug)]
pub enum PageChange {
    /// Full after-image (first change after a checkpoint, new pages).
    Image(Box<[u8]>),
    /// Changed byte ranges: (offset, bytes).
    Diff(Vec<(u16, Vec<u8>)>),
    /// A full image stored compactly: zero-fill the page, then apply the ranges
    /// (new pages and first-change-after-checkpoint images; redo never reads the old page).
    Fresh(Vec<(u16, Vec<u8>)>),
}

/// A decoded log record.
#[derive(Debug)]
pub struct LogRecord {
    pub lsn: u64,
    pub end: u64,
    pub kind: u8,
    pub txn: u64,
    pub prev: u64,
    /// Op: CLR's undo-next LSN (0 = not a CLR).
    pub undo_next: u64,
    pub undo: Option<UndoOp>,
    pub pages: Vec<(PageId, PageChange)>,
    /// Checkpoint: redo LSN and next txn id.
    pub ckpt_redo: u64,
    pub ckpt_next_txn: u64,
}

/// Encodes the header of a record; `body` is appended by the caller; `finish` fills len+crc.
pub fn begin_record(out: &mut Vec<u8>, kind: u8, txn: u64, prev: u64) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0u8; 8]);
    out.push(kind);
    out.extend_from_slice(&txn.to_le_bytes());
    out.extend_from_slice(&prev.to_le_bytes());
    start
}

/// Fills length and CRC; the CRC covers the record's LSN too (wal/README W6), so records
/// left behind by log truncation never validate under the new base.
pub fn finish_record(out: &mut [u8], start: usize, lsn: u64) {
    let len = (out.len() - start) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    let mut h = crc32fast::Hasher::new();
    h.update(&lsn.to_le_bytes());
    h.update(&out[start + 8..]);
    let crc = h.finalize();
    out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
}

/// Page change tags in an Op record (wal/README "Record layout").
pub const TAG_IMAGE: u8 = 0;
pub const TAG_DIFF: u8 = 1;
pub const TAG_FRESH: u8 = 2;

/// Appends the start of an Op body: undo_next, undo, page count (the pages follow,
/// `encode_page_ranges`).
pub fn encode_op_head(out: &mut Vec<u8>, undo_next: u64, undo: Option<&UndoOp>, npages: u32) {
    out.extend_from_slice(&undo_next.to_le_bytes());
    match undo {
        Some(u) => {
            out.push(1);
            u.encode(out);
        }
        None => out.push(0),
    }
    out.extend_from_slice(&npages.to_le_bytes());
}

/// Appends one page change (`TAG_DIFF` or `TAG_FRESH`) whose ranges are the byte spans
/// `[s, e)` of `page`, copied straight from the page (no intermediate buffers).
pub fn encode_page_ranges(
    out: &mut Vec<u8>,
    pid: PageId,
    tag: u8,
    page: &[u8],
    spans: &[(usize, usize)],
) {
    out.extend_from_slice(&pid.to_u64().to_le_bytes());
    out.push(tag);
    out.extend_from_slice(&(spans.len() as u16).to_le_bytes());
    for &(s, e) in spans {
        out.extend_from_slice(&(s as u16).to_le_bytes());
        out.extend_from_slice(&((e - s) as u16).to_le_bytes());
        out.extend_from_slice(&page[s..e]);
    }
}

/// Appends the Op body: undo_next, undo, pages.
pub fn encode_op_body(
    out: &mut Vec<u8>,
    undo_next: u64,
    undo: Option<&UndoOp>,
    pages: &[(PageId, PageChange)],
) {
    out.extend_from_slice(&undo_next.to_le_bytes());
    match undo {
        Some(u) => {
            out.push(1);
            u.encode(out);
        }
        None => out.push(0),
    }
    out.extend_from_slice(&(pages.len() as u32).to_le_bytes());
    for (pid, ch) in pages {
        out.extend_from_slice(&pid.to_u64().to_le_bytes());
        match ch {
            PageChange::Image(img) => {
                out.push(0);
                out.extend_from_slice(img);
            }
            PageChange::Diff(ranges) | PageChange::Fresh(ranges) => {
                out.push(if matches!(ch, PageChange::Diff(_)) {
                    1
                } else {
                    2
                });
                out.extend_from_slice(&(ranges.len() as u16).to_le_bytes());
                for (off, b) in ranges {
                    out.extend_from_slice(&off.to_le_bytes());
                    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
                    out.extend_from_slice(b);
                }
            }
        }
    }
}

/// Decodes one record from `b` (which starts at the record); None if incomplete/corrupt.
pub fn decode(b: &[u8], lsn: u64) -> Option<LogRecord> {
    if b.len() < 25 {
        return None;
    }
    let len = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    if len < 25 || len > b.len() {
        return None;
    }
    if !crc_ok(b, len, lsn) {
        return None;
    }
    parse_record(b, len, lsn).map(|(rec, _)| rec)
}

fn crc_ok(b: &[u8], len: usize, lsn: u64) -> bool {
    let crc = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    let mut h = crc32fast::Hasher::new();
    h.update(&lsn.to_le_bytes());
    h.update(&b[8..len]);
    h.finalize() == crc
}

/// The bytes a record's fields take, walked without copying (None: malformed). Mirrors
/// `parse_record`; used to reject garbage cheaply before a CRC.
fn shape_len(b: &[u8]) -> Option<usize> {
    let mut r = Rd { b, at: 8 };
    let kind = r.u8().ok()?;
    r.take(16).ok()?; // txn, prev
    match kind {
        REC_OP => {
            r.take(8).ok()?; // undo_next
            match r.u8().ok()? {
                0 => {}
                1 => {
                    let tag = r.u8().ok()?;
                    r.take(8).ok()?; // obj
                    match tag {
                        1 => {
                            r.bytes().ok()?;
                        }
                        2 => {
                            r.bytes().ok()?;
                            r.bytes().ok()?;
                        }
                        3 => {
                            r.take(8).ok()?;
                        }
                        4 | 5 => {
                            r.take(8).ok()?;
                            r.bytes().ok()?;
                        }
                        6 | 7 => {}
                        8 => {
                            r.take(8).ok()?;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
            let n = r.u32().ok()?;
            for _ in 0..n {
                r.take(8).ok()?;
                match r.u8().ok()? {
                    0 => {
                        r.take(crate::page::PAGE_SIZE).ok()?;
                    }
                    1 | 2 => {
                        let nr = r.u16().ok()?;
                        for _ in 0..nr {
                            let off = r.u16().ok()? as usize;
                            let l = r.u16().ok()? as usize;
                            if off + l > crate::page::PAGE_SIZE {
                                return None;
                            }
                            r.take(l).ok()?;
                        }
                    }
                    _ => return None,
                }
            }
        }
        REC_CHECKPOINT => {
            r.take(16).ok()?;
        }
        REC_COMMIT | REC_ABORT => {}
        _ => return None,
    }
    Some(r.at)
}

/// Parses the record of `len` bytes at the start of `b` (CRC not checked); also returns the
/// bytes the fields took (a well-formed record takes exactly `len`).
fn parse_record(b: &[u8], len: usize, lsn: u64) -> Option<(LogRecord, usize)> {
    let mut r = Rd {
        b: &b[..len],
        at: 8,
    };
    let parse = |r: &mut Rd<'_>| -> SqlResult<LogRecord> {
        let kind = r.u8()?;
        let txn = r.u64()?;
        let prev = r.u64()?;
        let mut rec = LogRecord {
            lsn,
            end: lsn + len as u64,
            kind,
            txn,
            prev,
            undo_next: 0,
            undo: None,
            pages: Vec::new(),
            ckpt_redo: 0,
            ckpt_next_txn: 0,
        };
        match kind {
            REC_OP => {
                rec.undo_next = r.u64()?;
                if r.u8()? == 1 {
                    rec.undo = Some(UndoOp::decode(r)?);
                }
                let n = r.u32()?;
                for _ in 0..n {
                    let pid = PageId::from_u64(r.u64()?);
                    let tag = r.u8()?;
                    let ch = if tag == 0 {
                        PageChange::Image(r.take(crate::page::PAGE_SIZE)?.into())
                    } else {
                        let nr = r.u16()?;
                        let mut v = Vec::with_capacity(nr as usize);
                        for _ in 0..nr {
                            let off = r.u16()?;
                            let l = r.u16()? as usize;
                            v.push((off, r.take(l)?.to_vec()));
                        }
                        if tag == 1 {
                            PageChange::Diff(v)
                        } else {
                            PageChange::Fresh(v)
                        }
                    };
                    rec.pages.push((pid, ch));
                }
            }
            REC_CHECKPOINT => {
                rec.ckpt_redo = r.u64()?;
                rec.ckpt_next_txn = r.u64()?;
            }
            REC_COMMIT | REC_ABORT => {}
            _ => return Err(bad_log("unknown record kind")),
        }
        Ok(rec)
    };
    let rec = parse(&mut r).ok()?;
    Some((rec, r.at))
}

/// The log file header (wal/README "Log file header").
fn header_bytes(base: u64, guid: &[u8; 16]) -> Vec<u8> {
    let mut hdr = vec![0u8; LOG_HDR as usize];
    hdr[..8].copy_from_slice(MAGIC);
    hdr[8..16].copy_from_slice(&base.to_le_bytes());
    hdr[16..32].copy_from_slice(guid);
    hdr
}

/// Length of the longest prefix of `data` made of valid records (REPAIR_ALLOW_DATA_LOSS).
pub fn valid_prefix(data: &[u8], base: u64) -> usize {
    let mut off = 0usize;
    while off < data.len() {
        match decode(&data[off..], base + off as u64) {
            Some(r) => off += (r.end - r.lsn) as usize,
            None => break,
        }
    }
    off
}

/// wal/README "End of log or damage": true if a valid record starts anywhere after the bad
/// record at `from` (then the log is damaged, not torn). Records left behind by truncation
/// never validate (W6), so only a record written after the bad one can.
pub fn valid_record_after(data: &[u8], from: usize, base: u64) -> bool {
    let mut p = from + 1;
    while p + 25 <= data.len() {
        let len = u32::from_le_bytes([data[p], data[p + 1], data[p + 2], data[p + 3]]) as usize;
        let lsn = base + p as u64;
        // cheap filters before the CRC: a plausible length, a known kind, a previous LSN of
        // this log (0 or in [base, lsn))
        if len >= 25 && len <= data.len() - p && (1..=4).contains(&data[p + 8]) {
            let mut a = [0u8; 8];
            a.copy_from_slice(&data[p + 17..p + 25]);
            let prev = u64::from_le_bytes(a);
            // the fields must fill the record exactly before its CRC is worth computing
            // (garbage lengths would make this scan quadratic)
            if (prev == 0 || (base..lsn).contains(&prev))
                && shape_len(&data[p..p + len]) == Some(len)
                && crc_ok(&data[p..], len, lsn)
            {
                return true;
            }
        }
        p += 1;
    }
    false
}

/// Changed byte ranges of a page: (offset, bytes).
pub type Ranges = Vec<(u16, Vec<u8>)>;

/// Computes changed byte ranges between two page images (gaps < 16 bytes merged).
pub fn diff(before: &[u8], after: &[u8]) -> Vec<(u16, Vec<u8>)> {
    diff_spans(before, after)
        .into_iter()
        .map(|(s, e)| (s as u16, after[s..e].to_vec()))
        .collect()
}

/// Changed byte spans `[s, e)` between two page images (gaps < 16 bytes merged).
/// Equal halves are skipped with one `memcmp` each (pages change in a few places).
pub fn diff_spans(before: &[u8], after: &[u8]) -> Vec<(usize, usize)> {
    let n = before.len().min(after.len());
    let mut spans: Vec<(usize, usize)> = Vec::new();
    diff_rec(before, after, 0, n, &mut spans);
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match out.last_mut() {
            Some(last) if s < last.1 + 16 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

fn diff_rec(b: &[u8], a: &[u8], lo: usize, hi: usize, out: &mut Vec<(usize, usize)>) {
    if b[lo..hi] == a[lo..hi] {
        return;
    }
    if hi - lo <= 64 {
        let mut i = lo;
        while i < hi {
            if b[i] != a[i] {
                let s = i;
                while i < hi && b[i] != a[i] {
                    i += 1;
                }
                out.push((s, i));
            } else {
                i += 1;
            }
        }
        return;
    }
    let mid = lo + (hi - lo) / 2;
    diff_rec(b, a, lo, mid, out);
    diff_rec(b, a, mid, hi, out);
}

struct LogState {
    buf: Vec<u8>,
    buf_start: u64,
    next: u64,
    flushed: u64,
    flushing: bool,
    failed: bool,
    /// Redo LSN of the checkpoint in progress or last completed (FPI decision, wal/README W4).
    ckpt_redo: u64,
    /// EMERGENCY mode: every append is Msg 3906 naming this database (storage README
    /// "Emergency and repair").
    read_only: Option<String>,
}

/// The log manager.
pub struct Log {
    file: File,
    /// Database id in the header (zero: a format-1 log, not stamped yet).
    guid: Mutex<[u8; 16]>,
    pub path: PathBuf,
    base: AtomicU64,
    state: Mutex<LogState>,
    cond: Condvar,
    latency: Duration,
    pub sync: bool,
    pub bytes_written: AtomicU64,
    /// Log flushes (one write + fdatasync of everything buffered; group commit makes one
    /// flush serve many commits): sys.dm_io_virtual_file_stats.num_of_writes of the log.
    pub flushes: AtomicU64,
    /// Microseconds spent in log flushes (io_stall_write_ms of the log).
    pub flush_stall_us: AtomicU64,
    /// Calls to `flush_to` that found their records not yet durable and waited (each is one
    /// WRITELOG wait): waits / flushes is how many commits a flush served.
    pub flush_waits: AtomicU64,
    /// Current file length (W11; only the flusher, or a holder of the state lock with no
    /// flush in progress, changes it).
    alloc: AtomicU64,
}

impl Log {
    /// Opens (creating, with no database id) the log file; returns the log and the bytes of
    /// all records.
    pub fn open(path: &Path, latency: Duration, sync: bool) -> SqlResult<(Log, u64, Vec<u8>)> {
        Self::open_with(path, latency, sync, Some([0; 16]))
    }

    /// Opens the log file. `create`: the database id of a new database (the file is created
    /// with a header); `None`: the file must exist with a valid header, else Msg 9004 (a
    /// damaged log is never re-initialised: storage README "Open-time checks").
    pub fn open_with(
        path: &Path,
        latency: Duration,
        sync: bool,
        create: Option<[u8; 16]>,
    ) -> SqlResult<(Log, u64, Vec<u8>)> {
        let perr = |e: std::io::Error| SqlError::io("open", &path.display().to_string(), &e);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(create.is_some())
            .truncate(false)
            .open(path)
            .map_err(perr)?;
        let len = file.metadata().map_err(perr)?.len();
        let mut base = LOG_HDR;
        let mut data = Vec::new();
        let mut guid = [0u8; 16];
        if let Some(g) = create.filter(|_| len < LOG_HDR) {
            guid = g;
            file.write_all_at(&header_bytes(base, &guid), 0)
                .map_err(perr)?;
            file.set_len(LOG_HDR).map_err(perr)?;
            file.sync_all().map_err(perr)?;
        } else {
            if len < LOG_HDR {
                return Err(bad_log("log file shorter than its header"));
            }
            let mut hdr = vec![0u8; LOG_HDR as usize];
            file.read_exact_at(&mut hdr, 0).map_err(perr)?;
            if &hdr[..8] == MAGIC {
                guid.copy_from_slice(&hdr[16..32]);
                if chunked(len) != len {
                    // W11: only latchkey sizes the file, always in whole chunks
                    let mut e = bad_log("log file cut short");
                    e.state = 4;
                    return Err(e);
                }
            } else if &hdr[..8] != MAGIC_V1 {
                return Err(bad_log("bad log file header"));
            }
            let mut a = [0u8; 8];
            a.copy_from_slice(&hdr[8..16]);
            base = u64::from_le_bytes(a);
            data = vec![0u8; (len - LOG_HDR) as usize];
            file.read_exact_at(&mut data, LOG_HDR).map_err(perr)?;
        }
        let log = Log {
            file,
            guid: Mutex::new(guid),
            path: path.to_path_buf(),
            base: AtomicU64::new(base),
            state: Mutex::new(LogState {
                buf: Vec::with_capacity(1 << 20),
                buf_start: base,
                next: base,
                flushed: base,
                flushing: false,
                failed: false,
                ckpt_redo: 0,
                read_only: None,
            }),
            cond: Condvar::new(),
            latency,
            sync,
            bytes_written: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
            flush_stall_us: AtomicU64::new(0),
            flush_waits: AtomicU64::new(0),
            alloc: AtomicU64::new(len.max(LOG_HDR)),
        };
        Ok((log, base, data))
    }

    fn offset(&self, lsn: u64) -> u64 {
        lsn - self.base.load(Acquire) + LOG_HDR
    }

    /// After recovery scanned the log: cut the file after the chunk holding `end` (the torn
    /// tail before that is overwritten by the next records, W11) and continue at `end`.
    pub fn set_end(&self, end: u64) -> SqlResult<()> {
        let len = chunked(self.offset(end));
        self.file
            .set_len(len)
            .map_err(|e| SqlError::io("truncate", &self.path.display().to_string(), &e))?;
        self.alloc.store(len, Release);
        let mut s = self.state.lock();
        s.buf_start = end;
        s.next = end;
        s.flushed = end;
        Ok(())
    }

    pub fn base(&self) -> u64 {
        self.base.load(Acquire)
    }

    /// Creates (or replaces) the log file with an empty log starting at `base`: a new log for a
    /// repaired database (base above every page LSN) or the scratch log of EMERGENCY mode.
    pub fn create_fresh(
        path: &Path,
        latency: Duration,
        sync: bool,
        guid: [u8; 16],
        base: u64,
    ) -> SqlResult<Log> {
        let perr = |e: std::io::Error| SqlError::io("create", &path.display().to_string(), &e);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(perr)?;
        file.write_all_at(&header_bytes(base, &guid), 0)
            .map_err(perr)?;
        file.sync_all().map_err(perr)?;
        Ok(Log {
            file,
            guid: Mutex::new(guid),
            path: path.to_path_buf(),
            base: AtomicU64::new(base),
            state: Mutex::new(LogState {
                buf: Vec::with_capacity(1 << 20),
                buf_start: base,
                next: base,
                flushed: base,
                flushing: false,
                failed: false,
                ckpt_redo: 0,
                read_only: None,
            }),
            cond: Condvar::new(),
            latency,
            sync,
            bytes_written: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
            flush_stall_us: AtomicU64::new(0),
            flush_waits: AtomicU64::new(0),
            alloc: AtomicU64::new(LOG_HDR),
        })
    }

    /// REPAIR: the database id (zero if unknown), base LSN and bytes of a log file, whatever
    /// its length (a cut-short log still gives its readable prefix).
    pub fn read_for_repair(path: &Path) -> SqlResult<([u8; 16], u64, Vec<u8>)> {
        let perr = |e: std::io::Error| SqlError::io("read", &path.display().to_string(), &e);
        let b = std::fs::read(path).map_err(perr)?;
        if b.len() < LOG_HDR as usize || (&b[..8] != MAGIC && &b[..8] != MAGIC_V1) {
            return Err(bad_log("bad log file header"));
        }
        let mut guid = [0u8; 16];
        if &b[..8] == MAGIC {
            guid.copy_from_slice(&b[16..32]);
        }
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[8..16]);
        Ok((guid, u64::from_le_bytes(a), b[LOG_HDR as usize..].to_vec()))
    }

    /// EMERGENCY mode: from now on every append fails with Msg 3906 naming `db`.
    pub fn set_read_only(&self, db: &str) {
        self.state.lock().read_only = Some(db.to_string());
    }

    /// True in EMERGENCY mode (nothing is ever written).
    pub fn is_read_only(&self) -> bool {
        self.state.lock().read_only.is_some()
    }

    /// The database id in the header (all zero: a format-1 log).
    pub fn guid(&self) -> [u8; 16] {
        *self.guid.lock()
    }

    /// Writes the database id into the header (upgrade of a format-1 log); durable on return.
    pub fn stamp_guid(&self, guid: [u8; 16]) -> SqlResult<()> {
        let mut s = self.state.lock();
        if *self.guid.lock() == guid {
            return Ok(());
        }
        while s.flushing {
            self.cond.wait(&mut s); // the file's length is the flusher's while it writes
        }
        let mut g = self.guid.lock();
        let perr = |e: std::io::Error| SqlError::io("write", &self.path.display().to_string(), &e);
        // a format-1 log may have any length: from now on it is a whole number of chunks
        let len = chunked(self.alloc.load(Acquire));
        if len != self.alloc.load(Acquire) {
            self.file.set_len(len).map_err(perr)?;
            self.alloc.store(len, Release);
        }
        let hdr = header_bytes(self.base.load(Acquire), &guid);
        self.file.write_all_at(&hdr, 0).map_err(perr)?;
        self.file.sync_data().map_err(perr)?;
        *g = guid;
        drop(s);
        Ok(())
    }

    /// Log truncation (wal/README W7): if nothing was appended since `expected_next` and
    /// `quiet()` holds (no active transaction), restarts the file with base = end of log.
    pub fn try_truncate(&self, expected_next: u64, quiet: impl Fn() -> bool) -> SqlResult<bool> {
        let s = self.state.lock();
        if s.next != expected_next || s.flushing || s.flushed != s.next || !quiet() {
            return Ok(false);
        }
        let perr = |e: std::io::Error| SqlError::io("write", &self.path.display().to_string(), &e);
        let hdr = header_bytes(s.next, &self.guid.lock());
        self.file.write_all_at(&hdr, 0).map_err(perr)?;
        self.file.sync_data().map_err(perr)?;
        self.base.store(s.next, Release);
        // wal/README W7: a file up to LOG_REUSE_MAX keeps its blocks: new records overwrite
        // the old ones (stale bytes never validate under the new base, W6), so commits do not
        // allocate blocks and their fdatasync needs no file-system journal commit
        if self.alloc.load(Acquire) > LOG_REUSE_MAX {
            self.file.set_len(LOG_HDR).map_err(perr)?;
            self.file.sync_data().map_err(perr)?;
            self.alloc.store(LOG_HDR, Release);
        }
        drop(s);
        Ok(true)
    }

    /// Clean shutdown: if the log holds no record since its last truncation, cuts the file to
    /// its header (blocks kept for reuse by W7 are given back; the next open reads nothing).
    pub fn cut_if_empty(&self) -> SqlResult<()> {
        let s = self.state.lock();
        if s.next != self.base.load(Acquire)
            || s.flushing
            || s.flushed != s.next
            || s.read_only.is_some()
        {
            return Ok(());
        }
        let perr = |e: std::io::Error| SqlError::io("write", &self.path.display().to_string(), &e);
        self.file.set_len(LOG_HDR).map_err(perr)?;
        self.file.sync_data().map_err(perr)?;
        self.alloc.store(LOG_HDR, Release);
        drop(s);
        Ok(())
    }

    pub fn next_lsn(&self) -> u64 {
        self.state.lock().next
    }

    pub fn flushed_lsn(&self) -> u64 {
        self.state.lock().flushed
    }

    /// Appends a record built by `build(ckpt_redo, out)` atomically; returns its LSN.
    /// The closure runs under the log mutex (it decides full-page images, wal/README W4).
    pub fn append_with(&self, build: impl FnOnce(u64, u64, &mut Vec<u8>)) -> SqlResult<u64> {
        let mut s = self.state.lock();
        if let Some(db) = &s.read_only {
            return Err(SqlError::new(3906, &[db]));
        }
        if s.failed {
            return Err(bad_log("log is unavailable after a write failure"));
        }
        let lsn = s.next;
        let before = s.buf.len();
        let redo = s.ckpt_redo;
        build(lsn, redo, &mut s.buf);
        s.next += (s.buf.len() - before) as u64;
        let big = s.buf.len() > (8 << 20) && !s.flushing;
        drop(s);
        if big {
            self.flush_to(lsn)?;
        }
        Ok(lsn)
    }

    /// Sets the checkpoint redo LSN to the current end of log and returns it.
    pub fn begin_checkpoint(&self) -> u64 {
        let mut s = self.state.lock();
        s.ckpt_redo = s.next;
        s.next
    }

    /// Group commit: returns once every record starting at or before `lsn` is durable.
    pub fn flush_to(&self, lsn: u64) -> SqlResult<()> {
        let mut s = self.state.lock();
        // WRITELOG: timed only once the caller has to wait for the log (not when durable)
        let mut _wait: Option<common::waits::Wait> = None;
        loop {
            if s.failed {
                return Err(bad_log("log is unavailable after a write failure"));
            }
            if s.flushed > lsn || s.flushed == s.next {
                return Ok(());
            }
            if _wait.is_none() {
                _wait = Some(common::waits::begin(common::waits::WaitType::WRITELOG));
                self.flush_waits.fetch_add(1, Relaxed);
            }
            if s.flushing {
                self.cond.wait(&mut s);
                continue;
            }
            let data = std::mem::take(&mut s.buf);
            let start = s.buf_start;
            let end = s.next;
            s.buf_start = end;
            s.flushing = true;
            drop(s);
            // disk full or a file size limit: SQL Server's "log is full" (storage README A5)
            let io_err = |op: &str, e: std::io::Error| match crate::file::is_out_of_space(&e) {
                true => SqlError::new(
                    9002,
                    &[
                        &crate::file::database_name(&self.path),
                        &"ACTIVE_TRANSACTION",
                    ],
                ),
                false => SqlError::io(op, &self.path.display().to_string(), &e),
            };
            let flush_started = std::time::Instant::now();
            let res = (|| {
                if !self.latency.is_zero() {
                    std::thread::sleep(self.latency);
                }
                // W11: grow the file in whole chunks before writing into them
                let need = self.offset(end);
                if need > self.alloc.load(Acquire) {
                    let len = chunked(need);
                    self.file.set_len(len).map_err(|e| io_err("extend", e))?;
                    self.alloc.store(len, Release);
                }
                self.file
                    .write_all_at(&data, self.offset(start))
                    .map_err(|e| io_err("write", e))?;
                if self.sync {
                    self.file
                        .sync_data()
                        .map_err(|e| SqlError::io("fsync", &self.path.display().to_string(), &e))?;
                }
                Ok(())
            })();
            self.bytes_written.fetch_add(data.len() as u64, Relaxed);
            self.flushes.fetch_add(1, Relaxed);
            let us = flush_started.elapsed().as_micros().min(u64::MAX as u128) as u64;
            self.flush_stall_us.fetch_add(us, Relaxed);
            s = self.state.lock();
            s.flushing = false;
            match &res {
                Ok(()) => {
                    s.flushed = end;
                    if s.buf.is_empty() {
                        let mut d = data;
                        d.clear();
                        s.buf = d;
                    }
                }
                Err(_) => s.failed = true,
            }
            self.cond.notify_all();
            res?;
        }
    }

    /// Reads the record at `lsn` (undo during recovery / after a failed in-memory undo).
    pub fn read_record(&self, lsn: u64) -> SqlResult<LogRecord> {
        {
            let s = self.state.lock();
            if lsn >= s.buf_start {
                let off = (lsn - s.buf_start) as usize;
                return decode(&s.buf[off.min(s.buf.len())..], lsn)
                    .ok_or_else(|| bad_log("bad record in log buffer"));
            }
        }
        let mut hdr = [0u8; 4];
        self.file
            .read_exact_at(&mut hdr, self.offset(lsn))
            .map_err(|e| SqlError::io("read", &self.path.display().to_string(), &e))?;
        let len = u32::from_le_bytes(hdr) as usize;
        if len > (64 << 20) {
            return Err(bad_log("record too long"));
        }
        let mut b = vec![0u8; len];
        self.file
            .read_exact_at(&mut b, self.offset(lsn))
            .map_err(|e| SqlError::io("read", &self.path.display().to_string(), &e))?;
        decode(&b, lsn).ok_or_else(|| bad_log("bad record"))
    }

    pub fn size_bytes(&self) -> u64 {
        self.file.metadata().map(|m| m.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_random() {
        let mut x = 12345u64;
        for round in 0..200 {
            let a: Vec<u8> = (0..8192).map(|i| (i * 7 + round) as u8).collect();
            let mut b = a.clone();
            for _ in 0..(round % 20) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = (x % 8192) as usize;
                let len = ((x >> 20) % 300) as usize;
                for v in b[at..(at + len).min(8192)].iter_mut() {
                    *v = v.wrapping_add(1 + (x as u8 % 3));
                }
            }
            let d = diff(&a, &b);
            let mut c = a.clone();
            for (o, bytes) in &d {
                c[*o as usize..*o as usize + bytes.len()].copy_from_slice(bytes);
            }
            assert_eq!(b, c);
        }
    }

    #[test]
    fn diff_roundtrip() {
        let a = vec![0u8; 8192];
        let mut b = a.clone();
        b[5] = 1;
        b[7] = 2;
        b[100..140].fill(9);
        b[8191] = 3;
        let d = diff(&a, &b);
        let mut c = a.clone();
        for (o, bytes) in &d {
            c[*o as usize..*o as usize + bytes.len()].copy_from_slice(bytes);
        }
        assert_eq!(b, c);
        assert!(d.len() <= 3);
    }

    /// `shape_len` (the damage scan's filter) accepts every record the encoder writes, or a
    /// damaged log could pass for a torn one.
    #[test]
    fn shape_len_matches_every_record_kind() {
        let undos = [
            None,
            Some(UndoOp::BTreeRemove {
                obj: 1,
                key: vec![1, 2],
            }),
            Some(UndoOp::BTreePut {
                obj: 1,
                key: vec![1],
                value: vec![2; 300],
            }),
            Some(UndoOp::HeapRemove {
                obj: 2,
                rid: [3; 8],
            }),
            Some(UndoOp::HeapRestore {
                obj: 2,
                rid: [3; 8],
                rec: vec![4; 20],
            }),
            Some(UndoOp::HeapReplace {
                obj: 2,
                rid: [3; 8],
                rec: vec![],
            }),
            Some(UndoOp::Uncreate { obj: 9 }),
            Some(UndoOp::Undrop { obj: 9 }),
            Some(UndoOp::Untruncate { obj: 9, zombie: 10 }),
        ];
        for undo in &undos {
            let mut out = Vec::new();
            let s = begin_record(&mut out, REC_OP, 7, 99);
            let pages = vec![
                (
                    PageId::new(1, 4),
                    PageChange::Diff(vec![(10, vec![1, 2]), (8000, vec![3; 192])]),
                ),
                (PageId::new(1, 5), PageChange::Fresh(vec![(0, vec![5; 96])])),
                (
                    PageId::new(1, 6),
                    PageChange::Image(vec![6u8; crate::page::PAGE_SIZE].into()),
                ),
            ];
            encode_op_body(&mut out, 5, undo.as_ref(), &pages);
            finish_record(&mut out, s, 64);
            assert_eq!(shape_len(&out), Some(out.len()), "{undo:?}");
            assert!(decode(&out, 64).is_some());
        }
        for (kind, body) in [(REC_COMMIT, 0), (REC_ABORT, 0), (REC_CHECKPOINT, 16)] {
            let mut out = Vec::new();
            let s = begin_record(&mut out, kind, 7, 99);
            out.extend(std::iter::repeat_n(0u8, body));
            finish_record(&mut out, s, 64);
            assert_eq!(shape_len(&out), Some(out.len()));
        }
    }

    #[test]
    fn record_roundtrip() {
        let mut out = Vec::new();
        let s = begin_record(&mut out, REC_OP, 7, 99);
        let undo = UndoOp::BTreePut {
            obj: 3,
            key: b"k".to_vec(),
            value: b"v".to_vec(),
        };
        encode_op_body(
            &mut out,
            5,
            Some(&undo),
            &[(PageId::new(1, 4), PageChange::Diff(vec![(10, vec![1, 2])]))],
        );
        finish_record(&mut out, s, 64);
        let r = decode(&out, 64).unwrap();
        assert!(decode(&out, 65).is_none());
        assert_eq!(shape_len(&out), Some(out.len()));
        assert_eq!(r.txn, 7);
        assert_eq!(r.prev, 99);
        assert_eq!(r.undo_next, 5);
        assert_eq!(r.undo, Some(undo));
        assert_eq!(r.pages.len(), 1);
        let mut bad = out.clone();
        bad[30] ^= 1;
        assert!(decode(&bad, 64).is_none());
        assert!(decode(&out[..out.len() - 1], 64).is_none());
    }
}
