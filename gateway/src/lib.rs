//! The gateway: better-auth's HTTP protocol at `/api/auth`, translated to the services' gRPC
//! APIs. It owns cookies, origin checks, rate limits, request validation and the OpenAPI
//! document; the rules live in the services. A route is one handler and one registration line
//! in its group (`routes/<group>.rs`), named like the proto service and the service folder.

pub mod body;
pub mod brand;
pub mod captcha;
pub mod client_ip;
pub mod clients;
pub mod config;
pub mod cookie_cache;
pub mod cookies;
pub mod error;
pub mod extract;
pub mod html;
pub mod openapi;
pub mod origin;
pub mod policy;
pub mod rate_limit;
pub mod reply;
pub mod request;
pub mod routes;
pub mod session_cookies;
pub mod state;
pub mod token_signer;
pub mod web;
pub mod wire;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use config::GatewayConfig;

/// Where the auth API lives.
pub const BASE_PATH: &str = gatehouse_kit::config::AUTH_BASE_PATH;
/// Where the billing API is served: the webhook intake and an organization's endpoints,
/// event log and replays.
pub const BILLING_PATH: &str = "/api/billing";

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("CACHE_URL: {0}")]
    Cache(#[from] gatehouse_kit::cache::CacheError),
    #[error("service URL: {0}")]
    ServiceUrl(#[from] tonic::transport::Error),
    #[error("serving: {0}")]
    Serve(#[from] std::io::Error),
}

/// The shared state with lazily connected service clients (services may start later).
pub fn state(config: GatewayConfig) -> Result<state::AppState, GatewayError> {
    let cache = config.backends.cache()?;
    Ok(state::AppState::new(state::Shared {
        trusted: origin::TrustedOrigins::new(config.trusted_origins.clone()),
        cookies: cookies::CookieJar::new(&config.cookies),
        rate_limiter: rate_limit::RateLimiter::new(config.rate_limit.clone(), cache),
        clients: clients::Clients::connect(&config.services, &config.service_token)?,
        captcha: config.captcha.clone().map(captcha::Captcha::new),
        token_signer: token_signer::TokenSigner::new(
            config.tokens.clone(),
            gatehouse_kit::sealing::SealingKey::from_service_token(&config.service_token),
        ),
        config,
    }))
}

/// The whole HTTP surface.
pub fn app(config: GatewayConfig) -> Result<axum::Router, GatewayError> {
    Ok(routes::router(state(config)?))
}

/// Serves the gateway on `listener` until `shutdown` is cancelled, draining in-flight requests.
/// Its metrics and health are on the operations listener (see `gatehouse_kit::server`).
pub async fn run(
    config: GatewayConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> Result<(), GatewayError> {
    tracing::info!(?config, "gateway configuration");
    let limits = config.http;
    let app = app(config)?;
    tracing::info!(addr = %listener.local_addr()?, "gateway serving {BASE_PATH}");
    gatehouse_kit::server::report_serving(&[]).await;
    gatehouse_kit::listener::serve(
        listener,
        app,
        gatehouse_kit::listener::Protocol::Http1,
        limits,
        error::request_timeout,
        shutdown,
    )
    .await?;
    Ok(())
}
