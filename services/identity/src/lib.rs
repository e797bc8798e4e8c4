//! The identity service: users and the credentials they sign in with.
//!
//! `store` owns the tables, `password` the hashing pool, `domain` the rules (sign-up,
//! sign-in), `grpc` the `gatehouse.identity.v1.IdentityService` API over them.

pub mod config;
pub mod domain;
pub mod grpc;
pub mod password;
pub mod store;

use gatehouse_kit::bus::Bus;
use gatehouse_kit::db::{Db, Migrations};
use gatehouse_kit::outbox;
use sqlx::migrate::Migrator;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use config::IdentityConfig;

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/postgres");

pub const MIGRATIONS: Migrations = Migrations {
    sqlite: &SQLITE_MIGRATIONS,
    postgres: &POSTGRES_MIGRATIONS,
};

/// Opens the database, starts the outbox relay and serves the gRPC API on `listener` until
/// `shutdown` is cancelled.
pub async fn run(
    config: IdentityConfig,
    bus: Bus,
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
    let store = store::IdentityStore::new(db.clone(), signal);
    let hasher = password::Hasher::new(config.hash_pool_size, config.hash_queue_limit);
    let identity = domain::Identity::new(
        store,
        hasher,
        config.password_min_length,
        config.password_max_length,
    );
    let routes = tonic::service::Routes::new(grpc::server(identity));
    gatehouse_kit::server::serve_grpc(listener, routes, grpc::SERVICE_NAME, shutdown).await?;
    db.close().await;
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Db(#[from] gatehouse_kit::db::DbError),
    #[error("serving: {0}")]
    Serve(#[from] std::io::Error),
}
