//! better-auth's cookies: names (with the `__Secure-` prefix behind https), HMAC-SHA256 signed
//! values (`value.base64(hmac)`, percent-encoded like JavaScript's `encodeURIComponent`), the
//! attribute order, and reading the `Cookie` header the way better-call does.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::config::ExposeSecret;

use crate::config::CookieSettings;

/// Characters `encodeURIComponent` leaves alone: `A-Z a-z 0-9 - _ . ! ~ * ' ( )`.
const URI_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// A base64 HMAC-SHA256 is 44 characters ending in `=`.
const SIGNATURE_LENGTH: usize = 44;

pub fn hmac_sha256(secret: &str, message: &[u8]) -> [u8; 32] {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// `percentEncode(value + "." + base64(hmac(secret, value)))`.
/// JavaScript's `encodeURIComponent` (a value put into a URL's query).
pub fn encode_uri_component(value: &str) -> String {
    utf8_percent_encode(value, URI_COMPONENT).to_string()
}

pub fn sign(secret: &str, value: &str) -> String {
    let signature = STANDARD.encode(hmac_sha256(secret, value.as_bytes()));
    utf8_percent_encode(&format!("{value}.{signature}"), URI_COMPONENT).to_string()
}

/// The value inside an already percent-decoded signed cookie, if the signature is ours.
pub fn verify(secret: &str, signed: &str) -> Option<String> {
    let dot = signed.rfind('.').filter(|&i| i >= 1)?;
    let (value, signature) = (&signed[..dot], &signed[dot + 1..]);
    if signature.len() != SIGNATURE_LENGTH || !signature.ends_with('=') {
        return None;
    }
    let expected = STANDARD.encode(hmac_sha256(secret, value.as_bytes()));
    bool::from(expected.as_bytes().ct_eq(signature.as_bytes())).then(|| value.to_string())
}

/// `verify` with each version of the auth secret, the current first: after a rotation
/// (`AUTH_SECRETS`), cookies signed with the previous secret still hold, so nobody is signed
/// out by it (better-auth checks the current secret only). New cookies are signed with the
/// current one.
pub fn verify_any(secrets: &AuthSecrets, signed: &str) -> Option<String> {
    secrets
        .all()
        .find_map(|secret| verify(secret.expose_secret(), signed))
}

/// Finds one cookie in a `Cookie` header: first occurrence wins, surrounding quotes stripped,
/// percent-decoded only when it contains `%`.
pub fn read<'a>(header: &'a str, name: &str) -> Option<std::borrow::Cow<'a, str>> {
    header.split(';').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        if key.trim() != name {
            return None;
        }
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        if value.contains('%') {
            Some(
                percent_decode_str(value)
                    .decode_utf8()
                    .map(|v| std::borrow::Cow::Owned(v.into_owned()))
                    .unwrap_or(std::borrow::Cow::Borrowed(value)),
            )
        } else {
            Some(std::borrow::Cow::Borrowed(value))
        }
    })
}

/// The cookies this protocol version uses, with their configured names.
#[derive(Clone, Debug)]
pub struct CookieNames {
    pub session_token: String,
    pub session_data: String,
    pub dont_remember: String,
    /// The admin's own session while they impersonate someone (admin plugin §10.7).
    pub admin_session: String,
    /// A social sign-in's state, signed, for the provider's callback (5 minutes).
    pub state: String,
    /// Two-factor plugin: a pending sign-in's challenge, and a trusted browser's mark.
    pub two_factor: String,
    pub trust_device: String,
}

/// Builds `Set-Cookie` values in better-auth's attribute order:
/// `name=value; Max-Age=N; Path=/; HttpOnly; Secure; SameSite=Lax`.
#[derive(Clone, Debug)]
pub struct CookieJar {
    pub names: CookieNames,
    secure: bool,
}

impl CookieJar {
    pub fn new(settings: &CookieSettings) -> Self {
        let name = |cookie: &str| {
            let secure = if settings.secure { "__Secure-" } else { "" };
            format!("{secure}{}.{cookie}", settings.prefix)
        };
        Self {
            names: CookieNames {
                session_token: name("session_token"),
                session_data: name("session_data"),
                dont_remember: name("dont_remember"),
                admin_session: name("admin_session"),
                state: name("state"),
                two_factor: name("two_factor"),
                trust_device: name("trust_device"),
            },
            secure: settings.secure,
        }
    }

    /// A `Set-Cookie` value; `max_age: None` makes a browser-session cookie.
    pub fn set(&self, name: &str, value: &str, max_age: Option<u64>) -> String {
        let mut cookie = format!("{name}={value}");
        if let Some(max_age) = max_age {
            cookie.push_str(&format!("; Max-Age={max_age}"));
        }
        cookie.push_str("; Path=/; HttpOnly");
        if self.secure {
            cookie.push_str("; Secure");
        }
        cookie.push_str("; SameSite=Lax");
        cookie
    }

    /// Deletes a cookie: same name and attributes, empty value, `Max-Age=0`.
    pub fn expire(&self, name: &str) -> String {
        self.set(name, "", Some(0))
    }

    /// What sign-out and a dead session send: token, cache and remember-me marker, in that order.
    pub fn expire_session(&self) -> [String; 3] {
        [
            self.expire(&self.names.session_token),
            self.expire(&self.names.session_data),
            self.expire(&self.names.dont_remember),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "test-secret-test-secret-test-secret-1234";

    #[test]
    fn a_rotation_keeps_the_cookies_the_previous_secret_signed() {
        use gatehouse_kit::config::Env;
        let secrets = |list: &str| {
            AuthSecrets::from_env(&Env::from_pairs([("AUTH_SECRETS", list)]))
                .unwrap()
                .unwrap()
        };
        const NEW: &str = "new-secret-new-secret-new-secret-5678";
        let old_cookie = percent_decode_str(&sign(SECRET, "tok"))
            .decode_utf8_lossy()
            .to_string();
        let rotated = secrets(&format!("2:{NEW},1:{SECRET}"));
        assert_eq!(verify_any(&rotated, &old_cookie).as_deref(), Some("tok"));
        let new_cookie = percent_decode_str(&sign(rotated.current().expose_secret(), "tok"))
            .decode_utf8_lossy()
            .to_string();
        assert_eq!(verify_any(&rotated, &new_cookie).as_deref(), Some("tok"));
        let dropped = secrets(&format!("2:{NEW}"));
        assert_eq!(
            verify_any(&dropped, &old_cookie),
            None,
            "a dropped version signs nothing"
        );
        assert_eq!(verify_any(&rotated, "tok.forged"), None);
    }

    #[test]
    fn signs_exactly_like_better_auth() {
        // The worked example of the protocol reference (§5.4).
        assert_eq!(
            sign(SECRET, "FohVz4E2zUkZDez2HGGLEF1yytnReX47"),
            "FohVz4E2zUkZDez2HGGLEF1yytnReX47.wSg45QZL1WbH0vlOjckbqp3kLgVM1%2F5ktj7pvz2xlkE%3D"
        );
        // A captured sign-up cookie (Appendix A).
        assert_eq!(
            sign(SECRET, "IXX6uESz2ZhH1D8PEb8gNEFpqB9fFXrg"),
            "IXX6uESz2ZhH1D8PEb8gNEFpqB9fFXrg.%2BKdyNLnkyZvC%2FK09MAAlCHXcy0ROfZtLsBJmFUvToaE%3D"
        );
        // The dont_remember marker is always `true` signed (Appendix A).
        assert_eq!(
            sign(SECRET, "true"),
            "true.Q3tLn5mR%2BBpWsPmhRXq4oq2Ft5MsgW%2FZ7zvgyHuNzZw%3D"
        );
    }

    #[test]
    fn verifies_its_own_signatures_only() {
        let header = format!("a=b; better-auth.session_token={}", sign(SECRET, "tok"));
        let value = read(&header, "better-auth.session_token").unwrap();
        assert_eq!(verify(SECRET, &value).as_deref(), Some("tok"));
        assert_eq!(verify("another-secret-another-secret-12345", &value), None);
        assert_eq!(verify(SECRET, "tok.short="), None);
        assert_eq!(verify(SECRET, "no-dot"), None);
    }

    #[test]
    fn reads_cookie_headers_like_better_call() {
        let header = "x=1; name=\"quoted\"; dup=first; dup=second; enc=a%3Db";
        assert_eq!(read(header, "name").as_deref(), Some("quoted"));
        assert_eq!(read(header, "dup").as_deref(), Some("first"));
        assert_eq!(read(header, "enc").as_deref(), Some("a=b"));
        assert_eq!(read(header, "missing"), None);
    }

    #[test]
    fn attributes_follow_better_auth_order_and_prefix() {
        let plain = CookieJar::new(&settings(false));
        assert_eq!(
            plain.set(&plain.names.session_token, "v", Some(604800)),
            "better-auth.session_token=v; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax"
        );
        assert_eq!(
            plain.expire(&plain.names.dont_remember),
            "better-auth.dont_remember=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"
        );
        let secure = CookieJar::new(&settings(true));
        assert_eq!(
            secure.set(&secure.names.session_token, "v", None),
            "__Secure-better-auth.session_token=v; Path=/; HttpOnly; Secure; SameSite=Lax"
        );
    }

    fn settings(secure: bool) -> CookieSettings {
        CookieSettings {
            prefix: "better-auth".into(),
            secure,
            session_max_age: std::time::Duration::from_secs(604800),
            cache_enabled: false,
            cache_max_age: std::time::Duration::from_secs(60),
        }
    }
}
