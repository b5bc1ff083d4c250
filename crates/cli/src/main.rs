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

mod login;
mod output;
mod runner;
mod shell;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use engine::{Engine, EngineConfig, Session};

use output::{JsonlSink, TableSink};
use runner::{BatchSink, Runner};
use shell::interactive;

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
    if !strict {
        runner.session.set_login(&login::os_login());
    }
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
