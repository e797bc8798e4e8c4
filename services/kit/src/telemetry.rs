//! Logging and tracing. `tracing` everywhere; when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, spans
//! are exported over OTLP/gRPC and the W3C trace context is carried across gRPC metadata and
//! AMQP headers, so one sign-up is one trace across services.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::Env;

/// Propagation costs a little on every request; it is skipped unless spans are exported.
static EXPORTING: AtomicBool = AtomicBool::new(false);

#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("OTLP exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
}

/// Keeps the exporter alive; flushes pending spans when dropped.
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(Err(error)) = self.provider.take().map(|p| p.shutdown()) {
            eprintln!("telemetry shutdown: {error}");
        }
    }
}

/// Installs the global subscriber: `RUST_LOG` filter (default `info`), `LOG_FORMAT=json` for
/// JSON lines, OTLP export when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Safe to call twice (the
/// second call keeps the first subscriber), which tests rely on.
pub fn init(service_name: &str, env: &Env) -> Result<TelemetryGuard, TelemetryError> {
    let filter = EnvFilter::try_new(env.string(
        "RUST_LOG",
        "info,sqlx=warn,lapin=warn,h2=warn,tower=warn,hyper=warn",
    ))
    .unwrap_or_else(|_| EnvFilter::new("info"));
    let json = env.string("LOG_FORMAT", "text") == "json";
    // RUST_LOG filters what is logged, not what is traced: each layer has its own filter.
    let fmt = if json {
        tracing_subscriber::fmt::layer()
            .json()
            .with_filter(filter)
            .boxed()
    } else {
        tracing_subscriber::fmt::layer()
            .compact()
            .with_filter(filter)
            .boxed()
    };

    let mut provider = None;
    let otel_layer = match env.raw("OTEL_EXPORTER_OTLP_ENDPOINT") {
        Some(endpoint) => {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_endpoint(endpoint)
                .build()?;
            let sdk = SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
                .with_resource(
                    opentelemetry_sdk::Resource::builder()
                        .with_service_name(
                            env.string("OTEL_SERVICE_NAME", &format!("gatehouse-{service_name}")),
                        )
                        .build(),
                )
                .build();
            let tracer = sdk.tracer("gatehouse");
            opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
            opentelemetry::global::set_tracer_provider(sdk.clone());
            EXPORTING.store(true, Ordering::Release);
            provider = Some(sdk);
            Some(
                tracing_opentelemetry::layer()
                    .with_tracer(tracer)
                    .with_filter(tracing_subscriber::filter::LevelFilter::INFO),
            )
        }
        None => None,
    };

    let _ = tracing_subscriber::registry()
        .with(fmt)
        .with(otel_layer)
        .try_init();
    Ok(TelemetryGuard { provider })
}

pub fn exporting() -> bool {
    EXPORTING.load(Ordering::Acquire)
}

/// The current span's trace context as string headers (`traceparent`, `tracestate`).
pub fn current_context_headers() -> BTreeMap<String, String> {
    let mut headers = BTreeMap::new();
    if exporting() {
        let context = tracing::Span::current().context();
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(&context, &mut MapCarrier(&mut headers))
        });
    }
    headers
}

/// Makes `span` a child of the trace context found in string headers (an AMQP delivery).
pub fn set_parent_from_map(span: &tracing::Span, headers: &BTreeMap<String, String>) {
    if exporting() {
        let mut copy = headers.clone();
        let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&MapCarrier(&mut copy))
        });
        let _ = span.set_parent(parent);
    }
}

/// Makes `span` a child of the trace context in HTTP/gRPC request headers.
pub fn set_parent_from_headers(span: &tracing::Span, headers: &http::HeaderMap) {
    if exporting() {
        let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&HeaderCarrier(headers))
        });
        let _ = span.set_parent(parent);
    }
}

/// Adds the current trace context to outgoing gRPC metadata.
pub fn inject_into_metadata(metadata: &mut tonic::metadata::MetadataMap) {
    for (key, value) in current_context_headers() {
        if let (Ok(key), Ok(value)) = (
            tonic::metadata::MetadataKey::from_bytes(key.as_bytes()),
            value.parse(),
        ) {
            metadata.insert(key, value);
        }
    }
}

struct MapCarrier<'a>(&'a mut BTreeMap<String, String>);

impl Injector for MapCarrier<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), value);
    }
}

impl Extractor for MapCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

struct HeaderCarrier<'a>(&'a http::HeaderMap);

impl Extractor for HeaderCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}
