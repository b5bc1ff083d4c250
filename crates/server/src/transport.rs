//! The connection's byte stream, plain or TLS, split in a read half (the reader thread) and a
//! write half (the session thread). With TLS both halves share one `rustls::ServerConnection`
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
fn flush_tls(conn: &mut ServerConnection, sock: &mut TcpStream) -> io::Result<()> {
    while conn.wants_write() {
        conn.write_tls(sock)?;
    }
    Ok(())
}

pub(crate) struct ReadHalf {
    sock: TcpStream,
    /// For alerts and key updates rustls answers while reading.
    out: TcpStream,
    tls: Option<SharedTls>,
    raw: Vec<u8>,
}

impl ReadHalf {
    pub(crate) fn new(sock: &TcpStream, tls: Option<SharedTls>) -> io::Result<ReadHalf> {
        Ok(ReadHalf {
            sock: sock.try_clone()?,
            out: sock.try_clone()?,
            tls,
            raw: vec![0; 16 * 1024],
        })
    }
}

impl Read for ReadHalf {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(tls) = &self.tls else {
            return self.sock.read(buf);
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
            let n = self.sock.read(&mut self.raw)?;
            if n == 0 {
                return Ok(0);
            }
            let mut c = lock(tls)?;
            let mut rd = &self.raw[..n];
            while !rd.is_empty() {
                c.read_tls(&mut rd)?;
                if let Err(e) = c.process_new_packets() {
                    let _ = flush_tls(&mut c, &mut self.out);
                    return Err(io::Error::new(io::ErrorKind::InvalidData, e));
                }
            }
            flush_tls(&mut c, &mut self.out)?;
        }
    }
}

pub(crate) struct WriteHalf {
    sock: TcpStream,
    tls: Option<SharedTls>,
}

impl WriteHalf {
    pub(crate) fn new(sock: &TcpStream, tls: Option<SharedTls>) -> io::Result<WriteHalf> {
        Ok(WriteHalf {
            sock: sock.try_clone()?,
            tls,
        })
    }
}

impl Write for WriteHalf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &self.tls {
            None => self.sock.write(buf),
            Some(tls) => {
                let mut c = lock(tls)?;
                c.writer().write_all(buf)?;
                flush_tls(&mut c, &mut self.sock)?;
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sock.flush()
    }
}
