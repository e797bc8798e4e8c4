//! The gateway: better-auth's HTTP protocol at `/api/auth`, translated to the services' gRPC
//! APIs. It owns cookies, origin checks, rate limits and request validation; the rules live in
//! the services. `standalone` runs every service and the gateway in one process.

pub mod body;
pub mod client_ip;
pub mod config;
pub mod cookie_cache;
pub mod cookies;
pub mod error;
pub mod origin;
pub mod rate_limit;
pub mod routes;
pub mod standalone;
pub mod state;
pub mod wire;

use std::net::SocketAddr;
use std::sync::Arc;

use gatehouse_kit::client::lazy_channel;
use gatehouse_proto::identity::v1::identity_service_client::IdentityServiceClient;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use config::GatewayConfig;

/// Where the auth API lives.
pub const BASE_PATH: &str = "/api/auth";

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("CACHE_URL: {0}")]
    Cache(#[from] gatehouse_kit::cache::CacheError),
    #[error("service URL: {0}")]
    ServiceUrl(#[from] tonic::transport::Error),
    #[error("serving: {0}")]
    Serve(#[from] std::io::Error),
}

/// Builds the router with lazily connected service clients (services may start later).
pub fn app(config: GatewayConfig) -> Result<axum::Router, GatewayError> {
    let cache = config.backends.cache()?;
    let identity = IdentityServiceClient::new(lazy_channel(&config.identity_url)?);
    let sessions = SessionServiceClient::new(lazy_channel(&config.session_url)?);
    let state = state::AppState {
        trusted: Arc::new(origin::TrustedOrigins::new(config.trusted_origins.clone())),
        cookies: Arc::new(cookies::CookieJar::new(&config.cookies)),
        rate_limiter: Arc::new(rate_limit::RateLimiter::new(
            config.rate_limit.clone(),
            cache,
            config.backends.cache_timeout,
        )),
        identity,
        sessions,
        config: Arc::new(config),
    };
    Ok(routes::router(state))
}

/// Serves the gateway on `listener` until `shutdown` is cancelled, draining in-flight requests.
pub async fn run(
    config: GatewayConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> Result<(), GatewayError> {
    tracing::info!(config = %config.describe(), "gateway configuration");
    let app = app(config)?;
    tracing::info!(addr = %listener.local_addr()?, "gateway serving {BASE_PATH}");
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown.cancelled_owned())
    .await?;
    Ok(())
}
