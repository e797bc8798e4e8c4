//! What every handler shares: configuration, the gRPC clients, cookie settings, trusted origins
//! and the rate limiter.

use std::sync::Arc;

use gatehouse_kit::client::ServiceChannel;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;

use crate::config::GatewayConfig;
use crate::cookies::CookieJar;
use crate::origin::TrustedOrigins;
use crate::rate_limit::RateLimiter;

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<GatewayConfig>,
    pub trusted: Arc<TrustedOrigins>,
    pub cookies: Arc<CookieJar>,
    pub email_password: EmailPasswordServiceClient<ServiceChannel>,
    pub sessions: SessionServiceClient<ServiceChannel>,
    pub rate_limiter: Arc<RateLimiter>,
}
