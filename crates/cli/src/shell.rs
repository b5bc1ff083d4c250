//! The interactive shell: a line editor with history; batches run when their `GO` line is entered.

use std::process::ExitCode;

use crate::runner::{go_line, Runner};

pub(crate) fn interactive(runner: &mut Runner, data: &std::path::Path) -> ExitCode {
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
