//! Sort (with TOP N Sort and DISTINCT Sort). NULLs sort first ascending, as in SQL Server.
//! The sort is stable, so equal keys keep input order.
//!
//! A full sort stores the input rows flat (one `Vec<Value>`, fixed stride) and sorts a
//! permutation. When every key is an integer type the keys are pre-encoded into fixed-width
//! memcomparable bytes (NULL marker, big-endian with flipped sign, inverted when descending), so
//! comparisons are integer or `memcmp` comparisons instead of `Value` matches; keys of up to 16
//! bytes (e.g. two int columns) sort as `(u128, row index)` pairs; the row index breaks ties
//! (stable).
//!
//! External sort: when the buffered rows exceed the operator memory budget
//! (`ExecCtx::spill`), the buffer is sorted and written as a run (records = key part ++ row;
//! the key part is the pre-encoded integer key as one `varbinary`, or the key values) to a
//! tempdb work file. At the end the runs are merged with a binary heap, `fan_in` runs at a
//! time: while there are more runs than that, consecutive groups are merged into longer runs
//! (multi-pass), then the last pass streams. Ties between runs go to the earlier run, so the
//! external sort is as stable as the in-memory one. DISTINCT removes adjacent duplicates of
//! the merged stream; TOP N beyond the bounded heap's limit counts the merged rows. TOP N Sort
//! with a small N keeps its bounded buffer and never spills.

use std::cmp::Ordering;

use common::{SqlError, SqlResult};
use plan::{ScalarExpr, SortKey};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::spill::{heap_size, SpillFile, SpillReader, SpillWriter};
use crate::valops;

pub struct Sort<'p> {
    input: BoxOp<'p>,
    keys: Keys<'p>,
    top: Option<&'p ScalarExpr>,
    distinct: bool,
    /// TOP N Sort (bounded) rows: (keys, row).
    rows: Vec<(Vec<Value>, Vec<Value>)>,
    /// Full sort: flat rows (`width` values each) and the sorted permutation.
    flat: Vec<Value>,
    width: usize,
    order: Vec<u32>,
    bounded: bool,
    pos: usize,
    /// External sort: the merge of the spilled runs.
    merge: Option<Merge>,
    /// Merge mode: the current record (key part ++ row) and a spare buffer.
    cur: Vec<Value>,
    spare: Vec<Value>,
    /// Values of the key part of a run record.
    nkey: usize,
    /// Merge mode: rows still to produce (TOP).
    left: Option<usize>,
    emitted: bool,
}

/// The sort keys: borrowed from the plan, or built by the operator that owns the sort (the
/// window sorts its input by keys it derives from its calls).
#[derive(Clone)]
enum Keys<'p> {
    Plan(&'p [SortKey]),
    Owned(std::rc::Rc<[SortKey]>),
}

impl std::ops::Deref for Keys<'_> {
    type Target = [SortKey];
    fn deref(&self) -> &[SortKey] {
        match self {
            Keys::Plan(k) => k,
            Keys::Owned(k) => k,
        }
    }
}

/// Work table name in error messages about sort runs.
const SORT_OBJECT: &str = "dbo.SORT temporary run storage";

/// Read buffer memory per merged run, to derive the merge fan-in from the budget.
const RUN_BUFFER: usize = 128 << 10;

/// Rows between two checks of the buffer's memory against the budget.
const CHECK_ROWS: usize = 32;

/// True when `t` sorts as a plain integer (pre-encodable key).
fn int_sort_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::BigInt | DataType::SmallInt | DataType::TinyInt
    )
}

/// Width of the memcomparable encoding of an integer key of type `t`: a NULL marker byte plus
/// 4 bytes (int and narrower) or 8 bytes (bigint).
fn int_key_width(t: &DataType) -> usize {
    if matches!(t, DataType::BigInt) {
        9
    } else {
        5
    }
}

/// Appends the `width`-byte memcomparable encoding of an integer key value.
fn encode_int_key(v: &Value, desc: bool, width: usize, out: &mut Vec<u8>) -> SqlResult<()> {
    let n = match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as i64),
        Value::BigInt(i) => Some(*i),
        Value::SmallInt(i) => Some(*i as i64),
        Value::TinyInt(i) => Some(*i as i64),
        _ => {
            return Err(SqlError::internal(
                "non-integer value in an integer sort key",
            ))
        }
    };
    let mut b = [0u8; 9];
    if let Some(n) = n {
        b[0] = 1;
        if width == 9 {
            b[1..].copy_from_slice(&((n as u64) ^ (1 << 63)).to_be_bytes());
        } else {
            let n = i32::try_from(n)
                .map_err(|_| SqlError::internal("sort key value out of range of its type"))?;
            b[1..5].copy_from_slice(&((n as u32) ^ (1 << 31)).to_be_bytes());
        }
    }
    let b = &mut b[..width];
    if desc {
        for x in b.iter_mut() {
            *x = !*x;
        }
    }
    out.extend_from_slice(b);
    Ok(())
}

impl<'p> Sort<'p> {
    pub fn new(
        input: BoxOp<'p>,
        keys: &'p [SortKey],
        top: Option<&'p ScalarExpr>,
        distinct: bool,
    ) -> Self {
        Sort::with_keys(input, Keys::Plan(keys), top, distinct)
    }

    /// A full sort of `input` by keys the caller builds (no TOP, no DISTINCT).
    pub(crate) fn owned(input: BoxOp<'p>, keys: Vec<SortKey>) -> Self {
        Sort::with_keys(input, Keys::Owned(keys.into()), None, false)
    }

    fn with_keys(
        input: BoxOp<'p>,
        keys: Keys<'p>,
        top: Option<&'p ScalarExpr>,
        distinct: bool,
    ) -> Self {
        Sort {
            input,
            keys,
            top,
            distinct,
            rows: Vec::new(),
            flat: Vec::new(),
            width: 0,
            order: Vec::new(),
            bounded: false,
            pos: 0,
            merge: None,
            cur: Vec::new(),
            spare: Vec::new(),
            nkey: 0,
            left: None,
            emitted: false,
        }
    }
}

/// Compares two key vectors under the sort specification.
pub(crate) fn cmp_keys(keys: &[SortKey], a: &[Value], b: &[Value]) -> Ordering {
    for (i, k) in keys.iter().enumerate() {
        let o = valops::sort_cmp(&a[i], &b[i]);
        let o = if k.desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// How the keys of a full sort are compared.
struct KeySpec {
    /// Every key is an integer type: keys are pre-encoded (`encode_int_key`).
    int_keys: bool,
    widths: Vec<usize>,
    /// Total encoded key width.
    kw: usize,
}

impl KeySpec {
    fn new(keys: &[SortKey]) -> KeySpec {
        let widths: Vec<usize> = keys
            .iter()
            .map(|k| int_key_width(&k.expr.data_type))
            .collect();
        KeySpec {
            int_keys: keys.iter().all(|k| int_sort_type(&k.expr.data_type)),
            kw: widths.iter().sum(),
            widths,
        }
    }

    /// Values in the key part of a run record.
    fn nkey(&self, keys: &[SortKey]) -> usize {
        if self.int_keys {
            1
        } else {
            keys.len()
        }
    }
}

/// Sorted permutation of `n` buffered rows (stable).
fn sort_order(
    keys: &[SortKey],
    spec: &KeySpec,
    enc: &[u8],
    kvals: &[Value],
    n: usize,
) -> SqlResult<Vec<u32>> {
    if n > u32::MAX as usize {
        return Err(SqlError::internal("too many rows to sort"));
    }
    let kw = spec.kw;
    let mut order: Vec<u32> = (0..n as u32).collect();
    if spec.int_keys {
        if kw <= 16 {
            // keys fit in 16 bytes: sort (key, index) pairs of plain integers (the index
            // makes equal keys keep input order)
            let mut pairs: Vec<(u128, u32)> = (0..n)
                .map(|i| {
                    let mut b = [0u8; 16];
                    b[16 - kw..].copy_from_slice(&enc[i * kw..(i + 1) * kw]);
                    (u128::from_be_bytes(b), i as u32)
                })
                .collect();
            pairs.sort_unstable();
            order = pairs.into_iter().map(|p| p.1).collect();
        } else {
            // stable: equal keys keep input order
            order.sort_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                enc[a * kw..(a + 1) * kw].cmp(&enc[b * kw..(b + 1) * kw])
            });
        }
    } else {
        let nk = keys.len();
        order.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            cmp_keys(
                keys,
                &kvals[a * nk..(a + 1) * nk],
                &kvals[b * nk..(b + 1) * nk],
            )
        });
    }
    Ok(order)
}

/// True when two rows are equal for DISTINCT.
pub(crate) fn rows_equal(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| valops::sort_cmp(x, y) == Ordering::Equal)
}

/// Sorts the buffered rows and writes them as one run (key part ++ row per record).
#[allow(clippy::too_many_arguments)]
fn write_run(
    ctx: &mut ExecCtx,
    keys: &[SortKey],
    spec: &KeySpec,
    flat: &[Value],
    w: usize,
    enc: &[u8],
    kvals: &[Value],
    n: usize,
) -> SqlResult<SpillFile> {
    let order = sort_order(keys, spec, enc, kvals, n)?;
    let mut out = SpillWriter::create(ctx, SORT_OBJECT)?;
    let nk = keys.len();
    let kw = spec.kw;
    for &i in &order {
        let i = i as usize;
        let row = &flat[i * w..(i + 1) * w];
        if spec.int_keys {
            out.write_keyed(&enc[i * kw..(i + 1) * kw], row)?;
        } else {
            out.write_parts(&kvals[i * nk..(i + 1) * nk], row)?;
        }
    }
    out.finish(ctx)
}

/// K-way merge of sorted runs: a binary min-heap of run indexes ordered by (key part, run).
struct Merge {
    /// Keeps the files alive (deleted on drop).
    _runs: Vec<SpillFile>,
    readers: Vec<SpillReader>,
    /// Current record of each run.
    recs: Vec<Vec<Value>>,
    heap: Vec<usize>,
    nkey: usize,
    int_keys: bool,
}

impl Merge {
    fn new(
        runs: Vec<SpillFile>,
        nkey: usize,
        int_keys: bool,
        keys: &[SortKey],
    ) -> SqlResult<Merge> {
        let mut readers = Vec::with_capacity(runs.len());
        let mut recs = Vec::with_capacity(runs.len());
        let mut heap = Vec::with_capacity(runs.len());
        for (i, r) in runs.iter().enumerate() {
            let mut rd = r.reader()?;
            let mut rec = Vec::new();
            if rd.next_row(&mut rec)? {
                if rec.len() < nkey {
                    return Err(SqlError::internal("damaged sort run"));
                }
                heap.push(i);
            }
            readers.push(rd);
            recs.push(rec);
        }
        let mut m = Merge {
            _runs: runs,
            readers,
            recs,
            heap,
            nkey,
            int_keys,
        };
        for i in (0..m.heap.len() / 2).rev() {
            m.sift_down(keys, i);
        }
        Ok(m)
    }

    /// Orders runs `a` and `b` by their current records (earlier run first on ties).
    fn less(&self, keys: &[SortKey], a: usize, b: usize) -> bool {
        let (ra, rb) = (&self.recs[a], &self.recs[b]);
        let o = if self.int_keys {
            match (&ra[0], &rb[0]) {
                (Value::VarBinary(x), Value::VarBinary(y)) => x.cmp(y),
                _ => Ordering::Equal,
            }
        } else {
            cmp_keys(keys, &ra[..self.nkey], &rb[..self.nkey])
        };
        o.then(a.cmp(&b)) == Ordering::Less
    }

    fn sift_down(&mut self, keys: &[SortKey], mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                return;
            }
            let mut c = l;
            if l + 1 < n && self.less(keys, self.heap[l + 1], self.heap[l]) {
                c = l + 1;
            }
            if self.less(keys, self.heap[c], self.heap[i]) {
                self.heap.swap(c, i);
                i = c;
            } else {
                return;
            }
        }
    }

    /// Moves the smallest record into `out` and advances its run; false when all are done.
    fn pop(&mut self, keys: &[SortKey], out: &mut Vec<Value>) -> SqlResult<bool> {
        let Some(&top) = self.heap.first() else {
            return Ok(false);
        };
        std::mem::swap(out, &mut self.recs[top]);
        if self.readers[top].next_row(&mut self.recs[top])? {
            if self.recs[top].len() < self.nkey {
                return Err(SqlError::internal("damaged sort run"));
            }
        } else if let Some(last) = self.heap.pop() {
            if self.heap.is_empty() {
                return Ok(true);
            }
            self.heap[0] = last;
        }
        self.sift_down(keys, 0);
        Ok(true)
    }
}

impl Sort<'_> {
    /// Full (unbounded) sort: rows flat, permutation sorted by pre-encoded or `Value` keys;
    /// runs spilled to work files when the budget is exceeded.
    fn full_sort(&mut self, limit: Option<usize>, ctx: &mut ExecCtx) -> SqlResult<()> {
        let keys = self.keys.clone();
        let keys: &[SortKey] = &keys;
        let spec = KeySpec::new(keys);
        let budget = ctx.spill.operator_budget;
        let mut enc: Vec<u8> = Vec::new();
        let mut kvals: Vec<Value> = Vec::new();
        let mut width: Option<usize> = None;
        let mut n = 0usize;
        // memory is checked every CHECK_ROWS rows: string/binary payload of the rows since the
        // last check is added to `heap`, the fixed part follows from the buffer lengths
        let mut heap = 0usize;
        let mut checked = 0usize;
        let nk = if spec.int_keys { 0 } else { keys.len() };
        let mut runs: Vec<SpillFile> = Vec::new();
        while self.input.next(ctx)? {
            let row = self.input.row();
            for (key, &width) in keys.iter().zip(&spec.widths) {
                let owned;
                let v = match key.expr.as_column() {
                    Some(i) => row.get(i).unwrap_or(&Value::Null),
                    None => {
                        owned = eval(&key.expr, row, ctx)?;
                        &owned
                    }
                };
                if spec.int_keys {
                    encode_int_key(v, key.desc, width, &mut enc)?;
                } else {
                    kvals.push(v.clone());
                }
            }
            let w = *width.get_or_insert(row.len());
            let start = self.flat.len();
            self.flat.extend_from_slice(&row[..row.len().min(w)]);
            self.flat.resize(start + w, Value::Null);
            n += 1;
            if n - checked >= CHECK_ROWS {
                heap += heap_size(&self.flat[checked * w..n * w])
                    + heap_size(&kvals[checked * nk..n * nk]);
                checked = n;
                let bytes = (self.flat.len() + kvals.len()) * std::mem::size_of::<Value>()
                    + enc.len()
                    + 4 * n
                    + heap;
                if bytes > budget {
                    runs.push(write_run(ctx, keys, &spec, &self.flat, w, &enc, &kvals, n)?);
                    self.flat.clear();
                    enc.clear();
                    kvals.clear();
                    n = 0;
                    heap = 0;
                    checked = 0;
                }
            }
        }
        self.width = width.unwrap_or(0);
        if runs.is_empty() {
            self.order = sort_order(keys, &spec, &enc, &kvals, n)?;
            if self.distinct {
                let w = self.width;
                let flat = &self.flat;
                self.order.dedup_by(|a, b| {
                    let (a, b) = (*a as usize, *b as usize);
                    rows_equal(&flat[a * w..(a + 1) * w], &flat[b * w..(b + 1) * w])
                });
            }
            if let Some(n) = limit {
                self.order.truncate(n);
            }
            return Ok(());
        }
        if n > 0 {
            runs.push(write_run(
                ctx, keys, &spec, &self.flat, self.width, &enc, &kvals, n,
            )?);
        }
        self.flat = Vec::new();
        drop((enc, kvals));
        let nkey = spec.nkey(keys);
        let fan_in = (budget / RUN_BUFFER).clamp(2, 64);
        // multi-pass: merge consecutive groups (keeps ties in input order)
        let mut rec = Vec::new();
        while runs.len() > fan_in {
            let mut merged = Vec::with_capacity(runs.len().div_ceil(fan_in));
            let mut rest = runs.into_iter();
            loop {
                let group: Vec<SpillFile> = rest.by_ref().take(fan_in).collect();
                if group.is_empty() {
                    break;
                }
                let mut m = Merge::new(group, nkey, spec.int_keys, keys)?;
                let mut out = SpillWriter::create(ctx, SORT_OBJECT)?;
                while m.pop(keys, &mut rec)? {
                    out.write_row(&rec)?;
                }
                merged.push(out.finish(ctx)?);
            }
            runs = merged;
        }
        self.nkey = nkey;
        self.left = limit;
        self.emitted = false;
        self.merge = Some(Merge::new(runs, nkey, spec.int_keys, keys)?);
        Ok(())
    }

    /// Next row of the final merge into `cur`.
    #[inline(never)]
    fn merge_next(&mut self) -> SqlResult<bool> {
        let keys = self.keys.clone();
        let keys: &[SortKey] = &keys;
        let Some(m) = self.merge.as_mut() else {
            return Ok(false);
        };
        if self.left == Some(0) {
            return Ok(false);
        }
        loop {
            if !m.pop(keys, &mut self.spare)? {
                return Ok(false);
            }
            if self.distinct
                && self.emitted
                && rows_equal(&self.spare[self.nkey..], &self.cur[self.nkey..])
            {
                continue;
            }
            std::mem::swap(&mut self.cur, &mut self.spare);
            self.emitted = true;
            if let Some(l) = self.left.as_mut() {
                *l -= 1;
            }
            return Ok(true);
        }
    }
}

impl Operator for Sort<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.rows.clear();
        self.pos = 0;
        self.merge = None;
        let limit = match self.top {
            Some(e) => match valops::cast(&eval(e, &[], ctx)?, &DataType::BigInt)? {
                Value::BigInt(n) => Some(n.max(0) as usize),
                _ => None,
            },
            None => None,
        };
        self.input.open(ctx)?;
        let keys = self.keys.clone();
        let keys: &[SortKey] = &keys;
        let mut kbuf: Vec<Value> = Vec::with_capacity(keys.len());
        // TOP N: keep the best n rows sorted; a row not better than the worst is dropped
        // without copying it
        let bounded = limit.filter(|&n| n <= 4096 && !self.distinct);
        self.bounded = bounded.is_some();
        self.flat.clear();
        self.order.clear();
        if bounded.is_none() {
            self.full_sort(limit, ctx)?;
            self.input.close();
            return Ok(());
        }
        while self.input.next(ctx)? {
            let row = self.input.row();
            kbuf.clear();
            for key in keys {
                kbuf.push(match key.expr.as_column() {
                    Some(i) => row.get(i).cloned().unwrap_or(Value::Null),
                    None => eval(&key.expr, row, ctx)?,
                });
            }
            if let Some(n) = bounded {
                if n == 0 {
                    continue;
                }
                if self.rows.len() == n {
                    let worst = &self.rows[n - 1].0;
                    if cmp_keys(keys, &kbuf, worst) != Ordering::Less {
                        continue;
                    }
                    self.rows.pop();
                }
                // insert after equal keys (stable)
                let pos = self
                    .rows
                    .partition_point(|r| cmp_keys(keys, &r.0, &kbuf) != Ordering::Greater);
                self.rows.insert(pos, (kbuf.clone(), row.to_vec()));
                continue;
            }
            self.rows.push((kbuf.clone(), row.to_vec()));
        }
        self.input.close();
        if bounded.is_none() {
            self.rows.sort_by(|a, b| cmp_keys(keys, &a.0, &b.0));
        }
        if self.distinct {
            self.rows.dedup_by(|a, b| {
                a.1.len() == b.1.len()
                    && a.1
                        .iter()
                        .zip(&b.1)
                        .all(|(x, y)| valops::sort_cmp(x, y) == Ordering::Equal)
            });
        }
        if let Some(n) = limit {
            self.rows.truncate(n);
        }
        Ok(())
    }

    fn next(&mut self, _ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.merge.is_some() {
            return self.merge_next();
        }
        let n = if self.bounded {
            self.rows.len()
        } else {
            self.order.len()
        };
        if self.pos < n {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn row(&self) -> &[Value] {
        if self.merge.is_some() {
            return self.cur.get(self.nkey..).unwrap_or(&[]);
        }
        if !self.bounded {
            let w = self.width;
            return match self.pos.checked_sub(1).and_then(|i| self.order.get(i)) {
                Some(&r) => self
                    .flat
                    .get(r as usize * w..(r as usize + 1) * w)
                    .unwrap_or(&[]),
                None => &[],
            };
        }
        match self.pos.checked_sub(1).and_then(|i| self.rows.get(i)) {
            Some(r) => &r.1,
            None => &[],
        }
    }

    fn close(&mut self) {
        self.merge = None;
        self.flat = Vec::new();
        self.order = Vec::new();
        self.rows = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constant_scan::ConstantScan;
    use crate::spill::{SpillConfig, TestEnv};

    /// Runs a DISTINCT sort (optionally with TOP) over `rows` under `budget`.
    fn run(
        rows: &[Vec<ScalarExpr>],
        keys: &[SortKey],
        top: Option<&ScalarExpr>,
        budget: usize,
        dir: &std::path::Path,
    ) -> (Vec<Vec<Value>>, u64) {
        let mut env = TestEnv(SpillConfig {
            operator_budget: budget,
            dir: Some(dir.into()),
        });
        let mut ctx = ExecCtx::new(&mut env);
        let mut s = Sort::new(Box::new(ConstantScan::new(rows)), keys, top, true);
        s.open(&mut ctx).unwrap();
        let mut out = Vec::new();
        while s.next(&mut ctx).unwrap() {
            out.push(s.row().to_vec());
        }
        s.close();
        (out, ctx.spill_stats.files)
    }

    #[test]
    fn distinct_sort_spilled_equals_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let vc = DataType::VarChar(Some(10));
        let rows: Vec<Vec<ScalarExpr>> = (0..3000i32)
            .map(|i| {
                let k = (i * 7919) % 61;
                let s = if i % 2 == 0 { "a" } else { "A" };
                vec![
                    if i % 13 == 0 {
                        ScalarExpr::literal(Value::Null, DataType::Int)
                    } else {
                        ScalarExpr::literal(Value::Int(k), DataType::Int)
                    },
                    ScalarExpr::literal(Value::VarChar(format!("{s}{}", i % 7)), vc.clone()),
                ]
            })
            .collect();
        let keys = vec![
            SortKey {
                expr: ScalarExpr::column(1, vc.clone()),
                desc: true,
            },
            SortKey {
                expr: ScalarExpr::column(0, DataType::Int),
                desc: false,
            },
        ];
        let (mem, f0) = run(&rows, &keys, None, usize::MAX, dir.path());
        assert_eq!(f0, 0);
        // 7 case-insensitive strings x (61 keys + NULL)
        assert_eq!(mem.len(), 7 * 62);
        let (spilled, f1) = run(&rows, &keys, None, 4 << 10, dir.path());
        assert!(f1 > 4, "{f1}");
        assert_eq!(mem, spilled);
        let top = ScalarExpr::literal(Value::BigInt(100), DataType::BigInt);
        let (spilled, _) = run(&rows, &keys, Some(&top), 4 << 10, dir.path());
        assert_eq!(&mem[..100], &spilled[..]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
