//! What every handler shares: configuration, the gRPC clients, cookie settings, trusted origins
//! and the rate limiter. Cloned for every request (by the router and the policy guard), so a
//! clone is one reference count.

use std::ops::Deref;
use std::sync::Arc;

use crate::captcha::Captcha;
use crate::clients::Clients;
use crate::config::GatewayConfig;
use crate::cookies::CookieJar;
use crate::origin::TrustedOrigins;
use crate::rate_limit::RateLimiter;
use crate::token_signer::TokenSigner;

#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub config: GatewayConfig,
    pub trusted: TrustedOrigins,
    pub cookies: CookieJar,
    pub rate_limiter: RateLimiter,
    /// `CAPTCHA_PROVIDER`'s check of the guarded routes, when one is configured.
    pub captcha: Option<Captcha>,
    /// The key users' tokens are signed with (`/token`, get-session's `set-auth-jwt`).
    pub token_signer: TokenSigner,
    /// Every backend's gRPC clients; `state.sessions` reaches them through [`Deref`].
    pub clients: Clients,
}

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl Deref for Shared {
    type Target = Clients;

    fn deref(&self) -> &Clients {
        &self.clients
    }
}
