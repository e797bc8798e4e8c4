//! Standalone mode: every service and the gateway in one process, still talking real gRPC over
//! loopback, on SQLite files under `DATA_DIR`, with the in-memory bus and cache (unless URLs
//! say otherwise). The same code as distributed mode, wired by configuration.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;

use gatehouse_gateway::GatewayConfig;
use gatehouse_kit::config::{ConfigError, Env, SecretString};
use gatehouse_kit::service::{Context, ContextError, listen_var, url_var};
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
    /// Where each service listens, by part name.
    pub service_addrs: BTreeMap<&'static str, SocketAddr>,
    /// Cancel to stop everything (SIGTERM does).
    pub shutdown: CancellationToken,
    /// Cancelled by any part that stops on its own, so the rest follow it down.
    stopped: CancellationToken,
    gateway: Task,
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
        for service in self.services {
            if let Err(error) = service.stop().await {
                first_error.get_or_insert(error);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// The cookie secret: `AUTH_SECRET(_FILE)` if given, else generated once into
/// `DATA_DIR/secret` (mode 0600) and reused on every start.
pub fn load_or_create_secret(env: &Env, data_dir: &Path) -> Result<SecretString, StandaloneError> {
    if let Some(secret) = env.secret("AUTH_SECRET")? {
        return Ok(secret);
    }
    let path = data_dir.join("secret");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let existing = existing.trim().to_string();
        if existing.len() >= 32 {
            return Ok(existing.into());
        }
    }
    let secret = gatehouse_kit::ids::random_alphanumeric(64);
    write_private(&path, &secret).map_err(io(format!("writing {}", path.display())))?;
    tracing::info!(path = %path.display(), "generated a new cookie secret");
    Ok(secret.into())
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
    let data_dir = env.string("DATA_DIR", "./data");
    std::fs::create_dir_all(&data_dir).map_err(io(format!("creating DATA_DIR {data_dir}")))?;
    let secret = load_or_create_secret(env, Path::new(&data_dir))?;

    // Each service's listener first, so every part can be told where the others are.
    let mut listeners = Vec::new();
    let mut service_addrs = BTreeMap::new();
    let mut urls = Vec::new();
    for part in PARTS {
        let listener = bind(env, &listen_var(part.name()), part.default_listen()).await?;
        let addr = listener
            .local_addr()
            .map_err(io(format!("{} address", part.name())))?;
        service_addrs.insert(part.name(), addr);
        urls.push((url_var(part.name()), format!("http://{addr}")));
        listeners.push((*part, listener));
    }
    // One bus and one cache for every part in the process.
    let context = Context::from_env(env.clone().with(urls))?;
    let gateway_config = GatewayConfig::from_env(&context.env, Some(secret))?;
    let gateway_listener = bind(env, "GATEWAY_LISTEN", &gateway_config.listen.clone()).await?;
    let gateway_addr = gateway_listener
        .local_addr()
        .map_err(io("gateway address"))?;

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
    let gateway = Task::spawn("gateway", &stopped, |token| async move {
        gatehouse_gateway::run(gateway_config, gateway_listener, token)
            .await
            .map_err(|e| e.to_string())
    });
    tracing::info!(%gateway_addr, services = ?service_addrs, data_dir, "standalone mode running");
    Ok(Running {
        gateway_addr,
        service_addrs,
        shutdown,
        stopped,
        gateway,
        services,
    })
}
