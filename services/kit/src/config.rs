//! Configuration from the environment. Each part declares its settings as a typed struct whose
//! fields are named after their variables (`base_url` ← `BASE_URL`), with the defaults in that
//! struct's `Default`; [`Env::load`] fills it (envy: strings parsed into numbers, booleans and
//! comma-separated lists). Pieces several parts share are defined once here: the backends, a
//! service's database, the session lifetimes. Secrets are [`SecretString`]s and credentials in
//! URLs are [`SecretUrl`]s, so a settings struct can be logged with `{:?}` at start and never
//! shows them. Any variable may also be read from a file named by `<NAME>_FILE`.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

pub use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::redact::redact_url;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{name}: cannot parse {value:?}: {reason}")]
    Invalid {
        name: String,
        value: String,
        reason: String,
    },
    #[error("{name} is required: {why}")]
    Missing { name: String, why: String },
    #[error("{name}_FILE: cannot read {path}: {source}")]
    File {
        name: String,
        path: String,
        source: std::io::Error,
    },
    #[error("configuration: {0}")]
    Load(#[from] envy::Error),
}

/// A URL that may carry credentials (`postgres://user:password@…`, `amqp://…`): its `Debug`
/// and `Display` hide the password.
#[derive(Clone, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct SecretUrl(String);

impl SecretUrl {
    pub fn new(url: impl Into<String>) -> Self {
        Self(url.into())
    }

    /// The URL with its password, to connect with.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact_url(&self.0))
    }
}

impl fmt::Display for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact_url(&self.0))
    }
}

/// `BASE_URL` when unset: the public origin of the gateway, which the web app, cookies and
/// every link in a mail are built on.
pub const DEFAULT_BASE_URL: &str = "http://localhost:3000";

/// `JWT_EXPIRES_IN` when unset: seconds a user's signed token is valid (better-auth's 15
/// minutes). The gateway signs with it; the session service keeps keys published at least as
/// long.
pub const DEFAULT_JWT_EXPIRES_IN: u64 = 15 * 60;
/// The longest `JWT_EXPIRES_IN` accepted (a year).
pub const MAX_JWT_EXPIRES_IN: u64 = 365 * 24 * 60 * 60;

/// Where the gateway serves better-auth's routes, below `BASE_URL` (mailed links point here).
pub const AUTH_BASE_PATH: &str = "/api/auth";

/// Reads settings from the process environment (or from a fixed map in tests), with overrides
/// layered on top (standalone mode tells each part where the others listen this way).
#[derive(Clone, Default)]
pub struct Env {
    overrides: std::collections::HashMap<String, String>,
    process: bool,
}

/// Names only: an override may be a secret (`AUTH_SECRET` in tests, a generated token).
impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&String> = self.overrides.keys().collect();
        names.sort();
        f.debug_struct("Env")
            .field("process", &self.process)
            .field("overrides", &names)
            .finish()
    }
}

impl Env {
    /// The process environment.
    pub fn process() -> Self {
        Self {
            overrides: Default::default(),
            process: true,
        }
    }

    /// A fixed set of variables, for tests.
    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Self {
            overrides: Default::default(),
            process: false,
        }
        .with(pairs)
    }

    /// This environment with `pairs` taking precedence.
    pub fn with<I, K, V>(mut self, pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.overrides
            .extend(pairs.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// The raw value, if set and not empty.
    pub fn raw(&self, name: &str) -> Option<String> {
        let value = match self.overrides.get(name) {
            Some(value) => Some(value.clone()),
            None if self.process => std::env::var(name).ok(),
            None => None,
        };
        value.filter(|v| !v.trim().is_empty())
    }

    pub fn string(&self, name: &str, default: &str) -> String {
        self.raw(name).unwrap_or_else(|| default.to_string())
    }

    pub fn parse<T>(&self, name: &str, default: T) -> Result<T, ConfigError>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        match self.raw(name) {
            None => Ok(default),
            Some(value) => value
                .trim()
                .parse()
                .map_err(|e: T::Err| ConfigError::Invalid {
                    name: name.to_string(),
                    value,
                    reason: e.to_string(),
                }),
        }
    }

    /// `true/false/1/0/yes/no/on/off`, case-insensitive ([`parse_flag`]).
    pub fn bool(&self, name: &str, default: bool) -> Result<bool, ConfigError> {
        match self.raw(name) {
            None => Ok(default),
            Some(value) => parse_flag(&value).ok_or_else(|| ConfigError::Invalid {
                name: name.to_string(),
                value,
                reason: FLAG_EXPECTED.into(),
            }),
        }
    }

    /// A whole number of seconds.
    pub fn seconds(&self, name: &str, default: u64) -> Result<Duration, ConfigError> {
        self.parse::<u64>(name, default).map(Duration::from_secs)
    }

    /// `DATA_DIR` (default `./data`): where standalone keeps its SQLite files, its generated
    /// secret and its mail.
    pub fn data_dir(&self) -> String {
        self.string("DATA_DIR", "./data")
    }

    /// A comma-separated list; empty entries dropped.
    pub fn list(&self, name: &str) -> Vec<String> {
        self.raw(name)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A secret from `<NAME>` or from the file named by `<NAME>_FILE` (trailing newline trimmed).
    pub fn secret(&self, name: &str) -> Result<Option<SecretString>, ConfigError> {
        if let Some(value) = self.raw(name) {
            return Ok(Some(value.into()));
        }
        let file_var = format!("{name}_FILE");
        match self.raw(&file_var) {
            None => Ok(None),
            Some(path) => read_secret_file(name, path).map(|s| Some(s.into())),
        }
    }

    /// Every variable set (and not empty), overrides first, and `<NAME>_FILE` read into `<NAME>`
    /// for the names that hold secrets ([`reads_from_file`]).
    fn pairs(&self) -> Result<BTreeMap<String, String>, ConfigError> {
        let mut all: BTreeMap<String, String> = if self.process {
            std::env::vars().collect()
        } else {
            BTreeMap::new()
        };
        all.extend(self.overrides.clone());
        all.retain(|_, v| !v.trim().is_empty());
        let files: Vec<(String, String)> = all
            .iter()
            .filter_map(|(k, v)| Some((k.strip_suffix("_FILE")?.to_string(), v.clone())))
            .filter(|(name, _)| reads_from_file(name) && !all.contains_key(name))
            .collect();
        for (name, path) in files {
            let value = read_secret_file(&name, path)?;
            all.insert(name, value);
        }
        Ok(all)
    }

    /// A settings struct from the environment: each field from the variable of its name in
    /// upper case (`cache_timeout_ms` ← `CACHE_TIMEOUT_MS`), missing ones from its `Default`.
    pub fn load<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        Ok(envy::from_iter(self.pairs()?)?)
    }

    /// The same, each field from `<PREFIX><FIELD>` (`database_url` ← `IDENTITY_DATABASE_URL`).
    pub fn load_prefixed<T: DeserializeOwned>(&self, prefix: &str) -> Result<T, ConfigError> {
        envy::prefixed(prefix)
            .from_iter(self.pairs()?)
            .map_err(|error| match error {
                // envy names the variable without its prefix; the operator set it with one.
                envy::Error::Custom(message) => ConfigError::Load(envy::Error::Custom(
                    message.replace("provided by ", &format!("provided by {prefix}")),
                )),
                other => ConfigError::Load(other),
            })
    }
}

const FLAG_EXPECTED: &str = "expected true or false";

/// A boolean setting as every part reads it: `true/false/1/0/yes/no/on/off`, any case.
pub fn parse_flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// A settings struct's boolean field read as [`parse_flag`] reads it
/// (`#[serde(deserialize_with = "gatehouse_kit::config::flag")]`); envy alone takes only
/// `true` and `false`.
pub fn flag<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let value = String::deserialize(deserializer)?;
    parse_flag(&value)
        .ok_or_else(|| serde::de::Error::custom(format!("{FLAG_EXPECTED}, not {value:?}")))
}

/// [`flag`] for an optional field.
pub fn optional_flag<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<bool>, D::Error> {
    flag(deserializer).map(Some)
}

/// Which variables may come from `<NAME>_FILE`: those holding secrets or URLs with credentials.
/// Other tools' `*_FILE` variables (`LLVM_PROFILE_FILE`, `TF_CLI_CONFIG_FILE`) are not ours.
pub fn reads_from_file(name: &str) -> bool {
    // SOCIAL_PROVIDERS holds the providers' client secrets.
    name == "SOCIAL_PROVIDERS"
        || ["_SECRET", "_PASSWORD", "_TOKEN", "_KEY", "_URL"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

fn read_secret_file(name: &str, path: String) -> Result<String, ConfigError> {
    std::fs::read_to_string(&path)
        .map(|s| s.trim_end_matches(['\n', '\r']).to_string())
        .map_err(|source| ConfigError::File {
            name: name.to_string(),
            path,
            source,
        })
}

/// The shared backends every process may use.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct Backends {
    /// `BUS_URL`: `memory://` (default) or `amqp://user:pass@host:port/vhost`.
    pub bus_url: SecretUrl,
    /// `CACHE_URL`: `memory://` (default) or `redis://…`, `rediss://…`.
    pub cache_url: SecretUrl,
    /// `CACHE_TIMEOUT_MS` (default 100): a slower cache counts as down.
    pub cache_timeout_ms: u64,
    /// `CACHE_TLS_CA_FILE`: PEM certificates that sign a `rediss://` server's certificate, when
    /// not a public CA (the system's roots are used otherwise).
    pub cache_tls_ca_file: Option<String>,
}

impl Default for Backends {
    fn default() -> Self {
        Self {
            bus_url: SecretUrl::new("memory://"),
            cache_url: SecretUrl::new("memory://"),
            cache_timeout_ms: 100,
            cache_tls_ca_file: None,
        }
    }
}

impl Backends {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        env.load()
    }

    pub fn cache_timeout(&self) -> Duration {
        Duration::from_millis(self.cache_timeout_ms)
    }

    pub fn bus(&self) -> Result<crate::bus::Bus, crate::bus::BusError> {
        crate::bus::Bus::from_url(self.bus_url.expose())
    }

    pub fn cache(&self) -> Result<crate::cache::Cache, crate::cache::CacheError> {
        let ca = match &self.cache_tls_ca_file {
            Some(path) => {
                Some(
                    std::fs::read(path).map_err(|source| crate::cache::CacheError::TlsCa {
                        path: path.clone(),
                        source,
                    })?,
                )
            }
            None => None,
        };
        crate::cache::Cache::connect(self.cache_url.expose(), self.cache_timeout(), ca)
    }
}

/// better-auth's session timings, read by the session service (expiry, sliding, freshness)
/// and the gateway (the cookie's `Max-Age`). Whole seconds.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(default)]
pub struct SessionLifetimes {
    /// `SESSION_EXPIRES_IN` (default 604800 = 7 days).
    pub session_expires_in: u64,
    /// `SESSION_UPDATE_AGE` (default 86400): how stale the expiry may get before a read
    /// slides it forward.
    pub session_update_age: u64,
    /// `SESSION_FRESH_AGE` (default 86400; 0 turns freshness checks off).
    pub session_fresh_age: u64,
    /// `SESSION_DONT_REMEMBER_EXPIRES_IN` (default 86400): a `rememberMe: false` session.
    pub session_dont_remember_expires_in: u64,
    /// `SESSION_MAX_LIFETIME` (default 2592000 = 30 days, ASVS 4.0 §3.3.2): counted from
    /// sign-in, however often the session is used. better-auth has no such limit.
    pub session_max_lifetime: u64,
}

impl Default for SessionLifetimes {
    fn default() -> Self {
        Self {
            session_expires_in: 604_800,
            session_update_age: 86_400,
            session_fresh_age: 86_400,
            session_dont_remember_expires_in: 86_400,
            session_max_lifetime: 2_592_000,
        }
    }
}

impl SessionLifetimes {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        env.load()
    }

    pub fn expires_in(&self) -> Duration {
        Duration::from_secs(self.session_expires_in)
    }

    pub fn update_age(&self) -> Duration {
        Duration::from_secs(self.session_update_age)
    }

    pub fn fresh_age(&self) -> Duration {
        Duration::from_secs(self.session_fresh_age)
    }

    pub fn dont_remember_expires_in(&self) -> Duration {
        Duration::from_secs(self.session_dont_remember_expires_in)
    }

    pub fn max_lifetime(&self) -> Duration {
        Duration::from_secs(self.session_max_lifetime)
    }
}

/// The lengths of passwords and usernames, in characters: enforced by identity, and written
/// into the gateway's OpenAPI document, so both read the same variables.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(default)]
pub struct CredentialRules {
    /// `PASSWORD_MIN_LENGTH` (default 8) and `PASSWORD_MAX_LENGTH` (default 128).
    pub password_min_length: usize,
    pub password_max_length: usize,
    /// `USERNAME_MIN_LENGTH` (default 3) and `USERNAME_MAX_LENGTH` (default 30).
    pub username_min_length: usize,
    pub username_max_length: usize,
}

impl Default for CredentialRules {
    fn default() -> Self {
        Self {
            password_min_length: 8,
            password_max_length: 128,
            username_min_length: 3,
            username_max_length: 30,
        }
    }
}

impl CredentialRules {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        env.load()
    }
}

/// The role names a roles setting defines besides `builtin` (`ADMIN_CUSTOM_ROLES`,
/// `ORGANIZATION_ROLES`: a JSON object keyed by role name), for the gateway's OpenAPI
/// document. The service that owns the setting refuses it at start when it is not JSON.
pub fn role_names(env: &Env, name: &str, builtin: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = builtin.iter().map(|n| n.to_string()).collect();
    let custom = env
        .raw(name)
        .and_then(|raw| {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&raw).ok()
        })
        .unwrap_or_default();
    for role in custom.keys() {
        if !names.contains(role) {
            names.push(role.clone());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_apply_when_unset_or_empty() {
        let env = Env::from_pairs([("EMPTY", " ")]);
        assert_eq!(env.string("EMPTY", "d"), "d");
        assert_eq!(env.parse::<u32>("MISSING", 7).unwrap(), 7);
        assert!(env.bool("MISSING", true).unwrap());
    }

    #[test]
    fn bad_values_are_rejected_with_the_variable_name() {
        let env = Env::from_pairs([("N", "ten"), ("B", "maybe")]);
        let err = env.parse::<u32>("N", 1).unwrap_err().to_string();
        assert!(err.contains("N:") && err.contains("ten"), "{err}");
        assert!(env.bool("B", false).is_err());
    }

    /// A loaded settings struct reads booleans as `Env::bool` does, in every part, and a
    /// prefixed one names the variable as the operator set it.
    #[test]
    fn loaded_flags_read_as_env_bool_and_errors_name_the_prefixed_variable() {
        #[derive(Debug, Default, Deserialize)]
        #[serde(default)]
        struct Settings {
            #[serde(deserialize_with = "flag")]
            on: bool,
            #[serde(deserialize_with = "optional_flag")]
            maybe: Option<bool>,
            count: u32,
        }
        let env = Env::from_pairs([("P_ON", "Yes"), ("P_MAYBE", "off")]);
        let settings: Settings = env.load_prefixed("P_").unwrap();
        assert!(settings.on && settings.maybe == Some(false));
        assert_eq!(env.bool("P_ON", false).unwrap(), settings.on);
        let unset: Settings = Env::from_pairs([("X", "1")]).load_prefixed("P_").unwrap();
        assert!(!unset.on && unset.maybe.is_none());
        let bad = Env::from_pairs([("P_ON", "sure")]).load_prefixed::<Settings>("P_");
        assert!(bad.unwrap_err().to_string().contains("sure"));
        let bad = Env::from_pairs([("P_COUNT", "ten")]).load_prefixed::<Settings>("P_");
        let error = bad.unwrap_err().to_string();
        assert!(error.contains("P_COUNT"), "{error}");
    }

    #[test]
    fn secrets_come_from_files() {
        let dir = std::env::temp_dir().join(format!("kit-secret-{}", crate::ids::new_id()));
        std::fs::write(&dir, "s3cret\n").unwrap();
        let env = Env::from_pairs([("S_FILE", dir.to_string_lossy().to_string())]);
        assert_eq!(
            env.secret("S")
                .unwrap()
                .map(|s| s.expose_secret().to_string()),
            Some("s3cret".to_string())
        );
        std::fs::remove_file(dir).unwrap();
    }

    #[derive(Debug, Deserialize)]
    struct Sample {
        #[serde(default)]
        count: u32,
        #[serde(default)]
        names: Vec<String>,
        api_token: Option<SecretString>,
        url: SecretUrl,
    }

    #[test]
    fn settings_load_typed_with_files_and_never_print_secrets() {
        let file = std::env::temp_dir().join(format!("kit-token-{}", crate::ids::new_id()));
        std::fs::write(&file, "tok-hunter2\n").unwrap();
        let env = Env::from_pairs([
            ("COUNT", "7".to_string()),
            ("NAMES", "a,b".to_string()),
            ("API_TOKEN_FILE", file.to_string_lossy().to_string()),
            ("URL", "redis://user:pw-hunter2@cache:6379".to_string()),
        ]);
        let sample: Sample = env.load().unwrap();
        assert_eq!(sample.count, 7);
        assert_eq!(sample.names, ["a", "b"]);
        assert_eq!(
            sample.api_token.as_ref().unwrap().expose_secret(),
            "tok-hunter2"
        );
        assert_eq!(sample.url.expose(), "redis://user:pw-hunter2@cache:6379");
        let printed = format!("{sample:?} {} {env:?}", sample.url);
        assert!(!printed.contains("hunter2"), "{printed}");
        let overrides = Env::process().with([("AUTH_SECRET", "hunter2-hunter2")]);
        let printed = format!("{overrides:?}");
        assert!(
            printed.contains("AUTH_SECRET") && !printed.contains("hunter2"),
            "{printed}"
        );
        let bad = Env::from_pairs([("COUNT", "many"), ("URL", "x")]).load::<Sample>();
        let error = bad.unwrap_err().to_string();
        assert!(error.contains("COUNT") && error.contains("many"), "{error}");
        std::fs::remove_file(file).unwrap();
    }

    #[test]
    fn other_tools_file_variables_are_left_alone() {
        let env = Env::from_pairs([
            ("TF_CLI_CONFIG_FILE", "/nonexistent/.terraformrc"),
            ("URL", "memory://"),
        ]);
        assert!(env.load::<Sample>().is_ok());
        let ours = Env::from_pairs([("AUTH_SECRET_FILE", "/nonexistent/secret")]);
        assert!(
            ours.load::<Sample>()
                .unwrap_err()
                .to_string()
                .contains("AUTH_SECRET_FILE")
        );
    }
}
