//! Hash Match (Aggregate): groups rows by their encoded group-by key. Output = group-by values
//! followed by aggregate results; a scalar aggregate (no GROUP BY) yields exactly one row.
//! GROUPING SETS / ROLLUP / CUBE run one pass per set (absent group columns are NULL and
//! `GROUPING()` reports 1 for them).

use hashbrown::HashMap;

use common::SqlResult;
use plan::{AggCall, AggFunc, ScalarExpr, ScalarKind};
use types::Value;

use crate::agg::AggState;
use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::valops;

pub struct HashAggregate<'p> {
    input: BoxOp<'p>,
    group_by: &'p [ScalarExpr],
    aggs: &'p [AggCall],
    sets: Option<&'p Vec<Vec<usize>>>,
    out: Vec<Vec<Value>>,
    pos: usize,
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
            out: Vec::new(),
            pos: 0,
        }
    }
}

struct Group {
    keys: Vec<Value>,
    states: Vec<AggState>,
}

impl Operator for HashAggregate<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.out.clear();
        self.pos = 0;
        let all: Vec<usize> = (0..self.group_by.len()).collect();
        let sets: Vec<Vec<usize>> = match self.sets {
            Some(s) => s.clone(),
            None => vec![all],
        };
        // Materialize the input once when several grouping sets must be computed.
        let mut rows: Option<Vec<Vec<Value>>> = None;
        if sets.len() > 1 {
            let mut v = Vec::new();
            self.input.open(ctx)?;
            while self.input.next(ctx)? {
                v.push(self.input.row().to_vec());
            }
            self.input.close();
            rows = Some(v);
        }
        for set in &sets {
            let mut groups: Vec<Group> = Vec::new();
            let mut index: HashMap<Box<[u8]>, usize> = HashMap::new();
            let mut keybuf = Vec::new();
            let mut keyvals = Vec::with_capacity(self.group_by.len());
            let mut process = |row: &[Value], ctx: &mut ExecCtx| -> SqlResult<()> {
                keybuf.clear();
                keyvals.clear();
                for (gi, g) in self.group_by.iter().enumerate() {
                    let v = if set.contains(&gi) {
                        match g.kind {
                            ScalarKind::Column(i) => row.get(i).cloned().unwrap_or(Value::Null),
                            _ => eval(g, row, ctx)?,
                        }
                    } else {
                        Value::Null
                    };
                    valops::hash_key(&v, &mut keybuf);
                    keyvals.push(v);
                }
                let gi = match index.get(&keybuf[..]) {
                    Some(&i) => i,
                    None => {
                        groups.push(Group {
                            keys: keyvals.clone(),
                            states: self.aggs.iter().map(AggState::new).collect(),
                        });
                        index.insert(keybuf.clone().into_boxed_slice(), groups.len() - 1);
                        groups.len() - 1
                    }
                };
                let g = &mut groups[gi];
                for (a, s) in self.aggs.iter().zip(g.states.iter_mut()) {
                    s.update(a, row, ctx)?;
                }
                Ok(())
            };
            match &rows {
                Some(rs) => {
                    for r in rs {
                        process(r, ctx)?;
                    }
                }
                None => {
                    self.input.open(ctx)?;
                    while self.input.next(ctx)? {
                        process(self.input.row(), ctx)?;
                    }
                    self.input.close();
                }
            }
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
        }
        Ok(())
    }

    fn next(&mut self, _ctx: &mut ExecCtx) -> SqlResult<bool> {
        if self.pos < self.out.len() {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn row(&self) -> &[Value] {
        match self.pos.checked_sub(1).and_then(|i| self.out.get(i)) {
            Some(r) => r,
            None => &[],
        }
    }
}
