//! Result types of operators and of multi-branch expressions (CASE, COALESCE, UNION).
//!
//! Decimal precision/scale (p1,s1 op p2,s2), as documented by SQL Server:
//!
//! | op | precision | scale |
//! |---|---|---|
//! | + - | max(s1,s2) + max(p1-s1, p2-s2) + 1 | max(s1,s2) |
//! | * | p1 + p2 + 1 | s1 + s2 |
//! | / | p1 - s1 + s2 + max(6, s1 + p2 + 1) | max(6, s1 + p2 + 1) |
//! | % | min(p1-s1, p2-s2) + max(s1,s2) | max(s1,s2) |
//! | UNION/CASE | max(s1,s2) + max(p1-s1, p2-s2) | max(s1,s2) |
//!
//! When the precision exceeds 38 it becomes 38 and the scale is reduced so the integral part
//! survives. For `*` `/` `%` the scale becomes `max(38 - (p - s), min(s, 6))` (at least 6
//! fractional digits survive when the scale was that large); for `+` `-` and UNION/CASE it becomes
//! `min(s, 38 - integral)` where integral is `max(p1-s1, p2-s2)` ([`cap_decimal_keep_integral`]),
//! with no 6-digit floor (decimal(38,10) + decimal(38,10) is decimal(38,10)).
//! Integers take part as decimal(3/5/10/19, 0), money as
//! decimal(19,4) — see [`DataType::decimal_ps`].

use crate::DataType;
use common::{SqlError, SqlResult};

/// A binary arithmetic or bitwise operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
}

impl ArithOp {
    /// The operator's name in SQL Server's messages ("add", "subtract", …).
    pub fn message_name(self) -> &'static str {
        match self {
            ArithOp::Add => "add",
            ArithOp::Sub => "subtract",
            ArithOp::Mul => "multiply",
            ArithOp::Div => "divide",
            ArithOp::Mod => "modulo",
            ArithOp::BitAnd => "&",
            ArithOp::BitOr => "|",
            ArithOp::BitXor => "^",
        }
    }

    /// The T-SQL symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
            ArithOp::BitAnd => "&",
            ArithOp::BitOr => "|",
            ArithOp::BitXor => "^",
        }
    }
}

/// Caps a decimal precision at 38, reducing the scale as SQL Server does.
pub fn cap_decimal(p: u32, s: u32) -> (u8, u8) {
    if p <= 38 {
        return (p.max(1) as u8, s as u8);
    }
    let integral = p.saturating_sub(s);
    let s2 = (38i64 - integral as i64).max(s.min(6) as i64).max(0) as u32;
    (38, s2.min(38) as u8)
}

/// Caps precision at 38 for additive results (`+`, `-`, UNION/CASE): the integral part of
/// `integral` digits is kept whole and the scale shrinks to what is left.
pub fn cap_decimal_keep_integral(integral: u32, s: u32) -> (u8, u8) {
    let p = integral + s;
    if p <= 38 {
        return (p.max(1) as u8, s as u8);
    }
    (38, s.min(38u32.saturating_sub(integral)) as u8)
}

/// Precision and scale of a decimal operation (before the 38-digit cap: use [`cap_decimal`]).
pub fn decimal_op_raw(op: ArithOp, p1: u8, s1: u8, p2: u8, s2: u8) -> (u32, u32) {
    let (p1, s1, p2, s2) = (p1 as u32, s1 as u32, p2 as u32, s2 as u32);
    match op {
        ArithOp::Mul => (p1 + p2 + 1, s1 + s2),
        ArithOp::Div => {
            let s = 6.max(s1 + p2 + 1);
            ((p1 - s1.min(p1)) + s2 + s, s)
        }
        ArithOp::Mod => {
            let s = s1.max(s2);
            (p1.saturating_sub(s1).min(p2.saturating_sub(s2)) + s, s)
        }
        _ => {
            let s = s1.max(s2);
            (s + p1.saturating_sub(s1).max(p2.saturating_sub(s2)) + 1, s)
        }
    }
}

/// decimal/numeric flavour of a result: numeric if the decimal operand(s) are numeric.
fn dec_type(l: &DataType, r: &DataType, p: u8, s: u8) -> DataType {
    let numeric = match (l, r) {
        (DataType::Decimal { .. }, _) => false,
        (DataType::Numeric { .. }, _) => true,
        (_, DataType::Decimal { .. }) => false,
        _ => true,
    };
    if numeric {
        DataType::Numeric {
            precision: p,
            scale: s,
        }
    } else {
        DataType::Decimal {
            precision: p,
            scale: s,
        }
    }
}

fn invalid_operand(t: &DataType, op: ArithOp) -> SqlError {
    SqlError::new(8117, &[&t.sql_name(), &op.message_name()])
}

fn incompatible(l: &DataType, r: &DataType, op: ArithOp) -> SqlError {
    SqlError::new(402, &[&l.sql_name(), &r.sql_name(), &op.message_name()])
}

/// Result type of `l op r` (error 8117/402/206 when the operator does not apply).
pub fn result_type_for_arith(op: ArithOp, l: &DataType, r: &DataType) -> SqlResult<DataType> {
    use DataType as T;
    // NULL literal takes the other side's type.
    match (l, r) {
        (T::Null, T::Null) => return Ok(T::Int),
        (T::Null, x) | (x, T::Null) => {
            return result_type_for_arith(op, x, x).or_else(|_| Ok(x.clone()))
        }
        _ => {}
    }
    for t in [l, r] {
        if matches!(t, T::UniqueIdentifier) {
            return Err(invalid_operand(t, op));
        }
    }
    // String concatenation.
    if l.is_string() && r.is_string() {
        if op != ArithOp::Add {
            return Err(invalid_operand(l, op));
        }
        let unicode = l.is_unicode() || r.is_unicode();
        let cap = if unicode { 4000 } else { 8000 };
        let len = match (l.char_length(), r.char_length()) {
            (Some(a), Some(b)) if !l.is_max() && !r.is_max() => Some((a + b).min(cap)),
            _ => None,
        };
        return Ok(match (l, r, unicode) {
            (T::Char(_) | T::NChar(_), T::Char(_) | T::NChar(_), false) => {
                T::Char(len.unwrap_or(cap))
            }
            (T::Char(_) | T::NChar(_), T::Char(_) | T::NChar(_), true) => {
                T::NChar(len.unwrap_or(cap))
            }
            (_, _, false) => T::VarChar(len),
            (_, _, true) => T::NVarChar(len),
        });
    }
    if l.is_binary() && r.is_binary() {
        if op != ArithOp::Add {
            return Err(invalid_operand(l, op));
        }
        let len = match (l.char_length(), r.char_length()) {
            (Some(a), Some(b)) if !l.is_max() && !r.is_max() => Some((a + b).min(8000)),
            _ => None,
        };
        return Ok(T::VarBinary(len));
    }
    // Bitwise operators: integer types (one side may be binary).
    if matches!(op, ArithOp::BitAnd | ArithOp::BitOr | ArithOp::BitXor) {
        let ok = |t: &DataType| t.is_integer() || matches!(t, T::Bit) || t.is_binary();
        if !ok(l) || !ok(r) || (l.is_binary() && r.is_binary()) {
            return Err(incompatible(l, r, op));
        }
        let t = if l.is_binary() {
            r
        } else if r.is_binary() {
            l
        } else {
            DataType::higher_precedence(l, r)
        };
        return Ok(t.clone());
    }
    // Strings and binary convert to the other side's type.
    let l = if l.is_string() || l.is_binary() { r } else { l };
    let r = if r.is_string() || r.is_binary() { l } else { r };
    // Date/time arithmetic: only datetime and smalldatetime support + and -.
    if l.is_datetime() || r.is_datetime() {
        let dt = if l.is_datetime() { l } else { r };
        let other = if l.is_datetime() { r } else { l };
        let ok_dt = matches!(dt, T::DateTime | T::SmallDateTime);
        let ok_other = other.is_numeric() || matches!(other, T::DateTime | T::SmallDateTime);
        if !matches!(op, ArithOp::Add | ArithOp::Sub) {
            return Err(invalid_operand(dt, op));
        }
        if !ok_dt || !ok_other {
            return Err(SqlError::new(206, &[&dt.sql_name(), &other.sql_name()]));
        }
        return Ok(DataType::higher_precedence(l, r).clone());
    }
    if matches!(l, T::Bit) && matches!(r, T::Bit) {
        return Err(invalid_operand(l, op));
    }
    if !l.is_numeric() {
        return Err(invalid_operand(l, op));
    }
    if !r.is_numeric() {
        return Err(invalid_operand(r, op));
    }
    if l.is_float() || r.is_float() {
        if op == ArithOp::Mod {
            return Err(incompatible(l, r, op));
        }
        return Ok(if matches!(l, T::Float) || matches!(r, T::Float) {
            T::Float
        } else {
            T::Real
        });
    }
    if l.is_decimal() || r.is_decimal() {
        let (p1, s1) = l.decimal_ps().unwrap_or((18, 0));
        let (p2, s2) = r.decimal_ps().unwrap_or((18, 0));
        let (p, s) = decimal_op_raw(op, p1, s1, p2, s2);
        let (p, s) = if matches!(op, ArithOp::Add | ArithOp::Sub) {
            // p includes the carry digit: the integral part is max(p1-s1, p2-s2) = p - s - 1.
            let integral = p - s - 1;
            if p <= 38 {
                (p as u8, s as u8)
            } else {
                (38, s.min(38u32.saturating_sub(integral)) as u8)
            }
        } else {
            cap_decimal(p, s)
        };
        return Ok(dec_type(l, r, p, s));
    }
    if l.is_money() || r.is_money() {
        return Ok(if matches!(l, T::Money) || matches!(r, T::Money) {
            T::Money
        } else {
            T::SmallMoney
        });
    }
    // integers (bit with an integer: the integer type)
    Ok(DataType::higher_precedence(l, r).clone())
}

/// Alias of [`result_type_for_arith`] under the name INTERFACES.md uses.
pub fn result_type_for_binary(op: ArithOp, l: &DataType, r: &DataType) -> SqlResult<DataType> {
    result_type_for_arith(op, l, r)
}

/// Result type of unary minus: tinyint becomes smallint, bit is invalid, others keep their type.
pub fn result_type_for_neg(t: &DataType) -> SqlResult<DataType> {
    match t {
        DataType::TinyInt => Ok(DataType::SmallInt),
        DataType::Null => Ok(DataType::Int),
        t if t.is_numeric() && !matches!(t, DataType::Bit) => Ok(t.clone()),
        t => Err(SqlError::new(8117, &[&t.sql_name(), &"minus"])),
    }
}

/// The type of CASE / COALESCE / UNION / VALUES branches: the highest precedence type, with
/// the largest length for strings/binary, the UNION decimal rule, the largest fractional
/// precision for time types. NULL branches are ignored (all NULL: int). Incompatible families
/// raise 206.
pub fn common_type(types: &[DataType]) -> SqlResult<DataType> {
    use DataType as T;
    let non_null: Vec<&DataType> = types.iter().filter(|t| !matches!(t, T::Null)).collect();
    let Some(first) = non_null.first() else {
        return Ok(T::Int);
    };
    let mut best: &DataType = first;
    for t in &non_null[1..] {
        best = DataType::higher_precedence(best, t);
    }
    // compatibility check against the winner
    for t in &non_null {
        if !crate::convert::can_convert_implicitly(t, best) {
            return Err(SqlError::new(206, &[&t.sql_name(), &best.sql_name()]));
        }
    }
    Ok(match best {
        T::Char(_) | T::VarChar(_) | T::NChar(_) | T::NVarChar(_) => {
            let unicode = best.is_unicode();
            let mut max_len: Option<u32> = Some(0);
            let mut all_fixed = true;
            for t in &non_null {
                let len = match t {
                    T::Char(n) | T::NChar(n) => Some(*n),
                    T::VarChar(n) | T::NVarChar(n) => {
                        all_fixed = false;
                        *n
                    }
                    other => {
                        all_fixed = false;
                        Some(display_length(other))
                    }
                };
                max_len = match (max_len, len) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                };
            }
            let cap = if unicode { 4000 } else { 8000 };
            let max_len = max_len.map(|n| n.clamp(1, cap));
            match (unicode, all_fixed) {
                (false, true) => T::Char(max_len.unwrap_or(1)),
                (true, true) => T::NChar(max_len.unwrap_or(1)),
                (false, false) => T::VarChar(max_len),
                (true, false) => T::NVarChar(max_len),
            }
        }
        T::Binary(_) | T::VarBinary(_) => {
            let mut max_len: Option<u32> = Some(0);
            let mut all_fixed = true;
            for t in &non_null {
                let len = match t {
                    T::Binary(n) => Some(*n),
                    T::VarBinary(n) => {
                        all_fixed = false;
                        *n
                    }
                    _ => Some(8),
                };
                max_len = match (max_len, len) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                };
            }
            if all_fixed {
                T::Binary(max_len.unwrap_or(1).max(1))
            } else {
                T::VarBinary(max_len.map(|n| n.max(1)))
            }
        }
        T::Decimal { .. } | T::Numeric { .. } => {
            let (mut int_digits, mut scale) = (0u32, 0u32);
            for t in &non_null {
                if let Some((p, s)) = t.decimal_ps() {
                    int_digits = int_digits.max(p.saturating_sub(s) as u32);
                    scale = scale.max(s as u32);
                }
            }
            let (p, s) = cap_decimal_keep_integral(int_digits, scale);
            match best {
                T::Numeric { .. } => T::Numeric {
                    precision: p,
                    scale: s,
                },
                _ => T::Decimal {
                    precision: p,
                    scale: s,
                },
            }
        }
        T::Time(_) | T::DateTime2(_) | T::DateTimeOffset(_) => {
            let mut sc = 0u8;
            for t in &non_null {
                if let T::Time(s) | T::DateTime2(s) | T::DateTimeOffset(s) = t {
                    sc = sc.max(*s);
                } else if matches!(t, T::DateTime) {
                    sc = sc.max(3);
                }
            }
            match best {
                T::Time(_) => T::Time(sc),
                T::DateTime2(_) => T::DateTime2(sc),
                _ => T::DateTimeOffset(sc),
            }
        }
        other => (*other).clone(),
    })
}

/// Characters needed to display a non-string type converted to a string (used for string
/// branch lengths: int -> 12, etc.).
fn display_length(t: &DataType) -> u32 {
    match t {
        DataType::Bit => 1,
        DataType::TinyInt => 3,
        DataType::SmallInt => 6,
        DataType::Int => 12,
        DataType::BigInt => 20,
        DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. } => {
            *precision as u32 + 2
        }
        DataType::UniqueIdentifier => 36,
        _ => 30,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType as T;

    fn d(p: u8, s: u8) -> DataType {
        T::Decimal {
            precision: p,
            scale: s,
        }
    }

    fn n(p: u8, s: u8) -> DataType {
        T::Numeric {
            precision: p,
            scale: s,
        }
    }

    #[test]
    fn arithmetic_types() {
        let r = |op, a: &DataType, b: &DataType| result_type_for_arith(op, a, b).unwrap();
        assert_eq!(r(ArithOp::Div, &T::Int, &T::Int), T::Int);
        assert_eq!(r(ArithOp::Add, &T::Int, &T::BigInt), T::BigInt);
        assert_eq!(r(ArithOp::Add, &T::TinyInt, &T::SmallInt), T::SmallInt);
        // 7 / 2.0: int (10,0) / numeric(2,1)
        assert_eq!(r(ArithOp::Div, &T::Int, &n(2, 1)), n(17, 6));
        assert_eq!(r(ArithOp::Mul, &d(10, 2), &d(5, 3)), d(16, 5));
        assert_eq!(r(ArithOp::Add, &d(10, 2), &d(5, 3)), d(12, 3));
        assert_eq!(r(ArithOp::Mul, &d(38, 10), &d(38, 10)), d(38, 6));
        assert_eq!(r(ArithOp::Div, &d(38, 20), &d(38, 20)), d(38, 6));
        assert_eq!(r(ArithOp::Mul, &d(18, 2), &d(18, 2)), d(37, 4));
        assert_eq!(r(ArithOp::Mul, &d(20, 2), &d(20, 2)), d(38, 4));
        assert_eq!(r(ArithOp::Add, &d(38, 10), &d(38, 10)), d(38, 10));
        assert_eq!(r(ArithOp::Mod, &d(10, 2), &d(5, 0)), d(7, 2));
        assert_eq!(r(ArithOp::Add, &T::Int, &T::Float), T::Float);
        assert_eq!(r(ArithOp::Add, &T::Real, &T::Int), T::Real);
        assert_eq!(r(ArithOp::Add, &T::Money, &T::Int), T::Money);
        assert_eq!(r(ArithOp::Add, &T::VarChar(Some(3)), &T::Int), T::Int);
        assert_eq!(
            r(ArithOp::Add, &T::VarChar(Some(3)), &T::VarChar(Some(4))),
            T::VarChar(Some(7))
        );
        assert_eq!(
            r(
                ArithOp::Add,
                &T::VarChar(Some(5000)),
                &T::NVarChar(Some(10))
            ),
            T::NVarChar(Some(4000))
        );
        assert_eq!(
            r(ArithOp::Add, &T::VarChar(None), &T::VarChar(Some(4))),
            T::VarChar(None)
        );
        assert_eq!(r(ArithOp::Add, &T::DateTime, &T::Int), T::DateTime);
        assert_eq!(r(ArithOp::BitAnd, &T::Int, &T::TinyInt), T::Int);
        assert_eq!(
            result_type_for_arith(ArithOp::Add, &T::Date, &T::Int)
                .unwrap_err()
                .message,
            "Operand type clash: date is incompatible with int"
        );
        assert_eq!(
            result_type_for_arith(ArithOp::Sub, &T::VarChar(Some(1)), &T::VarChar(Some(1)))
                .unwrap_err()
                .message,
            "Operand data type varchar is invalid for subtract operator."
        );
        assert_eq!(
            result_type_for_arith(ArithOp::Mod, &T::Float, &T::Int)
                .unwrap_err()
                .number,
            402
        );
    }

    #[test]
    fn common_types() {
        assert_eq!(
            common_type(&[T::Int, T::Null, T::BigInt]).unwrap(),
            T::BigInt
        );
        assert_eq!(
            common_type(&[T::VarChar(Some(3)), T::Char(10)]).unwrap(),
            T::VarChar(Some(10))
        );
        assert_eq!(
            common_type(&[T::VarChar(Some(3)), T::NVarChar(Some(2))]).unwrap(),
            T::NVarChar(Some(3))
        );
        assert_eq!(common_type(&[d(5, 2), d(10, 0)]).unwrap(), d(12, 2));
        assert_eq!(common_type(&[T::Int, d(5, 2)]).unwrap(), d(12, 2));
        assert_eq!(common_type(&[T::Null]).unwrap(), T::Int);
        assert_eq!(common_type(&[T::VarChar(Some(3)), T::Int]).unwrap(), T::Int);
        assert!(common_type(&[T::Int, T::Date]).is_err());
    }
}
