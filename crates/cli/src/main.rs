//! `latchkey`: the command-line front end (script runner, interactive shell, jsonl interface).
//!
//! ```text
//! latchkey [--data DIR] [-d DATABASE] [-i FILE[,FILE]...]... [-Q TEXT | -q TEXT] [-o FILE]
//!          [-v NAME=VALUE...] [-b] [-e] [-I] [-x] [-W] [-s SEP] [-h N] [-w N] [-y N] [-Y N]
//!          [-t SECONDS] [--format table|csv|jsonl] [-?]
//! latchkey -S HOST[,PORT] -U LOGIN [-P PASSWORD] [-N] [-C] [the flags above, less --data]
//!                           (the same runner, batches over TDS to a running server)
//! latchkey stress -S HOST[,PORT] -U LOGIN -P PASSWORD -n N -r R (-Q TEXT | -i FILE)
//! latchkey serve [--port 1433] [--listen ADDR] [--tls-cert F --tls-key F]   (the TDS server)
//! ```
//!
//! The flags are sqlcmd's where they overlap (see crates/cli/README.md). Batches are separated
//! by `GO` lines. `--format jsonl` implements shared/conformance/ENGINE_INTERFACE.md (events as
//! JSON lines, `batch_end` after each batch, stdout flushed after each `batch_end`) and passes
//! batch text through unchanged; `--format table` (sqlcmd-like) and `csv` run scripts through
//! the sqlcmd command processor (`script.rs`).

mod bcp;
mod csv_out;
mod login;
mod output;
mod remote;
mod runner;
mod script;
mod serve;
mod shell;
mod stress;
mod termwidth;
mod vars;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgAction, CommandFactory, Parser, Subcommand, ValueEnum};
use engine::{CollectSink, Engine, EngineConfig, Session};

use csv_out::CsvSink;
use output::{JsonlSink, TableOptions, TableSink};
use runner::{BatchSink, Runner};
use script::{Flow, Script};
use shell::interactive;
use vars::Vars;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Csv,
    Jsonl,
}

#[derive(Parser, Debug)]
#[command(
    name = "latchkey",
    version,
    about = "latchkey: a T-SQL database engine (sqlcmd-compatible flags)",
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    /// Data directory (default: $LATCHKEY_DATA, else ./latchkey-data).
    #[arg(long = "data", global = true, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Database to USE at start (sqlcmd -d); Msg 911 and exit status 1 if it does not exist.
    #[arg(short = 'd', value_name = "DATABASE")]
    database: Option<String>,
    /// Script file(s) to run, in order (repeatable, or a comma-separated list).
    #[arg(
        short = 'i',
        long = "input",
        value_delimiter = ',',
        value_name = "FILE"
    )]
    input: Vec<PathBuf>,
    /// Query text to run, then exit (a script; GO lines separate batches).
    #[arg(short = 'Q', long = "query", value_name = "TEXT")]
    query: Option<String>,
    /// Query text to run, then go on with the shell (or standard input).
    #[arg(short = 'q', value_name = "TEXT", conflicts_with = "query")]
    query_then_input: Option<String>,
    /// Write results, messages and errors to FILE instead of standard output.
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Scripting variables: -v name=value [name=value...].
    #[arg(short = 'v', num_args = 1.., value_name = "NAME=VALUE")]
    vars: Vec<String>,
    /// On an error of severity > 10: stop and exit with status 1 (sqlcmd -b).
    #[arg(short = 'b')]
    exit_on_error: bool,
    /// Echo each batch before running it.
    #[arg(short = 'e')]
    echo: bool,
    /// QUOTED_IDENTIFIER ON (already latchkey's default, as for an ODBC/JDBC connection).
    #[arg(short = 'I')]
    quoted_identifier: bool,
    /// Do not replace $(name) scripting variables.
    #[arg(short = 'x')]
    no_substitution: bool,
    /// Remove trailing spaces: columns are not padded (table format).
    #[arg(short = 'W')]
    trim: bool,
    /// Column separator (table format; default one space).
    #[arg(short = 's', value_name = "SEP")]
    separator: Option<String>,
    /// Rows between column headers; -1: no headers (table format).
    #[arg(short = 'h', value_name = "N", allow_negative_numbers = true)]
    headers: Option<i64>,
    /// Screen width: longer output lines wrap (9 to 65535; table format).
    #[arg(short = 'w', value_name = "N")]
    width: Option<usize>,
    /// Display width of varchar(max), nvarchar(max), varbinary(max); 0: unlimited.
    #[arg(short = 'y', value_name = "N")]
    var_width: Option<usize>,
    /// Display width of char(n), varchar(n), nchar(n), nvarchar(n), binary(n), varbinary(n).
    #[arg(short = 'Y', value_name = "N")]
    fixed_width: Option<usize>,
    /// Query timeout in seconds (0: none): a longer batch is cancelled.
    #[arg(short = 't', value_name = "SECONDS")]
    timeout: Option<u64>,
    /// Server to run the batches on over TDS: host[,port] (sqlcmd -S); without it the engine
    /// runs in this process on --data.
    #[arg(short = 'S', value_name = "SERVER")]
    server: Option<String>,
    /// SQL Server login for -S (sqlcmd -U).
    #[arg(short = 'U', value_name = "LOGIN", requires = "server")]
    user: Option<String>,
    /// Password for -U (sqlcmd -P; default: $SQLCMDPASSWORD).
    #[arg(short = 'P', value_name = "PASSWORD", requires = "server")]
    password: Option<String>,
    /// Encrypt the connection (-S), as sqlcmd's -N[s|m|o]: `-N` or `-Nm` (mandatory) the
    /// whole connection, `-Ns` TDS 8.0 strict encryption (TLS before PRELOGIN), `-No`
    /// (optional, the default) only the login.
    #[arg(
        short = 'N',
        requires = "server",
        num_args = 0..=1,
        require_equals = false,
        default_missing_value = "m",
        value_name = "s|m|o",
        value_parser = remote::parse_encrypt
    )]
    encrypt: Option<tds::client::Encrypt>,
    /// Trust the server's certificate without checking it (sqlcmd -C).
    #[arg(short = 'C', requires = "server")]
    trust_server_certificate: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Print help (also -?).
    #[arg(long = "help", action = ArgAction::Help)]
    help: Option<bool>,
    /// Print the version.
    #[arg(long = "version", action = ArgAction::Version)]
    version: Option<bool>,
    /// Latency added to every data-file read, in ms, for this run (over the stored
    /// `latchkey storage read latency (ms)` of sp_configure; the S2/S6 storage model).
    #[arg(long = "io-latency-ms", value_name = "MS", global = true)]
    io_latency_ms: Option<u64>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the TDS server (`latchkey serve --help` for the options).
    Serve(serve::ServeArgs),
    /// Load test over TDS, as ostress does: -n connections each run the batch -r times
    /// (`latchkey stress -S host,port -U sa -P pw -n 300 -r 100 -Q "EXEC dbo.p"`).
    Stress(stress::StressArgs),
    /// Copy rows between a table or query and a data file, as the bcp utility does
    /// (`latchkey bcp TABLE out FILE -c`; `latchkey bcp --help` for the options).
    #[command(disable_help_flag = true)]
    Bcp {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
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

/// `-d PATH` was the data directory before `-d` became sqlcmd's database: a value naming an
/// existing directory that holds a latchkey data directory (or a path with a slash) gets a
/// pointer to `--data` instead of an attempt to USE it.
fn old_data_dir_form(value: &str) -> bool {
    let p = Path::new(value);
    p.is_dir() && (value.contains('/') || p.join("master").is_dir())
}

/// Checks that need no engine; `Err`: the message for standard error (exit status 1).
fn check_args(args: &Args) -> Result<(), String> {
    if let Some(d) = &args.database {
        if old_data_dir_form(d) {
            return Err(format!(
                "latchkey: -d names the database to use (as in sqlcmd); {d} is a directory: \
                 give the data directory with --data {d}"
            ));
        }
    }
    // sqlcmd's ranges and texts (go-sqlcmd's argument checks)
    let inclusive = |flag: &str, v: u64, max: u64| {
        format!(
            "Sqlcmd: '{flag} {v}': value must be greater than or equal to 0 and less than or \
             equal to {max}."
        )
    };
    if let Some(t) = args.timeout.filter(|t| *t > 65534) {
        return Err(inclusive("-t", t, 65534));
    }
    if let Some(y) = args.var_width.filter(|y| *y > 8000) {
        return Err(inclusive("-y", y as u64, 8000));
    }
    if let Some(y) = args.fixed_width.filter(|y| *y > 8000) {
        return Err(inclusive("-Y", y as u64, 8000));
    }
    if let Some(w) = args.width.filter(|w| !(9..=65535).contains(w)) {
        return Err(format!(
            "Sqlcmd: '-w {w}': value must be greater than 8 and less than 65536."
        ));
    }
    if let Some(h) = args
        .headers
        .filter(|h| *h == 0 || *h < -1 || *h > 2147483647)
    {
        return Err(format!(
            "Sqlcmd: '-h {h}': header value must be either -1 or a value between 1 and 2147483647"
        ));
    }
    if args.format == Format::Jsonl {
        let sqlcmd_only = [
            ("-q", args.query_then_input.is_some()),
            ("-v", !args.vars.is_empty()),
            ("-b", args.exit_on_error),
            ("-e", args.echo),
            ("-x", args.no_substitution),
            ("-W", args.trim),
            ("-s", args.separator.is_some()),
            ("-h", args.headers.is_some()),
            ("-t", args.timeout.is_some()),
            ("-w", args.width.is_some()),
            ("-y", args.var_width.is_some()),
            ("-Y", args.fixed_width.is_some()),
        ];
        if let Some((flag, _)) = sqlcmd_only.iter().find(|(_, set)| *set) {
            return Err(format!(
                "latchkey: {flag} applies to --format table and csv; --format jsonl passes batches \
                 to the engine unchanged (shared/conformance/ENGINE_INTERFACE.md)"
            ));
        }
    }
    Ok(())
}

fn table_options(args: &Args) -> TableOptions {
    let mut o = TableOptions {
        trim: args.trim,
        width: args.width,
        var_width: args.var_width,
        fixed_width: args.fixed_width,
        ..TableOptions::default()
    };
    if let Some(s) = &args.separator {
        o.separator = s.clone();
    }
    if let Some(h) = args.headers {
        o.headers = h;
    }
    o
}

/// The scripting variables the command line defines (sqlcmd sets SQLCMD* from its flags).
fn script_vars(args: &Args) -> Result<Vars, String> {
    let mut builtins: Vec<(&str, String)> = Vec::new();
    if let Some(d) = &args.database {
        builtins.push(("SQLCMDDBNAME", d.clone()));
    }
    if let Some(s) = &args.separator {
        builtins.push(("SQLCMDCOLSEP", s.clone()));
    }
    if let Some(h) = args.headers {
        builtins.push(("SQLCMDHEADERS", h.to_string()));
    }
    if let Some(w) = args.width {
        builtins.push(("SQLCMDCOLWIDTH", w.to_string()));
    }
    if let Some(y) = args.var_width {
        builtins.push(("SQLCMDMAXVARTYPEWIDTH", y.to_string()));
    }
    if let Some(y) = args.fixed_width {
        builtins.push(("SQLCMDMAXFIXEDTYPEWIDTH", y.to_string()));
    }
    if let Some(t) = args.timeout {
        builtins.push(("SQLCMDSTATTIMEOUT", t.to_string()));
    }
    let mut vars = Vars::new(&builtins);
    for v in &args.vars {
        vars.set_from_command_line(v).map_err(|e| e.to_string())?;
    }
    Ok(vars)
}

/// `-d`: USE the database before anything runs; quiet on success, the error and status 1
/// otherwise (sqlcmd fails the login).
fn use_database(session: &mut Session, db: &str) -> Result<(), String> {
    let mut sink = CollectSink::new();
    session.execute_batch(&format!("USE [{}]", db.replace(']', "]]")), &mut sink);
    match sink.errors().first() {
        Some(e) => Err(e.to_string()),
        None => Ok(()),
    }
}

fn exit_status(code: u8) -> ExitCode {
    let _ = std::io::stdout().flush();
    ExitCode::from(code)
}

fn main() -> ExitCode {
    // sqlcmd's `-?`: clap cannot name a flag `?`, so it is looked for first (up to a
    // subcommand: `latchkey bcp -?` is bcp's own usage)
    if std::env::args()
        .skip(1)
        .take_while(|a| a != "bcp" && a != "serve" && a != "stress")
        .any(|a| a == "-?")
    {
        let _ = Args::command().print_help();
        return ExitCode::SUCCESS;
    }
    let args = Args::parse();
    if let Some(Command::Serve(serve_args)) = &args.command {
        ignore_file_size_signal();
        let config = EngineConfig {
            read_latency_ms: args.io_latency_ms.map(|ms| ms.min(10_000)),
            ..EngineConfig::default()
        };
        return serve::run(serve_args, &data_dir(args.data.clone()), config);
    }
    if let Some(Command::Stress(stress_args)) = &args.command {
        return stress::run(stress_args);
    }
    if let Some(Command::Bcp { args: bcp_args }) = &args.command {
        return bcp::run(bcp_args, &data_dir(args.data.clone()));
    }
    if let Err(msg) = check_args(&args) {
        eprintln!("{msg}");
        return ExitCode::from(1);
    }
    let vars = match script_vars(&args) {
        Ok(v) => v,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    ignore_file_size_signal();
    let streaming = args.output.is_none() && std::io::stdout().is_terminal();
    let out: Box<dyn Write> = match &args.output {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("latchkey: cannot create {}: {e}", p.display());
                return ExitCode::from(1);
            }
        },
        None => Box::new(std::io::stdout()),
    };
    let data = data_dir(args.data.clone());
    let session = match &args.server {
        // -S: batches go over TDS to a running server; -d is the login's database
        Some(server) => match remote::connect(&remote::RemoteOptions {
            server,
            user: args.user.as_deref(),
            password: args.password.as_deref(),
            database: args.database.as_deref(),
            encrypt: args.encrypt.unwrap_or(tds::client::Encrypt::LoginOnly),
            trust_server_certificate: args.trust_server_certificate,
        }) {
            Ok(r) => remote::Backend::Remote(Box::new(r)),
            Err(msg) => {
                eprintln!("{msg}");
                return ExitCode::from(1);
            }
        },
        None => {
            let config = EngineConfig {
                read_latency_ms: args.io_latency_ms.map(|ms| ms.min(10_000)),
                ..EngineConfig::default()
            };
            match Engine::open(&data, config) {
                Ok(e) => Session::new(e).into(),
                Err(e) => {
                    eprintln!(
                        "latchkey: cannot open data directory {}: {e}",
                        data.display()
                    );
                    return ExitCode::from(1);
                }
            }
        }
    };
    let sink: Box<dyn BatchSink> = match args.format {
        Format::Jsonl => Box::new(JsonlSink::new(out)),
        Format::Table => Box::new(TableSink::new(out, table_options(&args), streaming)),
        Format::Csv => Box::new(CsvSink::new(out)),
    };
    let mut runner = Runner { session, sink };
    if let Some(local) = runner.session.local_mut() {
        if args.format != Format::Jsonl {
            // the jsonl contract (ENGINE_INTERFACE.md) is jdbc_user's session; people get
            // their own
            local.set_login(&login::os_login());
        }
        if let Some(db) = &args.database {
            if let Err(msg) = use_database(local, db) {
                eprintln!("{msg}");
                return ExitCode::from(1);
            }
        }
    }
    let code = if args.format == Format::Jsonl {
        run_jsonl(&mut runner, &args)
    } else {
        run_sqlcmd(&mut runner, &args, vars, &data)
    };
    if let Some(local) = runner.session.local_mut() {
        // a clean end: the unused rest of each cached IDENTITY block is not skipped next time
        for (db, e) in local.engine().release_identity_caches() {
            eprintln!("latchkey: identity values of {db} not written back: {e}");
        }
    }
    drop(runner);
    exit_status(code)
}

/// jsonl: `-i`/`-Q` scripts split at GO lines, or standard input under the
/// ENGINE_INTERFACE.md contract; batch text goes to the engine unchanged.
fn run_jsonl(runner: &mut Runner, args: &Args) -> u8 {
    let mut ran = false;
    for f in &args.input {
        ran = true;
        let file = match std::fs::File::open(f) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("latchkey: cannot open {}: {e}", f.display());
                return 1;
            }
        };
        let text = match types::textdecode::read_text(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("latchkey: {}: {e}", f.display());
                return 1;
            }
        };
        let mut r = std::io::Cursor::new(text.as_bytes());
        match runner.run_reader(&mut r, false, true) {
            Ok(worst) if worst >= 20 => return 1,
            Ok(_) => {}
            Err(e) => {
                eprintln!("latchkey: error reading {}: {e}", f.display());
                return 1;
            }
        }
    }
    if let Some(q) = &args.query {
        ran = true;
        let mut r = std::io::Cursor::new(q.as_bytes());
        match runner.run_reader(&mut r, false, true) {
            Ok(worst) if worst >= 20 => return 1,
            Ok(_) => {}
            Err(e) => {
                eprintln!("latchkey: {e}");
                return 1;
            }
        }
    }
    if !ran {
        // UTF-8 (BOM optional) or UTF-16 with a BOM, decoded as it streams in
        let stdin = std::io::stdin();
        let mut lock =
            std::io::BufReader::new(types::textdecode::DecodingReader::new(stdin.lock(), None));
        // the ENGINE_INTERFACE contract discards an unterminated trailing batch
        if let Err(e) = runner.run_reader(&mut lock, true, false) {
            eprintln!("latchkey: standard input: {e}");
            return 1;
        }
    }
    0
}

/// table / csv: scripts go through the sqlcmd command processor.
fn run_sqlcmd(runner: &mut Runner, args: &Args, vars: Vars, data: &Path) -> u8 {
    let mut script = Script::new(vars);
    script.exit_on_error = args.exit_on_error;
    script.echo = args.echo;
    script.substitute = !args.no_substitution;
    script.timeout = args
        .timeout
        .filter(|t| *t > 0)
        .map(std::time::Duration::from_secs);
    let here = PathBuf::from(".");
    let mut ran = false;
    for f in &args.input {
        ran = true;
        if let Flow::Exit(code) = script.run_file(runner, f) {
            return code;
        }
    }
    if let Some(q) = args.query.as_ref().or(args.query_then_input.as_ref()) {
        ran = args.query.is_some();
        if let Flow::Exit(code) = script.feed_text(runner, q, &here) {
            return code;
        }
        if let Flow::Exit(code) = script.finish(runner) {
            return code;
        }
    }
    if ran {
        return 0;
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        let _ = std::io::stdout().flush();
        // -q's variables, :on error and session carry on into the shell
        return interactive(runner, &mut script, data);
    }
    // UTF-8 (BOM optional) or UTF-16 with a BOM, decoded as it streams in
    let mut lock =
        std::io::BufReader::new(types::textdecode::DecodingReader::new(stdin.lock(), None));
    match script.feed_reader(runner, &mut lock, &here) {
        Ok(Flow::Exit(code)) => code,
        // only the shell abandons input
        Ok(Flow::Abandon) => 1,
        Ok(Flow::Continue) => match script.finish(runner) {
            Flow::Exit(code) => code,
            Flow::Abandon => 1,
            Flow::Continue => 0,
        },
        Err(e) => {
            eprintln!("latchkey: standard input: {e}");
            1
        }
    }
}
