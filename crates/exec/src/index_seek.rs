//! Index Seek / Clustered Index Seek (+ Key Lookup / RID Lookup for nonclustered indexes):
//! evaluates the seek values when opened (they may read outer-reference parameters, so the
//! inner side of a nested loops join re-seeks per outer row), converts them to byte bounds on
//! the index key encoding and range-scans the B-tree.

use std::collections::VecDeque;
use std::ops::Bound;

use common::{SqlError, SqlResult};
use plan::{ScalarExpr, SeekRange, TableSource};
use storage::{BTreeScan, RowBatch, ScanDirection};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::key_range;
use crate::locking::{TableAccess, TableLocker};
use crate::operator::Operator;
use crate::row_format::{encode_index_key, encode_key_value, nc_locator};
use crate::table_io::TableStore;
use crate::versions::{ReadOrder, VersionedReader};

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
    /// A snapshot read (`crate::versions`): index entries merged with the versioned rows
    /// the snapshot sees in the seek's range, in the index's order.
    versioned: Option<VersionedReader>,
    /// Rows to produce next under a snapshot: (locator, record), in order.
    vqueue: VecDeque<(Vec<u8>, Vec<u8>)>,
    vdrained: bool,
    seek_range: Option<ByteRange>,
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
            versioned: None,
            vqueue: VecDeque::new(),
            vdrained: false,
            seek_range: None,
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

/// True if byte key `k` lies between the seek's bounds.
fn within(k: &[u8], lo: &Bound<Vec<u8>>, hi: &Bound<Vec<u8>>) -> bool {
    let above = match lo {
        Bound::Included(b) => k >= b.as_slice(),
        Bound::Excluded(b) => k > b.as_slice(),
        Bound::Unbounded => true,
    };
    let below = match hi {
        Bound::Included(b) => k <= b.as_slice(),
        Bound::Excluded(b) => k < b.as_slice(),
        Bound::Unbounded => true,
    };
    above && below
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
        self.versioned = None;
        self.vqueue.clear();
        self.vdrained = false;
        let Some((lo, hi)) = self.bounds(ctx)? else {
            return Ok(());
        };
        if let Some(r) = self.locker.as_ref().and_then(|l| l.snapshot()) {
            let order = if self.backward {
                ReadOrder::Backward
            } else {
                ReadOrder::Forward
            };
            self.versioned = Some(VersionedReader::new(r, order));
            self.seek_range = Some((lo.clone(), hi.clone()));
        }
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
        if self.versioned.is_none() {
            if let Some(l) = self.locker.as_mut().filter(|l| l.locks_key_ranges()) {
                // clustered keys are index 1's, as the row locks' (engine locks/mod.rs)
                let index_id = match &store.clustered {
                    Some((p, _)) if *p == self.index => 1,
                    _ => self.source.table.indexes[self.index].index_id,
                };
                key_range::lock_range(
                    l.as_mut(),
                    &bt,
                    index_id,
                    as_ref(&lo),
                    as_ref(&hi),
                    unique_point,
                )?;
            }
        }
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
        let table = &self.source.table;
        let index = self.index;
        let range = &self.seek_range;
        let order_key = |loc: &[u8], rec: &[u8]| -> SqlResult<Option<Vec<u8>>> {
            let k = if clustered {
                loc.to_vec()
            } else {
                let ix = &table.indexes[index];
                let mut vals = Vec::new();
                store.format.decode_into(rec, &mut vals)?;
                let mut k = Vec::new();
                encode_index_key(table, ix, &vals, &mut k)?;
                if !ix.unique {
                    k.extend_from_slice(loc);
                }
                k
            };
            Ok(range
                .as_ref()
                .is_none_or(|(lo, hi)| within(&k, lo, hi))
                .then_some(k))
        };
        let fetch = |loc: &[u8]| store.fetch(loc);
        loop {
            if self.versioned.is_some() {
                if let Some((loc, rec)) = self.vqueue.pop_front() {
                    self.row.clear();
                    store.format.decode_needed(
                        &rec,
                        self.source.needed.as_deref(),
                        &mut self.row,
                    )?;
                    if self.source.with_locator {
                        self.row.push(Value::VarBinary(loc));
                    }
                    if let Some(p) = self.predicate {
                        if !eval_pred(p, &self.row, ctx)? {
                            continue;
                        }
                    }
                    return Ok(true);
                }
            }
            if let (Some(vr), true) = (&mut self.versioned, self.pos < self.batch.len()) {
                let i = self.pos;
                self.pos += 1;
                let k = self.batch.key(i).to_vec();
                let loc = if clustered {
                    k.clone()
                } else {
                    nc_locator(self.batch.record(i))?.to_vec()
                };
                let rec = loop {
                    vr.sync(&fetch, &order_key)?;
                    self.vqueue.extend(vr.before(Some(&k)));
                    if clustered {
                        break Some(self.batch.record(i).to_vec());
                    }
                    // the row as stored now; valid only if nothing was written meanwhile
                    let rec = store.fetch(&loc)?;
                    if vr.current() {
                        break rec;
                    }
                };
                if vr.keep(&loc, Some(&k)) {
                    if let Some(rec) = rec {
                        self.vqueue.push_back((loc, rec));
                    }
                }
                continue;
            }
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
                if let (Some(vr), false) = (&mut self.versioned, self.vdrained) {
                    self.vdrained = true;
                    vr.sync(&fetch, &order_key)?;
                    self.vqueue.extend(vr.before(None));
                    continue;
                }
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
