//! Per-IP, per-path rate limiting with better-auth's rules: a default window for every path
//! and tighter ones for sign-in/sign-up and mail-sending paths. Counters live in the shared
//! cache (Redis when distributed) and fall back to this process's memory when it is down.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use gatehouse_kit::cache::Cache;

use crate::client_ip::{bucket, client_ip};
use crate::config::{RateLimitSettings, Rule};
use crate::error::ApiError;
use crate::state::AppState;

const SIGN_IN_PREFIXES: [&str; 4] = ["/sign-in", "/sign-up", "/change-password", "/change-email"];
const EMAIL_PATHS: [&str; 4] = [
    "/request-password-reset",
    "/send-verification-email",
    "/forget-password",
    "/email-otp/send-verification-otp",
];

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

    fn rule(&self, path: &str) -> Rule {
        if EMAIL_PATHS.iter().any(|p| path.starts_with(p)) {
            self.settings.email
        } else if SIGN_IN_PREFIXES.iter().any(|p| path.starts_with(p)) {
            self.settings.sign_in
        } else {
            self.settings.default
        }
    }

    /// `Err(seconds to wait)` when the caller is over the limit.
    pub async fn check(&self, key: &str, path: &str) -> Result<(), u64> {
        let rule = self.rule(path);
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

/// Middleware on `/api/auth`: every request counts, before routing, as in better-auth.
pub async fn limit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !state.config.rate_limit.enabled {
        return next.run(request).await;
    }
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    // Inside the nested router the path is already relative to /api/auth.
    // The route template, not the raw path: arbitrary paths must not mint new buckets. Every
    // unmatched path shares one.
    let path = match request.extensions().get::<MatchedPath>() {
        Some(matched) => {
            let full = matched.as_str();
            full.strip_prefix(crate::BASE_PATH)
                .unwrap_or(full)
                .to_string()
        }
        None => "/(unmatched)".to_string(),
    };
    let ip = client_ip(request.headers(), peer, &state.config.trusted_proxies)
        .map(bucket)
        .unwrap_or_else(|| "no-trusted-ip".into());
    let key = format!("rate:{ip}|{path}");
    match state.rate_limiter.check(&key, &path).await {
        Ok(()) => next.run(request).await,
        Err(retry_after_secs) => {
            metrics::counter!("rate_limited_total").increment(1);
            ApiError::RateLimited { retry_after_secs }.into_response()
        }
    }
}
