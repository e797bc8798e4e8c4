//! The billing-webhook service's settings (every one documented in the README). Its database
//! and listener are kit's shared settings (`BILLING_WEBHOOK_DATABASE_URL`,
//! `BILLING_WEBHOOK_LISTEN`).

use std::time::Duration;

use gatehouse_kit::config::{ConfigError, Env, SecretString};
use ipnet::IpNet;
use serde::Deserialize;

/// Svix's schedule (billing-webhooks reference §5): after the first attempt, retries 5 s,
/// 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later, about 27.5 hours in all.
pub const DEFAULT_RETRY_SCHEDULE: &str = "5,300,1800,7200,18000,36000,36000";

#[derive(Clone, Debug)]
pub struct BillingWebhookConfig {
    /// `POLAR_WEBHOOK_SECRET` (or `POLAR_WEBHOOK_SECRET_FILE`): the secret the payments
    /// platform shows for our endpoint, as shown (`whsec_…`). Unset: the intake answers 503 to
    /// every delivery, so the sender keeps retrying until it is configured.
    pub polar_webhook_secret: Option<SecretString>,
    pub fan_out: FanOutConfig,
}

/// How events go out to sellers' endpoints.
#[derive(Clone, Debug)]
pub struct FanOutConfig {
    /// `BILLING_WEBHOOK_RETRY_SCHEDULE`: seconds before each retry, comma-separated.
    pub retry_schedule: Vec<Duration>,
    /// `BILLING_WEBHOOK_ATTEMPT_TIMEOUT_SECS` (15): an attempt not answered by then failed.
    pub attempt_timeout: Duration,
    /// `BILLING_WEBHOOK_DELIVERY_CONCURRENCY` (64): attempts in flight per process.
    pub concurrency: u16,
    /// `BILLING_WEBHOOK_ENDPOINT_CONCURRENCY` (16): attempts in flight per endpoint and
    /// process, so a slow endpoint holds at most this many of the process's.
    pub endpoint_concurrency: u16,
    /// `BILLING_WEBHOOK_DISABLE_AFTER_HOURS` (120): an endpoint whose deliveries failed for
    /// this long without one success is disabled and its registrant told by mail.
    pub disable_after: Duration,
    /// `BILLING_WEBHOOK_SECRET_OVERLAP_HOURS` (24): after a rotation, the old secret still
    /// signs (beside the new one) for this long.
    pub secret_overlap: Duration,
    /// `BILLING_WEBHOOK_ALLOWED_NETWORKS` (none): CIDR ranges endpoints may reach although
    /// they are private, loopback or link-local (for example `10.20.0.0/16`).
    pub allowed_networks: Vec<IpNet>,
    /// `BILLING_WEBHOOK_SCHEDULER_TICK_MS` (1000): how often deliveries whose retry is due are
    /// looked for.
    pub scheduler_tick: Duration,
    /// `BILLING_WEBHOOK_PLATFORM_ORGANIZATIONS` (none): organizations whose endpoints receive
    /// every event. Others receive the events of their own customers' purchases: those whose
    /// entity carries the organization's id as `metadata.referenceId`.
    pub platform_organizations: Vec<String>,
}

/// The fan-out's variables, one field each after the `BILLING_WEBHOOK_` prefix
/// (`attempt_timeout_secs` ← `BILLING_WEBHOOK_ATTEMPT_TIMEOUT_SECS`), the defaults in its
/// `Default` (the only place they are written); [`FanOutConfig`] is the checked form.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct FanOutSettings {
    pub retry_schedule: String,
    pub attempt_timeout_secs: u64,
    pub delivery_concurrency: u16,
    pub endpoint_concurrency: u16,
    pub disable_after_hours: u64,
    pub secret_overlap_hours: u64,
    pub allowed_networks: String,
    pub scheduler_tick_ms: u64,
    pub platform_organizations: String,
}

impl Default for FanOutSettings {
    fn default() -> Self {
        Self {
            retry_schedule: DEFAULT_RETRY_SCHEDULE.into(),
            attempt_timeout_secs: 15,
            delivery_concurrency: 64,
            endpoint_concurrency: 16,
            disable_after_hours: 120,
            secret_overlap_hours: 24,
            allowed_networks: String::new(),
            scheduler_tick_ms: 1000,
            platform_organizations: String::new(),
        }
    }
}

const PREFIX: &str = "BILLING_WEBHOOK_";

impl BillingWebhookConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Ok(Self {
            polar_webhook_secret: env.secret("POLAR_WEBHOOK_SECRET")?,
            fan_out: FanOutConfig::from_env(env)?,
        })
    }
}

fn invalid(name: &str, value: &str, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        name: format!("{PREFIX}{name}"),
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

/// A comma-separated list; empty entries dropped.
fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

impl FanOutConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let settings: FanOutSettings = env.load_prefixed(PREFIX)?;
        let schedule = &settings.retry_schedule;
        let retry_schedule = list(schedule)
            .map(|seconds| {
                seconds
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| {
                        invalid(
                            "RETRY_SCHEDULE",
                            schedule,
                            "expected seconds, comma-separated",
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let allowed_networks = list(&settings.allowed_networks)
            .map(|cidr| {
                cidr.parse::<IpNet>()
                    .map_err(|e| invalid("ALLOWED_NETWORKS", cidr, e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let hours = |h: u64| Duration::from_secs(h.saturating_mul(3600));
        Ok(Self {
            retry_schedule,
            attempt_timeout: Duration::from_secs(settings.attempt_timeout_secs),
            concurrency: settings.delivery_concurrency,
            endpoint_concurrency: settings.endpoint_concurrency.max(1),
            disable_after: hours(settings.disable_after_hours),
            secret_overlap: hours(settings.secret_overlap_hours),
            allowed_networks,
            scheduler_tick: Duration::from_millis(settings.scheduler_tick_ms.max(1)),
            platform_organizations: list(&settings.platform_organizations)
                .map(str::to_string)
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_svix_like_and_bad_values_are_named() {
        let config = FanOutConfig::from_env(&Env::from_pairs([("UNSET", "")])).unwrap();
        assert_eq!(config.retry_schedule.len(), 7);
        assert_eq!(config.retry_schedule[1], Duration::from_secs(300));
        assert_eq!(config.disable_after, Duration::from_secs(5 * 24 * 3600));
        assert!(config.allowed_networks.is_empty());
        assert_eq!(config.scheduler_tick, Duration::from_secs(1));
        for (name, value) in [
            ("BILLING_WEBHOOK_RETRY_SCHEDULE", "5,soon"),
            ("BILLING_WEBHOOK_ALLOWED_NETWORKS", "10.0.0.0/33"),
        ] {
            let error = FanOutConfig::from_env(&Env::from_pairs([(name, value)])).unwrap_err();
            assert!(error.to_string().starts_with(name), "{error}");
        }
        for (name, value) in [
            ("BILLING_WEBHOOK_DELIVERY_CONCURRENCY", "many"),
            ("BILLING_WEBHOOK_DISABLE_AFTER_HOURS", "-1"),
        ] {
            let error = FanOutConfig::from_env(&Env::from_pairs([(name, value)])).unwrap_err();
            assert!(error.to_string().contains(name), "{error}");
        }
        let fast = Env::from_pairs([
            ("BILLING_WEBHOOK_RETRY_SCHEDULE", "0.05, 0.1"),
            ("BILLING_WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128"),
        ]);
        let config = FanOutConfig::from_env(&fast).unwrap();
        assert_eq!(config.retry_schedule[0], Duration::from_millis(50));
        assert_eq!(config.allowed_networks.len(), 2);
    }
}
