//! What every handler shares: configuration, the gRPC clients, cookie settings, trusted origins
//! and the rate limiter. Cloned for every request (by the router and the policy guard), so a
//! clone is one reference count.

use std::ops::Deref;
use std::sync::Arc;

use gatehouse_kit::client::ServiceChannel;
use gatehouse_proto::identity::v1::account_service_client::AccountServiceClient;
use gatehouse_proto::identity::v1::admin_service_client::AdminServiceClient;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::identity::v1::username_service_client::UsernameServiceClient;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;

use crate::config::GatewayConfig;
use crate::cookies::CookieJar;
use crate::origin::TrustedOrigins;
use crate::rate_limit::RateLimiter;

#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub config: GatewayConfig,
    pub trusted: TrustedOrigins,
    pub cookies: CookieJar,
    pub email_password: EmailPasswordServiceClient<ServiceChannel>,
    pub accounts: AccountServiceClient<ServiceChannel>,
    pub usernames: UsernameServiceClient<ServiceChannel>,
    pub admin: AdminServiceClient<ServiceChannel>,
    pub sessions: SessionServiceClient<ServiceChannel>,
    pub rate_limiter: RateLimiter,
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
