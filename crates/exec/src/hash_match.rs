//! Hash Match join. Builds a hash table on the right input, probes with the left input (so the
//! output is left ++ right for every kind). Supports inner, left/right/full outer, left semi and
//! left anti semi, with a residual predicate. Rows with a NULL key never match.
//!
//! Build rows live in one vector; equal keys are chained through `next` (no per-key
//! allocation). A single integer key uses an `i64`-keyed table; other keys are encoded into a
//! reused byte buffer (`valops::hash_key`) and probed by slice, so probing allocates nothing.

use common::SqlResult;
use hashbrown::HashMap;
use plan::{JoinKind, ScalarExpr};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::operator::{BoxOp, Operator};
use crate::valops;

const END: u32 = u32::MAX;

enum Table {
    Int(HashMap<i64, u32>),
    /// Dense single integer key: `heads[k - min]` (direct addressing, no hashing; chosen when
    /// the build keys span at most ~4 slots per build row).
    Dense {
        min: i64,
        heads: Vec<u32>,
    },
    Bytes(HashMap<Box<[u8]>, u32>),
}

pub struct HashJoin<'p> {
    left: BoxOp<'p>,
    right: BoxOp<'p>,
    kind: JoinKind,
    left_keys: &'p [ScalarExpr],
    right_keys: &'p [ScalarExpr],
    residual: Option<&'p ScalarExpr>,
    left_arity: usize,
    right_arity: usize,
    table: Table,
    /// chain: next build row with the same key
    next: Vec<u32>,
    /// Build rows, flat: row i is `build[i * w..(i + 1) * w]`, `w = keep.len()`: only the
    /// right columns that can be non-NULL are stored (a pruned scan leaves the others NULL).
    build: Vec<Value>,
    /// Right input columns stored in `build`, ascending; `None` = all of them.
    keep: Option<Vec<usize>>,
    build_len: usize,
    /// Integer build keys, one per build row, until `index_int_keys` indexes them.
    int_keys: Vec<Option<i64>>,
    build_matched: Vec<bool>,
    keybuf: Vec<u8>,
    cur: Vec<Value>,
    /// Current probe candidate (build row index) or END.
    cand: u32,
    probe_matched: bool,
    probe_active: bool,
    /// `cur` starts with the current probe row.
    probe_copied: bool,
    /// Emitting unmatched build rows (right/full outer) from this index.
    tail: Option<usize>,
}

fn int_key_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::BigInt | DataType::SmallInt | DataType::TinyInt
    )
}

impl<'p> HashJoin<'p> {
    /// `right_decoded`: which right input columns can be non-NULL (see
    /// `operator::decoded_columns`); None = all.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        left: BoxOp<'p>,
        right: BoxOp<'p>,
        kind: JoinKind,
        left_keys: &'p [ScalarExpr],
        right_keys: &'p [ScalarExpr],
        residual: Option<&'p ScalarExpr>,
        left_arity: usize,
        right_arity: usize,
        right_decoded: Option<Vec<bool>>,
    ) -> Self {
        let int = left_keys.len() == 1
            && right_keys.len() == 1
            && int_key_type(&left_keys[0].data_type)
            && int_key_type(&right_keys[0].data_type);
        HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
            left_arity,
            right_arity,
            table: if int {
                Table::Int(HashMap::new())
            } else {
                Table::Bytes(HashMap::new())
            },
            next: Vec::new(),
            build: Vec::new(),
            keep: right_decoded.map(|d| {
                (0..right_arity)
                    .filter(|&c| d.get(c).copied().unwrap_or(true))
                    .collect()
            }),
            build_len: 0,
            int_keys: Vec::new(),
            build_matched: Vec::new(),
            keybuf: Vec::new(),
            cur: Vec::new(),
            cand: END,
            probe_matched: false,
            probe_active: false,
            probe_copied: false,
            tail: None,
        }
    }
}

/// Appends build row `i` (stored columns `keep`, NULL elsewhere) to `out`.
fn push_build_row(
    out: &mut Vec<Value>,
    build: &[Value],
    keep: Option<&[usize]>,
    arity: usize,
    i: usize,
) {
    match keep {
        None => out.extend_from_slice(&build[i * arity..(i + 1) * arity]),
        Some(keep) => {
            let w = keep.len();
            let stored = &build[i * w..(i + 1) * w];
            let mut next = 0;
            for c in 0..arity {
                if keep.get(next) == Some(&c) {
                    out.push(stored[next].clone());
                    next += 1;
                } else {
                    out.push(Value::Null);
                }
            }
        }
    }
}

/// Encodes the key of `row`; false if any key value is NULL.
pub(crate) fn encode_keys(
    keys: &[ScalarExpr],
    row: &[Value],
    ctx: &mut ExecCtx,
    out: &mut Vec<u8>,
) -> SqlResult<bool> {
    out.clear();
    for k in keys {
        match k.as_column() {
            Some(i) => {
                let v = row.get(i).unwrap_or(&Value::Null);
                if v.is_null() {
                    return Ok(false);
                }
                valops::hash_key(v, out);
            }
            None => {
                let v = eval(k, row, ctx)?;
                if v.is_null() {
                    return Ok(false);
                }
                valops::hash_key(&v, out);
            }
        }
    }
    Ok(true)
}

/// The integer key of `row` (None for NULL).
fn int_key(key: &ScalarExpr, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<Option<i64>> {
    let owned;
    let v = match key.as_column() {
        Some(i) => row.get(i).unwrap_or(&Value::Null),
        None => {
            owned = eval(key, row, ctx)?;
            &owned
        }
    };
    Ok(match v {
        Value::Int(i) => Some(*i as i64),
        Value::BigInt(i) => Some(*i),
        Value::SmallInt(i) => Some(*i as i64),
        Value::TinyInt(i) => Some(*i as i64),
        _ => None,
    })
}

impl HashJoin<'_> {
    /// Builds the integer-key table from `int_keys` (one per build row, None = NULL key):
    /// direct addressing when the keys are dense, else a hash table sized up front. Rows are
    /// chained newest first, as in the byte-key table.
    fn index_int_keys(&mut self) {
        let keys = std::mem::take(&mut self.int_keys);
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for &k in keys.iter().flatten() {
            lo = lo.min(k);
            hi = hi.max(k);
        }
        let n = keys.len();
        let span = (hi as i128) - (lo as i128) + 1;
        if lo <= hi && span <= (4 * n + 1024) as i128 {
            let mut heads = vec![END; span as usize];
            for (idx, k) in keys.iter().enumerate() {
                if let Some(k) = k {
                    let h = &mut heads[(k - lo) as usize];
                    self.next[idx] = *h;
                    *h = idx as u32;
                }
            }
            self.table = Table::Dense { min: lo, heads };
        } else {
            let mut m: HashMap<i64, u32> = HashMap::with_capacity(n);
            for (idx, k) in keys.iter().enumerate() {
                if let Some(k) = k {
                    let h = m.entry(*k).or_insert(END);
                    self.next[idx] = *h;
                    *h = idx as u32;
                }
            }
            self.table = Table::Int(m);
        }
        self.int_keys = keys;
        self.int_keys.clear();
    }

    /// Looks up the first build row matching the current probe row.
    fn lookup(&mut self, ctx: &mut ExecCtx) -> SqlResult<u32> {
        let row = self.left.row();
        Ok(match &self.table {
            Table::Int(m) => match int_key(&self.left_keys[0], row, ctx)? {
                Some(k) => m.get(&k).copied().unwrap_or(END),
                None => END,
            },
            Table::Dense { min, heads } => match int_key(&self.left_keys[0], row, ctx)? {
                Some(k) => k
                    .checked_sub(*min)
                    .and_then(|d| usize::try_from(d).ok())
                    .and_then(|d| heads.get(d).copied())
                    .unwrap_or(END),
                None => END,
            },
            Table::Bytes(m) => {
                if encode_keys(self.left_keys, row, ctx, &mut self.keybuf)? {
                    m.get(&self.keybuf[..]).copied().unwrap_or(END)
                } else {
                    END
                }
            }
        })
    }
}

impl Operator for HashJoin<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        match &mut self.table {
            Table::Int(_) | Table::Dense { .. } => self.table = Table::Int(HashMap::new()),
            Table::Bytes(m) => m.clear(),
        }
        self.int_keys.clear();
        self.next.clear();
        self.build.clear();
        self.build_len = 0;
        self.build_matched.clear();
        self.cand = END;
        self.probe_active = false;
        self.tail = None;
        self.right.open(ctx)?;
        while self.right.next(ctx)? {
            let row = self.right.row();
            let idx = self.build_len as u32;
            let mut link = END;
            let mut keyed = false;
            match &mut self.table {
                Table::Int(_) | Table::Dense { .. } => {
                    // indexed after the build input is read (index_int_keys)
                    self.int_keys.push(int_key(&self.right_keys[0], row, ctx)?);
                }
                Table::Bytes(m) => {
                    if encode_keys(self.right_keys, row, ctx, &mut self.keybuf)? {
                        keyed = true;
                        match m.get_mut(&self.keybuf[..]) {
                            Some(head) => {
                                link = *head;
                                *head = idx;
                            }
                            None => {
                                m.insert(self.keybuf.clone().into_boxed_slice(), idx);
                            }
                        }
                    }
                }
            }
            let _ = keyed;
            match &self.keep {
                None => {
                    let width = self.right_arity;
                    let start = self.build.len();
                    self.build.extend_from_slice(&row[..row.len().min(width)]);
                    self.build.resize(start + width, Value::Null);
                }
                Some(keep) => self.build.extend(
                    keep.iter()
                        .map(|&c| row.get(c).cloned().unwrap_or(Value::Null)),
                ),
            }
            self.build_len += 1;
            self.build_matched.push(false);
            self.next.push(link);
        }
        self.right.close();
        if matches!(self.table, Table::Int(_)) {
            self.index_int_keys();
        }
        self.left.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if let Some(mut i) = self.tail {
                // unmatched build rows for right / full outer
                while i < self.build_len && self.build_matched[i] {
                    i += 1;
                }
                if i >= self.build_len {
                    self.tail = Some(i);
                    return Ok(false);
                }
                self.tail = Some(i + 1);
                self.cur.clear();
                self.cur
                    .extend(std::iter::repeat_n(Value::Null, self.left_arity));
                push_build_row(
                    &mut self.cur,
                    &self.build,
                    self.keep.as_deref(),
                    self.right_arity,
                    i,
                );
                return Ok(true);
            }
            if !self.probe_active {
                if !self.left.next(ctx)? {
                    if matches!(self.kind, JoinKind::RightOuter | JoinKind::FullOuter) {
                        self.tail = Some(0);
                        continue;
                    }
                    return Ok(false);
                }
                self.probe_active = true;
                self.probe_matched = false;
                self.probe_copied = false;
                self.cand = if self.left_keys.is_empty() {
                    // no keys (full outer with only a residual): every build row is a candidate
                    if self.build_len == 0 {
                        END
                    } else {
                        u32::MAX - 1
                    }
                } else {
                    self.lookup(ctx)?
                };
            }
            // walk candidates
            while self.cand != END {
                let bi = if self.left_keys.is_empty() {
                    // sequential walk encoded as MAX-1-k
                    let k = (u32::MAX - 1 - self.cand) as usize;
                    self.cand = if k + 1 < self.build_len {
                        u32::MAX - 2 - k as u32
                    } else {
                        END
                    };
                    k
                } else {
                    let b = self.cand as usize;
                    self.cand = self.next[b];
                    b
                };
                // the probe row is copied once, then each candidate replaces the build half
                if self.probe_copied {
                    self.cur.truncate(self.left.row().len());
                } else {
                    self.cur.clear();
                    self.cur.extend_from_slice(self.left.row());
                    self.probe_copied = true;
                }
                push_build_row(
                    &mut self.cur,
                    &self.build,
                    self.keep.as_deref(),
                    self.right_arity,
                    bi,
                );
                if let Some(r) = self.residual {
                    if !eval_pred(r, &self.cur, ctx)? {
                        continue;
                    }
                }
                self.probe_matched = true;
                self.build_matched[bi] = true;
                match self.kind {
                    JoinKind::LeftSemi => {
                        self.probe_active = false;
                        self.cur.truncate(self.left_arity);
                        return Ok(true);
                    }
                    JoinKind::LeftAntiSemi => {
                        self.cand = END;
                        break;
                    }
                    _ => return Ok(true),
                }
            }
            self.probe_active = false;
            if !self.probe_matched {
                match self.kind {
                    JoinKind::LeftOuter | JoinKind::FullOuter => {
                        self.cur.clear();
                        self.cur.extend_from_slice(self.left.row());
                        self.cur
                            .extend(std::iter::repeat_n(Value::Null, self.right_arity));
                        return Ok(true);
                    }
                    JoinKind::LeftAntiSemi => {
                        self.cur.clear();
                        self.cur.extend_from_slice(self.left.row());
                        return Ok(true);
                    }
                    _ => {}
                }
            }
        }
    }

    fn row(&self) -> &[Value] {
        &self.cur
    }

    fn close(&mut self) {
        self.left.close();
        self.build = Vec::new();
        self.build_len = 0;
        self.next = Vec::new();
        self.table = match self.table {
            Table::Int(_) | Table::Dense { .. } => Table::Int(HashMap::new()),
            Table::Bytes(_) => Table::Bytes(HashMap::new()),
        };
    }
}
