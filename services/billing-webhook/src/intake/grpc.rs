//! `gatehouse.billing_webhook.v1.IntakeService`.

use gatehouse_proto::billing_webhook::v1 as pb;
use gatehouse_proto::billing_webhook::v1::intake_service_server::{
    IntakeService, IntakeServiceServer,
};
use tonic::{Request, Response, Status};

use super::{Headers, Intake};

pub fn server(intake: Intake) -> IntakeServiceServer<Intake> {
    IntakeServiceServer::new(intake)
}

#[tonic::async_trait]
impl IntakeService for Intake {
    async fn receive(
        &self,
        request: Request<pb::ReceiveRequest>,
    ) -> Result<Response<pb::ReceiveResponse>, Status> {
        let r = request.into_inner();
        let headers = Headers {
            id: &r.webhook_id,
            timestamp: &r.webhook_timestamp,
            signature: &r.webhook_signature,
        };
        let received = Intake::receive(self, headers, &r.body).await?;
        Ok(Response::new(pb::ReceiveResponse {
            event_id: received.event_id,
            duplicate: received.duplicate,
            event_type: received.event_type,
        }))
    }
}
