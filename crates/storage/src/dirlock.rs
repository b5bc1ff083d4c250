//! One owner per directory (storage README "Directory lock"): the process that opens a
//! database (or the engine's data directory) holds an exclusive `flock` on a lock file inside
//! it for as long as it is open. A second opener fails at once with Msg 5120 / OS error 32,
//! before it reads or writes any database file.
//!
//! `flock` (not `fcntl` record locks) because its lock belongs to the open file description:
//! it is released when the last descriptor closes (also on SIGKILL), it never conflicts with
//! itself through other descriptors of the same open, and a second `open` of the same file in
//! the same process conflicts like another process would (so a library user cannot open one
//! directory twice either).

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use common::{SqlError, SqlResult};

/// Name of the lock file in a locked directory.
pub const LOCK_FILE: &str = "latchkey.lock";

/// An exclusive lock on a directory; released on drop (closing the descriptor).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    pub path: PathBuf,
}

/// Msg 5120 for `file` with the operating-system error `code` and its text.
pub fn unable_to_open(file: &Path, code: i32, text: &str) -> SqlError {
    SqlError::new(5120, &[&file.display(), &code, &format!("{code}({text})")])
}

/// Msg 5120 with OS error 32 ("being used by another process").
pub fn in_use(file: &Path) -> SqlError {
    unable_to_open(
        file,
        32,
        "The process cannot access the file because it is being used by another process.",
    )
}

/// Msg 5120 with OS error 2 ("cannot find the file").
pub fn not_found(file: &Path) -> SqlError {
    unable_to_open(file, 2, "The system cannot find the file specified.")
}

/// How long a taken lock is retried before the directory is reported in use (see `acquire`).
const INHERITED_LOCK_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

impl DirLock {
    /// Takes the exclusive lock of `dir` (which must exist). `shown` is the file named in the
    /// error when another process holds it (the database's primary data file, as SQL Server).
    pub fn acquire(dir: &Path, shown: &Path) -> SqlResult<DirLock> {
        let path = dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| SqlError::io("open", &path.display().to_string(), &e))?;
        // A child this process forks inherits the lock's open file description until it execs
        // (the descriptor is close-on-exec), so a lock just released by this process can still
        // look taken for a moment: retry briefly before calling the directory in use.
        let deadline = std::time::Instant::now() + INHERITED_LOCK_GRACE;
        loop {
            // SAFETY: flock on a descriptor we own; no memory is passed.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                return Ok(DirLock { _file: file, path });
            }
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(SqlError::io("lock", &path.display().to_string(), &err));
            }
            if std::time::Instant::now() >= deadline {
                return Err(in_use(shown));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Gives the lock up while the descriptor stays open (`Database::simulate_crash`).
    pub fn release(&self) {
        // SAFETY: flock on a descriptor we own; no memory is passed.
        unsafe { libc::flock(self._file.as_raw_fd(), libc::LOCK_UN) };
    }
}
