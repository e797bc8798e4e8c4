//! One token: its header read before any key is chosen, then its signature and claims checked.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde::de::DeserializeOwned;

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
    // Empty lists would switch the library's issuer check off and refuse every audience:
    // both are refused here, so a forgotten setting fails closed and says why.
    if expect.issuers.is_empty() {
        return Err(VerifyError::Issuer);
    }
    if expect.audiences.is_empty() {
        return Err(VerifyError::Audience);
    }
    let leeway = expect.leeway.as_secs().min(MAX_LEEWAY_SECS);
    let mut validation = Validation::new(header.alg);
    validation.leeway = leeway;
    validation.validate_exp = true;
    validation.validate_nbf = true;
    validation.validate_aud = true;
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.set_issuer(&expect.issuers);
    validation.set_audience(&expect.audiences);

    let mut last = VerifyError::Signature;
    for key in keys {
        match jsonwebtoken::decode::<serde_json::Value>(token, key.decoding(), &validation) {
            Ok(data) => return claims(data.claims, leeway),
            Err(error) => match map_error(error.kind()) {
                // Another key under the same kid may still verify it.
                VerifyError::Signature => last = VerifyError::Signature,
                other => return Err(other),
            },
        }
    }
    Err(last)
}

/// What jsonwebtoken leaves to the caller: `iss` must be one string (it also takes an array),
/// and an `iat` in the future means a token from a skewed or forged clock.
fn claims<C: DeserializeOwned>(claims: serde_json::Value, leeway: u64) -> Result<C, VerifyError> {
    if !claims.get("iss").is_some_and(serde_json::Value::is_string) {
        return Err(VerifyError::Issuer);
    }
    match claims.get("iat") {
        None => {}
        Some(iat) => {
            let iat = iat
                .as_f64()
                .ok_or_else(|| VerifyError::Malformed("iat is not a number".into()))?;
            let now = jsonwebtoken::get_current_timestamp();
            if iat > now.saturating_add(leeway) as f64 {
                return Err(VerifyError::NotYetValid);
            }
        }
    }
    serde_json::from_value(claims)
        .map_err(|e| VerifyError::Malformed(format!("claims do not fit the expected type: {e}")))
}

fn map_error(kind: &ErrorKind) -> VerifyError {
    match kind {
        // A key that does not parse cannot verify anything: as good as a wrong signature.
        ErrorKind::InvalidSignature
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidRsaKey(_)
        | ErrorKind::InvalidKeyFormat
        | ErrorKind::Signing(_)
        | ErrorKind::Provider(_) => VerifyError::Signature,
        ErrorKind::ExpiredSignature => VerifyError::Expired,
        ErrorKind::ImmatureSignature => VerifyError::NotYetValid,
        ErrorKind::InvalidIssuer => VerifyError::Issuer,
        ErrorKind::InvalidAudience => VerifyError::Audience,
        ErrorKind::MissingRequiredClaim(claim) if claim == "iss" => VerifyError::Issuer,
        ErrorKind::MissingRequiredClaim(claim) if claim == "aud" => VerifyError::Audience,
        ErrorKind::InvalidAlgorithm
        | ErrorKind::UnsupportedAlgorithm
        | ErrorKind::MissingAlgorithm => VerifyError::Algorithm("not usable with this key".into()),
        other => VerifyError::Malformed(other_reason(other)),
    }
}

fn other_reason(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::MissingRequiredClaim(claim) => format!("no {claim} claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("{claim} is not a number"),
        other => format!("{other:?}"),
    }
}
