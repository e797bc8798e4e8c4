//! Identifiers, tokens and time as better-auth shapes them.

use chrono::{DateTime, TimeZone, Utc};
use rand::Rng;

const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `len` characters drawn uniformly from `[A-Za-z0-9]` with the OS-seeded CSPRNG
/// (better-auth's `generateId`): 32 characters for ids and session tokens.
pub fn random_alphanumeric(len: usize) -> String {
    random_from(ALPHANUMERIC, len)
}

/// `len` characters drawn uniformly from `alphabet` (ASCII) with the OS-seeded CSPRNG.
pub fn random_from(alphabet: &[u8], len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| alphabet[rng.random_range(0..alphabet.len())] as char)
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
    let (days, in_day) = (ms.div_euclid(MS_PER_DAY), ms.rem_euclid(MS_PER_DAY));
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return iso_by_chrono(from_unix_ms(ms));
    }
    // Digits into a template rather than through chrono's `fmt`: a page of users formats
    // hundreds of these, and the formatter cost several times more per call.
    let mut text = *b"0000-00-00T00:00:00.000Z";
    for (at, width, value) in [
        (0, 4, year),
        (5, 2, month),
        (8, 2, day),
        (11, 2, in_day / 3_600_000),
        (14, 2, in_day / 60_000 % 60),
        (17, 2, in_day / 1000 % 60),
        (20, 3, in_day % 1000),
    ] {
        let mut rest = value;
        for slot in text[at..at + width].iter_mut().rev() {
            *slot = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
    }
    match std::str::from_utf8(&text) {
        Ok(text) => text.to_owned(),
        Err(_) => iso_by_chrono(from_unix_ms(ms)),
    }
}

const MS_PER_DAY: i64 = 86_400_000;

/// Year, month and day of a day counted from 1970-01-01 in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Years before 0 or after 9999, signed and wider as chrono spells them (JavaScript would
/// write six digits).
fn iso_by_chrono(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
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
    fn iso_spells_every_time_as_chrono_does() {
        let mut ms: i64 = -62_200_000_000_000; // before year 0
        let step = 987_654_321_098;
        while ms < 260_000_000_000_000 {
            assert_eq!(iso(ms), iso_by_chrono(from_unix_ms(ms)), "{ms}");
            for nearby in [ms + 1, ms + 999, ms + 86_399_999, -ms] {
                assert_eq!(iso(nearby), iso_by_chrono(from_unix_ms(nearby)), "{nearby}");
            }
            ms += step;
        }
        for edge in [
            -1,
            253_402_300_799_999,
            253_402_300_800_000,
            -62_167_219_200_000,
            i64::MIN,
            i64::MAX,
        ] {
            assert_eq!(iso(edge), iso_by_chrono(from_unix_ms(edge)), "{edge}");
        }
    }

    #[test]
    fn now_has_millisecond_precision() {
        assert_eq!(now().timestamp_subsec_nanos() % 1_000_000, 0);
    }
}
