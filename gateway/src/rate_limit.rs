//! Per-IP, per-route fixed windows with better-auth's rules (which rule a route uses is part of
//! its registration, see [`crate::policy`]). Counters live in the shared cache (Redis when
//! distributed) and fall back to this process's memory when it is down.

use std::time::Duration;

use gatehouse_kit::cache::{Cache, WithFallback};

use crate::config::{RateLimitSettings, Rule};

/// better-auth's rate-limit rules (protocol §7.3); their windows come from configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateRule {
    /// Every route not named otherwise (`RATE_LIMIT_WINDOW` / `RATE_LIMIT_MAX`).
    #[default]
    Default,
    /// Sign-in, sign-up, change-password, change-email (`RATE_LIMIT_SIGN_IN_*`).
    SignIn,
    /// Routes that send mail (`RATE_LIMIT_EMAIL_*`).
    Email,
    /// What makes the billing-webhook service send to an organization's endpoints on request
    /// — test events and replays (`RATE_LIMIT_REPLAY_*`) — counted per organization by the
    /// handlers ([`crate::policy::check_organization`]), on top of the route's own rule.
    Replay,
}

pub struct RateLimiter {
    settings: RateLimitSettings,
    store: WithFallback,
}

impl RateLimiter {
    pub fn new(settings: RateLimitSettings, shared: Cache) -> Self {
        Self {
            settings,
            store: WithFallback::new(shared),
        }
    }

    fn rule(&self, rule: RateRule) -> Rule {
        match rule {
            RateRule::Default => self.settings.default,
            RateRule::SignIn => self.settings.sign_in,
            RateRule::Email => self.settings.email,
            RateRule::Replay => self.settings.replay,
        }
    }

    /// `Err(seconds to wait)` when the caller is over the limit.
    pub async fn check(&self, key: &str, rule: RateRule) -> Result<(), u64> {
        let rule = self.rule(rule);
        let (count, left) = self
            .store
            .run(|cache| async move { cache.hit_window(key, rule.window).await })
            .await
            .unwrap_or((0, Duration::ZERO));
        if count > rule.max {
            Err(left.as_secs_f64().ceil().max(1.0) as u64)
        } else {
            Ok(())
        }
    }
}
