//! `SET SHOWPLAN_TEXT ON` / `SET SHOWPLAN_ALL ON`: while on, batches are compiled but not run.
//!
//! For each query / DML statement the client gets two result sets of one `StmtText` column
//! (nvarchar): the statement text, then one row per plan operator line as rendered by
//! `optimizer::explain` (`  |--Clustered Index Seek(...)`). Other statements give only the
//! statement-text result set; SET statements still execute (so `SET SHOWPLAN_TEXT OFF` works).
//! SHOWPLAN_ALL reuses the same text in its single `StmtText` column (its other columns are not
//! produced).

use crate::events::{EventSink, OutColumn};
use crate::session::Session;
use common::{SqlError, SqlResult};
use parser::ast::{self, Statement, StatementKind};
use types::{DataType, Value};

/// Option names (upper case, as the parser gives them) that switch showplan mode.
const SHOWPLAN_OPTIONS: [&str; 3] = ["SHOWPLAN_TEXT", "SHOWPLAN_ALL", "SHOWPLAN_XML"];

fn is_showplan_set(s: &Statement) -> bool {
    matches!(&s.kind, StatementKind::SetOption(ast::SetOption::OnOff { options, .. })
        if options.iter().any(|o| SHOWPLAN_OPTIONS.contains(&o.as_str())))
}

/// Error 1067 when a SET SHOWPLAN statement shares its batch with other statements.
pub(crate) fn check_showplan_alone(stmts: &[Statement]) -> SqlResult<()> {
    if stmts.len() > 1 {
        if let Some(s) = stmts.iter().find(|s| is_showplan_set(s)) {
            return Err(SqlError::custom(
                1067,
                15,
                1,
                "The SET SHOWPLAN statements must be the only statements in the batch.",
            )
            .at_line(s.line));
        }
    }
    Ok(())
}

/// Emits one result set with a single nvarchar `StmtText` column.
fn stmt_text_result(lines: &[String], show_count: bool, sink: &mut dyn EventSink) {
    sink.result_start(&[OutColumn {
        name: "StmtText".into(),
        data_type: DataType::NVarChar(None),
    }]);
    for l in lines {
        sink.row(&[Value::NVarChar(l.clone())]);
    }
    sink.result_end(lines.len() as u64, false, show_count);
}

impl Session {
    /// Whether SHOWPLAN_TEXT or SHOWPLAN_ALL is on.
    pub(crate) fn showplan_on(&self) -> bool {
        ["SHOWPLAN_TEXT", "SHOWPLAN_ALL"]
            .iter()
            .any(|o| self.options.flags.get(*o).copied().unwrap_or(false))
    }

    /// Whether SET PARSEONLY is ON: batches are parsed, not run (noops.rs).
    pub(crate) fn parseonly_on(&self) -> bool {
        self.options
            .flags
            .get("PARSEONLY")
            .copied()
            .unwrap_or(false)
    }

    /// Runs a batch in showplan mode: plans are reported, nothing but SET executes.
    pub(crate) fn showplan_batch(
        &mut self,
        text: &str,
        stmts: &[Statement],
        sink: &mut dyn EventSink,
    ) {
        for s in stmts {
            if let Err(e) = self.showplan_stmt(text, s, sink) {
                let e = e.at_line(s.line);
                self.error = e.number;
                sink.error(&e);
            }
        }
    }

    fn showplan_stmt(
        &mut self,
        text: &str,
        s: &Statement,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let show = !self.options.nocount;
        match &s.kind {
            StatementKind::SetOption(_) => {
                self.exec_stmt(s, sink)?;
            }
            StatementKind::Block(b) => {
                for inner in b {
                    self.showplan_stmt(text, inner, sink)?;
                }
            }
            kind => {
                let stmt_text = text
                    .get(s.span.start as usize..s.span.end as usize)
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                let is_query = matches!(
                    kind,
                    StatementKind::Select(_)
                        | StatementKind::Insert(_)
                        | StatementKind::Update(_)
                        | StatementKind::Delete(_)
                        | StatementKind::Merge(_)
                );
                // Plan first so that a bind error comes before any output, as in SQL Server.
                let plan = if is_query {
                    let (physical, _) = self.autocommit(|me| me.plan_statement(s))?;
                    Some(optimizer::explain(&physical))
                } else {
                    None
                };
                stmt_text_result(&[stmt_text], show, sink);
                if let Some(p) = plan {
                    let lines: Vec<String> = p.lines().map(str::to_string).collect();
                    stmt_text_result(&lines, show, sink);
                }
            }
        }
        Ok(())
    }
}
