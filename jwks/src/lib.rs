//! JWTs for a JWKS: verification against a JWKS URL ([`KeySet`]) or a set held in hand
//! ([`KnownKeys`]), and signing with key pairs made for one ([`signing`]).
//!
//! A [`KeySet`] stands for one JWKS URL (an OpenID provider's `jwks_uri`, or a Gatehouse
//! service's own keys). It fetches the set on first use and keeps it; a token whose `kid` is
//! not in the set causes one refetch (shared by all concurrent callers, and at most one per
//! [`Settings::min_refetch_interval`]), which is how key rotation is picked up. Once the set is
//! older than [`Settings::max_age`] it is refreshed in the background while the cached keys go
//! on serving, so a slow or dead JWKS endpoint never delays a token whose key is known.
//!
//! [`KeySet::verify`] checks the signature (`RS256`, `ES256` and `EdDSA` by default; HMAC and
//! `none` never), `exp`, `nbf` and `iat` with a leeway, the issuer and the audience, and
//! returns the claims as the caller's type. Keys are taken only from the configured URL: the
//! token's own `jku`, `jwk` and `x5u` headers are ignored.
//!
//! # Use
//!
//! Build one `KeySet` per JWKS URL at start-up and share it (it is a cheap `Clone`); building
//! one per request would fetch the set every time. It needs a Tokio runtime, and the process
//! must have installed a rustls crypto provider before the `reqwest::Client` is built.
//!
//! ```no_run
//! use gatehouse_jwks::{Expectations, KeySet, Settings, VerifyError};
//!
//! #[derive(serde::Deserialize)]
//! struct Claims {
//!     sub: String,
//! }
//!
//! # async fn run(http: reqwest::Client, token: &str) -> Result<(), Box<dyn std::error::Error>> {
//! let keys = KeySet::new(
//!     "https://id.example.com/jwks".parse()?,
//!     http,
//!     Settings::default(),
//! );
//! let expect = Expectations::new("https://id.example.com", "my-client-id");
//!
//! match keys.verify::<Claims>(token, &expect).await {
//!     Ok(claims) => println!("signed in: {}", claims.sub),
//!     // The provider could not be reached: a 503, not the caller's fault.
//!     Err(VerifyError::KeySetUnavailable(reason)) => eprintln!("retry later: {reason}"),
//!     // Everything else: the token is refused (a 401).
//!     Err(refused) => eprintln!("refused: {refused}"),
//! }
//! # Ok(())
//! # }
//! ```

mod cache;
mod jwk;
pub mod signing;
mod token;

use std::sync::Arc;
use std::time::Duration;

pub use jsonwebtoken::Algorithm;
use serde::de::DeserializeOwned;

use crate::cache::{Cache, Fresh};
use crate::jwk::Choice;

pub use signing::{NewKeyPair, SignError, Signer, SigningAlgorithm};

/// How the key set is fetched and kept.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The longest one JWKS fetch may take (connect to last byte); also the longest a caller
    /// waits for keys. Default 5 s.
    pub fetch_timeout: Duration,
    /// A token with an unknown `kid` refetches the set at most this often; within the interval
    /// it is refused at once, so a flood of made-up kids cannot hammer the provider. Failed
    /// fetches are retried at this pace too. Default 5 s.
    pub min_refetch_interval: Duration,
    /// Past this age the set is refreshed in the background, the cached keys still serving
    /// meanwhile (and for as long as the endpoint fails). Default 1 h.
    pub max_age: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            fetch_timeout: Duration::from_secs(5),
            min_refetch_interval: Duration::from_secs(5),
            max_age: Duration::from_secs(60 * 60),
        }
    }
}

/// What a token must say to be accepted.
#[derive(Debug, Clone)]
pub struct Expectations {
    /// Accepted `iss` values (exact match). Empty refuses every token.
    pub issuers: Vec<String>,
    /// Accepted audiences: the token's `aud` (a string or an array) must contain one of them.
    /// Empty refuses every token.
    pub audiences: Vec<String>,
    /// Accepted `alg` values. Default `RS256`, `ES256`, `EdDSA`. `HS*` and `none` are refused
    /// even if listed.
    pub algorithms: Vec<Algorithm>,
    /// Clock skew allowed on `exp`, `nbf` and `iat` (whole seconds, at most a day). Default 60 s.
    pub leeway: Duration,
}

impl Expectations {
    /// One issuer and one audience (for an id token, the OAuth client id), default algorithms
    /// and leeway. The fields are public for more issuers or audiences.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuers: vec![issuer.into()],
            audiences: vec![audience.into()],
            algorithms: vec![Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA],
            leeway: Duration::from_secs(60),
        }
    }
}

/// Why a token was not accepted. Every variant but [`VerifyError::KeySetUnavailable`] means the
/// token itself is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// Not a JWT, or its header or claims do not parse (or do not fit the claims type).
    #[error("malformed token: {0}")]
    Malformed(String),
    /// No key of the set has the token's `kid` and fits its algorithm (even after a refetch, or
    /// a refetch was not allowed yet); or a token without `kid` fits several keys.
    #[error("no key of the set can verify this token")]
    UnknownKey,
    /// The signature does not verify.
    #[error("bad signature")]
    Signature,
    /// `exp` is past (beyond the leeway).
    #[error("token expired")]
    Expired,
    /// `nbf` or `iat` is in the future (beyond the leeway).
    #[error("token not yet valid")]
    NotYetValid,
    /// `iss` is missing, not a string, or not an accepted issuer.
    #[error("issuer not accepted")]
    Issuer,
    /// `aud` is missing or names none of the accepted audiences.
    #[error("audience not accepted")]
    Audience,
    /// The token's `alg` is not accepted (or not one this crate verifies).
    #[error("algorithm not accepted: {0}")]
    Algorithm(String),
    /// The key set could not be fetched (timeout, network, HTTP status, bad document) and no
    /// cached key could serve: the token was not judged. Retryable.
    #[error("key set unavailable: {0}")]
    KeySetUnavailable(String),
}

/// The keys of one JWKS URL, cached. Cloning shares the cache.
#[derive(Clone)]
pub struct KeySet {
    cache: Arc<Cache>,
}

impl std::fmt::Debug for KeySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeySet")
            .field("url", self.cache.url())
            .finish_non_exhaustive()
    }
}

impl KeySet {
    /// A key set for `jwks_url`, fetched with `http` on first use (nothing is fetched here).
    pub fn new(jwks_url: url::Url, http: reqwest::Client, settings: Settings) -> Self {
        Self {
            cache: Arc::new(Cache::new(jwks_url, http, settings)),
        }
    }

    /// Verifies `token` and returns its claims.
    ///
    /// The key is the one named by the header's `kid`; a token without `kid` is tried against
    /// the one key whose type and `alg` fit, if the set holds exactly one. Keys marked
    /// `use: "enc"`, or whose own `alg` differs from the token's, are never used. Then the
    /// signature, `exp`, `nbf`, `iat` (with [`Expectations::leeway`]), `iss` and `aud` are
    /// checked.
    pub async fn verify<C: DeserializeOwned>(
        &self,
        token: &str,
        expect: &Expectations,
    ) -> Result<C, VerifyError> {
        let header = token::header(token, expect)?;
        let kid = header.kid.as_deref();

        let snapshot = match self.cache.cached() {
            Some(snapshot) => snapshot,
            None => match self.cache.fresher(None).await {
                Fresh::Keys(snapshot) => snapshot,
                Fresh::TooSoon(error) => {
                    return Err(VerifyError::KeySetUnavailable(
                        error.unwrap_or_else(|| "no key set fetched yet".into()),
                    ));
                }
                Fresh::Unavailable(error) => return Err(VerifyError::KeySetUnavailable(error)),
            },
        };
        match jwk::choose(&snapshot.keys, kid, header.alg) {
            Choice::Keys(keys) => return token::check(token, &header, &keys, expect),
            Choice::Unusable => return Err(VerifyError::UnknownKey),
            Choice::Missing => {}
        }

        // Unknown kid: the provider may have rotated its keys since the set was fetched.
        let snapshot = match self.cache.fresher(Some(snapshot.generation)).await {
            Fresh::Keys(snapshot) => snapshot,
            Fresh::TooSoon(_) => return Err(VerifyError::UnknownKey),
            Fresh::Unavailable(error) => return Err(VerifyError::KeySetUnavailable(error)),
        };
        match jwk::choose(&snapshot.keys, kid, header.alg) {
            Choice::Keys(keys) => token::check(token, &header, &keys, expect),
            Choice::Unusable | Choice::Missing => Err(VerifyError::UnknownKey),
        }
    }
}

/// Keys known in advance rather than fetched: a service checking tokens against a key set it
/// holds itself (the session service's own keys). Cloning shares the keys.
#[derive(Clone)]
pub struct KnownKeys {
    keys: Arc<Vec<jwk::Key>>,
}

impl std::fmt::Debug for KnownKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnownKeys")
            .field("keys", &self.keys.len())
            .finish()
    }
}

impl KnownKeys {
    /// The usable keys of a JWKS document (`{"keys": [...]}`), unusable ones skipped as
    /// [`KeySet`] skips them.
    pub fn from_document(document: &[u8]) -> Result<Self, VerifyError> {
        let keys = jwk::parse_set(document).map_err(VerifyError::Malformed)?;
        Ok(Self {
            keys: Arc::new(keys),
        })
    }

    /// Checks `token` as [`KeySet::verify`] does, against these keys only.
    pub fn verify<C: DeserializeOwned>(
        &self,
        token: &str,
        expect: &Expectations,
    ) -> Result<C, VerifyError> {
        let header = token::header(token, expect)?;
        match jwk::choose(&self.keys, header.kid.as_deref(), header.alg) {
            Choice::Keys(keys) => token::check(token, &header, &keys, expect),
            Choice::Unusable | Choice::Missing => Err(VerifyError::UnknownKey),
        }
    }
}
