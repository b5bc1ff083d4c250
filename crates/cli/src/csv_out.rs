//! `--format csv`: result sets as RFC 4180 CSV, so that a query's output loads into a
//! spreadsheet, DuckDB or pandas as it is.
//!
//! * Each result set starts with a header line of column names; result sets are separated by
//!   an empty line.
//! * Records end with CRLF (RFC 4180 §2.1). A field is quoted when it contains a comma, a double
//!   quote, CR or LF, or leading/trailing spaces; a quote inside is doubled.
//! * NULL is an empty unquoted field; an empty string is `""`, so the two stay apart.
//! * Standard output holds nothing but CSV: row counts are not printed, and messages (PRINT,
//!   RAISERROR ≤ 10) and errors go to standard error in sqlcmd's `Msg N, Level L, …` form.

use std::io::Write;

use common::SqlError;
use engine::render::value_text;
use engine::{EventSink, InfoMessage, OutColumn};
use types::{DataType, Value};

pub struct CsvSink {
    out: std::io::BufWriter<Box<dyn Write>>,
    types: Vec<DataType>,
    /// A result set was written: the next one is preceded by an empty line.
    wrote_set: bool,
    buf: String,
}

/// Appends `text` as one CSV field.
fn push_field(buf: &mut String, text: &str) {
    let needs_quotes = text.is_empty()
        || text.contains([',', '"', '\r', '\n'])
        || text.starts_with(' ')
        || text.ends_with(' ');
    if !needs_quotes {
        buf.push_str(text);
        return;
    }
    buf.push('"');
    for c in text.chars() {
        if c == '"' {
            buf.push('"');
        }
        buf.push(c);
    }
    buf.push('"');
}

impl CsvSink {
    pub fn new(out: Box<dyn Write>) -> Self {
        CsvSink {
            out: std::io::BufWriter::with_capacity(1 << 16, out),
            types: Vec::new(),
            wrote_set: false,
            buf: String::new(),
        }
    }

    pub fn batch_end(&mut self) {
        let _ = self.out.flush();
    }

    pub fn redirect(&mut self, out: Box<dyn Write>) {
        let _ = self.out.flush();
        self.out = std::io::BufWriter::with_capacity(1 << 16, out);
    }

    fn record(&mut self) {
        self.buf.push_str("\r\n");
        let _ = self.out.write_all(self.buf.as_bytes());
        self.buf.clear();
    }
}

impl EventSink for CsvSink {
    fn result_start(&mut self, columns: &[OutColumn]) {
        if self.wrote_set {
            self.buf.clear();
            self.record();
        }
        self.wrote_set = true;
        self.types = columns.iter().map(|c| c.data_type.clone()).collect();
        self.buf.clear();
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                self.buf.push(',');
            }
            push_field(&mut self.buf, &c.name);
        }
        self.record();
    }

    fn row(&mut self, row: &[Value]) {
        self.buf.clear();
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                self.buf.push(',');
            }
            let t = self.types.get(i).unwrap_or(&DataType::VarChar(None));
            if let Some(text) = value_text(v, t) {
                push_field(&mut self.buf, &text);
            }
        }
        self.record();
    }

    fn result_end(&mut self, _rows: u64, _incomplete: bool, _show_count: bool) {}

    fn row_count(&mut self, _count: u64) {}

    fn message(&mut self, m: &InfoMessage) {
        let _ = self.out.flush();
        eprintln!("{}", m.text);
    }

    fn error(&mut self, e: &SqlError) {
        let _ = self.out.flush();
        eprintln!("{e}");
    }
}

#[cfg(test)]
mod tests {
    use super::push_field;

    fn field(s: &str) -> String {
        let mut b = String::new();
        push_field(&mut b, s);
        b
    }

    #[test]
    fn rfc4180_quoting() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field(""), "\"\"");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(field(" padded "), "\" padded \"");
    }
}
