//! The token stream of one request: an `EventSink` that writes COLMETADATA / ROW / DONE / INFO /
//! ERROR tokens into the response's packet writer and sends a packet each time one is full, so
//! result sets stream instead of being buffered.

use std::io::Write;

use common::SqlError;
use engine::{EventSink, InfoMessage, OutColumn, TransactionChange};
use tds::packet::PacketWriter;
use tds::rows::{self, ColumnMeta};
use tds::tokens::{self, cur_cmd, done_status, token, Done, EnvChange, MessageToken};
use types::Value;

/// The server name in INFO / ERROR tokens (@@SERVERNAME).
pub(crate) const SERVER_NAME: &str = "latchkey";

pub(crate) struct TdsSink<'a, W: Write> {
    pub(crate) pw: &'a mut PacketWriter,
    pub(crate) out: &'a mut W,
    /// Inside an RPC: statement DONEs are DONEINPROC.
    pub(crate) in_proc: bool,
    cols: Vec<ColumnMeta>,
    /// A client that logged in with TDS 7.2 gets date/time/datetime2/datetimeoffset as their
    /// literal text (tds::downlevel); the result's columns that are sent so, with their types.
    pub(crate) dates_as_text: bool,
    text_columns: Vec<(usize, types::DataType)>,
    /// An error since the last DONE (its ERROR bit).
    pub(crate) error_pending: bool,
    /// Any error in the request.
    pub(crate) any_error: bool,
    /// Writing to the client failed: the request is cancelled and the connection closes.
    pub(crate) broken: Option<std::io::Error>,
    cancel: common::CancelToken,
    /// Whether the transaction is open, for the INXACT bit (refreshed by the caller).
    pub(crate) in_xact: bool,
    /// The sink itself cancelled the request (a value it could not encode): not an attention.
    pub(crate) self_cancelled: bool,
    /// The open transaction's descriptor (0: none) and the next one to hand out: the
    /// connection's, lent for the request and taken back after it.
    pub(crate) descriptor: u64,
    pub(crate) next_descriptor: u64,
    /// How a transaction whose end the session did not record ended: rolled back when the
    /// batch says ROLLBACK or an error was raised, else committed.
    pub(crate) rollback_hint: bool,
    /// A batch statement's DONE not yet written: whether it is the batch's last token (then it
    /// goes out as the final DONE, as SQL Server sends it) is known only when the next token or
    /// the end of the batch comes. A trailing empty DONE after a DONE with MORE left pytds
    /// (and any client that stops at the first DONE with a count) with a pending request, which
    /// it cancelled with an attention before its next one: a second round trip per statement.
    deferred_done: Option<Done>,
}

impl<'a, W: Write> TdsSink<'a, W> {
    pub(crate) fn new(
        pw: &'a mut PacketWriter,
        out: &'a mut W,
        cancel: common::CancelToken,
    ) -> Self {
        TdsSink {
            pw,
            out,
            in_proc: false,
            cols: Vec::new(),
            dates_as_text: false,
            text_columns: Vec::new(),
            error_pending: false,
            any_error: false,
            broken: None,
            cancel,
            in_xact: false,
            self_cancelled: false,
            descriptor: 0,
            next_descriptor: 1,
            rollback_hint: false,
            deferred_done: None,
        }
    }

    /// Writes the deferred statement DONE (with MORE: another token follows it).
    fn write_deferred_done(&mut self) {
        if let Some(d) = self.deferred_done.take() {
            tokens::done(self.pw.buf(), token::DONE, &d);
        }
    }

    /// Sends full packets; a failed write cancels the running request.
    fn flush_full(&mut self) {
        if self.broken.is_some() {
            self.pw.buf().clear();
            return;
        }
        if let Err(e) = self.pw.flush_full(self.out) {
            self.broken = Some(e);
            self.cancel.cancel();
        }
    }

    /// The response buffer, for a token written from outside the sink: a deferred DONE goes
    /// before it.
    pub(crate) fn buf(&mut self) -> &mut Vec<u8> {
        self.write_deferred_done();
        self.pw.buf()
    }

    fn statement_done(&mut self, count: Option<u64>, cmd: u16) {
        let mut status = done_status::MORE;
        if let Some(_c) = count {
            status |= done_status::COUNT;
        }
        if self.error_pending {
            status |= done_status::ERROR;
            self.error_pending = false;
        }
        if self.in_xact {
            status |= done_status::INXACT;
        }
        let done = Done {
            status,
            cur_cmd: cmd,
            row_count: count.unwrap_or(0),
        };
        if self.in_proc {
            tokens::done(self.pw.buf(), token::DONEINPROC, &done);
        } else {
            self.write_deferred_done();
            self.deferred_done = Some(done);
        }
        self.flush_full();
    }

    /// The request's last token: DONE (batch) or DONEPROC (RPC). A request cut short by an
    /// attention carries ERROR when it raised one; ATTN itself goes in the separate
    /// acknowledgement message (conn.rs).
    pub(crate) fn final_done(&mut self, cancelled: bool, cmd: u16) {
        if let Some(last) = self.deferred_done.take() {
            if !cancelled && !self.error_pending {
                // The last statement's DONE ends the batch: no MORE, the transaction state as
                // it is now.
                let mut status = last.status & !(done_status::MORE | done_status::INXACT);
                if self.in_xact {
                    status |= done_status::INXACT;
                }
                tokens::done(self.pw.buf(), token::DONE, &Done { status, ..last });
                return;
            }
            tokens::done(self.pw.buf(), token::DONE, &last);
        }
        let mut status = done_status::FINAL;
        if self.error_pending || (cancelled && self.any_error) {
            status |= done_status::ERROR;
        }
        if self.in_xact {
            status |= done_status::INXACT;
        }
        let tok = if self.in_proc {
            token::DONEPROC
        } else {
            token::DONE
        };
        tokens::done(
            self.pw.buf(),
            tok,
            &Done {
                status,
                cur_cmd: cmd,
                row_count: 0,
            },
        );
    }
}

pub(crate) fn message_token(err: &SqlError) -> MessageToken {
    MessageToken {
        number: err.number,
        state: err.state,
        class: err.severity,
        text: err.message.clone(),
        server: SERVER_NAME.into(),
        procedure: err.procedure.clone(),
        line: err.line as i32,
    }
}

impl<W: Write> EventSink for TdsSink<'_, W> {
    fn result_start(&mut self, columns: &[OutColumn]) {
        self.write_deferred_done();
        self.text_columns.clear();
        let mut cols = Vec::with_capacity(columns.len());
        for (i, c) in columns.iter().enumerate() {
            let text = self
                .dates_as_text
                .then(|| tds::downlevel::column_type(&c.data_type))
                .flatten();
            if let Some(text) = text {
                self.text_columns.push((i, c.data_type.clone()));
                cols.push(ColumnMeta::new(c.name.clone(), &text, true));
            } else {
                cols.push(ColumnMeta::new(c.name.clone(), &c.data_type, true));
            }
        }
        self.cols = cols;
        rows::write_colmetadata(self.pw.buf(), &self.cols);
        self.flush_full();
    }

    fn row(&mut self, row: &[Value]) {
        if self.broken.is_some() {
            return;
        }
        let texts;
        let row = if self.text_columns.is_empty() {
            row
        } else {
            let mut r = row.to_vec();
            for (i, dt) in &self.text_columns {
                if let Some(v) = r.get_mut(*i) {
                    *v = tds::downlevel::value_text(v, dt);
                }
            }
            texts = r;
            &texts[..]
        };
        if let Err(e) = rows::write_row(self.pw.buf(), &self.cols, row) {
            // A value the codec cannot represent: the statement fails as a conversion would.
            self.error(&SqlError::internal(format!(
                "a result value could not be sent: {e}"
            )));
            self.self_cancelled = true;
            self.cancel.cancel();
            return;
        }
        if self.pw.buffered() >= self.pw.packet_size() {
            self.flush_full();
        }
    }

    fn result_end(&mut self, rows: u64, incomplete: bool, show_count: bool) {
        self.cols.clear();
        self.text_columns.clear();
        if incomplete {
            // The error event follows and its statement's DONE carries the ERROR bit.
            return;
        }
        self.statement_done(show_count.then_some(rows), cur_cmd::SELECT);
    }

    fn row_count(&mut self, count: u64) {
        self.statement_done(Some(count), cur_cmd::NONE);
    }

    fn message(&mut self, msg: &InfoMessage) {
        self.write_deferred_done();
        tokens::info(
            self.pw.buf(),
            &MessageToken {
                number: msg.number,
                state: msg.state,
                class: msg.severity,
                text: msg.text.clone(),
                server: SERVER_NAME.into(),
                procedure: String::new(),
                line: 1,
            },
        );
        self.flush_full();
    }

    fn error(&mut self, err: &SqlError) {
        self.write_deferred_done();
        tokens::error(self.pw.buf(), &message_token(err));
        self.error_pending = true;
        self.any_error = true;
        self.flush_full();
    }

    /// ENVCHANGE 8 (begin: a new descriptor), 9 (commit) or 10 (rollback) where the statement
    /// that began or ended the transaction ran, so a batch that begins and commits one sends
    /// both, as SQL Server does.
    fn transaction(&mut self, change: TransactionChange) {
        let e = match change {
            TransactionChange::Begin => {
                self.descriptor = self.next_descriptor;
                self.next_descriptor += 1;
                self.in_xact = true;
                EnvChange::BeginTransaction(self.descriptor)
            }
            TransactionChange::End(how) => {
                let d = std::mem::take(&mut self.descriptor);
                self.in_xact = false;
                if how.unwrap_or(!(self.rollback_hint || self.any_error)) {
                    EnvChange::CommitTransaction(d)
                } else {
                    EnvChange::RollbackTransaction(d)
                }
            }
        };
        self.write_deferred_done();
        tokens::env_change(self.pw.buf(), &e);
        self.flush_full();
    }
}
