//! Output events of a batch, in execution order (see shared/conformance/ENGINE_INTERFACE.md).
//!
//! The engine calls an [`EventSink`] while it runs a batch: result sets stream (`result_start`,
//! `row`*, `result_end`), row counts, informational messages and errors come as they happen. The
//! CLI renders them as jsonl or sqlcmd-like tables; the TDS server (later) as tokens.

use common::SqlError;
use types::{DataType, Value};

/// A column of a result set.
#[derive(Clone, Debug, PartialEq)]
pub struct OutColumn {
    /// Column name ("" for an unnamed expression).
    pub name: String,
    pub data_type: DataType,
}

/// An informational message (PRINT, RAISERROR severity <= 10, warnings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoMessage {
    pub text: String,
    pub number: i32,
    pub severity: u8,
    pub state: u8,
}

impl InfoMessage {
    /// A PRINT message.
    pub fn print(text: impl Into<String>) -> Self {
        InfoMessage {
            text: text.into(),
            number: 0,
            severity: 0,
            state: 1,
        }
    }
}

/// Receives the events of a batch.
pub trait EventSink {
    /// A result set begins: column metadata.
    fn result_start(&mut self, columns: &[OutColumn]);
    /// One row of the current result set.
    fn row(&mut self, row: &[Value]);
    /// The current result set ended. `incomplete`: an error interrupted it (the error event
    /// follows). `rows`: rows sent; `show_count`: SET NOCOUNT is OFF (sqlcmd prints
    /// "(N rows affected)").
    fn result_end(&mut self, rows: u64, incomplete: bool, show_count: bool);
    /// Rows affected by INSERT/UPDATE/DELETE/MERGE/SELECT INTO (only when NOCOUNT is OFF).
    fn row_count(&mut self, count: u64);
    /// The row count of a DML statement whose OUTPUT rows were its result set (ended with
    /// `show_count` false): the one count sqlcmd prints for it, where a SELECT's goes.
    fn output_row_count(&mut self, count: u64) {
        self.row_count(count);
    }
    /// An informational message.
    fn message(&mut self, msg: &InfoMessage);
    /// An error raised to the client.
    fn error(&mut self, err: &SqlError);
    /// The session's user transaction began or ended (@@TRANCOUNT went from 0 or to 0),
    /// reported right after the statement that did it (the TDS server's ENVCHANGE 8/9/10).
    fn transaction(&mut self, _change: TransactionChange) {}
}

/// What [`EventSink::transaction`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransactionChange {
    Begin,
    /// Ended: `Some(true)` committed, `Some(false)` rolled back, `None` not known (the session
    /// closed it without recording how).
    End(Option<bool>),
}

/// One recorded event (for tests and for buffering sinks).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    ResultSet {
        columns: Vec<OutColumn>,
        rows: Vec<Vec<Value>>,
        incomplete: bool,
    },
    RowCount(u64),
    Message(InfoMessage),
    Error(SqlError),
}

/// A sink that records every event (tests, embedding).
#[derive(Default, Debug)]
pub struct CollectSink {
    pub events: Vec<Event>,
    open: Option<(Vec<OutColumn>, Vec<Vec<Value>>)>,
}

impl CollectSink {
    pub fn new() -> Self {
        Self::default()
    }

    /// The errors recorded so far.
    pub fn errors(&self) -> Vec<&SqlError> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Error(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    /// Rows of the result sets recorded so far, in order.
    pub fn result_sets(&self) -> Vec<&Vec<Vec<Value>>> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ResultSet { rows, .. } => Some(rows),
                _ => None,
            })
            .collect()
    }
}

impl EventSink for CollectSink {
    fn result_start(&mut self, columns: &[OutColumn]) {
        self.open = Some((columns.to_vec(), Vec::new()));
    }
    fn row(&mut self, row: &[Value]) {
        if let Some((_, rows)) = &mut self.open {
            rows.push(row.to_vec());
        }
    }
    fn result_end(&mut self, _rows: u64, incomplete: bool, _show_count: bool) {
        if let Some((columns, rows)) = self.open.take() {
            self.events.push(Event::ResultSet {
                columns,
                rows,
                incomplete,
            });
        }
    }
    fn row_count(&mut self, count: u64) {
        self.events.push(Event::RowCount(count));
    }
    fn message(&mut self, msg: &InfoMessage) {
        self.events.push(Event::Message(msg.clone()));
    }
    fn error(&mut self, err: &SqlError) {
        self.events.push(Event::Error(err.clone()));
    }
}
