//! The gateway: better-auth's HTTP protocol at `/api/auth`, translated to the services' gRPC
//! APIs. It owns cookies, origin checks, rate limits, request validation and the OpenAPI
//! document; the rules live in the services. A route is one handler and one registration line
//! in its group (`routes/<group>.rs`), named like the proto service and the service folder.

pub mod body;
pub mod client_ip;
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
pub mod web;
pub mod wire;

use gatehouse_kit::client::lazy_channel;
use gatehouse_proto::billing_webhook::v1::customer_service_client::CustomerServiceClient;
use gatehouse_proto::billing_webhook::v1::delivery_service_client::DeliveryServiceClient;
use gatehouse_proto::billing_webhook::v1::endpoint_service_client::EndpointServiceClient;
use gatehouse_proto::billing_webhook::v1::intake_service_client::IntakeServiceClient;
use gatehouse_proto::identity::v1::account_service_client::AccountServiceClient;
use gatehouse_proto::identity::v1::admin_service_client::AdminServiceClient;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::identity::v1::email_verification_service_client::EmailVerificationServiceClient;
use gatehouse_proto::identity::v1::password_reset_service_client::PasswordResetServiceClient;
use gatehouse_proto::identity::v1::username_service_client::UsernameServiceClient;
use gatehouse_proto::mailer::v1::mailbox_service_client::MailboxServiceClient;
use gatehouse_proto::organization::v1::invitation_service_client::InvitationServiceClient;
use gatehouse_proto::organization::v1::member_service_client::MemberServiceClient;
use gatehouse_proto::organization::v1::organization_service_client::OrganizationServiceClient;
use gatehouse_proto::organization::v1::team_service_client::TeamServiceClient;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;
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
    let identity = lazy_channel(&config.identity_url, &config.service_token)?;
    let organization = lazy_channel(&config.organization_url, &config.service_token)?;
    let billing_webhook = lazy_channel(&config.billing_webhook_url, &config.service_token)?;
    Ok(state::AppState::new(state::Shared {
        trusted: origin::TrustedOrigins::new(config.trusted_origins.clone()),
        cookies: cookies::CookieJar::new(&config.cookies),
        rate_limiter: rate_limit::RateLimiter::new(config.rate_limit.clone(), cache),
        email_password: EmailPasswordServiceClient::new(identity.clone()),
        accounts: AccountServiceClient::new(identity.clone()),
        usernames: UsernameServiceClient::new(identity.clone()),
        admin: AdminServiceClient::new(identity.clone()),
        email_verification: EmailVerificationServiceClient::new(identity.clone()),
        password_reset: PasswordResetServiceClient::new(identity),
        sessions: SessionServiceClient::new(lazy_channel(
            &config.session_url,
            &config.service_token,
        )?),
        mailbox: MailboxServiceClient::new(lazy_channel(
            &config.mailer_url,
            &config.service_token,
        )?),
        organizations: OrganizationServiceClient::new(organization.clone()),
        members: MemberServiceClient::new(organization.clone()),
        invitations: InvitationServiceClient::new(organization.clone()),
        teams: TeamServiceClient::new(organization),
        intake: IntakeServiceClient::new(billing_webhook.clone()),
        endpoints: EndpointServiceClient::new(billing_webhook.clone()),
        deliveries: DeliveryServiceClient::new(billing_webhook.clone()),
        customers: CustomerServiceClient::new(billing_webhook),
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
