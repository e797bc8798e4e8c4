//! Identifiers, tokens and time as better-auth shapes them.

use chrono::{DateTime, TimeZone, Utc};
use rand::Rng;

const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `len` characters drawn uniformly from `[A-Za-z0-9]` with the OS-seeded CSPRNG
/// (better-auth's `generateId`): 32 characters for ids and session tokens.
pub fn random_alphanumeric(len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| ALPHANUMERIC[rng.random_range(0..ALPHANUMERIC.len())] as char)
        .collect()
}

/// Lower-case hex SHA-256 of `value`: how a secret or personal value (a session token, an
/// email address) appears in a cache key, so reading the cache reveals neither.
pub fn sha256_hex(value: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(value.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte & 0xf)]));
    }
    hex
}

/// A new 32-character id.
pub fn new_id() -> String {
    random_alphanumeric(32)
}

/// Now, truncated to milliseconds: the precision better-auth sends on the wire, and a fixed
/// precision keeps SQLite's text timestamps ordered.
pub fn now() -> DateTime<Utc> {
    from_unix_ms(Utc::now().timestamp_millis())
}

pub fn from_unix_ms(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

/// `2026-11-21T05:18:12.666Z`, exactly JavaScript's `Date.prototype.toISOString()`.
pub fn iso(ms: i64) -> String {
    // Not `format(…)`: that parses its pattern on every call, and a page of users formats
    // hundreds of these.
    from_unix_ms(ms).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_32_alphanumerics_and_differ() {
        let a = new_id();
        let b = new_id();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }

    #[test]
    fn iso_matches_javascript() {
        assert_eq!(iso(1_795_238_292_666), "2026-11-21T05:18:12.666Z");
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn now_has_millisecond_precision() {
        assert_eq!(now().timestamp_subsec_nanos() % 1_000_000, 0);
    }
}
