//! What a route registration says besides its handler: which rate-limit rule counts its
//! requests and how its origin is checked. [`guard`] runs it for every request before the
//! handler (better-auth rate-limits before routing, so unmatched paths are counted too, under
//! one shared bucket).

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::client_ip::ClientIp;
use crate::error::ApiError;
pub use crate::rate_limit::RateRule;
use crate::state::AppState;

/// How a state-changing request's origin is checked (protocol §7.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OriginMode {
    /// Check A: a request carrying cookies must come from a trusted origin.
    #[default]
    Cookies,
    /// Check C: sign-in and sign-up, which a plain HTML form can reach, are checked even
    /// without cookies; they also accept `application/x-www-form-urlencoded` bodies.
    FormLogin,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub rate: RateRule,
    pub origin: OriginMode,
    /// The route this one is another name of (below `/api/auth`): checks that go by route
    /// name, such as the captcha's endpoints, cover the alias too.
    pub alias_of: Option<&'static str>,
}

impl Policy {
    pub const DEFAULT: Policy = Policy {
        rate: RateRule::Default,
        origin: OriginMode::Cookies,
        alias_of: None,
    };

    pub const fn rate(self, rate: RateRule) -> Self {
        Policy { rate, ..self }
    }

    pub const fn form_login(self) -> Self {
        Policy {
            origin: OriginMode::FormLogin,
            ..self
        }
    }

    pub const fn alias_of(self, path: &'static str) -> Self {
        Policy {
            alias_of: Some(path),
            ..self
        }
    }

    pub fn accepts_form(self) -> bool {
        self.origin == OriginMode::FormLogin
    }
}

/// The per-route middleware: counts the request against its rule, then hands the policy to
/// the extractors.
pub async fn guard(policy: Policy, mut request: Request, next: Next) -> Response {
    let Some(state) = request.extensions().get::<AppState>().cloned() else {
        return ApiError::from(gatehouse_kit::errors::base::INTERNAL_SERVER_ERROR).into_response();
    };
    if state.config.rate_limit.enabled {
        // The route template, not the raw path: arbitrary paths must not mint new buckets.
        let path = request
            .extensions()
            .get::<MatchedPath>()
            .map(|matched| matched.as_str().to_string())
            .unwrap_or_else(|| "/(unmatched)".to_string());
        let client = client_of(&request);
        if let Err(rejection) = check(&state, client, &path, policy.rate).await {
            return rejection.into_response();
        }
    }
    // After the rate limit, so a flood spends no siteverify calls; before the handler reads
    // the body, as better-auth checks before routing.
    if let Some(captcha) = &state.captcha {
        let path = request
            .extensions()
            .get::<MatchedPath>()
            .map(|matched| matched.as_str())
            .unwrap_or_default();
        let path = path.strip_prefix(crate::BASE_PATH).unwrap_or(path);
        if (captcha.guards(path) || policy.alias_of.is_some_and(|name| captcha.guards(name)))
            && let Err(refusal) = captcha.check(request.headers(), client_of(&request)).await
        {
            return refusal.into_response();
        }
    }
    request.extensions_mut().insert(policy);
    next.run(request).await
}

/// The client address [`crate::client_ip::layer`] decided for this request.
pub fn client_of<B>(request: &axum::http::Request<B>) -> ClientIp {
    request
        .extensions()
        .get::<ClientIp>()
        .copied()
        .unwrap_or_default()
}

/// Counts one request under `rule`; `Err` with a 429 when the caller is over the limit.
pub async fn check(
    state: &AppState,
    client: ClientIp,
    path: &str,
    rule: RateRule,
) -> Result<(), ApiError> {
    let path = path.strip_prefix(crate::BASE_PATH).unwrap_or(path);
    count(state, &format!("rate:{}|{path}", client.bucket()), rule).await
}

/// Counts one request for `organization_id` under `rule`, whoever makes it and from wherever
/// (every one of its admins, every address, shares the count); `Err` with a 429 over the
/// limit. Called once the caller is known to act for the organization, so no one else can
/// use up its allowance.
pub async fn check_organization(
    state: &AppState,
    organization_id: &str,
    rule: RateRule,
) -> Result<(), ApiError> {
    count(
        state,
        &format!("rate:organization:{organization_id}|{rule:?}"),
        rule,
    )
    .await
}

async fn count(state: &AppState, key: &str, rule: RateRule) -> Result<(), ApiError> {
    if !state.config.rate_limit.enabled {
        return Ok(());
    }
    state
        .rate_limiter
        .check(key, rule)
        .await
        .map_err(|retry_after_secs| {
            metrics::counter!("rate_limited_total").increment(1);
            ApiError::RateLimited { retry_after_secs }
        })
}
