//! Standalone mode: every service and the gateway in one process, still talking real gRPC over
//! loopback, on SQLite files under `DATA_DIR`, with the in-memory bus and cache (unless URLs
//! say otherwise). The same code as distributed mode, wired by configuration.

use std::net::SocketAddr;
use std::path::Path;

use gatehouse_kit::config::{Backends, ConfigError, Env};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::GatewayConfig;

#[derive(Debug, thiserror::Error)]
pub enum StandaloneError {
    #[error("configuration: {0}")]
    Config(#[from] ConfigError),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("BUS_URL: {0}")]
    Bus(#[from] gatehouse_kit::bus::BusError),
    #[error("CACHE_URL: {0}")]
    Cache(#[from] gatehouse_kit::cache::CacheError),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> StandaloneError {
    let what = what.into();
    move |source| StandaloneError::Io { what, source }
}

/// A running stack.
pub struct Running {
    pub gateway_addr: SocketAddr,
    pub identity_addr: SocketAddr,
    pub session_addr: SocketAddr,
    /// Cancel to stop everything (SIGTERM does).
    pub shutdown: CancellationToken,
    /// Cancelled by any part that stops on its own, so the rest follow it down.
    stopped: CancellationToken,
    gateway: Part,
    services: Vec<Part>,
}

struct Part {
    name: &'static str,
    token: CancellationToken,
    task: JoinHandle<Result<(), String>>,
}

impl Part {
    fn spawn<F>(
        name: &'static str,
        stopped: &CancellationToken,
        run: impl FnOnce(CancellationToken) -> F,
    ) -> Part
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
        Part { name, token, task }
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
pub fn load_or_create_secret(env: &Env, data_dir: &Path) -> Result<String, StandaloneError> {
    if let Some(secret) = env.secret("AUTH_SECRET")? {
        return Ok(secret);
    }
    let path = data_dir.join("secret");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let existing = existing.trim().to_string();
        if existing.len() >= 32 {
            return Ok(existing);
        }
    }
    let secret = gatehouse_kit::ids::random_alphanumeric(64);
    write_private(&path, &secret).map_err(io(format!("writing {}", path.display())))?;
    tracing::info!(path = %path.display(), "generated a new cookie secret");
    Ok(secret)
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

/// Starts identity, session and the gateway; returns once all three are listening.
pub async fn start(env: &Env, shutdown: CancellationToken) -> Result<Running, StandaloneError> {
    let data_dir = env.string("DATA_DIR", "./data");
    std::fs::create_dir_all(&data_dir).map_err(io(format!("creating DATA_DIR {data_dir}")))?;
    let secret = load_or_create_secret(env, Path::new(&data_dir))?;
    // One bus and one cache for every service in the process.
    let backends = Backends::from_env(env)?;
    let (bus, cache) = (backends.bus()?, backends.cache()?);

    let identity_listener = bind(env, "IDENTITY_LISTEN", "127.0.0.1:50051").await?;
    let session_listener = bind(env, "SESSION_LISTEN", "127.0.0.1:50052").await?;
    let gateway_config = GatewayConfig::from_env(env, Some(secret))?;
    let gateway_listener = bind(env, "GATEWAY_LISTEN", &gateway_config.listen).await?;
    let identity_addr = identity_listener
        .local_addr()
        .map_err(io("identity address"))?;
    let session_addr = session_listener
        .local_addr()
        .map_err(io("session address"))?;
    let gateway_addr = gateway_listener
        .local_addr()
        .map_err(io("gateway address"))?;

    let identity_config = gatehouse_identity::IdentityConfig::from_env(env, &data_dir)?;
    let mut session_config = gatehouse_session::SessionConfig::from_env(env, &data_dir)?;
    session_config.identity_url = format!("http://{identity_addr}");
    let mut gateway_config = gateway_config;
    gateway_config.identity_url = format!("http://{identity_addr}");
    gateway_config.session_url = format!("http://{session_addr}");

    let stopped = CancellationToken::new();
    let identity_bus = bus.clone();
    let identity = Part::spawn("identity", &stopped, |token| async move {
        gatehouse_identity::run(identity_config, identity_bus, identity_listener, token)
            .await
            .map_err(|e| e.to_string())
    });
    let session = Part::spawn("session", &stopped, |token| async move {
        gatehouse_session::run(session_config, bus, cache, session_listener, token)
            .await
            .map_err(|e| e.to_string())
    });
    let gateway = Part::spawn("gateway", &stopped, |token| async move {
        crate::run(gateway_config, gateway_listener, token)
            .await
            .map_err(|e| e.to_string())
    });
    tracing::info!(%gateway_addr, %identity_addr, %session_addr, data_dir, "standalone mode running");
    Ok(Running {
        gateway_addr,
        identity_addr,
        session_addr,
        shutdown,
        stopped,
        gateway,
        services: vec![identity, session],
    })
}
