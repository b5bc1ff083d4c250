//! Data files: positioned page I/O, per-file counters, the storage latency model.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use common::{SqlError, SqlResult};

use crate::page::PAGE_SIZE;
use crate::FileStats;

/// One data file (`file_id` >= 1).
pub struct DataFile {
    pub id: u16,
    pub path: PathBuf,
    file: File,
    latency: Duration,
    reads: AtomicU64,
    bytes_read: AtomicU64,
    stall_read_us: AtomicU64,
    writes: AtomicU64,
    bytes_written: AtomicU64,
    stall_write_us: AtomicU64,
    size: AtomicU64,
}

impl DataFile {
    pub fn open(id: u16, path: &Path, latency: Duration) -> SqlResult<DataFile> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| SqlError::io("open", &path.display().to_string(), &e))?;
        let size = file
            .metadata()
            .map_err(|e| SqlError::io("stat", &path.display().to_string(), &e))?
            .len();
        Ok(DataFile {
            id,
            path: path.to_path_buf(),
            file,
            latency,
            reads: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            stall_read_us: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            bytes_written: AtomicU64::new(0),
            stall_write_us: AtomicU64::new(0),
            size: AtomicU64::new(size),
        })
    }

    fn err(&self, op: &str, e: &std::io::Error) -> SqlError {
        SqlError::io(op, &self.path.display().to_string(), e)
    }

    /// Reads `buf.len() / PAGE_SIZE` pages starting at `page`; bytes beyond the end of the file
    /// read as zeros (never-written pages).
    pub fn read_pages(&self, page: u32, buf: &mut [u8]) -> SqlResult<()> {
        let t = Instant::now();
        if !self.latency.is_zero() {
            std::thread::sleep(self.latency);
        }
        let off = page as u64 * PAGE_SIZE as u64;
        let mut done = 0usize;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], off + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err("read", &e)),
            }
        }
        buf[done..].fill(0);
        self.reads.fetch_add(1, Relaxed);
        self.bytes_read.fetch_add(buf.len() as u64, Relaxed);
        self.stall_read_us
            .fetch_add(t.elapsed().as_micros() as u64, Relaxed);
        Ok(())
    }

    /// Writes whole pages starting at `page`.
    pub fn write_pages(&self, page: u32, buf: &[u8]) -> SqlResult<()> {
        let t = Instant::now();
        if !self.latency.is_zero() {
            std::thread::sleep(self.latency);
        }
        let off = page as u64 * PAGE_SIZE as u64;
        self.file
            .write_all_at(buf, off)
            .map_err(|e| self.err("write", &e))?;
        self.size.fetch_max(off + buf.len() as u64, Relaxed);
        self.writes.fetch_add(1, Relaxed);
        self.bytes_written.fetch_add(buf.len() as u64, Relaxed);
        self.stall_write_us
            .fetch_add(t.elapsed().as_micros() as u64, Relaxed);
        Ok(())
    }

    pub fn sync(&self) -> SqlResult<()> {
        self.file.sync_data().map_err(|e| self.err("fsync", &e))
    }

    pub fn size_bytes(&self) -> u64 {
        self.size.load(Relaxed)
    }

    pub fn stats(&self) -> FileStats {
        FileStats {
            file_id: self.id,
            path: self.path.clone(),
            num_of_reads: self.reads.load(Relaxed),
            num_of_bytes_read: self.bytes_read.load(Relaxed),
            io_stall_read_ms: self.stall_read_us.load(Relaxed) / 1000,
            num_of_writes: self.writes.load(Relaxed),
            num_of_bytes_written: self.bytes_written.load(Relaxed),
            io_stall_write_ms: self.stall_write_us.load(Relaxed) / 1000,
            size_bytes: self.size_bytes(),
        }
    }
}
