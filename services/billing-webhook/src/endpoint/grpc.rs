//! `gatehouse.billing_webhook.v1.EndpointService`: [`Endpoints`] over gRPC.

use gatehouse_proto::billing_webhook::v1 as pb;
use gatehouse_proto::billing_webhook::v1::endpoint_service_server::{
    EndpointService, EndpointServiceServer,
};
use tonic::{Request, Response, Status};

use super::manage::Endpoints;
use super::{Endpoint, Registrant, Settings};
use crate::convert::unix_ms;

pub fn server(endpoints: Endpoints) -> EndpointServiceServer<Endpoints> {
    EndpointServiceServer::new(endpoints)
}

fn one(endpoint: Endpoint) -> Option<pb::Endpoint> {
    Some(endpoint.into())
}

#[tonic::async_trait]
impl EndpointService for Endpoints {
    async fn create_endpoint(
        &self,
        request: Request<pb::CreateEndpointRequest>,
    ) -> Result<Response<pb::CreateEndpointResponse>, Status> {
        let r = request.into_inner();
        let settings = Settings {
            url: Some(r.url),
            description: r.description,
            event_types: r.event_types.map(|t| t.names),
            enabled: r.enabled,
            polar_signing: r.polar_signing,
        };
        let created_by = Registrant {
            email: r.created_by_email,
            name: r.created_by_name,
            language: r.created_by_language,
        };
        let endpoint = self
            .create(&r.organization_id, created_by, settings)
            .await?;
        Ok(Response::new(pb::CreateEndpointResponse {
            endpoint: one(endpoint),
        }))
    }

    async fn list_endpoints(
        &self,
        request: Request<pb::ListEndpointsRequest>,
    ) -> Result<Response<pb::ListEndpointsResponse>, Status> {
        let r = request.into_inner();
        let endpoints = self.list(&r.organization_id).await?;
        Ok(Response::new(pb::ListEndpointsResponse {
            endpoints: endpoints.into_iter().map(Into::into).collect(),
        }))
    }

    async fn get_endpoint(
        &self,
        request: Request<pb::GetEndpointRequest>,
    ) -> Result<Response<pb::GetEndpointResponse>, Status> {
        let r = request.into_inner();
        let endpoint = self.get(&r.organization_id, &r.endpoint_id).await?;
        Ok(Response::new(pb::GetEndpointResponse {
            endpoint: one(endpoint),
        }))
    }

    async fn update_endpoint(
        &self,
        request: Request<pb::UpdateEndpointRequest>,
    ) -> Result<Response<pb::UpdateEndpointResponse>, Status> {
        let r = request.into_inner();
        let settings = Settings {
            url: r.url,
            description: r.description,
            event_types: r.event_types.map(|t| t.names),
            enabled: r.enabled,
            polar_signing: r.polar_signing,
        };
        let endpoint = self
            .update(&r.organization_id, &r.endpoint_id, settings)
            .await?;
        Ok(Response::new(pb::UpdateEndpointResponse {
            endpoint: one(endpoint),
        }))
    }

    async fn delete_endpoint(
        &self,
        request: Request<pb::DeleteEndpointRequest>,
    ) -> Result<Response<pb::DeleteEndpointResponse>, Status> {
        let r = request.into_inner();
        self.delete(&r.organization_id, &r.endpoint_id).await?;
        Ok(Response::new(pb::DeleteEndpointResponse {}))
    }

    async fn get_endpoint_secret(
        &self,
        request: Request<pb::GetEndpointSecretRequest>,
    ) -> Result<Response<pb::GetEndpointSecretResponse>, Status> {
        let r = request.into_inner();
        let endpoint = self.get(&r.organization_id, &r.endpoint_id).await?;
        // The previous secret only while it still signs.
        let previous = endpoint
            .previous_secret
            .zip(endpoint.previous_secret_expires_at)
            .filter(|(_, expires_at)| *expires_at > gatehouse_kit::ids::now());
        Ok(Response::new(pb::GetEndpointSecretResponse {
            secret: endpoint.secret,
            previous_secret_expires_at_unix_ms: previous.as_ref().map(|(_, at)| unix_ms(*at)),
            previous_secret: previous.map(|(secret, _)| secret),
        }))
    }

    async fn rotate_endpoint_secret(
        &self,
        request: Request<pb::RotateEndpointSecretRequest>,
    ) -> Result<Response<pb::RotateEndpointSecretResponse>, Status> {
        let r = request.into_inner();
        let endpoint = self
            .rotate_secret(&r.organization_id, &r.endpoint_id)
            .await?;
        Ok(Response::new(pb::RotateEndpointSecretResponse {
            endpoint: one(endpoint),
        }))
    }

    async fn send_test_event(
        &self,
        request: Request<pb::SendTestEventRequest>,
    ) -> Result<Response<pb::SendTestEventResponse>, Status> {
        let r = request.into_inner();
        let (event_id, delivery_id) = self.send_test(&r.organization_id, &r.endpoint_id).await?;
        Ok(Response::new(pb::SendTestEventResponse {
            event_id,
            delivery_id,
        }))
    }
}
