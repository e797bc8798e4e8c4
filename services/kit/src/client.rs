//! gRPC clients between services: lazily connected (the peer may start later, or restart),
//! with connect and call timeouts, carrying the trace context.

use std::time::Duration;

use crate::telemetry::{TracedChannel, traced};

pub fn lazy_channel(url: &str) -> Result<TracedChannel, tonic::transport::Error> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_string())?
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(10))
        .tcp_nodelay(true)
        .connect_lazy();
    Ok(traced(channel))
}
