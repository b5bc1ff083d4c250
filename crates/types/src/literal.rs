//! Literal parsing: the `Value` (and so the type) SQL Server gives a literal.
//!
//! * `123` → int; integers outside int's range → numeric(p,0) (decimal literal), more than 38
//!   digits → error 1007.
//! * `1.50` → numeric(3,2) (precision = digits, scale = digits after the point).
//! * `1e3`, `1.5E-2` → float.
//! * `$12.5` → money. `0x0A0B` → varbinary.
//! * `'abc'` → varchar (characters outside code page 1252 become `?`), `N'abc'` → nvarchar.

use crate::charset;
use crate::decimal;
use crate::Value;
use common::{SqlError, SqlResult};

fn out_of_range(text: &str) -> SqlError {
    SqlError::new(1007, &[&"number", &text, &"numeric"])
}

/// Parses a numeric literal's text (no sign: unary minus is an operator).
pub fn parse_number_literal(text: &str) -> SqlResult<Value> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('$') {
        let (m, s) = decimal::parse(rest).ok_or_else(|| SqlError::syntax_near(t))?;
        let m = decimal::rescale(m, s, 4)
            .filter(|m| *m >= i64::MIN as i128 && *m <= i64::MAX as i128)
            .ok_or_else(|| SqlError::new(8115, &[&"expression", &"money"]))?;
        return Ok(Value::Money(m as i64));
    }
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return parse_binary_literal(hex);
    }
    if t.contains(['e', 'E']) {
        let f: f64 = t.parse().map_err(|_| SqlError::syntax_near(t))?;
        if !f.is_finite() {
            return Err(SqlError::new(8115, &[&"expression", &"float"]));
        }
        return Ok(Value::Float(f));
    }
    if !t.contains('.') {
        if !t.bytes().all(|b| b.is_ascii_digit()) || t.is_empty() {
            return Err(SqlError::syntax_near(t));
        }
        let digits = t.trim_start_matches('0');
        if digits.len() <= 10 {
            let v: i64 = if digits.is_empty() {
                0
            } else {
                digits.parse().unwrap_or(i64::MAX)
            };
            if v <= i32::MAX as i64 {
                return Ok(Value::Int(v as i32));
            }
        }
        if digits.len() > 38 {
            return Err(out_of_range(t));
        }
        let (m, _) = decimal::parse(t).ok_or_else(|| out_of_range(t))?;
        return Ok(Value::Decimal {
            mantissa: m,
            scale: 0,
        });
    }
    let (ip, fp) = t.split_once('.').unwrap_or((t, ""));
    if !ip.bytes().all(|b| b.is_ascii_digit()) || !fp.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SqlError::syntax_near(t));
    }
    if ip.trim_start_matches('0').len() + fp.len() > 38 {
        return Err(out_of_range(t));
    }
    let (m, s) = decimal::parse(t).ok_or_else(|| out_of_range(t))?;
    Ok(Value::Decimal {
        mantissa: m,
        scale: s,
    })
}

/// Parses the hex digits of a `0x…` literal (odd digit counts get a leading zero).
pub fn parse_binary_literal(hex: &str) -> SqlResult<Value> {
    let digits: Vec<u8> = hex
        .chars()
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| SqlError::syntax_near(hex))?;
    let mut out = Vec::with_capacity(digits.len() / 2 + 1);
    let mut i = 0;
    if digits.len() % 2 == 1 {
        out.push(digits[0]);
        i = 1;
    }
    while i + 1 < digits.len() + 1 && i < digits.len() {
        out.push(digits[i] * 16 + digits[i + 1]);
        i += 2;
    }
    Ok(Value::VarBinary(out))
}

/// The value of a string literal whose quotes are already removed and doubled quotes undone:
/// `N'…'` is nvarchar, `'…'` varchar (code page 1252, unmappable characters become `?`).
pub fn string_literal(text: &str, unicode: bool) -> Value {
    if unicode {
        Value::NVarChar(text.to_string())
    } else {
        Value::VarChar(charset::to_cp1252_text(text).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DataType;

    #[test]
    fn numbers() {
        assert_eq!(parse_number_literal("123").unwrap(), Value::Int(123));
        assert_eq!(
            parse_number_literal("2147483647").unwrap(),
            Value::Int(i32::MAX)
        );
        let v = parse_number_literal("3000000000").unwrap();
        assert_eq!(
            v,
            Value::Decimal {
                mantissa: 3_000_000_000,
                scale: 0
            }
        );
        assert_eq!(
            v.data_type(),
            DataType::Numeric {
                precision: 10,
                scale: 0
            }
        );
        let v = parse_number_literal("1.50").unwrap();
        assert_eq!(
            v.data_type(),
            DataType::Numeric {
                precision: 3,
                scale: 2
            }
        );
        assert_eq!(v.to_sql_text(), "1.50");
        assert_eq!(
            parse_number_literal(".5").unwrap().data_type(),
            DataType::Numeric {
                precision: 1,
                scale: 1
            }
        );
        assert_eq!(parse_number_literal("1e3").unwrap(), Value::Float(1000.0));
        assert_eq!(
            parse_number_literal("$12.5").unwrap(),
            Value::Money(125_000)
        );
        assert_eq!(
            parse_number_literal("0x0A0B").unwrap(),
            Value::VarBinary(vec![10, 11])
        );
        assert_eq!(
            parse_number_literal("0xA").unwrap(),
            Value::VarBinary(vec![10])
        );
        assert_eq!(
            parse_number_literal(&"9".repeat(39)).unwrap_err().number,
            1007
        );
        assert_eq!(string_literal("日", false), Value::VarChar("?".into()));
        assert_eq!(string_literal("日", true), Value::NVarChar("日".into()));
    }
}
