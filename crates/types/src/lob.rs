//! The 2 GB limit of max-typed values (`varchar(max)`, `nvarchar(max)`, `varbinary(max)`).
//!
//! SQL Server stores a LOB value in at most 2,147,483,647 bytes; an operation that would make
//! one longer fails with Msg 7119 before anything grows. Every function that builds a string or
//! binary whose size comes from user input (REPLICATE's count, concatenation, REPLACE, STUFF,
//! CONCAT, STRING_AGG, …) computes the result's size first, with overflow-checked arithmetic,
//! and calls [`check_bytes`]; the buffer is then reserved with [`try_string`] / [`try_bytes`],
//! so even a size under the cap that the machine cannot hold is an error (Msg 701), never an
//! aborted allocation.
//!
//! Sizes are SQL Server's: one byte per `varchar` character (code page 1252), two per UTF-16
//! unit of `nvarchar`, one per byte of `varbinary`.

use common::{SqlError, SqlResult};

use crate::charset;

/// Largest size of a max-typed value, in bytes.
pub const MAX_LOB_BYTES: u64 = i32::MAX as u64;

/// Msg 7119: the value would grow beyond [`MAX_LOB_BYTES`].
pub fn too_large() -> SqlError {
    SqlError::new(7119, &[&MAX_LOB_BYTES])
}

/// Msg 701: the memory for a value of the requested size could not be reserved.
pub fn out_of_memory() -> SqlError {
    SqlError::new(701, &[&"default"])
}

/// Msg 7119 when `bytes` exceeds the cap.
#[inline]
pub fn check_bytes(bytes: u64) -> SqlResult<()> {
    if bytes > MAX_LOB_BYTES {
        Err(too_large())
    } else {
        Ok(())
    }
}

/// The SQL Server size in bytes of a string value: one byte per `varchar` character, two per
/// UTF-16 unit of `nvarchar`.
#[inline]
pub fn str_bytes(s: &str, unicode: bool) -> u64 {
    let units = charset::str_len(s, unicode) as u64;
    if unicode {
        units * 2
    } else {
        units
    }
}

/// Sum of sizes with overflow checking: Msg 7119 on overflow or beyond the cap.
#[inline]
pub fn add_bytes(a: u64, b: u64) -> SqlResult<u64> {
    let total = a.checked_add(b).ok_or_else(too_large)?;
    check_bytes(total)?;
    Ok(total)
}

/// Product of sizes with overflow checking: Msg 7119 on overflow or beyond the cap.
#[inline]
pub fn mul_bytes(a: u64, b: u64) -> SqlResult<u64> {
    let total = a.checked_mul(b).ok_or_else(too_large)?;
    check_bytes(total)?;
    Ok(total)
}

/// An empty string with room for `capacity` bytes, or Msg 701 when it cannot be allocated.
pub fn try_string(capacity: usize) -> SqlResult<String> {
    let mut s = String::new();
    s.try_reserve_exact(capacity).map_err(|_| out_of_memory())?;
    Ok(s)
}

/// An empty byte vector with room for `capacity` bytes, or Msg 701.
pub fn try_bytes(capacity: usize) -> SqlResult<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(capacity).map_err(|_| out_of_memory())?;
    Ok(v)
}

/// Reserves room for `additional` more bytes in `s`, or Msg 701.
pub fn try_reserve(s: &mut String, additional: usize) -> SqlResult<()> {
    s.try_reserve(additional).map_err(|_| out_of_memory())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_and_overflow_are_7119() {
        assert!(check_bytes(MAX_LOB_BYTES).is_ok());
        assert_eq!(check_bytes(MAX_LOB_BYTES + 1).unwrap_err().number, 7119);
        assert_eq!(mul_bytes(u64::MAX, 2).unwrap_err().number, 7119);
        assert_eq!(add_bytes(u64::MAX, 1).unwrap_err().number, 7119);
        assert_eq!(mul_bytes(8001, 100_000_000).unwrap_err().number, 7119);
        assert_eq!(
            too_large().message,
            "Attempting to grow LOB beyond maximum allowed size of 2147483647 bytes."
        );
    }

    #[test]
    fn sizes_are_sql_servers() {
        assert_eq!(str_bytes("a€", false), 2);
        assert_eq!(str_bytes("a€", true), 4);
        assert_eq!(str_bytes("😀", true), 4);
    }

    #[test]
    fn impossible_reservation_is_701_not_abort() {
        assert_eq!(try_bytes(usize::MAX).unwrap_err().number, 701);
        assert_eq!(try_string(isize::MAX as usize).unwrap_err().number, 701);
    }
}
