//! Password hashes in SQL Server's format and the password policy.
//!
//! Hash (70 bytes, `sys.sql_logins.password_hash`, `LOGINPROPERTY(.., 'PasswordHash')`):
//! `0x0200` (version: SHA-512) + 4-byte random salt + SHA-512(UTF-16LE(password) + salt).
//! The same format as SQL Server 2012 and later, so `PWDCOMPARE` and hashes moved with
//! `CREATE LOGIN .. WITH PASSWORD = 0x.. HASHED` agree with SQL Server's.

use common::{SqlError, SqlResult};
use sha2::{Digest, Sha512};

/// Length of a version-2 hash: 2 + 4 + 64.
pub const HASH_LEN: usize = 70;

/// Longest password SQL Server accepts (Msg 15156 / 33063).
pub const MAX_PASSWORD_CHARS: usize = 128;

/// The hash of `password` with `salt`.
pub fn hash_with_salt(password: &str, salt: [u8; 4]) -> Vec<u8> {
    let mut h = Sha512::new();
    for unit in password.encode_utf16() {
        h.update(unit.to_le_bytes());
    }
    h.update(salt);
    let mut out = Vec::with_capacity(HASH_LEN);
    out.extend_from_slice(&[0x02, 0x00]);
    out.extend_from_slice(&salt);
    out.extend_from_slice(&h.finalize());
    out
}

/// A new hash of `password` with a fresh random salt.
pub fn new_hash(password: &str) -> Vec<u8> {
    hash_with_salt(password, random_salt())
}

/// Does `password` match `hash`? False for an empty (unset) or malformed hash.
pub fn verify(password: &str, hash: &[u8]) -> bool {
    if hash.len() != HASH_LEN || hash[0..2] != [0x02, 0x00] {
        return false;
    }
    let salt = [hash[2], hash[3], hash[4], hash[5]];
    let expected = hash_with_salt(password, salt);
    // constant-time comparison: the time taken does not tell how many bytes matched
    expected
        .iter()
        .zip(hash)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

/// Is `hash` a hash this module can verify (for `WITH PASSWORD = 0x.. HASHED`)?
pub fn is_valid_hash(hash: &[u8]) -> bool {
    hash.len() == HASH_LEN && hash[0..2] == [0x02, 0x00]
}

/// Four random bytes from the operating system (falling back to the standard library's
/// randomly keyed hasher where /dev/urandom cannot be read).
fn random_salt() -> [u8; 4] {
    use std::io::Read;
    let mut b = [0u8; 4];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        if f.read_exact(&mut b).is_ok() {
            return b;
        }
    }
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    (h.finish() as u32).to_le_bytes()
}

/// SQL Server on Linux's password policy (CHECK_POLICY = ON, and the sa password of the
/// container image): 8 to 128 characters, from at least three of upper-case letters,
/// lower-case letters, digits and symbols. Msg 33062 / 33063 / 33064.
pub fn check_policy(password: &str) -> SqlResult<()> {
    let n = password.chars().count();
    if n < 8 {
        return Err(SqlError::new(33062, &[&8]));
    }
    if n > MAX_PASSWORD_CHARS {
        return Err(SqlError::new(33063, &[&MAX_PASSWORD_CHARS]));
    }
    let classes = [
        password.chars().any(|c| c.is_uppercase()),
        password.chars().any(|c| c.is_lowercase()),
        password.chars().any(|c| c.is_ascii_digit()),
        password.chars().any(|c| !c.is_alphanumeric()),
    ];
    if classes.iter().filter(|x| **x).count() < 3 {
        return Err(SqlError::new(33064, &[&8]));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_has_sql_server_layout_and_verifies() {
        let h = new_hash("Str0ng!Pass");
        assert_eq!(h.len(), HASH_LEN);
        assert_eq!(&h[..2], &[2, 0]);
        assert!(verify("Str0ng!Pass", &h));
        assert!(!verify("str0ng!Pass", &h));
        assert!(!verify("", &[]));
        // salted: the same password hashes differently (with overwhelming probability)
        let a = hash_with_salt("x", [1, 2, 3, 4]);
        let b = hash_with_salt("x", [1, 2, 3, 5]);
        assert_ne!(a[6..], b[6..]);
    }

    #[test]
    fn known_vector_sha512_of_utf16le_plus_salt() {
        // SHA-512 over "a\0" + salt 00000000, computed independently of this module.
        let h = hash_with_salt("a", [0, 0, 0, 0]);
        let mut d = Sha512::new();
        d.update([b'a', 0, 0, 0, 0, 0]);
        assert_eq!(&h[6..], d.finalize().as_slice());
    }

    #[test]
    fn policy_messages() {
        assert_eq!(check_policy("Ab1!").unwrap_err().number, 33062);
        assert_eq!(check_policy("abcdefgh").unwrap_err().number, 33064);
        assert_eq!(check_policy(&"Aa1".repeat(50)).unwrap_err().number, 33063);
        assert!(check_policy("Abcdefg1").is_ok());
        assert!(check_policy("abcdefg1!").is_ok());
    }
}
