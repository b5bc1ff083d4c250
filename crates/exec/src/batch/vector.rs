//! Column vectors of a batch: Arrow arrays, one physical layout per family of latchkey types
//! (`plan::ExecMode::vectorizable_type` lists the types; the column's `DataType` stays beside
//! the array, so a value converts back to exactly the `Value` row mode would hold).
//!
//! | latchkey types                         | array            |
//! |----------------------------------------|------------------|
//! | bit, tinyint, smallint, int, bigint    | `Int64Array`     |
//! | decimal/numeric(p,s), money, smallmoney| `Decimal128Array` (scaled i128, scale s; money 4) |
//! | float, real                            | `Float64Array`   |
//! | date                                   | `Date32Array` (latchkey's day number) |
//! | char, varchar(n), nchar, nvarchar(n), varchar(max), nvarchar(max) | `StringArray` (the collation stays with the expression: strings are compared by the row evaluator) |
//! | predicate results                      | `BooleanArray`   |

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{
    Array, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int64Array, StringArray,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use common::{SqlError, SqlResult};
use types::{DataType, Value};

use crate::valops;

/// The array of one column.
#[derive(Clone, Debug)]
pub(crate) enum Vector {
    Int(Arc<Int64Array>),
    Decimal(Arc<Decimal128Array>, u8),
    Float(Arc<Float64Array>),
    Date(Arc<Date32Array>),
    Str(Arc<StringArray>),
    Bool(Arc<BooleanArray>),
}

/// A column vector and the type of its values.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub data: Vector,
    pub ty: DataType,
}

fn array(v: &Vector) -> &dyn Array {
    match v {
        Vector::Int(a) => a.as_ref(),
        Vector::Decimal(a, _) => a.as_ref(),
        Vector::Float(a) => a.as_ref(),
        Vector::Date(a) => a.as_ref(),
        Vector::Str(a) => a.as_ref(),
        Vector::Bool(a) => a.as_ref(),
    }
}

impl Column {
    pub fn is_null(&self, i: usize) -> bool {
        array(&self.data).is_null(i)
    }

    /// Rows in the vector.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        array(&self.data).len()
    }

    pub fn null_count(&self) -> usize {
        array(&self.data).null_count()
    }

    /// The values at `rows` (in that order), as a new column of the same type.
    pub fn take(&self, rows: &[u32]) -> SqlResult<Column> {
        let idx = arrow_array::UInt32Array::from(rows.to_vec());
        let taken = arrow_select::take::take(array(&self.data), &idx, None)
            .map_err(|e| SqlError::internal(format!("batch mode gather: {e}")))?;
        fn down<T: Array + Clone + 'static>(a: &dyn Array) -> SqlResult<Arc<T>> {
            a.as_any()
                .downcast_ref::<T>()
                .map(|x| Arc::new(x.clone()))
                .ok_or_else(|| SqlError::internal("batch mode gather: unexpected array type"))
        }
        let a = taken.as_ref();
        let data = match &self.data {
            Vector::Int(_) => Vector::Int(down(a)?),
            Vector::Decimal(_, s) => Vector::Decimal(down(a)?, *s),
            Vector::Float(_) => Vector::Float(down(a)?),
            Vector::Date(_) => Vector::Date(down(a)?),
            Vector::Str(_) => Vector::Str(down(a)?),
            Vector::Bool(_) => Vector::Bool(down(a)?),
        };
        Ok(Column {
            data,
            ty: self.ty.clone(),
        })
    }

    /// Value `i` as row mode holds it.
    pub fn value(&self, i: usize) -> Value {
        if self.is_null(i) {
            return Value::Null;
        }
        match &self.data {
            Vector::Int(a) => int_value(a.value(i), &self.ty),
            Vector::Decimal(a, scale) => {
                let m = a.value(i);
                match self.ty {
                    DataType::Money => Value::Money(m as i64),
                    DataType::SmallMoney => Value::SmallMoney(m as i64),
                    _ => Value::Decimal {
                        mantissa: m,
                        scale: *scale,
                    },
                }
            }
            Vector::Float(a) => match self.ty {
                DataType::Real => Value::Real(a.value(i) as f32),
                _ => Value::Float(a.value(i)),
            },
            Vector::Date(a) => Value::Date(a.value(i)),
            Vector::Str(a) => {
                let s = a.value(i).to_string();
                match self.ty {
                    DataType::Char(_) => Value::Char(s),
                    DataType::NChar(_) => Value::NChar(s),
                    DataType::NVarChar(_) => Value::NVarChar(s),
                    _ => Value::VarChar(s),
                }
            }
            Vector::Bool(a) => Value::Bit(a.value(i)),
        }
    }
}

fn int_value(v: i64, ty: &DataType) -> Value {
    match ty {
        DataType::Bit => Value::Bit(v != 0),
        DataType::TinyInt => Value::TinyInt(v as u8),
        DataType::SmallInt => Value::SmallInt(v as i16),
        DataType::Int => Value::Int(v as i32),
        _ => Value::BigInt(v),
    }
}

enum Values {
    Int(Vec<i64>),
    Decimal(Vec<i128>, u8, u8),
    Float(Vec<f64>),
    Date(Vec<i32>),
    Str(StringBuilder),
    Bool(Vec<bool>),
}

/// Builds one column vector value by value.
pub(crate) struct ColumnBuilder {
    ty: DataType,
    values: Values,
    valid: Vec<bool>,
    nulls: bool,
    /// A string value being decoded (`push_stored`): reused, so a string costs no allocation.
    text: String,
}

impl ColumnBuilder {
    /// A builder for values of `ty`; None when batch mode has no vector for the type.
    pub fn new(ty: &DataType, capacity: usize) -> Option<Self> {
        let values = match ty {
            DataType::Bit
            | DataType::TinyInt
            | DataType::SmallInt
            | DataType::Int
            | DataType::BigInt => Values::Int(Vec::with_capacity(capacity)),
            DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
                Values::Decimal(Vec::with_capacity(capacity), *precision, *scale)
            }
            DataType::Money => Values::Decimal(Vec::with_capacity(capacity), 19, 4),
            DataType::SmallMoney => Values::Decimal(Vec::with_capacity(capacity), 10, 4),
            DataType::Float | DataType::Real => Values::Float(Vec::with_capacity(capacity)),
            DataType::Date => Values::Date(Vec::with_capacity(capacity)),
            DataType::VarChar(None) | DataType::NVarChar(None) => {
                Values::Str(StringBuilder::with_capacity(capacity, capacity * 8))
            }
            _ if plan::ExecMode::vectorizable_type(ty) => {
                Values::Str(StringBuilder::with_capacity(capacity, capacity * 8))
            }
            _ => return None,
        };
        Some(ColumnBuilder {
            ty: ty.clone(),
            values,
            valid: Vec::with_capacity(capacity),
            nulls: false,
            text: String::new(),
        })
    }

    /// A builder for predicate results (bit).
    pub fn bools(capacity: usize) -> Self {
        ColumnBuilder {
            ty: DataType::Bit,
            values: Values::Bool(Vec::with_capacity(capacity)),
            valid: Vec::with_capacity(capacity),
            nulls: false,
            text: String::new(),
        }
    }

    pub fn push_null(&mut self) {
        self.nulls = true;
        self.valid.push(false);
        match &mut self.values {
            Values::Int(v) => v.push(0),
            Values::Decimal(v, ..) => v.push(0),
            Values::Float(v) => v.push(0.0),
            Values::Date(v) => v.push(0),
            Values::Str(b) => b.append_null(),
            Values::Bool(v) => v.push(false),
        }
    }

    pub fn push_i64(&mut self, x: i64) {
        if let Values::Int(v) = &mut self.values {
            v.push(x);
            self.valid.push(true);
        }
    }

    /// Appends a decimal mantissa (of the vector's scale) or a money value in
    /// ten-thousandths.
    pub fn push_i128(&mut self, x: i128) {
        if let Values::Decimal(v, ..) = &mut self.values {
            v.push(x);
            self.valid.push(true);
        }
    }

    pub fn push_bool(&mut self, x: bool) {
        if let Values::Bool(v) = &mut self.values {
            v.push(x);
            self.valid.push(true);
        }
    }

    /// Appends a column value as the row format stores it (`None`: NULL), decoded by the
    /// codec's columnar decoders straight into the vector: no `Value`, no allocation per
    /// string. The batch scan's path (`RowFormat::decode_col_into`); the result is the vector
    /// `push(types::codec::decode_value(b, ty))` would build.
    #[inline]
    pub fn push_stored(&mut self, b: Option<&[u8]>) -> SqlResult<()> {
        let Some(b) = b else {
            self.push_null();
            return Ok(());
        };
        let ty = &self.ty;
        match &mut self.values {
            Values::Int(v) => v.push(types::codec::decode_int(b, ty)?),
            Values::Decimal(v, ..) => v.push(types::codec::decode_scaled(b, ty)?),
            Values::Float(v) => v.push(types::codec::decode_float(b, ty)?),
            Values::Date(v) => v.push(types::codec::decode_date(b, ty)?),
            Values::Str(sb) => {
                self.text.clear();
                types::codec::decode_text_into(b, ty, &mut self.text)?;
                sb.append_value(&self.text);
            }
            Values::Bool(_) => {
                return Err(SqlError::internal("batch scan into a predicate vector"));
            }
        }
        self.valid.push(true);
        Ok(())
    }

    /// Appends `v`, converted to the column's type first when its variant differs (as row
    /// mode's value would be after the same conversion).
    pub fn push(&mut self, v: Value) -> SqlResult<()> {
        if v.is_null() {
            self.push_null();
            return Ok(());
        }
        if self.try_push(&v) {
            return Ok(());
        }
        let c = valops::cast(&v, &self.ty)?;
        if c.is_null() {
            self.push_null();
            return Ok(());
        }
        if self.try_push(&c) {
            return Ok(());
        }
        Err(SqlError::internal(format!(
            "batch mode: a {} value in a {} column vector",
            valops::type_name(&v),
            self.ty.sql_name()
        )))
    }

    fn try_push(&mut self, v: &Value) -> bool {
        let ok = match (&mut self.values, v) {
            (Values::Int(out), v) => match v {
                Value::Bit(b) => {
                    out.push(i64::from(*b));
                    true
                }
                Value::TinyInt(x) => {
                    out.push(i64::from(*x));
                    true
                }
                Value::SmallInt(x) => {
                    out.push(i64::from(*x));
                    true
                }
                Value::Int(x) => {
                    out.push(i64::from(*x));
                    true
                }
                Value::BigInt(x) => {
                    out.push(*x);
                    true
                }
                _ => false,
            },
            (Values::Decimal(out, _, s), Value::Decimal { mantissa, scale }) if scale == s => {
                out.push(*mantissa);
                true
            }
            (Values::Decimal(out, _, 4), Value::Money(m) | Value::SmallMoney(m))
                if matches!(self.ty, DataType::Money | DataType::SmallMoney) =>
            {
                out.push(i128::from(*m));
                true
            }
            (Values::Float(out), Value::Float(f)) => {
                out.push(*f);
                true
            }
            (Values::Float(out), Value::Real(f)) => {
                out.push(f64::from(*f));
                true
            }
            (Values::Date(out), Value::Date(d)) => {
                out.push(*d);
                true
            }
            (
                Values::Str(b),
                Value::Char(s) | Value::VarChar(s) | Value::NChar(s) | Value::NVarChar(s),
            ) => {
                b.append_value(s);
                true
            }
            (Values::Bool(out), Value::Bit(b)) => {
                out.push(*b);
                true
            }
            _ => false,
        };
        if ok {
            self.valid.push(true);
        }
        ok
    }

    /// A decimal / money column of `ty` from mantissas at the type's scale (`valid[i]` false:
    /// NULL; None: no NULLs), as pushing them one by one would build it.
    pub fn decimals(
        ty: &DataType,
        values: Vec<i128>,
        valid: Option<Vec<bool>>,
    ) -> SqlResult<Column> {
        let Some(b) = ColumnBuilder::new(ty, 0) else {
            return Err(SqlError::internal("batch mode: no decimal vector"));
        };
        let Values::Decimal(_, p, s) = b.values else {
            return Err(SqlError::internal("batch mode: not a decimal vector type"));
        };
        let nulls = valid.is_some();
        ColumnBuilder {
            values: Values::Decimal(values, p, s),
            valid: valid.unwrap_or_default(),
            nulls,
            ..b
        }
        .finish()
    }

    pub fn finish(self) -> SqlResult<Column> {
        let nulls = if self.nulls {
            Some(NullBuffer::new(BooleanBuffer::from(self.valid)))
        } else {
            None
        };
        let data = match self.values {
            Values::Int(v) => Vector::Int(Arc::new(Int64Array::new(ScalarBuffer::from(v), nulls))),
            Values::Decimal(v, p, s) => {
                let a = Decimal128Array::new(ScalarBuffer::from(v), nulls)
                    .with_precision_and_scale(p.clamp(1, 38), s as i8)
                    .map_err(|e| SqlError::internal(format!("batch mode decimal vector: {e}")))?;
                Vector::Decimal(Arc::new(a), s)
            }
            Values::Float(v) => {
                Vector::Float(Arc::new(Float64Array::new(ScalarBuffer::from(v), nulls)))
            }
            Values::Date(v) => {
                Vector::Date(Arc::new(Date32Array::new(ScalarBuffer::from(v), nulls)))
            }
            Values::Str(mut b) => Vector::Str(Arc::new(b.finish())),
            Values::Bool(v) => {
                Vector::Bool(Arc::new(BooleanArray::new(BooleanBuffer::from(v), nulls)))
            }
        };
        Ok(Column { data, ty: self.ty })
    }
}
