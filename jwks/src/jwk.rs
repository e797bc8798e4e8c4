//! A JWKS document turned into verification keys, and the choice of key for a token.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD_INDIFFERENT;
use jsonwebtoken::Algorithm;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey, VerificationAlgorithm};
use serde::Deserialize;

/// RSA moduli shorter than this (in bytes) are refused: under 2048 bits is breakable in practice.
const MIN_RSA_MODULUS_BYTES: usize = 256;

/// One usable signature-verification key of the set.
#[derive(Clone)]
pub(crate) struct Key {
    kid: Option<String>,
    /// The JWK's own `alg`, when it names one: the key then verifies that algorithm only.
    alg: Option<Algorithm>,
    kind: Kind,
    public: Public,
}

/// A public key's bytes, as ring takes them.
#[derive(Clone)]
enum Public {
    /// Big-endian modulus (no leading zeros) and exponent.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// An uncompressed SEC1 point, or Ed25519's 32 bytes.
    Raw(Vec<u8>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Rsa,
    P256,
    P384,
    Ed25519,
}

impl Key {
    /// Whether `signature` over `message` verifies with this key under `alg` (ring's
    /// implementations, the tree's one cryptography provider).
    pub(crate) fn verifies(&self, alg: Algorithm, message: &[u8], signature: &[u8]) -> bool {
        let rsa = |params: &'static signature::RsaParameters| match &self.public {
            Public::Rsa { n, e } => RsaPublicKeyComponents { n, e }
                .verify(params, message, signature)
                .is_ok(),
            Public::Raw(_) => false,
        };
        let raw = |algorithm: &'static dyn VerificationAlgorithm| match &self.public {
            Public::Raw(bytes) => UnparsedPublicKey::new(algorithm, bytes)
                .verify(message, signature)
                .is_ok(),
            Public::Rsa { .. } => false,
        };
        if !self.fits(alg) {
            return false;
        }
        match alg {
            Algorithm::RS256 => rsa(&signature::RSA_PKCS1_2048_8192_SHA256),
            Algorithm::RS384 => rsa(&signature::RSA_PKCS1_2048_8192_SHA384),
            Algorithm::RS512 => rsa(&signature::RSA_PKCS1_2048_8192_SHA512),
            Algorithm::PS256 => rsa(&signature::RSA_PSS_2048_8192_SHA256),
            Algorithm::PS384 => rsa(&signature::RSA_PSS_2048_8192_SHA384),
            Algorithm::PS512 => rsa(&signature::RSA_PSS_2048_8192_SHA512),
            Algorithm::ES256 => raw(&signature::ECDSA_P256_SHA256_FIXED),
            Algorithm::ES384 => raw(&signature::ECDSA_P384_SHA384_FIXED),
            Algorithm::EdDSA => raw(&signature::ED25519),
            _ => false,
        }
    }

    /// Whether this key may verify a token signed with `alg`: the key type and curve must fit,
    /// and a key that names its own algorithm is used for that one only.
    fn fits(&self, alg: Algorithm) -> bool {
        if self.alg.is_some_and(|own| own != alg) {
            return false;
        }
        matches!(
            (self.kind, alg),
            (
                Kind::Rsa,
                Algorithm::RS256
                    | Algorithm::RS384
                    | Algorithm::RS512
                    | Algorithm::PS256
                    | Algorithm::PS384
                    | Algorithm::PS512
            ) | (Kind::P256, Algorithm::ES256)
                | (Kind::P384, Algorithm::ES384)
                | (Kind::Ed25519, Algorithm::EdDSA)
        )
    }
}

/// What the set offers for one token.
pub(crate) enum Choice<'a> {
    /// The keys to try, in order (more than one only when several keys share the kid).
    Keys(Vec<&'a Key>),
    /// The kid is not in the set (or, without a kid, no key fits the algorithm): a newer set
    /// may have it.
    Missing,
    /// The set has the kid but no key under it fits the algorithm, or a token without a kid
    /// fits several keys: a newer set would not change that.
    Unusable,
}

/// Picks the keys for a token's `kid` and `alg`.
pub(crate) fn choose<'a>(keys: &'a [Key], kid: Option<&str>, alg: Algorithm) -> Choice<'a> {
    match kid {
        Some(kid) => {
            let named: Vec<&Key> = keys
                .iter()
                .filter(|k| k.kid.as_deref() == Some(kid))
                .collect();
            if named.is_empty() {
                return Choice::Missing;
            }
            let fitting: Vec<&Key> = named.into_iter().filter(|k| k.fits(alg)).collect();
            if fitting.is_empty() {
                Choice::Unusable
            } else {
                Choice::Keys(fitting)
            }
        }
        // Without a kid, guessing among several keys would let a token pick its key; only an
        // unambiguous set is used.
        None => {
            let fitting: Vec<&Key> = keys.iter().filter(|k| k.fits(alg)).collect();
            match fitting.len() {
                0 => Choice::Missing,
                1 => Choice::Keys(fitting),
                _ => Choice::Unusable,
            }
        }
    }
}

#[derive(Deserialize)]
struct Document {
    keys: Vec<serde_json::Value>,
}

/// The members of a JWK this crate reads; the rest is ignored.
#[derive(Deserialize)]
struct Jwk {
    kty: String,
    kid: Option<String>,
    #[serde(rename = "use")]
    use_: Option<String>,
    key_ops: Option<Vec<String>>,
    alg: Option<String>,
    crv: Option<String>,
    x: Option<String>,
    y: Option<String>,
    n: Option<String>,
    e: Option<String>,
}

/// Parses a JWKS document. Keys this crate cannot or must not use (encryption keys, symmetric
/// keys, unknown types or curves, weak RSA) are skipped with a log line rather than failing the
/// set, so one odd key at the provider does not stop every sign-in.
pub(crate) fn parse_set(body: &[u8]) -> Result<Vec<Key>, String> {
    let document: Document =
        serde_json::from_slice(body).map_err(|e| format!("not a JWKS document: {e}"))?;
    let mut keys = Vec::with_capacity(document.keys.len());
    for value in document.keys {
        let jwk: Jwk = match serde_json::from_value(value) {
            Ok(jwk) => jwk,
            Err(e) => {
                tracing::warn!(error = %e, "JWKS: skipping an unreadable key");
                continue;
            }
        };
        let kid = jwk.kid.clone();
        match key_from_jwk(jwk) {
            Ok(key) => keys.push(key),
            Err(reason) => tracing::debug!(?kid, reason, "JWKS: skipping a key"),
        }
    }
    Ok(keys)
}

fn key_from_jwk(jwk: Jwk) -> Result<Key, &'static str> {
    if jwk.use_.as_deref().is_some_and(|u| u != "sig") {
        return Err("not a signature key (use)");
    }
    if jwk
        .key_ops
        .as_ref()
        .is_some_and(|ops| !ops.iter().any(|op| op == "verify"))
    {
        return Err("not a verification key (key_ops)");
    }
    let alg = match jwk.alg.as_deref() {
        None => None,
        Some(name) => Some(name.parse::<Algorithm>().map_err(|_| "unsupported alg")?),
    };
    if alg.is_some_and(|a| matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)) {
        return Err("symmetric alg");
    }
    let (kind, public) = match (jwk.kty.as_str(), jwk.crv.as_deref()) {
        ("RSA", _) => {
            let n = decode(jwk.n.as_deref())?;
            let e = decode(jwk.e.as_deref())?;
            let n: Vec<u8> = n.into_iter().skip_while(|b| *b == 0).collect();
            if n.len() < MIN_RSA_MODULUS_BYTES {
                return Err("RSA modulus under 2048 bits");
            }
            (Kind::Rsa, Public::Rsa { n, e })
        }
        ("EC", Some("P-256")) => (Kind::P256, ec_point(&jwk, 32)?),
        ("EC", Some("P-384")) => (Kind::P384, ec_point(&jwk, 48)?),
        ("OKP", Some("Ed25519")) => {
            let x = decode(jwk.x.as_deref())?;
            if x.len() != 32 {
                return Err("Ed25519 x is not 32 bytes");
            }
            (Kind::Ed25519, Public::Raw(x))
        }
        // "oct" keys are never used: a shared secret published in a JWKS is no secret, and
        // accepting it would let anyone mint HS256 tokens.
        _ => return Err("unsupported key type or curve"),
    };
    Ok(Key {
        kid: jwk.kid,
        alg,
        kind,
        public,
    })
}

/// An uncompressed SEC1 point from a JWK's x and y, each `len` bytes.
fn ec_point(jwk: &Jwk, len: usize) -> Result<Public, &'static str> {
    let x = decode(jwk.x.as_deref())?;
    let y = decode(jwk.y.as_deref())?;
    if x.len() != len || y.len() != len {
        return Err("EC coordinates of the wrong length");
    }
    let mut point = Vec::with_capacity(1 + 2 * len);
    point.push(0x04);
    point.extend_from_slice(&x);
    point.extend_from_slice(&y);
    Ok(Public::Raw(point))
}

/// base64url, with padding tolerated: some providers pad their JWK members.
fn decode(member: Option<&str>) -> Result<Vec<u8>, &'static str> {
    let member = member.ok_or("a key member is missing")?;
    URL_SAFE_NO_PAD_INDIFFERENT
        .decode(member)
        .map_err(|_| "a key member is not base64url")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    fn kinds(body: serde_json::Value) -> Vec<Kind> {
        let keys = parse_set(body.to_string().as_bytes()).expect("a JWKS");
        keys.iter().map(|k| k.kind).collect()
    }

    #[test]
    fn unusable_keys_are_skipped_without_failing_the_set() {
        let ed = serde_json::json!({ "kty": "OKP", "crv": "Ed25519", "x": b64(&[7; 32]) });
        let body = serde_json::json!({ "keys": [
            { "kty": "oct", "k": b64(b"secret") },
            { "kty": "RSA", "n": b64(&[0xff; 128]), "e": "AQAB" },
            // Short: never a key.
            { "kty": "OKP", "crv": "Ed25519", "x": b64(&[7; 16]) },
            { "kty": "OKP", "crv": "X25519", "x": b64(&[7; 32]) },
            { "kty": "EC", "crv": "P-256", "x": b64(&[1; 32]), "y": b64(&[1; 31]) },
            { "kty": "EC", "crv": "P-521", "x": b64(&[1; 66]), "y": b64(&[1; 66]) },
            { "kty": "RSA", "n": b64(&[0xff; 256]), "e": "AQAB", "alg": "RSA-OAEP" },
            { "kty": "OKP", "crv": "Ed25519", "x": b64(&[7; 32]), "key_ops": ["encrypt"] },
            { "kid": "no kty" },
            ed,
        ]});
        assert_eq!(kinds(body), vec![Kind::Ed25519]);
    }

    #[test]
    fn padded_members_and_leading_zeros_are_tolerated() {
        let mut n = vec![0u8];
        n.extend_from_slice(&[0xff; 256]);
        let padded = base64::engine::general_purpose::URL_SAFE.encode([7u8; 32]);
        let body = serde_json::json!({ "keys": [
            { "kty": "RSA", "n": b64(&n), "e": "AQAB" },
            { "kty": "OKP", "crv": "Ed25519", "x": padded },
        ]});
        assert_eq!(kinds(body), vec![Kind::Rsa, Kind::Ed25519]);
    }

    #[test]
    fn a_document_that_is_not_a_jwks_is_an_error() {
        assert!(parse_set(b"<html>").is_err());
        assert!(parse_set(br#"{"keys": {}}"#).is_err());
        assert!(parse_set(br#"{"keys": []}"#).is_ok_and(|keys| keys.is_empty()));
    }
}
