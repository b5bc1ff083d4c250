//! File identity (storage README "File identity"): the body of page 0 of every data file
//! names the database (a 16-byte id made at creation), the file's id and the number of data
//! files; the primary file also records the end of the log at its last checkpoint, which the
//! log must reach at the next open. Read straight from disk at open, before the buffer pool
//! exists, so a missing, foreign or damaged file is refused before anything is written.

use std::hash::{BuildHasher, Hasher};

use common::{PageId, SqlError, SqlResult};

use crate::file::DataFile;
use crate::page::{self, rd16, rd64, wr16, wr64, PageBuf, PageType, HEADER, PAGE_SIZE};

/// Data file format version written by this build. 1 = no identity fields (still read; the
/// first checkpoint after opening writes them: "upgrade on open").
pub const FORMAT_VERSION: u16 = 2;
pub const MAGIC: &[u8; 8] = b"LATCHKEY";

const OFF_MAGIC: usize = HEADER;
const OFF_FILE_ID: usize = HEADER + 8;
const OFF_VERSION: usize = HEADER + 10;
const OFF_NFILES: usize = HEADER + 12;
const OFF_GUID: usize = HEADER + 16;
const OFF_CKPT_LSN: usize = HEADER + 32;
const OFF_ABSENT: usize = HEADER + 40;
/// Bytes of the absent-file bitmap (one bit per file id 0..=255).
pub const ABSENT_BYTES: usize = 32;
/// The file's data space (filegroup) id; 0 in files written before filegroups = PRIMARY (1).
const OFF_DATA_SPACE: usize = OFF_ABSENT + ABSENT_BYTES;
/// The PRIMARY filegroup's data space id.
pub const PRIMARY_DATA_SPACE: u16 = 1;

/// A database id; all zero = unknown (format 1).
pub type DbGuid = [u8; 16];

/// A fresh database id: 16 bytes from the process's randomly keyed hasher over the time, the
/// process id and a stack address (no `rand` dependency; ids only need to differ).
pub fn new_guid() -> DbGuid {
    let mut out = [0u8; 16];
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(now);
        h.write_u32(std::process::id());
        h.write_usize(&now as *const u128 as usize);
        h.write_usize(i);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

/// The identity fields of a data file's page 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileHeader {
    pub file_id: u16,
    pub version: u16,
    /// Data files of the database (0 = unknown, format 1).
    pub nfiles: u16,
    pub guid: DbGuid,
    /// Primary file: end of the durable log at the last checkpoint (0 = unknown).
    pub ckpt_lsn: u64,
    /// Primary file: bit `i` set = file id `i` (< `nfiles`) was removed (ALTER DATABASE
    /// REMOVE FILE); all zero in files written before REMOVE FILE existed.
    pub absent: [u8; ABSENT_BYTES],
    /// The filegroup (data space id) the file belongs to: written once when the file is made
    /// (before the primary names it) and kept by every checkpoint's rewrite. 1 = PRIMARY.
    pub data_space: u16,
}

impl FileHeader {
    /// Whether file id `id` is marked removed in the absent-file bitmap.
    pub fn is_absent(&self, id: u16) -> bool {
        let i = usize::from(id);
        self.absent
            .get(i / 8)
            .is_some_and(|b| b & (1 << (i % 8)) != 0)
    }
}

/// The absent-file bitmap of a file set: ids in 1..=`max_id` for which `present` is false.
pub fn absent_bitmap(max_id: u16, present: impl Fn(u16) -> bool) -> [u8; ABSENT_BYTES] {
    let mut b = [0u8; ABSENT_BYTES];
    for id in 1..=max_id.min((ABSENT_BYTES * 8 - 1) as u16) {
        if !present(id) {
            b[usize::from(id) / 8] |= 1 << (id % 8);
        }
    }
    b
}

impl FileHeader {
    /// Writes the fields into page 0's body (the page header is the caller's).
    pub fn write_into(&self, p: &mut PageBuf) {
        p[OFF_MAGIC..OFF_MAGIC + 8].copy_from_slice(MAGIC);
        wr16(p, OFF_FILE_ID, self.file_id);
        wr16(p, OFF_VERSION, self.version);
        wr16(p, OFF_NFILES, self.nfiles);
        p[OFF_GUID..OFF_GUID + 16].copy_from_slice(&self.guid);
        wr64(p, OFF_CKPT_LSN, self.ckpt_lsn);
        p[OFF_ABSENT..OFF_ABSENT + ABSENT_BYTES].copy_from_slice(&self.absent);
        wr16(p, OFF_DATA_SPACE, self.data_space);
    }

    /// Parses page 0 (already verified); format 1 leaves the newer fields unknown.
    fn parse(p: &PageBuf) -> Option<FileHeader> {
        if &p[OFF_MAGIC..OFF_MAGIC + 8] != MAGIC || page::page_type(p) != Some(PageType::FileHeader)
        {
            return None;
        }
        let version = rd16(p, OFF_VERSION);
        let mut h = FileHeader {
            file_id: rd16(p, OFF_FILE_ID),
            version,
            nfiles: 0,
            guid: [0; 16],
            ckpt_lsn: 0,
            absent: [0; ABSENT_BYTES],
            data_space: PRIMARY_DATA_SPACE,
        };
        if version >= 2 {
            h.nfiles = rd16(p, OFF_NFILES);
            h.guid.copy_from_slice(&p[OFF_GUID..OFF_GUID + 16]);
            h.ckpt_lsn = rd64(p, OFF_CKPT_LSN);
            h.absent
                .copy_from_slice(&p[OFF_ABSENT..OFF_ABSENT + ABSENT_BYTES]);
            h.data_space = rd16(p, OFF_DATA_SPACE).max(PRIMARY_DATA_SPACE);
        }
        Some(h)
    }
}

/// Msg 5172: page 0 of `file` is not a latchkey file header.
fn not_a_header(file: &DataFile, property: &str) -> SqlError {
    SqlError::new(5172, &[&file.path.display(), &property])
}

/// Msg 5173: a file of another database (or another file's place).
pub fn foreign_file() -> SqlError {
    SqlError::new(5173, &[])
}

/// Parses a page 0 image (the buffer pool's copy of the primary's), if it is a header.
pub fn parse_header(p: &PageBuf) -> Option<FileHeader> {
    FileHeader::parse(p)
}

/// Reads and checks page 0 of `file` straight from disk (open-time checks).
pub fn read_header(file: &DataFile) -> SqlResult<FileHeader> {
    let mut buf: Box<PageBuf> = Box::new([0u8; PAGE_SIZE]);
    file.read_pages(0, &mut buf[..])?;
    let pid = PageId::new(file.id, 0);
    if buf.iter().all(|&b| b == 0) {
        return Err(not_a_header(file, "PageAudit"));
    }
    if page::verify(&buf, pid).is_err() {
        // a sound page 0 of another file (data files swapped) is a foreign file
        let other = PageId::new(page::page_id(&buf).file, 0);
        return Err(if other != pid && page::verify(&buf, other).is_ok() {
            foreign_file()
        } else {
            not_a_header(file, "PageAudit")
        });
    }
    let h = FileHeader::parse(&buf).ok_or_else(|| not_a_header(file, "PageAudit"))?;
    if h.version > FORMAT_VERSION {
        return Err(not_a_header(file, "version"));
    }
    if h.file_id != file.id {
        return Err(foreign_file());
    }
    Ok(h)
}
