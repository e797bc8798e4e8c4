//! Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 6 digits, 30-second
//! steps, a code of the step before or after now accepted too, as better-auth (and every
//! authenticator app) computes them. better-auth's key is the generated secret's UTF-8 bytes
//! as they are; the URI carries them base32-encoded.
//!
//! Written here rather than taken from a crate: the few lines below are the whole algorithm,
//! the verifier must say WHICH step matched (replay protection remembers it), and ring, already
//! in the tree, supplies the HMAC.

use ring::hmac;
use subtle::ConstantTimeEq;

pub const DIGITS: u32 = 6;
pub const PERIOD_SECS: i64 = 30;
/// Steps either side of now whose codes are accepted (clock drift, a code typed at the turn).
const WINDOW: i64 = 1;

/// The HOTP code of `counter` under `key`.
pub fn hotp(key: &[u8], counter: u64) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, key);
    let tag = hmac::sign(&key, &counter.to_be_bytes());
    let mac = tag.as_ref();
    let offset = usize::from(mac[mac.len() - 1] & 0x0f);
    let truncated = u32::from_be_bytes([
        mac[offset],
        mac[offset + 1],
        mac[offset + 2],
        mac[offset + 3],
    ]) & 0x7fff_ffff;
    format!(
        "{:0width$}",
        truncated % 10u32.pow(DIGITS),
        width = DIGITS as usize
    )
}

/// The step `unix_secs` falls in.
pub fn step_at(unix_secs: i64) -> i64 {
    unix_secs.div_euclid(PERIOD_SECS)
}

/// The step whose code `code` is, among the steps around `now_step`; every candidate is
/// computed and compared in constant time, so timing does not tell which one matched.
pub fn matching_step(key: &[u8], code: &str, now_step: i64) -> Option<i64> {
    let mut found = None;
    for step in now_step - WINDOW..=now_step + WINDOW {
        let Ok(counter) = u64::try_from(step) else {
            continue;
        };
        let expected = hotp(key, counter);
        if bool::from(expected.as_bytes().ct_eq(code.as_bytes())) {
            found = Some(step);
        }
    }
    found
}

/// The `otpauth://` URI an authenticator app reads (better-auth's form: issuer and account
/// encoded as `encodeURIComponent` does, the query as `URLSearchParams` writes it).
pub fn uri(key: &[u8], issuer: &str, account: &str) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("secret", &base32(key))
        .append_pair("issuer", issuer)
        .append_pair("digits", &DIGITS.to_string())
        .append_pair("period", &PERIOD_SECS.to_string())
        .finish();
    format!(
        "otpauth://totp/{}:{}?{query}",
        encode_uri_component(issuer),
        encode_uri_component(account)
    )
}

/// RFC 4648 base32, without padding.
pub fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// JavaScript's `encodeURIComponent`.
fn encode_uri_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4226 appendix D: the secret "12345678901234567890", counters 0–9.
    #[test]
    fn hotp_matches_the_rfc_test_values() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583",
            "399871", "520489",
        ];
        for (counter, code) in expected.iter().enumerate() {
            assert_eq!(hotp(b"12345678901234567890", counter as u64), *code);
        }
    }

    /// RFC 6238 appendix B (SHA-1), truncated to six digits.
    #[test]
    fn totp_matches_the_rfc_test_values() {
        let key = b"12345678901234567890";
        for (time, code) in [
            (59, "287082"),
            (1_111_111_109, "081804"),
            (1_111_111_111, "050471"),
            (1_234_567_890, "005924"),
            (2_000_000_000, "279037"),
        ] {
            assert_eq!(hotp(key, step_at(time) as u64), code, "at {time}");
        }
    }

    #[test]
    fn a_code_of_the_neighbouring_steps_matches_and_says_which() {
        let key = b"abcdefghijklmnopqrstuvwxyz012345";
        let now = 57_000_000;
        assert_eq!(matching_step(key, &hotp(key, now as u64), now), Some(now));
        assert_eq!(
            matching_step(key, &hotp(key, now as u64 - 1), now),
            Some(now - 1)
        );
        assert_eq!(
            matching_step(key, &hotp(key, now as u64 + 1), now),
            Some(now + 1)
        );
        assert_eq!(matching_step(key, &hotp(key, now as u64 - 2), now), None);
        assert_eq!(matching_step(key, "", now), None);
        assert_eq!(matching_step(key, "12345", now), None);
    }

    #[test]
    fn base32_is_rfc_4648() {
        for (input, output) in [
            ("", ""),
            ("f", "MY"),
            ("fo", "MZXQ"),
            ("foo", "MZXW6"),
            ("foob", "MZXW6YQ"),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI"),
        ] {
            assert_eq!(base32(input.as_bytes()), output);
        }
    }

    #[test]
    fn the_uri_is_better_auths() {
        assert_eq!(
            uri(b"foobar", "My App", "a+b@example.com"),
            "otpauth://totp/My%20App:a%2Bb%40example.com?secret=MZXW6YTBOI&issuer=My+App&digits=6&period=30"
        );
    }
}
