//! One token: its header read before any key is chosen, then its signature and claims checked.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::Algorithm;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::jwk::Key;
use crate::{Expectations, VerifyError};

/// A leeway above this is taken as this: clock skew is seconds, and a huge value would overflow
/// the time arithmetic.
const MAX_LEEWAY_SECS: u64 = 24 * 60 * 60;

/// The header members that matter before the signature is checked.
pub(crate) struct Header {
    pub(crate) alg: Algorithm,
    pub(crate) kid: Option<String>,
}

#[derive(Deserialize)]
struct RawHeader {
    alg: String,
    kid: Option<String>,
    crit: Option<serde_json::Value>,
}

/// Reads the header and checks its `alg` against the allow-list. Done by hand rather than with
/// `jsonwebtoken::decode_header` so that `none` or an unknown algorithm is an algorithm refusal,
/// not a parse error.
pub(crate) fn header(token: &str, expect: &Expectations) -> Result<Header, VerifyError> {
    let mut parts = token.split('.');
    let (Some(encoded), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(VerifyError::Malformed(
            "not three dot-separated parts".into(),
        ));
    };
    let json = URL_SAFE_NO_PAD
        .decode(encoded)
        .map_err(|_| VerifyError::Malformed("header is not base64url".into()))?;
    let raw: RawHeader = serde_json::from_slice(&json)
        .map_err(|e| VerifyError::Malformed(format!("header: {e}")))?;
    // RFC 7515 §4.1.11: extensions marked critical must be understood; this crate knows none.
    if raw.crit.is_some() {
        return Err(VerifyError::Malformed("critical header extensions".into()));
    }
    let alg: Algorithm = raw
        .alg
        .parse()
        .map_err(|_| VerifyError::Algorithm(raw.alg.clone()))?;
    if !allowed(alg, expect) {
        return Err(VerifyError::Algorithm(raw.alg));
    }
    Ok(Header { alg, kid: raw.kid })
}

/// HMAC is never accepted, whatever the list says: a JWKS holds public keys, and a verifier that
/// takes HS* would check a MAC made with a public key as the secret.
fn allowed(alg: Algorithm, expect: &Expectations) -> bool {
    !matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
        && expect.algorithms.contains(&alg)
}

/// Checks the signature with each candidate key in turn, then the claims.
pub(crate) fn check<C: DeserializeOwned>(
    token: &str,
    header: &Header,
    keys: &[&Key],
    expect: &Expectations,
) -> Result<C, VerifyError> {
    // Empty lists would accept no token: refused here, so a forgotten setting fails closed
    // and says why.
    if expect.issuers.is_empty() {
        return Err(VerifyError::Issuer);
    }
    if expect.audiences.is_empty() {
        return Err(VerifyError::Audience);
    }
    let (message, signature) = token
        .rsplit_once('.')
        .ok_or_else(|| VerifyError::Malformed("not three dot-separated parts".into()))?;
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| VerifyError::Malformed("signature is not base64url".into()))?;
    if !keys
        .iter()
        .any(|key| key.verifies(header.alg, message.as_bytes(), &signature))
    {
        return Err(VerifyError::Signature);
    }
    let payload = message.split('.').nth(1).unwrap_or_default();
    let json = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| VerifyError::Malformed("claims are not base64url".into()))?;
    let claims: Value = serde_json::from_slice(&json)
        .map_err(|e| VerifyError::Malformed(format!("claims: {e}")))?;
    validate(&claims, expect)?;
    serde_json::from_value(claims)
        .map_err(|e| VerifyError::Malformed(format!("claims do not fit the expected type: {e}")))
}

/// The registered claims (RFC 7519 4.1): `exp` required and not past, `nbf` and `iat` not in
/// the future (each with the leeway), `iss` one string among the accepted, `aud` a string or
/// an array naming one of the accepted.
fn validate(claims: &Value, expect: &Expectations) -> Result<(), VerifyError> {
    let leeway = expect.leeway.as_secs().min(MAX_LEEWAY_SECS) as f64;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let time = |name: &str| match claims.get(name) {
        None => Ok(None),
        Some(value) => value
            .as_f64()
            .map(Some)
            .ok_or_else(|| VerifyError::Malformed(format!("{name} is not a number"))),
    };
    let exp = time("exp")?.ok_or_else(|| VerifyError::Malformed("no exp claim".into()))?;
    if now > exp + leeway {
        return Err(VerifyError::Expired);
    }
    for name in ["nbf", "iat"] {
        if time(name)?.is_some_and(|at| at > now + leeway) {
            return Err(VerifyError::NotYetValid);
        }
    }
    let issuer = claims.get("iss").and_then(Value::as_str);
    if !issuer.is_some_and(|iss| expect.issuers.iter().any(|accepted| accepted == iss)) {
        return Err(VerifyError::Issuer);
    }
    let named = |aud: &str| expect.audiences.iter().any(|accepted| accepted == aud);
    let audience_ok = match claims.get("aud") {
        Some(Value::String(aud)) => named(aud),
        Some(Value::Array(auds)) => auds.iter().filter_map(Value::as_str).any(named),
        _ => false,
    };
    if !audience_ok {
        return Err(VerifyError::Audience);
    }
    Ok(())
}
