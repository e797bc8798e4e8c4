//! `gatehouse.billing_webhook.v1.DeliveryService`: the event log ([`EventLog`]) and the
//! replays ([`Replays`]) over gRPC.

use gatehouse_proto::billing_webhook::v1 as pb;
use gatehouse_proto::billing_webhook::v1::delivery_service_server::{
    DeliveryService, DeliveryServiceServer,
};
use tonic::{Request, Response, Status};

use super::log::Filter;
use super::replay::Replays;
use crate::convert::time;

/// The event log and its replays, as one gRPC service.
pub struct Deliveries(pub Replays);

pub fn server(deliveries: Deliveries) -> DeliveryServiceServer<Deliveries> {
    DeliveryServiceServer::new(deliveries)
}

#[tonic::async_trait]
impl DeliveryService for Deliveries {
    async fn list_events(
        &self,
        request: Request<pb::ListEventsRequest>,
    ) -> Result<Response<pb::ListEventsResponse>, Status> {
        let r = request.into_inner();
        let filter = Filter {
            event_type: r.event_type,
            since: r.since_unix_ms.map(time).transpose()?,
            until: r.until_unix_ms.map(time).transpose()?,
            endpoint_id: r.endpoint_id,
            delivery_status: r.delivery_status,
            limit: r.limit,
            offset: r.offset,
        };
        let (entries, has_more) = self.0.log.list(&r.organization_id, &filter).await?;
        Ok(Response::new(pb::ListEventsResponse {
            events: entries.into_iter().map(Into::into).collect(),
            has_more,
        }))
    }

    async fn get_event(
        &self,
        request: Request<pb::GetEventRequest>,
    ) -> Result<Response<pb::GetEventResponse>, Status> {
        let r = request.into_inner();
        let (entry, body) = self.0.log.get(&r.organization_id, &r.event_id).await?;
        Ok(Response::new(pb::GetEventResponse {
            event: Some(entry.into()),
            body,
        }))
    }

    async fn replay_event(
        &self,
        request: Request<pb::ReplayEventRequest>,
    ) -> Result<Response<pb::ReplayEventResponse>, Status> {
        let r = request.into_inner();
        let delivery_ids = self
            .0
            .event(&r.organization_id, &r.event_id, r.endpoint_id.as_deref())
            .await?;
        Ok(Response::new(pb::ReplayEventResponse { delivery_ids }))
    }

    async fn replay_range(
        &self,
        request: Request<pb::ReplayRangeRequest>,
    ) -> Result<Response<pb::ReplayRangeResponse>, Status> {
        let r = request.into_inner();
        let replayed = self
            .0
            .range(
                &r.organization_id,
                time(r.since_unix_ms)?,
                r.until_unix_ms.map(time).transpose()?,
                r.endpoint_id.as_deref(),
                r.include_delivered,
            )
            .await?;
        Ok(Response::new(pb::ReplayRangeResponse {
            replayed: u32::try_from(replayed).unwrap_or(u32::MAX),
        }))
    }
}
