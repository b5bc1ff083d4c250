//! Hash-based EXCEPT / INTERSECT and Hash Match (Flow Distinct), within the operator memory
//! budget.
//!
//! * `HashDistinct` emits each row the first time its key is seen. Past the budget its key set
//!   stops growing: a later row whose key is in the set is a duplicate; any other row is
//!   written to one of `PARTITIONS` work files by a seeded hash of its key. When the input
//!   ends, each file is deduplicated the same way (one level deeper, a new seed). Rows of one
//!   key always meet in one file, and every pass emits at least one key, so this ends.
//! * `HashSetOp` = a membership filter (`SetFilter`: left rows whose key is / is not among the
//!   right keys) under a `HashDistinct`. Past the budget the filter switches to grace
//!   partitioning: the right keys and then the left rows go to `PARTITIONS` file pairs by a
//!   seeded hash of the key, and each pair is filtered with its own right-key set
//!   (re-partitioned one level deeper while still too big, up to `MAX_LEVEL`).
//!
//! Row order: the in-memory paths keep the old order (first occurrences in input order);
//! spilled rows come later, partition by partition (no order is promised without ORDER BY).

use hashbrown::HashSet;

use common::SqlResult;
use plan::SetOpKind;
use types::Value;

use crate::context::ExecCtx;
use crate::operator::{BoxOp, Operator};
use crate::spill::{hash_bytes, level_seed, partition_of, SpillFile, SpillReader, SpillWriter};
use crate::valops;

/// Fan-out of one spill level.
const PARTITIONS: usize = 16;
/// Deepest re-partitioning of the set filter; a deeper partition is filtered in memory
/// (reached only when thousands of distinct keys share 24+ bits of several seeded hashes).
const MAX_LEVEL: u32 = 6;
/// Work table name in error messages.
const WORKFILE: &str = "dbo.Workfile";
/// Bookkeeping bytes per key held in a hash set.
const KEY_OVERHEAD: usize = 40;

fn row_key(row: &[Value], out: &mut Vec<u8>) {
    out.clear();
    for v in row {
        valops::hash_key(v, out);
    }
}

/// `PARTITIONS` work files filled by key hash.
struct Partitions {
    level: u32,
    files: Vec<Option<SpillWriter>>,
}

impl Partitions {
    fn new(level: u32) -> Partitions {
        Partitions {
            level,
            files: (0..PARTITIONS).map(|_| None).collect(),
        }
    }

    fn part(&self, key: &[u8]) -> usize {
        partition_of(hash_bytes(key, level_seed(self.level)), PARTITIONS)
    }

    fn writer(&mut self, p: usize, ctx: &mut ExecCtx) -> SqlResult<&mut SpillWriter> {
        let slot = &mut self.files[p];
        Ok(match slot {
            Some(w) => w,
            None => slot.insert(SpillWriter::create(ctx, WORKFILE)?),
        })
    }

    fn write(&mut self, key: &[u8], row: &[Value], ctx: &mut ExecCtx) -> SqlResult<()> {
        let p = self.part(key);
        self.writer(p, ctx)?.write_row(row)
    }

    /// Writes a key alone (read back as one varbinary value).
    fn write_key(&mut self, key: &[u8], ctx: &mut ExecCtx) -> SqlResult<()> {
        let p = self.part(key);
        self.writer(p, ctx)?.write_keyed(key, &[])
    }

    /// The files, one per partition (None = nothing written).
    fn finish(self, ctx: &mut ExecCtx) -> SqlResult<Vec<Option<SpillFile>>> {
        self.files
            .into_iter()
            .map(|w| w.map(|w| w.finish(ctx)).transpose())
            .collect()
    }
}

/// Where a pass reads its rows: the operator's input or a work file.
enum Src {
    Input,
    /// The reader and its file (kept: a file is deleted when dropped).
    File(SpillReader, #[allow(dead_code)] SpillFile),
    Done,
}

/// Streams distinct rows (first occurrence wins).
pub struct HashDistinct<'p> {
    input: BoxOp<'p>,
    seen: HashSet<Box<[u8]>>,
    bytes: usize,
    /// Past the budget: new keys go to `spill`.
    spill: Option<Partitions>,
    level: u32,
    src: Src,
    /// Work files still to deduplicate, with their level.
    pending: Vec<(SpillFile, u32)>,
    /// The current row when reading a work file.
    frow: Vec<Value>,
    buf: Vec<u8>,
}

impl<'p> HashDistinct<'p> {
    pub fn new(input: BoxOp<'p>) -> Self {
        HashDistinct {
            input,
            seen: HashSet::new(),
            bytes: 0,
            spill: None,
            level: 0,
            src: Src::Input,
            pending: Vec::new(),
            frow: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn reset(&mut self) {
        self.seen = HashSet::new();
        self.bytes = 0;
        self.spill = None;
        self.level = 0;
        self.src = Src::Input;
        self.pending.clear();
        self.frow.clear();
    }

    /// Reads the next row of the current source into place; false at its end.
    fn read(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        match &mut self.src {
            Src::Input => {
                if !self.input.next(ctx)? {
                    return Ok(false);
                }
                row_key(self.input.row(), &mut self.buf);
                Ok(true)
            }
            Src::File(rd, _) => {
                if !rd.next_row(&mut self.frow)? {
                    return Ok(false);
                }
                row_key(&self.frow, &mut self.buf);
                Ok(true)
            }
            Src::Done => Ok(false),
        }
    }
}

impl Operator for HashDistinct<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.reset();
        self.input.open(ctx)
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if self.read(ctx)? {
                if self.seen.contains(&self.buf[..]) {
                    continue;
                }
                if let Some(sp) = self.spill.as_mut() {
                    let row = match &self.src {
                        Src::Input => self.input.row(),
                        Src::File(..) | Src::Done => &self.frow,
                    };
                    sp.write(&self.buf, row, ctx)?;
                    continue;
                }
                self.bytes += self.buf.len() + KEY_OVERHEAD;
                self.seen.insert(self.buf.clone().into_boxed_slice());
                if self.bytes > ctx.spill.operator_budget {
                    self.spill = Some(Partitions::new(self.level));
                }
                return Ok(true);
            }
            // the source is exhausted: its keys are done, go on with a spilled partition
            if let Some(sp) = self.spill.take() {
                let level = sp.level + 1;
                for f in sp.finish(ctx)?.into_iter().flatten() {
                    self.pending.push((f, level));
                }
            }
            if matches!(self.src, Src::Input) {
                self.input.close();
            }
            self.frow.clear();
            let Some((f, level)) = self.pending.pop() else {
                self.src = Src::Done;
                return Ok(false);
            };
            self.seen = HashSet::new();
            self.bytes = 0;
            self.level = level;
            self.src = Src::File(f.reader()?, f);
        }
    }
    fn row(&self) -> &[Value] {
        match &self.src {
            Src::Input => self.input.row(),
            Src::File(..) | Src::Done => &self.frow,
        }
    }
    fn close(&mut self) {
        self.input.close();
        self.reset();
    }
}

/// EXCEPT / INTERSECT (distinct): distinct left rows whose key is not / is among the right
/// rows' keys.
pub struct HashSetOp<'p> {
    distinct: HashDistinct<'p>,
}

impl<'p> HashSetOp<'p> {
    pub fn new(kind: SetOpKind, _all: bool, left: BoxOp<'p>, right: BoxOp<'p>) -> Self {
        HashSetOp {
            distinct: HashDistinct::new(Box::new(SetFilter {
                kind,
                left,
                right,
                set: HashSet::new(),
                pending: Vec::new(),
                partitioned: false,
                cur: None,
                frow: Vec::new(),
                buf: Vec::new(),
            })),
        }
    }
}

impl Operator for HashSetOp<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.distinct.open(ctx)
    }
    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        self.distinct.next(ctx)
    }
    fn row(&self) -> &[Value] {
        self.distinct.row()
    }
    fn close(&mut self) {
        self.distinct.close();
    }
}

/// Left rows whose key is (INTERSECT) / is not (EXCEPT) a right row's key; duplicates kept.
struct SetFilter<'p> {
    kind: SetOpKind,
    left: BoxOp<'p>,
    right: BoxOp<'p>,
    set: HashSet<Box<[u8]>>,
    /// Grace partitioning: (right keys, left rows, level) still to filter.
    pending: Vec<(Option<SpillFile>, SpillFile, u32)>,
    partitioned: bool,
    /// The left rows file being filtered against `set`.
    cur: Option<(SpillReader, SpillFile)>,
    frow: Vec<Value>,
    buf: Vec<u8>,
}

/// True when a left row with key `key` passes the filter.
fn keep(kind: SetOpKind, set: &HashSet<Box<[u8]>>, key: &[u8]) -> bool {
    let found = set.contains(key);
    match kind {
        SetOpKind::Except => !found,
        SetOpKind::Intersect | SetOpKind::Union => found,
    }
}

/// Rows to partition: the left input or a left rows file.
enum Rows<'a, 'p> {
    Op(&'a mut BoxOp<'p>),
    File(&'a mut SpillReader),
}

impl Rows<'_, '_> {
    fn next(&mut self, row: &mut Vec<Value>, ctx: &mut ExecCtx) -> SqlResult<bool> {
        match self {
            Rows::Op(op) => {
                row.clear();
                if !op.next(ctx)? {
                    return Ok(false);
                }
                row.extend_from_slice(op.row());
                Ok(true)
            }
            Rows::File(rd) => rd.next_row(row),
        }
    }
}

/// Splits `left` rows by key hash at the level of the already partitioned right keys; the
/// non-empty left partitions become pending pairs one level deeper.
fn split(
    right: Partitions,
    mut left: Rows<'_, '_>,
    pending: &mut Vec<(Option<SpillFile>, SpillFile, u32)>,
    buf: &mut Vec<u8>,
    ctx: &mut ExecCtx,
) -> SqlResult<()> {
    let level = right.level;
    let mut lparts = Partitions::new(level);
    let mut row = Vec::new();
    while left.next(&mut row, ctx)? {
        row_key(&row, buf);
        lparts.write(buf, &row, ctx)?;
    }
    let rfiles = right.finish(ctx)?;
    let lfiles = lparts.finish(ctx)?;
    for (r, l) in rfiles.into_iter().zip(lfiles) {
        if let Some(l) = l {
            pending.push((r, l, level + 1));
        }
    }
    Ok(())
}

impl SetFilter<'_> {
    /// Loads a right-keys file into `set`; false (set cleared, keys re-partitioned into
    /// `parts`) when it exceeds the budget.
    fn load_keys(
        &mut self,
        keys: Option<&SpillFile>,
        parts: &mut Partitions,
        ctx: &mut ExecCtx,
    ) -> SqlResult<bool> {
        self.set = HashSet::new();
        let Some(f) = keys else {
            return Ok(true);
        };
        let mut rd = f.reader()?;
        let mut bytes = 0usize;
        let mut row = Vec::new();
        let mut over = false;
        while rd.next_row(&mut row)? {
            let Some(Value::VarBinary(k)) = row.first() else {
                continue;
            };
            if over {
                parts.write_key(k, ctx)?;
                continue;
            }
            bytes += k.len() + KEY_OVERHEAD;
            self.set.insert(k.clone().into_boxed_slice());
            if bytes > ctx.spill.operator_budget && parts.level <= MAX_LEVEL {
                over = true;
                for k in std::mem::take(&mut self.set) {
                    parts.write_key(&k, ctx)?;
                }
            }
        }
        Ok(!over)
    }
}

impl Operator for SetFilter<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.set = HashSet::new();
        self.pending.clear();
        self.partitioned = false;
        self.cur = None;
        self.right.open(ctx)?;
        let mut bytes = 0usize;
        let mut parts: Option<Partitions> = None;
        while self.right.next(ctx)? {
            row_key(self.right.row(), &mut self.buf);
            if let Some(p) = parts.as_mut() {
                p.write_key(&self.buf, ctx)?;
                continue;
            }
            if !self.set.contains(&self.buf[..]) {
                bytes += self.buf.len() + KEY_OVERHEAD;
                self.set.insert(self.buf.clone().into_boxed_slice());
                if bytes > ctx.spill.operator_budget {
                    let mut p = Partitions::new(0);
                    for k in std::mem::take(&mut self.set) {
                        p.write_key(&k, ctx)?;
                    }
                    parts = Some(p);
                }
            }
        }
        self.right.close();
        self.left.open(ctx)?;
        if let Some(p) = parts {
            self.partitioned = true;
            split(
                p,
                Rows::Op(&mut self.left),
                &mut self.pending,
                &mut self.buf,
                ctx,
            )?;
            self.left.close();
        }
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        if !self.partitioned {
            while self.left.next(ctx)? {
                row_key(self.left.row(), &mut self.buf);
                if keep(self.kind, &self.set, &self.buf) {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        loop {
            if let Some((rd, _)) = self.cur.as_mut() {
                while rd.next_row(&mut self.frow)? {
                    row_key(&self.frow, &mut self.buf);
                    if keep(self.kind, &self.set, &self.buf) {
                        return Ok(true);
                    }
                }
                self.cur = None;
            }
            let Some((keys, lefts, level)) = self.pending.pop() else {
                self.frow.clear();
                return Ok(false);
            };
            let mut parts = Partitions::new(level);
            if self.load_keys(keys.as_ref(), &mut parts, ctx)? {
                self.cur = Some((lefts.reader()?, lefts));
            } else {
                let mut rd = lefts.reader()?;
                split(
                    parts,
                    Rows::File(&mut rd),
                    &mut self.pending,
                    &mut self.buf,
                    ctx,
                )?;
            }
        }
    }

    fn row(&self) -> &[Value] {
        if self.partitioned {
            &self.frow
        } else {
            self.left.row()
        }
    }

    fn close(&mut self) {
        self.left.close();
        self.set = HashSet::new();
        self.pending.clear();
        self.cur = None;
    }
}
