//! The group lookup of the batch aggregate: each selected row of a batch → its group's
//! number (first-seen order), creating groups as keys first appear.
//!
//! Two rows are in one group exactly when their keys' `valops::hash_key` encodings are
//! equal (row mode's rule: integers by value, strings by the default collation's sort key,
//! NULLs together). Three ways to find a group, chosen from the key types:
//!
//! * **One integer key** (bit…bigint, or date): a `HashMap<u64, u32>` on the value, NULL a
//!   group of its own — no encoding, no allocation per row (TPC-H Q18's `l_orderkey`).
//! * **Up to [`PACKED`] integer, date or string keys**: each key coded as a u64 (the value;
//!   for a string, the number of its collation class in a per-column dictionary that maps
//!   the raw text to it, so the sort key is computed once per distinct text) and the codes
//!   plus a NULL mask hashed as one fixed-width array (TPC-H Q1's two `char(1)` flags).
//! * **Any other key** (decimals, floats, more keys): the `hash_key` bytes of the row's
//!   keys. A batch whose keys the coded ways cannot code (a constant of another type)
//!   moves the index to this way for good, re-keying the groups found so far from their
//!   key values (equal bytes, as `key_bytes` encodes a vector value as `hash_key` does).

use arrow_array::{Array, Date32Array, Int64Array, StringArray};
use hashbrown::hash_map::{Entry, HashMap};

use plan::ScalarExpr;
use types::{DataType, Value};

use super::expr::Operand;
use super::vector::{Column, Vector};
use crate::valops;

/// The most keys the packed way codes.
pub(crate) const PACKED: usize = 4;

/// Codes of up to [`PACKED`] keys, then the mask of the NULL ones.
type PackedKey = [u64; PACKED + 1];

/// How a key column is coded.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Int,
    Date,
    Str,
}

fn kind_of(ty: &DataType) -> Option<Kind> {
    match ty {
        DataType::Bit
        | DataType::TinyInt
        | DataType::SmallInt
        | DataType::Int
        | DataType::BigInt => Some(Kind::Int),
        DataType::Date => Some(Kind::Date),
        DataType::Char(_) | DataType::VarChar(_) | DataType::NChar(_) | DataType::NVarChar(_) => {
            Some(Kind::Str)
        }
        _ => None,
    }
}

/// A string key column's collation classes: raw text → class, sort key → class.
#[derive(Default)]
struct StrDict {
    raw: HashMap<Box<str>, u64>,
    folded: HashMap<Box<[u8]>, u64>,
    buf: Vec<u8>,
}

impl StrDict {
    /// The class of `s`; `bytes` grows by what a new entry holds.
    #[inline]
    fn code(&mut self, s: &str, bytes: &mut usize) -> u64 {
        if let Some(&c) = self.raw.get(s) {
            return c;
        }
        self.buf.clear();
        valops::hash_key_str(s, &mut self.buf);
        let next = self.folded.len() as u64;
        let c = *self
            .folded
            .entry(self.buf.clone().into_boxed_slice())
            .or_insert(next);
        *bytes += s.len() + self.buf.len() + 64;
        self.raw.insert(s.into(), c);
        c
    }
}

/// A key operand of one batch, ready to code.
enum Src<'a> {
    Int(&'a Int64Array),
    Date(&'a Date32Array),
    Str(&'a StringArray),
    /// A constant's code (None: NULL).
    Const(Option<u64>),
}

enum Mode {
    One {
        kind: Kind,
        map: HashMap<u64, u32>,
        null: Option<u32>,
    },
    Packed {
        kinds: Vec<Kind>,
        dicts: Vec<StrDict>,
        map: HashMap<PackedKey, u32>,
        /// Per key: the codes of the batch's rows, and whether each is NULL.
        codes: Vec<Vec<u64>>,
        nulls: Vec<Vec<bool>>,
    },
    General {
        map: HashMap<Box<[u8]>, u32>,
        buf: Vec<u8>,
    },
}

/// Finds (and makes) the groups of a batch aggregate's rows.
pub(crate) struct GroupIndex {
    mode: Mode,
    /// Bytes the string dictionaries hold (they count against the operator's budget).
    pub dict_bytes: usize,
}

impl GroupIndex {
    /// The index for the keys `group_by` (not empty).
    pub fn new(group_by: &[ScalarExpr]) -> Self {
        let kinds: Option<Vec<Kind>> = group_by.iter().map(|g| kind_of(&g.data_type)).collect();
        let mode = match kinds {
            Some(k) if k.len() == 1 && k[0] != Kind::Str => Mode::One {
                kind: k[0],
                map: HashMap::new(),
                null: None,
            },
            Some(k) if !k.is_empty() && k.len() <= PACKED => Mode::Packed {
                dicts: k.iter().map(|_| StrDict::default()).collect(),
                codes: vec![Vec::new(); k.len()],
                nulls: vec![Vec::new(); k.len()],
                kinds: k,
                map: HashMap::new(),
            },
            _ => Mode::General {
                map: HashMap::new(),
                buf: Vec::new(),
            },
        };
        GroupIndex {
            mode,
            dict_bytes: 0,
        }
    }

    /// Whether the index codes keys by value (not the general byte way); for tests.
    #[cfg(test)]
    pub fn is_coded(&self) -> bool {
        !matches!(self.mode, Mode::General { .. })
    }

    /// Readies the index for a batch's `keys`: a key the coded ways cannot code moves it to
    /// the general way (`groups`: the key values of the groups so far).
    pub fn prepare(&mut self, keys: &[Operand], groups: &[Vec<Value>]) {
        if self.sources(keys).is_none() {
            self.make_general(groups);
        }
    }

    /// The group of each row of `sel` into `rowgroup` (after [`GroupIndex::prepare`]);
    /// `new_group(i, key_bytes)` makes the group of row `i`'s key (None: the groups outgrew
    /// the budget, and so does this call).
    pub fn assign(
        &mut self,
        keys: &[Operand],
        sel: &[u32],
        rowgroup: &mut [u32],
        mut new_group: impl FnMut(usize, usize) -> Option<u32>,
    ) -> Option<()> {
        let srcs = self.sources(keys).unwrap_or_default();
        if srcs.len() != keys.len() && !matches!(self.mode, Mode::General { .. }) {
            return None;
        }
        match &mut self.mode {
            Mode::One { map, null, .. } => {
                let mut one = One {
                    map,
                    null,
                    new_group: &mut new_group,
                };
                match &srcs[0] {
                    Src::Int(a) => {
                        let v = a.values();
                        match a.nulls() {
                            None => one.assign(sel, rowgroup, |i| v[i] as u64, |_| true)?,
                            Some(n) => {
                                one.assign(sel, rowgroup, |i| v[i] as u64, |i| n.is_valid(i))?
                            }
                        }
                    }
                    Src::Date(a) => {
                        let v = a.values();
                        match a.nulls() {
                            None => one.assign(sel, rowgroup, |i| v[i] as u64, |_| true)?,
                            Some(n) => {
                                one.assign(sel, rowgroup, |i| v[i] as u64, |i| n.is_valid(i))?
                            }
                        }
                    }
                    Src::Const(c) => {
                        let c = *c;
                        one.assign(sel, rowgroup, |_| c.unwrap_or(0), |_| c.is_some())?
                    }
                    Src::Str(_) => return None,
                }
            }
            Mode::Packed {
                dicts,
                map,
                codes,
                nulls,
                ..
            } => {
                let n = srcs.len();
                let len = rowgroup.len();
                for (j, s) in srcs.iter().enumerate() {
                    let (c, z) = (&mut codes[j], &mut nulls[j]);
                    c.clear();
                    c.resize(len, 0);
                    z.clear();
                    z.resize(len, false);
                    let mut bytes = 0usize;
                    code_column(s, &mut dicts[j], sel, c, z, &mut bytes);
                    self.dict_bytes += bytes;
                }
                for &r in sel {
                    let i = r as usize;
                    let mut k: PackedKey = [0; PACKED + 1];
                    for j in 0..n {
                        k[j] = codes[j][i];
                        k[PACKED] |= u64::from(nulls[j][i]) << j;
                    }
                    rowgroup[i] = match map.entry(k) {
                        Entry::Occupied(o) => *o.get(),
                        Entry::Vacant(v) => *v.insert(new_group(i, 17 * n)?),
                    };
                }
            }
            Mode::General { map, buf } => {
                for &r in sel {
                    let i = r as usize;
                    buf.clear();
                    for k in keys {
                        key_bytes(k, i, buf);
                    }
                    rowgroup[i] = match map.get(&buf[..]) {
                        Some(&g) => g,
                        None => {
                            let g = new_group(i, buf.len())?;
                            map.insert(buf.clone().into_boxed_slice(), g);
                            g
                        }
                    };
                }
            }
        }
        Some(())
    }

    /// The batch's key operands as the coded ways read them (None: one they cannot code,
    /// or the general way).
    fn sources<'a>(&mut self, keys: &'a [Operand]) -> Option<Vec<Src<'a>>> {
        let (kinds, mut dicts): (&[Kind], Option<&mut Vec<StrDict>>) = match &mut self.mode {
            Mode::One { kind, .. } => (std::slice::from_ref(kind), None),
            Mode::Packed { kinds, dicts, .. } => (kinds.as_slice(), Some(dicts)),
            Mode::General { .. } => return None,
        };
        let mut out = Vec::with_capacity(keys.len());
        for (j, k) in keys.iter().enumerate() {
            let kind = *kinds.get(j)?;
            out.push(match (k, kind) {
                (
                    Operand::Col(Column {
                        data: Vector::Int(a),
                        ..
                    }),
                    Kind::Int,
                ) => Src::Int(a),
                (
                    Operand::Col(Column {
                        data: Vector::Date(a),
                        ..
                    }),
                    Kind::Date,
                ) => Src::Date(a),
                (
                    Operand::Col(Column {
                        data: Vector::Str(a),
                        ..
                    }),
                    Kind::Str,
                ) => Src::Str(a),
                (Operand::Const(Value::Null), _) => Src::Const(None),
                (Operand::Const(v), kind) => Src::Const(Some(match (v, kind) {
                    (Value::Date(d), Kind::Date) => *d as u64,
                    (_, Kind::Str) => {
                        let s = v.as_str()?;
                        let d = dicts.as_mut()?.get_mut(j)?;
                        d.code(s, &mut self.dict_bytes)
                    }
                    (
                        Value::Bit(_)
                        | Value::TinyInt(_)
                        | Value::SmallInt(_)
                        | Value::Int(_)
                        | Value::BigInt(_),
                        Kind::Int,
                    ) => v.as_i64()? as u64,
                    _ => return None,
                })),
                _ => return None,
            });
        }
        Some(out)
    }

    /// Moves to the general way, re-keying the groups so far (`keys`: their key values).
    fn make_general(&mut self, keys: &[Vec<Value>]) {
        if matches!(self.mode, Mode::General { .. }) {
            return;
        }
        let mut map = HashMap::with_capacity(keys.len());
        let mut buf = Vec::new();
        for (g, vals) in keys.iter().enumerate() {
            buf.clear();
            for v in vals {
                valops::hash_key(v, &mut buf);
            }
            map.insert(buf.clone().into_boxed_slice(), g as u32);
        }
        self.mode = Mode::General { map, buf };
    }
}

/// The single-key way's table and the caller's group maker, for one batch.
struct One<'a, F> {
    map: &'a mut HashMap<u64, u32>,
    null: &'a mut Option<u32>,
    new_group: &'a mut F,
}

impl<F: FnMut(usize, usize) -> Option<u32>> One<'_, F> {
    /// `code(i)`: row `i`'s key value; `valid(i)`: whether it is not NULL.
    #[inline]
    fn assign(
        &mut self,
        sel: &[u32],
        rowgroup: &mut [u32],
        code: impl Fn(usize) -> u64,
        valid: impl Fn(usize) -> bool,
    ) -> Option<()> {
        for &r in sel {
            let i = r as usize;
            rowgroup[i] = if valid(i) {
                match self.map.entry(code(i)) {
                    Entry::Occupied(o) => *o.get(),
                    Entry::Vacant(v) => *v.insert((self.new_group)(i, 17)?),
                }
            } else {
                match *self.null {
                    Some(g) => g,
                    None => *self.null.insert((self.new_group)(i, 1)?),
                }
            };
        }
        Some(())
    }
}

/// Codes of the rows `sel` of one packed key column.
fn code_column(
    s: &Src<'_>,
    dict: &mut StrDict,
    sel: &[u32],
    codes: &mut [u64],
    nulls: &mut [bool],
    bytes: &mut usize,
) {
    match s {
        Src::Int(a) => {
            let v = a.values();
            for &r in sel {
                codes[r as usize] = v[r as usize] as u64;
            }
            if let Some(n) = a.nulls() {
                for &r in sel {
                    nulls[r as usize] = n.is_null(r as usize);
                }
            }
        }
        Src::Date(a) => {
            let v = a.values();
            for &r in sel {
                codes[r as usize] = v[r as usize] as u64;
            }
            if let Some(n) = a.nulls() {
                for &r in sel {
                    nulls[r as usize] = n.is_null(r as usize);
                }
            }
        }
        Src::Str(a) => {
            // runs of one text (sorted or clustered input) skip the dictionary
            let mut last: Option<(&str, u64)> = None;
            let n = a.nulls();
            for &r in sel {
                let i = r as usize;
                if n.is_some_and(|n| n.is_null(i)) {
                    nulls[i] = true;
                    continue;
                }
                let t = a.value(i);
                codes[i] = match last {
                    // (a short text compared inline: no memcmp call per row)
                    Some((l, c))
                        if l.len() == t.len() && l.bytes().zip(t.bytes()).all(|(x, y)| x == y) =>
                    {
                        c
                    }
                    _ => {
                        let c = dict.code(t, bytes);
                        last = Some((t, c));
                        c
                    }
                };
            }
        }
        Src::Const(c) => {
            for &r in sel {
                let i = r as usize;
                codes[i] = c.unwrap_or(0);
                nulls[i] = c.is_none();
            }
        }
    }
}

/// Appends row `i`'s `valops::hash_key` encoding of the key `k`, straight from integer and
/// string vectors (no `Value`).
#[inline]
pub(crate) fn key_bytes(k: &Operand, i: usize, out: &mut Vec<u8>) {
    if let Operand::Col(c) = k {
        if c.is_null(i) {
            out.push(0);
            return;
        }
        match &c.data {
            Vector::Int(a) => return valops::hash_key_int(i128::from(a.value(i)), out),
            Vector::Str(a) => return valops::hash_key_str(a.value(i), out),
            _ => {}
        }
    }
    valops::hash_key(&k.value(i), out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::vector::ColumnBuilder;

    fn col(ty: &DataType, vals: &[Value]) -> Operand {
        let mut b = ColumnBuilder::new(ty, vals.len()).expect("vector type");
        for v in vals {
            b.push(v.clone()).expect("push");
        }
        Operand::Col(b.finish().expect("finish"))
    }

    fn expr(ty: DataType) -> ScalarExpr {
        ScalarExpr::literal(Value::Null, ty)
    }

    /// Groups every row of `batches` (key operands per batch), as the aggregate does:
    /// the group of each row, groups numbered in first-seen order, and their key values.
    fn run(index: &mut GroupIndex, batches: &[Vec<Operand>]) -> (Vec<Vec<u32>>, Vec<Vec<Value>>) {
        let mut groups: Vec<Vec<Value>> = Vec::new();
        let mut out = Vec::new();
        for keys in batches {
            let len = match &keys[0] {
                Operand::Col(c) => c.len(),
                Operand::Const(_) => 3,
            };
            let sel: Vec<u32> = (0..len as u32).collect();
            let mut rowgroup = vec![u32::MAX; len];
            index.prepare(keys, &groups);
            index
                .assign(keys, &sel, &mut rowgroup, |i, _| {
                    groups.push(keys.iter().map(|k| k.value(i)).collect());
                    Some(groups.len() as u32 - 1)
                })
                .expect("within budget");
            out.push(rowgroup);
        }
        (out, groups)
    }

    #[test]
    fn one_int_key_with_nulls_across_batches() {
        let mut ix = GroupIndex::new(&[expr(DataType::BigInt)]);
        let b1 = col(
            &DataType::BigInt,
            &[
                Value::BigInt(-5),
                Value::Null,
                Value::BigInt(i64::MIN),
                Value::BigInt(-5),
            ],
        );
        let b2 = col(
            &DataType::BigInt,
            &[Value::Null, Value::BigInt(i64::MIN), Value::BigInt(7)],
        );
        let (rg, keys) = run(&mut ix, &[vec![b1], vec![b2]]);
        assert!(ix.is_coded());
        assert_eq!(rg, vec![vec![0, 1, 2, 0], vec![1, 2, 3]]);
        assert_eq!(keys[1], vec![Value::Null]);
        assert_eq!(keys.len(), 4);
    }

    #[test]
    fn many_groups_beyond_a_batch() {
        let mut ix = GroupIndex::new(&[expr(DataType::Int)]);
        let vals: Vec<Value> = (0..5000).map(|i| Value::Int(i % 3000)).collect();
        let (rg, keys) = run(&mut ix, &[vec![col(&DataType::Int, &vals)]]);
        assert_eq!(keys.len(), 3000);
        assert_eq!(rg[0][4999], 1999);
    }

    #[test]
    fn packed_strings_follow_the_collation() {
        let ty = DataType::Char(1);
        let mut ix = GroupIndex::new(&[expr(ty.clone()), expr(DataType::Int)]);
        let s = |x: &str| Value::Char(x.into());
        let a = col(
            &ty,
            &[s("a"), s("A"), s("b"), Value::Null, s("a"), Value::Null],
        );
        let n = col(
            &DataType::Int,
            &[
                Value::Int(1),
                Value::Int(1),
                Value::Int(1),
                Value::Int(1),
                Value::Null,
                Value::Null,
            ],
        );
        let (rg, keys) = run(&mut ix, &[vec![a, n]]);
        assert!(ix.is_coded());
        // 'a' and 'A' are one group (first spelling kept); NULLs group with NULLs only
        assert_eq!(rg, vec![vec![0, 0, 1, 2, 3, 4]]);
        assert_eq!(keys[0], vec![s("a"), Value::Int(1)]);
        // a trailing blank is no other key either
        let v = DataType::VarChar(Some(5));
        let mut ix = GroupIndex::new(&[expr(v.clone())]);
        let (rg, _) = run(
            &mut ix,
            &[vec![col(
                &v,
                &[Value::VarChar("ab ".into()), Value::VarChar("AB".into())],
            )]],
        );
        assert_eq!(rg, vec![vec![0, 0]]);
    }

    #[test]
    fn an_uncodable_constant_moves_to_byte_keys_keeping_groups() {
        let mut ix = GroupIndex::new(&[expr(DataType::Int)]);
        let b1 = col(&DataType::Int, &[Value::Int(5), Value::Int(6)]);
        // a constant of another type (decimal 5.0 equals int 5 under hash_key)
        let b2 = Operand::Const(Value::Decimal {
            mantissa: 50,
            scale: 1,
        });
        let (rg, keys) = run(&mut ix, &[vec![b1], vec![b2]]);
        assert!(!ix.is_coded());
        assert_eq!(rg, vec![vec![0, 1], vec![0, 0, 0]]);
        assert_eq!(keys.len(), 2);
    }

    #[test]
    fn decimal_keys_use_byte_keys() {
        let ty = DataType::Decimal {
            precision: 5,
            scale: 2,
        };
        let mut ix = GroupIndex::new(&[expr(ty.clone())]);
        let d = |m| Value::Decimal {
            mantissa: m,
            scale: 2,
        };
        let (rg, _) = run(&mut ix, &[vec![col(&ty, &[d(-150), d(150), d(-150)])]]);
        assert!(!ix.is_coded());
        assert_eq!(rg, vec![vec![0, 1, 0]]);
    }
}
