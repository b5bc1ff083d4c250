//! Hash Match join. Builds a hash table on the right input, probes with the left input (so the
//! output is left ++ right for every kind). Supports inner, left/right/full outer, left semi and
//! left anti semi. Keys are encoded into a reused byte buffer (`valops::hash_key`), so probing
//! allocates nothing; rows with a NULL key never match.

use std::collections::HashMap;

use common::SqlResult;
use plan::{JoinKind, ScalarExpr};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::operator::{BoxOp, Operator};
use crate::valops;

pub struct HashJoin<'p> {
    left: BoxOp<'p>,
    right: BoxOp<'p>,
    kind: JoinKind,
    left_keys: &'p [ScalarExpr],
    right_keys: &'p [ScalarExpr],
    residual: Option<&'p ScalarExpr>,
    left_arity: usize,
    right_arity: usize,
    /// key bytes -> indexes into `build_rows`
    table: HashMap<Box<[u8]>, Vec<u32>>,
    build_rows: Vec<Vec<Value>>,
    build_matched: Vec<bool>,
    keybuf: Vec<u8>,
    cur: Vec<Value>,
    /// Current probe state: candidate list and position.
    cand: Option<(Box<[u8]>, usize)>,
    probe_matched: bool,
    probe_active: bool,
    /// Emitting unmatched build rows (right/full outer) from this index.
    tail: Option<usize>,
}

impl<'p> HashJoin<'p> {
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
            table: HashMap::new(),
            build_rows: Vec::new(),
            build_matched: Vec::new(),
            keybuf: Vec::new(),
            cur: Vec::new(),
            cand: None,
            probe_matched: false,
            probe_active: false,
            tail: None,
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
        let v = match k.as_column() {
            Some(i) => {
                let v = row.get(i).unwrap_or(&Value::Null);
                if v.is_null() {
                    return Ok(false);
                }
                valops::hash_key(v, out);
                continue;
            }
            None => eval(k, row, ctx)?,
        };
        if v.is_null() {
            return Ok(false);
        }
        valops::hash_key(&v, out);
    }
    Ok(true)
}

impl Operator for HashJoin<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.table.clear();
        self.build_rows.clear();
        self.build_matched.clear();
        self.cand = None;
        self.probe_active = false;
        self.tail = None;
        self.right.open(ctx)?;
        while self.right.next(ctx)? {
            let row = self.right.row();
            let idx = self.build_rows.len() as u32;
            let has_key = encode_keys(self.right_keys, row, ctx, &mut self.keybuf)?;
            self.build_rows.push(row.to_vec());
            self.build_matched.push(false);
            if has_key {
                match self.table.get_mut(&self.keybuf[..]) {
                    Some(v) => v.push(idx),
                    None => {
                        self.table
                            .insert(self.keybuf.clone().into_boxed_slice(), vec![idx]);
                    }
                }
            }
        }
        self.right.close();
        self.left.open(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if let Some(i) = self.tail {
                // unmatched build rows for right / full outer
                let mut i = i;
                while i < self.build_rows.len() && self.build_matched[i] {
                    i += 1;
                }
                if i >= self.build_rows.len() {
                    self.tail = Some(i);
                    return Ok(false);
                }
                self.tail = Some(i + 1);
                self.cur.clear();
                self.cur
                    .extend(std::iter::repeat_n(Value::Null, self.left_arity));
                self.cur.extend_from_slice(&self.build_rows[i]);
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
                let has = encode_keys(self.left_keys, self.left.row(), ctx, &mut self.keybuf)?;
                self.cand = if has && self.table.contains_key(&self.keybuf[..]) {
                    Some((self.keybuf.clone().into_boxed_slice(), 0))
                } else {
                    None
                };
            }
            // walk candidates
            if let Some((key, pos)) = &mut self.cand {
                let list = self.table.get(key).map(|v| v.as_slice()).unwrap_or(&[]);
                while *pos < list.len() {
                    let bi = list[*pos] as usize;
                    *pos += 1;
                    self.cur.clear();
                    self.cur.extend_from_slice(self.left.row());
                    self.cur.extend_from_slice(&self.build_rows[bi]);
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
                            *pos = usize::MAX - 1;
                            break;
                        }
                        _ => return Ok(true),
                    }
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
        self.table = HashMap::new();
        self.build_rows = Vec::new();
    }
}
