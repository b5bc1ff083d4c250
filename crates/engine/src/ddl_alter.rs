//! ALTER TABLE changes that rewrite a non-empty table's rows: ALTER COLUMN to another type or to
//! NOT NULL, and ADD of an IDENTITY column (existing rows numbered from the seed in storage order).
//!
//! Rows are converted first (any conversion error leaves the table untouched), then written into
//! fresh storage for the new definition, and the old storage is dropped, all in the statement's
//! transaction.

use std::sync::Arc;

use catalog::{name_eq, ColumnDef, TableDef, TableStorage};
use common::{SqlError, SqlResult};
use parser::ast;
use types::{DataType, Value};

use crate::server::DbHandle;
use crate::session::Session;

impl Session {
    /// Writes the rows of `old`, each mapped by `f`, into new storage for `new` (whose storage
    /// ids are filled in); drops the old storage. Returns `new`.
    pub(crate) fn rewrite_rows(
        &mut self,
        h: &DbHandle,
        old: &Arc<TableDef>,
        mut new: TableDef,
        f: &mut dyn FnMut(&[Value]) -> SqlResult<Vec<Value>>,
    ) -> SqlResult<TableDef> {
        let db = h.def.name.clone();
        let src = exec::table_io::TableStore::open(h.store.clone(), old.clone())?;
        let mut rows: Vec<Vec<Value>> = Vec::new();
        src.for_each_row(&mut |row, _| {
            rows.push(f(row)?);
            Ok(())
        })?;
        // a rebuilt table stays in its filegroup unless the statement names one
        let space = self
            .ddl_data_space
            .or_else(|| crate::filegroups::table_data_space(h, old));
        let txn = self.txn_for(&db)?;
        exec::table_io::create_table_storage_on(&h.store, txn, &mut new, space)?;
        let new = Arc::new(new);
        let mut dst = exec::table_io::TableStore::open(h.store.clone(), new.clone())?;
        for r in rows {
            dst.insert_row(txn, &r)?;
        }
        exec::table_io::drop_table_storage(&h.store, txn, old)?;
        Ok((*new).clone())
    }

    /// ALTER COLUMN of column `i` of a table that has rows: new type `t`, NOT NULL when
    /// `nullable` is false. 5074 when an index uses the column and its type changes, 8152 when a
    /// value does not fit, 515 for a NULL in a NOT NULL column, conversion errors as CAST.
    pub(crate) fn alter_column_with_rows(
        &mut self,
        h: &DbHandle,
        table: &TableDef,
        i: usize,
        t: DataType,
        nullable: bool,
    ) -> SqlResult<TableDef> {
        let col = table.columns[i].name.clone();
        if t != table.columns[i].data_type {
            if let Some(ix) = table
                .indexes
                .iter()
                .find(|ix| ix.key_columns.iter().any(|(c, _)| *c == i) || ix.included.contains(&i))
            {
                return Err(SqlError::new(5074, &[&"index", &ix.name, &"column", &col]));
            }
        }
        let full = format!("{}.{}.{}", table.database, table.schema, table.name);
        let old = Arc::new(table.clone());
        let mut new = table.clone();
        new.columns[i].data_type = t.clone();
        new.columns[i].nullable = nullable;
        let mut f = |row: &[Value]| -> SqlResult<Vec<Value>> {
            let mut r = row.to_vec();
            if let Some(v) = r.get_mut(i) {
                if v.is_null() {
                    if !nullable {
                        return Err(SqlError::new(515, &[&col, &full, &"UPDATE"]));
                    }
                } else {
                    *v = v.cast_for_column(&t, &full, &col).map_err(|e| {
                        if e.number == 2628 {
                            SqlError::new(8152, &[])
                        } else {
                            e
                        }
                    })?;
                }
            }
            Ok(r)
        };
        self.rewrite_rows(h, &old, new, &mut f)
    }

    /// ADD of an identity column `col` (already built) to a table that has rows: the rows get
    /// seed, seed + increment, ... and the table's current identity value is the last one given.
    pub(crate) fn add_identity_column_with_rows(
        &mut self,
        h: &DbHandle,
        table: &TableDef,
        col: catalog::ColumnDef,
    ) -> SqlResult<TableDef> {
        let Some(spec) = col.identity else {
            return Err(SqlError::internal(
                "identity column without a specification",
            ));
        };
        let t = col.data_type.clone();
        let old = Arc::new(table.clone());
        let mut new = table.clone();
        new.columns.push(col);
        let mut next = spec.seed as i128;
        let mut last: Option<i128> = None;
        let mut f = |row: &[Value]| -> SqlResult<Vec<Value>> {
            let mut r = row.to_vec();
            let v = Value::Decimal {
                mantissa: next,
                scale: 0,
            };
            r.push(exec::valops::cast(&v, &t)?);
            last = Some(next);
            next += spec.increment as i128;
            Ok(r)
        };
        let new = self.rewrite_rows(h, &old, new, &mut f)?;
        if let Some(v) = last {
            let db = h.def.name.clone();
            let tree = h.store.catalog_btree()?;
            let txn = self.txn_for(&db)?;
            h.cat.write().set_identity(&tree, txn, new.object_id, v)?;
        }
        Ok(new)
    }
    /// ALTER TABLE ADD of a PRIMARY KEY / UNIQUE constraint (table- or column-level): adds the
    /// index and builds it over existing rows; a clustered one turns the heap into a B-tree.
    pub(crate) fn add_key_constraint(
        &mut self,
        h: &DbHandle,
        table: &mut TableDef,
        c: &ast::TableConstraint,
        tname: &str,
        salt: u32,
    ) -> SqlResult<()> {
        let db = h.def.name.clone();
        let pos = table.indexes.len();
        self.add_constraint(h, table, c, tname, salt)?;
        if table.indexes[pos].clustered && self.table_has_rows(h, table)? {
            // Heap → clustered B-tree: move every row.
            let mut before = table.clone();
            before.indexes.truncate(pos);
            let before = Arc::new(before);
            table.storage = TableStorage::Clustered { index: pos };
            let map: Vec<Option<usize>> = (0..table.columns.len()).map(Some).collect();
            *table = self.rebuild_table(h, &before, table.clone(), &map, &[])?;
        } else if table.indexes[pos].clustered {
            // Empty heap: switch to a clustered B-tree.
            let space = self
                .ddl_data_space
                .or_else(|| crate::filegroups::table_data_space(h, table));
            let txn = self.txn_for(&db)?;
            if let TableStorage::Heap(hid) = table.storage {
                h.store.drop_object(txn, storage::ObjId(hid))?;
            }
            table.indexes[pos].storage_id = h.store.create_btree_on(txn, space)?.0;
            table.storage = TableStorage::Clustered { index: pos };
        } else {
            let space = self
                .ddl_data_space
                .or_else(|| crate::filegroups::table_data_space(h, table));
            let txn = self.txn_for(&db)?;
            table.indexes[pos].storage_id = h.store.create_btree_on(txn, space)?.0;
            let snapshot = Arc::new(table.clone());
            self.fill_index(h, &snapshot, pos)?;
        }
        Ok(())
    }
}

impl Session {
    /// After `ALTER TABLE [WITH CHECK | WITH NOCHECK] ADD ...`: the CHECK constraints from
    /// `checks_from` and foreign keys from `fks_from` on are new. `WITH NOCHECK` marks them not
    /// trusted; otherwise (the default for ADD) the existing rows are validated (547).
    pub(crate) fn settle_added_constraints(
        &mut self,
        table: &mut TableDef,
        checks_from: usize,
        fks_from: usize,
        with_check: Option<bool>,
    ) -> SqlResult<()> {
        if with_check == Some(false) {
            for c in table.checks.iter_mut().skip(checks_from) {
                c.not_trusted = true;
            }
            for f in table.foreign_keys.iter_mut().skip(fks_from) {
                f.not_trusted = true;
            }
            return Ok(());
        }
        let checks: Vec<usize> = (checks_from..table.checks.len()).collect();
        let fks: Vec<usize> = (fks_from..table.foreign_keys.len()).collect();
        self.validate_existing_rows(table, &checks, &fks)
    }

    /// `ALTER TABLE t [WITH CHECK | WITH NOCHECK] CHECK | NOCHECK CONSTRAINT ALL | names`.
    /// Disabling makes a constraint not trusted; re-enabling validates the rows only with
    /// `WITH CHECK` (then it is trusted again), otherwise it stays not trusted. Only CHECK and
    /// FOREIGN KEY constraints can be switched (4917 unknown name, 11415 other constraint).
    pub(crate) fn switch_constraints(
        &mut self,
        table: &mut TableDef,
        enable: bool,
        names: &[ast::Ident],
        with_check: Option<bool>,
    ) -> SqlResult<()> {
        let all = names.is_empty();
        for n in names {
            let known = table.checks.iter().any(|c| name_eq(&c.name, &n.value))
                || table
                    .foreign_keys
                    .iter()
                    .any(|c| name_eq(&c.name, &n.value));
            if known {
                continue;
            }
            let is_other = table
                .indexes
                .iter()
                .any(|i| (i.primary_key || i.unique_constraint) && name_eq(&i.name, &n.value))
                || table.columns.iter().any(|c| {
                    c.default_name
                        .as_deref()
                        .is_some_and(|d| name_eq(d, &n.value))
                });
            return Err(if is_other {
                SqlError::new(11415, &[&n.value])
            } else {
                SqlError::new(4917, &[&n.value])
            });
        }
        let picked = |name: &str| all || names.iter().any(|n| name_eq(&n.value, name));
        let checks: Vec<usize> = (0..table.checks.len())
            .filter(|&i| picked(&table.checks[i].name))
            .collect();
        let fks: Vec<usize> = (0..table.foreign_keys.len())
            .filter(|&i| picked(&table.foreign_keys[i].name))
            .collect();
        for &i in &checks {
            let c = &mut table.checks[i];
            c.disabled = !enable;
            c.not_trusted |= !enable;
        }
        for &i in &fks {
            let f = &mut table.foreign_keys[i];
            f.disabled = !enable;
            f.not_trusted |= !enable;
        }
        if enable && with_check == Some(true) {
            self.validate_existing_rows(table, &checks, &fks)?;
            for &i in &checks {
                table.checks[i].not_trusted = false;
            }
            for &i in &fks {
                table.foreign_keys[i].not_trusted = false;
            }
        }
        Ok(())
    }

    /// Checks every existing row of `table` against its CHECK constraints `checks` and foreign
    /// keys `fks` (positions), as `ALTER TABLE` (547 on the first violation).
    fn validate_existing_rows(
        &mut self,
        table: &TableDef,
        checks: &[usize],
        fks: &[usize],
    ) -> SqlResult<()> {
        if checks.is_empty() && fks.is_empty() {
            return Ok(());
        }
        let mut probe = table.clone();
        probe.checks = checks
            .iter()
            .map(|&i| {
                let mut c = table.checks[i].clone();
                c.disabled = false;
                c
            })
            .collect();
        probe.foreign_keys = fks
            .iter()
            .map(|&i| {
                let mut f = table.foreign_keys[i].clone();
                f.disabled = false;
                f
            })
            .collect();
        let (_, bound) = plan::bind_insert_target(&probe, &[], self)?;
        exec::validate_constraints(&Arc::new(probe), &bound, self)
    }
    /// Types the computed columns at positions `from..` of `table` from their expressions, as
    /// SQL Server does (a computed column has no declared type).
    pub(crate) fn type_computed_columns(&self, table: &mut TableDef, from: usize) -> SqlResult<()> {
        for i in from..table.columns.len() {
            let Some(text) = table.columns[i].computed.clone() else {
                continue;
            };
            let bound = plan::bind_table_expression(table, &text, self)?;
            check_no_computed_reference(table, &bound)?;
            table.columns[i].data_type = bound.data_type;
        }
        Ok(())
    }

    /// The definition of a column added to `table` by ALTER TABLE, a computed one typed from
    /// its expression over `table`'s columns.
    pub(crate) fn typed_column_def(
        &self,
        table: &TableDef,
        c: &ast::ColumnDefinition,
        table_name: &str,
    ) -> SqlResult<ColumnDef> {
        let mut col = self.column_def(c, table_name)?;
        if let Some(text) = &col.computed {
            let bound = plan::bind_table_expression(table, text, self)?;
            check_no_computed_reference(table, &bound)?;
            col.data_type = bound.data_type;
        }
        Ok(col)
    }
}

/// A computed column's expression may not use another computed column (Msg 1759): values are
/// computed from the stored columns, in no particular order.
fn check_no_computed_reference(table: &TableDef, bound: &plan::ScalarExpr) -> SqlResult<()> {
    let mut used = Vec::new();
    bound.columns_used(&mut used);
    for c in used {
        if let Some(col) = table.columns.get(c).filter(|col| col.computed.is_some()) {
            return Err(SqlError::new(1759, &[&col.name, &table.name]));
        }
    }
    Ok(())
}
