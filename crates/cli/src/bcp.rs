//! `latchkey bcp`: the bcp utility's data movement on a local data directory.
//!
//! ```text
//! latchkey [--data DIR] bcp {table | "query"} {in | out | queryout} datafile
//!     {-c | -w} [-t field_term] [-r row_term] [-d database] [-F first] [-L last]
//!     [-b batch_size] [-m max_errors] [-e err_file] [-h "hints"] [-k] [-E] [-C code_page]
//!     [-a packet_size] [-o output_file] [-q] [-T] [-S server] [-U login] [-P password]
//! ```
//!
//! Character mode as bcp writes it: fields end with the field terminator (default `\t`), rows
//! with the row terminator (default `\n`, which means carriage return + line feed as in
//! BULK INSERT; `0x0a` is a bare line feed), NULL is an empty field and an empty string a
//! single NUL character. Numbers and dates are written in the text SQL Server converts them
//! to (money with 4 decimals, float/real as their shortest exact text, binary as hex digits),
//! so `bcp in`, BULK INSERT and OPENROWSET read back the same values. `-w` writes UTF-16 LE.
//!
//! `in` runs BULK INSERT with the matching options, so both read the file the same way.
//! There is no server to connect to yet: `-S` (other than the local machine), `-U` and `-P`
//! are refused; `-T` (a trusted connection) is what a local data directory already is.
//! Native mode (`-n`, `-N`), format files (`-f`, `-x`, `format`) are refused by name.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use common::SqlError;
use engine::{Engine, EngineConfig, EventSink, InfoMessage, OutColumn, Session};
use types::{DataType, Value};

const USAGE: &str = "usage: latchkey bcp {dbtable | query} {in | out | queryout} datafile\n  [-c character type] [-w wide character type] [-t field terminator] [-r row terminator]\n  [-d database name] [-F firstrow] [-L lastrow] [-b batchsize] [-m maxerrors]\n  [-e errfile] [-h \"load hints\"] [-k keep null values] [-E keep identity values]\n  [-C code page specifier] [-a packetsize] [-o outfile] [-q quoted identifier] [-T trusted connection]";

/// Rows between bcp's progress lines.
const PROGRESS_ROWS: u64 = 1000;

/// bcp's packet size unless `-a` says otherwise.
const DEFAULT_PACKET: u32 = 4096;

#[derive(Debug, Default)]
struct BcpArgs {
    source: String,
    direction: String,
    file: String,
    wide: bool,
    field_term: Option<String>,
    row_term: Option<String>,
    database: Option<String>,
    first: Option<u64>,
    last: Option<u64>,
    batch: Option<u64>,
    max_errors: Option<u64>,
    error_file: Option<String>,
    hints: Option<String>,
    keep_nulls: bool,
    keep_identity: bool,
    code_page: Option<String>,
    packet: u32,
    output: Option<String>,
}

fn parse_args(args: &[String]) -> Result<BcpArgs, String> {
    let mut a = BcpArgs {
        packet: DEFAULT_PACKET,
        ..Default::default()
    };
    let mut positional = Vec::new();
    let mut mode = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(flag) = arg.strip_prefix('-').filter(|f| !f.is_empty()) else {
            positional.push(arg.clone());
            continue;
        };
        let (letter, attached) = flag.split_at(flag.chars().next().map_or(0, char::len_utf8));
        let mut value = || -> Result<String, String> {
            if !attached.is_empty() {
                return Ok(attached.to_string());
            }
            let v = args
                .get(i)
                .cloned()
                .ok_or_else(|| format!("bcp: option -{letter} needs a value\n{USAGE}"))?;
            i += 1;
            Ok(v)
        };
        let number = |v: String| -> Result<u64, String> {
            v.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("bcp: invalid value '{v}' for option -{letter}"))
        };
        match letter {
            "c" | "w" => {
                if mode.is_some_and(|m| m != letter) {
                    return Err("bcp: -c and -w cannot be used together".into());
                }
                mode = Some(if letter == "c" { "c" } else { "w" });
                a.wide = letter == "w";
            }
            "t" => a.field_term = Some(value()?),
            "r" => a.row_term = Some(value()?),
            "d" => a.database = Some(value()?),
            "F" => a.first = Some(number(value()?)?),
            "L" => a.last = Some(number(value()?)?),
            "b" => a.batch = Some(number(value()?)?),
            "m" => a.max_errors = Some(value()?.parse().map_err(|_| "bcp: invalid -m")?),
            "e" => a.error_file = Some(value()?),
            "h" => a.hints = Some(value()?),
            "k" => a.keep_nulls = true,
            "E" => a.keep_identity = true,
            "C" => a.code_page = Some(value()?),
            "a" => {
                let v = value()?;
                a.packet = v
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (512..=65535).contains(n))
                    .ok_or_else(|| format!("bcp: invalid packet size '{v}' (512 to 65535)"))?;
            }
            "o" => a.output = Some(value()?),
            // quoted identifiers are always on in latchkey; a trusted connection is what a
            // local data directory is
            "q" | "T" => {}
            "S" => {
                let server = value()?;
                let local = ["", ".", "(local)", "localhost", "127.0.0.1"];
                if !local.iter().any(|l| server.eq_ignore_ascii_case(l)) {
                    return Err(format!(
                        "bcp: -S {server}: connecting to a server needs the TDS server, which latchkey does not have yet; bcp works on the local data directory (--data)"
                    ));
                }
            }
            "U" | "P" | "G" => {
                return Err(format!(
                    "bcp: -{letter} (a login for a server connection) is not supported: latchkey bcp works on the local data directory, there is no server to log in to yet"
                ))
            }
            "n" | "N" | "f" | "x" | "V" | "R" | "K" | "l" | "i" | "z" | "Y" | "u" | "D" => {
                return Err(format!(
                    "bcp: option -{letter} is not supported in this version of latchkey (character mode -c and -w are)"
                ))
            }
            _ => return Err(format!("bcp: unknown option -{letter}\n{USAGE}")),
        }
    }
    let [source, direction, file] = <[String; 3]>::try_from(positional).map_err(|_| {
        format!("bcp: expected a table or query, a direction and a data file\n{USAGE}")
    })?;
    a.direction = direction.to_ascii_lowercase();
    match a.direction.as_str() {
        "in" | "out" | "queryout" => {}
        "format" => {
            return Err("bcp: format files are not supported in this version of latchkey".into())
        }
        d => return Err(format!("bcp: unknown direction '{d}'\n{USAGE}")),
    }
    if mode.is_none() {
        // bcp without a mode asks for each field's format interactively
        return Err("bcp: give -c (character mode) or -w (Unicode character mode); latchkey bcp does not prompt for field formats".into());
    }
    a.source = source;
    a.file = file;
    Ok(a)
}

/// SQLSTATE bcp's ODBC driver reports for an error number.
fn sql_state(number: i32) -> &'static str {
    match number {
        208 => "S0002",
        207 => "42S22",
        102 | 156 | 170 => "37000",
        245 | 8114 | 4864 => "22018",
        515 | 547 | 2601 | 2627 => "23000",
        4860 | 4861 => "HY000",
        _ => "42000",
    }
}

/// Where bcp's messages go (`-o file` or standard output).
struct Report {
    out: Box<dyn Write>,
}

impl Report {
    fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "{s}");
    }
    fn error(&mut self, e: &SqlError) {
        self.line(&format!(
            "SQLState = {}, NativeError = {}",
            sql_state(e.number),
            e.number
        ));
        self.line(&format!("Error = [latchkey][SQL Server]{}", e.message));
    }
    fn totals(&mut self, rows: u64, packet: u32, started: Instant) {
        let ms = started.elapsed().as_millis().max(1);
        self.line("");
        self.line(&format!("{rows} rows copied."));
        self.line(&format!("Network packet size (bytes): {packet}"));
        self.line(&format!(
            "Clock Time (ms.) Total     : {ms:<6} Average : ({:.2} rows per sec.)",
            rows as f64 * 1000.0 / ms as f64
        ));
    }
}

/// Runs `latchkey bcp ...` on the data directory `data`.
pub(crate) fn run(args: &[String], data: &Path) -> ExitCode {
    // bcp -v prints its version, bcp -? (or no argument) its usage; both succeed
    if args.iter().any(|a| a == "-v") {
        println!("BCP - latchkey {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if args.is_empty() || args.iter().any(|a| a == "-?" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let a = match parse_args(args) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    let out: Box<dyn Write> = match &a.output {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => {
                eprintln!("bcp: cannot create {p}: {e}");
                return ExitCode::from(1);
            }
        },
        None => Box::new(std::io::stdout()),
    };
    let mut report = Report { out };
    let engine = match Engine::open(data, EngineConfig::default()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("bcp: cannot open data directory {}: {e}", data.display());
            return ExitCode::from(1);
        }
    };
    let mut session = Session::new(engine);
    if let Some(db) = &a.database {
        let mut sink = ErrorSink::default();
        session.execute_batch(&format!("USE {}", quote_name(db)), &mut sink);
        if let Some(e) = sink.errors.first() {
            report.error(e);
            return ExitCode::from(1);
        }
    }
    let ok = if a.direction == "in" {
        copy_in(&a, &mut session, &mut report)
    } else {
        copy_out(&a, &mut session, &mut report)
    };
    let _ = report.out.flush();
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn quote_name(name: &str) -> String {
    format!("[{}]", name.replace(']', "]]"))
}

fn quote_string(s: &str) -> String {
    format!("N'{}'", s.replace('\'', "''"))
}

/// Collects errors (and the row count of a BULK INSERT), ignoring result sets.
#[derive(Default)]
struct ErrorSink {
    errors: Vec<SqlError>,
    rows: u64,
}

impl EventSink for ErrorSink {
    fn result_start(&mut self, _: &[OutColumn]) {}
    fn row(&mut self, _: &[Value]) {}
    fn result_end(&mut self, _: u64, _: bool, _: bool) {}
    fn row_count(&mut self, count: u64) {
        self.rows += count;
    }
    fn message(&mut self, _: &InfoMessage) {}
    fn error(&mut self, err: &SqlError) {
        self.errors.push(err.clone());
    }
}

/// `bcp table in file`: BULK INSERT with the same options.
fn copy_in(a: &BcpArgs, session: &mut Session, report: &mut Report) -> bool {
    let mut opts = vec![format!(
        "DATAFILETYPE = '{}'",
        if a.wide { "widechar" } else { "char" }
    )];
    opts.push(format!(
        "FIELDTERMINATOR = {}",
        quote_string(a.field_term.as_deref().unwrap_or("\\t"))
    ));
    opts.push(format!(
        "ROWTERMINATOR = {}",
        quote_string(a.row_term.as_deref().unwrap_or("\\n"))
    ));
    if let Some(n) = a.first {
        opts.push(format!("FIRSTROW = {n}"));
    }
    if let Some(n) = a.last {
        opts.push(format!("LASTROW = {n}"));
    }
    if let Some(n) = a.batch {
        opts.push(format!("BATCHSIZE = {n}"));
    }
    if let Some(n) = a.max_errors {
        opts.push(format!("MAXERRORS = {n}"));
    }
    if let Some(f) = &a.error_file {
        opts.push(format!("ERRORFILE = {}", quote_string(f)));
    }
    if let Some(c) = &a.code_page {
        opts.push(format!("CODEPAGE = {}", quote_string(c)));
    }
    if a.keep_nulls {
        opts.push("KEEPNULLS".into());
    }
    if a.keep_identity {
        opts.push("KEEPIDENTITY".into());
    }
    if let Some(h) = &a.hints {
        // bcp's -h takes BULK INSERT's hint words (TABLOCK, ORDER(...), ROWS_PER_BATCH = n,
        // KILOBYTES_PER_BATCH = n, CHECK_CONSTRAINTS, FIRE_TRIGGERS) as written
        opts.push(h.clone());
    }
    let path = std::fs::canonicalize(&a.file)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| a.file.clone());
    let sql = format!(
        "BULK INSERT {} FROM {} WITH ({})",
        a.source,
        quote_string(&path),
        opts.join(", ")
    );
    let started = Instant::now();
    report.line("");
    report.line("Starting copy...");
    let mut sink = ErrorSink::default();
    session.execute_batch(&sql, &mut sink);
    for e in &sink.errors {
        report.error(e);
    }
    if sink.errors.iter().any(|e| e.severity > 10) && sink.rows == 0 {
        report.line("");
        report.line("BCP copy in failed");
        return false;
    }
    report.totals(sink.rows, a.packet, started);
    sink.errors.is_empty()
}

/// Writes the rows of the result set to the data file as bcp's character mode does.
struct FileSink<'r, W: Write> {
    out: W,
    /// bcp's progress line every 1,000 rows.
    report: &'r mut Report,
    wide: bool,
    field_term: Vec<u8>,
    row_term: Vec<u8>,
    types: Vec<DataType>,
    first: u64,
    last: u64,
    seen: u64,
    written: u64,
    results: u32,
    errors: Vec<SqlError>,
    io_error: Option<std::io::Error>,
    text: String,
}

impl<W: Write> FileSink<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if !self.wide {
            return self.out.write_all(bytes);
        }
        let s = String::from_utf8_lossy(bytes);
        let mut buf = Vec::with_capacity(s.len() * 2);
        for u in s.encode_utf16() {
            buf.extend_from_slice(&u.to_le_bytes());
        }
        self.out.write_all(&buf)
    }

    fn write_row(&mut self, row: &[Value]) -> std::io::Result<()> {
        for (c, v) in row.iter().enumerate() {
            let mut text = std::mem::take(&mut self.text);
            text.clear();
            field_text(v, self.types.get(c), &mut text);
            let r = self.put(text.as_bytes());
            self.text = text;
            r?;
            let term = if c + 1 == row.len() {
                self.row_term.clone()
            } else {
                self.field_term.clone()
            };
            self.put(&term)?;
        }
        Ok(())
    }
}

/// A value as bcp's character mode writes it (NULL: nothing; empty string: one NUL).
fn field_text(v: &Value, t: Option<&DataType>, out: &mut String) {
    use std::fmt::Write as _;
    match v {
        Value::Null => {}
        Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s) => {
            if s.is_empty() {
                out.push('\0');
            } else {
                out.push_str(s);
            }
        }
        Value::Bit(b) => out.push(if *b { '1' } else { '0' }),
        Value::Float(f) => out.push_str(&types::format_float(*f)),
        Value::Real(f) => out.push_str(&types::format_real(*f)),
        Value::Money(m) | Value::SmallMoney(m) => {
            let sign = if *m < 0 { "-" } else { "" };
            let a = m.unsigned_abs();
            let _ = write!(out, "{sign}{}.{:04}", a / 10000, a % 10000);
        }
        Value::Binary(b) | Value::VarBinary(b) => {
            for byte in b {
                let _ = write!(out, "{byte:02X}");
            }
        }
        _ => out.push_str(&match t {
            Some(t) => v.to_sql_text_as(t),
            None => v.to_sql_text(),
        }),
    }
}

impl<W: Write> EventSink for FileSink<'_, W> {
    fn result_start(&mut self, columns: &[OutColumn]) {
        self.results += 1;
        self.types = columns.iter().map(|c| c.data_type.clone()).collect();
    }
    fn row(&mut self, row: &[Value]) {
        if self.results != 1 || self.io_error.is_some() {
            return;
        }
        self.seen += 1;
        if self.seen < self.first || (self.last > 0 && self.seen > self.last) {
            return;
        }
        match self.write_row(row) {
            Ok(()) => {
                self.written += 1;
                if self.written.is_multiple_of(PROGRESS_ROWS) {
                    self.report.line(&format!(
                        "{PROGRESS_ROWS} rows successfully bulk-copied to host-file. Total received: {}",
                        self.written
                    ));
                }
            }
            Err(e) => self.io_error = Some(e),
        }
    }
    fn result_end(&mut self, _: u64, _: bool, _: bool) {}
    fn row_count(&mut self, _: u64) {}
    fn message(&mut self, _: &InfoMessage) {}
    fn error(&mut self, err: &SqlError) {
        self.errors.push(err.clone());
    }
}

/// `bcp table out file` / `bcp "query" queryout file`.
fn copy_out(a: &BcpArgs, session: &mut Session, report: &mut Report) -> bool {
    let sql = if a.direction == "out" {
        format!("SELECT * FROM {}", a.source)
    } else {
        a.source.clone()
    };
    let terms = (
        engine::data_file_terminator(a.field_term.as_deref().unwrap_or("\\t"), false),
        engine::data_file_terminator(a.row_term.as_deref().unwrap_or("\\n"), true),
    );
    let (field_term, row_term) = match terms {
        (Ok(f), Ok(r)) => (f, r),
        (Err(e), _) | (_, Err(e)) => {
            report.error(&e);
            return false;
        }
    };
    let file = match std::fs::File::create(&a.file) {
        Ok(f) => f,
        Err(e) => {
            report.line(&format!(
                "SQLState = S1000, NativeError = 0\nError = [latchkey]Unable to open BCP host data-file {}: {e}",
                a.file
            ));
            return false;
        }
    };
    let started = Instant::now();
    report.line("");
    report.line("Starting copy...");
    let mut sink = FileSink {
        out: std::io::BufWriter::with_capacity(1 << 20, file),
        report: &mut *report,
        wide: a.wide,
        field_term,
        row_term,
        types: Vec::new(),
        first: a.first.unwrap_or(1),
        last: a.last.unwrap_or(0),
        seen: 0,
        written: 0,
        results: 0,
        errors: Vec::new(),
        io_error: None,
        text: String::new(),
    };
    session.execute_batch(&sql, &mut sink);
    if let Err(e) = sink.out.flush() {
        sink.io_error.get_or_insert(e);
    }
    let (errors, io_error, written) = (sink.errors, sink.io_error, sink.written);
    for e in &errors {
        report.error(e);
    }
    if let Some(e) = &io_error {
        report.line(&format!(
            "SQLState = S1000, NativeError = 0\nError = [latchkey]I/O error while writing BCP data-file {}: {e}",
            a.file
        ));
    }
    if !errors.is_empty() || io_error.is_some() {
        report.line("");
        report.line("BCP copy out failed");
        return false;
    }
    report.totals(written, a.packet, started);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Result<BcpArgs, String> {
        parse_args(&s.iter().map(|x| x.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn flags_attached_and_separate() {
        let a = args(&["t", "out", "f.txt", "-c", "-t,", "-r", "0x0a", "-F", "2"]).unwrap();
        assert_eq!(a.field_term.as_deref(), Some(","));
        assert_eq!(a.row_term.as_deref(), Some("0x0a"));
        assert_eq!(a.first, Some(2));
        assert!(args(&["t", "out", "f.txt"]).unwrap_err().contains("-c"));
        assert!(args(&["t", "out", "f.txt", "-c", "-S", "prod01"])
            .unwrap_err()
            .contains("TDS server"));
        assert!(args(&["t", "out", "f.txt", "-c", "-S", "localhost"]).is_ok());
        assert!(args(&["t", "out", "f.txt", "-c", "-n"]).is_err());
        assert!(args(&["t", "sideways", "f.txt", "-c"]).is_err());
    }

    #[test]
    fn field_texts() {
        let mut s = String::new();
        field_text(&Value::Money(-123400), None, &mut s);
        assert_eq!(s, "-12.3400");
        s.clear();
        field_text(&Value::VarChar(String::new()), None, &mut s);
        assert_eq!(s, "\0");
        s.clear();
        field_text(&Value::VarBinary(vec![0x0a, 0xff]), None, &mut s);
        assert_eq!(s, "0AFF");
        s.clear();
        field_text(&Value::Float(0.1), None, &mut s);
        assert_eq!(s, "0.1");
    }
}
