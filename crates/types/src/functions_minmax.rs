//! `GREATEST` / `LEAST` (SQL Server 2022): 1 to 254 arguments; the result has the type of
//! highest precedence among them (with CASE's rules for lengths and decimals, see
//! [`crate::derive::common_type`]) and every argument is converted to it before comparison;
//! NULL arguments are ignored, all NULL gives NULL. Strings compare under the default
//! collation. Types that cannot be compared (none of latchkey's today) would raise 8116.

use std::cmp::Ordering;

use common::{SqlError, SqlResult};

use crate::collation::Collation;
use crate::{DataType, Value};

/// Most arguments SQL Server accepts.
pub const MAX_ARGS: usize = 254;

/// Result type of GREATEST / LEAST over `args`.
pub fn result_type(name: &str, args: &[DataType]) -> SqlResult<DataType> {
    if args.is_empty() || args.len() > MAX_ARGS {
        return Err(SqlError::new(
            189,
            &[&name.to_ascii_lowercase(), &1, &MAX_ARGS],
        ));
    }
    crate::derive::common_type(args)
}

/// GREATEST (`greatest` = true) or LEAST of `args`, converted to `result` (the type
/// [`result_type`] gave).
pub fn evaluate(args: &[Value], result: &DataType, greatest: bool) -> SqlResult<Value> {
    let want = if greatest {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    let mut best: Option<Value> = None;
    for a in args.iter().filter(|a| !a.is_null()) {
        let v = a.cast(result)?;
        best = Some(match best {
            None => v,
            Some(b) => {
                if crate::compare::compare(&v, &b, Collation::DEFAULT)? == Some(want) {
                    v
                } else {
                    b
                }
            }
        });
    }
    Ok(best.unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_and_ignores_nulls() {
        let t = result_type("GREATEST", &[DataType::Int, DataType::Null, DataType::Int]).unwrap();
        let args = [Value::Int(3), Value::Null, Value::Int(7)];
        assert_eq!(evaluate(&args, &t, true).unwrap(), Value::Int(7));
        assert_eq!(evaluate(&args, &t, false).unwrap(), Value::Int(3));
        assert_eq!(evaluate(&[Value::Null], &t, true).unwrap(), Value::Null);
    }

    #[test]
    fn counts_arguments() {
        assert_eq!(result_type("LEAST", &[]).unwrap_err().number, 189);
        let many = vec![DataType::Int; 255];
        assert_eq!(result_type("LEAST", &many).unwrap_err().number, 189);
        assert!(result_type("LEAST", &many[..254]).is_ok());
    }
}
