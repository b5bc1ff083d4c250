//! Index Seek / Clustered Index Seek (+ Key Lookup / RID Lookup for nonclustered indexes):
//! evaluates the seek values when opened (they may read outer-reference parameters, so the
//! inner side of a nested loops join re-seeks per outer row), converts them to byte bounds on
//! the index key encoding and range-scans the B-tree.

use std::ops::Bound;

use common::{SqlError, SqlResult};
use plan::{ScalarExpr, SeekRange, TableSource};
use storage::{BTreeScan, RowBatch, ScanDirection};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::locking::{TableAccess, TableLocker};
use crate::operator::Operator;
use crate::row_format::{encode_key_value, nc_locator};
use crate::table_io::TableStore;

/// Lower and upper byte bounds of a B-tree range scan.
type ByteRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

pub struct IndexSeek<'p> {
    source: &'p TableSource,
    index: usize,
    range: &'p SeekRange,
    predicate: Option<&'p ScalarExpr>,
    backward: bool,
    store: Option<TableStore>,
    scan: Option<BTreeScan>,
    batch: RowBatch,
    pos: usize,
    more: bool,
    row: Vec<Value>,
    /// Row locks (exec README "Locks"); asked for once, at the first open.
    locker: Option<Box<dyn TableLocker>>,
    locker_asked: bool,
}

impl<'p> IndexSeek<'p> {
    pub fn new(
        source: &'p TableSource,
        index: usize,
        range: &'p SeekRange,
        predicate: Option<&'p ScalarExpr>,
        backward: bool,
    ) -> Self {
        IndexSeek {
            source,
            index,
            range,
            predicate,
            backward,
            store: None,
            scan: None,
            batch: RowBatch::new(),
            pos: 0,
            more: false,
            row: Vec::new(),
            locker: None,
            locker_asked: false,
        }
    }

    /// Computes the byte bounds; None = the seek matches nothing.
    fn bounds(&self, ctx: &mut ExecCtx) -> SqlResult<Option<ByteRange>> {
        let table = &self.source.table;
        let ix = &table.indexes[self.index];
        let mut prefix = Vec::new();
        for (k, e) in self.range.eq.iter().enumerate() {
            let v = eval(e, &[], ctx)?;
            if v.is_null() {
                return Ok(None);
            }
            let (c, desc) = ix.key_columns[k];
            if encode_key_value(&v, &table.columns[c].data_type, desc, &mut prefix).is_err() {
                return Ok(None); // value cannot equal any key (out of the column's range)
            }
        }
        let succ = |b: &[u8]| types::key::successor(b);
        let mut lower: Bound<Vec<u8>> = if prefix.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Included(prefix.clone())
        };
        let mut upper: Bound<Vec<u8>> = match succ(&prefix) {
            Some(s) if !prefix.is_empty() => Bound::Excluded(s),
            _ => Bound::Unbounded,
        };
        if self.range.lower.is_some() || self.range.upper.is_some() {
            let Some(&(c, desc)) = ix.key_columns.get(self.range.eq.len()) else {
                return Err(SqlError::internal("seek range beyond the index key"));
            };
            let t = &table.columns[c].data_type;
            // exclude NULLs of the range column
            let mut nn = prefix.clone();
            if desc {
                nn.push(0xFF);
                upper = Bound::Excluded(nn);
            } else {
                nn.push(0x01);
                lower = Bound::Included(nn);
            }
            for (is_lower, b) in [(true, &self.range.lower), (false, &self.range.upper)] {
                let Some((e, inc)) = b else { continue };
                let v = eval(e, &[], ctx)?;
                if v.is_null() {
                    return Ok(None);
                }
                let mut bytes = prefix.clone();
                if encode_key_value(&v, t, desc, &mut bytes).is_err() {
                    continue; // bound out of the column's range: the residual re-checks it
                }
                // in byte order a descending column swaps lower and upper
                let byte_lower = is_lower != desc;
                if byte_lower {
                    lower = if *inc {
                        Bound::Included(bytes)
                    } else {
                        match succ(&bytes) {
                            Some(s) => Bound::Included(s),
                            None => return Ok(None),
                        }
                    };
                } else {
                    upper = if *inc {
                        match succ(&bytes) {
                            Some(s) => Bound::Excluded(s),
                            None => Bound::Unbounded,
                        }
                    } else {
                        Bound::Excluded(bytes)
                    };
                }
            }
        }
        Ok(Some((lower, upper)))
    }
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl Operator for IndexSeek<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        // the object lock first: a DDL holding Sch-M may change the storage meanwhile
        if !self.locker_asked {
            self.locker_asked = true;
            let access = if self.source.with_locator {
                TableAccess::Target
            } else {
                TableAccess::Read
            };
            self.locker =
                ctx.env
                    .table_locker(&self.source.table, &self.source.hints.all, access)?;
        }
        if self.store.is_none() {
            let db = ctx.env.storage(&self.source.table.database)?;
            self.store = Some(TableStore::open(db, self.source.table.clone())?);
        }
        self.batch.clear();
        self.pos = 0;
        self.scan = None;
        self.more = false;
        let Some((lo, hi)) = self.bounds(ctx)? else {
            return Ok(());
        };
        let Some(store) = &self.store else {
            return Ok(());
        };
        let bt = match &store.clustered {
            Some((p, bt)) if *p == self.index => bt.clone(),
            _ => match store.nonclustered.iter().find(|(p, _, _)| *p == self.index) {
                Some((_, bt, _)) => bt.clone(),
                None => return Err(SqlError::internal("seek index not found")),
            },
        };
        let dir = if self.backward {
            ScanDirection::Backward
        } else {
            ScanDirection::Forward
        };
        // one value of a unique key: SQL Server's STATISTICS IO shows "Scan count 0"
        let unique_point = self.range.lower.is_none()
            && self.range.upper.is_none()
            && self.source.table.indexes.get(self.index).is_some_and(|ix| {
                ix.unique
                    && !ix.key_columns.is_empty()
                    && self.range.eq.len() == ix.key_columns.len()
            });
        self.scan = Some(if unique_point {
            bt.range_unique_point(as_ref(&lo), as_ref(&hi), dir)?
        } else {
            bt.range(as_ref(&lo), as_ref(&hi), dir)?
        });
        self.more = true;
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let Some(store) = &self.store else {
            return Ok(false);
        };
        let clustered = matches!(&store.clustered, Some((p, _)) if *p == self.index);
        let covered = !clustered && self.source.covered_by(self.index);
        let include_format = store
            .nonclustered
            .iter()
            .find(|(p, _, _)| *p == self.index)
            .and_then(|(_, _, f)| f.as_ref());
        ctx.check_cancel()?;
        loop {
            if self.pos < self.batch.len() {
                let i = self.pos;
                self.pos += 1;
                self.row.clear();
                let locator: Vec<u8>;
                let locked = match &mut self.locker {
                    Some(l) if l.rows_need_locks() => Some(l),
                    _ => None,
                };
                if let Some(l) = locked {
                    // lock the row, then read it as the lock protects it (no latch is held
                    // here: the batch is a copy)
                    locator = if clustered {
                        self.batch.key(i).to_vec()
                    } else {
                        nc_locator(self.batch.record(i))?.to_vec()
                    };
                    if !l.lock_row(&locator)? {
                        continue;
                    }
                    let Some(rec) = store.fetch(&locator)? else {
                        l.row_read(&locator, false);
                        continue;
                    };
                    store.format.decode_needed(
                        &rec,
                        self.source.needed.as_deref(),
                        &mut self.row,
                    )?;
                    if self.source.with_locator {
                        self.row.push(Value::VarBinary(locator.clone()));
                    }
                    let pass = match self.predicate {
                        Some(p) => eval_pred(p, &self.row, ctx)?,
                        None => true,
                    };
                    if let Some(l) = &mut self.locker {
                        l.row_read(&locator, pass);
                    }
                    if !pass {
                        continue;
                    }
                    return Ok(true);
                }
                if clustered {
                    store
                        .format
                        .decode_into(self.batch.record(i), &mut self.row)?;
                    locator = self.batch.key(i).to_vec();
                } else if covered {
                    // covering index: the INCLUDE record holds every column read, no lookup
                    let rec = self.batch.record(i);
                    let skip = 2 + nc_locator(rec)?.len();
                    self.row
                        .resize(self.source.table.columns.len(), Value::Null);
                    if let (Some(fmt), Some(ix)) =
                        (include_format, self.source.table.indexes.get(self.index))
                    {
                        let mut vals = Vec::with_capacity(ix.included.len());
                        fmt.decode_into(rec.get(skip..).unwrap_or_default(), &mut vals)?;
                        for (&c, v) in ix.included.iter().zip(vals) {
                            if let Some(slot) = self.row.get_mut(c) {
                                *slot = v;
                            }
                        }
                    }
                    locator = Vec::new();
                } else {
                    locator = nc_locator(self.batch.record(i))?.to_vec();
                    let Some(rec) = store.fetch(&locator)? else {
                        continue;
                    };
                    store.format.decode_needed(
                        &rec,
                        self.source.needed.as_deref(),
                        &mut self.row,
                    )?;
                }
                if self.source.with_locator {
                    self.row.push(Value::VarBinary(locator));
                }
                if let Some(p) = self.predicate {
                    if !eval_pred(p, &self.row, ctx)? {
                        continue;
                    }
                }
                return Ok(true);
            }
            if !self.more {
                return Ok(false);
            }
            self.batch.clear();
            self.pos = 0;
            self.more = match &mut self.scan {
                Some(s) => s.next_batch(&mut self.batch)?,
                None => false,
            };
        }
    }

    fn row(&self) -> &[Value] {
        &self.row
    }

    fn close(&mut self) {
        self.scan = None;
    }
}
