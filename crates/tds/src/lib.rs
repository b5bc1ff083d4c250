//! The TDS 7.4 wire codec ([MS-TDS]): pure functions and buffer readers/writers over bytes, no
//! sockets (the `server` crate does the network I/O). Both directions are here: the server
//! decodes PRELOGIN, LOGIN7, SQLBatch, RPC and attention and writes the token stream; the
//! blocking client (`client`) does the reverse for `latchkey -S` and tests.
//!
//! Every decoder takes untrusted bytes: lengths are checked before they are used, nothing
//! allocates more than the bytes it was given justify, and malformed input is a [`TdsError`],
//! never a panic.

pub mod error;

// Framing, handshake and non-row tokens (owner: server).
pub mod batch;
pub mod client;
pub mod login7;
pub mod packet;
pub mod prelogin;
pub mod tokens;

// Types, values, rows and RPC parameters (owner: tdstypes).
pub mod downlevel;
pub mod rows;
pub mod rpc;
pub mod types;
pub mod value_codec;

pub use error::TdsError;
