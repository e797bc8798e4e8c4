//! The `session_data` cookie cache (better-auth's `compact` strategy): the session and user,
//! signed with HMAC-SHA256, so get-session can answer from the cookie alone while it lasts.
//!
//! cookie    = base64url(JSON {session: P, expiresAt, signature})
//! signature = base64url(HMAC(secret, JSON {...P, expiresAt}))
//! P         = {session, user, updatedAt, version}

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use subtle::ConstantTimeEq;

use crate::cookies::hmac_sha256;
use crate::wire::{Session, SessionWithUser, User};

const VERSION: &str = "1";
/// Browsers drop cookies much over 4 KiB; the platform refuses rather than chunks.
pub const MAX_SET_COOKIE_LENGTH: usize = 4093;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    session: Session,
    user: User,
    updated_at: i64,
    version: String,
}

/// `{...P, expiresAt}`: what the signature covers, in JavaScript's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Signed<'a> {
    session: &'a Session,
    user: &'a User,
    updated_at: i64,
    version: &'a str,
    expires_at: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    session: Payload,
    expires_at: i64,
    signature: String,
}

fn signature(secret: &str, payload: &Payload, expires_at: i64) -> String {
    let signed = Signed {
        session: &payload.session,
        user: &payload.user,
        updated_at: payload.updated_at,
        version: &payload.version,
        expires_at,
    };
    let json = serde_json::to_vec(&signed).unwrap_or_default();
    URL_SAFE_NO_PAD.encode(hmac_sha256(secret, &json))
}

/// The cookie value for `data`, valid for `max_age_ms` from `now_ms`.
pub fn encode(secret: &str, data: &SessionWithUser, now_ms: i64, max_age_ms: i64) -> String {
    let payload = Payload {
        session: data.session.clone(),
        user: data.user.clone(),
        updated_at: now_ms,
        version: VERSION.into(),
    };
    let expires_at = now_ms + max_age_ms;
    let signature = signature(secret, &payload, expires_at);
    let envelope = Envelope {
        session: payload,
        expires_at,
        signature,
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&envelope).unwrap_or_default())
}

/// The envelope as read: the payload kept as the exact bytes that were signed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEnvelope<'a> {
    #[serde(borrow)]
    session: &'a RawValue,
    expires_at: i64,
    signature: &'a str,
}

#[derive(Deserialize)]
struct RawPayload<'a> {
    #[serde(borrow)]
    session: &'a RawValue,
    #[serde(borrow)]
    user: &'a RawValue,
    #[serde(borrow)]
    version: std::borrow::Cow<'a, str>,
}

/// Just what validation needs from the cached session.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionCheck<'a> {
    #[serde(borrow)]
    token: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    expires_at: std::borrow::Cow<'a, str>,
}

/// The get-session body (`{"session":…,"user":…}`) if the cookie is ours, unexpired, of this
/// version and for `token`. The signature is checked over the payload's own bytes (which is
/// what `JSON.stringify` re-creates), and the session and user JSON are passed through as they
/// were signed: this path parses nothing it does not check, and serialises nothing.
pub fn decode(secret: &str, value: &str, token: &str, now_ms: i64) -> Option<String> {
    if value.len() > MAX_SET_COOKIE_LENGTH {
        // Never one of ours: not worth decoding or hashing.
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(value.trim_end_matches('=')).ok()?;
    let envelope: RawEnvelope = serde_json::from_slice(&bytes).ok()?;
    let payload = envelope.session.get();
    // `{...P, expiresAt}`: P's text with `,"expiresAt":N` before its closing brace.
    let body = payload.strip_suffix('}')?;
    let signed = format!("{body},\"expiresAt\":{}}}", envelope.expires_at);
    let expected = URL_SAFE_NO_PAD.encode(hmac_sha256(secret, signed.as_bytes()));
    if !bool::from(expected.as_bytes().ct_eq(envelope.signature.as_bytes())) {
        return None;
    }
    let parsed: RawPayload = serde_json::from_str(payload).ok()?;
    let session: SessionCheck = serde_json::from_str(parsed.session.get()).ok()?;
    let session_expires = chrono::DateTime::parse_from_rfc3339(&session.expires_at)
        .ok()?
        .timestamp_millis();
    let valid = parsed.version == VERSION
        && session.token == token
        && envelope.expires_at > now_ms
        && session_expires > now_ms;
    valid.then(|| {
        format!(
            "{{\"session\":{},\"user\":{}}}",
            parsed.session.get(),
            parsed.user.get()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "test-secret-test-secret-test-secret-1234";

    fn sample(expires_at: &str) -> SessionWithUser {
        SessionWithUser {
            session: Session {
                id: "s".into(),
                token: "tok".into(),
                user_id: "u".into(),
                expires_at: expires_at.into(),
                created_at: "2026-11-21T05:18:12.666Z".into(),
                updated_at: "2026-11-21T05:18:12.666Z".into(),
                ip_address: "".into(),
                user_agent: "".into(),
                impersonated_by: None,
                active_organization_id: None,
                active_team_id: None,
            },
            user: User {
                id: "u".into(),
                name: "A".into(),
                email: "a@example.com".into(),
                email_verified: false,
                image: None,
                created_at: "2026-11-21T05:18:12.666Z".into(),
                updated_at: "2026-11-21T05:18:12.666Z".into(),
                username: None,
                display_username: None,
                role: "user".into(),
                banned: false,
                ban_reason: None,
                ban_expires: None,
                language: 3,
                two_factor_enabled: false,
            },
        }
    }

    #[test]
    fn round_trips_and_rejects_tampering_expiry_and_other_tokens() {
        let now = 1_795_238_292_666;
        let data = sample("2026-11-28T05:18:12.666Z");
        let cookie = encode(SECRET, &data, now, 60_000);
        let body = decode(SECRET, &cookie, "tok", now + 1_000).expect("valid");
        let parsed: SessionWithUser = serde_json::from_str(&body).unwrap();
        assert_eq!(parsed, data, "the body is the signed session and user");
        assert_eq!(decode(SECRET, &cookie, "other", now), None);
        assert_eq!(decode(SECRET, &cookie, "tok", now + 60_001), None);
        assert_eq!(
            decode("another-secret-another-secret-12345", &cookie, "tok", now),
            None
        );
        let honest: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(&cookie).unwrap()).unwrap();
        let mut tampered = honest.clone();
        tampered["session"]["user"]["name"] = "Mallory".into();
        let tampered = URL_SAFE_NO_PAD.encode(tampered.to_string());
        assert_eq!(decode(SECRET, &tampered, "tok", now), None);
    }

    #[test]
    fn an_expired_session_inside_a_fresh_cookie_is_refused() {
        let now = 1_795_238_292_666;
        let cookie = encode(SECRET, &sample("2026-11-21T05:18:12.000Z"), now, 60_000);
        assert_eq!(decode(SECRET, &cookie, "tok", now), None);
    }
}
