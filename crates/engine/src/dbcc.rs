//! DBCC CHECKDB / CHECKTABLE / CHECKALLOC with SQL Server's output: per-table lines
//! (`DBCC results for 'dbo.t'.`, `There are N rows in M pages for object "dbo.t".`), errors
//! as SQL Server numbers them (8904/8905 allocation, 8951/8955 and 8952/8956 index against
//! base table, 8939 for other page-level findings), the summary (`CHECKDB found A allocation
//! errors and C consistency errors in database 'x'.`) and the minimum repair level.
//!
//! What is checked: storage against itself (`storage::Database::check_report`: extent
//! ownership against IAM chains and GAM, B-tree order and links, heap and LOB pages), the
//! catalog against storage (every table's heap / B-trees exist), and every nonclustered index
//! against its base table (`exec::index_check`).
//!
//! Options: `NO_INFOMSGS` (only errors), `ALL_ERRORMSGS` (every error is always printed),
//! `TABLOCK` (the check reads committed pages under the session, nothing to escalate),
//! `PHYSICAL_ONLY` and the `NOINDEX` argument (skip the index-against-table comparison) are
//! honoured; any other option, and the repair arguments until a repair is implemented
//! ([`Session::dbcc_repair`]), raise an error.

use std::collections::HashMap;
use std::sync::Arc;

use catalog::{TableDef, TableStorage};
use common::{SqlError, SqlResult};
use parser::ast;

use crate::events::{EventSink, InfoMessage};
use crate::server::DbHandle;
use crate::session::Session;

/// Which DBCC check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command {
    Db,
    Table,
    Alloc,
}

impl Command {
    fn word(self) -> &'static str {
        match self {
            Command::Db => "CHECKDB",
            Command::Table => "CHECKTABLE",
            Command::Alloc => "CHECKALLOC",
        }
    }
}

/// Parsed arguments and options.
struct CheckSpec {
    command: Command,
    no_infomsgs: bool,
    check_indexes: bool,
    repair: Option<String>,
}

/// Errors and informational lines of one run, in output order.
enum Line {
    Info(SqlError),
    Error(SqlError),
}

struct Report {
    lines: Vec<Line>,
    allocation: u64,
    consistency: u64,
    /// An error other than a nonclustered index mismatch (repair_allow_data_loss needed).
    data_loss: bool,
}

impl Report {
    fn info(&mut self, number: i32, args: &[&dyn std::fmt::Display]) {
        self.lines.push(Line::Info(SqlError::new(number, args)));
    }
    fn error(&mut self, e: SqlError, allocation: bool) {
        if allocation {
            self.allocation += 1;
        } else {
            self.consistency += 1;
        }
        self.lines.push(Line::Error(e));
    }
    /// A detail line of the previous error (8955 / 8956): printed, not counted.
    fn detail(&mut self, e: SqlError) {
        self.lines.push(Line::Error(e));
    }
}

/// Text of a DBCC argument: a string literal, a bare word or a number.
fn arg_text(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Literal(ast::Literal::String { value, .. }) => Some(value.clone()),
        ast::Expr::Column(n) => Some(
            n.parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join("."),
        ),
        ast::Expr::Literal(l) => Some(format!("{l}")),
        _ => None,
    }
}

fn is_repair(word: &str) -> bool {
    matches!(
        word.to_ascii_uppercase().as_str(),
        "REPAIR_ALLOW_DATA_LOSS" | "REPAIR_FAST" | "REPAIR_REBUILD"
    )
}

impl Session {
    /// DBCC CHECKDB / CHECKTABLE / CHECKALLOC (`line`: the statement's line, for the errors
    /// the check prints while it goes on).
    pub(crate) fn dbcc_check(
        &mut self,
        d: &ast::Dbcc,
        line: u32,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let command = match d.command.as_str() {
            "CHECKDB" => Command::Db,
            "CHECKTABLE" => Command::Table,
            _ => Command::Alloc,
        };
        let mut spec = CheckSpec {
            command,
            no_infomsgs: false,
            check_indexes: command != Command::Alloc,
            repair: None,
        };
        for o in &d.options {
            match o.as_str() {
                "NO_INFOMSGS" => spec.no_infomsgs = true,
                "ALL_ERRORMSGS" | "TABLOCK" => {}
                "PHYSICAL_ONLY" => spec.check_indexes = false,
                other => {
                    return Err(SqlError::unsupported(format!(
                        "DBCC {} WITH {other}",
                        command.word()
                    )))
                }
            }
        }
        let texts: Vec<Option<String>> = d.args.iter().map(arg_text).collect();
        for (i, t) in texts.iter().enumerate().skip(1) {
            match t.as_deref() {
                Some(w) if w.eq_ignore_ascii_case("NOINDEX") => spec.check_indexes = false,
                Some(w) if is_repair(w) => spec.repair = Some(w.to_ascii_uppercase()),
                // CHECKTABLE (t, index_id): one index only — not yet
                _ => {
                    return Err(SqlError::unsupported(format!(
                        "DBCC {} argument {}",
                        command.word(),
                        i + 1
                    )))
                }
            }
        }
        let first = match d.args.first() {
            None => None,
            Some(e) => Some(arg_text(e).ok_or_else(|| {
                SqlError::unsupported(format!("DBCC {} argument 1", command.word()))
            })?),
        };
        let (h, only) = match command {
            Command::Table => {
                let Some(name) = first else {
                    return Err(SqlError::new(2583, &[]));
                };
                let q = crate::ddl::qualified_from_text(&name);
                match self.find_object(&q)? {
                    Some((h, catalog::SchemaObject::Table(t))) => (h, Some(t)),
                    _ => return Err(SqlError::new(2501, &[&name]).with_state(45)),
                }
            }
            _ => (self.dbcc_database(first.as_deref())?, None),
        };
        if let Some(r) = spec.repair.clone() {
            return self.dbcc_repair(&h, command.word(), &r);
        }
        let report = run_checks(&h, &spec, only.as_ref())?;
        let mut last_error = None;
        for l in report.lines {
            match l {
                Line::Error(e) => {
                    let e = e.at_line(line);
                    sink.error(&e);
                    last_error = Some(e.number);
                }
                Line::Info(m) if !spec.no_infomsgs => sink.message(&InfoMessage {
                    text: m.message,
                    number: m.number,
                    severity: m.severity,
                    state: m.state,
                }),
                Line::Info(_) => {}
            }
        }
        if let Some(n) = last_error {
            self.error = n;
        }
        Ok(())
    }

    /// The database a DBCC CHECKDB / CHECKALLOC argument names: none, `0`, a name or an id
    /// (2520 when there is no such database).
    fn dbcc_database(&self, arg: Option<&str>) -> SqlResult<Arc<DbHandle>> {
        let Some(a) = arg.map(str::trim) else {
            return self.current_db();
        };
        if a == "0" {
            return self.current_db();
        }
        let found = match a.parse::<i32>() {
            Ok(id) => self.engine.database_by_id(id),
            Err(_) => self.engine.database(a),
        };
        found.ok_or_else(|| SqlError::new(2520, &[&a]).with_state(11))
    }

    /// `DBCC CHECKDB (db, REPAIR_...)`: no repair is implemented yet, so a repair request is
    /// an error rather than a check that pretends to repair. (The hook for the repair module.)
    fn dbcc_repair(&mut self, _h: &Arc<DbHandle>, command: &str, option: &str) -> SqlResult<()> {
        Err(SqlError::unsupported(format!("DBCC {command} {option}")))
    }
}

/// Runs the checks of `spec` on database `h` (one table when `only`).
fn run_checks(
    h: &Arc<DbHandle>,
    spec: &CheckSpec,
    only: Option<&Arc<TableDef>>,
) -> SqlResult<Report> {
    let mut r = Report {
        lines: Vec::new(),
        allocation: 0,
        consistency: 0,
        data_loss: false,
    };
    let db_name = h.def.name.clone();
    let db_id = h.def.database_id;
    let tables: Vec<Arc<TableDef>> = match only {
        Some(t) => vec![t.clone()],
        None => {
            let mut v: Vec<Arc<TableDef>> = h.cat.read().tables().cloned().collect();
            v.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
            v
        }
    };
    // storage object id -> (table, index id: 0 heap, 1 clustered, n nonclustered)
    let mut owners: HashMap<u64, (Arc<TableDef>, i32)> = HashMap::new();
    for t in h.cat.read().tables() {
        if let TableStorage::Heap(id) = t.storage {
            owners.insert(id, (t.clone(), 0));
        }
        for ix in &t.indexes {
            if ix.storage_id != 0 {
                owners.insert(ix.storage_id, (t.clone(), ix.index_id));
            }
        }
    }
    let findings = h.store.check_report()?;
    if spec.command != Command::Table {
        r.info(2536, &[&db_name]);
        // allocation findings and findings in objects no table owns come first
        for f in &findings {
            let mine = f.objects().iter().any(|o| owners.contains_key(o));
            if f.is_allocation() || !mine {
                r.data_loss = true;
                let e = finding_error(f, db_id, &owners);
                r.error(e, f.is_allocation());
            }
        }
    }
    if spec.command == Command::Alloc {
        let (a, c) = (r.allocation, r.consistency);
        r.info(8989, &[&"CHECKALLOC", &a, &c, &db_name]);
        finish(&mut r, spec, &db_name, None);
        return Ok(r);
    }
    for t in &tables {
        let full = format!("{}.{}", t.schema, t.name);
        r.info(2536, &[&full]);
        let (a0, c0) = (r.allocation, r.consistency);
        for f in &findings {
            let concerns = f.objects().iter().any(|o| {
                owners
                    .get(o)
                    .is_some_and(|(ot, _)| ot.object_id == t.object_id)
            });
            let counted_above = spec.command != Command::Table && f.is_allocation();
            if concerns && !counted_above {
                r.data_loss = true;
                r.error(finding_error(f, db_id, &owners), f.is_allocation());
            }
        }
        match check_table(h, t, spec.check_indexes, &mut r) {
            Ok(Some((rows, pages))) => r.info(2593, &[&rows, &pages, &full]),
            Ok(None) => {}
            Err(e) => {
                // a page the table needs could not be read: report it and go on
                r.data_loss = true;
                r.error(e, false);
            }
        }
        let (a, c) = (r.allocation - a0, r.consistency - c0);
        if a + c > 0 {
            r.info(8990, &[&spec.command.word(), &a, &c, &full, &t.object_id]);
        }
    }
    if spec.command == Command::Db {
        let (a, c) = (r.allocation, r.consistency);
        r.info(8989, &[&"CHECKDB", &a, &c, &db_name]);
    }
    let table_name = only.map(|t| format!("{db_name}.{}.{}", t.schema, t.name));
    finish(&mut r, spec, &db_name, table_name.as_deref());
    Ok(r)
}

/// The repair-level line (when errors were found) and the completion message.
fn finish(r: &mut Report, spec: &CheckSpec, db_name: &str, table: Option<&str>) {
    if r.allocation + r.consistency > 0 {
        let level = if r.data_loss {
            "repair_allow_data_loss"
        } else {
            "repair_rebuild"
        };
        r.info(
            8958,
            &[&level, &spec.command.word(), &table.unwrap_or(db_name)],
        );
    }
    r.info(2528, &[]);
}

/// SQL Server's message for a storage finding, naming the database by its id.
fn finding_error(
    f: &storage::Finding,
    db_id: i32,
    owners: &HashMap<u64, (Arc<TableDef>, i32)>,
) -> SqlError {
    match f {
        storage::Finding::ExtentSharedBy { file, page, .. } => SqlError::custom(
            8904,
            16,
            1,
            format!("Extent ({file}:{page}) in database ID {db_id} is allocated by more than one allocation object."),
        ),
        storage::Finding::ExtentUnowned { file, page } => SqlError::custom(
            8905,
            16,
            1,
            format!("Extent ({file}:{page}) in database ID {db_id} is marked allocated in the GAM, but no SGAM or IAM has allocated it."),
        ),
        storage::Finding::ExtentFree { file, page, owner } => SqlError::custom(
            8939,
            16,
            98,
            format!(
                "Table error: {}, page ({file}:{page}). Test (IS_ALLOCATED (GAM, extent)) failed. Extent is owned by an IAM chain but free in the GAM of database ID {db_id}.",
                object_text(*owner, owners)
            ),
        ),
        storage::Finding::Other { object, text, .. } => {
            let what = match object {
                Some(o) => object_text(*o, owners),
                None => format!("database ID {db_id}"),
            };
            SqlError::custom(8939, 16, 98, format!("Table error: {what}. {text}."))
        }
    }
}

fn object_text(obj: u64, owners: &HashMap<u64, (Arc<TableDef>, i32)>) -> String {
    match owners.get(&obj) {
        Some((t, ix)) => format!("Object ID {}, index ID {ix}", t.object_id),
        None => format!("storage object {obj} (no catalog owner)"),
    }
}

/// Catalog against storage and every nonclustered index against the base table. Returns the
/// row and page counts, or None when the table's storage is missing (reported).
fn check_table(
    h: &Arc<DbHandle>,
    t: &Arc<TableDef>,
    check_indexes: bool,
    r: &mut Report,
) -> SqlResult<Option<(u64, u64)>> {
    let full = format!("{}.{}", t.schema, t.name);
    let store = match exec::table_io::TableStore::open(h.store.clone(), t.clone()) {
        Ok(s) => s,
        Err(e) => {
            r.data_loss = true;
            r.error(
                SqlError::custom(
                    8939,
                    16,
                    98,
                    format!(
                        "Table error: table '{full}' (ID {}). The storage of the table or of one of its indexes cannot be opened: {}",
                        t.object_id, e.message
                    ),
                ),
                false,
            );
            return Ok(None);
        }
    };
    let res = exec::index_check::check_table(&store, check_indexes)?;
    for d in &res.diffs {
        let ix = &t.indexes[d.index];
        let mut ident_cols: Vec<usize> = Vec::new();
        if let Some(c) = t.clustered_index() {
            ident_cols = c.key_columns.iter().map(|(c, _)| *c).collect();
        }
        let mut index_cols: Vec<usize> = ix.key_columns.iter().map(|(c, _)| *c).collect();
        for c in &ident_cols {
            if !index_cols.contains(c) {
                index_cols.push(*c);
            }
        }
        for m in &d.missing {
            r.error(
                SqlError::new(8951, &[&t.name, &t.object_id, &ix.name, &ix.index_id]),
                false,
            );
            let (f, p, s) = rid_parts(t, &m.locator);
            let ident = if ident_cols.is_empty() {
                format!("RID = ({f}:{p}:{s})")
            } else {
                exec::index_check::column_values_text(t, &ident_cols, &m.row)
            };
            let values = exec::index_check::column_values_text(t, &index_cols, &m.row);
            r.detail(SqlError::new(8955, &[&f, &p, &s, &ident, &values]));
        }
        for x in &d.extra {
            r.error(
                SqlError::new(8952, &[&t.name, &t.object_id, &ix.name, &ix.index_id]),
                false,
            );
            let (f, p, s) = rid_parts(t, &x.locator);
            let key = format!("0x{}", hex(&x.key));
            let target = if ident_cols.is_empty() {
                format!("RID = ({f}:{p}:{s})")
            } else {
                format!("0x{}", hex(&x.locator))
            };
            r.detail(SqlError::new(8956, &[&0, &0, &0, &key, &target]));
        }
    }
    Ok(Some((res.rows, res.pages)))
}

/// `(file, page, slot)` of a heap row's RID; zeros for a clustered key (rows of a B-tree are
/// identified by their key, printed separately).
fn rid_parts(t: &TableDef, locator: &[u8]) -> (u32, u32, u32) {
    if matches!(t.storage, TableStorage::Heap(_)) {
        if let Some(rid) = storage::Rid::from_bytes(locator) {
            return (u32::from(rid.page.file), rid.page.page, u32::from(rid.slot));
        }
    }
    (0, 0, 0)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02X}")).collect()
}
