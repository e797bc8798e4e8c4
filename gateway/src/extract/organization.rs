//! The caller as the organization service knows them, and [`Permitted`]: a permission in the
//! organization a request names, carried by the route's input type the way [`Session`]
//! carries the session, so a handler that needs it cannot run without it.

use std::marker::PhantomData;

use gatehouse_kit::errors::{ErrorCode, billing, organization as org_codes};
use gatehouse_proto::organization::v1 as pb;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::{Admit, Authenticate, Refusals, RequestMeta, Session};
use crate::error::ApiError;
use crate::state::AppState;

/// Who is asking, as the organization service needs it.
pub fn caller(session: &Session) -> Option<pb::Caller> {
    Some(pb::Caller {
        user_id: session.user.id.clone(),
        session_token: session.session.token.clone(),
        active_organization_id: session.session.active_organization_id.clone(),
        active_team_id: session.session.active_team_id.clone(),
        email: session.user.email.clone(),
        email_verified: session.user.email_verified,
    })
}

/// A permission of the organization plugin (`{"resource": ["action"]}`) and how its absence
/// is refused.
pub trait Permission: Send {
    const PERMISSIONS: &'static str;
    const REFUSAL: ErrorCode;
    /// When it is refused, as the route's document says.
    const WHY: &'static str;
}

/// Managing an organization's billing: the organization plugin's `organization:update`.
pub struct ManageBilling;

impl Permission for ManageBilling {
    const PERMISSIONS: &'static str = r#"{"organization":["update"]}"#;
    const REFUSAL: ErrorCode = billing::YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_BILLING;
    const WHY: &'static str = "not a member, or no `organization:update`";
}

/// An input that may name the organization the request acts on.
pub trait NamesOrganization {
    /// The organization the input names, if any.
    fn organization_id(&self) -> Option<&str>;

    /// The input's own checks, made once the caller is known to be signed in and before the
    /// permission is asked for: none unless the input says so.
    fn check(&self) -> Result<(), ApiError> {
        Ok(())
    }
}

/// A signed-in caller who holds `P` in the organization the request acts on: the one the
/// input names (the body, else the `organizationId` query), else the session's active one.
/// The organization service's one permission check decides; a non-member is refused like a
/// member without the permission, so the answer does not tell whether it exists.
pub struct Permitted<P> {
    pub session: Session,
    pub organization_id: String,
    permission: PhantomData<P>,
}

impl<T, P> Admit<T> for Permitted<P>
where
    T: NamesOrganization + Sync,
    P: Permission,
{
    const REFUSALS: Refusals = Refusals::SIGNED_IN.forbidding(P::REFUSAL, P::WHY);

    async fn admit(state: &AppState, meta: &RequestMeta, input: &T) -> Result<Self, ApiError> {
        let session = Session::authenticate(state, meta).await?;
        input.check()?;
        let organization_id = input
            .organization_id()
            .or_else(|| meta.query("organizationId"))
            .filter(|id| !id.is_empty())
            .map(str::to_string)
            .or_else(|| session.session.active_organization_id.clone())
            .ok_or(org_codes::NO_ACTIVE_ORGANIZATION)?;
        let answer = state
            .members
            .clone()
            .has_permission(pb::HasPermissionRequest {
                caller: caller(&session),
                organization_id: Some(organization_id.clone()),
                permissions_json: P::PERMISSIONS.into(),
                owner_has_every_permission: false,
            })
            .await;
        let refused = || ApiError::from(P::REFUSAL);
        match answer {
            Ok(answer) if answer.get_ref().success => Ok(Permitted {
                session,
                organization_id,
                permission: PhantomData,
            }),
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
}

/// The organization a request acts on, for routes with no other input.
#[derive(Deserialize, ToSchema, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct OrganizationInput {
    /// The organization; the session's active one when absent.
    pub organization_id: Option<String>,
}

impl NamesOrganization for OrganizationInput {
    fn organization_id(&self) -> Option<&str> {
        self.organization_id.as_deref()
    }
}
