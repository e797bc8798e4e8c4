//! Users' signed tokens, made here: the session service keeps the key pairs and says which one
//! signs now (`TokenService.GetSigningKeys`); the gateway keeps that key until the service's
//! `refresh_at`, so a token costs a signature, not a call. The key set comes in the same answer,
//! so `/jwks` never lags behind the key that signs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use gatehouse_jwks::{Signer, SigningAlgorithm};
use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::sealing::SealingKey;
use gatehouse_proto::session::v1 as pb;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::clients::Clients;
use crate::config::TokenSettings;
use crate::error::ApiError;

/// What the session service seals the private key to (its `token::grpc::SEALING_CONTEXT`).
const SEALING_CONTEXT: &str = "session.v1.SigningKey.sealed_private_key";
/// After a failed refresh, the key in hand keeps signing and the next attempt waits this long:
/// a session service restart must not stop get-session.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(5);

struct Keys {
    signer: Arc<Signer>,
    key_set_json: Arc<str>,
    /// When to ask the session service again (this process's clock: the service answers how
    /// long, not until when).
    refresh_at: Instant,
    /// When the key stops signing: past it, a key in hand is no longer used.
    signs_until: Instant,
}

/// The current signing key and key set, shared by every request.
pub struct TokenSigner {
    settings: TokenSettings,
    sealing: SealingKey,
    keys: Mutex<Option<Arc<Keys>>>,
    refreshing: tokio::sync::Mutex<()>,
    recent: Recent,
}

impl TokenSigner {
    pub fn new(settings: TokenSettings, sealing: SealingKey) -> Self {
        Self {
            settings,
            sealing,
            keys: Mutex::new(None),
            refreshing: tokio::sync::Mutex::new(()),
            recent: Recent::default(),
        }
    }

    fn held(&self) -> Option<Arc<Keys>> {
        self.keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn hold(&self, keys: Keys) -> Arc<Keys> {
        let keys = Arc::new(keys);
        *self.keys.lock().unwrap_or_else(PoisonError::into_inner) = Some(keys.clone());
        keys
    }

    /// The keys to sign with: those in hand until they are due, then the session service's.
    /// While one request asks, the others sign on with the key in hand (as long as it signs);
    /// a failed ask keeps it too, retried every few seconds.
    async fn keys(&self, clients: &Clients) -> Result<Arc<Keys>, ApiError> {
        let held = self.held();
        if let Some(keys) = &held
            && Instant::now() < keys.refresh_at
        {
            return Ok(keys.clone());
        }
        let _one_at_a_time = match (&held, self.refreshing.try_lock()) {
            (_, Ok(guard)) => guard,
            (Some(keys), Err(_)) if Instant::now() < keys.signs_until => return Ok(keys.clone()),
            (_, Err(_)) => self.refreshing.lock().await,
        };
        if let Some(keys) = self.held()
            && Instant::now() < keys.refresh_at
        {
            return Ok(keys);
        }
        match self.fetch(clients).await {
            Ok(keys) => Ok(self.hold(keys)),
            Err(error) => match self.held() {
                Some(stale) if Instant::now() < stale.signs_until => {
                    tracing::warn!(
                        ?error,
                        "signing keys could not be refreshed: the key in hand signs on"
                    );
                    Ok(self.hold(Keys {
                        signer: stale.signer.clone(),
                        key_set_json: stale.key_set_json.clone(),
                        refresh_at: Instant::now() + RETRY_AFTER_FAILURE,
                        signs_until: stale.signs_until,
                    }))
                }
                _ => Err(error),
            },
        }
    }

    async fn fetch(&self, clients: &Clients) -> Result<Keys, ApiError> {
        let asked = Instant::now();
        let answer = clients
            .tokens
            .clone()
            .get_signing_keys(pb::GetSigningKeysRequest {})
            .await?
            .into_inner();
        let current = answer.current.ok_or_else(|| unusable("no current key"))?;
        let alg: SigningAlgorithm = current.alg.parse().map_err(unusable)?;
        let pkcs8 = self
            .sealing
            .open(SEALING_CONTEXT, &current.sealed_private_key)
            .map_err(unusable)?;
        let signer = Signer::from_pkcs8(current.id, alg, &pkcs8).map_err(unusable)?;
        let after = |ms: i64| asked + Duration::from_millis(ms.max(0).unsigned_abs());
        Ok(Keys {
            signer: Arc::new(signer),
            key_set_json: answer.key_set_json.into(),
            refresh_at: after(answer.refresh_in_ms),
            signs_until: after(current.signs_for_ms),
        })
    }

    /// The JWKS document.
    pub async fn key_set(&self, clients: &Clients) -> Result<Arc<str>, ApiError> {
        Ok(self.keys(clients).await?.key_set_json.clone())
    }

    /// A token for `user` (its wire JSON object): better-auth's claims, the user's fields plus
    /// `sub`, `iat`, `exp`, `iss` and `aud`. A token made for the same user, with the same
    /// fields and key, in the last [`REUSE_FOR_SECS`] seconds is answered again: a burst of get-sessions
    /// costs one signature, and it is the token better-auth would make, but for an `iat` (and
    /// `exp`) up to that much older.
    pub async fn sign(&self, clients: &Clients, user: &impl Serialize) -> Result<String, ApiError> {
        let keys = self.keys(clients).await?;
        let user = serde_json::to_vec(user).map_err(unusable)?;
        let now = gatehouse_kit::ids::now().timestamp();
        let fingerprint: [u8; 32] = Sha256::new()
            .chain_update(keys.signer.kid().as_bytes())
            .chain_update([0])
            .chain_update(&user)
            .finalize()
            .into();
        if let Some(token) = self.recent.reusable(&fingerprint, now) {
            return Ok(token);
        }
        let Ok(Value::Object(mut claims)) = serde_json::from_slice::<Value>(&user) else {
            return Err(unusable("the user is not a JSON object").into());
        };
        let subject = claims.get("id").cloned().unwrap_or(Value::Null);
        let mut registered = Map::new();
        registered.insert("iat".into(), now.into());
        registered.insert("sub".into(), subject);
        registered.insert(
            "exp".into(),
            (now + self.settings.expires_in.as_secs() as i64).into(),
        );
        registered.insert("iss".into(), self.settings.issuer.clone().into());
        registered.insert("aud".into(), self.settings.issuer.clone().into());
        claims.extend(registered);
        let token = keys.signer.sign(&claims).map_err(unusable)?;
        self.recent.keep(fingerprint, &token, now);
        Ok(token)
    }
}

/// How long a token is answered again for the same user and key.
pub const REUSE_FOR_SECS: i64 = 30;
/// The most tokens kept for reuse (about 1 KiB each).
const REUSE_CAPACITY: usize = 4096;

/// A token made recently, and when (Unix seconds).
type Made = (Arc<str>, i64);

/// Recently made tokens by fingerprint (SHA-256 of the key id and the user's fields).
#[derive(Default)]
struct Recent(Mutex<HashMap<[u8; 32], Made>>);

impl Recent {
    fn reusable(&self, fingerprint: &[u8; 32], now: i64) -> Option<String> {
        let recent = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (token, signed_at) = recent.get(fingerprint)?;
        (now - signed_at < REUSE_FOR_SECS).then(|| token.to_string())
    }

    fn keep(&self, fingerprint: [u8; 32], token: &str, now: i64) {
        let mut recent = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if recent.len() >= REUSE_CAPACITY {
            recent.retain(|_, (_, signed_at)| now - *signed_at < REUSE_FOR_SECS);
            if recent.len() >= REUSE_CAPACITY {
                recent.clear();
            }
        }
        recent.insert(fingerprint, (token.into(), now));
    }
}

fn unusable(reason: impl std::fmt::Display) -> Failure {
    tracing::error!(%reason, "the session service's signing key is unusable");
    base::INTERNAL_SERVER_ERROR.into()
}
