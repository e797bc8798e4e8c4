//! What every service does at start, written once. A service crate exports one [`Part`]; the
//! `gatehouse` binary lists the parts, gives each a subcommand for distributed mode and runs
//! them all in standalone mode. [`serve`] opens the service's database (its migrations plus
//! kit's), starts the outbox relay, and serves its gRPC services (behind the service token)
//! until shutdown.

use std::future::Future;
use std::pin::Pin;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::server::NamedService;

use crate::bus::Bus;
use crate::cache::Cache;
use crate::config::{Backends, ConfigError, Env, SecretUrl};
use crate::db::{Db, DbError, Migrations};
use crate::foreground::Foreground;
use crate::listener::HttpLimits;
use crate::sealing::SealingKey;
use crate::service_auth::ServiceToken;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type PartFuture = Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send>>;

/// What a part runs with: its settings and the backends shared by every part of the process
/// (standalone mode hands every part the same in-memory bus and cache).
#[derive(Clone)]
pub struct Context {
    pub env: Env,
    /// `DATA_DIR` (default `./data`): SQLite files and the generated secret.
    pub data_dir: String,
    pub bus: Bus,
    pub cache: Cache,
    /// `SERVICE_TOKEN`: required on every call to this service, sent on every call it makes.
    pub service_token: ServiceToken,
    /// `HTTP_*`: the limits of every listener.
    pub http: HttpLimits,
    /// The requests the service counts: its outbox relay makes room for a burst of them, and
    /// so may its consumers ([`crate::foreground`]). Each part has its own ([`serve`]).
    pub foreground: Foreground,
}

#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("BUS_URL: {0}")]
    Bus(#[from] crate::bus::BusError),
    #[error("CACHE_URL: {0}")]
    Cache(#[from] crate::cache::CacheError),
}

impl Context {
    /// The backends named by `BUS_URL` and `CACHE_URL`.
    pub fn from_env(env: Env) -> Result<Self, ContextError> {
        let backends = Backends::from_env(&env)?;
        Ok(Self {
            data_dir: env.data_dir(),
            bus: backends.bus()?,
            cache: backends.cache()?,
            service_token: ServiceToken::from_env(&env)?,
            http: HttpLimits::from_env(&env)?,
            foreground: Foreground::default(),
            env,
        })
    }
}

/// One service of Gatehouse: `gatehouse <name>` runs it alone.
pub trait Part: Sync {
    /// Lower-case name: the subcommand, and the prefix of its settings (`<NAME>_LISTEN`,
    /// `<NAME>_URL`, `<NAME>_DATABASE_URL`).
    fn name(&self) -> &'static str;
    /// One line for `gatehouse --help`.
    fn about(&self) -> &'static str;
    /// The gRPC listen address when `<NAME>_LISTEN` is unset.
    fn default_listen(&self) -> &'static str;
    /// The operations listener (metrics, health) when `<NAME>_OPS_LISTEN` is unset.
    fn default_ops_listen(&self) -> &'static str;
    /// Applies the part's migrations to its database and returns (`gatehouse migrate <name>`,
    /// the init step of its pods). A part without a database does nothing.
    fn migrate(&self, env: Env) -> PartFuture;
    /// Runs until `shutdown` is cancelled.
    fn run(
        &self,
        context: Context,
        listener: TcpListener,
        shutdown: CancellationToken,
    ) -> PartFuture;
}

/// What a service's start returns: the gRPC services it serves.
pub type StartFuture = Pin<Box<dyn Future<Output = Result<GrpcServices, BoxError>> + Send>>;

/// A service described once: its name, its migrations, and what it starts on its database.
/// [`Part::run`] is [`serve`] with these, so no service writes its own start-up.
pub struct ServicePart {
    pub name: &'static str,
    pub about: &'static str,
    pub default_listen: &'static str,
    pub default_ops_listen: &'static str,
    pub migrations: &'static Migrations,
    /// Its database pool's size when `<NAME>_DATABASE_MAX_CONNECTIONS` is not set.
    pub database_connections: u32,
    /// Builds the service's gRPC services on its migrated database (and may spawn background
    /// work that stops with `shutdown`).
    pub start: fn(Db, Context, CancellationToken) -> StartFuture,
}

impl Part for ServicePart {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn default_listen(&self) -> &'static str {
        self.default_listen
    }

    fn default_ops_listen(&self) -> &'static str {
        self.default_ops_listen
    }

    fn migrate(&self, env: Env) -> PartFuture {
        let (name, migrations) = (self.name, self.migrations);
        Box::pin(async move {
            migrate(name, migrations, &env).await?;
            Ok(())
        })
    }

    fn run(
        &self,
        context: Context,
        listener: TcpListener,
        shutdown: CancellationToken,
    ) -> PartFuture {
        let (name, migrations, start) = (self.name, self.migrations, self.start);
        let pool = self.database_connections;
        Box::pin(async move {
            serve(name, migrations, pool, context, listener, shutdown, start).await?;
            Ok(())
        })
    }
}

/// The prefix of a part's settings: `IDENTITY` for `identity`, `BILLING_WEBHOOK` for
/// `billing-webhook` (a hyphen cannot be in an environment variable's name).
pub fn env_prefix(name: &str) -> String {
    name.to_ascii_uppercase().replace('-', "_")
}

/// `IDENTITY_LISTEN` for `identity`.
pub fn listen_var(name: &str) -> String {
    format!("{}_LISTEN", env_prefix(name))
}

/// `IDENTITY_OPS_LISTEN` for `identity`: its metrics and health.
pub fn ops_listen_var(name: &str) -> String {
    format!("{}_OPS_LISTEN", env_prefix(name))
}

/// `IDENTITY_URL` for `identity`: where other parts reach it.
pub fn url_var(name: &str) -> String {
    format!("{}_URL", env_prefix(name))
}

/// Where the gRPC service `name` listens, for its clients: `<NAME>_URL`, else its default
/// listen address.
pub fn service_url(env: &Env, name: &str, default_listen: &str) -> String {
    env.string(&url_var(name), &format!("http://{default_listen}"))
}

/// A service's database: `<NAME>_DATABASE_URL` (default `sqlite://$DATA_DIR/<name>.sqlite`)
/// and `<NAME>_DATABASE_MAX_CONNECTIONS` (default [`DEFAULT_DATABASE_CONNECTIONS`], or the
/// service's own), the same two settings for every service.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct DatabaseSettings {
    pub database_url: Option<SecretUrl>,
    pub database_max_connections: Option<u32>,
}

/// The pool size of a service that names none of its own.
pub const DEFAULT_DATABASE_CONNECTIONS: u32 = 10;

impl DatabaseSettings {
    pub fn from_env(env: &Env, name: &str) -> Result<Self, ConfigError> {
        env.load_prefixed(&format!("{}_", env_prefix(name)))
    }

    /// The pool size: the setting, else `default`.
    pub fn max_connections(&self, default: u32) -> u32 {
        self.database_max_connections.unwrap_or(default).max(1)
    }

    /// The URL to connect with, the default filled in.
    pub fn url(&self, data_dir: &str, name: &str) -> SecretUrl {
        self.database_url
            .clone()
            .unwrap_or_else(|| SecretUrl::new(format!("sqlite://{data_dir}/{name}.sqlite")))
    }
}

/// The gRPC services one process serves, with their names for the health service, and the
/// background work that must finish before the database closes at shutdown.
#[derive(Default)]
pub struct GrpcServices {
    pub(crate) routes: tonic::service::Routes,
    pub(crate) names: Vec<&'static str>,
    pub(crate) background: Vec<tokio::task::JoinHandle<()>>,
}

/// How long shutdown waits for background work (a batch of mail being sent) before it closes
/// the database anyway.
const BACKGROUND_DRAIN: std::time::Duration = std::time::Duration::from_secs(30);

impl GrpcServices {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn serve<S>(mut self, service: S) -> Self
    where
        S: tonic::codegen::Service<
                http::Request<tonic::body::Body>,
                Error = std::convert::Infallible,
            > + NamedService
            + Clone
            + Send
            + Sync
            + 'static,
        S::Response: axum::response::IntoResponse,
        S::Future: Send + 'static,
    {
        self.names.push(S::NAME);
        self.routes = self.routes.add_service(service);
        self
    }

    /// `task` (which stops on the shutdown token) finishes what it is doing before the
    /// database closes: work done but not recorded would be done again.
    pub fn drain(mut self, task: tokio::task::JoinHandle<()>) -> Self {
        self.background.push(task);
        self
    }
}

/// Serves gRPC services on `listener` until `shutdown` is cancelled; every call must carry
/// `token` (see [`crate::service_auth`]).
async fn serve_grpc(
    listener: TcpListener,
    services: GrpcServices,
    token: ServiceToken,
    limits: HttpLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let router = services
        .routes
        .into_axum_router()
        .layer(axum::middleware::from_fn(move |request, next| {
            crate::service_auth::require(token.clone(), request, next)
        }))
        .layer(axum::middleware::from_fn(crate::server::trace_request));
    let addr = listener.local_addr()?;
    crate::server::report_serving(&services.names).await;
    tracing::info!(%addr, services = ?services.names, "serving gRPC");
    crate::listener::serve(
        listener,
        router,
        crate::listener::Protocol::Http2,
        limits,
        crate::listener::grpc_timeout_response,
        shutdown,
    )
    .await
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("configuration: {0}")]
    Config(#[from] ConfigError),
    #[error("database: {0}")]
    Db(#[from] DbError),
    #[error("starting: {0}")]
    Start(BoxError),
    #[error("serving: {0}")]
    Serve(#[from] std::io::Error),
}

/// Applies a service's migrations (kit's and its own) to `<NAME>_DATABASE_URL` and closes the
/// connection. Serving applies them too, so this is the step that lets a deployment migrate
/// BEFORE new pods start: on PostgreSQL, sqlx holds an advisory lock while it migrates, so
/// replicas starting together apply each migration once.
pub async fn migrate(name: &str, migrations: &Migrations, env: &Env) -> Result<(), ServeError> {
    let database = DatabaseSettings::from_env(env, name)?;
    let url = database.url(&env.data_dir(), name);
    let db = Db::connect(url.expose(), 1, migrations).await?;
    tracing::info!(service = name, database = %url, "migrations applied");
    db.close().await;
    Ok(())
}

/// Runs a service: its database (`<NAME>_DATABASE_URL`, migrations applied), the outbox relay,
/// whatever `start` builds on that database, and the gRPC listener, until `shutdown`.
pub async fn serve<F, Fut>(
    name: &'static str,
    migrations: &Migrations,
    default_connections: u32,
    context: Context,
    listener: TcpListener,
    shutdown: CancellationToken,
    start: F,
) -> Result<(), ServeError>
where
    F: FnOnce(Db, Context, CancellationToken) -> Fut,
    Fut: Future<Output = Result<GrpcServices, BoxError>>,
{
    let database = DatabaseSettings::from_env(&context.env, name)?;
    let url = database.url(&context.data_dir, name);
    let max_connections = database.max_connections(default_connections);
    tracing::info!(
        service = name,
        database = %url,
        max_connections,
        bus = context.bus.describe(),
        cache = context.cache.describe(),
        "service configuration"
    );
    let db = Db::connect(url.expose(), max_connections, migrations)
        .await?
        .with_sealing(SealingKey::from_service_token(&context.service_token));
    // Its own: in one process (standalone), a burst at one part slows no other's relay.
    let context = Context {
        foreground: Foreground::default(),
        ..context
    };
    crate::outbox::spawn_relay(
        db.clone(),
        context.bus.clone(),
        crate::outbox::RelayConfig {
            yields_to: Some(context.foreground.clone()),
            ..crate::outbox::RelayConfig::default()
        },
        shutdown.clone(),
    );
    let (token, limits) = (context.service_token.clone(), context.http);
    let mut services = start(db.clone(), context, shutdown.clone())
        .await
        .map_err(ServeError::Start)?;
    let background = std::mem::take(&mut services.background);
    serve_grpc(listener, services, token, limits, shutdown).await?;
    for task in background {
        if tokio::time::timeout(BACKGROUND_DRAIN, task).await.is_err() {
            tracing::warn!(
                service = name,
                "background work still running at shutdown; closing anyway"
            );
        }
    }
    db.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_services_own_pool_size_applies_unless_its_setting_names_one() {
        let unset = DatabaseSettings::from_env(
            &Env::from_pairs::<[(&str, &str); 0], _, _>([]),
            "billing-webhook",
        )
        .unwrap();
        assert_eq!(unset.max_connections(20), 20);
        let env = Env::from_pairs([("BILLING_WEBHOOK_DATABASE_MAX_CONNECTIONS", "5")]);
        let set = DatabaseSettings::from_env(&env, "billing-webhook").unwrap();
        assert_eq!(set.max_connections(20), 5);
        let zero = Env::from_pairs([("BILLING_WEBHOOK_DATABASE_MAX_CONNECTIONS", "0")]);
        let zero = DatabaseSettings::from_env(&zero, "billing-webhook").unwrap();
        assert_eq!(zero.max_connections(20), 1, "never an empty pool");
    }
}
