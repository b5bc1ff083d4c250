//! DBCC's logical check of a table: every row of the base table (heap or clustered index) has
//! exactly the entry it should have in each nonclustered rowstore index, and every index entry
//! points at a row that expects it (exec README invariant 1).
//!
//! The expected entries are recomputed from the base rows with the same key encoding the DML
//! path writes (`row_format::encode_index_key`, + locator for non-unique indexes) and compared
//! with the entries read from the index B-tree as sorted `(key, locator)` lists.

use std::ops::Bound;

use catalog::TableDef;
use common::SqlResult;
use plan::catalog;
use storage::{RowBatch, ScanDirection};
use types::Value;

use crate::row_format::{encode_index_key, nc_locator};
use crate::table_io::TableStore;

/// A base row that has no matching entry in an index (SQL Server 8951 / 8955).
#[derive(Clone, Debug)]
pub struct MissingEntry {
    /// The row's locator (heap RID bytes or clustered key).
    pub locator: Vec<u8>,
    pub row: Vec<Value>,
}

/// An index entry that matches no base row (SQL Server 8952 / 8956).
#[derive(Clone, Debug)]
pub struct ExtraEntry {
    pub key: Vec<u8>,
    pub locator: Vec<u8>,
}

/// The differences between one nonclustered index and its base table.
#[derive(Clone, Debug, Default)]
pub struct IndexDiff {
    /// Position of the index in `TableDef::indexes`.
    pub index: usize,
    pub missing: Vec<MissingEntry>,
    pub extra: Vec<ExtraEntry>,
}

/// Rows and pages of a table's base object (`There are N rows in M pages ...`) and the
/// differences of each nonclustered index (only indexes with a difference are listed; none
/// when `check_indexes` is false: NOINDEX / PHYSICAL_ONLY).
#[derive(Clone, Debug, Default)]
pub struct TableCheck {
    pub rows: u64,
    pub pages: u64,
    pub diffs: Vec<IndexDiff>,
}

/// Counts the base rows of `store`'s table and, when `check_indexes`, compares every
/// nonclustered index with them. Reads the whole table once plus each index once; holds the
/// expected `(key, locator)` pairs of every index (a sort-based check, like SQL Server's
/// fact tables, would spill them: not yet).
pub fn check_table(store: &TableStore, check_indexes: bool) -> SqlResult<TableCheck> {
    let table = store.table.clone();
    let base = match (&store.heap, &store.clustered) {
        (Some(h), _) => h.id(),
        (None, Some((_, bt))) => bt.id(),
        (None, None) => return Ok(TableCheck::default()),
    };
    let mut out = TableCheck {
        pages: store.db.page_count(base)?,
        ..TableCheck::default()
    };
    // expected entries of every index, filled in one pass over the base rows
    let mut expected: Vec<Vec<(Vec<u8>, Vec<u8>)>> = vec![Vec::new(); store.nonclustered.len()];
    store.for_each_row(&mut |row, locator| {
        out.rows += 1;
        if !check_indexes {
            return Ok(());
        }
        for (k, (pos, _, _)) in store.nonclustered.iter().enumerate() {
            let ix = &table.indexes[*pos];
            if ix.filter.is_some() {
                continue;
            }
            let mut key = Vec::new();
            encode_index_key(&table, ix, row, &mut key)?;
            if !ix.unique {
                key.extend_from_slice(locator);
            }
            expected[k].push((key, locator.to_vec()));
        }
        Ok(())
    })?;
    if !check_indexes {
        return Ok(out);
    }
    for (k, (pos, bt, _)) in store.nonclustered.iter().enumerate() {
        if table.indexes[*pos].filter.is_some() {
            // a filtered index holds only the rows its predicate accepts: not compared yet
            continue;
        }
        let mut want = std::mem::take(&mut expected[k]);
        want.sort();
        let mut have: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut scan = bt.range(Bound::Unbounded, Bound::Unbounded, ScanDirection::Forward)?;
        let mut batch = RowBatch::new();
        loop {
            batch.clear();
            let more = scan.next_batch(&mut batch)?;
            for i in 0..batch.len() {
                have.push((batch.key(i).to_vec(), nc_locator(batch.record(i))?.to_vec()));
            }
            if !more {
                break;
            }
        }
        have.sort();
        let mut diff = IndexDiff {
            index: *pos,
            ..IndexDiff::default()
        };
        let (mut i, mut j) = (0, 0);
        while i < want.len() || j < have.len() {
            let ord = match (want.get(i), have.get(j)) {
                (Some(w), Some(h)) => w.cmp(h),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match ord {
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                std::cmp::Ordering::Less => {
                    let loc = &want[i].1;
                    let mut row = Vec::new();
                    if let Some(rec) = store.fetch(loc)? {
                        store.format.decode_into(&rec, &mut row)?;
                    }
                    diff.missing.push(MissingEntry {
                        locator: loc.clone(),
                        row,
                    });
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    diff.extra.push(ExtraEntry {
                        key: have[j].0.clone(),
                        locator: have[j].1.clone(),
                    });
                    j += 1;
                }
            }
        }
        if !diff.missing.is_empty() || !diff.extra.is_empty() {
            out.diffs.push(diff);
        }
    }
    Ok(out)
}

/// `a = 5 and id = 3`: the values of `cols` of `row` as DBCC prints them.
pub fn column_values_text(table: &TableDef, cols: &[usize], row: &[Value]) -> String {
    cols.iter()
        .map(|&c| {
            let name = table.columns.get(c).map_or("?", |c| c.name.as_str());
            let v = match row.get(c) {
                None | Some(Value::Null) => "NULL".to_string(),
                Some(
                    v @ (Value::VarChar(_) | Value::NVarChar(_) | Value::Char(_) | Value::NChar(_)),
                ) => {
                    format!(
                        "'{}'",
                        v.to_sql_text_as(&table.columns[c].data_type).trim_end()
                    )
                }
                Some(v) => v.to_sql_text_as(&table.columns[c].data_type),
            };
            format!("{name} = {v}")
        })
        .collect::<Vec<_>>()
        .join(" and ")
}
