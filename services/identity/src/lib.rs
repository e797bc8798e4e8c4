//! The identity service: users and the credentials they sign in with. One folder per
//! capability, each matching a proto service and a gateway route group of the same name:
//! `user/` (UserService), `email_password/` (EmailPasswordService). `password` is the hashing
//! pool they share; `convert` the one place domain types become proto messages.

pub mod config;
pub mod convert;
pub mod email_password;
pub mod error;
pub mod password;
pub mod user;

use gatehouse_kit::db::Migrations;
use gatehouse_kit::service::{self, BoxError, Context, GrpcServices, Part, PartFuture};
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

pub use gatehouse_proto::identity::{DEFAULT_LISTEN, NAME};

/// The identity service as a part of the `gatehouse` binary.
pub struct Service;

impl Part for Service {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "The identity service alone (users, credentials)"
    }

    fn default_listen(&self) -> &'static str {
        DEFAULT_LISTEN
    }

    fn run(
        &self,
        context: Context,
        listener: TcpListener,
        shutdown: CancellationToken,
    ) -> PartFuture {
        Box::pin(async move {
            service::serve(NAME, &MIGRATIONS, context, listener, shutdown, start).await?;
            Ok(())
        })
    }
}

async fn start(
    db: gatehouse_kit::db::Db,
    context: Context,
    _shutdown: CancellationToken,
) -> Result<GrpcServices, BoxError> {
    let config = IdentityConfig::from_env(&context.env)?;
    tracing::info!(?config, "identity configuration");
    let hasher = password::Hasher::new(config.hash_pool_size, config.hash_queue_limit);
    let rules = email_password::EmailPassword::new(
        db.clone(),
        hasher,
        config.password_min_length,
        config.password_max_length,
    );
    Ok(GrpcServices::new()
        .serve(user::grpc::server(user::Users::new(db)))
        .serve(email_password::grpc::server(rules)))
}
