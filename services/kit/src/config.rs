//! Configuration from the environment: every setting has a compiled-in default, documented in
//! the README, overlaid by an environment variable and validated at start. Secrets may also come
//! from `<NAME>_FILE`, and are never logged.

use std::str::FromStr;
use std::time::Duration;

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
}

/// Reads settings from the process environment (or from a fixed map in tests), with overrides
/// layered on top (standalone mode tells each part where the others listen this way).
#[derive(Clone, Debug, Default)]
pub struct Env {
    overrides: std::collections::HashMap<String, String>,
    process: bool,
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

    /// `true/false/1/0/yes/no/on/off`, case-insensitive.
    pub fn bool(&self, name: &str, default: bool) -> Result<bool, ConfigError> {
        match self.raw(name) {
            None => Ok(default),
            Some(value) => match value.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Ok(true),
                "0" | "false" | "no" | "off" => Ok(false),
                _ => Err(ConfigError::Invalid {
                    name: name.to_string(),
                    value,
                    reason: "expected true or false".into(),
                }),
            },
        }
    }

    /// A whole number of seconds.
    pub fn seconds(&self, name: &str, default: u64) -> Result<Duration, ConfigError> {
        self.parse::<u64>(name, default).map(Duration::from_secs)
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
    pub fn secret(&self, name: &str) -> Result<Option<String>, ConfigError> {
        if let Some(value) = self.raw(name) {
            return Ok(Some(value));
        }
        let file_var = format!("{name}_FILE");
        match self.raw(&file_var) {
            None => Ok(None),
            Some(path) => std::fs::read_to_string(&path)
                .map(|s| Some(s.trim_end_matches(['\n', '\r']).to_string()))
                .map_err(|source| ConfigError::File {
                    name: name.to_string(),
                    path,
                    source,
                }),
        }
    }
}

/// The shared backends every process may use, read once: `BUS_URL` (default `memory://`),
/// `CACHE_URL` (default `memory://`) and `CACHE_TIMEOUT_MS` (default 100).
#[derive(Clone, Debug)]
pub struct Backends {
    pub bus_url: String,
    pub cache_url: String,
    /// A slower cache counts as down (reads go to the database).
    pub cache_timeout: Duration,
}

impl Backends {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Ok(Self {
            bus_url: env.string("BUS_URL", "memory://"),
            cache_url: env.string("CACHE_URL", "memory://"),
            cache_timeout: Duration::from_millis(env.parse("CACHE_TIMEOUT_MS", 100)?),
        })
    }

    pub fn bus(&self) -> Result<crate::bus::Bus, crate::bus::BusError> {
        crate::bus::Bus::from_url(&self.bus_url)
    }

    pub fn cache(&self) -> Result<crate::cache::Cache, crate::cache::CacheError> {
        crate::cache::Cache::from_url(&self.cache_url, self.cache_timeout)
    }
}

/// Hides credentials in a URL (`postgres://user:pw@host/db` → `postgres://user:***@host/db`)
/// so the effective configuration can be logged.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_string(),
    }
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

    #[test]
    fn secrets_come_from_files() {
        let dir = std::env::temp_dir().join(format!("kit-secret-{}", crate::ids::new_id()));
        std::fs::write(&dir, "s3cret\n").unwrap();
        let env = Env::from_pairs([("S_FILE", dir.to_string_lossy().to_string())]);
        assert_eq!(env.secret("S").unwrap().as_deref(), Some("s3cret"));
        std::fs::remove_file(dir).unwrap();
    }

    #[test]
    fn urls_are_redacted() {
        assert_eq!(
            redact_url("amqp://guest:guest@127.0.0.1:5672/%2f"),
            "amqp://guest:***@127.0.0.1:5672/%2f"
        );
        assert_eq!(redact_url("memory://"), "memory://");
    }
}
