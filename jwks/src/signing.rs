//! The other half: key pairs made for a JWKS and tokens signed with them (better-auth's jwt
//! plugin's algorithms: `EdDSA` on Ed25519 by default, `ES256`, `RS256`). Private keys travel
//! and rest as PKCS#8 DER; signatures are ring's, the tree's one cryptography provider. RSA keys
//! are generated with the `rsa` crate, since ring only loads them.

use std::fmt;
use std::str::FromStr;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RSA_PKCS1_SHA256,
    RsaKeyPair,
};
use serde::Serialize;
use serde_json::{Value, json};

/// RSA keys made here: 2048 bits, what better-auth's `RS256` makes.
const RSA_BITS: usize = 2048;

/// An algorithm this crate signs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigningAlgorithm {
    /// Ed25519 (better-auth's default).
    EdDSA,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// RSASSA-PKCS1-v1_5 with SHA-256, 2048-bit keys.
    RS256,
}

impl SigningAlgorithm {
    /// The JOSE name (`alg`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EdDSA => "EdDSA",
            Self::ES256 => "ES256",
            Self::RS256 => "RS256",
        }
    }
}

impl fmt::Display for SigningAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SigningAlgorithm {
    type Err = SignError;

    fn from_str(name: &str) -> Result<Self, SignError> {
        match name {
            "EdDSA" => Ok(Self::EdDSA),
            "ES256" => Ok(Self::ES256),
            "RS256" => Ok(Self::RS256),
            other => Err(SignError::Algorithm(other.to_string())),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SignError {
    #[error("unsupported signing algorithm {0:?}: expected EdDSA, ES256 or RS256")]
    Algorithm(String),
    #[error("the private key is not a PKCS#8 {0} key")]
    Key(SigningAlgorithm),
    #[error("key generation failed: {0}")]
    Generate(String),
    #[error("signing failed")]
    Sign,
    #[error("claims do not serialize: {0}")]
    Claims(#[from] serde_json::Error),
}

/// A key pair just made: the private key to keep (PKCS#8 DER) and the public one to publish.
pub struct NewKeyPair {
    pub pkcs8: Vec<u8>,
    /// The public JWK with `kid` and `alg` (no `use`, as better-auth publishes it).
    pub public_jwk: Value,
    /// The curve (`Ed25519`, `P-256`), none for RSA.
    pub crv: Option<&'static str>,
}

impl fmt::Debug for NewKeyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewKeyPair")
            .field("public_jwk", &self.public_jwk)
            .finish_non_exhaustive()
    }
}

/// Makes a key pair for `alg` whose JWK carries `kid`. RSA takes a noticeable fraction of a
/// second: call it off the async runtime (`spawn_blocking`).
pub fn generate(alg: SigningAlgorithm, kid: &str) -> Result<NewKeyPair, SignError> {
    let rng = SystemRandom::new();
    let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
    let failed = |e: ring::error::Unspecified| SignError::Generate(e.to_string());
    let (pkcs8, public_jwk, crv) = match alg {
        SigningAlgorithm::EdDSA => {
            let der = Ed25519KeyPair::generate_pkcs8(&rng).map_err(failed)?;
            let pair = Ed25519KeyPair::from_pkcs8(der.as_ref()).map_err(|_| SignError::Key(alg))?;
            let x = b64(pair.public_key().as_ref());
            let jwk = json!({ "alg": "EdDSA", "crv": "Ed25519", "kty": "OKP", "x": x, "kid": kid });
            (der.as_ref().to_vec(), jwk, Some("Ed25519"))
        }
        SigningAlgorithm::ES256 => {
            let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                .map_err(failed)?;
            let pair =
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der.as_ref(), &rng)
                    .map_err(|_| SignError::Key(alg))?;
            // An uncompressed point: 0x04, then x and y of 32 bytes each.
            let point = pair.public_key().as_ref();
            let (x, y) = point[1..].split_at(32);
            let jwk = json!({ "alg": "ES256", "crv": "P-256", "kty": "EC", "x": b64(x), "y": b64(y), "kid": kid });
            (der.as_ref().to_vec(), jwk, Some("P-256"))
        }
        SigningAlgorithm::RS256 => {
            use rsa::pkcs8::EncodePrivateKey;
            use rsa::traits::PublicKeyParts;
            let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, RSA_BITS)
                .map_err(|e| SignError::Generate(e.to_string()))?;
            let der = key
                .to_pkcs8_der()
                .map_err(|e| SignError::Generate(e.to_string()))?;
            let n = b64(&key.n().to_bytes_be());
            let e = b64(&key.e().to_bytes_be());
            let jwk = json!({ "alg": "RS256", "kty": "RSA", "n": n, "e": e, "kid": kid });
            (der.as_bytes().to_vec(), jwk, None)
        }
    };
    Ok(NewKeyPair {
        pkcs8,
        public_jwk,
        crv,
    })
}

enum Pair {
    Ed25519(Ed25519KeyPair),
    Ecdsa(EcdsaKeyPair),
    Rsa(RsaKeyPair),
}

/// Signs tokens with one private key. Build it once per key (parsing PKCS#8 is not free) and
/// share it.
pub struct Signer {
    kid: String,
    alg: SigningAlgorithm,
    pair: Pair,
    /// The encoded header, `{"alg":…,"kid":…}`: the same for every token.
    header: String,
    rng: SystemRandom,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

impl Signer {
    /// A signer for the key `kid` (the record's id, which verifiers look up in the JWKS).
    pub fn from_pkcs8(
        kid: impl Into<String>,
        alg: SigningAlgorithm,
        pkcs8: &[u8],
    ) -> Result<Self, SignError> {
        let rng = SystemRandom::new();
        let wrong = |_| SignError::Key(alg);
        let pair = match alg {
            SigningAlgorithm::EdDSA => {
                Pair::Ed25519(Ed25519KeyPair::from_pkcs8(pkcs8).map_err(wrong)?)
            }
            SigningAlgorithm::ES256 => Pair::Ecdsa(
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &rng)
                    .map_err(wrong)?,
            ),
            SigningAlgorithm::RS256 => Pair::Rsa(RsaKeyPair::from_pkcs8(pkcs8).map_err(wrong)?),
        };
        let kid = kid.into();
        let header = URL_SAFE_NO_PAD.encode(
            serde_json::to_vec(&json!({ "alg": alg.as_str(), "kid": kid }))
                .map_err(SignError::Claims)?,
        );
        Ok(Self {
            kid,
            alg,
            pair,
            header,
            rng,
        })
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub fn algorithm(&self) -> SigningAlgorithm {
        self.alg
    }

    /// A compact JWS of `claims` (the caller sets `iat`, `exp`, `iss`, `aud`, `sub`).
    pub fn sign(&self, claims: &impl Serialize) -> Result<String, SignError> {
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims)?);
        let mut token = String::with_capacity(self.header.len() + payload.len() + 360);
        token.push_str(&self.header);
        token.push('.');
        token.push_str(&payload);
        let signature = match &self.pair {
            Pair::Ed25519(pair) => pair.sign(token.as_bytes()).as_ref().to_vec(),
            Pair::Ecdsa(pair) => pair
                .sign(&self.rng, token.as_bytes())
                .map_err(|_| SignError::Sign)?
                .as_ref()
                .to_vec(),
            Pair::Rsa(pair) => {
                let mut signature = vec![0; pair.public().modulus_len()];
                pair.sign(
                    &RSA_PKCS1_SHA256,
                    &self.rng,
                    token.as_bytes(),
                    &mut signature,
                )
                .map_err(|_| SignError::Sign)?;
                signature
            }
        };
        token.push('.');
        URL_SAFE_NO_PAD.encode_string(signature, &mut token);
        Ok(token)
    }
}
