//! gRPC clients between services: lazily connected (the peer may start later, or restart),
//! with connect and call timeouts, carrying the trace context and the service token.

use std::time::Duration;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::service_auth::ServiceToken;
use crate::telemetry::inject_into_metadata;

/// A channel whose calls carry the trace context and `authorization: Bearer <SERVICE_TOKEN>`.
pub type ServiceChannel = InterceptedService<Channel, CallInterceptor>;

#[derive(Clone)]
pub struct CallInterceptor {
    authorization: MetadataValue<Ascii>,
}

impl tonic::service::Interceptor for CallInterceptor {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        inject_into_metadata(request.metadata_mut());
        request
            .metadata_mut()
            .insert("authorization", self.authorization.clone());
        Ok(request)
    }
}

pub fn lazy_channel(
    url: &str,
    token: &ServiceToken,
) -> Result<ServiceChannel, tonic::transport::Error> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_string())?
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(10))
        .tcp_nodelay(true)
        // Pings keep an idle channel alive through the server's HTTP_IDLE_TIMEOUT_MS (and
        // notice a dead peer), so a call never lands on a connection being closed for idling.
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_while_idle(true)
        .connect_lazy();
    // A header value is valid metadata: the conversion cannot fail for a token we accepted.
    let mut authorization = MetadataValue::try_from(token.header().as_bytes())
        .unwrap_or_else(|_| MetadataValue::from_static(""));
    authorization.set_sensitive(true);
    Ok(InterceptedService::new(
        channel,
        CallInterceptor { authorization },
    ))
}
