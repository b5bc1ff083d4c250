//! Result-type rules the binder applies (SQL Server's): arithmetic result types, comparison
//! types, aggregate result types, set-operation/CASE type unification.
//!
//! Fallback until `types` publishes `result_type_for_binary` (listed in README.md).

use types::DataType;

use crate::scalar::BinaryOp;

/// Precision/scale of an exact numeric type viewed as decimal.
pub fn as_decimal_ps(t: &DataType) -> Option<(u8, u8)> {
    Some(match t {
        DataType::Bit => (1, 0),
        DataType::TinyInt => (3, 0),
        DataType::SmallInt => (5, 0),
        DataType::Int => (10, 0),
        DataType::BigInt => (19, 0),
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            (*precision, *scale)
        }
        DataType::Money => (19, 4),
        DataType::SmallMoney => (10, 4),
        _ => return None,
    })
}

/// Caps precision at 38 the way SQL Server does (keeping at least 6 scale digits when it must
/// reduce scale).
fn cap(p: i32, s: i32) -> DataType {
    if p <= 38 {
        return DataType::Decimal {
            precision: p.max(1) as u8,
            scale: s.max(0) as u8,
        };
    }
    let int_digits = p - s;
    let s = if int_digits < 32 {
        (38 - int_digits).max(0)
    } else {
        s.min(6)
    };
    DataType::Decimal {
        precision: 38,
        scale: s.clamp(0, 38) as u8,
    }
}

fn is_decimal(t: &DataType) -> bool {
    matches!(t, DataType::Decimal { .. } | DataType::Numeric { .. })
}

/// Result type of `a op b` by the types crate's rules (errors 8117/402 for invalid operands).
pub fn arith_result(op: BinaryOp, a: &DataType, b: &DataType) -> common::SqlResult<DataType> {
    use types::ArithOp as A;
    let aop = match op {
        BinaryOp::Add | BinaryOp::Concat => A::Add,
        BinaryOp::Sub => A::Sub,
        BinaryOp::Mul => A::Mul,
        BinaryOp::Div => A::Div,
        BinaryOp::Mod => A::Mod,
        BinaryOp::BitAnd => A::BitAnd,
        BinaryOp::BitOr => A::BitOr,
        BinaryOp::BitXor => A::BitXor,
    };
    types::result_type_for_arith(aop, a, b)
}

/// Type of `a op b` for arithmetic operators (`+` on strings is concatenation).
pub fn binary_result(op: BinaryOp, a: &DataType, b: &DataType) -> DataType {
    let a = if *a == DataType::Null { b } else { a };
    let b = if *b == DataType::Null { a } else { b };
    if a.is_string() && b.is_string() && matches!(op, BinaryOp::Add | BinaryOp::Concat) {
        let unicode = a.is_unicode() || b.is_unicode();
        let len = match (a.char_length(), b.char_length()) {
            (Some(x), Some(y)) => {
                let n = x + y;
                let max = if unicode { 4000 } else { 8000 };
                if n > max {
                    None
                } else {
                    Some(n)
                }
            }
            _ => None,
        };
        return if unicode {
            DataType::NVarChar(len)
        } else {
            DataType::VarChar(len)
        };
    }
    let hi = DataType::higher_precedence(a, b).clone();
    if matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor) {
        return hi;
    }
    if is_decimal(&hi) || (is_decimal(a) || is_decimal(b)) && !hi.is_float() {
        if let (Some((p1, s1)), Some((p2, s2))) = (as_decimal_ps(a), as_decimal_ps(b)) {
            let (p1, s1, p2, s2) = (p1 as i32, s1 as i32, p2 as i32, s2 as i32);
            return match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Concat => {
                    let s = s1.max(s2);
                    cap((p1 - s1).max(p2 - s2) + s + 1, s)
                }
                BinaryOp::Mul => cap(p1 + p2 + 1, s1 + s2),
                BinaryOp::Div => {
                    let s = 6.max(s1 + p2 + 1);
                    cap(p1 - s1 + s2 + s, s)
                }
                BinaryOp::Mod => {
                    let s = s1.max(s2);
                    cap((p1 - s1).min(p2 - s2) + s, s)
                }
                _ => hi,
            };
        }
    }
    if hi.is_string() {
        // string op number: the number wins precedence anyway; string-only non-add ops: error later
        return hi;
    }
    if matches!(hi, DataType::Bit) {
        return DataType::Int;
    }
    hi
}

/// Type both sides of a comparison are compared in.
pub fn comparison_type(a: &DataType, b: &DataType) -> DataType {
    DataType::higher_precedence(a, b).clone()
}

/// True when values of `from` must be converted before comparing with `to`-typed values (the
/// evaluator compares numerics of different types, and strings with strings, natively).
pub fn needs_conversion(from: &DataType, to: &DataType) -> bool {
    if from == to || *from == DataType::Null {
        return false;
    }
    let fam = |t: &DataType| {
        if t.is_numeric() || matches!(t, DataType::Bit) {
            0
        } else if t.is_string() {
            1
        } else if t.is_datetime() {
            2
        } else if t.is_binary() {
            3
        } else {
            4
        }
    };
    fam(from) != fam(to) || (fam(from) == 2 && from != to)
}

/// Unified type of CASE branches / UNION columns / COALESCE arguments.
pub fn unify(a: &DataType, b: &DataType) -> DataType {
    if *a == DataType::Null {
        return b.clone();
    }
    if *b == DataType::Null {
        return a.clone();
    }
    if a.is_string() && b.is_string() {
        let unicode = a.is_unicode() || b.is_unicode();
        let fixed = matches!(a, DataType::Char(_) | DataType::NChar(_))
            && matches!(b, DataType::Char(_) | DataType::NChar(_));
        let len = match (a.char_length(), b.char_length()) {
            (Some(x), Some(y)) => Some(x.max(y)),
            _ => None,
        };
        return match (unicode, fixed, len) {
            (true, true, Some(n)) => DataType::NChar(n),
            (false, true, Some(n)) => DataType::Char(n),
            (true, _, l) => DataType::NVarChar(l),
            (false, _, l) => DataType::VarChar(l),
        };
    }
    if is_decimal(a) || is_decimal(b) {
        if let (Some((p1, s1)), Some((p2, s2))) = (as_decimal_ps(a), as_decimal_ps(b)) {
            let hi = DataType::higher_precedence(a, b);
            if is_decimal(hi) {
                let s = s1.max(s2) as i32;
                let ip = (p1 as i32 - s1 as i32).max(p2 as i32 - s2 as i32);
                return cap(ip + s, s);
            }
        }
    }
    if a.is_binary() && b.is_binary() {
        let len = match (a.char_length(), b.char_length()) {
            (Some(x), Some(y)) => Some(x.max(y)),
            _ => None,
        };
        return DataType::VarBinary(len);
    }
    DataType::higher_precedence(a, b).clone()
}

/// Result type of SUM over `t`.
pub fn sum_type(t: &DataType) -> DataType {
    match t {
        DataType::TinyInt | DataType::SmallInt | DataType::Int | DataType::Bit => DataType::Int,
        DataType::BigInt => DataType::BigInt,
        DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. } => DataType::Decimal {
            precision: 38,
            scale: *scale,
        },
        DataType::Money | DataType::SmallMoney => DataType::Money,
        DataType::Real | DataType::Float => DataType::Float,
        other => other.clone(),
    }
}

/// Result type of AVG over `t`.
pub fn avg_type(t: &DataType) -> DataType {
    match t {
        DataType::TinyInt | DataType::SmallInt | DataType::Int | DataType::Bit => DataType::Int,
        DataType::BigInt => DataType::BigInt,
        DataType::Decimal { scale, .. } | DataType::Numeric { scale, .. } => DataType::Decimal {
            precision: 38,
            scale: (*scale).max(6),
        },
        DataType::Money | DataType::SmallMoney => DataType::Money,
        DataType::Real | DataType::Float => DataType::Float,
        other => other.clone(),
    }
}
