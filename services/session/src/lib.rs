//! The session service: sessions, their cache and their lifetimes. One capability, `session/`
//! (SessionService, the gateway's `session` route group); `convert` is the one place domain
//! types become proto messages.

pub mod config;
pub mod convert;
pub mod error;
pub mod session;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::consumer::{Consumer, RetryPolicy};
use gatehouse_kit::db::{Db, Migrations};
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

async fn start(
    db: Db,
    context: Context,
    shutdown: CancellationToken,
) -> Result<GrpcServices, BoxError> {
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
    Ok(GrpcServices::new().serve(session::grpc::server(sessions)))
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
