//! Identifiers shared between layers.

use std::fmt;

/// A data file within a database (SQL Server's `file_id`; 1 is the primary data file).
pub type FileId = u16;

/// A page address: file and page number within the file, printed SQL Server style as `(1:153)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct PageId {
    pub file: FileId,
    pub page: u32,
}

impl PageId {
    /// The "no page" marker used in prev/next links and empty roots.
    pub const INVALID: PageId = PageId { file: 0, page: 0 };

    pub const fn new(file: FileId, page: u32) -> Self {
        PageId { file, page }
    }

    pub fn is_valid(self) -> bool {
        self.file != 0
    }

    /// Packs into 6 bytes' worth of a u64 for on-page storage.
    pub fn to_u64(self) -> u64 {
        ((self.file as u64) << 32) | self.page as u64
    }

    pub fn from_u64(v: u64) -> Self {
        PageId {
            file: (v >> 32) as u16,
            page: v as u32,
        }
    }
}

impl fmt::Display for PageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}:{})", self.file, self.page)
    }
}

/// Log sequence number: byte offset of a record in the (logical, ever-growing) log stream.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Lsn(pub u64);

impl Lsn {
    pub const ZERO: Lsn = Lsn(0);
}

impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:08X}:{:08X}", self.0 >> 32, self.0 as u32)
    }
}

/// A storage-level transaction id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct TxnId(pub u64);

/// SQL Server `object_id`.
pub type ObjectId = i32;
