//! No silent no-ops (issue 12): statements, SET options and database options that latchkey
//! parses but does not act on raise SQL Server's own error or Msg 40517 naming the feature,
//! instead of succeeding while doing nothing. The inventory, with the reason for each option
//! that stays accepted, is `docs/silent-noops.md`; `tests/sql/noops/inventory.sql` runs every
//! entry so none comes back.

use common::{SqlError, SqlResult};
use parser::ast::{self, Statement, StatementKind};

/// `SET <option> ON|OFF` options whose effect latchkey implements (session.rs options,
/// showplan.rs, PARSEONLY below).
const IMPLEMENTED: &[&str] = &[
    "NOCOUNT",
    "ANSI_NULLS",
    "ANSI_PADDING",
    "ANSI_WARNINGS",
    "ANSI_NULL_DFLT_ON",
    "ANSI_NULL_DFLT_OFF",
    "ANSI_DEFAULTS",
    "CONCAT_NULL_YIELDS_NULL",
    "QUOTED_IDENTIFIER",
    "ARITHABORT",
    "XACT_ABORT",
    "IMPLICIT_TRANSACTIONS",
    // recorded and reported; there are no cursors to close (docs/silent-noops.md)
    "CURSOR_CLOSE_ON_COMMIT",
    "STATISTICS IO",
    "STATISTICS TIME",
    "SHOWPLAN_TEXT",
    "SHOWPLAN_ALL",
    "PARSEONLY",
    // showplan.rs: estimated XML plans, actual plans (XML and text rows)
    "SHOWPLAN_XML",
    "STATISTICS XML",
    "STATISTICS PROFILE",
    // showplan_memo.rs: the optimizer's memo (latchkey's own option)
    "SHOWPLAN_MEMO",
];

/// Options whose ON has no observable effect in latchkey, as in SQL Server under the same
/// conditions (docs/silent-noops.md gives the reason for each): accepted either way.
const HARMLESS: &[&str] = &[
    // Only chooses whether a warning accompanies the NULL of an arithmetic error when both
    // ARITHABORT and ANSI_WARNINGS are OFF; latchkey raises the error (as with ARITHABORT ON).
    "ARITHIGNORE",
    // Browse-mode metadata for OLE DB / ODBC drivers' FOR BROWSE cursors, which latchkey's
    // clients never request; drivers send it on connect.
    "NO_BROWSETABLE",
    // Promotes remote procedure calls to distributed transactions; latchkey has no linked
    // servers, so there is never a remote call to promote.
    "REMOTE_PROC_TRANSACTIONS",
];

/// Options SQL Server has whose ON latchkey does not implement: OFF (their default) is
/// accepted, ON raises 40517 naming the feature.
const NOT_IMPLEMENTED: &[&str] = &[
    "FMTONLY",
    "NOEXEC",
    "FORCEPLAN",
    "NUMERIC_ROUNDABORT",
    "OFFSETS",
];

/// Checks one option of `SET a, b ON|OFF` before it is recorded (interp.rs `set_option`).
pub(crate) fn check_set_on_off(option: &str, on: bool) -> SqlResult<()> {
    if IMPLEMENTED.contains(&option) || HARMLESS.contains(&option) {
        return Ok(());
    }
    if NOT_IMPLEMENTED.contains(&option) {
        return if on {
            Err(SqlError::unsupported(format!("SET {option} ON")))
        } else {
            Ok(())
        };
    }
    Err(SqlError::new(195, &[&option, &"SET option"]))
}

/// `SET <option> value` options (other than ROWCOUNT, DATEFIRST, DATEFORMAT, LANGUAGE,
/// LOCK_TIMEOUT, DEADLOCK_PRIORITY, TEXTSIZE, which the session keeps): `word` is the value as text.
pub(crate) fn check_set_value(option: &str, word: &str) -> SqlResult<()> {
    match option {
        // 0 is "no limit", the default; a real limit would refuse expensive plans.
        "QUERY_GOVERNOR_COST_LIMIT" if word.trim() == "0" => Ok(()),
        "QUERY_GOVERNOR_COST_LIMIT" => Err(SqlError::unsupported("SET QUERY_GOVERNOR_COST_LIMIT")),
        "CONTEXT_INFO" => Err(SqlError::unsupported("SET CONTEXT_INFO")),
        _ => Ok(()),
    }
}

/// The PARSEONLY state after parsing `stmts` from `current`, when the batch sets it. PARSEONLY
/// is a parse-time option (SQL Server applies it as the text is parsed, regardless of control
/// flow): a batch that leaves it ON is parsed and not run, one that turns it OFF runs whole.
pub(crate) fn parseonly_after(stmts: &[Statement]) -> Option<bool> {
    fn walk(stmts: &[Statement], state: &mut Option<bool>) {
        for s in stmts {
            match &s.kind {
                StatementKind::SetOption(ast::SetOption::OnOff { options, on })
                    if options.iter().any(|o| o == "PARSEONLY") =>
                {
                    *state = Some(*on)
                }
                StatementKind::Block(b) => walk(b, state),
                StatementKind::If {
                    then_stmt,
                    else_stmt,
                    ..
                } => {
                    walk(std::slice::from_ref(then_stmt), state);
                    if let Some(e) = else_stmt {
                        walk(std::slice::from_ref(e), state);
                    }
                }
                StatementKind::While { body, .. } => walk(std::slice::from_ref(body), state),
                _ => {}
            }
        }
    }
    let mut state = None;
    walk(stmts, &mut state);
    state
}

fn option_value_text(o: &ast::OptionSetting) -> String {
    match &o.value {
        None => String::new(),
        Some(ast::OptionValue::On) => "ON".into(),
        Some(ast::OptionValue::Off) => "OFF".into(),
        Some(ast::OptionValue::Number(n)) => n.clone(),
        Some(ast::OptionValue::String(s)) => s.clone(),
        Some(ast::OptionValue::Word(w)) => w.to_ascii_uppercase(),
    }
}

/// `ALTER DATABASE ... SET option` for the options repair.rs does not act on: accepted only
/// when it asks for what latchkey always does, otherwise 40517 naming the option.
/// `compatibility_level`: the database's (sys.databases).
pub(crate) fn check_database_set_option(
    o: &ast::OptionSetting,
    compatibility_level: i64,
) -> SqlResult<()> {
    let v = option_value_text(o);
    let already = match o.name.as_str() {
        // user databases are FULL recovery (sys.databases.recovery_model_desc)
        "RECOVERY" => v == "FULL",
        // every page carries a checksum verified on read (storage README)
        "PAGE_VERIFY" => v == "CHECKSUM",
        "COMPATIBILITY_LEVEL" => v.parse::<i64>().ok() == Some(compatibility_level),
        "READ_WRITE" | "MULTI_USER" => true,
        // features latchkey does not have: asking for them OFF is what it already does
        "QUERY_STORE"
        | "AUTO_CLOSE"
        | "AUTO_SHRINK"
        | "AUTO_UPDATE_STATISTICS_ASYNC"
        | "TRUSTWORTHY"
        | "DB_CHAINING"
        | "ACCELERATED_DATABASE_RECOVERY"
        | "CHANGE_TRACKING"
        | "ENCRYPTION" => v == "OFF",
        "DELAYED_DURABILITY" => v == "DISABLED",
        _ => false,
    };
    if already {
        return Ok(());
    }
    let shown = if v.is_empty() {
        o.name.clone()
    } else {
        format!("{} {v}", o.name)
    };
    Err(SqlError::unsupported(format!("ALTER DATABASE SET {shown}")))
}

/// Index options (`CREATE INDEX ... WITH (...)`, PRIMARY KEY / UNIQUE `WITH (...)`, `ALTER
/// INDEX ... REBUILD WITH (...)` / `SET (...)`): accepted when latchkey does what they ask
/// (IGNORE_DUP_KEY and OPTIMIZE_FOR_SEQUENTIAL_KEY are kept with the index — by ALTER INDEX
/// too, `with_index_options` — the latter turning
/// on its last-page insert flow control, storage btree/README S4; MAXDOP is a
/// ceiling a serial build respects; SORT_IN_TEMPDB only moves where the build's sort runs), or
/// when they ask for the default; otherwise 40517 naming the option, or Msg 155 for a name SQL
/// Server does not know. `statement`: `CREATE INDEX` / `ALTER INDEX` (Msg 155's text).
pub(crate) fn check_index_options(
    options: &[ast::OptionSetting],
    statement: &str,
) -> SqlResult<()> {
    for o in options {
        let v = option_value_text(o);
        let ok = match o.name.as_str() {
            "IGNORE_DUP_KEY" | "OPTIMIZE_FOR_SEQUENTIAL_KEY" | "MAXDOP" | "SORT_IN_TEMPDB" => true,
            "FILLFACTOR" => matches!(v.as_str(), "0" | "100"),
            "PAD_INDEX"
            | "ONLINE"
            | "STATISTICS_NORECOMPUTE"
            | "STATISTICS_INCREMENTAL"
            | "DROP_EXISTING"
            | "RESUMABLE"
            | "XML_COMPRESSION" => v == "OFF",
            "ALLOW_ROW_LOCKS" | "ALLOW_PAGE_LOCKS" => v == "ON",
            "DATA_COMPRESSION" => v == "NONE",
            "MAX_DURATION" | "WAIT_AT_LOW_PRIORITY" | "COMPRESSION_DELAY" | "LOB_COMPACTION" => {
                false
            }
            _ => return Err(SqlError::new(155, &[&o.name, &statement])),
        };
        if !ok {
            let shown = if v.is_empty() {
                o.name.clone()
            } else {
                format!("{} = {v}", o.name)
            };
            return Err(SqlError::unsupported(format!("{statement} WITH ({shown})")));
        }
    }
    Ok(())
}

impl crate::session::Session {
    /// `ALTER INDEX name|ALL ON t REBUILD|REORGANIZE|DISABLE|SET (...)`. The table and the index
    /// must exist (Msg 1088). REBUILD and REORGANIZE rebuild the table's storage and all its
    /// indexes from the rows (a fresh, compact copy: more than REORGANIZE asks, never less);
    /// DISABLE is not implemented (40517).
    pub(crate) fn alter_index(&mut self, a: &ast::AlterIndex) -> SqlResult<()> {
        use catalog::SchemaObject;
        let q = crate::ddl::qualified(&a.table);
        let Some((h, SchemaObject::Table(t))) = self.find_object(&q)? else {
            return Err(SqlError::new(1088, &[&q.display()]));
        };
        if let Some(name) = &a.name {
            if t.index_by_name(&name.value).is_none() {
                return Err(SqlError::new(1088, &[&name.value]));
            }
        }
        match &a.action {
            ast::AlterIndexAction::Disable => Err(SqlError::unsupported("ALTER INDEX DISABLE")),
            ast::AlterIndexAction::Set(options) => {
                check_index_options(options, "ALTER INDEX")?;
                let index = a.name.as_ref().map(|n| n.value.as_str());
                let Some(def) = with_index_options(&t, index, options)? else {
                    return Ok(());
                };
                let db = h.def.name.clone();
                let tree = h.store.catalog_btree()?;
                let txn = self.txn_for(&db)?;
                h.cat
                    .write()
                    .put(&tree, txn, SchemaObject::Table(std::sync::Arc::new(def)))?;
                self.touch_catalog(&db)?;
                Ok(())
            }
            ast::AlterIndexAction::Rebuild { partition, options }
            | ast::AlterIndexAction::Reorganize { partition, options } => {
                if let Some(p) = partition {
                    if !matches!(p, ast::OptionValue::Word(w) if w.eq_ignore_ascii_case("ALL")) {
                        return Err(SqlError::unsupported("ALTER INDEX ... PARTITION = n"));
                    }
                }
                check_index_options(options, "ALTER INDEX")?;
                let index = a.name.as_ref().map(|n| n.value.as_str());
                match with_index_options(&t, index, options)? {
                    Some(def) => self.rebuild_in_place(&h, &std::sync::Arc::new(def)),
                    None => self.rebuild_in_place(&h, &t),
                }
            }
        }
    }

    /// Rebuilds a table's storage and every index from its rows (ALTER INDEX REBUILD /
    /// REORGANIZE, ALTER TABLE REBUILD) and records the new storage ids.
    pub(crate) fn rebuild_in_place(
        &mut self,
        h: &std::sync::Arc<crate::server::DbHandle>,
        t: &std::sync::Arc<catalog::TableDef>,
    ) -> SqlResult<()> {
        let map: Vec<Option<usize>> = (0..t.columns.len()).map(Some).collect();
        let rebuilt = self.rebuild_table(h, t, (**t).clone(), &map, &[])?;
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.cat.write().put(
            &tree,
            txn,
            catalog::SchemaObject::Table(std::sync::Arc::new(rebuilt)),
        )?;
        self.touch_catalog(&db)?;
        Ok(())
    }
}

/// The index options ALTER INDEX `index` (`None`: ALL) SET / REBUILD WITH keeps with the
/// index: `OPTIMIZE_FOR_SEQUENTIAL_KEY` (its inserts' flow control, storage btree/README S4,
/// follows it from the next statement on) and `IGNORE_DUP_KEY` (a duplicate insert into the
/// unique index is skipped with 3604 instead of failing). The table with them applied to those
/// indexes, or `None` when neither is given. IGNORE_DUP_KEY = ON on a nonunique index is
/// Msg 1916, as in CREATE INDEX.
fn with_index_options(
    t: &catalog::TableDef,
    index: Option<&str>,
    options: &[ast::OptionSetting],
) -> SqlResult<Option<catalog::TableDef>> {
    let setting = |name: &str| {
        options
            .iter()
            .find(|o| o.name == name)
            .map(|o| matches!(o.value, Some(ast::OptionValue::On)))
    };
    let sequential = setting("OPTIMIZE_FOR_SEQUENTIAL_KEY");
    let ignore_dup = setting("IGNORE_DUP_KEY");
    if sequential.is_none() && ignore_dup.is_none() {
        return Ok(None);
    }
    let mut def = t.clone();
    for ix in &mut def.indexes {
        if !index.is_none_or(|n| ix.name.eq_ignore_ascii_case(n)) {
            continue;
        }
        if let Some(on) = sequential {
            ix.optimize_for_sequential_key = on;
        }
        if let Some(on) = ignore_dup {
            if on && !ix.unique {
                return Err(SqlError::new(1916, &[&"nonunique", &"ignore_dup_key"]));
            }
            ix.ignore_dup_key = on;
        }
    }
    Ok(Some(def))
}

/// `ALTER TABLE t SET (LOCK_ESCALATION = ...)`: TABLE is what latchkey's locking does (the
/// default); AUTO / DISABLE and other options are refused.
pub(crate) fn check_alter_table_set(options: &[ast::OptionSetting]) -> SqlResult<()> {
    for o in options {
        let v = option_value_text(o);
        if !(o.name == "LOCK_ESCALATION" && v == "TABLE") {
            return Err(SqlError::unsupported(format!(
                "ALTER TABLE SET ({} = {v})",
                o.name
            )));
        }
    }
    Ok(())
}
