//! The session service: sessions, their cache and their lifetimes.
//!
//! `store` owns the table, `sessions` the rules (sliding refresh, remember-me, expiry, the
//! read-through cache), `grpc` the `gatehouse.session.v1.SessionService` API.

pub mod config;
pub mod grpc;
pub mod sessions;
pub mod store;

use std::time::Duration;

use gatehouse_kit::bus::Bus;
use gatehouse_kit::cache::Cache;
use gatehouse_kit::db::{Db, Migrations};
use gatehouse_kit::outbox;
use gatehouse_proto::identity::v1::identity_service_client::IdentityServiceClient;
use sqlx::migrate::Migrator;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use config::SessionConfig;

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/postgres");

pub const MIGRATIONS: Migrations = Migrations {
    sqlite: &SQLITE_MIGRATIONS,
    postgres: &POSTGRES_MIGRATIONS,
};

/// How often expired sessions are swept from the table.
const SWEEP_INTERVAL: Duration = Duration::from_secs(600);

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Db(#[from] gatehouse_kit::db::DbError),
    #[error("IDENTITY_URL: {0}")]
    IdentityUrl(#[from] tonic::transport::Error),
    #[error("serving: {0}")]
    Serve(#[from] std::io::Error),
}

/// Opens the database, starts the outbox relay and the expiry sweeper, and serves the gRPC
/// API on `listener` until `shutdown` is cancelled.
pub async fn run(
    config: SessionConfig,
    bus: Bus,
    cache: Cache,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> Result<(), RunError> {
    let db = Db::connect(
        &config.database_url,
        config.database_max_connections,
        &MIGRATIONS,
    )
    .await?;
    let signal = outbox::spawn_relay(db.clone(), bus, shutdown.clone());
    let identity =
        IdentityServiceClient::new(gatehouse_kit::client::lazy_channel(&config.identity_url)?);
    let sessions = sessions::Sessions::new(
        store::SessionStore::new(db.clone(), signal),
        cache,
        identity,
        config.lifetimes,
        config.cache_ttl,
    );
    spawn_sweeper(sessions.clone(), shutdown.clone());
    let routes = tonic::service::Routes::new(grpc::server(sessions));
    gatehouse_kit::server::serve_grpc(listener, routes, grpc::SERVICE_NAME, shutdown).await?;
    db.close().await;
    Ok(())
}

fn spawn_sweeper(sessions: sessions::Sessions, shutdown: CancellationToken) {
    tokio::spawn(async move {
        loop {
            match sessions.sweep().await {
                Ok(0) => {}
                Ok(count) => tracing::info!(count, "deleted expired sessions"),
                Err(code) => tracing::warn!(code = code.code(), "expired-session sweep failed"),
            }
            tokio::select! {
                _ = tokio::time::sleep(SWEEP_INTERVAL) => {}
                _ = shutdown.cancelled() => break,
            }
        }
    });
}
