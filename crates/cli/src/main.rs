//! `latchkey`: the command-line front end (script runner, interactive shell, jsonl interface).
//!
//! ```text
//! latchkey [--data DIR] [-i FILE]... [-Q TEXT] [--format table|jsonl]
//! latchkey serve            (reserved: the TDS server is not implemented yet)
//! ```
//!
//! Batches are separated by `GO` lines. `--format jsonl` implements
//! shared/conformance/ENGINE_INTERFACE.md (events as JSON lines, `batch_end` after each batch,
//! stdout flushed after each `batch_end`). `--format table` prints sqlcmd-like output.

mod output;

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use engine::{Engine, EngineConfig, EventSink, Session};

use output::{JsonlSink, TableSink};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Jsonl,
}

#[derive(Parser, Debug)]
#[command(
    name = "latchkey",
    version,
    about = "latchkey: a T-SQL database engine"
)]
struct Args {
    /// Data directory (default: $LATCHKEY_DATA, else ./latchkey-data).
    #[arg(long = "data", short = 'd', global = true)]
    data: Option<PathBuf>,
    /// Script file(s) to run, in order.
    #[arg(short = 'i', long = "input")]
    input: Vec<PathBuf>,
    /// Query text to run (a script; GO lines separate batches).
    #[arg(short = 'Q', long = "query")]
    query: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the TDS server (not implemented yet).
    Serve,
}

fn data_dir(arg: Option<PathBuf>) -> PathBuf {
    arg.or_else(|| std::env::var_os("LATCHKEY_DATA").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("latchkey-data"))
}

/// If `line` is a batch separator, its repeat count. `strict` (jsonl stdin): exactly `GO`
/// (case-insensitive, a trailing `\r` ignored); otherwise sqlcmd rules (`GO`, `GO n`, spaces).
fn go_line(line: &str, strict: bool) -> Option<u32> {
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

struct Runner {
    session: Session,
    sink: Box<dyn BatchSink>,
}

/// An event sink that also knows batch boundaries.
trait BatchSink: EventSink {
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
    fn run_batch(&mut self, text: &str, repeat: u32) {
        for _ in 0..repeat.max(1) {
            self.session.execute_batch(text, self.sink.as_mut());
        }
        self.sink.batch_end();
    }

    /// Reads batches line by line, executing each when its GO line arrives. `run_tail`: run an
    /// unterminated trailing batch at EOF (scripts) or discard it (jsonl stdin contract).
    fn run_reader(
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

fn interactive(runner: &mut Runner, data: &std::path::Path) -> ExitCode {
    let mut rl = match rustyline::DefaultEditor::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("latchkey: cannot start the line editor: {e}");
            return ExitCode::from(1);
        }
    };
    let history = data.join(".latchkey_history");
    let _ = rl.load_history(&history);
    let mut batch = String::new();
    let mut n = 1;
    loop {
        match rl.readline(&format!("{n}> ")) {
            Ok(line) => {
                let _ = rl.add_history_entry(line.as_str());
                let t = line.trim();
                if batch.is_empty()
                    && (t.eq_ignore_ascii_case("exit") || t.eq_ignore_ascii_case("quit"))
                {
                    break;
                }
                if let Some(count) = go_line(&line, false) {
                    let text = std::mem::take(&mut batch);
                    runner.run_batch(&text, count);
                    n = 1;
                    continue;
                }
                if t.eq_ignore_ascii_case("reset") {
                    batch.clear();
                    n = 1;
                    continue;
                }
                batch.push_str(&line);
                batch.push('\n');
                n += 1;
            }
            Err(rustyline::error::ReadlineError::Interrupted) => {
                batch.clear();
                n = 1;
            }
            Err(_) => break,
        }
    }
    let _ = rl.save_history(&history);
    ExitCode::SUCCESS
}

/// Under a file size limit (`ulimit -f`) a write past it raises SIGXFSZ, whose default action
/// kills the process; ignored, the write fails with EFBIG and storage reports Msg 1105 (data)
/// or 9002 (log) as SQL Server does for a full disk (storage README A5).
fn ignore_file_size_signal() {
    // SAFETY: installs SIG_IGN for one signal before any other thread exists; no handler code
    // runs, so nothing async-signal-unsafe can happen.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Command::Serve) = args.command {
        eprintln!("latchkey serve: the TDS server is not yet implemented");
        return ExitCode::from(2);
    }
    ignore_file_size_signal();
    let data = data_dir(args.data);
    let engine = match Engine::open(&data, EngineConfig::default()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "latchkey: cannot open data directory {}: {e}",
                data.display()
            );
            return ExitCode::from(1);
        }
    };
    let sink: Box<dyn BatchSink> = match args.format {
        Format::Jsonl => Box::new(JsonlSink::new(std::io::stdout())),
        Format::Table => Box::new(TableSink::new(std::io::stdout())),
    };
    let mut runner = Runner {
        session: Session::new(engine),
        sink,
    };
    let strict = args.format == Format::Jsonl;
    let mut ran = false;
    for f in &args.input {
        ran = true;
        let file = match std::fs::File::open(f) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("latchkey: cannot open {}: {e}", f.display());
                return ExitCode::from(1);
            }
        };
        // the whole script is decoded before any of it runs: a bad byte on line 500 must not
        // leave the first 499 lines executed
        let text = match types::textdecode::read_text(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("latchkey: {}: {e}", f.display());
                return ExitCode::from(1);
            }
        };
        let mut r = std::io::Cursor::new(text.as_bytes());
        if let Err(e) = runner.run_reader(&mut r, false, true) {
            eprintln!("latchkey: error reading {}: {e}", f.display());
            return ExitCode::from(1);
        }
    }
    if let Some(q) = &args.query {
        ran = true;
        let mut r = std::io::Cursor::new(q.as_bytes());
        if let Err(e) = runner.run_reader(&mut r, false, true) {
            eprintln!("latchkey: {e}");
            return ExitCode::from(1);
        }
    }
    if !ran {
        let stdin = std::io::stdin();
        if stdin.is_terminal() && !strict {
            let code = interactive(&mut runner, &data);
            drop(runner);
            return code;
        }
        // UTF-8 (BOM optional) or UTF-16 with a BOM, decoded as it streams in
        let mut lock =
            std::io::BufReader::new(types::textdecode::DecodingReader::new(stdin.lock(), None));
        // jsonl: the ENGINE_INTERFACE contract discards an unterminated trailing batch.
        if let Err(e) = runner.run_reader(&mut lock, strict, !strict) {
            eprintln!("latchkey: standard input: {e}");
            let _ = std::io::stdout().flush();
            drop(runner);
            return ExitCode::from(1);
        }
    }
    let _ = std::io::stdout().flush();
    drop(runner);
    ExitCode::SUCCESS
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
