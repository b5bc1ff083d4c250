//! RPC requests ([MS-TDS] 2.2.6.6).

use std::io::{self, Write};

use common::SqlError;
use engine::{EventSink, Session};

use crate::sink::TdsSink;

pub(crate) fn handle<W: Write>(
    _session: &mut Session,
    _payload: &[u8],
    sink: &mut TdsSink<'_, W>,
) -> io::Result<()> {
    sink.error(&SqlError::custom(
        40517,
        16,
        1,
        "Keyword or statement option 'RPC request' is not supported in this version of SQL Server.",
    ));
    Ok(())
}
