//! The `customer` group under `/api/billing` (`gatehouse.billing_webhook.v1.CustomerService`):
//! `GET /customer`, the signed-in user's own billing state — their subscriptions, orders,
//! granted benefits, active meters and refunds — as the payments platform last told it; and
//! `GET /customer/organization`, an organization's, for those who may manage its billing
//! (owners and admins by default, [`Permitted`]).

use axum::extract::State;
use gatehouse_proto::billing_webhook::v1 as pb;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use crate::error::ApiError;
use crate::extract::organization::{ManageBilling, OrganizationInput, Permitted};
use crate::extract::{Input, NoInput, Session};
use crate::openapi::{BillingErrors, QueryErrors};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;

pub fn router() -> Group {
    Group::new()
        .route(route!(get_customer), Policy::DEFAULT)
        .route(route!(get_organization), Policy::DEFAULT)
}

/// A user's billing state. Each entity is the payments platform's own JSON (snake_case), as
/// its SDK reads it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerBilling {
    /// The customer linked to the user, if any.
    #[schema(value_type = Option<Object>)]
    customer: Option<Value>,
    /// Its latest state: `active_subscriptions`, `granted_benefits`, and `active_meters` with
    /// `consumed_units`, `credited_units` and `balance`.
    #[schema(value_type = Option<Object>)]
    state: Option<Value>,
    #[schema(value_type = Vec<Object>)]
    subscriptions: Vec<Value>,
    #[schema(value_type = Vec<Object>)]
    orders: Vec<Value>,
    #[schema(value_type = Vec<Object>)]
    benefit_grants: Vec<Value>,
    #[schema(value_type = Vec<Object>)]
    refunds: Vec<Value>,
}

fn parsed(json: String) -> Value {
    serde_json::from_str(&json).unwrap_or(Value::String(json))
}

fn all_parsed(list: Vec<String>) -> Vec<Value> {
    list.into_iter().map(parsed).collect()
}

/// The signed-in user's billing state: the customer whose `external_id` is their user id, or,
/// once their email is verified, whose email is theirs.
#[utoipa::path(get, path = "/customer", tag = "customer",
    responses((status = 200, body = CustomerBilling, description = "The user's billing state (empty when the payments platform knows no customer of theirs)"), QueryErrors))]
async fn get_customer(
    State(state): State<AppState>,
    Input { auth, .. }: Input<NoInput, Session>,
) -> Result<Reply, ApiError> {
    let found = state
        .customers
        .clone()
        .get_customer_state(pb::GetCustomerStateRequest {
            user_id: auth.user.id.clone(),
            email: auth.user.email.clone(),
            email_verified: auth.user.email_verified,
        })
        .await?
        .into_inner();
    Ok(Reply::json(&CustomerBilling {
        customer: found.customer_json.map(parsed),
        state: found.state_json.map(parsed),
        subscriptions: all_parsed(found.subscriptions_json),
        orders: all_parsed(found.orders_json),
        benefit_grants: all_parsed(found.benefit_grants_json),
        refunds: all_parsed(found.refunds_json),
    })
    .no_store())
}

/// An organization's billing state: what was bought for it (`metadata.referenceId` = its id),
/// each entity the payments platform's own JSON.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrganizationBilling {
    organization_id: String,
    #[schema(value_type = Vec<Object>)]
    subscriptions: Vec<Value>,
    #[schema(value_type = Vec<Object>)]
    orders: Vec<Value>,
    /// The grants of its orders and subscriptions.
    #[schema(value_type = Vec<Object>)]
    benefit_grants: Vec<Value>,
    /// The refunds of its orders.
    #[schema(value_type = Vec<Object>)]
    refunds: Vec<Value>,
}

/// The organization's billing state (the session's active organization when none is named).
#[utoipa::path(get, path = "/customer/organization", tag = "customer", params(OrganizationInput),
    responses((status = 200, body = OrganizationBilling, description = "What was bought for the organization (empty when nothing was)"), BillingErrors))]
async fn get_organization(
    State(state): State<AppState>,
    Input { auth, .. }: Input<OrganizationInput, Permitted<ManageBilling>>,
) -> Result<Reply, ApiError> {
    let organization_id = auth.organization_id;
    let found = state
        .customers
        .clone()
        .get_organization_state(pb::GetOrganizationStateRequest {
            organization_id: organization_id.clone(),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&OrganizationBilling {
        organization_id,
        subscriptions: all_parsed(found.subscriptions_json),
        orders: all_parsed(found.orders_json),
        benefit_grants: all_parsed(found.benefit_grants_json),
        refunds: all_parsed(found.refunds_json),
    })
    .no_store())
}
