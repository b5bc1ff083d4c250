//! Aggregate accumulators shared by Hash Match (Aggregate), Stream Aggregate and Window.
//!
//! Result types are decided by the binder (`AggCall::data_type`, SQL Server's rules:
//! `SUM(int)` is int with overflow 8115, `AVG(int)` is int, `SUM(decimal(p,s))` is
//! decimal(38,s)); accumulators sum exactly in i128 for integer/decimal/money inputs.

use hashbrown::HashSet;

use common::{SqlError, SqlResult};
use plan::{AggCall, AggFunc};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::valops;

/// Running state of one aggregate.
#[derive(Clone, Debug)]
pub struct AggState {
    count: i64,
    isum: i128,
    fsum: f64,
    /// Welford mean / M2 for STDEV/VAR.
    mean: f64,
    m2: f64,
    best: Option<Value>,
    parts: Vec<(Vec<Value>, String)>,
    sep: Option<String>,
    /// STRING_AGG: SQL Server size of the result so far (separators included), bounded by the
    /// result type's limit (lob.rs) as each value arrives.
    string_bytes: u64,
    overflow: bool,
    distinct: Option<HashSet<Vec<u8>>>,
    /// DISTINCT over an integer-typed argument (tinyint..bigint): the values themselves, not
    /// their `valops::hash_key` bytes (a sql_variant argument, whose int 5 equals decimal 5.0,
    /// keeps the byte set).
    distinct_ints: HashSet<i64>,
    /// APPROX_COUNT_DISTINCT's sketch.
    hll: Option<Box<crate::hll::Hll>>,
    /// FOR JSON / FOR XML: the query's rows, in arrival (ORDER BY) order.
    rows: Vec<Vec<Value>>,
}

enum SumKind {
    Int,
    Scaled(u8),
    Float,
}

fn sum_kind(t: &DataType) -> SumKind {
    match t {
        DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. } => {
            SumKind::Scaled(*scale)
        }
        DataType::Money | DataType::SmallMoney => SumKind::Scaled(4),
        DataType::Float | DataType::Real => SumKind::Float,
        _ => SumKind::Int,
    }
}

impl AggState {
    pub fn new(call: &AggCall) -> Self {
        AggState {
            count: 0,
            isum: 0,
            fsum: 0.0,
            mean: 0.0,
            m2: 0.0,
            best: None,
            parts: Vec::new(),
            sep: None,
            string_bytes: 0,
            overflow: false,
            distinct: if call.distinct {
                Some(HashSet::new())
            } else {
                None
            },
            distinct_ints: HashSet::new(),
            hll: None,
            rows: Vec::new(),
        }
    }

    /// Adds `n` rows to a COUNT(*) / COUNT_BIG(*) (bulk counting).
    pub fn add_count(&mut self, n: u64) {
        self.count += n as i64;
    }

    /// Batch mode (exec/src/batch): how SUM / AVG of `call` accumulates — `Some(None)`: an
    /// integer sum, `Some(Some(s))`: a sum of decimals scaled to `s`, `None`: another kind
    /// (fed through [`AggState::update_value`]).
    pub(crate) fn exact_sum_scale(call: &AggCall) -> Option<Option<u8>> {
        match sum_kind(&call.data_type) {
            SumKind::Int => Some(None),
            SumKind::Scaled(s) => Some(Some(s)),
            SumKind::Float => None,
        }
    }

    /// Batch mode: one non-NULL argument of a SUM / AVG summed exactly (`x` already at the
    /// sum's scale, see [`AggState::exact_sum_scale`]), as `update_value` adds it.
    #[inline]
    pub(crate) fn add_exact(&mut self, x: i128) {
        self.count += 1;
        match self.isum.checked_add(x) {
            Some(s) => self.isum = s,
            None => self.overflow = true,
        }
    }

    /// Batch mode: the totals of a group's dense accumulator (`count` rows or non-NULL
    /// values, their exact `sum` at the sum's scale, whether adding them overflowed), as
    /// that many `add_count` / `add_one` / `add_exact` calls would have left the state.
    pub(crate) fn add_totals(&mut self, count: i64, sum: i128, overflow: bool) {
        self.count += count;
        match self.isum.checked_add(sum) {
            Some(s) => self.isum = s,
            None => self.overflow = true,
        }
        self.overflow |= overflow;
    }

    /// Batch mode: one non-NULL argument of COUNT(expr) / COUNT_BIG(expr).
    #[inline]
    pub(crate) fn add_one(&mut self) {
        self.count += 1;
    }

    /// Feeds one input row.
    pub fn update(&mut self, call: &AggCall, row: &[Value], ctx: &mut ExecCtx) -> SqlResult<()> {
        if matches!(call.func, AggFunc::CountStar | AggFunc::CountBigStar) {
            self.count += 1;
            return Ok(());
        }
        if call.func == AggFunc::Grouping {
            return Ok(());
        }
        if call.func == AggFunc::ForClause {
            let mut values = Vec::with_capacity(call.args.len());
            for a in &call.args {
                values.push(match a.as_column() {
                    Some(i) => row.get(i).cloned().unwrap_or(Value::Null),
                    None => eval(a, row, ctx)?,
                });
            }
            self.rows.push(values);
            return Ok(());
        }
        let Some(arg) = call.args.first() else {
            return Err(SqlError::internal("aggregate without argument"));
        };
        let v = match arg.as_column() {
            Some(i) => row.get(i).cloned().unwrap_or(Value::Null),
            None => eval(arg, row, ctx)?,
        };
        self.update_value(call, v, row, ctx)
    }

    /// Feeds one already-evaluated argument value.
    pub fn update_value(
        &mut self,
        call: &AggCall,
        v: Value,
        row: &[Value],
        ctx: &mut ExecCtx,
    ) -> SqlResult<()> {
        if v.is_null() {
            ctx.null_eliminated();
            return Ok(());
        }
        if let Some(seen) = &mut self.distinct {
            let int_arg = call.args.first().is_some_and(|a| {
                matches!(
                    a.data_type,
                    DataType::TinyInt | DataType::SmallInt | DataType::Int | DataType::BigInt
                )
            });
            let int = match &v {
                _ if !int_arg => None,
                Value::Int(i) => Some(i64::from(*i)),
                Value::BigInt(i) => Some(*i),
                Value::SmallInt(i) => Some(i64::from(*i)),
                Value::TinyInt(i) => Some(i64::from(*i)),
                _ => None,
            };
            let fresh = match int {
                Some(i) => self.distinct_ints.insert(i),
                None => {
                    let mut k = Vec::new();
                    valops::hash_key(&v, &mut k);
                    seen.insert(k)
                }
            };
            if !fresh {
                return Ok(());
            }
        }
        self.accumulate(call, v, row, ctx)
    }

    /// DISTINCT over an integer vector's value `x` (batch mode): false when the group has
    /// seen it (the same set [`AggState::update_value`] uses for integer values).
    pub(crate) fn insert_distinct_int(&mut self, x: i64) -> bool {
        self.distinct_ints.insert(x)
    }

    /// Adds a non-NULL value that passed the DISTINCT check.
    pub(crate) fn accumulate(
        &mut self,
        call: &AggCall,
        v: Value,
        row: &[Value],
        ctx: &mut ExecCtx,
    ) -> SqlResult<()> {
        self.count += 1;
        match call.func {
            AggFunc::Count | AggFunc::CountBig | AggFunc::CountStar | AggFunc::CountBigStar => {}
            AggFunc::Sum | AggFunc::Avg => match sum_kind(&call.data_type) {
                SumKind::Float => {
                    if let Value::Float(f) = valops::cast(&v, &DataType::Float)? {
                        self.fsum += f;
                    }
                }
                SumKind::Int => {
                    let fast = match &v {
                        Value::Int(i) => Some(*i as i64),
                        Value::BigInt(i) => Some(*i),
                        Value::SmallInt(i) => Some(*i as i64),
                        Value::TinyInt(i) => Some(*i as i64),
                        _ => None,
                    };
                    if let Some(i) = fast {
                        match self.isum.checked_add(i as i128) {
                            Some(s) => self.isum = s,
                            None => self.overflow = true,
                        }
                    } else if let Value::BigInt(i) = valops::cast(&v, &DataType::BigInt)? {
                        match self.isum.checked_add(i as i128) {
                            Some(s) => self.isum = s,
                            None => self.overflow = true,
                        }
                    }
                }
                SumKind::Scaled(s) => {
                    if let Value::Decimal { mantissa, .. } = valops::cast(
                        &v,
                        &DataType::Decimal {
                            precision: 38,
                            scale: s,
                        },
                    )? {
                        match self.isum.checked_add(mantissa) {
                            Some(x) => self.isum = x,
                            None => self.overflow = true,
                        }
                    }
                }
            },
            AggFunc::Min | AggFunc::Max => {
                let replace = match &self.best {
                    None => true,
                    Some(b) => {
                        let o = valops::sort_cmp(&v, b);
                        if call.func == AggFunc::Min {
                            o == std::cmp::Ordering::Less
                        } else {
                            o == std::cmp::Ordering::Greater
                        }
                    }
                };
                if replace {
                    self.best = Some(v);
                }
            }
            AggFunc::Stdev | AggFunc::StdevP | AggFunc::Var | AggFunc::VarP => {
                if let Value::Float(x) = valops::cast(&v, &DataType::Float)? {
                    let n = self.count as f64;
                    let d = x - self.mean;
                    self.mean += d / n;
                    self.m2 += d * (x - self.mean);
                }
            }
            AggFunc::StringAgg => {
                if self.sep.is_none() {
                    let s = match call.args.get(1) {
                        Some(e) => valops::to_text(&eval(e, row, ctx)?),
                        None => String::new(),
                    };
                    self.sep = Some(s);
                }
                let mut keys = Vec::with_capacity(call.order_by.len());
                for k in &call.order_by {
                    keys.push(eval(&k.expr, row, ctx)?);
                }
                self.string_part(call, &v, keys)?;
            }
            AggFunc::ApproxCountDistinct => {
                let mut k = Vec::new();
                valops::hash_key(&v, &mut k);
                self.hll
                    .get_or_insert_with(Default::default)
                    .insert(crate::hll::hash64(&k));
            }
            AggFunc::ChecksumAgg => {
                if let Value::BigInt(i) = valops::cast(&v, &DataType::BigInt)? {
                    self.isum ^= i as i32 as i128;
                }
            }
            AggFunc::Grouping | AggFunc::ForClause => {}
        }
        Ok(())
    }

    /// STRING_AGG over an already-evaluated value, separator and WITHIN GROUP keys (batch
    /// mode); the same NULL rule, limits and errors as [`AggState::update_value`].
    pub(crate) fn update_string_agg(
        &mut self,
        call: &AggCall,
        v: Value,
        sep: impl FnOnce() -> Value,
        keys: Vec<Value>,
        ctx: &mut ExecCtx,
    ) -> SqlResult<()> {
        if v.is_null() {
            ctx.null_eliminated();
            return Ok(());
        }
        self.count += 1;
        if self.sep.is_none() {
            self.sep = Some(match call.args.get(1) {
                Some(_) => valops::to_text(&sep()),
                None => String::new(),
            });
        }
        self.string_part(call, &v, keys)
    }

    /// Appends one STRING_AGG part (8000-byte / 2 GB limits: 9829 / 7119).
    fn string_part(&mut self, call: &AggCall, v: &Value, keys: Vec<Value>) -> SqlResult<()> {
        let text = valops::to_text(v);
        let unicode = call.data_type.is_unicode();
        let mut grow = types::lob::str_bytes(&text, unicode);
        if !self.parts.is_empty() {
            let sep = self.sep.as_deref().unwrap_or_default();
            grow = grow.saturating_add(types::lob::str_bytes(sep, unicode));
        }
        self.string_bytes = self.string_bytes.saturating_add(grow);
        if call.data_type.is_max() {
            types::lob::check_bytes(self.string_bytes)?;
        } else if self.string_bytes > 8000 {
            return Err(SqlError::new(9829, &[&8000]));
        }
        self.parts.push((keys, text));
        Ok(())
    }

    /// Whether partial states of `call` can be merged ([`AggState::merge`]): the aggregates
    /// a parallel (local-then-global) aggregation computes. DISTINCT, STRING_AGG (ordered),
    /// STDEV/VAR, CHECKSUM_AGG, APPROX_COUNT_DISTINCT, GROUPING and FOR clauses stay serial.
    pub fn mergeable(call: &AggCall) -> bool {
        !call.distinct
            && matches!(
                call.func,
                AggFunc::CountStar
                    | AggFunc::Count
                    | AggFunc::CountBigStar
                    | AggFunc::CountBig
                    | AggFunc::Sum
                    | AggFunc::Avg
                    | AggFunc::Min
                    | AggFunc::Max
            )
    }

    /// Adds the partial state `other` of the same call (computed by another worker over other
    /// rows); `finish` then gives what one state over all the rows would. Only for calls
    /// [`AggState::mergeable`] accepts.
    pub fn merge(&mut self, call: &AggCall, other: AggState) {
        self.count += other.count;
        match self.isum.checked_add(other.isum) {
            Some(s) => self.isum = s,
            None => self.overflow = true,
        }
        self.overflow |= other.overflow;
        self.fsum += other.fsum;
        if let Some(v) = other.best {
            let replace = match &self.best {
                None => true,
                Some(b) => {
                    let o = valops::sort_cmp(&v, b);
                    if call.func == AggFunc::Min {
                        o == std::cmp::Ordering::Less
                    } else {
                        o == std::cmp::Ordering::Greater
                    }
                }
            };
            if replace {
                self.best = Some(v);
            }
        }
    }

    /// The final value.
    pub fn finish(&mut self, call: &AggCall) -> SqlResult<Value> {
        let t = &call.data_type;
        let ovf = || SqlError::new(8115, &[&"expression", &t.sql_name()]);
        match call.func {
            AggFunc::CountStar | AggFunc::Count => {
                Ok(Value::Int(i32::try_from(self.count).map_err(|_| ovf())?))
            }
            AggFunc::CountBigStar | AggFunc::CountBig => Ok(Value::BigInt(self.count)),
            AggFunc::Sum | AggFunc::Avg => {
                if self.count == 0 {
                    return Ok(Value::Null);
                }
                if self.overflow {
                    return Err(ovf());
                }
                let avg = call.func == AggFunc::Avg;
                match sum_kind(t) {
                    SumKind::Float => {
                        let f = if avg {
                            self.fsum / self.count as f64
                        } else {
                            self.fsum
                        };
                        valops::cast(&Value::Float(f), t)
                    }
                    SumKind::Int => {
                        let s = if avg {
                            self.isum / self.count as i128
                        } else {
                            self.isum
                        };
                        let v = Value::Decimal {
                            mantissa: s,
                            scale: 0,
                        };
                        valops::cast(&v, t).map_err(|_| ovf())
                    }
                    SumKind::Scaled(s) => {
                        let m = if avg {
                            self.isum / self.count as i128
                        } else {
                            self.isum
                        };
                        valops::cast(
                            &Value::Decimal {
                                mantissa: m,
                                scale: s,
                            },
                            t,
                        )
                        .map_err(|_| ovf())
                    }
                }
            }
            AggFunc::Min | AggFunc::Max => match self.best.take() {
                Some(v) => valops::cast(&v, t),
                None => Ok(Value::Null),
            },
            AggFunc::Stdev | AggFunc::StdevP | AggFunc::Var | AggFunc::VarP => {
                let n = self.count as f64;
                let sample = matches!(call.func, AggFunc::Stdev | AggFunc::Var);
                if self.count == 0 || (sample && self.count < 2) {
                    return Ok(Value::Null);
                }
                let var = self.m2 / if sample { n - 1.0 } else { n };
                Ok(Value::Float(
                    if matches!(call.func, AggFunc::Stdev | AggFunc::StdevP) {
                        var.sqrt()
                    } else {
                        var
                    },
                ))
            }
            AggFunc::StringAgg => {
                if self.parts.is_empty() {
                    return Ok(Value::Null);
                }
                if !call.order_by.is_empty() {
                    let desc: Vec<bool> = call.order_by.iter().map(|k| k.desc).collect();
                    self.parts.sort_by(|a, b| {
                        for (i, d) in desc.iter().enumerate() {
                            let o = valops::sort_cmp(&a.0[i], &b.0[i]);
                            let o = if *d { o.reverse() } else { o };
                            if o != std::cmp::Ordering::Equal {
                                return o;
                            }
                        }
                        std::cmp::Ordering::Equal
                    });
                }
                let sep = self.sep.clone().unwrap_or_default();
                let s = self
                    .parts
                    .iter()
                    .map(|p| p.1.as_str())
                    .collect::<Vec<_>>()
                    .join(&sep);
                Ok(if t.is_unicode() {
                    Value::NVarChar(s)
                } else {
                    Value::VarChar(s)
                })
            }
            AggFunc::ApproxCountDistinct => {
                Ok(Value::BigInt(self.hll.as_ref().map_or(0, |h| h.estimate())))
            }
            AggFunc::ChecksumAgg => Ok(if self.count == 0 {
                Value::Null
            } else {
                Value::Int(self.isum as i32)
            }),
            AggFunc::Grouping => Ok(Value::TinyInt(0)),
            AggFunc::ForClause => match &call.serialize {
                Some(spec) => crate::for_clause::serialize(spec, &self.rows),
                None => Err(SqlError::internal("FOR clause without its specification")),
            },
        }
    }
}
