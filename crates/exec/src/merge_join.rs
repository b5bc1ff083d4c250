//! Merge Join (inner, left outer, left semi, left anti semi) over inputs sorted ascending on the
//! join keys; a left row without a match comes out NULL-extended (outer) or alone (anti semi). Both inputs stream in
//! key order; the run of right rows sharing the current key is kept (a `RowBuffer`: in memory
//! within the operator budget, a work file past it) and joined with every left row of that
//! key. Rows with a NULL key never match.

use std::cmp::Ordering;

use common::{SqlError, SqlResult};
use plan::{JoinKind, ScalarExpr};
use types::Value;

use crate::context::ExecCtx;
use crate::eval::{eval, eval_pred};
use crate::operator::{BoxOp, Operator};
use crate::row_buffer::RowBuffer;
use crate::spill::SpillReader;
use crate::valops;

/// Work table name of a spilled run in error messages.
const RUN_OBJECT: &str = "dbo.Merge Join temporary run storage";

pub struct MergeJoin<'p> {
    left: BoxOp<'p>,
    right: BoxOp<'p>,
    kind: JoinKind,
    left_keys: &'p [ScalarExpr],
    right_keys: &'p [ScalarExpr],
    residual: Option<&'p ScalarExpr>,
    right_arity: usize,
    /// Whether some right row joined the current left row.
    matched: bool,
    /// The current left row.
    lrow: Vec<Value>,
    /// The first right row past the run, with its key (None: right input exhausted).
    rnext: Option<(Vec<Value>, Vec<Value>)>,
    /// Right rows sharing `run_key`.
    run: RowBuffer,
    run_key: Option<Vec<Value>>,
    /// Joining the current left row with the run: next position (memory) or reader (file).
    in_run: bool,
    run_pos: usize,
    run_reader: Option<SpillReader>,
    rbuf: Vec<Value>,
    out: Vec<Value>,
}

impl<'p> MergeJoin<'p> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        left: BoxOp<'p>,
        right: BoxOp<'p>,
        kind: JoinKind,
        left_keys: &'p [ScalarExpr],
        right_keys: &'p [ScalarExpr],
        residual: Option<&'p ScalarExpr>,
        _left_arity: usize,
        right_arity: usize,
    ) -> Self {
        MergeJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
            right_arity,
            matched: false,
            lrow: Vec::new(),
            rnext: None,
            run: RowBuffer::new(RUN_OBJECT),
            run_key: None,
            in_run: false,
            run_pos: 0,
            run_reader: None,
            rbuf: Vec::new(),
            out: Vec::new(),
        }
    }

    fn fetch_right(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.rnext = if self.right.next(ctx)? {
            let row = self.right.row().to_vec();
            let key = keys_of(self.right_keys, &row, ctx)?;
            Some((row, key))
        } else {
            None
        };
        Ok(())
    }

    /// Starts joining the current left row with the run.
    fn start_run(&mut self) -> SqlResult<()> {
        self.in_run = true;
        self.run_pos = 0;
        self.run_reader = self.run.file_reader()?;
        Ok(())
    }

    /// After the current left row met all its candidates: its row when the join kind returns
    /// unmatched left rows (into `out`).
    fn unmatched_left(&mut self) -> bool {
        if self.matched {
            return false;
        }
        match self.kind {
            JoinKind::LeftOuter => {
                self.out.clear();
                self.out.extend_from_slice(&self.lrow);
                self.out
                    .extend(std::iter::repeat_n(Value::Null, self.right_arity));
                true
            }
            JoinKind::LeftAntiSemi => {
                self.out.clear();
                self.out.extend_from_slice(&self.lrow);
                true
            }
            _ => false,
        }
    }

    /// The next row of the run for the current left row, into `rbuf`; false at its end.
    fn next_run_row(&mut self) -> SqlResult<bool> {
        if let Some(rd) = self.run_reader.as_mut() {
            return rd.next_row(&mut self.rbuf);
        }
        match self.run.mem_rows().and_then(|r| r.get(self.run_pos)) {
            Some(r) => {
                self.rbuf.clear();
                self.rbuf.extend_from_slice(r);
                self.run_pos += 1;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

fn keys_of(keys: &[ScalarExpr], row: &[Value], ctx: &mut ExecCtx) -> SqlResult<Vec<Value>> {
    let mut k = Vec::with_capacity(keys.len());
    for e in keys {
        k.push(eval(e, row, ctx)?);
    }
    Ok(k)
}

fn cmp(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = valops::sort_cmp(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

impl Operator for MergeJoin<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        if !matches!(
            self.kind,
            JoinKind::Inner | JoinKind::LeftOuter | JoinKind::LeftSemi | JoinKind::LeftAntiSemi
        ) {
            return Err(SqlError::internal(
                "merge join cannot run right/full outer joins",
            ));
        }
        self.run = RowBuffer::new(RUN_OBJECT);
        self.run_key = None;
        self.in_run = false;
        self.run_reader = None;
        self.out.clear();
        self.left.open(ctx)?;
        self.right.open(ctx)?;
        self.fetch_right(ctx)
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        loop {
            if self.in_run {
                if self.next_run_row()? {
                    self.out.clear();
                    self.out.extend_from_slice(&self.lrow);
                    self.out.extend_from_slice(&self.rbuf);
                    if let Some(p) = self.residual {
                        if !eval_pred(p, &self.out, ctx)? {
                            continue;
                        }
                    }
                    self.matched = true;
                    match self.kind {
                        JoinKind::LeftSemi => {
                            self.in_run = false;
                            self.out.truncate(self.lrow.len());
                            return Ok(true);
                        }
                        // one match settles it: the rest of the run is not read
                        JoinKind::LeftAntiSemi => self.in_run = false,
                        _ => return Ok(true),
                    }
                    continue;
                }
                self.in_run = false;
                if self.unmatched_left() {
                    return Ok(true);
                }
            }
            if !self.left.next(ctx)? {
                self.out.clear();
                return Ok(false);
            }
            self.lrow.clear();
            self.lrow.extend_from_slice(self.left.row());
            self.matched = false;
            let lkey = keys_of(self.left_keys, &self.lrow, ctx)?;
            if lkey.iter().any(Value::is_null) {
                if self.unmatched_left() {
                    return Ok(true);
                }
                continue;
            }
            if self
                .run_key
                .as_ref()
                .is_some_and(|k| cmp(k, &lkey) == Ordering::Equal)
            {
                self.start_run()?;
                continue;
            }
            // a new key: skip smaller (and NULL) right keys, then collect the run of this key
            self.run_key = None;
            self.run = RowBuffer::new(RUN_OBJECT);
            while let Some((_, k)) = &self.rnext {
                if k.iter().any(Value::is_null) || cmp(k, &lkey) == Ordering::Less {
                    self.fetch_right(ctx)?;
                } else {
                    break;
                }
            }
            if !matches!(&self.rnext, Some((_, k)) if cmp(k, &lkey) == Ordering::Equal) {
                if self.unmatched_left() {
                    return Ok(true);
                }
                continue;
            }
            while let Some((row, k)) = self.rnext.take() {
                if cmp(&k, &lkey) != Ordering::Equal {
                    self.rnext = Some((row, k));
                    break;
                }
                self.run.push(&row, ctx)?;
                self.fetch_right(ctx)?;
            }
            self.run.finish(ctx)?;
            self.run_key = Some(lkey);
            self.start_run()?;
        }
    }

    fn row(&self) -> &[Value] {
        &self.out
    }

    fn close(&mut self) {
        self.left.close();
        self.right.close();
        self.run = RowBuffer::new(RUN_OBJECT);
        self.run_reader = None;
        self.rnext = None;
    }
}
