//! The connection's byte stream, plain or TLS, split in a read half and a write half (both used
//! by the session thread; the halves once belonged to two threads). With TLS both halves share one `rustls::ServerConnection`
//! behind a mutex; the lock is never held across a blocking socket read, so a reader waiting
//! for the next packet does not stop the session thread from writing.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use rustls::ServerConnection;

pub(crate) type SharedTls = Arc<Mutex<ServerConnection>>;

fn lock(tls: &SharedTls) -> io::Result<std::sync::MutexGuard<'_, ServerConnection>> {
    tls.lock()
        .map_err(|_| io::Error::other("TLS state poisoned by a panic"))
}

/// Sends every TLS record rustls has queued.
fn flush_tls(conn: &mut ServerConnection, sock: &TcpStream) -> io::Result<()> {
    let mut s = sock;
    while conn.wants_write() {
        conn.write_tls(&mut s)?;
    }
    Ok(())
}

/// Both halves and the server's registry share one socket (one file descriptor per
/// connection): `Read` and `Write` work on `&TcpStream`.
pub(crate) struct ReadHalf {
    sock: Arc<TcpStream>,
    tls: Option<SharedTls>,
    raw: Vec<u8>,
}

impl ReadHalf {
    pub(crate) fn new(sock: &Arc<TcpStream>, tls: Option<SharedTls>) -> ReadHalf {
        ReadHalf {
            sock: sock.clone(),
            tls,
            raw: vec![0; 16 * 1024],
        }
    }
}

impl ReadHalf {
    /// Whether TLS holds decrypted bytes not read yet (a message read in full leaves none,
    /// unless the client sent more right behind it: an attention).
    pub(crate) fn has_buffered_plaintext(&self) -> bool {
        let Some(tls) = &self.tls else {
            return false;
        };
        match lock(tls) {
            Ok(mut c) => c
                .process_new_packets()
                .is_ok_and(|st| st.plaintext_bytes_to_read() > 0),
            Err(_) => false,
        }
    }
}

impl Read for ReadHalf {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(tls) = &self.tls else {
            return (&*self.sock).read(buf);
        };
        loop {
            {
                let mut c = lock(tls)?;
                match c.reader().read(buf) {
                    Ok(n) => return Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                }
            }
            // No plaintext buffered: read records without holding the lock.
            let n = (&*self.sock).read(&mut self.raw)?;
            if n == 0 {
                return Ok(0);
            }
            let mut c = lock(tls)?;
            let mut rd = &self.raw[..n];
            while !rd.is_empty() {
                c.read_tls(&mut rd)?;
                if let Err(e) = c.process_new_packets() {
                    let _ = flush_tls(&mut c, &self.sock);
                    return Err(io::Error::new(io::ErrorKind::InvalidData, e));
                }
            }
            flush_tls(&mut c, &self.sock)?;
        }
    }
}

pub(crate) struct WriteHalf {
    sock: Arc<TcpStream>,
    tls: Option<SharedTls>,
}

impl WriteHalf {
    pub(crate) fn new(sock: &Arc<TcpStream>, tls: Option<SharedTls>) -> WriteHalf {
        WriteHalf {
            sock: sock.clone(),
            tls,
        }
    }
}

impl Write for WriteHalf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &self.tls {
            None => (&*self.sock).write(buf),
            Some(tls) => {
                let mut c = lock(tls)?;
                c.writer().write_all(buf)?;
                flush_tls(&mut c, &self.sock)?;
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self.sock).flush()
    }
}
