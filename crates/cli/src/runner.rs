//! Batches: `GO` lines split a script into batches, and a `Runner` executes each on one session.

use std::io::BufRead;

use engine::{EventSink, Session};

use crate::output::{JsonlSink, TableSink};

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
    pub(crate) session: Session,
    pub(crate) sink: Box<dyn BatchSink>,
}

/// An event sink that also knows batch boundaries.
pub(crate) trait BatchSink: EventSink {
    fn batch_end(&mut self);
}

impl BatchSink for JsonlSink {
    fn batch_end(&mut self) {
        JsonlSink::batch_end(self)
    }
}

impl BatchSink for TableSink {
    fn batch_end(&mut self) {
        TableSink::batch_end(self)
    }
}

impl Runner {
    pub(crate) fn run_batch(&mut self, text: &str, repeat: u32) {
        for _ in 0..repeat.max(1) {
            self.session.execute_batch(text, self.sink.as_mut());
            // a cancelled batch (Ctrl-C in the shell) is not repeated by `GO n`
            if self.session.cancel_handle().is_cancelled() {
                break;
            }
        }
        self.sink.batch_end();
    }

    /// Reads batches line by line, executing each when its GO line arrives. `run_tail`: run an
    /// unterminated trailing batch at EOF (scripts) or discard it (jsonl stdin contract).
    pub(crate) fn run_reader(
        &mut self,
        reader: &mut dyn BufRead,
        strict: bool,
        run_tail: bool,
    ) -> std::io::Result<()> {
        let mut batch = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            let n = reader.read_line(&mut line)?;
            if n == 0 {
                break;
            }
            if let Some(count) = go_line(&line, strict) {
                let text = std::mem::take(&mut batch);
                self.run_batch(&text, count);
                continue;
            }
            batch.push_str(&line);
        }
        if run_tail && !batch.trim().is_empty() {
            let text = std::mem::take(&mut batch);
            self.run_batch(&text, 1);
        }
        Ok(())
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
