//! Standalone mode: every service and the gateway in one process, still talking real gRPC over
//! loopback, on SQLite files under `DATA_DIR`, with the in-memory bus and cache (unless URLs
//! say otherwise). The same code as distributed mode, wired by configuration.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;

use gatehouse_gateway::GatewayConfig;
use gatehouse_kit::auth_secret::{self, AuthSecrets};
use gatehouse_kit::config::{ConfigError, Env, ExposeSecret, SecretString};
use gatehouse_kit::service::{Context, ContextError, listen_var, url_var};
use gatehouse_kit::service_auth::{self, ServiceToken};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::PARTS;

#[derive(Debug, thiserror::Error)]
pub enum StandaloneError {
    #[error("configuration: {0}")]
    Config(#[from] ConfigError),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Context(#[from] ContextError),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> StandaloneError {
    let what = what.into();
    move |source| StandaloneError::Io { what, source }
}

/// A running stack.
pub struct Running {
    pub gateway_addr: SocketAddr,
    /// `BASE_URL`: where browsers reach the web app (its origin is the trusted one).
    pub base_url: url::Url,
    /// Metrics and health (`GATEWAY_OPS_LISTEN`).
    pub ops_addr: SocketAddr,
    /// Where each service listens, by part name.
    pub service_addrs: BTreeMap<&'static str, SocketAddr>,
    /// What calls to the services must carry.
    pub service_token: ServiceToken,
    /// Cancel to stop everything (SIGTERM does).
    pub shutdown: CancellationToken,
    /// Cancelled by any part that stops on its own, so the rest follow it down.
    stopped: CancellationToken,
    gateway: Task,
    operations: Task,
    services: Vec<Task>,
}

struct Task {
    name: &'static str,
    token: CancellationToken,
    task: JoinHandle<Result<(), String>>,
}

impl Task {
    fn spawn<F>(
        name: &'static str,
        stopped: &CancellationToken,
        run: impl FnOnce(CancellationToken) -> F,
    ) -> Task
    where
        F: std::future::Future<Output = Result<(), String>> + Send + 'static,
    {
        let token = CancellationToken::new();
        let work = run(token.clone());
        let stopped = stopped.clone();
        let task = tokio::spawn(async move {
            let result = work.await;
            // One part stopping takes the whole process down rather than limping on with 503s.
            stopped.cancel();
            result
        });
        Task { name, token, task }
    }

    async fn stop(self) -> Result<(), String> {
        self.token.cancel();
        let result = match self.task.await {
            Ok(result) => result,
            Err(join) => Err(join.to_string()),
        };
        result.map_err(|error| {
            tracing::error!(service = self.name, %error, "stopped with an error");
            format!("{}: {error}", self.name)
        })
    }
}

impl Running {
    /// Where the service `name` listens.
    pub fn addr(&self, name: &str) -> SocketAddr {
        self.service_addrs[name]
    }

    /// Runs until `shutdown` is cancelled or any part stops, then stops the gateway first (it
    /// drains its in-flight requests while the services still answer them), then the services.
    /// Returns the first failure, if any.
    pub async fn wait(self) -> Result<(), String> {
        tokio::select! {
            _ = self.shutdown.cancelled() => {}
            _ = self.stopped.cancelled() => {}
        }
        let mut first_error = self.gateway.stop().await.err();
        if let Err(error) = self.operations.stop().await {
            first_error.get_or_insert(error);
        }
        for service in self.services {
            if let Err(error) = service.stop().await {
                first_error.get_or_insert(error);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// The auth secret when none is configured (`AUTH_SECRET`, `AUTH_SECRETS`): generated once
/// into `DATA_DIR/secret` (mode 0600) and reused on every start, since cookies and provider
/// tokens at rest depend on it. `None` when one is configured.
pub fn load_or_create_secret(
    env: &Env,
    data_dir: &Path,
) -> Result<Option<SecretString>, StandaloneError> {
    if AuthSecrets::from_env(env)?.is_some() {
        return Ok(None);
    }
    let path = data_dir.join("secret");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let existing = existing.trim().to_string();
        if existing.len() >= 32 {
            return Ok(Some(existing.into()));
        }
    }
    let secret = gatehouse_kit::ids::random_alphanumeric(64);
    write_private(&path, &secret).map_err(io(format!("writing {}", path.display())))?;
    tracing::info!(path = %path.display(), "generated a new auth secret");
    Ok(Some(secret.into()))
}

fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(contents.as_bytes())
}

async fn bind(env: &Env, name: &str, default: &str) -> Result<TcpListener, StandaloneError> {
    let addr = env.string(name, default);
    TcpListener::bind(&addr)
        .await
        .map_err(io(format!("{name}: cannot listen on {addr}")))
}

/// Starts every part and the gateway; returns once all are listening.
pub async fn start(env: &Env, shutdown: CancellationToken) -> Result<Running, StandaloneError> {
    let data_dir = env.data_dir();
    std::fs::create_dir_all(&data_dir).map_err(io(format!("creating DATA_DIR {data_dir}")))?;
    let secret = load_or_create_secret(env, Path::new(&data_dir))?;

    // Each service's listener first, so every part can be told where the others are. They
    // are internal: loopback only.
    let mut listeners = Vec::new();
    let mut service_addrs = BTreeMap::new();
    let mut overrides = Vec::new();
    for part in PARTS {
        let var = listen_var(part.name());
        let listener = bind(env, &var, part.default_listen()).await?;
        let addr = listener
            .local_addr()
            .map_err(io(format!("{} address", part.name())))?;
        if !addr.ip().is_loopback() {
            return Err(StandaloneError::Config(ConfigError::Invalid {
                name: var,
                value: addr.to_string(),
                reason: "standalone mode serves its internal services on loopback only".into(),
            }));
        }
        service_addrs.insert(part.name(), addr);
        overrides.push((url_var(part.name()), format!("http://{addr}")));
        listeners.push((*part, listener));
    }
    // The parts' calls to each other carry the service token: `SERVICE_TOKEN` when given,
    // else one made for this run, so nothing outside the process can call the services.
    let token = match env.secret(service_auth::VAR)? {
        Some(given) => ServiceToken::new(given.expose_secret())?,
        None => ServiceToken::generate(),
    };
    overrides.push((service_auth::VAR.to_string(), token.expose().to_string()));
    if let Some(secret) = secret {
        overrides.push((
            auth_secret::VAR.to_string(),
            secret.expose_secret().to_string(),
        ));
    }
    // One bus and one cache for every part in the process.
    let context = Context::from_env(env.clone().with(overrides))?;
    let gateway_config = GatewayConfig::from_env(&context.env)?;
    let gateway_listener = bind(env, "GATEWAY_LISTEN", &gateway_config.listen.clone()).await?;
    let gateway_addr = gateway_listener
        .local_addr()
        .map_err(io("gateway address"))?;
    let base_url = gateway_config.base_url.clone();
    // One operations listener for the whole process (one metrics registry, one health).
    let ops_listener = bind(
        env,
        "GATEWAY_OPS_LISTEN",
        &gateway_config.ops_listen.clone(),
    )
    .await?;
    let ops_addr = ops_listener
        .local_addr()
        .map_err(io("operations address"))?;

    let stopped = CancellationToken::new();
    let services = listeners
        .into_iter()
        .map(|(part, listener)| {
            let context = context.clone();
            Task::spawn(part.name(), &stopped, |token| async move {
                part.run(context, listener, token)
                    .await
                    .map_err(|e| e.to_string())
            })
        })
        .collect();
    let ops_limits = context.http;
    let operations = Task::spawn("operations", &stopped, |token| async move {
        gatehouse_kit::server::serve_operations(ops_listener, ops_limits, token)
            .await
            .map_err(|e| e.to_string())
    });
    let gateway = Task::spawn("gateway", &stopped, |token| async move {
        gatehouse_gateway::run(gateway_config, gateway_listener, token)
            .await
            .map_err(|e| e.to_string())
    });
    tracing::info!(%gateway_addr, %ops_addr, services = ?service_addrs, data_dir, "standalone mode running");
    Ok(Running {
        gateway_addr,
        base_url,
        ops_addr,
        service_addrs,
        service_token: token,
        operations,
        shutdown,
        stopped,
        gateway,
        services,
    })
}
