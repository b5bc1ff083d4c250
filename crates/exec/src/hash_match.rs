//! Hash Match join. Builds a hash table on the right input, probes with the left input (so the
//! output is left ++ right; left only for left semi / anti semi, right only for right semi /
//! anti semi). Supports inner, left/right/full outer, left and right semi and anti semi, with
//! a residual predicate. Rows with a NULL key never match.
//!
//! Right semi / anti semi build on the preserved (right) input: each build row has a matched
//! flag; a probe row walks its candidates, skipping build rows already matched (a right semi
//! join outputs a build row at its first match; a right anti semi join outputs the rows never
//! matched once the probe input ends, like the unmatched rows of a right outer join).
//!
//! Build rows live in one vector; equal keys are chained through `next` (no per-key
//! allocation). A single integer key uses an `i64`-keyed table; other keys are encoded into a
//! reused byte buffer (`valops::hash_key`) and probed by slice, so probing allocates nothing.
//!
//! Spilling (grace hash join): when the build rows exceed the operator memory budget
//! (`ExecCtx::spill`), the rows read so far and all further build rows are partitioned by a
//! second hash of their key (`spill::hash_*` with a per-level seed; rows with a NULL key go to
//! partition 0, where they never match, when the join outputs them unmatched, and are dropped
//! otherwise) into `PARTITIONS` tempdb work files; the probe input is then
//! partitioned the same way and the partitions are joined one by one with the in-memory
//! algorithm. A partition whose build side still does not fit is repartitioned with the next
//! level's seed (up to `MAX_DEPTH` levels; straight away to the fallback when repartitioning
//! did not split it, e.g. one giant key). The fallback is a block nested loops join over the
//! files: the build partition is loaded in budget-sized chunks and the whole probe partition
//! is joined with each chunk; probe-side match flags (one per probe row) carry semi / anti /
//! outer semantics across chunks, and a final pass over the probe file emits the unmatched
//! probe rows (left / full outer, anti semi). Unmatched build rows (right / full outer) are
//! emitted after each chunk, since every build row belongs to exactly one chunk.

use std::sync::Arc;

use common::SqlResult;
use hashbrown::HashMap;
use plan::{JoinKind, PhysKind, PhysOp, ScalarExpr};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::operator::{BoxOp, Operator};
use crate::spill::{
    hash_bytes, hash_i64, level_seed, partition_of, row_size, SpillFile, SpillReader, SpillWriter,
};
use crate::valops;

const END: u32 = u32::MAX;

/// Fan-out of one partitioning step.
const PARTITIONS: usize = 16;
/// Partitioning levels before a partition is joined by block nested loops.
const MAX_DEPTH: u32 = 4;
/// Work table name in error messages about hash join work files.
const WORKFILE: &str = "dbo.Workfile";
/// Approximate per-row memory of the table besides the row values (chain link, matched flag,
/// pending integer key, hash table slot).
const ROW_OVERHEAD: usize = 4 + 1 + 16 + 16;

enum Table {
    Int(HashMap<i64, u32>),
    /// Dense single integer key: `heads[k - min]` (direct addressing, no hashing; chosen when
    /// the build keys span at most ~4 slots per build row).
    Dense {
        min: i64,
        heads: Vec<u32>,
    },
    Bytes(crate::byte_keys::ByteKeyMap<u32>),
    /// A shared build's byte keys, gathered while the build input is read and indexed by
    /// several threads when it ends (`Mem::finish_parallel`).
    Pending(crate::byte_keys::PendingKeys),
    Parts(crate::byte_keys::PartitionedKeys),
}

/// The in-memory build side: hash table and flat rows.
struct Mem {
    /// Single integer key (`Table::Int` / `Table::Dense`), else byte keys.
    int: bool,
    table: Table,
    /// chain: next build row with the same key
    next: Vec<u32>,
    /// Build rows, flat: row i is `build[i * w..(i + 1) * w]`, `w = keep.len()`: only the
    /// right columns that can be non-NULL are stored (a pruned scan leaves the others NULL).
    build: Vec<Value>,
    /// Right input columns stored in `build`, ascending; `None` = all of them.
    keep: Option<Vec<usize>>,
    arity: usize,
    len: usize,
    /// Integer build keys, one per build row, until `index_int_keys` indexes them.
    int_keys: Vec<Option<i64>>,
    matched: Vec<bool>,
    keybuf: Vec<u8>,
    /// Approximate memory held.
    bytes: usize,
}

fn int_key_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::BigInt | DataType::SmallInt | DataType::TinyInt
    )
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
#[inline(always)]
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

impl Mem {
    /// An empty table for a join keyed by `left_keys` / `right_keys` over a build input of
    /// `arity` columns, of which `decoded` says which can be non-NULL (None: all).
    fn new(
        left_keys: &[ScalarExpr],
        right_keys: &[ScalarExpr],
        arity: usize,
        decoded: Option<Vec<bool>>,
    ) -> Mem {
        let int = left_keys.len() == 1
            && right_keys.len() == 1
            && int_key_type(&left_keys[0].data_type)
            && int_key_type(&right_keys[0].data_type);
        Mem {
            int,
            table: if int {
                Table::Int(HashMap::new())
            } else {
                Table::Bytes(crate::byte_keys::ByteKeyMap::default())
            },
            next: Vec::new(),
            build: Vec::new(),
            keep: decoded.map(|d| {
                (0..arity)
                    .filter(|&c| d.get(c).copied().unwrap_or(true))
                    .collect()
            }),
            arity,
            len: 0,
            int_keys: Vec::new(),
            matched: Vec::new(),
            keybuf: Vec::new(),
            bytes: 0,
        }
    }

    fn reset(&mut self) {
        match &mut self.table {
            Table::Int(_) | Table::Dense { .. } => self.table = Table::Int(HashMap::new()),
            Table::Bytes(k) => k.clear(),
            Table::Pending(_) | Table::Parts(_) => {
                self.table = Table::Bytes(crate::byte_keys::ByteKeyMap::default())
            }
        }
        self.int_keys.clear();
        self.next.clear();
        self.build.clear();
        self.len = 0;
        self.matched.clear();
        self.bytes = 0;
    }

    /// Frees the memory.
    fn release(&mut self) {
        self.build = Vec::new();
        self.next = Vec::new();
        self.matched = Vec::new();
        self.int_keys = Vec::new();
        self.len = 0;
        self.bytes = 0;
        self.table = if self.int {
            Table::Int(HashMap::new())
        } else {
            Table::Bytes(crate::byte_keys::ByteKeyMap::default())
        };
    }

    /// Adds one build row (keyed by `keys`).
    #[inline(always)]
    fn add(&mut self, keys: &[ScalarExpr], row: &[Value], ctx: &mut ExecCtx) -> SqlResult<()> {
        let idx = self.len as u32;
        let mut link = END;
        match &mut self.table {
            Table::Int(_) | Table::Dense { .. } => {
                // indexed after the build input is read (index_int_keys)
                self.int_keys.push(int_key(&keys[0], row, ctx)?);
            }
            Table::Bytes(k) => {
                if encode_keys(keys, row, ctx, &mut self.keybuf)? {
                    // the new row becomes its key's chain head, linking to the old one
                    let (head, added) = k.get_or_insert(&self.keybuf, idx);
                    if let Some(head) = head {
                        link = std::mem::replace(head, idx);
                    }
                    self.bytes += added;
                }
            }
            Table::Pending(p) => {
                let present = encode_keys(keys, row, ctx, &mut self.keybuf)?;
                self.bytes += p.push(present.then_some(&self.keybuf[..]));
            }
            Table::Parts(_) => {
                return Err(common::SqlError::internal(
                    "hash join: a row added to an indexed shared build",
                ))
            }
        }
        let start = self.build.len();
        match &self.keep {
            None => {
                let width = self.arity;
                self.build.extend_from_slice(&row[..row.len().min(width)]);
                self.build.resize(start + width, Value::Null);
            }
            Some(keep) => self.build.extend(
                keep.iter()
                    .map(|&c| row.get(c).cloned().unwrap_or(Value::Null)),
            ),
        }
        self.bytes += row_size(&self.build[start..]) + ROW_OVERHEAD;
        self.len += 1;
        self.matched.push(false);
        self.next.push(link);
        Ok(())
    }

    /// Completes the table after the last `add`.
    fn finish(&mut self) {
        self.finish_parallel(1);
    }

    /// [`Self::finish`] indexing pending byte keys with up to `threads` threads.
    fn finish_parallel(&mut self, threads: usize) {
        match &mut self.table {
            Table::Int(_) => self.index_int_keys(),
            Table::Pending(p) => {
                let keys = std::mem::replace(p, crate::byte_keys::PendingKeys::with_capacity(0));
                let (t, bytes) =
                    crate::byte_keys::PartitionedKeys::build(keys, &mut self.next, threads);
                self.bytes += bytes;
                self.table = Table::Parts(t);
            }
            _ => {}
        }
    }

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

    /// The first build row matching probe row `row` (keyed by `keys`; `keybuf` is the
    /// caller's, so a table shared by parallel workers is only read).
    #[inline(always)]
    fn lookup(
        &self,
        keys: &[ScalarExpr],
        row: &[Value],
        ctx: &mut ExecCtx,
        keybuf: &mut Vec<u8>,
    ) -> SqlResult<u32> {
        Ok(match &self.table {
            Table::Int(m) => match int_key(&keys[0], row, ctx)? {
                Some(k) => m.get(&k).copied().unwrap_or(END),
                None => END,
            },
            Table::Dense { min, heads } => match int_key(&keys[0], row, ctx)? {
                Some(k) => k
                    .checked_sub(*min)
                    .and_then(|d| usize::try_from(d).ok())
                    .and_then(|d| heads.get(d).copied())
                    .unwrap_or(END),
                None => END,
            },
            Table::Bytes(k) => {
                if encode_keys(keys, row, ctx, keybuf)? {
                    k.get(keybuf).unwrap_or(END)
                } else {
                    END
                }
            }
            Table::Parts(k) => {
                if encode_keys(keys, row, ctx, keybuf)? {
                    k.get(keybuf).unwrap_or(END)
                } else {
                    END
                }
            }
            Table::Pending(_) => END,
        })
    }

    /// Appends build row `i` (stored columns `keep`, NULL elsewhere) to `out`.
    #[inline(always)]
    fn push_row(&self, out: &mut Vec<Value>, i: usize) {
        match self.keep.as_deref() {
            None => out.extend_from_slice(&self.build[i * self.arity..(i + 1) * self.arity]),
            Some(keep) => {
                let w = keep.len();
                let stored = &self.build[i * w..(i + 1) * w];
                let mut next = 0;
                for c in 0..self.arity {
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
}

/// Partition (0..PARTITIONS) of `row` keyed by `keys` under `seed`. Joins without keys use
/// partition 0; a row with a NULL key never matches: partition 0 when the join still outputs
/// it unmatched (`keep_null`), else None (dropped).
fn part(
    int: bool,
    keys: &[ScalarExpr],
    row: &[Value],
    ctx: &mut ExecCtx,
    keybuf: &mut Vec<u8>,
    seed: u64,
    keep_null: bool,
) -> SqlResult<Option<usize>> {
    if keys.is_empty() {
        return Ok(Some(0));
    }
    let h = if int {
        int_key(&keys[0], row, ctx)?.map(|k| hash_i64(k, seed))
    } else if encode_keys(keys, row, ctx, keybuf)? {
        Some(hash_bytes(keybuf, seed))
    } else {
        None
    };
    Ok(match h {
        Some(h) => Some(partition_of(h, PARTITIONS)),
        None => keep_null.then_some(0),
    })
}

fn writers(ctx: &mut ExecCtx) -> SqlResult<Vec<SpillWriter>> {
    (0..PARTITIONS)
        .map(|_| SpillWriter::create(ctx, WORKFILE))
        .collect()
}

fn finish_all(ws: Vec<SpillWriter>, ctx: &mut ExecCtx) -> SqlResult<Vec<SpillFile>> {
    ws.into_iter().map(|w| w.finish(ctx)).collect()
}

/// Splits `file` into `PARTITIONS` files by the keys' hash under `seed`.
fn repartition(
    file: &SpillFile,
    int: bool,
    keys: &[ScalarExpr],
    seed: u64,
    ctx: &mut ExecCtx,
    keybuf: &mut Vec<u8>,
    scratch: &mut Vec<Value>,
) -> SqlResult<Vec<SpillFile>> {
    let mut ws = writers(ctx)?;
    let mut rd = file.reader()?;
    while rd.next_row(scratch)? {
        // NULL-key rows are only here when the join outputs them
        if let Some(p) = part(int, keys, scratch, ctx, keybuf, seed, true)? {
            ws[p].write_row(scratch)?;
        }
    }
    finish_all(ws, ctx)
}

/// Loads build rows from `rd` until the budget is exceeded (at least one row) or the file ends.
fn load_chunk(
    mem: &mut Mem,
    rd: &mut SpillReader,
    keys: &[ScalarExpr],
    budget: usize,
    ctx: &mut ExecCtx,
    scratch: &mut Vec<Value>,
) -> SqlResult<()> {
    while mem.len == 0 || mem.bytes <= budget {
        if !rd.next_row(scratch)? {
            break;
        }
        mem.add(keys, scratch, ctx)?;
    }
    Ok(())
}

/// A pair of partitions still to join.
struct Task {
    build: SpillFile,
    probe: SpillFile,
    depth: u32,
}

/// The partition being joined.
struct Active {
    probe_file: SpillFile,
    _build_file: SpillFile,
    probe: SpillReader,
    /// Block nested loops: the build rows of the next chunks.
    build_rest: Option<SpillReader>,
    /// Block nested loops: probe rows matched so far, by ordinal in the probe file.
    flags: Vec<bool>,
    next_ord: usize,
    final_pass: bool,
}

/// Grace hash join state.
struct Grace {
    tasks: Vec<Task>,
    active: Option<Active>,
}

/// True when a partition pair can produce output for this join kind.
fn useful(kind: JoinKind, build_rows: u64, probe_rows: u64) -> bool {
    let outer_build = kind.keeps_unmatched_right();
    let outer_probe = kind.keeps_unmatched_left();
    (build_rows > 0 && (probe_rows > 0 || outer_build)) || (probe_rows > 0 && outer_probe)
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
    mem: Mem,
    cur: Vec<Value>,
    /// Current probe candidate (build row index) or END.
    cand: u32,
    probe_matched: bool,
    probe_active: bool,
    /// `cur` starts with the current probe row.
    probe_copied: bool,
    /// Emitting unmatched build rows (right/full outer) from this index.
    tail: Option<usize>,
    /// The unmatched build rows of the loaded table were emitted.
    tail_done: bool,
    done: bool,
    /// Spilled: partitions to join; probe rows then come from files into `prow`.
    grace: Option<Box<Grace>>,
    prow: Vec<Value>,
    /// Ordinal of `prow` in its probe file.
    prow_ord: usize,
    /// The active partition is joined by block nested loops (probe flags, final pass).
    chunked: bool,
    /// Final pass of block nested loops: `prow` is an unmatched probe row.
    final_pass: bool,
    keybuf: Vec<u8>,
    scratch: Vec<Value>,
    /// This join's plan node (its key in [`ExecCtx::shared_builds`]).
    node: usize,
    /// In a parallel worker: the build side the coordinator hashed once for all workers.
    shared: Option<Arc<SharedTable>>,
}

/// The current probe row: from the left input, or from a partition file after a spill.
macro_rules! probe_row {
    ($s:ident) => {
        if $s.grace.is_some() {
            &$s.prow[..]
        } else {
            $s.left.row()
        }
    };
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
        HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
            left_arity,
            right_arity,
            mem: Mem::new(
                left_keys,
                right_keys,
                right_arity,
                stored_build_columns(
                    kind,
                    residual.is_some(),
                    right_keys,
                    right_arity,
                    right_decoded,
                ),
            ),
            cur: Vec::new(),
            cand: END,
            probe_matched: false,
            probe_active: false,
            probe_copied: false,
            tail: None,
            tail_done: false,
            done: false,
            grace: None,
            prow: Vec::new(),
            prow_ord: 0,
            chunked: false,
            final_pass: false,
            keybuf: Vec::new(),
            scratch: Vec::new(),
            node: 0,
            shared: None,
        }
    }

    /// Marks the join as plan node `node` (`&PhysOp as *const _`): in a parallel worker, the
    /// coordinator's shared build of that node replaces the build input.
    pub(crate) fn for_node(mut self, node: usize) -> Self {
        self.node = node;
        self
    }
}

impl HashJoin<'_> {
    /// Spills: partitions the rows in memory and the rest of the build input, then the probe
    /// input, and queues the partition pairs.
    fn spill(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        let seed = level_seed(0);
        let int = self.mem.int;
        // NULL-key rows are kept only where the join outputs them unmatched
        let build_nulls = self.kind.keeps_unmatched_right();
        let probe_nulls = self.kind.keeps_unmatched_left();
        let mut ws = writers(ctx)?;
        for i in 0..self.mem.len {
            self.scratch.clear();
            self.mem.push_row(&mut self.scratch, i);
            let p = part(
                int,
                self.right_keys,
                &self.scratch,
                ctx,
                &mut self.keybuf,
                seed,
                build_nulls,
            )?;
            if let Some(p) = p {
                ws[p].write_row(&self.scratch)?;
            }
        }
        self.mem.reset();
        while self.right.next(ctx)? {
            let row = self.right.row();
            let p = part(
                int,
                self.right_keys,
                row,
                ctx,
                &mut self.keybuf,
                seed,
                build_nulls,
            )?;
            if let Some(p) = p {
                ws[p].write_row(row)?;
            }
        }
        self.right.close();
        let builds = finish_all(ws, ctx)?;
        let mut ws = writers(ctx)?;
        self.left.open(ctx)?;
        while self.left.next(ctx)? {
            let row = self.left.row();
            let p = part(
                int,
                self.left_keys,
                row,
                ctx,
                &mut self.keybuf,
                seed,
                probe_nulls,
            )?;
            if let Some(p) = p {
                ws[p].write_row(row)?;
            }
        }
        self.left.close();
        let probes = finish_all(ws, ctx)?;
        let mut tasks = Vec::new();
        for (build, probe) in builds.into_iter().zip(probes).rev() {
            if useful(self.kind, build.rows(), probe.rows()) {
                tasks.push(Task {
                    build,
                    probe,
                    depth: 0,
                });
            }
        }
        self.mem.release();
        self.grace = Some(Box::new(Grace {
            tasks,
            active: None,
        }));
        Ok(())
    }

    /// Moves to the next chunk, final pass or partition; false when all are joined.
    fn advance(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let budget = ctx.spill.operator_budget;
        let Some(g) = self.grace.as_deref_mut() else {
            return Ok(false);
        };
        self.tail = None;
        self.tail_done = false;
        self.probe_active = false;
        self.cand = END;
        if let Some(a) = g.active.as_mut() {
            if self.chunked && !a.final_pass {
                if let Some(rest) = a.build_rest.as_mut() {
                    if rest.remaining() > 0 {
                        self.mem.reset();
                        load_chunk(
                            &mut self.mem,
                            rest,
                            self.right_keys,
                            budget,
                            ctx,
                            &mut self.scratch,
                        )?;
                        self.mem.finish();
                        a.probe = a.probe_file.reader()?;
                        a.next_ord = 0;
                        return Ok(true);
                    }
                }
                if self.kind.keeps_unmatched_left() {
                    a.final_pass = true;
                    self.final_pass = true;
                    self.tail_done = true;
                    self.mem.reset();
                    a.probe = a.probe_file.reader()?;
                    a.next_ord = 0;
                    return Ok(true);
                }
            }
        }
        g.active = None;
        self.chunked = false;
        self.final_pass = false;
        self.mem.reset();
        while let Some(task) = g.tasks.pop() {
            self.mem.reset();
            let mut rd = task.build.reader()?;
            load_chunk(
                &mut self.mem,
                &mut rd,
                self.right_keys,
                budget,
                ctx,
                &mut self.scratch,
            )?;
            if rd.remaining() == 0 {
                self.mem.finish();
                g.active = Some(Active {
                    probe: task.probe.reader()?,
                    probe_file: task.probe,
                    _build_file: task.build,
                    build_rest: None,
                    flags: Vec::new(),
                    next_ord: 0,
                    final_pass: false,
                });
                return Ok(true);
            }
            if task.depth + 1 < MAX_DEPTH {
                self.mem.reset();
                let seed = level_seed(task.depth + 1);
                let int = self.mem.int;
                let builds = repartition(
                    &task.build,
                    int,
                    self.right_keys,
                    seed,
                    ctx,
                    &mut self.keybuf,
                    &mut self.scratch,
                )?;
                let probes = repartition(
                    &task.probe,
                    int,
                    self.left_keys,
                    seed,
                    ctx,
                    &mut self.keybuf,
                    &mut self.scratch,
                )?;
                for (build, probe) in builds.into_iter().zip(probes) {
                    if !useful(self.kind, build.rows(), probe.rows()) {
                        continue;
                    }
                    // not split at all (one giant key): straight to block nested loops
                    let depth = if build.rows() == task.build.rows() {
                        MAX_DEPTH
                    } else {
                        task.depth + 1
                    };
                    g.tasks.push(Task {
                        build,
                        probe,
                        depth,
                    });
                }
                continue;
            }
            // block nested loops over the partition, chunk by chunk
            self.mem.finish();
            self.chunked = true;
            let n = usize::try_from(task.probe.rows()).unwrap_or(usize::MAX);
            g.active = Some(Active {
                probe: task.probe.reader()?,
                flags: vec![false; n],
                probe_file: task.probe,
                _build_file: task.build,
                build_rest: Some(rd),
                next_ord: 0,
                final_pass: false,
            });
            return Ok(true);
        }
        self.mem.release();
        Ok(false)
    }

    /// Advances the probe input (left input, or the active partition's probe file).
    #[inline(always)]
    fn probe_next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        let Some(g) = self.grace.as_deref_mut() else {
            return self.left.next(ctx);
        };
        let Some(a) = g.active.as_mut() else {
            return Ok(false);
        };
        loop {
            if !a.probe.next_row(&mut self.prow)? {
                return Ok(false);
            }
            self.prow_ord = a.next_ord;
            a.next_ord += 1;
            if self.chunked {
                let flagged = a.flags.get(self.prow_ord).copied().unwrap_or(false);
                // final pass: only unmatched rows; semi join: a matched row was emitted
                if flagged && (a.final_pass || self.kind == JoinKind::LeftSemi) {
                    continue;
                }
            }
            return Ok(true);
        }
    }

    /// Block nested loops: records that the current probe row matched.
    fn flag_probe(&mut self) {
        if let Some(a) = self.grace.as_deref_mut().and_then(|g| g.active.as_mut()) {
            if let Some(f) = a.flags.get_mut(self.prow_ord) {
                *f = true;
            }
        }
    }
}

impl Operator for HashJoin<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.mem.reset();
        self.grace = None;
        self.cand = END;
        self.probe_active = false;
        self.tail = None;
        self.tail_done = false;
        self.done = false;
        self.chunked = false;
        self.final_pass = false;
        self.shared = ctx.shared_builds.as_ref().and_then(|b| {
            b.iter()
                .find(|(n, _)| *n == self.node)
                .map(|(_, t)| t.clone())
        });
        if self.shared.is_some() {
            // a parallel worker: the coordinator read and hashed the build input once
            return self.left.open(ctx);
        }
        let budget = ctx.spill.operator_budget;
        self.right.open(ctx)?;
        while self.right.next(ctx)? {
            self.mem.add(self.right_keys, self.right.row(), ctx)?;
            if self.mem.bytes > budget {
                return self.spill(ctx);
            }
        }
        self.right.close();
        self.mem.finish();
        self.left.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.done {
            return Ok(false);
        }
        loop {
            if let Some(mut i) = self.tail {
                // unmatched build rows for right / full outer, right anti semi
                while i < self.mem.len && self.mem.matched[i] {
                    i += 1;
                }
                if i >= self.mem.len {
                    self.tail = None;
                    self.tail_done = true;
                    if self.advance(ctx)? {
                        continue;
                    }
                    self.done = true;
                    return Ok(false);
                }
                self.tail = Some(i + 1);
                self.cur.clear();
                if self.kind.outputs_left() {
                    self.cur
                        .extend(std::iter::repeat_n(Value::Null, self.left_arity));
                }
                self.mem.push_row(&mut self.cur, i);
                return Ok(true);
            }
            if !self.probe_active {
                if !self.probe_next(ctx)? {
                    if self.kind.keeps_unmatched_right() && !self.tail_done {
                        self.tail = Some(0);
                        continue;
                    }
                    if self.advance(ctx)? {
                        continue;
                    }
                    self.done = true;
                    return Ok(false);
                }
                if self.final_pass {
                    // block nested loops, final pass: an unmatched probe row
                    self.cur.clear();
                    self.cur.extend_from_slice(&self.prow);
                    if self.kind != JoinKind::LeftAntiSemi {
                        self.cur
                            .extend(std::iter::repeat_n(Value::Null, self.right_arity));
                    }
                    return Ok(true);
                }
                self.probe_active = true;
                self.probe_matched = false;
                self.probe_copied = false;
                self.cand = if self.left_keys.is_empty() {
                    // no keys (full outer with only a residual): every build row is a candidate
                    if self.mem.len == 0 {
                        END
                    } else {
                        u32::MAX - 1
                    }
                } else {
                    let mem = match &self.shared {
                        Some(t) => &t.0,
                        None => &self.mem,
                    };
                    mem.lookup(self.left_keys, probe_row!(self), ctx, &mut self.keybuf)?
                };
            }
            // walk candidates
            let right_semi = !self.kind.outputs_left();
            while self.cand != END {
                let mem = match &self.shared {
                    Some(t) => &t.0,
                    None => &self.mem,
                };
                let bi = if self.left_keys.is_empty() {
                    // sequential walk encoded as MAX-1-k
                    let k = (u32::MAX - 1 - self.cand) as usize;
                    self.cand = if k + 1 < mem.len {
                        u32::MAX - 2 - k as u32
                    } else {
                        END
                    };
                    k
                } else {
                    let b = self.cand as usize;
                    self.cand = mem.next[b];
                    b
                };
                if right_semi && mem.matched.get(bi).copied().unwrap_or(false) {
                    // a right semi / anti semi join decided this build row already
                    continue;
                }
                // a semi / anti semi join without a residual: the key's presence decides
                let presence_only = key_presence_only(self.kind, self.residual.is_some())
                    || (right_semi && self.residual.is_none());
                if !(presence_only && self.kind != JoinKind::LeftSemi) {
                    // the probe row is copied once, then each candidate replaces the build half
                    let prow = probe_row!(self);
                    if self.probe_copied {
                        self.cur.truncate(prow.len());
                    } else {
                        self.cur.clear();
                        self.cur.extend_from_slice(prow);
                        self.probe_copied = true;
                    }
                }
                if !presence_only {
                    mem.push_row(&mut self.cur, bi);
                    if let Some(r) = self.residual {
                        if !eval_pred(r, &self.cur, ctx)? {
                            continue;
                        }
                    }
                }
                self.probe_matched = true;
                if self.shared.is_none() {
                    // (a shared build serves only joins that never emit unmatched build rows)
                    self.mem.matched[bi] = true;
                }
                if self.chunked {
                    self.flag_probe();
                }
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
                    JoinKind::RightSemi => {
                        // the build row, once: it is flagged matched now
                        self.cur.clear();
                        self.mem.push_row(&mut self.cur, bi);
                        self.probe_copied = false;
                        return Ok(true);
                    }
                    JoinKind::RightAntiSemi => continue,
                    _ => return Ok(true),
                }
            }
            self.probe_active = false;
            if !self.probe_matched && !self.chunked {
                match self.kind {
                    JoinKind::LeftOuter | JoinKind::FullOuter => {
                        self.cur.clear();
                        self.cur.extend_from_slice(probe_row!(self));
                        self.cur
                            .extend(std::iter::repeat_n(Value::Null, self.right_arity));
                        return Ok(true);
                    }
                    JoinKind::LeftAntiSemi => {
                        self.cur.clear();
                        self.cur.extend_from_slice(probe_row!(self));
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
        if self.grace.is_none() {
            self.left.close();
        }
        self.grace = None;
        self.shared = None;
        self.mem.release();
    }
}

/// A hash join's build side, read and hashed once by a parallel zone's coordinator and probed
/// by all of its workers (read-only: no match flags, so only for joins that never emit
/// unmatched build rows — inner, left outer, left semi and left anti semi).
pub(crate) struct SharedTable(Mem);

/// The shared builds of one zone: (join plan node address, table).
pub(crate) type SharedBuilds = Arc<Vec<(usize, Arc<SharedTable>)>>;

/// Whether a join of this kind can probe a shared build from several workers.
/// The build columns a join keeps: for a semi or anti semi join without a residual (it only
/// asks whether a key is present) just the key columns, which a spill partitions by, else
/// what the right input can make non-NULL.
fn stored_build_columns(
    kind: JoinKind,
    residual: bool,
    right_keys: &[ScalarExpr],
    right_arity: usize,
    decoded: Option<Vec<bool>>,
) -> Option<Vec<bool>> {
    if !key_presence_only(kind, residual) {
        return decoded;
    }
    let mut keep = vec![false; right_arity];
    for k in right_keys {
        match k.as_column() {
            Some(c) if c < right_arity => keep[c] = true,
            _ => return decoded,
        }
    }
    Some(keep)
}

/// A semi or anti semi join without a residual: a probe row's outcome is whether its key has
/// a build row, so no build row is stored or copied.
fn key_presence_only(kind: JoinKind, residual: bool) -> bool {
    !residual && matches!(kind, JoinKind::LeftSemi | JoinKind::LeftAntiSemi)
}

pub(crate) fn probe_parallel_kind(kind: JoinKind) -> bool {
    matches!(
        kind,
        JoinKind::Inner | JoinKind::LeftOuter | JoinKind::LeftSemi | JoinKind::LeftAntiSemi
    )
}

/// The coordinator's build of the hash join `join` (a `PhysKind::HashJoin` of a zone): reads
/// its build input once with the session's context; byte keys are gathered as they come and
/// indexed at the end by `threads` threads at once (the zone's workers have not started:
/// their cores are free). None when the rows outgrow `budget`: the zone then runs serially,
/// where the join can spill.
pub(crate) fn build_shared(
    join: &PhysOp,
    ctx: &mut ExecCtx,
    budget: usize,
    threads: usize,
) -> SqlResult<Option<SharedTable>> {
    let PhysKind::HashJoin {
        left_keys,
        right_keys,
        right,
        kind,
        residual,
        ..
    } = &join.kind
    else {
        return Err(common::SqlError::internal(
            "shared build of a non-hash join",
        ));
    };
    let arity = right.columns.len();
    // a shared table never spills: a join that only asks whether a key is present stores
    // no build column at all (not even the keys a spill would partition by)
    let stored = if key_presence_only(*kind, residual.is_some()) {
        Some(vec![false; arity])
    } else {
        crate::operator::decoded_columns(right)
    };
    let mut mem = Mem::new(left_keys, right_keys, arity, stored);
    if !mem.int {
        // the estimate sizes the key list, within what the budget could hold
        let rows = (right.est_rows.max(0.0) as usize).min(budget / 64);
        mem.table = Table::Pending(crate::byte_keys::PendingKeys::with_capacity(rows));
    }
    let mut input = crate::operator::build(right)?;
    input.open(ctx)?;
    while input.next(ctx)? {
        mem.add(right_keys, input.row(), ctx)?;
        if mem.bytes > budget {
            input.close();
            return Ok(None);
        }
    }
    input.close();
    mem.finish_parallel(threads);
    if mem.bytes > budget {
        return Ok(None);
    }
    // nothing reads the flags of a shared table
    mem.matched = Vec::new();
    Ok(Some(SharedTable(mem)))
}
