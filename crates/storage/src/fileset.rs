//! Changing the file set of an open database (storage README "Changing the file set"):
//! ALTER DATABASE ADD FILE and REMOVE FILE. The primary file's header (page 0 of `data1.mdf`:
//! the highest file id and the absent-file bitmap) is the one record of which files belong to
//! the database; rewriting it (one page write + fsync, as every checkpoint does) is the commit
//! point of either change, so a crash leaves the old or the new file set:
//!
//! * add: the new file gets its header and GAM and is fsynced (and its directory) before the
//!   primary names it; until then it is an orphan that opens ignore and the next add at that
//!   id empties. No log record names a file before the primary does (it takes no extent).
//! * remove: the file is drained (no new extents), found empty under its GAM latch, then a
//!   checkpoint moves recovery's redo start past every log record that touched it; only then
//!   does the primary drop it, and the file is deleted after. A crash before the header write
//!   keeps an empty file; after it, at worst an orphan file that nothing reads.

use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use common::{PageId, SqlError, SqlResult};

use crate::db::{Inner, GAM_PAGE};
use crate::file::{DataFile, FILE_DRAINING, FILE_ONLINE, FILE_REMOVED};
use crate::fileid::{self, FileHeader, FORMAT_VERSION};
use crate::page::{self, PageBuf, PageType, HEADER, PAGE_SIZE};

/// Smallest new file: the header and GAM extent plus one extent of data.
const MIN_FILE_BYTES: u64 = 2 * 8 * PAGE_SIZE as u64;

fn sync_dir(dir: &Path) -> SqlResult<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| SqlError::io("fsync", &dir.display().to_string(), &e))
}

impl Inner {
    /// The primary header's file-set fields: highest file id and absent-file bitmap.
    pub(crate) fn file_set_fields(&self) -> (u16, [u8; fileid::ABSENT_BYTES]) {
        let files = &self.pool.files;
        let max_id = files.max_id();
        (
            max_id,
            fileid::absent_bitmap(max_id, |id| files.get(id).is_some()),
        )
    }

    /// Rewrites the file-set fields of the primary's page 0 (its checkpoint LSN kept) and
    /// makes every data page durable: the commit point of a file-set change. Caller holds
    /// `ckpt_lock` (a checkpoint rewrites the same page).
    fn publish_file_set(&self) -> SqlResult<()> {
        let (nfiles, absent) = self.file_set_fields();
        {
            let mut w = self.pool.write(PageId::new(1, 0))?;
            let mut h = fileid::parse_header(&w)
                .ok_or_else(|| page::corrupt(PageId::new(1, 0), "not a file header"))?;
            h.version = FORMAT_VERSION;
            h.nfiles = nfiles;
            h.absent = absent;
            h.write_into(&mut w);
            w.mark_dirty();
        }
        self.pool.flush_all()
    }

    /// ALTER DATABASE ADD FILE: creates `dataN.mdf` (N = the next file id) of at least
    /// `size_bytes` in filegroup `data_space` (written in its header, README "Filegroups")
    /// and adds it to the database; returns N. Proportional fill uses it at once.
    pub fn add_file(&self, size_bytes: u64, data_space: u16) -> SqlResult<u16> {
        let data_space = data_space.max(fileid::PRIMARY_DATA_SPACE);
        if self.log.is_read_only() {
            return Err(SqlError::new(3906, &[&self.dir_name()]));
        }
        let _set = self.file_set_lock.lock();
        let Some(id) = self.pool.files.next_id() else {
            return Err(SqlError::unsupported(format!(
                "more than {} data files in a database",
                crate::file::MAX_DATA_FILES
            )));
        };
        if id < 2 || self.pool.files.slot_used(id) {
            // never touch the file of a slot in use (it would be emptied below)
            return Err(SqlError::internal(format!("data file slot {id} in use")));
        }
        let path = self.dir.join(format!("data{id}.mdf"));
        let latency = self
            .pool
            .files
            .get(1)
            .map_or(self.config.io_latency, |f| f.read_latency());
        let f = DataFile::create_empty(id, &path, self.config.io_latency)?;
        f.set_read_latency(latency);
        f.set_data_space(data_space);
        // header and GAM straight to the file: not logged, as at creation (README)
        let mut buf: Box<PageBuf> = Box::new([0u8; PAGE_SIZE]);
        page::init(&mut buf, PageId::new(id, 0), PageType::FileHeader, 0, 0);
        let (max_id, _) = self.file_set_fields();
        FileHeader {
            file_id: id,
            version: FORMAT_VERSION,
            nfiles: max_id.max(id),
            guid: self.guid,
            ckpt_lsn: 0,
            absent: [0; fileid::ABSENT_BYTES],
            data_space,
        }
        .write_into(&mut buf);
        page::seal(&mut buf);
        f.write_pages(0, &buf[..])?;
        buf.fill(0);
        page::init(&mut buf, PageId::new(id, GAM_PAGE), PageType::Gam, 0, 0);
        buf[HEADER] |= 1; // extent 0: system pages
        page::seal(&mut buf);
        f.write_pages(GAM_PAGE, &buf[..])?;
        f.grow_to(size_bytes.max(MIN_FILE_BYTES)).map_err(|e| {
            if crate::file::is_out_of_space(&e) {
                f.full("(file size)")
            } else {
                SqlError::io("allocate", &path.display().to_string(), &e)
            }
        })?;
        f.sync()?;
        sync_dir(&self.dir)?;
        let f = Arc::new(f);
        f.set_state(FILE_DRAINING); // named by the header below, no extents before that
        let _ck = self.ckpt_lock.lock();
        if !self.pool.files.insert(f.clone()) {
            return Err(SqlError::internal(format!("data file slot {id} taken")));
        }
        if let Err(e) = self.publish_file_set() {
            f.set_state(FILE_REMOVED);
            return Err(e);
        }
        self.fill.set_used(id, 0);
        self.gam_hint[usize::from(id) - 1].store(1, Relaxed);
        f.set_state(FILE_ONLINE);
        Ok(id)
    }

    /// ALTER DATABASE REMOVE FILE of data file `id` (not the primary): Msg 5042 naming
    /// `logical` when any extent of it is in use (dropped objects of open transactions
    /// included); else the file leaves the database and `dataN.mdf` is deleted.
    pub fn remove_file(&self, id: u16, logical: &str) -> SqlResult<()> {
        if self.log.is_read_only() {
            return Err(SqlError::new(3906, &[&self.dir_name()]));
        }
        if id == 1 {
            return Err(SqlError::new(5020, &[]));
        }
        let _set = self.file_set_lock.lock();
        let Some(f) = self.pool.files.get(id).cloned() else {
            return Err(SqlError::new(5009, &[]));
        };
        f.set_state(FILE_DRAINING);
        let restore = |e: SqlError| {
            f.set_state(FILE_ONLINE);
            e
        };
        // under the GAM latch: an allocation that saw the file online has committed its
        // extent (seen here); any later one sees it draining (db.rs alloc_extent)
        let used = self
            .pool
            .read(PageId::new(id, GAM_PAGE))
            .map(|g| crate::fill::gam_used_extents(&g[..]))
            .map_err(restore)?;
        if used > 0 {
            return Err(restore(SqlError::new(5042, &[&"file", &logical])));
        }
        // redo will never start before this point: no record after it touches the file
        self.checkpoint().map_err(restore)?;
        {
            let _ck = self.ckpt_lock.lock();
            self.pool.drop_file_pages(id);
            f.set_state(FILE_REMOVED);
            if let Err(e) = self.publish_file_set() {
                return Err(restore(e));
            }
        }
        let _ = std::fs::remove_file(&f.path);
        sync_dir(&self.dir)
    }
}
