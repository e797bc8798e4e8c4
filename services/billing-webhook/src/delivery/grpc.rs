//! `gatehouse.billing_webhook.v1.DeliveryService`: the event log ([`EventLog`]) and the
//! replays ([`Replays`]) over gRPC.

use chrono::{DateTime, Utc};
use gatehouse_kit::errors::base;
use gatehouse_proto::billing_webhook::v1 as pb;
use gatehouse_proto::billing_webhook::v1::delivery_service_server::{
    DeliveryService, DeliveryServiceServer,
};
use tonic::{Request, Response, Status};

use super::log::{Entry, Filter};
use super::replay::Replays;
use super::store::Attempt;
use crate::endpoint::grpc::unix_ms;

/// The event log and its replays, as one gRPC service.
pub struct Deliveries(pub Replays);

pub fn server(deliveries: Deliveries) -> DeliveryServiceServer<Deliveries> {
    DeliveryServiceServer::new(deliveries)
}

fn time(unix_ms: i64) -> Result<DateTime<Utc>, Status> {
    DateTime::from_timestamp_millis(unix_ms)
        .ok_or_else(|| base::VALIDATION_ERROR.with_message("Invalid time").into())
}

impl From<Attempt> for pb::Attempt {
    fn from(a: Attempt) -> Self {
        Self {
            id: a.id,
            trigger: a.trigger,
            started_at_unix_ms: unix_ms(a.started_at),
            duration_ms: a.duration_ms,
            response_status: a.response_status,
            response_body: a.response_body,
            error: a.error,
            succeeded: a.succeeded,
        }
    }
}

impl From<Entry> for pb::Event {
    fn from(entry: Entry) -> Self {
        let event = entry.event;
        Self {
            id: event.id,
            webhook_id: event.webhook_id,
            event_type: event.event_type,
            timestamp_unix_ms: event.event_timestamp.map(unix_ms),
            received_at_unix_ms: unix_ms(event.received_at),
            origin: event.origin,
            deliveries: entry
                .deliveries
                .into_iter()
                .map(|(d, attempts)| pb::Delivery {
                    id: d.id,
                    endpoint_id: d.endpoint_id,
                    status: d.status,
                    attempts: d.attempts,
                    last_attempt_at_unix_ms: d.last_attempt_at.map(unix_ms),
                    next_attempt_at_unix_ms: d.next_attempt_at.map(unix_ms),
                    created_at_unix_ms: unix_ms(d.created_at),
                    attempt_log: attempts.into_iter().map(Into::into).collect(),
                })
                .collect(),
        }
    }
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
