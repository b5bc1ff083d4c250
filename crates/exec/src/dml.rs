//! Insert / Update / Delete / Truncate / SELECT INTO: row conversion to the column types
//! (2628 truncation), identity, defaults, computed columns (stored), NOT NULL (515), CHECK and
//! FOREIGN KEY (547), unique indexes (2627/2601 via `TableStore`), index maintenance.
//!
//! Every statement first materializes its input rows (Halloween protection), then modifies;
//! an INSERT whose source cannot observe the target (`halloween::can_stream_into`) inserts
//! its rows as the source produces them.
//! Statement atomicity: a savepoint is taken before the first change and rolled back to when
//! any row fails.

use std::collections::HashSet;
use std::sync::Arc;

use catalog::{name_eq, TableDef};
use common::{SqlError, SqlResult};
use plan::catalog;
use plan::{BoundCheck, InsertColumn, OutputSpec, PhysOp, VarAssign};
use storage::Database;
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator;
use crate::row_buffer::{RowBuffer, RowCursor};
use crate::row_format::encode_index_key;
use crate::table_io::TableStore;
use crate::valops;
use crate::{ResultColumn, RowSink};

/// The kind of a row change (which triggers it fires).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmlAction {
    Insert,
    Update,
    Delete,
}

/// Row images of one action of one statement on one table (the `inserted` / `deleted`
/// pseudo-tables of its AFTER triggers). Rows are full table rows in column order.
#[derive(Clone, Debug)]
pub struct DmlChanges {
    pub table: Arc<TableDef>,
    pub action: DmlAction,
    pub inserted: Vec<Vec<Value>>,
    pub deleted: Vec<Vec<Value>>,
    /// Columns assigned by the statement (`UPDATE(col)`, `COLUMNS_UPDATED()`); every column
    /// for INSERT.
    pub updated_columns: Vec<usize>,
}

/// Collects the images of one action on one table when the environment asks for them.
pub(crate) struct Images {
    on: bool,
    inserted: Vec<Vec<Value>>,
    deleted: Vec<Vec<Value>>,
}

impl Images {
    pub(crate) fn new(table: &TableDef, ctx: &mut ExecCtx) -> Images {
        Images {
            on: ctx.env.wants_images(table),
            inserted: Vec::new(),
            deleted: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn add(&mut self, inserted: Option<&[Value]>, deleted: Option<&[Value]>) {
        if !self.on {
            return;
        }
        if let Some(r) = inserted {
            self.inserted.push(r.to_vec());
        }
        if let Some(r) = deleted {
            self.deleted.push(r.to_vec());
        }
    }

    /// Hands the images to the context (merged with an earlier entry for the same table and
    /// action: MERGE inserts row by row). Recorded also when no row changed: AFTER triggers
    /// fire for 0 rows too.
    pub(crate) fn finish(
        self,
        table: &Arc<TableDef>,
        action: DmlAction,
        updated_columns: Vec<usize>,
        ctx: &mut ExecCtx,
    ) {
        if !self.on {
            return;
        }
        if let Some(c) = ctx
            .changes
            .iter_mut()
            .find(|c| c.action == action && c.table.object_id == table.object_id)
        {
            c.inserted.extend(self.inserted);
            c.deleted.extend(self.deleted);
            for u in updated_columns {
                if !c.updated_columns.contains(&u) {
                    c.updated_columns.push(u);
                }
            }
            return;
        }
        ctx.changes.push(DmlChanges {
            table: table.clone(),
            action,
            inserted: self.inserted,
            deleted: self.deleted,
            updated_columns,
        });
    }
}

fn full_name(t: &TableDef) -> String {
    format!("{}.{}.{}", t.database, t.schema, t.name)
}

/// Work table name of a DML statement's materialized input in error messages.
const SPOOL_OBJECT: &str = "dbo.Table Spool temporary storage";

/// Every row of `op`, within the operator memory budget (a work file past it).
pub(crate) fn spool(op: &PhysOp, ctx: &mut ExecCtx) -> SqlResult<RowBuffer> {
    let mut it = operator::build(op)?;
    RowBuffer::collect(&mut it, SPOOL_OBJECT, ctx)
}

/// Converts a value for storing into column `c` (2628 on truncation).
pub(crate) fn to_column(v: &Value, t: &TableDef, c: usize) -> SqlResult<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let col = &t.columns[c];
    // already of the column's type and short enough: what the conversion would return
    match (v, &col.data_type) {
        (Value::Int(_), DataType::Int)
        | (Value::BigInt(_), DataType::BigInt)
        | (Value::SmallInt(_), DataType::SmallInt)
        | (Value::Float(_), DataType::Float) => return Ok(v.clone()),
        // UTF-8 bytes >= UTF-16 units, so the value fits without counting
        (Value::NVarChar(s), DataType::NVarChar(n)) if n.is_none_or(|n| s.len() <= n as usize) => {
            return Ok(v.clone())
        }
        _ => {}
    }
    // the table's full name only matters for error 2628: build it when that happens
    match v.cast_for_column(&col.data_type, "", &col.name) {
        Err(e) if e.number == 2628 => v.cast_for_column(&col.data_type, &full_name(t), &col.name),
        r => r,
    }
}

/// NOT NULL (515) and CHECK (547) constraints of one new row.
pub(crate) fn check_row(
    t: &TableDef,
    row: &[Value],
    checks: &[BoundCheck],
    stmt: &str,
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    for (i, c) in t.columns.iter().enumerate() {
        if !c.nullable && row[i].is_null() {
            return Err(SqlError::new(515, &[&c.name, &full_name(t), &stmt]));
        }
    }
    for ck in checks {
        if valops::truth(&eval(&ck.expr, row, ctx)?) == Some(false) {
            let (a, col, b) = match &ck.column {
                Some(c) => (", column '", c.as_str(), "'"),
                None => ("", "", ""),
            };
            return Err(SqlError::new(
                547,
                &[
                    &stmt,
                    &"CHECK",
                    &ck.name,
                    &t.database,
                    &format!("{}.{}", t.schema, t.name),
                    &a,
                    &col,
                    &b,
                ],
            ));
        }
    }
    Ok(())
}

/// FOREIGN KEY checks of a new/changed row (referencing side).
pub(crate) fn check_foreign_keys(
    t: &TableDef,
    row: &[Value],
    old: Option<&[Value]>,
    stmt: &str,
    db: &Arc<Database>,
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    for fk in &t.foreign_keys {
        if fk.disabled {
            continue;
        }
        if fk.columns.iter().any(|&c| row[c].is_null()) {
            continue;
        }
        if let Some(old) = old {
            if fk.columns.iter().all(|&c| old[c] == row[c]) {
                continue;
            }
        }
        let parent = ctx
            .env
            .table_by_id(&t.database, fk.ref_object_id)?
            .ok_or_else(|| SqlError::internal(format!("foreign key {} parent missing", fk.name)))?;
        let pcols: Vec<usize> = fk
            .ref_columns
            .iter()
            .filter_map(|n| parent.column_index(n))
            .collect();
        // the referencing values in the parent's column positions
        let mut probe = vec![Value::Null; parent.columns.len()];
        for (k, &pc) in pcols.iter().enumerate() {
            let v = &row[fk.columns[k]];
            probe[pc] = v.cast(&parent.columns[pc].data_type)?;
        }
        let store = TableStore::open(db.clone(), parent.clone())?;
        let found = parent_has(&store, &parent, &pcols, &probe)?;
        if !found {
            let colname = fk.ref_columns.first().cloned().unwrap_or_default();
            return Err(SqlError::new(
                547,
                &[
                    &stmt,
                    &"FOREIGN KEY",
                    &fk.name,
                    &t.database,
                    &format!("{}.{}", fk.ref_schema, fk.ref_table),
                    &", column '",
                    &colname,
                    &"'",
                ],
            ));
        }
    }
    Ok(())
}

/// REFERENCE side of foreign keys: a referenced row being deleted (or its referenced columns
/// changed) must not be referenced by any child row (NO ACTION; 547).
pub(crate) fn check_references(
    t: &TableDef,
    old: &[Value],
    new: Option<&[Value]>,
    stmt: &str,
    db: &Arc<Database>,
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    let children = ctx.env.referencing_tables(&t.database, t.object_id)?;
    for child in children {
        for fk in &child.foreign_keys {
            if fk.disabled || fk.ref_object_id != t.object_id {
                continue;
            }
            let pcols: Vec<usize> = fk
                .ref_columns
                .iter()
                .filter_map(|n| t.column_index(n))
                .collect();
            if pcols.len() != fk.columns.len() || pcols.iter().any(|&c| old[c].is_null()) {
                continue;
            }
            if let Some(new) = new {
                if pcols.iter().all(|&c| old[c] == new[c]) {
                    continue;
                }
            }
            let store = TableStore::open(db.clone(), child.clone())?;
            let mut found = false;
            store.for_each_row(&mut |r, _| {
                if !found
                    && fk.columns.iter().zip(&pcols).all(|(&cc, &pc)| {
                        valops::compare(&r[cc], &old[pc]) == Some(std::cmp::Ordering::Equal)
                    })
                {
                    found = true;
                }
                Ok(())
            })?;
            if found {
                let col = child
                    .columns
                    .get(fk.columns[0])
                    .map(|c| c.name.clone())
                    .unwrap_or_default();
                return Err(SqlError::new(
                    547,
                    &[
                        &stmt,
                        &"REFERENCE",
                        &fk.name,
                        &child.database,
                        &format!("{}.{}", child.schema, child.name),
                        &", column '",
                        &col,
                        &"'",
                    ],
                ));
            }
        }
    }
    Ok(())
}

/// Does the parent table have a row whose `cols` equal `probe`'s?
fn parent_has(
    store: &TableStore,
    parent: &TableDef,
    cols: &[usize],
    probe: &[Value],
) -> SqlResult<bool> {
    // a unique index on exactly these columns: point lookup
    for ix in &parent.indexes {
        if !ix.unique || ix.key_columns.len() != cols.len() {
            continue;
        }
        if !ix.key_columns.iter().all(|(c, _)| cols.contains(c)) {
            continue;
        }
        let mut key = Vec::new();
        encode_index_key(parent, ix, probe, &mut key)?;
        if ix.clustered {
            if let Some((_, bt)) = &store.clustered {
                return Ok(bt.get(&key)?.is_some());
            }
        } else if let Some((_, bt, _)) = store.nonclustered.iter().find(|(p, _, _)| {
            parent
                .indexes
                .get(*p)
                .is_some_and(|i| name_eq(&i.name, &ix.name))
        }) {
            return Ok(bt.get(&key)?.is_some());
        }
    }
    let mut found = false;
    store.for_each_row(&mut |r, _| {
        if !found
            && cols
                .iter()
                .all(|&c| valops::compare(&r[c], &probe[c]) == Some(std::cmp::Ordering::Equal))
        {
            found = true;
        }
        Ok(())
    })?;
    Ok(found)
}

/// `ALTER TABLE ... WITH CHECK`: every existing row of `table` must satisfy `checks` and the
/// table's enabled foreign keys (547 naming the statement `ALTER TABLE`, the first failing
/// row wins). The caller passes a definition holding only the constraints to validate.
pub(crate) fn validate_rows(
    table: &Arc<TableDef>,
    checks: &[BoundCheck],
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    let db = ctx.env.storage(&table.database)?;
    let store = TableStore::open(db.clone(), table.clone())?;
    store.for_each_row(&mut |row, _| {
        check_row(table, row, checks, "ALTER TABLE", ctx)?;
        check_foreign_keys(table, row, None, "ALTER TABLE", &db, ctx)
    })
}

/// Runs `f` inside a statement savepoint: on error the statement's changes are undone.
pub(crate) fn atomically(
    ctx: &mut ExecCtx,
    database: &str,
    f: &mut dyn FnMut(&mut ExecCtx) -> SqlResult<u64>,
) -> SqlResult<u64> {
    let sp = ctx.env.txn(database)?.savepoint();
    match f(ctx) {
        Ok(n) => Ok(n),
        Err(e) => {
            if let Ok(txn) = ctx.env.txn(database) {
                let _ = txn.rollback_to(sp);
            }
            Err(e)
        }
    }
}

/// INSERT.
pub fn insert(
    table: &Arc<TableDef>,
    source: &PhysOp,
    columns: &[InsertColumn],
    checks: &[BoundCheck],
    output: Option<&OutputSpec>,
    ctx: &mut ExecCtx,
    sink: &mut dyn RowSink,
) -> SqlResult<u64> {
    let mut out = Output::new(output);
    let n = if crate::halloween::can_stream_into(source, table) {
        // the source cannot see the rows being inserted: no need to materialize it first
        let mut rows = OpRows {
            op: operator::build(source)?,
            opened: false,
        };
        let r = insert_rows_from(
            table, &mut rows, columns, checks, &mut out, ctx, "INSERT", None,
        );
        rows.op.close();
        r?
    } else {
        let rows = spool(source, ctx)?;
        insert_rows_from(
            table,
            &mut rows.cursor()?,
            columns,
            checks,
            &mut out,
            ctx,
            "INSERT",
            None,
        )?
    };
    out.finish(ctx, sink)?;
    Ok(n)
}

/// Where the rows of an insert come from.
pub(crate) trait RowSource {
    /// The next source row; None at the end.
    fn next_row(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<&[Value]>>;
}

/// Rows already materialized.
pub(crate) struct VecRows {
    pub(crate) rows: Vec<Vec<Value>>,
    pub(crate) pos: usize,
}

impl RowSource for VecRows {
    fn next_row(&mut self, _ctx: &mut ExecCtx) -> SqlResult<Option<&[Value]>> {
        let r = self.rows.get(self.pos).map(|r| r.as_slice());
        self.pos += 1;
        Ok(r)
    }
}

impl RowSource for RowCursor<'_> {
    fn next_row(&mut self, _ctx: &mut ExecCtx) -> SqlResult<Option<&[Value]>> {
        RowCursor::next_row(self)
    }
}

/// Rows pulled from an operator as they are inserted (opened on the first row, inside the
/// statement savepoint).
struct OpRows<'p> {
    op: operator::BoxOp<'p>,
    opened: bool,
}

impl RowSource for OpRows<'_> {
    fn next_row(&mut self, ctx: &mut ExecCtx) -> SqlResult<Option<&[Value]>> {
        if !self.opened {
            self.opened = true;
            self.op.open(ctx)?;
        }
        Ok(if self.op.next(ctx)? {
            Some(self.op.row())
        } else {
            None
        })
    }
}

/// Inserts already-computed rows (see `crate::insert_rows`).
pub fn insert_values(
    table: &Arc<TableDef>,
    rows: Vec<Vec<Value>>,
    columns: &[InsertColumn],
    checks: &[BoundCheck],
    ctx: &mut ExecCtx,
) -> SqlResult<u64> {
    let mut none = Output::new(None);
    insert_rows(table, rows, columns, checks, &mut none, ctx)
}

/// Collects OUTPUT rows and delivers them after the statement.
pub(crate) struct Output<'a> {
    spec: Option<&'a OutputSpec>,
    rows: Vec<Vec<Value>>,
    scratch: Vec<Value>,
}

impl<'a> Output<'a> {
    pub(crate) fn new(spec: Option<&'a OutputSpec>) -> Self {
        Output {
            spec,
            rows: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Records the output row for one modified row (`inserted` / `deleted` images).
    fn add(
        &mut self,
        inserted: Option<&[Value]>,
        deleted: Option<&[Value]>,
        n: usize,
        ctx: &mut ExecCtx,
    ) -> SqlResult<()> {
        self.add_action(inserted, deleted, n, None, ctx)
    }

    /// [`Self::add`] with MERGE's `$action` value appended after the two images.
    pub(crate) fn add_action(
        &mut self,
        inserted: Option<&[Value]>,
        deleted: Option<&[Value]>,
        n: usize,
        action: Option<&str>,
        ctx: &mut ExecCtx,
    ) -> SqlResult<()> {
        let Some(spec) = self.spec else {
            return Ok(());
        };
        self.scratch.clear();
        match inserted {
            Some(r) => self.scratch.extend_from_slice(r),
            None => self.scratch.extend(std::iter::repeat_n(Value::Null, n)),
        }
        match deleted {
            Some(r) => self.scratch.extend_from_slice(r),
            None => self.scratch.extend(std::iter::repeat_n(Value::Null, n)),
        }
        if let Some(a) = action {
            self.scratch.push(Value::NVarChar(a.to_string()));
        }
        let mut row = Vec::with_capacity(spec.exprs.len());
        for e in &spec.exprs {
            row.push(eval(e, &self.scratch, ctx)?);
        }
        self.rows.push(row);
        Ok(())
    }

    pub(crate) fn finish(self, ctx: &mut ExecCtx, sink: &mut dyn RowSink) -> SqlResult<()> {
        let Some(spec) = self.spec else {
            return Ok(());
        };
        match &spec.into {
            Some((table, map)) => {
                let columns: Vec<InsertColumn> = (0..table.columns.len())
                    .map(|c| match map.iter().position(|&m| m == c) {
                        Some(k) => InsertColumn::Source(k),
                        None if table.columns[c].identity.is_some() => InsertColumn::Identity,
                        None => InsertColumn::Null,
                    })
                    .collect();
                let mut none = Output::new(None);
                insert_rows(table, self.rows, &columns, &[], &mut none, ctx)?;
            }
            None => {
                let cols: Vec<ResultColumn> = spec
                    .columns
                    .iter()
                    .map(|c| ResultColumn {
                        name: c.name.clone(),
                        data_type: c.data_type.clone(),
                    })
                    .collect();
                sink.columns(&cols)?;
                for r in &self.rows {
                    sink.row(r)?;
                }
            }
        }
        Ok(())
    }
}

fn insert_rows(
    table: &Arc<TableDef>,
    rows: Vec<Vec<Value>>,
    columns: &[InsertColumn],
    checks: &[BoundCheck],
    out: &mut Output,
    ctx: &mut ExecCtx,
) -> SqlResult<u64> {
    insert_rows_as(table, rows, columns, checks, out, ctx, "INSERT", None)
}

/// Inserts rows; `stmt` names the statement in constraint errors, `action` is MERGE's
/// `$action` for OUTPUT.
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_rows_as(
    table: &Arc<TableDef>,
    rows: Vec<Vec<Value>>,
    columns: &[InsertColumn],
    checks: &[BoundCheck],
    out: &mut Output,
    ctx: &mut ExecCtx,
    stmt: &str,
    action: Option<&str>,
) -> SqlResult<u64> {
    let mut rows = VecRows { rows, pos: 0 };
    insert_rows_from(table, &mut rows, columns, checks, out, ctx, stmt, action)
}

/// [`insert_rows_as`] over any row source.
#[allow(clippy::too_many_arguments)]
fn insert_rows_from(
    table: &Arc<TableDef>,
    rows: &mut dyn RowSource,
    columns: &[InsertColumn],
    checks: &[BoundCheck],
    out: &mut Output,
    ctx: &mut ExecCtx,
    stmt: &str,
    action: Option<&str>,
) -> SqlResult<u64> {
    let db = ctx.env.storage(&table.database)?;
    let mut store = crate::table_io::open_for_write(ctx, db, table)?;
    insert_rows_into(
        &mut store, table, rows, columns, checks, out, ctx, stmt, action,
    )
}

/// [`insert_rows_from`] through an open store: MERGE passes its own, whose unique checks are
/// deferred to the end of the MERGE (an inserted key may be freed by a later UPDATE action).
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_rows_into(
    store: &mut TableStore,
    table: &Arc<TableDef>,
    rows: &mut dyn RowSource,
    columns: &[InsertColumn],
    checks: &[BoundCheck],
    out: &mut Output,
    ctx: &mut ExecCtx,
    stmt: &str,
    action: Option<&str>,
) -> SqlResult<u64> {
    let db = store.db.clone();
    let dbname = table.database.clone();
    let identity = table.identity();
    let mut images = Images::new(table, ctx);
    let ignore_dups = table
        .indexes
        .iter()
        .any(|ix| ix.unique && ix.ignore_dup_key);
    let mut ignored = false;
    let r = atomically(ctx, &dbname, &mut |ctx| {
        let mut n = 0u64;
        let mut new = Vec::with_capacity(table.columns.len());
        while let Some(src) = rows.next_row(ctx)? {
            new.clear();
            for (c, ic) in columns.iter().enumerate() {
                let v = match ic {
                    InsertColumn::Source(k) => {
                        let v = to_column(src.get(*k).unwrap_or(&Value::Null), table, c)?;
                        if identity.is_some_and(|(ic, _)| ic == c) {
                            if let Some(i) = v.as_i64() {
                                ctx.env.identity_used(table, i, false);
                            }
                        }
                        v
                    }
                    InsertColumn::Default(e) => to_column(&eval(e, &[], ctx)?, table, c)?,
                    InsertColumn::Null | InsertColumn::Computed(_) => Value::Null,
                    InsertColumn::Identity => {
                        let i = ctx.env.next_identity(table)?;
                        ctx.env.identity_used(table, i, true);
                        Value::BigInt(i).cast(&table.columns[c].data_type)?
                    }
                };
                new.push(v);
            }
            for (c, ic) in columns.iter().enumerate() {
                if let InsertColumn::Computed(e) = ic {
                    let v = eval(e, &new, ctx)?;
                    new[c] = if v.is_null() {
                        v
                    } else {
                        v.cast(&table.columns[c].data_type)?
                    };
                }
            }
            check_row(table, &new, checks, stmt, ctx)?;
            check_foreign_keys(table, &new, None, stmt, &db, ctx)?;
            if ignore_dups && store.ignored_duplicate(&new)? {
                // IGNORE_DUP_KEY: the row is discarded, the statement goes on
                ignored = true;
                continue;
            }
            let txn = ctx.env.txn(&dbname)?;
            store.insert_row(txn, &new)?;
            out.add_action(Some(&new), None, new.len(), action, ctx)?;
            images.add(Some(&new), None);
            n += 1;
        }
        Ok(n)
    })?;
    if ignored && !ctx.messages.iter().any(|m| m.number == 3604) {
        // once per statement (MERGE inserts row by row)
        ctx.messages.push(duplicate_key_ignored());
    }
    images.finish(
        table,
        DmlAction::Insert,
        (0..table.columns.len()).collect(),
        ctx,
    );
    Ok(r)
}

/// Warning 3604 of an INSERT that discarded rows under `IGNORE_DUP_KEY = ON`. sys.messages
/// lists it with severity 16, but SQL Server sends it as an informational message (clients
/// print the bare text, the statement succeeds and `@@ERROR` stays 0), hence severity 10.
fn duplicate_key_ignored() -> SqlError {
    let mut e = SqlError::new(3604, &[]);
    e.severity = 10;
    e
}

/// The target row's locator; None when the target side of an outer join is NULL-extended
/// (no row to modify).
pub(crate) fn locator_of(row: &[Value], at: usize) -> SqlResult<Option<Vec<u8>>> {
    match row.get(at) {
        Some(Value::VarBinary(b)) | Some(Value::Binary(b)) => Ok(Some(b.clone())),
        Some(Value::Null) => Ok(None),
        _ => Err(SqlError::internal("DML input row without locator")),
    }
}

/// UPDATE.
#[allow(clippy::too_many_arguments)]
pub fn update(
    table: &Arc<TableDef>,
    input: &PhysOp,
    offset: usize,
    sets: &[(usize, plan::ScalarExpr)],
    computed: &[(usize, plan::ScalarExpr)],
    checks: &[BoundCheck],
    variables: &[VarAssign],
    output: Option<&OutputSpec>,
    ctx: &mut ExecCtx,
    sink: &mut dyn RowSink,
) -> SqlResult<u64> {
    let rows = spool(input, ctx)?;
    let ncols = table.columns.len();
    let db = ctx.env.storage(&table.database)?;
    let mut store = crate::table_io::open_for_write(ctx, db.clone(), table)?;
    let mut out = Output::new(output);
    let dbname = table.database.clone();
    let mut images = Images::new(table, ctx);
    atomically(ctx, &dbname, &mut |ctx| {
        // Every new value is computed before the first row is written: a SET expression's
        // subquery may read the target table and must see it as it was before the statement
        // (Halloween protection for the values, not only for the rows to update).
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        let mut changes = Vec::new();
        // uniqueness holds for the statement's final state, not after each row
        store.defer_unique_checks();
        let mut cur = rows.cursor()?;
        while let Some(r) = cur.next_row()? {
            let Some(loc) = locator_of(r, offset + ncols)? else {
                continue;
            };
            if !seen.insert(loc.clone()) {
                continue;
            }
            let old = r[offset..offset + ncols].to_vec();
            let mut new = old.clone();
            for (c, e) in sets {
                let v = eval(e, r, ctx)?;
                new[*c] = to_column(&v, table, *c)?;
            }
            for (c, e) in computed {
                let v = eval(e, &new, ctx)?;
                new[*c] = if v.is_null() {
                    v
                } else {
                    v.cast(&table.columns[*c].data_type)?
                };
            }
            for va in variables {
                let v = match va.column {
                    Some(c) if new[c].is_null() => Value::Null,
                    Some(c) => new[c].cast(&va.expr.data_type)?,
                    None => eval(&va.expr, r, ctx)?,
                };
                ctx.env.set_variable_at(va.variable.slot, v)?;
            }
            changes.push((loc, old, new));
        }
        let mut n = 0u64;
        for (loc, old, new) in changes {
            let old = &old[..];
            check_row(table, &new, checks, "UPDATE", ctx)?;
            check_foreign_keys(table, &new, Some(old), "UPDATE", &db, ctx)?;
            check_references(table, old, Some(&new), "UPDATE", &db, ctx)?;
            let txn = ctx.env.txn(&dbname)?;
            store.update_row(txn, &loc, old, &new)?;
            out.add(Some(&new), Some(old), ncols, ctx)?;
            images.add(Some(&new), Some(old));
            n += 1;
        }
        store.finish_deferred(ctx.env.txn(&dbname)?)?;
        Ok(n)
    })
    .and_then(|n| {
        out.finish(ctx, sink)?;
        let mut cols: Vec<usize> = sets.iter().map(|(c, _)| *c).collect();
        cols.extend(variables.iter().filter_map(|v| v.column));
        images.finish(table, DmlAction::Update, cols, ctx);
        Ok(n)
    })
}

/// DELETE.
pub fn delete(
    table: &Arc<TableDef>,
    input: &PhysOp,
    offset: usize,
    output: Option<&OutputSpec>,
    ctx: &mut ExecCtx,
    sink: &mut dyn RowSink,
) -> SqlResult<u64> {
    let rows = spool(input, ctx)?;
    let mut out = Output::new(output);
    let ncols = table.columns.len();
    let db = ctx.env.storage(&table.database)?;
    let mut store = crate::table_io::open_for_write(ctx, db.clone(), table)?;
    let dbname = table.database.clone();
    let mut images = Images::new(table, ctx);
    atomically(ctx, &dbname, &mut |ctx| {
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        let mut n = 0u64;
        let mut cur = rows.cursor()?;
        while let Some(r) = cur.next_row()? {
            let Some(loc) = locator_of(r, offset + ncols)? else {
                continue;
            };
            if !seen.insert(loc.clone()) {
                continue;
            }
            check_references(table, &r[offset..offset + ncols], None, "DELETE", &db, ctx)?;
            let txn = ctx.env.txn(&dbname)?;
            store.delete_row(txn, &loc, &r[offset..offset + ncols])?;
            out.add(None, Some(&r[offset..offset + ncols]), ncols, ctx)?;
            images.add(None, Some(&r[offset..offset + ncols]));
            n += 1;
        }
        Ok(n)
    })
    .and_then(|n| {
        out.finish(ctx, sink)?;
        images.finish(table, DmlAction::Delete, Vec::new(), ctx);
        Ok(n)
    })
}

/// TRUNCATE TABLE.
pub fn truncate(table: &Arc<TableDef>, ctx: &mut ExecCtx) -> SqlResult<()> {
    let db = ctx.env.storage(&table.database)?;
    let txn = ctx.env.txn(&table.database)?;
    crate::table_io::truncate_table(&db, txn, table)
}

/// SELECT ... INTO: the engine creates the table, then the rows are inserted.
pub fn select_into(
    spec: &plan::NewTableSpec,
    source: &PhysOp,
    ctx: &mut ExecCtx,
) -> SqlResult<u64> {
    let rows = spool(source, ctx)?;
    let table = ctx.env.create_table(spec)?;
    let columns: Vec<InsertColumn> = (0..table.columns.len())
        .map(|i| {
            if table.columns[i].identity.is_some() {
                InsertColumn::Identity
            } else {
                InsertColumn::Source(i)
            }
        })
        .collect();
    let mut none = Output::new(None);
    insert_rows_from(
        &table,
        &mut rows.cursor()?,
        &columns,
        &[],
        &mut none,
        ctx,
        "INSERT",
        None,
    )
}

#[allow(dead_code)]
fn _type_check(_: DataType) {}
