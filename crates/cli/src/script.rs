//! The sqlcmd command processor for scripts (`-i`, `-Q`, `-q`, standard input) and the
//! interactive shell (shell.rs) in the table and csv formats: `GO [n]`, `:r`, `:setvar`, `$(var)`, `:on error`, `EXIT`/`QUIT`, `:out`,
//! `:help`, `:listvar`, `:list`, `[:]reset`. jsonl does not use it (ENGINE_INTERFACE.md: the
//! batch text reaches the engine unchanged).
//!
//! sqlcmd's rules: a command is recognised only at the start of a line (leading blanks
//! allowed), case-insensitively, one per line; `$(name)` is replaced everywhere in a line, in
//! commands and T-SQL alike, before the line is looked at. Text outside commands accumulates in
//! the batch, which runs at `GO`; an included file (`:r`) adds its lines to the current batch,
//! so a batch may begin in one file and end in another.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crate::runner::{go_line, BatchOutcome, Runner};
use crate::vars::Vars;

/// `:r` inside `:r` deeper than this stops the script (a file that includes itself).
const MAX_INCLUDE_DEPTH: usize = 32;

/// What the caller does after feeding input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// Stop everything and exit with this status (EXIT, QUIT, `-b`, a bad file, …).
    Exit(u8),
    /// Interactive only: the input being fed is dropped with the batch being typed (a
    /// cancelled batch, an undefined variable, a `:r` file that cannot be read) and the shell
    /// returns to its prompt with the session kept, where a script would stop with status 1.
    Abandon,
}

/// How the shell runs a batch instead of [`Runner::run_batch`] directly (it adds its
/// progress line around it).
pub(crate) type BatchHook = Box<dyn FnMut(&mut Runner, &str, u32) -> BatchOutcome>;

pub(crate) struct Script {
    pub(crate) vars: Vars,
    /// `-b` or `:on error exit`: an error of severity > 10 ends the run with status 1.
    pub(crate) exit_on_error: bool,
    /// `-e`: each batch is written to the output before it runs.
    pub(crate) echo: bool,
    /// `-x` turns `$(var)` substitution off.
    pub(crate) substitute: bool,
    /// `-t`: a batch running longer is cancelled through the session's cancel flag.
    pub(crate) timeout: Option<Duration>,
    /// The interactive shell: fatal script errors abandon the input instead of exiting, and a
    /// severity ≥ 20 error does not end the shell (its session is kept).
    pub(crate) interactive: bool,
    /// Printed by `:help` before the command list (the shell's keys).
    pub(crate) help_intro: Option<&'static str>,
    /// Runs each batch when set (the shell's progress line).
    pub(crate) batch_hook: Option<BatchHook>,
    /// Batches run so far (the shell learns from it that a line ran one).
    pub(crate) batches_run: u64,
    /// The last batch was cancelled from outside (Ctrl-C), not by the `-t` watchdog.
    pub(crate) cancelled_by_user: bool,
    batch: String,
    depth: usize,
}

/// The process exit status for a value (sqlcmd passes the low byte on, as a Unix exit does).
fn status_byte(v: i64) -> u8 {
    (v & 0xFF) as u8
}

/// `:help`'s text (also for the interactive shell).
pub(crate) const HELP: &str = "\
:!! [<command>]  - not supported by latchkey (no operating-system commands)
:Connect server  - not supported by latchkey (one local server)
:Ed              - not supported by latchkey
:Error <dest>    - not supported by latchkey (errors go with the output)
:Exit [(<query>)] - ends the script; EXIT() runs the batch first, EXIT(query) also runs the
                   query and exits with the first column of its first row as status
:Help            - shows this list
:List            - prints the batch being typed
:Listvar         - lists the scripting variables
:On Error [exit|ignore] - on an error of severity > 10: stop with status 1, or go on
:Out stdout|stderr|<file> - sends the output there
:Quit            - ends the script at once
:r <file>        - reads a script file (a relative name is taken from the including file)
:Reset           - discards the batch being typed
:Setvar <name> [\"value\"] - defines a scripting variable; without a value removes it
GO [count]       - runs the batch (count times)";

impl Script {
    pub(crate) fn new(vars: Vars) -> Script {
        Script {
            vars,
            exit_on_error: false,
            echo: false,
            substitute: true,
            timeout: None,
            interactive: false,
            help_intro: None,
            batch_hook: None,
            batches_run: 0,
            cancelled_by_user: false,
            batch: String::new(),
            depth: 0,
        }
    }

    /// Lines in the batch being typed (0 while it is blank): the shell's prompt number - 1.
    pub(crate) fn batch_lines(&self) -> usize {
        if self.batch.trim().is_empty() {
            0
        } else {
            self.batch.lines().count()
        }
    }

    /// No batch text waits for its `GO` (blank lines aside).
    pub(crate) fn batch_is_blank(&self) -> bool {
        self.batch.trim().is_empty()
    }

    /// Discards the batch being typed (`:reset`, Ctrl-C at the shell's prompt).
    pub(crate) fn reset_batch(&mut self) {
        self.batch.clear();
    }

    /// An error that stops a script with status 1; in the shell it abandons the input and the
    /// batch being typed instead (the session is kept).
    fn fatal(&mut self) -> Flow {
        if self.interactive {
            self.batch.clear();
            self.cancelled_by_user = false;
            Flow::Abandon
        } else {
            Flow::Exit(1)
        }
    }

    /// A sqlcmd-level error: printed on standard error; under `-b`/`:on error exit` it ends
    /// the run with status 1.
    fn command_error(&self, text: &str) -> Flow {
        eprintln!("{text}");
        if self.exit_on_error {
            Flow::Exit(1)
        } else {
            Flow::Continue
        }
    }

    fn syntax_error(&self, line_no: usize, command: &str) -> Flow {
        self.command_error(&format!(
            "Sqlcmd: Error: Syntax error at line {line_no} near command '{command}'."
        ))
    }

    /// What a batch's outcome means for the run (sqlcmd: state 127 quits with the message
    /// number; severity ≥ 20 ends the connection; `-b` stops on severity > 10).
    fn after_batch(&self, o: &BatchOutcome) -> Flow {
        if let Some(n) = o.exit_request {
            return Flow::Exit(status_byte(n as i64));
        }
        if (o.max_severity >= 20 && !self.interactive)
            || (self.exit_on_error && o.max_severity > 10)
        {
            return Flow::Exit(1);
        }
        Flow::Continue
    }

    fn execute(&mut self, runner: &mut Runner, text: &str, repeat: u32) -> BatchOutcome {
        self.batches_run += 1;
        match &mut self.batch_hook {
            Some(hook) => hook(runner, text, repeat),
            None => runner.run_batch(text, repeat),
        }
    }

    /// What the run of a batch means for the input: in the shell a cancelled batch drops the
    /// rest of what is being fed (a paste, a `:r` file), as an attention ends a request.
    fn after_run(&mut self, runner: &Runner, o: &BatchOutcome, timed_out: bool) -> Flow {
        let cancelled = runner.session.cancel_handle().is_cancelled();
        self.cancelled_by_user = cancelled && !timed_out;
        let flow = self.after_batch(o);
        if flow == Flow::Continue && cancelled && self.interactive {
            self.batch.clear();
            return Flow::Abandon;
        }
        flow
    }

    fn run_batch(&mut self, runner: &mut Runner, repeat: u32) -> (Flow, BatchOutcome) {
        let text = std::mem::take(&mut self.batch);
        if self.echo && !text.trim().is_empty() {
            runner.sink.note(text.trim_end());
        }
        let Some(limit) = self.timeout else {
            let outcome = self.execute(runner, &text, repeat);
            return (self.after_run(runner, &outcome, false), outcome);
        };
        // -t: a watchdog sets the cancel flag when the limit passes; the batch ends as an
        // attention does (statement rolled back, session kept) and sqlcmd reports the timeout
        let token = runner.session.cancel_handle();
        let (done, wait) = mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            let expired = matches!(
                wait.recv_timeout(limit),
                Err(mpsc::RecvTimeoutError::Timeout)
            );
            if expired {
                token.cancel();
            }
            expired
        });
        let mut outcome = self.execute(runner, &text, repeat);
        drop(done);
        let timed_out = watchdog.join().unwrap_or(false);
        if timed_out {
            runner.sink.note("Sqlcmd: Error: Query timeout expired.");
            // a timeout is an error for -b, as in sqlcmd
            outcome.max_severity = outcome.max_severity.max(11);
        }
        (self.after_run(runner, &outcome, timed_out), outcome)
    }

    /// Runs what is left in the batch at the end of a script (sqlcmd runs a trailing batch
    /// that has no `GO`).
    pub(crate) fn finish(&mut self, runner: &mut Runner) -> Flow {
        if self.batch.trim().is_empty() {
            self.batch.clear();
            return Flow::Continue;
        }
        self.run_batch(runner, 1).0
    }

    /// Feeds a whole text (a file's or `-Q`'s) line by line; `base` resolves `:r` names.
    pub(crate) fn feed_text(&mut self, runner: &mut Runner, text: &str, base: &Path) -> Flow {
        for (i, line) in text.lines().enumerate() {
            let flow = self.feed_line(runner, line, base, i + 1);
            if flow != Flow::Continue {
                return flow;
            }
        }
        Flow::Continue
    }

    /// Feeds a stream (standard input) as it arrives.
    pub(crate) fn feed_reader(
        &mut self,
        runner: &mut Runner,
        reader: &mut dyn BufRead,
        base: &Path,
    ) -> std::io::Result<Flow> {
        let mut line = String::new();
        let mut n = 0;
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(Flow::Continue);
            }
            n += 1;
            let l = line.strip_suffix('\n').unwrap_or(&line);
            let l = l.strip_suffix('\r').unwrap_or(l);
            let flow = self.feed_line(runner, l, base, n);
            if flow != Flow::Continue {
                return Ok(flow);
            }
        }
    }

    /// Runs a script file to its end, trailing batch included (`-i`). A file that cannot be
    /// read or decoded stops the run with status 1 before any of it runs.
    pub(crate) fn run_file(&mut self, runner: &mut Runner, path: &Path) -> Flow {
        let Some(text) = read_script(path) else {
            return Flow::Exit(1);
        };
        let flow = self.feed_text(runner, &text, &base_dir(path));
        if flow != Flow::Continue {
            return flow;
        }
        self.finish(runner)
    }

    /// One input line (without its line end).
    pub(crate) fn feed_line(
        &mut self,
        runner: &mut Runner,
        raw: &str,
        base: &Path,
        line_no: usize,
    ) -> Flow {
        let substituted;
        let line = if self.substitute && raw.contains("$(") {
            match self.vars.substitute(raw) {
                Ok(s) => {
                    substituted = s;
                    substituted.as_str()
                }
                Err(name) => {
                    // sqlcmd stops the script at an undefined variable
                    eprintln!("'{name}' scripting variable not defined.");
                    return self.fatal();
                }
            }
        } else {
            raw
        };
        if let Some(count) = go_line(line, false) {
            return self.run_batch(runner, count).0;
        }
        let t = line.trim_start();
        let (word, args) = split_command(t);
        let lower = word.to_ascii_lowercase();
        match lower.as_str() {
            ":r" => self.include(runner, args, base, line_no),
            ":setvar" => match self.vars.setvar(args) {
                Ok(()) => Flow::Continue,
                Err(e) => self.command_error(&e.to_string()),
            },
            ":listvar" => {
                for l in self.vars.listing() {
                    runner.sink.note(&l);
                }
                Flow::Continue
            }
            ":on" => self.on_error(args, line_no),
            ":help" => {
                for l in self.help_intro.into_iter().flat_map(str::lines) {
                    runner.sink.note(l);
                }
                for l in HELP.lines() {
                    runner.sink.note(l);
                }
                Flow::Continue
            }
            ":list" => {
                let text = self.batch.trim_end().to_string();
                if !text.is_empty() {
                    runner.sink.note(&text);
                }
                Flow::Continue
            }
            ":reset" | "reset" if args.trim().is_empty() => {
                self.batch.clear();
                Flow::Continue
            }
            ":quit" | "quit" => {
                if args.trim().is_empty() {
                    Flow::Exit(0)
                } else {
                    self.syntax_error(line_no, "QUIT")
                }
            }
            ":exit" | "exit" => self.exit(runner, args, line_no),
            ":out" => self.out(runner, args),
            // sqlcmd also takes `ED` without the colon; latchkey wants the colon so that a T-SQL
            // line that is just the identifier `ed` stays T-SQL
            ":connect" | ":serverlist" | ":xml" | ":perftrace" | ":ed" | ":error" => {
                self.command_error(&format!(
                    "Sqlcmd: Error: The command {} is not supported by latchkey.",
                    word.to_uppercase()
                ))
            }
            _ if t.starts_with("!!") || t.starts_with(":!!") => self.command_error(
                "Sqlcmd: Error: The command !! is not supported by latchkey (no operating-system commands).",
            ),
            // `::fn_…` is old T-SQL syntax for a system function, not a command
            _ if word.starts_with(':') && !word.starts_with("::") && word.len() > 1 => {
                self.syntax_error(line_no, &word.to_uppercase())
            }
            _ => {
                self.batch.push_str(line);
                self.batch.push('\n');
                Flow::Continue
            }
        }
    }

    fn on_error(&mut self, args: &str, line_no: usize) -> Flow {
        let mut words = args.split_whitespace();
        let (Some(e), Some(action), None) = (words.next(), words.next(), words.next()) else {
            return self.syntax_error(line_no, "ON ERROR");
        };
        if !e.eq_ignore_ascii_case("error") {
            return self.syntax_error(line_no, "ON ERROR");
        }
        if action.eq_ignore_ascii_case("exit") {
            self.exit_on_error = true;
        } else if action.eq_ignore_ascii_case("ignore") {
            self.exit_on_error = false;
        } else {
            return self.syntax_error(line_no, "ON ERROR");
        }
        Flow::Continue
    }

    /// `EXIT`: quit; `EXIT()`: run the batch, quit; `EXIT(query)`: run the batch and the query
    /// as one batch and quit with the first column of the first row as status (sqlcmd's
    /// values when there is none: -100 an error came first, -101 no rows, -102 not a number).
    fn exit(&mut self, runner: &mut Runner, args: &str, line_no: usize) -> Flow {
        let a = args.trim();
        if a.is_empty() {
            return Flow::Exit(0);
        }
        let Some(query) = a.strip_prefix('(').and_then(|q| q.strip_suffix(')')) else {
            return self.syntax_error(line_no, "EXIT");
        };
        let query = query.trim();
        if query.is_empty() {
            if self.batch.trim().is_empty() {
                return Flow::Exit(0);
            }
            return match self.run_batch(runner, 1).0 {
                Flow::Continue => Flow::Exit(0),
                other => other,
            };
        }
        self.batch.push_str(query);
        self.batch.push('\n');
        let (flow, outcome) = self.run_batch(runner, 1);
        if flow != Flow::Continue {
            return flow;
        }
        let code = match &outcome.first_value {
            Some(text) => match text.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => v.trunc() as i64,
                _ => -102,
            },
            None if outcome.max_severity > 10 => -100,
            None => -101,
        };
        Flow::Exit(status_byte(code))
    }

    fn out(&mut self, runner: &mut Runner, args: &str) -> Flow {
        let target = unquote(args.trim());
        if target.is_empty() {
            return self.command_error(
                "Sqlcmd: Error: Syntax error: :OUT needs stdout, stderr or a file name.",
            );
        }
        let out: Box<dyn Write> = if target.eq_ignore_ascii_case("stdout") {
            Box::new(std::io::stdout())
        } else if target.eq_ignore_ascii_case("stderr") {
            Box::new(std::io::stderr())
        } else {
            match std::fs::File::create(target) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    return self.command_error(&format!(
                        "Sqlcmd: Error: Error occurred while opening or operating on file {target} (Reason: {e})."
                    ))
                }
            }
        };
        runner.sink.redirect(out);
        Flow::Continue
    }

    /// `:r file`: its lines join the current batch (no trailing batch is run at its end).
    fn include(&mut self, runner: &mut Runner, args: &str, base: &Path, line_no: usize) -> Flow {
        let name = unquote(args.trim());
        if name.is_empty() {
            return self.syntax_error(line_no, ":R");
        }
        let path = base.join(name);
        if self.depth >= MAX_INCLUDE_DEPTH {
            eprintln!(
                "latchkey: {}: :r nested more than {MAX_INCLUDE_DEPTH} files deep",
                path.display()
            );
            return self.fatal();
        }
        let Some(text) = read_script(&path) else {
            return self.fatal();
        };
        self.depth += 1;
        let flow = self.feed_text(runner, &text, &base_dir(&path));
        self.depth -= 1;
        flow
    }
}

/// The first word of a command line (`EXIT(` counts as `EXIT`) and the rest.
fn split_command(t: &str) -> (&str, &str) {
    let end = t
        .find(|c: char| c.is_whitespace() || c == '(')
        .unwrap_or(t.len());
    (&t[..end], &t[end..])
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s)
}

/// The directory `:r` names in `path` are relative to.
pub(crate) fn base_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Reads and decodes a whole script (UTF-8 with or without BOM, UTF-16 with BOM); on failure
/// says why on standard error.
fn read_script(path: &Path) -> Option<String> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("latchkey: cannot open {}: {e}", path.display());
            return None;
        }
    };
    // decoded completely before any of it runs: a bad byte on line 500 must not leave the
    // first 499 lines executed
    match types::textdecode::read_text(file) {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("latchkey: {}: {e}", path.display());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{TableOptions, TableSink};
    use engine::{Engine, EngineConfig, Session};

    fn runner(dir: &Path) -> Runner {
        let engine = Engine::open(dir, EngineConfig::default()).expect("open engine");
        Runner {
            session: Session::new(engine).into(),
            sink: Box::new(TableSink::new(
                Box::new(std::io::sink()),
                TableOptions::default(),
                false,
            )),
        }
    }

    /// What ends a script only abandons the input in the shell, and takes the batch being
    /// typed with it.
    #[test]
    fn the_shell_abandons_where_a_script_exits() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut r = runner(dir.path());
        let here = Path::new(".");
        for interactive in [false, true] {
            let mut s = Script::new(Vars::new(&[]));
            s.interactive = interactive;
            let expected = if interactive {
                Flow::Abandon
            } else {
                Flow::Exit(1)
            };
            assert_eq!(s.feed_line(&mut r, "SELECT 1", here, 1), Flow::Continue);
            assert_eq!(s.batch_lines(), 1);
            assert_eq!(s.feed_line(&mut r, "SELECT '$(nope)'", here, 2), expected);
            assert_eq!(
                s.feed_line(&mut r, ":r /nonexistent/latchkey.sql", here, 1),
                expected
            );
            if interactive {
                assert!(s.batch_is_blank(), "the typed batch goes with the input");
            }
            assert_eq!(s.feed_line(&mut r, "GO 2", here, 1), Flow::Continue);
            assert_eq!(s.batches_run, 1);
        }
    }

    #[test]
    fn command_words() {
        assert_eq!(split_command("EXIT(select 1)"), ("EXIT", "(select 1)"));
        assert_eq!(split_command(":r  a.sql"), (":r", "  a.sql"));
        assert_eq!(split_command("select 1"), ("select", " 1"));
    }
}
