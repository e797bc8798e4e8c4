//! The deployment's auth secret, and the keys it gives for secrets kept at rest (a provider's
//! tokens, later signing keys and second factors): whoever reads a database dump must not
//! read them too.
//!
//! The secret is versioned so that it can be rotated without losing what it protects:
//! `AUTH_SECRET` alone is version 1; `AUTH_SECRETS="2:<new>,1:<old>"` (better-auth's
//! `BETTER_AUTH_SECRETS` form) names every version still in use, the first being current.
//! Values are encrypted with the current version's key and say which version they were
//! written with, so rows written before a rotation still open; they move to the new key when
//! next written. Values that were never encrypted (imported from better-auth) read as they are.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use secrecy::{ExposeSecret, SecretString};

use crate::config::{ConfigError, Env};
use crate::sealing::SealingKey;

/// The variable of a single secret (or `AUTH_SECRET_FILE`), version 1.
pub const VAR: &str = "AUTH_SECRET";
/// The variable of a rotation list (or `AUTH_SECRETS_FILE`).
pub const ROTATION_VAR: &str = "AUTH_SECRETS";
const MIN_LENGTH: usize = 32;
/// What an encrypted value starts with: `$gh$<version>$<base64url>`.
const PREFIX: &str = "$gh$";

/// Every version of the auth secret still in use, the current one first.
#[derive(Clone)]
pub struct AuthSecrets {
    /// Never empty; the first is current.
    versions: Vec<(u32, SecretString)>,
}

impl fmt::Debug for AuthSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let versions: Vec<u32> = self.versions.iter().map(|(v, _)| *v).collect();
        write!(f, "AuthSecrets(versions {versions:?}, [REDACTED])")
    }
}

fn invalid(name: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        name: name.into(),
        value: "<redacted>".into(),
        reason: reason.into(),
    }
}

impl AuthSecrets {
    /// `AUTH_SECRETS` when set, else `AUTH_SECRET` as version 1; `None` when neither is.
    /// With both, `AUTH_SECRET` must be the current one (a half-done rotation is a mistake).
    pub fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let single = env.secret(VAR)?;
        let Some(list) = env.secret(ROTATION_VAR)? else {
            return single.map(Self::single).transpose();
        };
        let secrets = Self::parse(list.expose_secret())?;
        if let Some(single) = single
            && single.expose_secret() != secrets.current().expose_secret()
        {
            return Err(invalid(
                VAR,
                "differs from the first (current) entry of AUTH_SECRETS: set one of them",
            ));
        }
        Ok(Some(secrets))
    }

    /// Like [`Self::from_env`], for a part that cannot work without it.
    pub fn required(env: &Env, why: &str) -> Result<Self, ConfigError> {
        Self::from_env(env)?.ok_or_else(|| ConfigError::Missing {
            name: VAR.into(),
            why: why.into(),
        })
    }

    /// One secret, version 1.
    pub fn single(secret: SecretString) -> Result<Self, ConfigError> {
        if secret.expose_secret().len() < MIN_LENGTH {
            return Err(invalid(VAR, "must be at least 32 characters"));
        }
        Ok(Self {
            versions: vec![(1, secret)],
        })
    }

    /// `"<version>:<secret>,…"`, the current version first.
    fn parse(list: &str) -> Result<Self, ConfigError> {
        let mut versions: Vec<(u32, SecretString)> = Vec::new();
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (version, secret) = entry
                .split_once(':')
                .ok_or_else(|| invalid(ROTATION_VAR, "each entry is <version>:<secret>"))?;
            let version: u32 = version
                .trim()
                .parse()
                .map_err(|_| invalid(ROTATION_VAR, "a version is a whole number"))?;
            if secret.len() < MIN_LENGTH {
                return Err(invalid(
                    ROTATION_VAR,
                    format!("version {version}: a secret is at least 32 characters"),
                ));
            }
            if versions.iter().any(|(v, _)| *v == version) {
                return Err(invalid(
                    ROTATION_VAR,
                    format!("version {version} is named twice"),
                ));
            }
            versions.push((version, secret.to_string().into()));
        }
        if versions.is_empty() {
            return Err(invalid(ROTATION_VAR, "names no secret"));
        }
        Ok(Self { versions })
    }

    /// The secret new signatures and values use.
    pub fn current(&self) -> &SecretString {
        &self.versions[0].1
    }

    /// Every version, current first (to check what older ones signed).
    pub fn all(&self) -> impl Iterator<Item = &SecretString> {
        self.versions.iter().map(|(_, secret)| secret)
    }

    /// The keys for one kind of value at rest; `purpose` keeps each kind's keys apart.
    pub fn vault(&self, purpose: &str) -> Vault {
        let keys = self
            .versions
            .iter()
            .map(|(version, secret)| (*version, SealingKey::from_bytes(derive(secret, purpose))))
            .collect();
        Vault {
            current: self.versions[0].0,
            keys: Arc::new(keys),
        }
    }
}

/// HMAC-SHA256(secret, "gatehouse at rest v1 " + purpose).
fn derive(secret: &SecretString, purpose: &str) -> [u8; 32] {
    use hmac::{KeyInit, Mac};
    let mut mac =
        <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(secret.expose_secret().as_bytes())
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(b"gatehouse at rest v1 ");
    mac.update(purpose.as_bytes());
    mac.finalize().into_bytes().into()
}

#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    #[error("a value at rest was written with auth secret version {0}, which is not configured")]
    UnknownVersion(u32),
    #[error(
        "a value at rest could not be opened: altered, or written with another secret of the same version"
    )]
    Unopenable,
}

/// Encrypts and opens one kind of value at rest (ChaCha20-Poly1305, a random nonce each).
#[derive(Clone)]
pub struct Vault {
    current: u32,
    keys: Arc<BTreeMap<u32, SealingKey>>,
}

impl fmt::Debug for Vault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Vault(current version {})", self.current)
    }
}

impl Vault {
    /// `plaintext` encrypted with the current version, bound to `context` (a column): stored
    /// under another column, it does not open.
    pub fn encrypt(&self, context: &str, plaintext: &str) -> String {
        let key = &self.keys[&self.current];
        let sealed = key.seal(context, plaintext.as_bytes());
        format!(
            "{PREFIX}{}${}",
            self.current,
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sealed)
        )
    }

    /// What `stored` holds; a value never encrypted reads as it is.
    pub fn decrypt(&self, context: &str, stored: &str) -> Result<String, VaultError> {
        let Some((version, encoded)) = Self::split(stored) else {
            return Ok(stored.to_string());
        };
        let key = self
            .keys
            .get(&version)
            .ok_or(VaultError::UnknownVersion(version))?;
        let sealed = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| VaultError::Unopenable)?;
        if !SealingKey::is_sealed(&sealed) {
            return Err(VaultError::Unopenable);
        }
        let opened = key
            .open(context, &sealed)
            .map_err(|_| VaultError::Unopenable)?;
        String::from_utf8(opened).map_err(|_| VaultError::Unopenable)
    }

    /// Whether `stored` is encrypted with the current version (else: rewrite it when next
    /// written).
    pub fn is_current(&self, stored: &str) -> bool {
        Self::split(stored).is_some_and(|(version, _)| version == self.current)
    }

    fn split(stored: &str) -> Option<(u32, &str)> {
        let rest = stored.strip_prefix(PREFIX)?;
        let (version, encoded) = rest.split_once('$')?;
        Some((version.parse().ok()?, encoded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "old-secret-old-secret-old-secret-0001";
    const NEW: &str = "new-secret-new-secret-new-secret-0002";

    #[test]
    fn values_written_before_a_rotation_still_open() {
        let before = AuthSecrets::from_env(&Env::from_pairs([(VAR, OLD)]))
            .unwrap()
            .unwrap()
            .vault("provider tokens");
        let stored = before.encrypt("accounts.access_token", "ya29.token");
        assert!(stored.starts_with("$gh$1$") && !stored.contains("ya29"));
        assert_ne!(
            stored,
            before.encrypt("accounts.access_token", "ya29.token")
        );

        let rotated = AuthSecrets::from_env(&Env::from_pairs([(
            ROTATION_VAR,
            format!("2:{NEW}, 1:{OLD}"),
        )]))
        .unwrap()
        .unwrap();
        assert_eq!(rotated.current().expose_secret(), NEW);
        let after = rotated.vault("provider tokens");
        assert_eq!(
            after.decrypt("accounts.access_token", &stored).unwrap(),
            "ya29.token"
        );
        assert!(!after.is_current(&stored), "to be rewritten with version 2");
        let rewritten = after.encrypt("accounts.access_token", "ya29.token");
        assert!(rewritten.starts_with("$gh$2$") && after.is_current(&rewritten));

        // Once version 1 is dropped, its values are named as such.
        let dropped = AuthSecrets::from_env(&Env::from_pairs([(ROTATION_VAR, format!("2:{NEW}"))]))
            .unwrap()
            .unwrap()
            .vault("provider tokens");
        assert!(matches!(
            dropped.decrypt("accounts.access_token", &stored),
            Err(VaultError::UnknownVersion(1))
        ));
    }

    #[test]
    fn a_value_opens_for_its_purpose_and_column_only() {
        let secrets = AuthSecrets::single(OLD.to_string().into()).unwrap();
        let stored = secrets.vault("a").encrypt("c1", "v");
        assert!(secrets.vault("b").decrypt("c1", &stored).is_err());
        assert!(secrets.vault("a").decrypt("c2", &stored).is_err());
        let mut altered = stored.clone();
        altered.push('A');
        assert!(secrets.vault("a").decrypt("c1", &altered).is_err());
        // Another secret under the same version number.
        let other = AuthSecrets::single(NEW.to_string().into()).unwrap();
        assert!(matches!(
            other.vault("a").decrypt("c1", &stored),
            Err(VaultError::Unopenable)
        ));
        assert_eq!(
            secrets.vault("a").decrypt("c1", "gho_plain").unwrap(),
            "gho_plain",
            "an imported plain value reads as it is"
        );
    }

    #[test]
    fn bad_settings_are_named() {
        let error = |pairs: Vec<(&str, String)>| {
            AuthSecrets::from_env(&Env::from_pairs(pairs))
                .unwrap_err()
                .to_string()
        };
        assert!(error(vec![(VAR, "short".into())]).contains("AUTH_SECRET"));
        let list = error(vec![(ROTATION_VAR, format!("x:{NEW}"))]);
        assert!(
            list.contains("AUTH_SECRETS") && !list.contains(NEW),
            "{list}"
        );
        assert!(error(vec![(ROTATION_VAR, format!("2:{NEW},2:{OLD}"))]).contains("twice"));
        assert!(error(vec![(ROTATION_VAR, "1:short".into())]).contains("32"));
        let mismatch = error(vec![
            (ROTATION_VAR, format!("2:{NEW},1:{OLD}")),
            (VAR, OLD.into()),
        ]);
        assert!(mismatch.contains("current"), "{mismatch}");
        assert!(
            AuthSecrets::from_env(&Env::from_pairs([("X", "y")]))
                .unwrap()
                .is_none()
        );
    }
}
