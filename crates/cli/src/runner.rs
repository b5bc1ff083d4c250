//! Batches: `GO` lines split a script into batches, and a `Runner` executes each on one session.

use std::io::{BufRead, Write};

use common::SqlError;
use engine::render::value_text;
use engine::{EventSink, InfoMessage, OutColumn};
use types::{DataType, Value};

use crate::csv_out::CsvSink;
use crate::output::{JsonlSink, TableSink};
use crate::remote::Backend;

/// If `line` is a batch separator, its repeat count. `strict` (jsonl stdin): exactly `GO`
/// (case-insensitive, a trailing `\r` ignored); otherwise sqlcmd rules (`GO`, `GO n`, spaces).
pub(crate) fn go_line(line: &str, strict: bool) -> Option<u32> {
    let l = line.strip_suffix('\n').unwrap_or(line);
    let l = l.strip_suffix('\r').unwrap_or(l);
    if strict {
        return l.eq_ignore_ascii_case("go").then_some(1);
    }
    let t = l.trim();
    if t.len() < 2 || !t.is_char_boundary(2) || !t[..2].eq_ignore_ascii_case("go") {
        return None;
    }
    let rest = t[2..].trim();
    if rest.is_empty() {
        return Some(1);
    }
    if !t[2..].starts_with(char::is_whitespace) {
        return None;
    }
    rest.parse::<u32>().ok().filter(|n| *n > 0)
}

pub(crate) struct Runner {
    /// The engine in this process, or a server over TDS (`-S`).
    pub(crate) session: Backend,
    pub(crate) sink: Box<dyn BatchSink>,
}

/// An event sink that also knows batch boundaries and where its output goes.
pub(crate) trait BatchSink: EventSink {
    fn batch_end(&mut self);
    /// A line from the command processor itself (`GO n`'s count, `:help`, `-e` echo): plain
    /// text in table format, a message event in jsonl, standard error in csv (which stays
    /// parseable).
    fn note(&mut self, text: &str);
    /// `:out FILE`: later output goes to `out` (flushing what is buffered for the old one).
    fn redirect(&mut self, out: Box<dyn Write>);
}

impl BatchSink for JsonlSink {
    fn batch_end(&mut self) {
        JsonlSink::batch_end(self)
    }
    fn note(&mut self, text: &str) {
        self.message(&InfoMessage::print(text));
    }
    fn redirect(&mut self, out: Box<dyn Write>) {
        JsonlSink::redirect(self, out)
    }
}

impl BatchSink for TableSink {
    fn batch_end(&mut self) {
        TableSink::batch_end(self)
    }
    fn note(&mut self, text: &str) {
        TableSink::note(self, text)
    }
    fn redirect(&mut self, out: Box<dyn Write>) {
        TableSink::redirect(self, out)
    }
}

impl BatchSink for CsvSink {
    fn batch_end(&mut self) {
        CsvSink::batch_end(self)
    }
    fn note(&mut self, text: &str) {
        eprintln!("{text}");
    }
    fn redirect(&mut self, out: Box<dyn Write>) {
        CsvSink::redirect(self, out)
    }
}

/// What a batch (all `GO n` runs of it) produced that the command processor acts on.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct BatchOutcome {
    /// Highest severity of an error raised to the client (0: none). sqlcmd's `-b` acts on > 10.
    pub(crate) max_severity: u8,
    /// A `RAISERROR (…, state 127)`: sqlcmd quits with the message number as exit status.
    pub(crate) exit_request: Option<i32>,
    /// The first column of the first row of the first result set, as text (`EXIT(query)`).
    pub(crate) first_value: Option<String>,
}

/// Forwards every event to the real sink and records what [`BatchOutcome`] needs.
struct Tracking<'a> {
    inner: &'a mut dyn BatchSink,
    outcome: BatchOutcome,
    first_type: Option<DataType>,
    seen_row: bool,
}

impl EventSink for Tracking<'_> {
    fn result_start(&mut self, columns: &[OutColumn]) {
        // the type of the result set the first row will come from (an empty one before it
        // does not count)
        if !self.seen_row {
            self.first_type = Some(
                columns
                    .first()
                    .map(|c| c.data_type.clone())
                    .unwrap_or(DataType::Int),
            );
        }
        self.inner.result_start(columns)
    }
    fn row(&mut self, row: &[Value]) {
        if !self.seen_row {
            self.seen_row = true;
            if let (Some(t), Some(v)) = (&self.first_type, row.first()) {
                self.outcome.first_value = value_text(v, t);
            }
        }
        self.inner.row(row)
    }
    fn result_end(&mut self, rows: u64, incomplete: bool, show_count: bool) {
        self.inner.result_end(rows, incomplete, show_count)
    }
    fn row_count(&mut self, count: u64) {
        self.inner.row_count(count)
    }
    fn output_row_count(&mut self, count: u64) {
        self.inner.output_row_count(count)
    }
    fn message(&mut self, msg: &InfoMessage) {
        // RAISERROR (…, 10, 127) quits sqlcmd too; PRINT's state is 1
        if msg.state == 127 && msg.number != 0 && self.outcome.exit_request.is_none() {
            self.outcome.exit_request = Some(msg.number);
        }
        self.inner.message(msg)
    }
    fn error(&mut self, err: &SqlError) {
        self.outcome.max_severity = self.outcome.max_severity.max(err.severity);
        if err.state == 127 && self.outcome.exit_request.is_none() {
            self.outcome.exit_request = Some(err.number);
        }
        self.inner.error(err)
    }
}

impl Runner {
    /// Runs `text` `repeat` times (`GO n`) and reports what happened. After more than one run
    /// sqlcmd prints "Batch execution completed n times.".
    pub(crate) fn run_batch(&mut self, text: &str, repeat: u32) -> BatchOutcome {
        let repeat = repeat.max(1);
        let mut tracking = Tracking {
            inner: self.sink.as_mut(),
            outcome: BatchOutcome::default(),
            first_type: None,
            seen_row: false,
        };
        let mut completed = true;
        for _ in 0..repeat {
            self.session.execute_batch(text, &mut tracking);
            // a cancelled batch (Ctrl-C in the shell, -t) is not repeated by `GO n`
            if self.session.cancel_handle().is_cancelled() {
                completed = false;
                break;
            }
        }
        let outcome = tracking.outcome;
        if repeat > 1 && completed {
            self.sink
                .note(&format!("Batch execution completed {repeat} times."));
        }
        self.sink.batch_end();
        outcome
    }

    /// Reads batches line by line, executing each when its GO line arrives. `run_tail`: run an
    /// unterminated trailing batch at EOF (scripts) or discard it (jsonl stdin contract).
    /// Returns the highest error severity seen; a script (`run_tail`) stops after a batch with
    /// a severity ≥ 20 error, as the connection would be gone in SQL Server.
    pub(crate) fn run_reader(
        &mut self,
        reader: &mut dyn BufRead,
        strict: bool,
        run_tail: bool,
    ) -> std::io::Result<u8> {
        let mut batch = String::new();
        let mut line = String::new();
        let mut worst = 0;
        loop {
            line.clear();
            let n = reader.read_line(&mut line)?;
            if n == 0 {
                break;
            }
            if let Some(count) = go_line(&line, strict) {
                let text = std::mem::take(&mut batch);
                worst = worst.max(self.run_batch(&text, count).max_severity);
                if run_tail && worst >= 20 {
                    return Ok(worst);
                }
                continue;
            }
            batch.push_str(&line);
        }
        if run_tail && !batch.trim().is_empty() {
            let text = std::mem::take(&mut batch);
            worst = worst.max(self.run_batch(&text, 1).max_severity);
        }
        Ok(worst)
    }
}

#[cfg(test)]
mod tests {
    use super::go_line;

    #[test]
    fn go_lines() {
        assert_eq!(go_line("GO\n", true), Some(1));
        assert_eq!(go_line("go\r\n", true), Some(1));
        assert_eq!(go_line("GO \n", true), None);
        assert_eq!(go_line("GO 5\n", true), None);
        assert_eq!(go_line("  GO 5\n", false), Some(5));
        assert_eq!(go_line("GOTO x\n", false), None);
        assert_eq!(go_line("gO", false), Some(1));
    }
}
