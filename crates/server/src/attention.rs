//! The attention watcher: notices an attention (or a closed socket) while a request runs.
//!
//! The session thread reads its own socket between requests (no reader thread, no channel hop
//! per request: that hop cost a thread wake-up per request, 40 % of the server's CPU in the
//! kernel at 16 sessions). While a request runs nobody reads the socket, so one process-wide
//! watcher thread looks, every tick, at the sockets of requests that have been running for at
//! least a full tick: one `poll` over them, and for a readable one a non-blocking one-byte
//! peek. A TDS client sends nothing during a request but an attention (without MARS), so a
//! peeked attention packet type (or, under TLS, any record), end of file or a socket error
//! cancels the request through its cancel flag. The attention packet itself stays in the
//! socket: the session thread reads and answers it after the request's response, as before.
//!
//! Cost per request: two uncontended mutex operations and an atomic load. Requests shorter
//! than a tick are never polled; an attention reaches a longer one within about two ticks.

use std::collections::HashMap;
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use common::CancelToken;

/// How often the watcher looks at running requests.
const TICK: Duration = Duration::from_millis(5);
/// The packet type of an attention ([MS-TDS] 2.2.3.1.1).
const ATTENTION: u8 = 0x06;

/// One connection as the watcher sees it.
pub(crate) struct Watch {
    /// Held so the descriptor stays open (and is never reused) while the watch lives.
    sock: Arc<TcpStream>,
    /// Under TLS the peeked byte is a record type, not a packet type: any data cancels.
    tls: bool,
    cancel: CancelToken,
    /// `generation << 1 | running`: the watcher cancels only the request it polled for, never
    /// the next one (whose bytes a client may already have sent when the response ended).
    state: Mutex<u64>,
    /// The watcher's tick when the running request began.
    started_tick: AtomicU64,
    watcher: Arc<Watcher>,
    id: u64,
}

impl Watch {
    /// A request begins: from the next tick on its socket is watched.
    pub(crate) fn begin(&self) {
        let mut s = lock(&self.state);
        *s = ((*s >> 1) + 1) << 1 | 1;
        self.started_tick
            .store(self.watcher.tick.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// The request ends (before its last packet is written): the watcher lets it be.
    pub(crate) fn end(&self) {
        let mut s = lock(&self.state);
        *s &= !1;
    }
}

impl Watch {
    fn fd(&self) -> RawFd {
        self.sock.as_raw_fd()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Ok(mut m) = self.watcher.conns.lock() {
            m.remove(&self.id);
        }
    }
}

fn lock(m: &Mutex<u64>) -> std::sync::MutexGuard<'_, u64> {
    // the guarded value is a plain number: a poisoned lock's value is still good
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The process-wide watcher (one thread, started with the first watched connection).
#[derive(Default)]
pub(crate) struct Watcher {
    conns: Mutex<HashMap<u64, Weak<Watch>>>,
    tick: AtomicU64,
    started: std::sync::OnceLock<()>,
    /// Requests cancelled by the watcher (tests and the README's measurements).
    pub(crate) cancels: AtomicU64,
}

impl Watcher {
    /// Registers a connection; the returned watch unregisters itself when dropped.
    pub(crate) fn watch(
        self: &Arc<Self>,
        id: u64,
        sock: &Arc<TcpStream>,
        tls: bool,
        cancel: CancelToken,
    ) -> Arc<Watch> {
        self.started.get_or_init(|| {
            let me = Arc::downgrade(self);
            let _ = std::thread::Builder::new()
                .name("tds-attention".into())
                .spawn(move || run(me));
        });
        let w = Arc::new(Watch {
            sock: sock.clone(),
            tls,
            cancel,
            state: Mutex::new(0),
            started_tick: AtomicU64::new(0),
            watcher: self.clone(),
            id,
        });
        if let Ok(mut m) = self.conns.lock() {
            m.insert(id, Arc::downgrade(&w));
        }
        w
    }

    /// One tick: poll the sockets of requests running since before the previous tick.
    fn scan(&self) {
        let now = self.tick.fetch_add(1, Ordering::Relaxed) + 1;
        let watched: Vec<Arc<Watch>> = match self.conns.lock() {
            Ok(m) => m.values().filter_map(Weak::upgrade).collect(),
            Err(_) => return,
        };
        let mut due: Vec<(Arc<Watch>, u64)> = Vec::new();
        for w in watched {
            let state = *lock(&w.state);
            if state & 1 == 1 && w.started_tick.load(Ordering::Relaxed) + 1 < now {
                due.push((w, state));
            }
        }
        if due.is_empty() {
            return;
        }
        let mut fds: Vec<libc::pollfd> = due
            .iter()
            .map(|(w, _)| libc::pollfd {
                fd: w.fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs for the duration of the
        // call; each descriptor is open: its `Watch` (held in `due`) holds the socket.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
        if n <= 0 {
            return;
        }
        for ((w, state), p) in due.iter().zip(&fds) {
            if p.revents == 0 || p.revents & libc::POLLNVAL != 0 {
                continue;
            }
            if !wants_cancel(w, p.revents) {
                continue;
            }
            let s = lock(&w.state);
            if *s == *state {
                w.cancel.cancel();
                self.cancels.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Whether what waits on a running request's socket is an attention, an end of file or an
/// error.
fn wants_cancel(w: &Watch, revents: libc::c_short) -> bool {
    if revents & (libc::POLLERR | libc::POLLHUP) != 0 {
        return true;
    }
    let mut b = [0u8; 1];
    // SAFETY: reads at most one byte into `b`, which outlives the call, from a descriptor the
    // watch keeps open; MSG_PEEK leaves the byte for the session thread, MSG_DONTWAIT never
    // blocks.
    let n = unsafe {
        libc::recv(
            w.fd(),
            b.as_mut_ptr().cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    match n {
        0 => true,
        1 => w.tls || b[0] == ATTENTION,
        _ => {
            let e = std::io::Error::last_os_error();
            !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
            )
        }
    }
}

fn run(watcher: Weak<Watcher>) {
    loop {
        std::thread::sleep(TICK);
        match watcher.upgrade() {
            Some(w) => w.scan(),
            None => return,
        }
    }
}
