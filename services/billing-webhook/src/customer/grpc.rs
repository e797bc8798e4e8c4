//! `gatehouse.billing_webhook.v1.CustomerService`.

use gatehouse_proto::billing_webhook::v1 as pb;
use gatehouse_proto::billing_webhook::v1::customer_service_server::{
    CustomerService, CustomerServiceServer,
};
use tonic::{Request, Response, Status};

use super::Customers;
use crate::error::BillingError;

pub fn server(customers: Customers) -> CustomerServiceServer<Customers> {
    CustomerServiceServer::new(customers)
}

#[tonic::async_trait]
impl CustomerService for Customers {
    async fn get_customer_state(
        &self,
        request: Request<pb::GetCustomerStateRequest>,
    ) -> Result<Response<pb::GetCustomerStateResponse>, Status> {
        let r = request.into_inner();
        let state = self
            .state_of(&r.user_id, &r.email, r.email_verified)
            .await
            .map_err(BillingError::from)?;
        Ok(Response::new(state.into()))
    }

    async fn get_organization_state(
        &self,
        request: Request<pb::GetOrganizationStateRequest>,
    ) -> Result<Response<pb::GetOrganizationStateResponse>, Status> {
        let state = self
            .state_of_organization(&request.into_inner().organization_id)
            .await
            .map_err(BillingError::from)?;
        Ok(Response::new(state.into()))
    }
}
