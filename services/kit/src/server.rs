//! What a process serves besides its own API: the operations listener (metrics and health,
//! loopback by default), request tracing, and graceful shutdown: in-flight requests finish,
//! new connections are refused. The services' gRPC listener is [`crate::service`]'s.

use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::listener::HttpLimits;
use crate::telemetry;

static PROMETHEUS: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The process-wide Prometheus recorder (installed on first use).
pub fn prometheus() -> Option<&'static PrometheusHandle> {
    PROMETHEUS
        .get_or_init(|| {
            let handle = PrometheusBuilder::new().install_recorder().ok()?;
            let upkeep = handle.clone();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    loop {
                        tokio::time::sleep(Duration::from_secs(5)).await;
                        upkeep.run_upkeep();
                    }
                });
            }
            Some(handle)
        })
        .as_ref()
}

async fn render_metrics() -> String {
    prometheus().map(|h| h.render()).unwrap_or_default()
}

/// `/metrics` for any router.
pub fn metrics_router() -> Router {
    prometheus();
    Router::new().route("/metrics", get(render_metrics))
}

/// A span per request, joined to the caller's trace when one came in the headers.
pub async fn trace_request(request: Request, next: Next) -> Response {
    let span =
        tracing::info_span!("request", method = %request.method(), path = %request.uri().path());
    telemetry::set_parent_from_headers(&span, request.headers());
    next.run(request).instrument(span).await
}

async fn healthz() -> &'static str {
    "ok"
}

type HealthServer =
    tonic_health::pb::health_server::HealthServer<tonic_health::server::HealthService>;

static HEALTH: OnceLock<(tonic_health::server::HealthReporter, HealthServer)> = OnceLock::new();

/// The process's health reporter and the gRPC health service reading it: one per process,
/// like the metrics registry, served on the operations listener.
fn health() -> &'static (tonic_health::server::HealthReporter, HealthServer) {
    HEALTH.get_or_init(|| {
        let reporter = tonic_health::server::HealthReporter::new();
        let service = tonic_health::server::HealthService::from_health_reporter(reporter.clone());
        (
            reporter,
            tonic_health::pb::health_server::HealthServer::new(service),
        )
    })
}

/// Marks `names` (gRPC service names) serving, and the process overall: called once a part
/// really serves (after its migrations), so a probe never sees a process that is still
/// starting as ready.
pub async fn report_serving(names: &[&'static str]) {
    let reporter = &health().0;
    for name in names {
        reporter
            .set_service_status(*name, tonic_health::ServingStatus::Serving)
            .await;
    }
    reporter
        .set_service_status("", tonic_health::ServingStatus::Serving)
        .await;
}

/// The operations listener's routes: Prometheus `/metrics`, `GET /healthz` (200 while the
/// process runs: liveness) and the gRPC health service (`grpc.health.v1`: the process overall
/// and each gRPC service by name, `SERVING` once it serves: readiness), for probes. Never on a public port: it shows
/// internals and answers anyone.
pub fn operations_router() -> Router {
    tonic::service::Routes::new(health().1.clone())
        .into_axum_router()
        .merge(metrics_router())
        .route("/healthz", get(healthz))
}

/// Serves [`operations_router`] on `listener` until `shutdown`.
pub async fn serve_operations(
    listener: TcpListener,
    limits: HttpLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let addr = listener.local_addr()?;
    tracing::info!(%addr, "serving /metrics, /healthz and gRPC health");
    crate::listener::serve(
        listener,
        operations_router(),
        crate::listener::Protocol::Both,
        limits,
        crate::listener::request_timeout_response,
        shutdown,
    )
    .await
}

/// A token cancelled on SIGINT or SIGTERM.
pub fn shutdown_on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(term) => term,
                    Err(error) => {
                        tracing::warn!(%error, "cannot listen for SIGTERM");
                        let _ = ctrl_c.await;
                        trigger.cancel();
                        return;
                    }
                };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        tracing::info!("shutting down: draining in-flight requests");
        trigger.cancel();
    });
    token
}
