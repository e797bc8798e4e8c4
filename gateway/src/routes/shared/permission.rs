//! The organization permission the billing routes need.

use gatehouse_kit::errors::{billing, organization as org_codes};
use gatehouse_proto::organization::v1 as org_pb;

use super::organization::caller;
use crate::error::ApiError;
use crate::extract::{RequestMeta, Session};
use crate::state::AppState;

/// What managing an organization's billing takes: the organization plugin's
/// `organization:update`.
const MANAGE_BILLING: &str = r#"{"organization":["update"]}"#;

/// The organization the request acts on — `named` (from the body, else the query), else the
/// session's active one — once the caller may manage its billing. A non-member is refused
/// like a member without the permission, so the answer does not tell whether it exists.
pub async fn authorize(
    state: &AppState,
    session: &Session,
    named: Option<String>,
    meta: &RequestMeta,
) -> Result<String, ApiError> {
    let organization_id = named
        .or_else(|| meta.query("organizationId").map(str::to_string))
        .filter(|id| !id.is_empty())
        .or_else(|| session.session.active_organization_id.clone())
        .ok_or(org_codes::NO_ACTIVE_ORGANIZATION)?;
    let answer = state
        .members
        .clone()
        .has_permission(org_pb::HasPermissionRequest {
            caller: caller(session),
            organization_id: Some(organization_id.clone()),
            permissions_json: MANAGE_BILLING.into(),
        })
        .await;
    let refused =
        || ApiError::from(billing::YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_BILLING);
    match answer {
        Ok(answer) if answer.get_ref().success => Ok(organization_id),
        Ok(_) => Err(refused()),
        Err(status) => match ApiError::from(status) {
            ApiError::Failure(failure)
                if failure.is(org_codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION) =>
            {
                Err(refused())
            }
            other => Err(other),
        },
    }
}
