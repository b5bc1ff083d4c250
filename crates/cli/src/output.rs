//! Output formats: jsonl (ENGINE_INTERFACE.md) and sqlcmd-like tables.

use std::io::Write;

use common::SqlError;
use engine::render::{display_width, json_str, push_json_value, right_aligned, value_text};
use engine::{EventSink, InfoMessage, OutColumn};
use types::{DataType, Value};

/// jsonl: one JSON object per event; result-set rows are streamed inside the event's line.
pub struct JsonlSink {
    out: std::io::BufWriter<Box<dyn Write>>,
    types: Vec<DataType>,
    first_row: bool,
    buf: String,
}

impl JsonlSink {
    pub fn new(out: Box<dyn Write>) -> Self {
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

    pub fn redirect(&mut self, out: Box<dyn Write>) {
        let _ = self.out.flush();
        self.out = std::io::BufWriter::with_capacity(1 << 16, out);
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

/// How `--format table` lays out result sets: sqlcmd's `-s`, `-W`, `-h`, `-w`, `-y`, `-Y`.
#[derive(Clone, Debug)]
pub struct TableOptions {
    /// `-s`: column separator (sqlcmd: one space).
    pub separator: String,
    /// `-W`: columns are not padded and trailing spaces are removed.
    pub trim: bool,
    /// `-h`: 0 = headers once per result set (default), -1 = none, n = again every n rows.
    pub headers: i64,
    /// `-w`: output lines longer than this wrap onto the next line (sqlcmd's screen width).
    pub width: Option<usize>,
    /// `-y`: display width of varchar(max), nvarchar(max), varbinary(max); values are cut to it
    /// (0: no limit). `None`: latchkey's default (256-wide column, values never cut).
    pub var_width: Option<usize>,
    /// `-Y`: the same for char(n), nchar(n), varchar(n), nvarchar(n), binary(n), varbinary(n).
    pub fixed_width: Option<usize>,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            separator: " ".into(),
            trim: false,
            headers: 0,
            width: None,
            var_width: None,
            fixed_width: None,
        }
    }
}

impl TableOptions {
    /// The column width for `t` and whether its values are cut to it (`-y`/`-Y`).
    fn column_width(&self, t: &DataType) -> (usize, bool) {
        let base = display_width(t);
        let limit = match t {
            DataType::VarChar(None) | DataType::NVarChar(None) | DataType::VarBinary(None) => {
                self.var_width
            }
            DataType::Char(_)
            | DataType::NChar(_)
            | DataType::VarChar(Some(_))
            | DataType::NVarChar(Some(_))
            | DataType::Binary(_)
            | DataType::VarBinary(Some(_)) => self.fixed_width,
            _ => None,
        };
        match limit {
            Some(n) if n > 0 => (n, true),
            _ => (base, false),
        }
    }
}

/// One result-set column as the table sink lays it out.
struct TableColumn {
    name: String,
    data_type: DataType,
    width: usize,
    cut: bool,
}

/// sqlcmd-like text: headers, dashes, rows, `(N rows affected)`, `Msg ...` errors.
pub struct TableSink {
    out: std::io::BufWriter<Box<dyn Write>>,
    cols: Vec<TableColumn>,
    options: TableOptions,
    rows_in_set: u64,
    /// The output is a terminal: messages, errors and each completed result set are flushed as
    /// they come (PRINT, `RAISERROR ... WITH NOWAIT` show before the batch ends), and wide
    /// columns shrink to the screen; into a file or pipe the output stays buffered until the
    /// batch ends.
    streaming: bool,
}

impl TableSink {
    /// `streaming`: the output is stdout and stdout is a terminal (see the field).
    pub fn new(out: Box<dyn Write>, options: TableOptions, streaming: bool) -> Self {
        TableSink {
            streaming,
            out: std::io::BufWriter::new(out),
            cols: Vec::new(),
            options,
            rows_in_set: 0,
        }
    }

    fn flush_if_streaming(&mut self) {
        if self.streaming {
            let _ = self.out.flush();
        }
    }

    pub fn batch_end(&mut self) {
        let _ = self.out.flush();
    }

    pub fn note(&mut self, text: &str) {
        self.line(text);
        // the shell's `:help`/`:listvar` show at once, not with the next batch's output
        self.flush_if_streaming();
    }

    pub fn redirect(&mut self, out: Box<dyn Write>) {
        let _ = self.out.flush();
        self.out = std::io::BufWriter::new(out);
    }

    /// Writes one output line, wrapped at `-w` characters when that is set.
    fn line(&mut self, text: &str) {
        match self.options.width {
            Some(w) if w > 0 && text.chars().count() > w => {
                let chars: Vec<char> = text.chars().collect();
                for chunk in chars.chunks(w) {
                    let _ = writeln!(self.out, "{}", chunk.iter().collect::<String>());
                }
            }
            _ => {
                let _ = writeln!(self.out, "{text}");
            }
        }
    }

    fn header(&mut self) {
        let trim = self.options.trim;
        let head: Vec<String> = self
            .cols
            .iter()
            .map(|c| {
                if trim {
                    c.name.clone()
                } else {
                    pad(&c.name, c.width, false)
                }
            })
            .collect();
        let dashes: Vec<String> = self
            .cols
            .iter()
            .map(|c| {
                "-".repeat(if trim {
                    c.name.chars().count()
                } else {
                    c.width
                })
            })
            .collect();
        let head = head.join(&self.options.separator);
        let dashes = dashes.join(&self.options.separator);
        self.line(head.trim_end());
        self.line(&dashes);
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
                let (width, cut) = self.options.column_width(&c.data_type);
                let width = if cut {
                    width
                } else {
                    width.max(c.name.chars().count()).max(4)
                };
                TableColumn {
                    name: c.name.clone(),
                    data_type: c.data_type.clone(),
                    width,
                    cut,
                }
            })
            .collect();
        if self.streaming {
            if let Some(screen) = crate::termwidth::stdout_columns() {
                let min: Vec<usize> = columns
                    .iter()
                    .map(|c| c.name.chars().count().max(4))
                    .collect();
                let mut widths: Vec<usize> = self.cols.iter().map(|c| c.width).collect();
                crate::termwidth::fit(&mut widths, &min, screen.saturating_sub(1));
                for (c, w) in self.cols.iter_mut().zip(widths) {
                    c.width = w;
                }
            }
        }
        self.rows_in_set = 0;
        if self.options.headers >= 0 {
            self.header();
        }
    }

    fn row(&mut self, row: &[Value]) {
        let every = self.options.headers;
        if every > 0 && self.rows_in_set > 0 && self.rows_in_set.is_multiple_of(every as u64) {
            self.header();
        }
        self.rows_in_set += 1;
        let trim = self.options.trim;
        let cells: Vec<String> = row
            .iter()
            .zip(&self.cols)
            .map(|(v, c)| {
                let mut text = value_text(v, &c.data_type).unwrap_or_else(|| "NULL".into());
                if c.cut && text.chars().count() > c.width {
                    text = text.chars().take(c.width).collect();
                }
                if trim {
                    text.trim_end().to_string()
                } else {
                    pad(&text, c.width, right_aligned(&c.data_type))
                }
            })
            .collect();
        let line = cells.join(&self.options.separator);
        self.line(line.trim_end());
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
        self.flush_if_streaming();
    }

    fn row_count(&mut self, count: u64) {
        let _ = writeln!(
            self.out,
            "({count} row{} affected)",
            if count == 1 { "" } else { "s" }
        );
        self.flush_if_streaming();
    }

    fn output_row_count(&mut self, count: u64) {
        // after the OUTPUT rows and their blank line: laid out as a SELECT's count
        self.row_count(count);
        let _ = writeln!(self.out);
    }

    fn message(&mut self, m: &InfoMessage) {
        let _ = writeln!(self.out, "{}", m.text);
        self.flush_if_streaming();
    }

    fn error(&mut self, e: &SqlError) {
        let _ = writeln!(self.out, "{e}");
        self.flush_if_streaming();
    }
}
