//! The interactive shell: a line editor feeding the sqlcmd command processor of scripts
//! (`script::Script`: `GO n`, `:setvar`, `$(var)`, `:r`, `EXIT`, ...), which never loses the
//! session (script errors abandon the input, `Flow::Abandon`, instead of exiting).
//!
//! - Ctrl-C while a batch runs sets the session's cancel flag (a SIGINT handler; the engine
//!   stops within 100 ms, see crates/engine README "Cancellation") and the shell returns to the
//!   prompt with the session, its #temp tables and its open transaction intact. Ctrl-C at the
//!   prompt clears the batch being typed.
//! - A paste is split into lines, each going through the command processor (bracketed paste hands the
//!   whole paste over as one string; a fast paste without it arrives as typeahead, which the
//!   editor keeps between lines with rustyline's `buffer-redux` feature).
//! - Output streams: the table sink flushes each message and result set when stdout is a
//!   terminal; a statement running longer than 2 s without output shows a progress line on
//!   standard error (when that is a terminal), with a bar when the statement publishes its
//!   total (`Session::progress_handle`: BULK INSERT, index builds, table rewrites).
//! - History holds whole batches (with their GO line), saved after each batch; Tab completes
//!   keywords and the names of the session's databases, objects and columns.

use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use common::{CancelToken, SqlError};
use engine::{EventSink, InfoMessage, OutColumn};
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};
use types::Value;

use crate::runner::{BatchOutcome, BatchSink, Runner};
use crate::script::{Flow, Script};

/// What SSMS prints for a cancelled query.
const CANCELED: &str = "Query was canceled by user.";

/// A statement running this long without output shows the progress line.
const PROGRESS_AFTER: Duration = Duration::from_secs(2);

/// [`PROGRESS_AFTER`], or `LATCHKEY_PROGRESS_AFTER_MS` when set (tests that need the line on a
/// fast machine; a user who wants it sooner or later).
fn progress_after() -> Duration {
    std::env::var("LATCHKEY_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(PROGRESS_AFTER, Duration::from_millis)
}

/// `:help` in the shell: these keys, then the sqlcmd commands (`script::HELP`).
const SHELL_KEYS: &str = "\
latchkey shell: type T-SQL; a line with GO runs the batch typed so far. The sqlcmd commands
below work as in -i scripts (:r names are taken from the current directory).
Ctrl-C           - while a batch runs: cancel it (session, #temp tables and an open
                   transaction are kept); at the prompt: clear the batch being typed
Ctrl-D           - at an empty prompt: leave the shell
Tab              - completes keywords, database, object and column names
Up / Down        - whole batches from the history (saved in the data directory)";

/// Runs the shell on `runner`'s session with `script`'s command processor (the same one `-i`
/// uses, with the variables `-v` and `-q` left); returns the exit status (`EXIT(query)`'s).
pub(crate) fn interactive(runner: &mut Runner, script: &mut Script, data: &Path) -> u8 {
    let config = Config::builder()
        .auto_add_history(false)
        .bracketed_paste(true)
        .completion_type(CompletionType::List)
        .max_history_size(1000)
        .map(|b| b.build());
    let mut rl = match config.and_then(Editor::<ShellHelper, DefaultHistory>::with_config) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("latchkey: cannot start the line editor: {e}");
            return 1;
        }
    };
    let mut helper = ShellHelper::default();
    helper.refresh(runner);
    rl.set_helper(Some(helper));
    let history = data.join(".latchkey_history");
    let _ = rl.load_history(&history);
    let cancel = runner.session.cancel_handle();
    if !install_sigint(cancel) {
        eprintln!("latchkey: Ctrl-C cannot be caught; it will end the shell");
    }
    // every event passes through the progress bookkeeping before the real sink
    let progress = Arc::new(Progress::default());
    let inner = std::mem::replace(&mut runner.sink, Box::new(NullSink));
    runner.sink = Box::new(ShellSink {
        inner,
        progress: progress.clone(),
    });
    script.interactive = true;
    script.help_intro = Some(SHELL_KEYS);
    script.batch_hook = Some(Box::new(move |r: &mut Runner, text: &str, count: u32| {
        run_with_progress(r, &progress, text, count)
    }));
    println!(
        "latchkey {} - type :help for help, GO to run a batch, EXIT to quit",
        env!("CARGO_PKG_VERSION")
    );
    let here = PathBuf::from(".");
    // what was typed since the last history entry: an entry is a whole batch with its GO
    // line, or a command typed at an empty batch (`:setvar`, `:r file`)
    let mut typed = String::new();
    let mut queued: VecDeque<String> = VecDeque::new();
    let status = loop {
        let line = match queued.pop_front() {
            Some(l) => l,
            None => match rl.readline(&format!("{}> ", script.batch_lines() + 1)) {
                Ok(input) => {
                    queued.extend(split_lines(&input));
                    continue;
                }
                Err(rustyline::error::ReadlineError::Interrupted) => {
                    script.reset_batch();
                    typed.clear();
                    continue;
                }
                Err(_) => break 0,
            },
        };
        if !(typed.is_empty() && line.trim().is_empty()) {
            typed.push_str(&line);
            typed.push('\n');
        }
        let ran = script.batches_run;
        let line_no = script.batch_lines() + 1;
        let flow = script.feed_line(runner, &line, &here, line_no);
        if script.batch_is_blank() && !typed.is_empty() {
            let _ = rl.add_history_entry(typed.trim_end());
            let _ = rl.save_history(&history);
            typed.clear();
        }
        if script.batches_run != ran {
            let _ = std::io::stdout().flush();
            if let Some(h) = rl.helper_mut() {
                h.refresh(runner);
            }
        }
        match flow {
            Flow::Continue => {}
            Flow::Exit(code) => break code,
            Flow::Abandon => {
                // the rest of a paste is dropped with the cancelled batch
                queued.clear();
                if script.cancelled_by_user {
                    // on a line of its own, after the terminal's echo of ^C
                    println!("\n{CANCELED}");
                }
                let _ = std::io::stdout().flush();
            }
        }
    };
    let _ = rl.save_history(&history);
    status
}

/// Splits what the editor returned (one line, or a whole bracketed paste) into lines.
fn split_lines(input: &str) -> Vec<String> {
    input
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect()
}

// ---- Ctrl-C ----

/// The token the SIGINT handler sets (the shell's one session).
static SIGINT_CANCEL: OnceLock<CancelToken> = OnceLock::new();

extern "C" fn on_sigint(_signal: libc::c_int) {
    // async-signal-safe: an atomic load (OnceLock::get) and an atomic store
    if let Some(t) = SIGINT_CANCEL.get() {
        t.cancel();
    }
}

/// Replaces SIGINT's default action (end the process) by setting `token`. At the prompt the
/// line editor reads Ctrl-C as a key (the terminal is in raw mode), so the handler only fires
/// while a batch runs.
fn install_sigint(token: CancelToken) -> bool {
    if SIGINT_CANCEL.set(token).is_err() {
        return false;
    }
    // SAFETY: a plain sigaction with a handler that only does atomic operations; the struct is
    // zero-initialised as POSIX allows and the mask emptied before use.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut()) == 0
    }
}

// ---- progress line ----

/// Shared between the sink (main thread) and the progress thread of the running batch.
#[derive(Default)]
struct Progress {
    /// Rows sent in the running batch.
    rows: AtomicU64,
    /// Events (rows included) so far: unchanged over a tick = no output meanwhile.
    events: AtomicU64,
    /// The progress line is on the screen.
    shown: AtomicBool,
    /// Serialises drawing and erasing the line.
    draw: Mutex<()>,
}

impl Progress {
    fn erase(&self) {
        if self.shown.load(Ordering::Relaxed) {
            let _g = self.draw.lock();
            if self.shown.swap(false, Ordering::Relaxed) {
                let mut e = std::io::stderr().lock();
                let _ = e.write_all(b"\r\x1b[2K");
                let _ = e.flush();
            }
        }
    }

    fn show(&self, elapsed: Duration, known: Option<(u64, u64)>) {
        let _g = self.draw.lock();
        let rows = self.rows.load(Ordering::Relaxed);
        let bar = known
            .map(|(done, total)| progress_bar(done, total))
            .unwrap_or_default();
        let mut e = std::io::stderr().lock();
        let _ = write!(
            e,
            "\r\x1b[2K-- running {:.1} s, {rows} row{} so far{bar} (Ctrl-C cancels)",
            elapsed.as_secs_f64(),
            if rows == 1 { "" } else { "s" }
        );
        let _ = e.flush();
        self.shown.store(true, Ordering::Relaxed);
    }
}

/// Cells of the progress bar.
const BAR_WIDTH: u64 = 30;

/// ` [#####.....]  42%` for a statement that published `(done, total)` (BULK INSERT bytes,
/// rows of an index build or rewrite). Drawn by hand: one line of ASCII needs no crate.
fn progress_bar(done: u64, total: u64) -> String {
    let total = total.max(1);
    let done = done.min(total);
    let filled = (done as u128 * BAR_WIDTH as u128 / total as u128) as usize;
    let pct = done as u128 * 100 / total as u128;
    format!(
        " [{}{}] {pct:>3}%",
        "#".repeat(filled),
        ".".repeat(BAR_WIDTH as usize - filled)
    )
}

/// Runs the batch; meanwhile a thread draws the progress line on standard error (a terminal
/// only) once the batch has run for [`PROGRESS_AFTER`] with no output in the last tick.
fn run_with_progress(
    runner: &mut Runner,
    progress: &Arc<Progress>,
    text: &str,
    count: u32,
) -> BatchOutcome {
    progress.rows.store(0, Ordering::Relaxed);
    if !std::io::stderr().is_terminal() {
        return runner.run_batch(text, count);
    }
    let done = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let after = progress_after();
    let meter = runner.session.progress_handle();
    let p = progress.clone();
    let d = done.clone();
    let ticker = std::thread::spawn(move || {
        let mut seen = u64::MAX;
        while !d.load(Ordering::Relaxed) {
            std::thread::park_timeout(Duration::from_millis(500));
            if d.load(Ordering::Relaxed) {
                break;
            }
            let events = p.events.load(Ordering::Relaxed);
            if start.elapsed() >= after && events == seen {
                p.show(start.elapsed(), meter.get());
            }
            seen = events;
        }
        p.erase();
    });
    let outcome = runner.run_batch(text, count);
    done.store(true, Ordering::Relaxed);
    ticker.thread().unpark();
    let _ = ticker.join();
    outcome
}

/// The shell's sink: counts rows and events for the progress line and erases it before any
/// output, then hands the event to the real sink.
struct ShellSink {
    inner: Box<dyn BatchSink>,
    progress: Arc<Progress>,
}

impl ShellSink {
    fn before_output(&self) {
        self.progress.events.fetch_add(1, Ordering::Relaxed);
        self.progress.erase();
    }
}

impl EventSink for ShellSink {
    fn result_start(&mut self, columns: &[OutColumn]) {
        self.before_output();
        self.inner.result_start(columns);
    }
    fn row(&mut self, row: &[Value]) {
        self.progress.rows.fetch_add(1, Ordering::Relaxed);
        self.before_output();
        self.inner.row(row);
    }
    fn result_end(&mut self, rows: u64, incomplete: bool, show_count: bool) {
        self.before_output();
        self.inner.result_end(rows, incomplete, show_count);
    }
    fn row_count(&mut self, count: u64) {
        self.before_output();
        self.inner.row_count(count);
    }
    fn output_row_count(&mut self, count: u64) {
        self.before_output();
        self.inner.output_row_count(count);
    }
    fn message(&mut self, msg: &InfoMessage) {
        self.before_output();
        self.inner.message(msg);
    }
    fn error(&mut self, err: &SqlError) {
        self.before_output();
        self.inner.error(err);
    }
}

impl BatchSink for ShellSink {
    fn batch_end(&mut self) {
        self.progress.erase();
        self.inner.batch_end();
    }
    fn note(&mut self, text: &str) {
        self.before_output();
        self.inner.note(text);
    }
    fn redirect(&mut self, out: Box<dyn Write>) {
        self.inner.redirect(out);
    }
}

/// Placeholder while the real sink moves into the [`ShellSink`].
struct NullSink;

impl EventSink for NullSink {
    fn result_start(&mut self, _: &[OutColumn]) {}
    fn row(&mut self, _: &[Value]) {}
    fn result_end(&mut self, _: u64, _: bool, _: bool) {}
    fn row_count(&mut self, _: u64) {}
    fn message(&mut self, _: &InfoMessage) {}
    fn error(&mut self, _: &SqlError) {}
}

impl BatchSink for NullSink {
    fn batch_end(&mut self) {}
    fn note(&mut self, _: &str) {}
    fn redirect(&mut self, _: Box<dyn Write>) {}
}

// ---- completion ----

/// Words the shell completes besides the reserved keywords and the catalog's names.
const EXTRA_WORDS: &[&str] = &[
    "BIGINT",
    "BIT",
    "CAST",
    "CONCAT",
    "COUNT",
    "COUNT_BIG",
    "DATE",
    "DATEADD",
    "DATEDIFF",
    "DATETIME",
    "DATETIME2",
    "DECIMAL",
    "FLOAT",
    "GETDATE",
    "GO",
    "INT",
    "ISNULL",
    "LEN",
    "MAX",
    "MIN",
    "MONEY",
    "NCHAR",
    "NVARCHAR",
    "OUTPUT",
    "PARTITION",
    "RAISERROR",
    "ROW_NUMBER",
    "SMALLINT",
    "STRING_AGG",
    "SUBSTRING",
    "SUM",
    "THROW",
    "TINYINT",
    "TRY",
    "CATCH",
    "VARBINARY",
    "VARCHAR",
    "WAITFOR",
    "XACT_ABORT",
    "NOCOUNT",
    "NOLOCK",
];

/// Tab completion over keywords and the session's names (refreshed after each batch from the
/// catalog caches: completing runs no SQL, so `@@ROWCOUNT` and `@@ERROR` are untouched).
#[derive(Default)]
struct ShellHelper {
    names: Vec<String>,
}

impl ShellHelper {
    fn refresh(&mut self, runner: &Runner) {
        let mut names = runner.session.completion_names();
        names.sort_by_key(|n| n.to_lowercase());
        names.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        self.names = names;
    }

    /// Candidates for the word ending at `pos`: its start and the completions.
    fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let head = line.get(..pos).unwrap_or(line);
        let start = head
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '#' | '@' | '$')))
            .map(|(i, c)| i + c.len_utf8())
            .unwrap_or(0);
        let word = &head[start..];
        if word.is_empty() {
            return (pos, Vec::new());
        }
        let lower = word.to_lowercase();
        let prefixed = |s: &str| s.to_lowercase().starts_with(&lower);
        // keywords in the case the user types them in
        let lower_case = word.chars().all(|c| !c.is_uppercase());
        let mut out: Vec<String> = engine::reserved_keywords()
            .iter()
            .chain(EXTRA_WORDS)
            .filter(|k| prefixed(k))
            .map(|k| {
                if lower_case {
                    k.to_lowercase()
                } else {
                    k.to_string()
                }
            })
            .collect();
        out.extend(self.names.iter().filter(|n| prefixed(n)).cloned());
        out.sort_by_key(|s| s.to_lowercase());
        out.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        (start, out)
    }
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, words) = self.candidates(line, pos);
        Ok((
            start,
            words
                .into_iter()
                .map(|w| Pair {
                    display: w.clone(),
                    replacement: w,
                })
                .collect(),
        ))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Highlighter for ShellHelper {}

impl Validator for ShellHelper {}

impl Helper for ShellHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_done_share() {
        assert_eq!(progress_bar(0, 200), format!(" [{}]   0%", ".".repeat(30)));
        assert_eq!(
            progress_bar(100, 200),
            format!(" [{}{}]  50%", "#".repeat(15), ".".repeat(15))
        );
        assert_eq!(
            progress_bar(900, 200),
            format!(" [{}] 100%", "#".repeat(30))
        );
        assert_eq!(
            progress_bar(u64::MAX, u64::MAX),
            format!(" [{}] 100%", "#".repeat(30))
        );
    }

    #[test]
    fn a_paste_splits_into_lines() {
        assert_eq!(
            split_lines("SELECT 1\r\nGO\n  GO 2\n"),
            vec!["SELECT 1", "GO", "  GO 2", ""]
        );
    }

    #[test]
    fn completion_of_keywords_and_names() {
        let h = ShellHelper {
            names: vec!["Orders".into(), "OrderLines".into(), "#scratch".into()],
        };
        let (start, c) = h.candidates("sel", 3);
        assert_eq!((start, c), (0, vec!["select".to_string()]));
        let (start, c) = h.candidates("SELECT * FROM ord", 17);
        assert_eq!(start, 14);
        assert_eq!(c, vec!["order", "OrderLines", "Orders"]);
        let (start, c) = h.candidates("SELECT * FROM #sc", 17);
        assert_eq!((start, c), (14, vec!["#scratch".to_string()]));
        assert!(h.candidates("SELECT ", 7).1.is_empty());
    }
}
