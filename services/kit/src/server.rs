//! One listener per process serves gRPC, the gRPC health service and Prometheus `/metrics`
//! (tonic's routes merged into an axum router), and shuts down gracefully: in-flight requests
//! finish, new connections are refused.

use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use axum::serve::{ListenerExt, TapIo};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

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

/// Accepted connections with Nagle's algorithm off. Without it, small responses wait for the
/// peer's delayed ACK: measured p99 39 ms on get-session at 32 connections.
pub fn no_delay(listener: TcpListener) -> TapIo<TcpListener, fn(&mut TcpStream)> {
    fn set(stream: &mut TcpStream) {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
    }
    listener.tap_io(set as fn(&mut TcpStream))
}

/// Serves gRPC services (plus health and metrics) on `listener` until `shutdown` is cancelled.
pub async fn serve_grpc(
    listener: TcpListener,
    services: crate::service::GrpcServices,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    for name in &services.names {
        health_reporter
            .set_service_status(*name, tonic_health::ServingStatus::Serving)
            .await;
    }
    health_reporter
        .set_service_status("", tonic_health::ServingStatus::Serving)
        .await;
    let router = services
        .routes
        .add_service(health_service)
        .into_axum_router()
        .merge(metrics_router())
        .layer(axum::middleware::from_fn(trace_request));
    let addr = listener.local_addr()?;
    tracing::info!(%addr, services = ?services.names, "serving gRPC, health and /metrics");
    axum::serve(no_delay(listener), router)
        .with_graceful_shutdown(shutdown.cancelled_owned())
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
