//! Output formats: jsonl (ENGINE_INTERFACE.md) and sqlcmd-like tables.

use std::io::Write;

use common::SqlError;
use engine::render::{display_width, json_str, push_json_value, right_aligned, value_text};
use engine::{EventSink, InfoMessage, OutColumn};
use types::{DataType, Value};

/// jsonl: one JSON object per event; result-set rows are streamed inside the event's line.
pub struct JsonlSink {
    out: std::io::BufWriter<std::io::Stdout>,
    types: Vec<DataType>,
    first_row: bool,
    buf: String,
}

impl JsonlSink {
    pub fn new(out: std::io::Stdout) -> Self {
        JsonlSink {
            out: std::io::BufWriter::with_capacity(1 << 16, out),
            types: Vec::new(),
            first_row: true,
            buf: String::new(),
        }
    }

    fn line(&mut self, s: &str) {
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.write_all(b"\n");
    }

    pub fn batch_end(&mut self) {
        self.line("{\"type\":\"batch_end\"}");
        let _ = self.out.flush();
    }
}

impl EventSink for JsonlSink {
    fn result_start(&mut self, columns: &[OutColumn]) {
        let cols: Vec<String> = columns
            .iter()
            .map(|c| {
                format!(
                    "{{\"name\":{},\"type\":{}}}",
                    json_str(&c.name),
                    json_str(c.data_type.sql_name())
                )
            })
            .collect();
        let head = format!(
            "{{\"type\":\"resultset\",\"columns\":[{}],\"rows\":[",
            cols.join(",")
        );
        let _ = self.out.write_all(head.as_bytes());
        self.types = columns.iter().map(|c| c.data_type.clone()).collect();
        self.first_row = true;
    }

    fn row(&mut self, row: &[Value]) {
        self.buf.clear();
        if !self.first_row {
            self.buf.push(',');
        }
        self.first_row = false;
        self.buf.push('[');
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                self.buf.push(',');
            }
            let t = self
                .types
                .get(i)
                .cloned()
                .unwrap_or(DataType::VarChar(None));
            push_json_value(v, &t, &mut self.buf);
        }
        self.buf.push(']');
        let _ = self.out.write_all(self.buf.as_bytes());
    }

    fn result_end(&mut self, _rows: u64, incomplete: bool, _show_count: bool) {
        if incomplete {
            self.line("],\"incomplete\":true}");
        } else {
            self.line("]}");
        }
    }

    fn row_count(&mut self, count: u64) {
        self.line(&format!("{{\"type\":\"rowcount\",\"count\":{count}}}"));
    }

    fn message(&mut self, m: &InfoMessage) {
        self.line(&format!(
            "{{\"type\":\"message\",\"text\":{},\"number\":{},\"severity\":{},\"state\":{}}}",
            json_str(&m.text),
            m.number,
            m.severity,
            m.state
        ));
    }

    fn error(&mut self, e: &SqlError) {
        self.line(&format!(
            "{{\"type\":\"error\",\"number\":{},\"severity\":{},\"state\":{},\"message\":{},\"line\":{},\"procedure\":{}}}",
            e.number,
            e.severity,
            e.state,
            json_str(&e.message),
            e.line,
            json_str(&e.procedure)
        ));
    }
}

/// sqlcmd-like text: headers, dashes, rows, `(N rows affected)`, `Msg ...` errors.
pub struct TableSink {
    out: std::io::BufWriter<std::io::Stdout>,
    cols: Vec<(DataType, usize)>,
}

impl TableSink {
    pub fn new(out: std::io::Stdout) -> Self {
        TableSink {
            out: std::io::BufWriter::new(out),
            cols: Vec::new(),
        }
    }

    pub fn batch_end(&mut self) {
        let _ = self.out.flush();
    }
}

fn pad(s: &str, w: usize, right: bool) -> String {
    let n = s.chars().count();
    if n >= w {
        return s.to_string();
    }
    if right {
        format!("{}{}", " ".repeat(w - n), s)
    } else {
        format!("{}{}", s, " ".repeat(w - n))
    }
}

impl EventSink for TableSink {
    fn result_start(&mut self, columns: &[OutColumn]) {
        self.cols = columns
            .iter()
            .map(|c| {
                let w = display_width(&c.data_type)
                    .max(c.name.chars().count())
                    .max(4);
                (c.data_type.clone(), w)
            })
            .collect();
        let head: Vec<String> = columns
            .iter()
            .zip(&self.cols)
            .map(|(c, (_, w))| pad(&c.name, *w, false))
            .collect();
        let dashes: Vec<String> = self.cols.iter().map(|(_, w)| "-".repeat(*w)).collect();
        let _ = writeln!(self.out, "{}", head.join(" ").trim_end());
        let _ = writeln!(self.out, "{}", dashes.join(" "));
    }

    fn row(&mut self, row: &[Value]) {
        let cells: Vec<String> = row
            .iter()
            .zip(&self.cols)
            .map(|(v, (t, w))| {
                let text = value_text(v, t).unwrap_or_else(|| "NULL".into());
                pad(&text, *w, right_aligned(t))
            })
            .collect();
        let _ = writeln!(self.out, "{}", cells.join(" ").trim_end());
    }

    fn result_end(&mut self, rows: u64, incomplete: bool, show_count: bool) {
        if !incomplete && show_count {
            let _ = writeln!(
                self.out,
                "\n({rows} row{} affected)",
                if rows == 1 { "" } else { "s" }
            );
        }
        let _ = writeln!(self.out);
    }

    fn row_count(&mut self, count: u64) {
        let _ = writeln!(
            self.out,
            "({count} row{} affected)",
            if count == 1 { "" } else { "s" }
        );
    }

    fn output_row_count(&mut self, count: u64) {
        // after the OUTPUT rows and their blank line: laid out as a SELECT's count
        self.row_count(count);
        let _ = writeln!(self.out);
    }

    fn message(&mut self, m: &InfoMessage) {
        let _ = writeln!(self.out, "{}", m.text);
    }

    fn error(&mut self, e: &SqlError) {
        let _ = writeln!(self.out, "{e}");
    }
}
