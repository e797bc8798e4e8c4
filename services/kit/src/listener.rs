//! Every listener of every process is served here (the gateway's public port, the services'
//! gRPC ports, the operations listeners), with the limits a port facing the internet needs.
//! `axum::serve` has none of them, so a client sending one header byte per second, or a
//! thousand idle connections, would hold the server for as long as it liked.
//!
//! - **Header timeout** (`HTTP_HEADER_TIMEOUT_MS`): from accepting a connection, or from a
//!   request's first byte, to its complete head. HTTP/2 (the gRPC listeners only: the public and
//!   operations listeners speak HTTP/1 alone) gets it for its preface; its frames arrive between
//!   requests, so after that only the idle timeout applies.
//! - **Request timeout** (`HTTP_REQUEST_TIMEOUT_MS`): the handler, body reading included; the
//!   listener's own timeout response is sent instead.
//! - **Idle timeout** (`HTTP_IDLE_TIMEOUT_MS`): a kept-alive connection with no request in flight
//!   and no bytes moving is shut down gracefully (HTTP/2: GOAWAY). The services' clients ping
//!   idle channels more often than this, so healthy internal channels are never cut.
//! - **Connection limit** (`HTTP_MAX_CONNECTIONS`): past it, new connections wait in the
//!   kernel's backlog until one closes.
//!
//! hyper's own `header_read_timeout` also runs while a kept-alive connection waits for its next
//! request, so it cannot be told apart from the idle timeout; one watchdog per connection
//! applies both.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::config::{ConfigError, Env};

/// The limits of one listener (every listener of a process shares the settings).
#[derive(Clone, Copy, Debug, serde::Deserialize)]
#[serde(default)]
pub struct HttpLimits {
    /// `HTTP_HEADER_TIMEOUT_MS` (default 10000).
    pub http_header_timeout_ms: u64,
    /// `HTTP_REQUEST_TIMEOUT_MS` (default 30000).
    pub http_request_timeout_ms: u64,
    /// `HTTP_IDLE_TIMEOUT_MS` (default 60000).
    pub http_idle_timeout_ms: u64,
    /// `HTTP_MAX_CONNECTIONS` (default 4096), per listener.
    pub http_max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            http_header_timeout_ms: 10_000,
            http_request_timeout_ms: 30_000,
            http_idle_timeout_ms: 60_000,
            http_max_connections: 4096,
        }
    }
}

impl HttpLimits {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let limits: Self = env.load()?;
        Ok(Self {
            http_max_connections: limits.http_max_connections.max(1),
            ..limits
        })
    }

    fn header_timeout(&self) -> Duration {
        Duration::from_millis(self.http_header_timeout_ms)
    }

    fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.http_request_timeout_ms)
    }

    fn idle_timeout(&self) -> Duration {
        Duration::from_millis(self.http_idle_timeout_ms)
    }

    /// How often a connection's watchdog looks: a quarter of the shorter timeout, within
    /// 50 ms..1 s, so a timeout is applied at most 25% late.
    fn tick(&self) -> Duration {
        (self.header_timeout().min(self.idle_timeout()) / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(1))
    }
}

/// What a listener answers when a request outlives the request timeout.
pub type TimeoutResponse = fn() -> Response;

/// Which HTTP a listener speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The public and operations listeners: browsers and probes speak HTTP/1.1 (TLS and HTTP/2
    /// end at the ingress), and refusing h2c closes HTTP/2's slow-client gaps there.
    Http1,
    /// gRPC (HTTP/2 with prior knowledge).
    Http2,
    /// Either, told apart by the HTTP/2 preface: the operations listener (HTTP probes and
    /// gRPC health checks; loopback or cluster-internal).
    Both,
}

/// How long a connection told to close may take to finish what it is doing.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` under `limits` until `shutdown`, then lets in-flight requests
/// finish. Requests carry `ConnectInfo<SocketAddr>`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    protocol: Protocol,
    limits: HttpLimits,
    on_timeout: TimeoutResponse,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.http_max_connections));
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder = match protocol {
        Protocol::Http1 => builder.http1_only(),
        Protocol::Http2 => builder.http2_only(),
        Protocol::Both => builder,
    };
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            () = shutdown.cancelled() => break,
        };
        let Ok(slot) = slot else { break };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, usually: wait instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        if let Err(error) = stream.set_nodelay(true) {
            // Without it, small responses wait for the peer's delayed ACK (p99 +39 ms measured).
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let activity = Arc::new(Activity::new(protocol));
        let io = TokioIo::new(Watched {
            stream,
            activity: activity.clone(),
        });
        let service = PerConnection {
            app: app.clone(),
            peer,
            activity: activity.clone(),
            request_timeout: limits.request_timeout(),
            on_timeout,
        };
        let connection = builder
            .serve_connection(io, TowerToHyperService::new(service))
            .into_owned();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut connection = std::pin::pin!(connection);
            let reason = tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%error, %peer, "connection ended with an error");
                    }
                    return;
                }
                reason = activity.watchdog(limits) => reason,
                () = shutdown.cancelled() => "shutdown",
            };
            metrics::counter!("http_connections_closed_total", "reason" => reason).increment(1);
            tracing::debug!(%peer, reason, "closing connection");
            if reason == "header" {
                // A head that never completes: nothing to finish, and hyper would wait for it.
                return;
            }
            // Finish the request in flight (if any), then close: HTTP/1 answers with
            // `Connection: close`, HTTP/2 sends GOAWAY. A connection that will not finish
            // within the grace period is dropped.
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(CLOSE_GRACE, connection).await;
        });
    }
    drop(listener);
    // Every connection holds a slot until it has closed: having them all means drained.
    let _ = slots.acquire_many(limits.http_max_connections as u32).await;
    Ok(())
}

/// A connection's activity, as its watchdog sees it.
struct Activity {
    epoch: Instant,
    in_flight: AtomicUsize,
    /// Milliseconds since `epoch` of the last byte in or out.
    last_io: AtomicU64,
    /// Milliseconds since `epoch` (plus one, so 0 means none) of the first byte of a request
    /// head that has not been dispatched yet.
    head_started: AtomicU64,
    /// An HTTP/2 connection: the header timeout covers only its preface.
    http2: AtomicBool,
    /// Bytes an HTTP/2 connection has sent (until its preface is complete).
    seen: AtomicUsize,
    /// HTTP/1 or HTTP/2, as the first bytes say.
    detect_http2: bool,
}

const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

impl Activity {
    fn new(protocol: Protocol) -> Self {
        Self {
            epoch: Instant::now(),
            in_flight: AtomicUsize::new(0),
            last_io: AtomicU64::new(0),
            // The first head (or HTTP/2 preface) is due from the moment of accepting.
            head_started: AtomicU64::new(1),
            http2: AtomicBool::new(protocol == Protocol::Http2),
            detect_http2: protocol == Protocol::Both,
            seen: AtomicUsize::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn read(&self, bytes: &[u8]) {
        let now = self.now();
        self.last_io.store(now, Ordering::Relaxed);
        if self.detect_http2 && self.seen.load(Ordering::Relaxed) == 0 {
            self.http2
                .store(bytes.starts_with(&H2_PREFACE[..4]), Ordering::Relaxed);
        }
        if self.http2.load(Ordering::Relaxed) {
            // The preface is the first thing an HTTP/2 client sends: once it is here, frames
            // between requests are normal and only the idle timeout applies.
            if self.head_started.load(Ordering::Acquire) != 0 {
                let seen = self.seen.fetch_add(bytes.len(), Ordering::Relaxed) + bytes.len();
                if seen >= H2_PREFACE.len() {
                    self.head_started.store(0, Ordering::Release);
                }
            }
            return;
        }
        if self.in_flight.load(Ordering::Acquire) == 0 {
            let _ =
                self.head_started
                    .compare_exchange(0, now + 1, Ordering::AcqRel, Ordering::Relaxed);
        }
    }

    fn wrote(&self) {
        self.last_io.store(self.now(), Ordering::Relaxed);
    }

    fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_started.store(0, Ordering::Release);
    }

    fn request_finished(&self) {
        self.last_io.store(self.now(), Ordering::Relaxed);
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Resolves when the connection should be closed, with the reason.
    async fn watchdog(&self, limits: HttpLimits) -> &'static str {
        let header = limits.header_timeout().as_millis() as u64;
        let idle = limits.idle_timeout().as_millis() as u64;
        loop {
            tokio::time::sleep(limits.tick()).await;
            if self.in_flight.load(Ordering::Acquire) > 0 {
                continue;
            }
            let now = self.now();
            let head_started = self.head_started.load(Ordering::Acquire);
            if head_started > 0 {
                if now.saturating_sub(head_started - 1) > header {
                    return "header";
                }
            } else if now.saturating_sub(self.last_io.load(Ordering::Relaxed)) > idle {
                return "idle";
            }
        }
    }
}

/// The TCP stream, reporting every read and write to the connection's [`Activity`].
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read(&buf.filled()[before..]);
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The app as one connection calls it: the peer address attached, the request timed.
#[derive(Clone)]
struct PerConnection {
    app: Router,
    peer: SocketAddr,
    activity: Arc<Activity>,
    request_timeout: Duration,
    on_timeout: TimeoutResponse,
}

/// Marks the request finished however its future ends (completed, timed out, dropped).
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

impl tower::Service<hyper::Request<Incoming>> for PerConnection {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: hyper::Request<Incoming>) -> Self::Future {
        self.activity.request_started();
        let in_flight = InFlight(self.activity.clone());
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ConnectInfo(self.peer));
        let (app, timeout, on_timeout) = (self.app.clone(), self.request_timeout, self.on_timeout);
        Box::pin(async move {
            let _in_flight = in_flight;
            let response = tokio::time::timeout(timeout, app.oneshot(request)).await;
            Ok(match response {
                Ok(Ok(response)) => response,
                Ok(Err(never)) => match never {},
                Err(_) => {
                    metrics::counter!("http_requests_timed_out_total").increment(1);
                    on_timeout()
                }
            })
        })
    }
}

/// A plain `408 Request Timeout` (the gateway answers in better-auth's error shape instead).
pub fn request_timeout_response() -> Response {
    let mut response = Response::new(axum::body::Body::empty());
    *response.status_mut() = http::StatusCode::REQUEST_TIMEOUT;
    response
}

/// A gRPC `DEADLINE_EXCEEDED` (for the services' listeners).
pub fn grpc_timeout_response() -> Response {
    tonic::Status::deadline_exceeded("the request took longer than HTTP_REQUEST_TIMEOUT_MS")
        .into_http::<axum::body::Body>()
}
