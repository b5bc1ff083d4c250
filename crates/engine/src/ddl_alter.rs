//! ALTER TABLE changes that rewrite a non-empty table's rows: ALTER COLUMN to another type or to
//! NOT NULL, and ADD of an IDENTITY column (existing rows numbered from the seed in storage order).
//!
//! Rows are converted first (any conversion error leaves the table untouched), then written into
//! fresh storage for the new definition, and the old storage is dropped, all in the statement's
//! transaction.

use std::sync::Arc;

use catalog::{TableDef, TableStorage};
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
        let txn = self.txn_for(&db)?;
        exec::table_io::create_table_storage(&h.store, txn, &mut new)?;
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
            let txn = self.txn_for(&db)?;
            if let TableStorage::Heap(hid) = table.storage {
                h.store.drop_object(txn, storage::ObjId(hid))?;
            }
            table.indexes[pos].storage_id = h.store.create_btree(txn)?.0;
            table.storage = TableStorage::Clustered { index: pos };
        } else {
            let txn = self.txn_for(&db)?;
            table.indexes[pos].storage_id = h.store.create_btree(txn)?.0;
            let snapshot = Arc::new(table.clone());
            self.fill_index(h, &snapshot, pos)?;
        }
        Ok(())
    }
}
