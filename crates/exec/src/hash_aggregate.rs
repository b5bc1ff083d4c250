//! Hash Match (Aggregate): groups rows by their encoded group-by key. Output = group-by values
//! followed by aggregate results; a scalar aggregate (no GROUP BY) yields exactly one row.
//! GROUPING SETS / ROLLUP / CUBE run one pass per set (absent group columns are NULL and
//! `GROUPING()` reports 1 for them).
//!
//! Spilling: when the groups held exceed the operator memory budget (`ExecCtx::spill`), the
//! groups already in memory keep aggregating, and every later input row whose group is not in
//! memory is written to one of `PARTITIONS` tempdb work files chosen by a hash of its group key
//! (seeded per level). After the input ends, the in-memory groups are output, then each
//! partition file is aggregated the same way (one level deeper, a new seed), lazily from
//! `next`. Every group lives in exactly one pass, so aggregate states are never serialised, and
//! each pass finishes at least one group, so the recursion ends. The input of several grouping
//! sets is materialised once (spilled to a work file as well when over budget).

use common::SqlResult;
use plan::{AggCall, AggFunc, ScalarExpr, ScalarKind};
use types::Value;

use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::spill::{hash_bytes, level_seed, partition_of, row_size, SpillFile, SpillWriter};
use crate::valops;

/// Fan-out of one spill level.
const PARTITIONS: usize = 16;
/// Work table name in error messages.
const WORKFILE: &str = "dbo.Workfile";

pub struct HashAggregate<'p> {
    input: BoxOp<'p>,
    group_by: &'p [ScalarExpr],
    aggs: &'p [AggCall],
    sets: Option<&'p Vec<Vec<usize>>>,
    /// The grouping sets of this execution (one = plain GROUP BY).
    set_list: Vec<Vec<usize>>,
    out: Vec<Vec<Value>>,
    pos: usize,
    /// Spilled partitions still to aggregate: (grouping set index, input rows, level).
    pending: Vec<(usize, SpillFile, u32)>,
}

impl<'p> HashAggregate<'p> {
    pub fn new(
        input: BoxOp<'p>,
        group_by: &'p [ScalarExpr],
        aggs: &'p [AggCall],
        sets: Option<&'p Vec<Vec<usize>>>,
    ) -> Self {
        HashAggregate {
            input,
            group_by,
            aggs,
            sets,
            set_list: Vec::new(),
            out: Vec::new(),
            pos: 0,
            pending: Vec::new(),
        }
    }
}

struct Group {
    keys: Vec<Value>,
    states: Vec<AggState>,
}

/// Where a pass reads its input rows.
enum Src<'a> {
    Input,
    Rows(&'a [Vec<Value>]),
    File(&'a SpillFile),
}

/// One aggregation pass over one grouping set.
struct Pass<'a> {
    group_by: &'a [ScalarExpr],
    aggs: &'a [AggCall],
    set: &'a [usize],
    groups: Vec<Group>,
    index: crate::byte_keys::ByteKeyMap<usize>,
    keybuf: Vec<u8>,
    /// The values of the grouping expressions that are not plain columns, in order (a
    /// column is read from the row, and cloned only when its group is new).
    keyvals: Vec<Value>,
    bytes: usize,
    budget: usize,
    seed: u64,
    /// Partition files of rows whose group is not in memory (after the budget was exceeded).
    spill: Option<Vec<SpillWriter>>,
}

impl Pass<'_> {
    fn process(&mut self, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<()> {
        self.keybuf.clear();
        self.keyvals.clear();
        for (gi, g) in self.group_by.iter().enumerate() {
            if !self.set.contains(&gi) {
                valops::hash_key(&Value::Null, &mut self.keybuf);
                continue;
            }
            match g.kind {
                ScalarKind::Column(i) => {
                    valops::hash_key(row.get(i).unwrap_or(&Value::Null), &mut self.keybuf)
                }
                _ => {
                    let v = eval(g, row, ctx)?;
                    valops::hash_key(&v, &mut self.keybuf);
                    self.keyvals.push(v);
                }
            }
        }
        let gi = match self.index.get(&self.keybuf) {
            Some(i) => i,
            None => {
                if let Some(ws) = self.spill.as_mut() {
                    let p = partition_of(hash_bytes(&self.keybuf, self.seed), PARTITIONS);
                    return ws[p].write_row(row);
                }
                let mut evaluated = self.keyvals.drain(..);
                let keys: Vec<Value> = self
                    .group_by
                    .iter()
                    .enumerate()
                    .map(|(gi, g)| match g.kind {
                        _ if !self.set.contains(&gi) => Value::Null,
                        ScalarKind::Column(i) => row.get(i).cloned().unwrap_or(Value::Null),
                        _ => evaluated.next().unwrap_or(Value::Null),
                    })
                    .collect();
                drop(evaluated);
                let (_, key_bytes) = self.index.get_or_insert(&self.keybuf, self.groups.len());
                self.bytes += row_size(&keys)
                    + key_bytes
                    + std::mem::size_of::<Group>()
                    + self.aggs.len() * std::mem::size_of::<AggState>()
                    + 32;
                self.groups.push(Group {
                    keys,
                    states: self.aggs.iter().map(AggState::new).collect(),
                });
                if self.bytes > self.budget && !self.group_by.is_empty() {
                    self.spill = Some(
                        (0..PARTITIONS)
                            .map(|_| SpillWriter::create(ctx, WORKFILE))
                            .collect::<SqlResult<_>>()?,
                    );
                }
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[gi];
        for (a, s) in self.aggs.iter().zip(g.states.iter_mut()) {
            s.update(a, row, ctx)?;
        }
        Ok(())
    }
}

impl HashAggregate<'_> {
    /// Aggregates `src` for grouping set `si` at spill level `level`: the finished groups go
    /// to `out`, spilled partitions to `pending`.
    fn aggregate(
        &mut self,
        si: usize,
        src: Src<'_>,
        level: u32,
        ctx: &mut ExecCtx,
    ) -> SqlResult<()> {
        let set = &self.set_list[si];
        let mut pass = Pass {
            group_by: self.group_by,
            aggs: self.aggs,
            set,
            groups: Vec::new(),
            index: crate::byte_keys::ByteKeyMap::default(),
            keybuf: Vec::new(),
            keyvals: Vec::with_capacity(self.group_by.len()),
            bytes: 0,
            budget: ctx.spill.operator_budget,
            seed: level_seed(level),
            spill: None,
        };
        match src {
            Src::Input => {
                self.input.open(ctx)?;
                while self.input.next(ctx)? {
                    pass.process(self.input.row(), ctx)?;
                }
                self.input.close();
            }
            Src::Rows(rows) => {
                for r in rows {
                    pass.process(r, ctx)?;
                }
            }
            Src::File(f) => {
                let mut rd = f.reader()?;
                let mut row = Vec::new();
                while rd.next_row(&mut row)? {
                    pass.process(&row, ctx)?;
                }
            }
        }
        if let Some(ws) = pass.spill.take() {
            for w in ws {
                let f = w.finish(ctx)?;
                if f.rows() > 0 {
                    self.pending.push((si, f, level + 1));
                }
            }
        }
        let mut groups = pass.groups;
        if groups.is_empty() && self.group_by.is_empty() {
            groups.push(Group {
                keys: vec![],
                states: self.aggs.iter().map(AggState::new).collect(),
            });
        }
        for mut g in groups {
            let mut r = g.keys;
            for (a, s) in self.aggs.iter().zip(g.states.iter_mut()) {
                if a.func == AggFunc::Grouping {
                    let gi = a
                        .args
                        .first()
                        .and_then(|e| e.as_literal())
                        .and_then(|v| match v {
                            Value::Int(i) => Some(*i as usize),
                            _ => None,
                        })
                        .unwrap_or(0);
                    r.push(Value::TinyInt(u8::from(!set.contains(&gi))));
                } else {
                    r.push(s.finish(a)?);
                }
            }
            self.out.push(r);
        }
        Ok(())
    }
}

impl Operator for HashAggregate<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out.clear();
        self.pos = 0;
        self.pending.clear();
        let all: Vec<usize> = (0..self.group_by.len()).collect();
        self.set_list = match self.sets {
            Some(s) => s.clone(),
            None => vec![all],
        };
        if self.set_list.len() <= 1 {
            return self.aggregate(0, Src::Input, 0, ctx);
        }
        // Materialize the input once when several grouping sets must be computed.
        let budget = ctx.spill.operator_budget;
        let mut rows: Vec<Vec<Value>> = Vec::new();
        let mut bytes = 0usize;
        let mut file: Option<SpillWriter> = None;
        self.input.open(ctx)?;
        while self.input.next(ctx)? {
            let row = self.input.row();
            if let Some(w) = file.as_mut() {
                w.write_row(row)?;
                continue;
            }
            bytes += row_size(row);
            rows.push(row.to_vec());
            if bytes > budget {
                let mut w = SpillWriter::create(ctx, WORKFILE)?;
                for r in rows.drain(..) {
                    w.write_row(&r)?;
                }
                file = Some(w);
            }
        }
        self.input.close();
        let file = match file {
            Some(w) => Some(w.finish(ctx)?),
            None => None,
        };
        for si in 0..self.set_list.len() {
            let src = match &file {
                Some(f) => Src::File(f),
                None => Src::Rows(&rows),
            };
            self.aggregate(si, src, 0, ctx)?;
        }
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if self.pos < self.out.len() {
                self.pos += 1;
                return Ok(true);
            }
            let Some((si, file, level)) = self.pending.pop() else {
                return Ok(false);
            };
            self.out.clear();
            self.pos = 0;
            self.aggregate(si, Src::File(&file), level, ctx)?;
        }
    }

    fn row(&self) -> &[Value] {
        match self.pos.checked_sub(1).and_then(|i| self.out.get(i)) {
            Some(r) => r,
            None => &[],
        }
    }

    fn close(&mut self) {
        self.pending.clear();
        self.out = Vec::new();
    }
}
