//! The session service: sessions, their cache and their lifetimes (`session/`: SessionService,
//! the gateway's `session` route group), and the key pairs that sign users' tokens (`token/`:
//! TokenService, the gateway's `token` route group); `convert` is the one place domain types
//! become proto messages.

pub mod config;
pub mod convert;
pub mod error;
pub mod session;
pub mod token;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::consumer::{Consumer, RetryPolicy};
use gatehouse_kit::db::{Db, Migrations};
use gatehouse_kit::sealing::SealingKey;
use gatehouse_kit::service::{BoxError, Context, GrpcServices, ServicePart};
use gatehouse_proto::events::{SESSION_ORGANIZATION_EVENTS, SESSION_USER_EVENTS};
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;
use tokio_util::sync::CancellationToken;

pub use config::SessionConfig;
pub use gatehouse_proto::session::{DEFAULT_LISTEN, NAME};

pub const MIGRATIONS: Migrations = gatehouse_kit::service_migrations!();

/// How often expired sessions are swept from the table.
const SWEEP_INTERVAL: Duration = Duration::from_secs(600);

/// The session service as a part of the `gatehouse` binary.
pub const SERVICE: ServicePart = ServicePart {
    name: NAME,
    about: "The session service alone",
    default_listen: DEFAULT_LISTEN,
    default_ops_listen: "127.0.0.1:9302",
    migrations: &MIGRATIONS,
    database_connections: gatehouse_kit::service::DEFAULT_DATABASE_CONNECTIONS,
    start: |db, context, shutdown| Box::pin(start(db, context, shutdown)),
};

/// The session rules over `db`, reading users from `IDENTITY_URL`.
pub fn sessions(db: Db, context: &Context) -> Result<session::Sessions, BoxError> {
    let config = SessionConfig::from_env(&context.env)?;
    tracing::info!(?config, "session configuration");
    let users = UserServiceClient::new(gatehouse_kit::client::lazy_channel(
        &config.identity_url,
        &context.service_token,
    )?);
    let cache_key = context.service_token.derive(session::cache::KEY_PURPOSE);
    Ok(session::Sessions::new(
        db,
        session::cache::SessionCache::new(context.cache.clone(), config.cache_ttl, cache_key),
        users,
        config.lifetimes,
    ))
}

/// The signing keys over `db`, their private halves encrypted with keys derived from the auth
/// secret.
pub fn signing_keys(db: Db, context: &Context) -> Result<token::SigningKeys, BoxError> {
    let settings = config::TokenSettings::from_env(&context.env)?;
    let secrets = match AuthSecrets::from_env(&context.env)? {
        Some(secrets) => secrets,
        None => {
            // Keys written under a key of this run alone do not open after a restart: each
            // start mints a new one (tokens already handed out still verify while published).
            tracing::warn!(
                "AUTH_SECRET is not set: signing keys are encrypted with a key of this run only"
            );
            AuthSecrets::single(gatehouse_kit::ids::random_alphanumeric(48).into())?
        }
    };
    Ok(token::SigningKeys::new(
        db,
        secrets.vault(token::VAULT_PURPOSE),
        settings,
    ))
}

async fn start(
    db: Db,
    context: Context,
    shutdown: CancellationToken,
) -> Result<GrpcServices, BoxError> {
    let signing_keys = signing_keys(db.clone(), &context)?;
    let sealing = SealingKey::from_service_token(&context.service_token);
    let sessions = sessions(db.clone(), &context)?;
    spawn_sweeper(sessions.clone(), shutdown.clone());
    Consumer {
        queue: SESSION_USER_EVENTS.name,
        db: db.clone(),
        bus: context.bus.clone(),
        handler: Arc::new(session::events::UserEvents {
            cache: sessions.cache().clone(),
        }),
        retry: RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown.clone());
    Consumer {
        queue: SESSION_ORGANIZATION_EVENTS.name,
        db,
        bus: context.bus.clone(),
        handler: Arc::new(session::events::OrganizationEvents {
            cache: sessions.cache().clone(),
        }),
        retry: RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown);
    Ok(GrpcServices::new()
        .serve(session::grpc::server(sessions))
        .serve(token::grpc::server(signing_keys, sealing)))
}

fn spawn_sweeper(sessions: session::Sessions, shutdown: CancellationToken) {
    tokio::spawn(async move {
        loop {
            match sessions.sweep().await {
                Ok(0) => {}
                Ok(count) => tracing::info!(count, "deleted expired sessions"),
                Err(error) => tracing::warn!(%error, "expired-session sweep failed"),
            }
            tokio::select! {
                _ = tokio::time::sleep(SWEEP_INTERVAL) => {}
                _ = shutdown.cancelled() => break,
            }
        }
    });
}
