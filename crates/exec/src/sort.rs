//! Sort (with TOP N Sort and DISTINCT Sort). NULLs sort first ascending, as in SQL Server.
//! The sort is stable, so equal keys keep input order.
//!
//! A full sort stores the input rows flat (one `Vec<Value>`, fixed stride) and sorts a
//! permutation. When every key is an integer type the keys are pre-encoded into fixed-width
//! memcomparable bytes (NULL marker, big-endian with flipped sign, inverted when descending), so
//! comparisons are integer or `memcmp` comparisons instead of `Value` matches; keys of up to 16
//! bytes (e.g. two int columns) sort as `(u128, row index)` pairs; the row index breaks ties
//! (stable).

use std::cmp::Ordering;

use common::{SqlError, SqlResult};
use plan::{ScalarExpr, SortKey};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::{BoxOp, Operator};
use crate::valops;

pub struct Sort<'p> {
    input: BoxOp<'p>,
    keys: &'p [SortKey],
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
}

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

impl Sort<'_> {
    /// Full (unbounded) sort: rows flat, permutation sorted by pre-encoded or `Value` keys.
    fn full_sort(&mut self, limit: Option<usize>, ctx: &mut ExecCtx) -> SqlResult<()> {
        let keys = self.keys;
        let int_keys = keys.iter().all(|k| int_sort_type(&k.expr.data_type));
        let widths: Vec<usize> = keys
            .iter()
            .map(|k| int_key_width(&k.expr.data_type))
            .collect();
        let kw: usize = widths.iter().sum();
        let mut enc: Vec<u8> = Vec::new();
        let mut kvals: Vec<Value> = Vec::new();
        let mut width: Option<usize> = None;
        let mut n = 0usize;
        while self.input.next(ctx)? {
            let row = self.input.row();
            for (key, &width) in keys.iter().zip(&widths) {
                let owned;
                let v = match key.expr.as_column() {
                    Some(i) => row.get(i).unwrap_or(&Value::Null),
                    None => {
                        owned = eval(&key.expr, row, ctx)?;
                        &owned
                    }
                };
                if int_keys {
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
        }
        if n > u32::MAX as usize {
            return Err(SqlError::internal("too many rows to sort"));
        }
        self.width = width.unwrap_or(0);
        self.order = (0..n as u32).collect();
        if int_keys {
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
                self.order = pairs.into_iter().map(|p| p.1).collect();
            } else {
                // stable: equal keys keep input order
                self.order.sort_by(|&a, &b| {
                    let (a, b) = (a as usize, b as usize);
                    enc[a * kw..(a + 1) * kw].cmp(&enc[b * kw..(b + 1) * kw])
                });
            }
        } else {
            let nk = keys.len();
            self.order.sort_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                cmp_keys(
                    keys,
                    &kvals[a * nk..(a + 1) * nk],
                    &kvals[b * nk..(b + 1) * nk],
                )
            });
        }
        if self.distinct {
            let w = self.width;
            let flat = &self.flat;
            self.order.dedup_by(|a, b| {
                let (a, b) = (*a as usize, *b as usize);
                flat[a * w..(a + 1) * w]
                    .iter()
                    .zip(&flat[b * w..(b + 1) * w])
                    .all(|(x, y)| valops::sort_cmp(x, y) == Ordering::Equal)
            });
        }
        if let Some(n) = limit {
            self.order.truncate(n);
        }
        Ok(())
    }
}

impl Operator for Sort<'_> {
    fn open(&mut self, ctx: &mut ExecCtx) -> SqlResult<()> {
        self.rows.clear();
        self.pos = 0;
        let limit = match self.top {
            Some(e) => match valops::cast(&eval(e, &[], ctx)?, &DataType::BigInt)? {
                Value::BigInt(n) => Some(n.max(0) as usize),
                _ => None,
            },
            None => None,
        };
        self.input.open(ctx)?;
        let keys = self.keys;
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
}
