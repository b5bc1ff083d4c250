//! `BULK INSERT table FROM 'file' WITH (...)`: character data files (`DATAFILETYPE = 'char'`
//! or `'widechar'`, optionally `FORMAT = 'CSV'`) loaded into a table.
//!
//! Reading: the file is read in large chunks into one buffer ([`DataReader`]); fields are
//! found with `memchr::memmem` as SQL Server does it, field by field — every column but the
//! last ends at the field terminator, the last at the row terminator — so a file whose fields
//! do not match the table fails the way it fails in SQL Server (4832, 4866, 4864). Each field
//! is converted straight into the reused row buffer (integers, decimals, dates and strings
//! without going through the general conversion; anything else through `Value::cast`), and
//! the row goes to `exec::bulk` (the B-tree append path). Files in another encoding than
//! UTF-8 (`CODEPAGE`, `widechar`) are decoded to UTF-8 as they are read
//! (`types::textdecode`, shared with the command line's script input).
//!
//! Rows with conversion errors are reported (4863 / 4864 / 4867 with row and column),
//! written to `ERRORFILE` with the `.Error.Txt` log, and skipped until more than `MAXERRORS`
//! (default 10) were rejected (4865). File-level errors (4832 unexpected end of file, 4866 a
//! field too long, 4879 bad CSV quoting) end the statement followed by 7399 and 7330, as SQL
//! Server reports them. `BATCHSIZE = n` commits every n rows in its own transaction outside
//! an explicit transaction, so a failure keeps the batches before it.
//!
//! What latchkey does with each option (SQL Server's meaning unless said):
//! * ORDER (columns): a promise that the file is sorted so; it is verified row by row and a row
//!   that sorts before the previous one ends the load with 4819 naming both keys (the current
//!   batch rolled back). Sorted on the clustered key, rows take the B-tree's append path.
//! * KILOBYTES_PER_BATCH: the size of the file in SQL Server's plan; here the size of the
//!   reads from the file (64 KiB to 64 MiB; 4 MiB without it). ROWS_PER_BATCH: SQL Server's
//!   row estimate for its plan (sort or not); latchkey's load has one plan (append in file
//!   order, ORDER verified), so it is validated and has nothing to choose. Neither splits the
//!   load: as in SQL Server, only BATCHSIZE commits part of a file.
//! * TABLOCK: a table lock instead of row locks; latchkey takes no row locks for a load.
//! * CODEPAGE: 'ACP' = 1252, 'OEM' = 437, 'RAW' and 65001 = UTF-8 (latchkey's server code
//!   page), 1252, 437, 28591, 1200/1201 (UTF-16); others are Msg 2775. Without CODEPAGE the
//!   file is read as UTF-8 (SQL Server's default is OEM; latchkey's strings are Unicode).
//! * DATAFILETYPE 'native' / 'widenative', FORMATFILE and the *_DATA_SOURCE options are not
//!   implemented: Msg 40517.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use catalog::{SchemaObject, TableDef};
use common::{SqlError, SqlResult};
use exec::bulk::{BulkSource, BulkTarget};
use memchr::memmem;
use parser::ast::{self, BulkOptionValue};
use types::textdecode::{DecodingReader, TextEncoding};
use types::{DataType, Value};

use crate::events::EventSink;
use crate::session::Session;

/// Largest field of a non-MAX column before the load fails with 4866: 8,000 bytes, or 4 UTF-8
/// bytes per character of the column's declared length if that is more.
const FIELD_LIMIT: usize = 8000;
/// Largest field of a MAX column.
const MAX_FIELD_LIMIT: usize = 256 * 1024 * 1024;
const CHUNK: usize = 4 * 1024 * 1024;
const MIN_CHUNK: usize = 64 * 1024;
const MAX_CHUNK: usize = 64 * 1024 * 1024;

/// The statement's options after validation.
#[derive(Debug)]
struct Options {
    field_term: Vec<u8>,
    row_term: Vec<u8>,
    first_row: u64,
    last_row: u64,
    csv: bool,
    quote: u8,
    /// None: UTF-8 read without conversion.
    encoding: Option<TextEncoding>,
    keep_nulls: bool,
    keep_identity: bool,
    check_constraints: bool,
    fire_triggers: bool,
    batch_size: u64,
    max_errors: u64,
    error_file: Option<PathBuf>,
    order: Vec<(ast::Ident, bool)>,
    /// The row terminator is a line feed that may follow a carriage return (which is then
    /// part of the terminator, not of the last field): OPENROWSET's CSV default.
    optional_cr: bool,
    /// Fields after the last one read end nowhere in particular: the rest of the row is
    /// skipped (OPENROWSET reading fewer fields than a row has).
    rest_ignored: bool,
    /// Bytes read from the file at a time (KILOBYTES_PER_BATCH, clamped; 4 MiB by default).
    read_chunk: usize,
}

/// A terminator as SQL Server reads it: `0x..` hex bytes, or text with the escapes `\t \n \r
/// \\ \0`. A row terminator written `\n` means carriage return + line feed (SQL Server's rule
/// for `\n` and the default); `0x0a` is a bare line feed.
/// In a widechar file a hex terminator is UTF-16 LE code units (`0x0a00`); the file is
/// matched after decoding, so those units are re-encoded as UTF-8.
fn terminator(text: &str, row: bool, widechar: bool) -> SqlResult<Vec<u8>> {
    if row && text == "\\n" {
        return Ok(b"\r\n".to_vec());
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if !hex.is_empty() && hex.len() % 2 == 0 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            let bytes: Vec<u8> = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
                .collect();
            if widechar && bytes.len().is_multiple_of(2) {
                let units = bytes
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]));
                if let Ok(s) = char::decode_utf16(units).collect::<Result<String, _>>() {
                    return Ok(s.into_bytes());
                }
            }
            return Ok(bytes);
        }
    }
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.clone().next() {
                Some('t') => out.push(b'\t'),
                Some('n') => out.push(b'\n'),
                Some('r') => out.push(b'\r'),
                Some('0') => out.push(0),
                Some('\\') => out.push(b'\\'),
                _ => {
                    out.push(b'\\');
                    continue;
                }
            }
            chars.next();
        } else {
            let mut b = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
    }
    if out.is_empty() {
        return Err(SqlError::unsupported(if row {
            "ROWTERMINATOR = ''"
        } else {
            "FIELDTERMINATOR = ''"
        }));
    }
    Ok(out)
}

/// A terminator written as BULK INSERT and bcp read it (`\t`, `\n` = CR LF for rows,
/// `0x..` hex): the bytes of a character data file, for writers of such files (`bcp out`).
pub fn data_file_terminator(text: &str, row: bool) -> SqlResult<Vec<u8>> {
    terminator(text, row, false)
}

fn code_page(text: &str) -> SqlResult<Option<TextEncoding>> {
    let up = text.to_ascii_uppercase();
    let cp: u32 = match up.as_str() {
        "ACP" => 1252,
        "OEM" => 437,
        "RAW" | "65001" => return Ok(None),
        _ => match up.parse() {
            Ok(n) => n,
            Err(_) => return Err(SqlError::new(2775, &[&text])),
        },
    };
    match TextEncoding::from_code_page(cp) {
        Some(TextEncoding::Utf8) => Ok(None),
        Some(e) => Ok(Some(e)),
        None => Err(SqlError::new(2775, &[&cp])),
    }
}

fn parse_options(opts: &[ast::BulkOption]) -> SqlResult<Options> {
    let mut o = Options {
        field_term: b"\t".to_vec(),
        row_term: b"\r\n".to_vec(),
        first_row: 1,
        last_row: 0,
        csv: false,
        quote: b'"',
        encoding: None,
        keep_nulls: false,
        keep_identity: false,
        check_constraints: false,
        fire_triggers: false,
        batch_size: 0,
        max_errors: 10,
        error_file: None,
        order: Vec::new(),
        optional_cr: false,
        rest_ignored: false,
        read_chunk: CHUNK,
    };
    let mut widechar = false;
    let mut code_page_set = None;
    let (mut field_term, mut row_term) = (None, None);
    let mut seen: Vec<&str> = Vec::new();
    for opt in opts {
        if seen.contains(&opt.name.as_str()) {
            return Err(SqlError::custom(
                1074,
                15,
                1,
                format!(
                    "The option '{}' is specified more than once in the BULK INSERT statement.",
                    opt.name
                ),
            ));
        }
        seen.push(&opt.name);
        let int = || match &opt.value {
            BulkOptionValue::Int(n) if *n >= 0 => Ok(*n as u64),
            _ => Err(SqlError::new(102, &[&opt.name])),
        };
        let text = || match &opt.value {
            BulkOptionValue::Str(s) => Ok(s.as_str()),
            _ => Err(SqlError::new(102, &[&opt.name])),
        };
        match opt.name.as_str() {
            "FIELDTERMINATOR" => field_term = Some(text()?),
            "ROWTERMINATOR" => row_term = Some(text()?),
            "FIRSTROW" => o.first_row = int()?.max(1),
            "LASTROW" => o.last_row = int()?,
            "BATCHSIZE" => o.batch_size = int()?,
            "MAXERRORS" => o.max_errors = int()?,
            // the size of the file, estimated: SQL Server's plan input; the load is still one
            // transaction (BATCHSIZE is what splits it)
            "ROWS_PER_BATCH" => {
                int()?;
            }
            "KILOBYTES_PER_BATCH" => {
                o.read_chunk = (int()?.saturating_mul(1024) as usize).clamp(MIN_CHUNK, MAX_CHUNK);
            }
            // a table lock instead of row locks: latchkey takes no row locks for a load, the
            // whole table is written by this statement's transaction either way
            "TABLOCK" => {}
            "KEEPNULLS" => o.keep_nulls = true,
            "KEEPIDENTITY" => o.keep_identity = true,
            "CHECK_CONSTRAINTS" => o.check_constraints = true,
            "FIRE_TRIGGERS" => o.fire_triggers = true,
            "FORMAT" => {
                let f = text()?;
                if !f.eq_ignore_ascii_case("CSV") {
                    return Err(SqlError::unsupported(format!("FORMAT = '{f}'")));
                }
                o.csv = true;
            }
            "FIELDQUOTE" => {
                let q = text()?;
                if q.len() != 1 {
                    return Err(SqlError::unsupported(format!("FIELDQUOTE = '{q}'")));
                }
                o.quote = q.as_bytes()[0];
            }
            "CODEPAGE" => code_page_set = Some(code_page(text()?)?),
            "DATAFILETYPE" => {
                let t = text()?.to_ascii_lowercase();
                match t.as_str() {
                    "char" => widechar = false,
                    "widechar" => widechar = true,
                    "native" | "widenative" => {
                        return Err(SqlError::unsupported(format!("DATAFILETYPE = '{t}'")))
                    }
                    _ => return Err(SqlError::new(102, &[&t])),
                }
            }
            "ERRORFILE" => o.error_file = Some(PathBuf::from(text()?)),
            "ORDER" => {
                if let BulkOptionValue::Order(cols) = &opt.value {
                    o.order = cols.clone();
                }
            }
            other => return Err(SqlError::unsupported(other)),
        }
    }
    if let Some(t) = field_term {
        o.field_term = terminator(t, false, widechar)?;
    }
    if let Some(t) = row_term {
        o.row_term = terminator(t, true, widechar)?;
    }
    o.encoding = if widechar {
        Some(TextEncoding::Utf16Le)
    } else {
        code_page_set.flatten()
    };
    Ok(o)
}

/// The data file in one growing buffer, consumed row by row.
struct DataReader {
    src: Box<dyn Read>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// Stream offset of `buf[0]`.
    base: u64,
}

impl DataReader {
    /// Reads more input; keeps `buf[start..end]`, possibly moving it to the front.
    fn fill(&mut self) -> std::io::Result<()> {
        if self.start > 0 && (self.end == self.buf.len() || self.start >= self.buf.len() / 2) {
            self.buf.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            let n = self.buf.len() * 2;
            self.buf.resize(n, 0);
        }
        loop {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn avail(&self) -> usize {
        self.end - self.start
    }
}

/// A field of the current row: byte range relative to the row start, and whether it was
/// quoted (CSV) and holds doubled quotes to undo.
#[derive(Clone, Copy, Debug)]
struct Span {
    from: usize,
    to: usize,
    quoted: bool,
    escaped: bool,
}

/// Why a row could not be read.
enum RowFail {
    /// The file ended inside a row.
    Eof,
    /// Field `k` (0-based) is longer than the limit.
    TooLong(usize),
    /// Field `k` has a bad CSV quote.
    BadQuote(usize),
    Io(std::io::Error),
}

impl From<std::io::Error> for RowFail {
    fn from(e: std::io::Error) -> Self {
        RowFail::Io(e)
    }
}

/// What kind of conversion failure a field had.
enum ConvFail {
    Mismatch,
    Truncation,
    Overflow,
}

/// The reading side of one BULK INSERT (the `BulkSource` of each batch).
struct Loader {
    reader: DataReader,
    opts: Options,
    file_name: String,
    /// One entry per field of a row in the file.
    fields: Vec<FileField>,
    field_finders: (memmem::Finder<'static>, memmem::Finder<'static>),
    limits: Vec<usize>,
    spans: Vec<Span>,
    scratch: String,
    /// File row number of the row last read.
    row_no: u64,
    /// Rows the current batch may still take.
    batch_left: u64,
    done: bool,
    rejected: u64,
    /// Messages (rejected rows, then the fatal chain) not yet sent to the client.
    messages: Vec<SqlError>,
    error_file: Option<ErrorFile>,
    /// Bytes of the current row (for the error file), kept until the row is consumed.
    row_len: usize,
    /// `ORDER (...)`: (field, descending, collation) of each sort column, and the key of the
    /// previous row, to verify the promise (4819).
    order: Vec<(usize, bool, types::Collation)>,
    prev_key: Vec<Value>,
    /// BULK INSERT publishes the bytes consumed here (the file size is its total).
    progress: Option<common::ProgressMeter>,
}

/// `ERRORFILE`: rejected rows as they were in the data file, and `<name>.Error.Txt` with one
/// line per rejected row.
struct ErrorFile {
    path: PathBuf,
    rows: Option<(std::fs::File, std::fs::File)>,
    offset: u64,
}

impl ErrorFile {
    fn write(&mut self, row: u64, file_offset: u64, bytes: &[u8], hresult: &str) -> SqlResult<()> {
        if self.rows.is_none() {
            let log = error_log_path(&self.path);
            let open = |p: &Path| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(p)
                    .map_err(|e| open_error(p, &e))
            };
            self.rows = Some((open(&self.path)?, open(&log)?));
        }
        let Some((data, log)) = self.rows.as_mut() else {
            return Ok(());
        };
        let io = |e: std::io::Error| open_error(&self.path, &e);
        data.write_all(bytes).map_err(io)?;
        writeln!(
            log,
            "Row {row} File Offset {file_offset} ErrorFile Offset {} - HRESULT {hresult}",
            self.offset
        )
        .map_err(io)?;
        self.offset += bytes.len() as u64;
        Ok(())
    }
}

fn error_log_path(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".Error.Txt");
    PathBuf::from(s)
}

/// 4860 (no such file) or 4861 with the operating system error.
pub(crate) fn open_error(p: &Path, e: &std::io::Error) -> SqlError {
    let name = p.display().to_string();
    match e.kind() {
        std::io::ErrorKind::NotFound => SqlError::new(4860, &[&name]),
        std::io::ErrorKind::PermissionDenied => {
            SqlError::new(4861, &[&name, &"5(Access is denied.)"])
        }
        std::io::ErrorKind::AlreadyExists => SqlError::new(4861, &[&name, &"80(The file exists.)"]),
        _ => SqlError::new(
            4861,
            &[&name, &format!("{}({e})", e.raw_os_error().unwrap_or(0))],
        ),
    }
}

/// 7399 then 7330: how SQL Server ends a bulk load that failed inside the provider.
fn provider_chain(messages: &mut Vec<SqlError>) -> SqlError {
    messages.push(SqlError::new(
        7399,
        &[
            &"BULK",
            &"(null)",
            &"The provider did not give any information about the error.",
        ],
    ));
    let mut e = SqlError::new(7330, &[&"BULK", &"(null)"]);
    e.state = 2;
    e
}

/// A field of the data file: its name and type for conversion and messages.
pub(crate) struct FileField {
    pub name: String,
    pub data_type: DataType,
    /// Not converted (a computed column's field in BULK INSERT, a field no OPENROWSET column
    /// reads); its slot stays NULL.
    pub skip: bool,
}

impl Loader {
    /// Opens `file_name` for reading rows of `fields` with the statement's options.
    fn open(file_name: &str, opts: Options, fields: Vec<FileField>) -> SqlResult<Loader> {
        let path = Path::new(file_name);
        let file = std::fs::File::open(path).map_err(|e| open_error(path, &e))?;
        if path.is_dir() {
            return Err(SqlError::new(4860, &[&file_name]));
        }
        let error_file = match &opts.error_file {
            Some(p) => {
                for f in [p.clone(), error_log_path(p)] {
                    if f.exists() {
                        return Err(open_error(
                            &f,
                            &std::io::Error::from(std::io::ErrorKind::AlreadyExists),
                        ));
                    }
                }
                Some(ErrorFile {
                    path: p.clone(),
                    rows: None,
                    offset: 0,
                })
            }
            None => None,
        };
        let src: Box<dyn Read> = match opts.encoding {
            None => Box::new(file),
            Some(e) => Box::new(DecodingReader::new(file, Some(e))),
        };
        let limits = fields
            .iter()
            .map(|c| {
                if c.data_type.is_max() {
                    MAX_FIELD_LIMIT
                } else {
                    let chars = c.data_type.char_length().unwrap_or(0) as usize;
                    FIELD_LIMIT.max(4 * chars)
                }
            })
            .collect();
        let finders = (
            memmem::Finder::new(&opts.field_term).into_owned(),
            memmem::Finder::new(&opts.row_term).into_owned(),
        );
        let mut loader = Loader {
            reader: DataReader {
                src,
                buf: vec![0; opts.read_chunk],
                start: 0,
                end: 0,
                eof: false,
                base: 0,
            },
            file_name: file_name.to_string(),
            fields,
            field_finders: finders,
            limits,
            spans: Vec::new(),
            scratch: String::new(),
            row_no: 0,
            batch_left: 0,
            done: false,
            rejected: 0,
            messages: Vec::new(),
            error_file,
            row_len: 0,
            order: Vec::new(),
            prev_key: Vec::new(),
            progress: None,
            opts,
        };
        // a UTF-8 byte order mark is not data
        if loader.opts.encoding.is_none() {
            while loader.reader.avail() < 3 && !loader.reader.eof {
                loader.reader.fill().map_err(|e| open_error(path, &e))?;
            }
            if loader.reader.buf[..loader.reader.end].starts_with(&[0xEF, 0xBB, 0xBF]) {
                loader.reader.start = 3;
            }
        }
        Ok(loader)
    }
}

impl Loader {
    /// Reads the next row's fields into `spans`. Ok(false) at the end of the file.
    fn read_row(&mut self) -> Result<bool, RowFail> {
        self.spans.clear();
        while self.reader.avail() == 0 {
            if self.reader.eof {
                return Ok(false);
            }
            self.reader.fill()?;
        }
        let n = self.fields.len();
        let mut rel = 0usize;
        for k in 0..n {
            let last = k + 1 == n;
            let (term_len, limit) = (
                if last {
                    self.opts.row_term.len()
                } else {
                    self.opts.field_term.len()
                },
                self.limits[k],
            );
            let from = rel;
            // CSV: a field that starts with the quote runs to the matching quote
            if self.opts.csv {
                while self.reader.avail() <= from && !self.reader.eof {
                    self.reader.fill()?;
                }
                let r = &self.reader;
                if r.avail() > from && r.buf[r.start + from] == self.opts.quote {
                    let (to, after, escaped) = self.quoted_field(from, k, limit)?;
                    // the terminator must follow the closing quote
                    while self.reader.avail() < after + term_len && !self.reader.eof {
                        self.reader.fill()?;
                    }
                    let r = &self.reader;
                    let term = if last {
                        &self.opts.row_term
                    } else {
                        &self.opts.field_term
                    };
                    let rest = &r.buf[r.start + after..r.end];
                    if rest.starts_with(term) {
                        rel = after + term_len;
                    } else if last && self.opts.optional_cr && rest.starts_with(b"\r\n") {
                        rel = after + 2;
                    } else if last
                        && self.opts.rest_ignored
                        && rest.starts_with(&self.opts.field_term)
                    {
                        rel = self.skip_to_row_end(after)?;
                    } else if last && rest.is_empty() && r.eof {
                        rel = after;
                    } else {
                        return Err(RowFail::BadQuote(k));
                    }
                    self.spans.push(Span {
                        from: from + 1,
                        to,
                        quoted: true,
                        escaped,
                    });
                    continue;
                }
            }
            let mut search = from;
            loop {
                let r = &self.reader;
                let hay = &r.buf[r.start + search..r.end];
                let finder = if last {
                    &self.field_finders.1
                } else {
                    &self.field_finders.0
                };
                // one-byte terminators (the common '|', ',', tab) skip memmem's dispatch
                let found = match finder.needle() {
                    [b] => memchr::memchr(*b, hay),
                    _ => finder.find(hay),
                };
                if let Some(i) = found {
                    let mut to = search + i;
                    rel = to + term_len;
                    let mut cut = false;
                    if last && self.opts.rest_ignored {
                        // fields after the last one read are skipped
                        let row = &r.buf[r.start + from..r.start + to];
                        if let Some(p) = self.field_finders.0.find(row) {
                            to = from + p;
                            cut = true;
                        }
                    }
                    if to - from > limit {
                        return Err(RowFail::TooLong(k));
                    }
                    if last
                        && !cut
                        && self.opts.optional_cr
                        && to > from
                        && r.buf[r.start + to - 1] == b'\r'
                    {
                        to -= 1;
                    }
                    self.spans.push(Span {
                        from,
                        to,
                        quoted: false,
                        escaped: false,
                    });
                    break;
                }
                let avail = r.avail();
                if avail - from > limit {
                    return Err(RowFail::TooLong(k));
                }
                if r.eof {
                    if last {
                        // the last row may end at the end of the file without its terminator
                        self.spans.push(Span {
                            from,
                            to: avail,
                            quoted: false,
                            escaped: false,
                        });
                        rel = avail;
                        break;
                    }
                    return Err(RowFail::Eof);
                }
                search = avail.saturating_sub(term_len - 1).max(from);
                self.reader.fill()?;
            }
        }
        self.row_len = rel;
        Ok(true)
    }

    /// The position after the row terminator that ends the row at or after `at` (the end of
    /// the data at the end of the file).
    fn skip_to_row_end(&mut self, at: usize) -> Result<usize, RowFail> {
        let mut search = at;
        let term_len = self.opts.row_term.len();
        loop {
            let r = &self.reader;
            if let Some(i) = self.field_finders.1.find(&r.buf[r.start + search..r.end]) {
                return Ok(search + i + term_len);
            }
            if r.eof {
                return Ok(r.avail());
            }
            search = r.avail().saturating_sub(term_len - 1).max(at);
            self.reader.fill()?;
        }
    }

    /// A quoted CSV field starting at `from`: (end of content, position after the closing
    /// quote, has doubled quotes).
    fn quoted_field(
        &mut self,
        from: usize,
        k: usize,
        limit: usize,
    ) -> Result<(usize, usize, bool), RowFail> {
        let q = self.opts.quote;
        let mut i = from + 1;
        let mut escaped = false;
        loop {
            while self.reader.avail() <= i + 1 && !self.reader.eof {
                self.reader.fill()?;
            }
            let r = &self.reader;
            let avail = r.avail();
            if i >= avail {
                return Err(if r.eof {
                    RowFail::Eof
                } else {
                    RowFail::BadQuote(k)
                });
            }
            if i - from > limit {
                return Err(RowFail::TooLong(k));
            }
            let hay = &r.buf[r.start + i..r.end];
            match memchr::memchr(q, hay) {
                None => i = avail,
                Some(p) => {
                    let at = i + p;
                    if at + 1 < avail && r.buf[r.start + at + 1] == q {
                        escaped = true;
                        i = at + 2;
                    } else if at + 1 >= avail && !r.eof {
                        i = at; // need the next byte to decide
                        self.reader.fill()?;
                    } else {
                        return Ok((at, at + 1, escaped));
                    }
                }
            }
        }
    }

    /// Consumes the current row.
    fn consume(&mut self) {
        self.reader.start += self.row_len;
        self.row_len = 0;
        if let Some(p) = &self.progress {
            p.set_done(self.reader.base + self.reader.start as u64);
        }
    }

    /// Converts the current row's fields into `row`; on failure the (column, kind).
    fn convert_row(&mut self, row: &mut [Value]) -> Result<(), (usize, ConvFail)> {
        let base = self.reader.start;
        for (c, span) in self.spans.iter().enumerate() {
            let bytes = &self.reader.buf[base + span.from..base + span.to];
            let col = &self.fields[c];
            if bytes.is_empty() && !span.quoted {
                row[c] = Value::Null;
                continue;
            }
            if col.skip {
                continue;
            }
            let bytes = if span.escaped {
                let Ok(text) = std::str::from_utf8(bytes) else {
                    return Err((c, ConvFail::Mismatch));
                };
                self.scratch.clear();
                let q = self.opts.quote as char;
                let mut prev_quote = false;
                for ch in text.chars() {
                    if ch == q && prev_quote {
                        prev_quote = false;
                        continue;
                    }
                    prev_quote = ch == q;
                    self.scratch.push(ch);
                }
                self.scratch.as_bytes()
            } else {
                bytes
            };
            convert_field(bytes, &col.data_type, &mut row[c]).map_err(|f| (c, f))?;
        }
        Ok(())
    }

    /// `ORDER (...)`: the row's key must not sort before the previous row's (4819 names both
    /// keys; nothing of the current batch is kept).
    fn check_order(&mut self, row: &[Value]) -> SqlResult<()> {
        let mut first = self.prev_key.is_empty();
        if !first {
            for (i, &(c, desc, coll)) in self.order.iter().enumerate() {
                let ord = types::sort_cmp(&self.prev_key[i], &row[c], coll);
                let ord = if desc { ord.reverse() } else { ord };
                match ord {
                    std::cmp::Ordering::Less => {
                        first = true;
                        break;
                    }
                    std::cmp::Ordering::Equal => {}
                    std::cmp::Ordering::Greater => {
                        let key = |vals: &mut dyn Iterator<Item = &Value>| {
                            let parts: Vec<String> = vals
                                .map(|v| {
                                    if v.is_null() {
                                        "NULL".to_string()
                                    } else {
                                        v.to_sql_text()
                                    }
                                })
                                .collect();
                            format!("({})", parts.join(", "))
                        };
                        let before = key(&mut self.prev_key.iter());
                        let now = key(&mut self.order.iter().map(|&(c, _, _)| &row[c]));
                        return Err(SqlError::new(4819, &[&before, &now]));
                    }
                }
            }
        }
        if first || self.prev_key.is_empty() {
            self.prev_key.clear();
            self.prev_key
                .extend(self.order.iter().map(|&(c, _, _)| row[c].clone()));
        }
        Ok(())
    }

    fn reject(&mut self, col: usize, fail: ConvFail) -> SqlResult<()> {
        let name = &self.fields[col].name;
        let (number, hresult) = match fail {
            ConvFail::Mismatch => (4864, "0x80020005"),
            ConvFail::Truncation => (4863, "0x80004005"),
            ConvFail::Overflow => (4867, "0x80020005"),
        };
        self.messages
            .push(SqlError::new(number, &[&self.row_no, &(col + 1), name]));
        if let Some(ef) = self.error_file.as_mut() {
            let r = &self.reader;
            let offset = r.base + r.start as u64;
            let bytes = &r.buf[r.start..r.start + self.row_len];
            ef.write(self.row_no, offset, bytes, hresult)?;
        }
        self.rejected += 1;
        if self.rejected > self.opts.max_errors {
            self.messages
                .push(SqlError::new(4865, &[&self.opts.max_errors]));
            return Err(provider_chain(&mut self.messages));
        }
        Ok(())
    }

    fn fail(&mut self, f: RowFail) -> SqlError {
        let row = self.row_no + 1;
        let first = match f {
            RowFail::Eof => SqlError::new(4832, &[]),
            RowFail::TooLong(k) => SqlError::new(4866, &[&row, &(k + 1)]),
            RowFail::BadQuote(k) => SqlError::new(4879, &[&self.file_name, &row, &(k + 1)]),
            RowFail::Io(e) => return open_error(Path::new(&self.file_name), &e),
        };
        self.messages.push(first);
        provider_chain(&mut self.messages)
    }
}

impl BulkSource for Loader {
    fn next_row(&mut self, row: &mut [Value]) -> SqlResult<bool> {
        loop {
            if self.done || self.batch_left == 0 {
                return Ok(false);
            }
            if self.opts.last_row > 0 && self.row_no >= self.opts.last_row {
                self.done = true;
                return Ok(false);
            }
            match self.read_row() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return Ok(false);
                }
                Err(f) => {
                    self.done = true;
                    return Err(self.fail(f));
                }
            }
            self.row_no += 1;
            if self.row_no < self.opts.first_row {
                self.consume();
                continue;
            }
            match self.convert_row(row) {
                Ok(()) => {
                    if !self.order.is_empty() {
                        if let Err(e) = self.check_order(row) {
                            self.done = true;
                            return Err(e);
                        }
                    }
                    self.consume();
                    self.batch_left -= 1;
                    return Ok(true);
                }
                Err((col, fail)) => {
                    let r = self.reject(col, fail);
                    self.consume();
                    r?;
                }
            }
        }
    }
}

/// Takes the string buffer of `slot` for reuse (emptied).
fn take_string(slot: &mut Value) -> String {
    match std::mem::replace(slot, Value::Null) {
        Value::Char(mut s)
        | Value::VarChar(mut s)
        | Value::NChar(mut s)
        | Value::NVarChar(mut s) => {
            s.clear();
            s
        }
        _ => String::new(),
    }
}

fn parse_i64(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (d - b'0') as i64;
    }
    Some(if neg { -v } else { v })
}

/// `[-]digits[.digits]` with at most `scale` fraction digits, as a mantissa at `scale`.
fn parse_decimal(b: &[u8], precision: u8, scale: u8) -> Option<i128> {
    let (neg, rest) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let (int, frac) = match rest.iter().position(|&c| c == b'.') {
        Some(p) => (&rest[..p], &rest[p + 1..]),
        None => (rest, &rest[rest.len()..]),
    };
    if (int.is_empty() && frac.is_empty())
        || frac.len() > scale as usize
        || int.len() + scale as usize > 38
    {
        return None;
    }
    let mut m: i128 = 0;
    for &d in int.iter().chain(frac) {
        if !d.is_ascii_digit() {
            return None;
        }
        m = m * 10 + (d - b'0') as i128;
    }
    m *= types::decimal::pow10((scale as usize - frac.len()) as u32);
    if !types::decimal::fits(m, precision) {
        return None;
    }
    Some(if neg { -m } else { m })
}

/// `yyyy-mm-dd`.
fn parse_date(b: &[u8]) -> Option<i32> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |s: &[u8]| -> Option<u32> {
        s.iter().try_fold(0u32, |a, &d| {
            d.is_ascii_digit().then(|| a * 10 + (d - b'0') as u32)
        })
    };
    let (y, m, d) = (num(&b[..4])?, num(&b[5..7])?, num(&b[8..])?);
    if y == 0 || !(1..=12).contains(&m) || d == 0 || d > types::datetime::days_in_month(y as i32, m)
    {
        return None;
    }
    Some(types::datetime::days_from_civil(y as i32, m, d))
}

/// Converts one field's bytes to the column type into `slot` (bytes that are not UTF-8 are a
/// type mismatch: "invalid character for the specified codepage").
fn convert_field(bytes: &[u8], ty: &DataType, slot: &mut Value) -> Result<(), ConvFail> {
    let int = |lo: i64, hi: i64| -> Option<Result<i64, ConvFail>> {
        parse_i64(bytes).map(|v| {
            if (lo..=hi).contains(&v) {
                Ok(v)
            } else {
                Err(ConvFail::Overflow)
            }
        })
    };
    match ty {
        DataType::Int => {
            if let Some(v) = int(i32::MIN as i64, i32::MAX as i64) {
                *slot = Value::Int(v? as i32);
                return Ok(());
            }
        }
        DataType::BigInt => {
            if let Some(v) = int(i64::MIN, i64::MAX) {
                *slot = Value::BigInt(v?);
                return Ok(());
            }
        }
        DataType::SmallInt => {
            if let Some(v) = int(i16::MIN as i64, i16::MAX as i64) {
                *slot = Value::SmallInt(v? as i16);
                return Ok(());
            }
        }
        DataType::TinyInt => {
            if let Some(v) = int(0, 255) {
                *slot = Value::TinyInt(v? as u8);
                return Ok(());
            }
        }
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            if let Some(m) = parse_decimal(bytes, *precision, *scale) {
                *slot = Value::Decimal {
                    mantissa: m,
                    scale: *scale,
                };
                return Ok(());
            }
        }
        DataType::Date => {
            if let Some(d) = parse_date(bytes) {
                *slot = Value::Date(d);
                return Ok(());
            }
        }
        _ => {}
    }
    // binary data in a character file is hex digits (what bcp writes), `0x` allowed
    if let DataType::Binary(_) | DataType::VarBinary(_) = ty {
        let hex = bytes
            .strip_prefix(b"0x")
            .or_else(|| bytes.strip_prefix(b"0X"))
            .unwrap_or(bytes);
        if !hex.len().is_multiple_of(2) {
            return Err(ConvFail::Mismatch);
        }
        let digit = |b: u8| (b as char).to_digit(16).ok_or(ConvFail::Mismatch);
        let mut out = Vec::with_capacity(hex.len() / 2);
        for pair in hex.chunks_exact(2) {
            out.push((digit(pair[0])? * 16 + digit(pair[1])?) as u8);
        }
        return match Value::VarBinary(out).cast_for_column(ty, "", "") {
            Ok(v) => {
                *slot = v;
                Ok(())
            }
            Err(_) => Err(ConvFail::Truncation),
        };
    }
    let Ok(mut text) = std::str::from_utf8(bytes) else {
        return Err(ConvFail::Mismatch);
    };
    // bcp's character mode writes an empty string as one NUL character
    if text == "\0" && ty.is_string() {
        text = "";
    }
    // strings: ASCII text into varchar/char, any text into nvarchar/nchar
    let string = match ty {
        DataType::VarChar(n) if text.is_ascii() => Some((n.map(|n| n as usize), 0, false)),
        DataType::Char(n) if text.is_ascii() => Some((Some(*n as usize), *n as usize, false)),
        DataType::NVarChar(n) => Some((n.map(|n| n as usize), 0, true)),
        DataType::NChar(n) => Some((Some(*n as usize), *n as usize, true)),
        _ => None,
    };
    if let Some((limit, pad, unicode)) = string {
        let len = |s: &str| {
            if unicode {
                types::charset::utf16_len(s)
            } else {
                s.len()
            }
        };
        if limit.is_some_and(|l| len(text.trim_end_matches(' ')) > l) {
            return Err(ConvFail::Truncation);
        }
        let mut s = take_string(slot);
        let mut n = len(text);
        match limit {
            Some(l) if n > l => {
                // only trailing spaces are cut
                s.push_str(types::charset::truncate_units(text, l, unicode));
                n = l;
            }
            _ => s.push_str(text),
        }
        if pad > n {
            const SPACES: &str = "                                                                ";
            let mut left = pad - n;
            while left > 0 {
                let k = left.min(SPACES.len());
                s.push_str(&SPACES[..k]);
                left -= k;
            }
        }
        *slot = match ty {
            DataType::Char(_) => Value::Char(s),
            DataType::NChar(_) => Value::NChar(s),
            DataType::NVarChar(_) => Value::NVarChar(s),
            _ => Value::VarChar(s),
        };
        return Ok(());
    }
    match Value::NVarChar(text.to_string()).cast_for_column(ty, "", "") {
        Ok(v) => {
            *slot = v;
            Ok(())
        }
        Err(e) => Err(match e.number {
            2628 | 8152 => ConvFail::Truncation,
            8115 | 220 | 232 | 244 | 248 | 517 => ConvFail::Overflow,
            _ => ConvFail::Mismatch,
        }),
    }
}

/// The rows of a character data file for `OPENROWSET(BULK ...)`, read as they are asked for.
pub(crate) struct FileRows {
    loader: Loader,
    width: usize,
}

/// Opens a character data file for `OPENROWSET(BULK ...)`: `options` are the statement's
/// (BULK INSERT's rules; OPENROWSET's own SINGLE_*, HEADER_ROW and PARSER_VERSION already
/// taken out by the caller), `fields` one entry per field read from a row (the rest of a row
/// is skipped). `csv_defaults`: FORMAT = 'CSV' without terminators reads `,` and LF with an
/// optional CR before it.
pub(crate) fn open_file_rows(
    file_name: &str,
    options: &[ast::BulkOption],
    header_row: bool,
    csv_defaults: bool,
    fields: Vec<FileField>,
) -> SqlResult<FileRows> {
    let mut opts = parse_options(options)?;
    opts.rest_ignored = true;
    if csv_defaults {
        if !options.iter().any(|o| o.name == "FIELDTERMINATOR") {
            opts.field_term = b",".to_vec();
        }
        if !options.iter().any(|o| o.name == "ROWTERMINATOR") {
            opts.row_term = b"\n".to_vec();
            opts.optional_cr = true;
        }
    }
    if header_row {
        opts.first_row = opts.first_row.max(2);
    }
    let width = fields.len();
    let mut loader = Loader::open(file_name, opts, fields)?;
    loader.batch_left = u64::MAX;
    Ok(FileRows { loader, width })
}

impl FileRows {
    /// The next row (one value per field), None at the end of the file. Rows rejected on the
    /// way are added to `messages`; a fatal error is returned alone (the 7399/7330 chain that
    /// follows it in SQL Server is not repeated).
    pub(crate) fn next(&mut self, messages: &mut Vec<SqlError>) -> SqlResult<Option<Vec<Value>>> {
        let mut row = vec![Value::Null; self.width];
        let r = self.loader.next_row(&mut row);
        let mut chain = std::mem::take(&mut self.loader.messages);
        match r {
            Ok(true) => {
                messages.append(&mut chain);
                Ok(Some(row))
            }
            Ok(false) => {
                messages.append(&mut chain);
                Ok(None)
            }
            Err(e) => {
                // the chain is [rejected rows..., the fatal error, 7399] and `e` is 7330: the
                // fatal error is the one that says what went wrong
                if chain.last().is_some_and(|m| m.number == 7399) {
                    chain.pop();
                }
                Err(chain.pop().unwrap_or(e))
            }
        }
    }
}

impl Session {
    /// BULK INSERT.
    pub(crate) fn bulk_insert(
        &mut self,
        b: &ast::BulkInsert,
        line: u32,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let opts = parse_options(&b.options)?;
        let q = crate::ddl::qualified(&b.table);
        let table = match self.find_object(&q)? {
            Some((_, SchemaObject::Table(t))) => t,
            Some((_, SchemaObject::View(_))) => {
                return Err(SqlError::unsupported("BULK INSERT into a view"))
            }
            _ => return Err(SqlError::invalid_object(&q.display())),
        };
        for (c, _) in &opts.order {
            if table.column_index(&c.value).is_none() {
                return Err(SqlError::invalid_column(&c.value));
            }
        }
        let (columns, defaults, checks) =
            plan::bind_bulk_target(&table, opts.keep_identity, &*self)?;
        let has_checks = !checks.is_empty();
        let target = BulkTarget {
            table: table.clone(),
            columns,
            defaults,
            checks: if opts.check_constraints {
                checks
            } else {
                Vec::new()
            },
            check_foreign_keys: opts.check_constraints,
            keep_nulls: opts.keep_nulls,
            fire_triggers: opts.fire_triggers,
        };
        let fields = table
            .columns
            .iter()
            .map(|c| FileField {
                name: c.name.clone(),
                data_type: c.data_type.clone(),
                skip: c.computed.is_some(),
            })
            .collect();
        let order = opts
            .order
            .iter()
            .filter_map(|(c, desc)| {
                let i = table.column_index(&c.value)?;
                let coll = table.columns[i]
                    .collation
                    .as_deref()
                    .and_then(types::Collation::from_name)
                    .unwrap_or_default();
                Some((i, *desc, coll))
            })
            .collect();
        let mut loader = Loader::open(&b.file, opts, fields)?;
        loader.order = order;
        // the shell's progress bar: bytes of the data file consumed so far
        let file_len = std::fs::metadata(&b.file).map(|m| m.len()).unwrap_or(0);
        let _progress = self.progress.start(file_len);
        loader.progress = Some(self.progress.clone());
        let per_batch = loader.opts.batch_size > 0 && self.trancount == 0;
        let mut total = 0u64;
        let result = loop {
            loader.batch_left = if per_batch {
                loader.opts.batch_size
            } else {
                u64::MAX
            };
            let r = self.autocommit(|me| {
                let (n, changes) = exec::bulk::bulk_insert_batch(&target, &mut loader, me)?;
                if !changes.is_empty() {
                    me.fire_after_triggers(changes, n, sink)?;
                }
                Ok(n)
            });
            for m in loader.messages.drain(..) {
                self.error = m.number;
                sink.error(&m.at_line(line));
            }
            match r {
                Ok(n) => total += n,
                Err(e) => break Err(e),
            }
            if loader.done {
                break Ok(());
            }
        };
        result?;
        if total > 0 && has_checks && !loader.opts.check_constraints {
            self.autocommit(|me| me.mark_checks_untrusted(&table))?;
        }
        self.rowcount = total as i64;
        if !self.options.nocount {
            sink.row_count(total);
        }
        Ok(())
    }

    /// A load without CHECK_CONSTRAINTS leaves the table's CHECK constraints not trusted
    /// (`sys.check_constraints.is_not_trusted = 1`), as in SQL Server.
    fn mark_checks_untrusted(&mut self, table: &TableDef) -> SqlResult<()> {
        let Some(h) = self.engine.database(&table.database) else {
            return Ok(());
        };
        let mut t = table.clone();
        let mut changed = false;
        for c in t
            .checks
            .iter_mut()
            .filter(|c| !c.disabled && !c.not_trusted)
        {
            c.not_trusted = true;
            changed = true;
        }
        if !changed {
            return Ok(());
        }
        let tree = h.store.catalog_btree()?;
        let db = h.def.name.clone();
        let txn = self.txn_for(&db)?;
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Table(Arc::new(t)))?;
        self.touch_catalog(&db)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(name: &str, value: BulkOptionValue) -> ast::BulkOption {
        ast::BulkOption {
            name: name.into(),
            value,
        }
    }

    #[test]
    fn kilobytes_per_batch_sizes_the_reads() {
        let o = parse_options(&[opt("KILOBYTES_PER_BATCH", BulkOptionValue::Int(1024))]).unwrap();
        assert_eq!(o.read_chunk, 1024 * 1024);
        let o = parse_options(&[opt("KILOBYTES_PER_BATCH", BulkOptionValue::Int(1))]).unwrap();
        assert_eq!(o.read_chunk, MIN_CHUNK);
        let o =
            parse_options(&[opt("KILOBYTES_PER_BATCH", BulkOptionValue::Int(1 << 40))]).unwrap();
        assert_eq!(o.read_chunk, MAX_CHUNK);
        assert_eq!(parse_options(&[]).unwrap().read_chunk, CHUNK);
    }
}
