//! The `token` capability (`gatehouse.session.v1.TokenService`): the key pairs that sign users'
//! tokens (better-auth's jwt plugin). The gateway signs with the current key; the key set
//! publishes every key whose tokens may still be met.
//!
//! Rotation: a key signs for `JWT_ROTATION_INTERVAL`, then the next generation takes over and
//! the old key stays published for `JWT_GRACE_PERIOD`. Generations are unique in the table, so
//! replicas (and restarts) that find the current key due at the same moment insert one key
//! between them and all sign with it. Private keys are encrypted with a key derived from the
//! auth secret and say which version of it they were written with: rotating the secret leaves
//! them readable. A record no configured secret opens (the secret was replaced outright) keeps
//! its public half published and is simply succeeded by a new key.

pub mod grpc;
pub mod store;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_jwks::{Expectations, KnownKeys, SigningAlgorithm, VerifyError};
use gatehouse_kit::auth_secret::Vault;
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::base;
use gatehouse_kit::ids;
use serde_json::Value;

use crate::config::TokenSettings;
use crate::error::SessionError;
use store::KeyRecord;

/// What the vault binds private keys to: opened under another column, they do not open.
pub const VAULT_PURPOSE: &str = "signing keys";
const PRIVATE_KEY_CONTEXT: &str = "signing_keys.private_key";
/// How long a replica signs with the key it read before reading the table again: another
/// replica's newer key is picked up within this.
const RELOAD_EVERY: Duration = Duration::from_secs(60);
/// Mint attempts when generations keep being taken (by replicas minting at once).
const MINT_ATTEMPTS: usize = 3;

/// The signing key in use.
#[derive(Clone)]
pub struct CurrentKey {
    pub id: String,
    pub alg: SigningAlgorithm,
    pub pkcs8: Arc<[u8]>,
    pub expires_at: DateTime<Utc>,
}

impl std::fmt::Debug for CurrentKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CurrentKey")
            .field("id", &self.id)
            .field("alg", &self.alg)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// The keys as last read from the table.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub current: CurrentKey,
    /// The JWKS document.
    pub key_set_json: Arc<str>,
    known: KnownKeys,
    /// When to read the table again.
    pub refresh_at: DateTime<Utc>,
}

/// The service's key pairs. Cloning shares them.
#[derive(Clone)]
pub struct SigningKeys {
    db: Db,
    vault: Vault,
    settings: TokenSettings,
    loaded: Arc<Mutex<Option<Arc<Loaded>>>>,
    /// One reload (and mint) at a time in this process.
    reloading: Arc<tokio::sync::Mutex<()>>,
}

impl SigningKeys {
    pub fn new(db: Db, vault: Vault, settings: TokenSettings) -> Self {
        Self {
            db,
            vault,
            settings,
            loaded: Arc::default(),
            reloading: Arc::default(),
        }
    }

    pub fn settings(&self) -> &TokenSettings {
        &self.settings
    }

    fn cached(&self, now: DateTime<Utc>) -> Option<Arc<Loaded>> {
        let loaded = self
            .loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        (now < loaded.refresh_at).then_some(loaded)
    }

    /// The current key and the key set, read again when due; the first key, or the next one,
    /// minted when none fits.
    pub async fn load(&self) -> Result<Arc<Loaded>, SessionError> {
        if let Some(loaded) = self.cached(ids::now()) {
            return Ok(loaded);
        }
        let _one_at_a_time = self.reloading.lock().await;
        if let Some(loaded) = self.cached(ids::now()) {
            return Ok(loaded);
        }
        let loaded = Arc::new(self.read_or_mint().await?);
        *self.loaded.lock().unwrap_or_else(PoisonError::into_inner) = Some(loaded.clone());
        Ok(loaded)
    }

    async fn read_or_mint(&self) -> Result<Loaded, SessionError> {
        for _ in 0..MINT_ATTEMPTS {
            let now = ids::now();
            let records = store::all(&self.db).await?;
            if let Some(current) = self.usable_current(&records, now) {
                return self.loaded_from(current, &records, now);
            }
            let generation = records.first().map_or(1, |newest| newest.generation + 1);
            let record = self.mint(generation, now).await?;
            match store::insert(&self.db, &record).await {
                Ok(()) => {
                    tracing::info!(kid = %record.id, alg = %record.alg, generation, "minted a signing key");
                    let past_grace = now.checked_sub_signed(self.grace()).unwrap_or(now);
                    let swept = store::delete_expired(&self.db, past_grace).await?;
                    if swept > 0 {
                        tracing::info!(
                            count = swept,
                            "deleted signing keys past their grace period"
                        );
                    }
                }
                // Another replica minted this generation: read its key.
                Err(error) if store::is_taken(&error) => continue,
                Err(error) => return Err(error.into()),
            }
        }
        Err(SessionError::internal(
            "signing key rotation",
            base::FAILED_TO_GET_SESSION,
            "the next generation kept being taken",
        ))
    }

    /// The newest record that still signs, is of the configured algorithm and opens with the
    /// configured secrets. A newer one this replica cannot open (another secret: a rollout, or
    /// replicas without AUTH_SECRET) is passed over rather than succeeded, so replicas that
    /// disagree do not mint keys against each other.
    fn usable_current(&self, records: &[KeyRecord], now: DateTime<Utc>) -> Option<CurrentKey> {
        records
            .iter()
            .filter(|r| r.expires_at > now && r.alg == self.settings.algorithm.as_str())
            .find_map(|record| {
                let opened = self
                    .vault
                    .decrypt(PRIVATE_KEY_CONTEXT, &record.private_key)
                    .map_err(|e| e.to_string())
                    .and_then(|encoded| STANDARD.decode(encoded).map_err(|e| e.to_string()));
                match opened {
                    Ok(pkcs8) => Some(CurrentKey {
                        id: record.id.clone(),
                        alg: self.settings.algorithm,
                        pkcs8: pkcs8.into(),
                        expires_at: record.expires_at,
                    }),
                    Err(error) => {
                        tracing::error!(kid = %record.id, %error, "a signing key does not open with the configured auth secrets: passed over");
                        None
                    }
                }
            })
    }

    fn loaded_from(
        &self,
        current: CurrentKey,
        records: &[KeyRecord],
        now: DateTime<Utc>,
    ) -> Result<Loaded, SessionError> {
        let grace = self.grace();
        // Oldest first, as better-auth lists them.
        let published: Vec<Value> = records
            .iter()
            .rev()
            .filter(|record| later(record.expires_at, grace) > now)
            .filter_map(|record| serde_json::from_str(&record.public_key).ok())
            .collect();
        let key_set_json: Arc<str> = serde_json::json!({ "keys": published }).to_string().into();
        let known = KnownKeys::from_document(key_set_json.as_bytes()).map_err(|e| {
            SessionError::internal("signing key set", base::FAILED_TO_GET_SESSION, e)
        })?;
        let reload = delta(RELOAD_EVERY);
        Ok(Loaded {
            refresh_at: later(now, reload).min(current.expires_at),
            current,
            key_set_json,
            known,
        })
    }

    /// A new key pair as a record of `generation` (RSA generation runs off the runtime).
    async fn mint(&self, generation: i64, now: DateTime<Utc>) -> Result<KeyRecord, SessionError> {
        let alg = self.settings.algorithm;
        let id = ids::new_id();
        let kid = id.clone();
        let pair =
            tokio::task::spawn_blocking(move || gatehouse_jwks::signing::generate(alg, &kid))
                .await
                .map_err(|e| {
                    SessionError::internal("signing key generation", base::FAILED_TO_GET_SESSION, e)
                })?
                .map_err(|e| {
                    SessionError::internal("signing key generation", base::FAILED_TO_GET_SESSION, e)
                })?;
        let rotation = delta(self.settings.rotation_interval);
        Ok(KeyRecord {
            id,
            public_key: pair.public_jwk.to_string(),
            private_key: self
                .vault
                .encrypt(PRIVATE_KEY_CONTEXT, &STANDARD.encode(&pair.pkcs8)),
            alg: alg.as_str().to_string(),
            crv: pair.crv.map(str::to_string),
            created_at: now,
            expires_at: later(now, rotation),
            generation,
        })
    }

    fn grace(&self) -> TimeDelta {
        delta(self.settings.grace_period)
    }

    /// The claims of a token this deployment signed, else `INVALID_TOKEN` saying why.
    pub async fn verify(&self, token: &str) -> Result<Value, SessionError> {
        let loaded = self.load().await?;
        let issuer = self.settings.issuer.clone();
        let expect = Expectations::new(issuer.clone(), issuer);
        loaded
            .known
            .verify::<Value>(token, &expect)
            .map_err(|error: VerifyError| {
                base::INVALID_TOKEN.with_message(error.to_string()).into()
            })
    }
}

/// A configured duration as chrono's (a century at most: the settings are days).
fn delta(duration: Duration) -> TimeDelta {
    TimeDelta::from_std(duration)
        .unwrap_or(TimeDelta::MAX)
        .min(TimeDelta::days(36_500))
}

/// `at` plus `delta`, saturating.
fn later(at: DateTime<Utc>, delta: TimeDelta) -> DateTime<Utc> {
    at.checked_add_signed(delta)
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}
