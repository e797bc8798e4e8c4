//! Per-IP, per-route fixed windows with better-auth's rules (which rule a route uses is part of
//! its registration, see [`crate::policy`]). Counters live in the shared cache (Redis when
//! distributed) and fall back to this process's memory when it is down.

use std::time::Duration;

use gatehouse_kit::cache::Cache;

use crate::config::{RateLimitSettings, Rule};
use crate::policy::RateRule;

pub struct RateLimiter {
    settings: RateLimitSettings,
    shared: Cache,
    fallback: Cache,
}

impl RateLimiter {
    pub fn new(settings: RateLimitSettings, shared: Cache, timeout: Duration) -> Self {
        let fallback = Cache::from_url("memory://", timeout)
            .unwrap_or_else(|_| unreachable!("memory:// is always a valid cache URL"));
        Self {
            settings,
            shared,
            fallback,
        }
    }

    fn rule(&self, rule: RateRule) -> Rule {
        match rule {
            RateRule::Default => self.settings.default,
            RateRule::SignIn => self.settings.sign_in,
            RateRule::Email => self.settings.email,
        }
    }

    /// `Err(seconds to wait)` when the caller is over the limit.
    pub async fn check(&self, key: &str, rule: RateRule) -> Result<(), u64> {
        let rule = self.rule(rule);
        let counted = match self.shared.hit_window(key, rule.window).await {
            Ok(counted) => counted,
            Err(error) => {
                tracing::debug!(%error, "rate-limit store unavailable; counting locally");
                self.fallback
                    .hit_window(key, rule.window)
                    .await
                    .unwrap_or((0, Duration::ZERO))
            }
        };
        let (count, left) = counted;
        if count > rule.max {
            Err(left.as_secs_f64().ceil().max(1.0) as u64)
        } else {
            Ok(())
        }
    }
}
