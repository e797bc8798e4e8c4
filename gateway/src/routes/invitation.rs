//! The `invitation` group (better-auth's organization plugin, §11.8): invite-member,
//! accept-invitation, reject-invitation, cancel-invitation, get-invitation, list-invitations
//! and list-user-invitations (`gatehouse.organization.v1.InvitationService`). The mailed link
//! opens the web app's `/accept-invitation/<id>` page. invite-member sends mail, so it counts
//! under the mail rate rule; the organization service limits mails per address and
//! per organization besides.

use axum::extract::State;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::validate::one_or_many;
use gatehouse_proto::organization::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use super::shared::session::{forget_cached_user, reissue};
use crate::error::ApiError;
use crate::extract::organization::caller;
use crate::extract::{Input, MaybeSession, Session};
use crate::openapi::{OrganizationErrors, QueryErrors};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::organization::{Invitation, InvitationDetails, Member, MemberRoles, TeamIds};

pub fn router() -> Group {
    Group::new()
        .route(route!(invite_member), Policy::DEFAULT.rate(RateRule::Email))
        .route(route!(accept_invitation), Policy::DEFAULT)
        .route(route!(reject_invitation), Policy::DEFAULT)
        .route(route!(cancel_invitation), Policy::DEFAULT)
        .route(route!(get_invitation), Policy::DEFAULT)
        .route(route!(list_invitations), Policy::DEFAULT)
        .route(route!(list_user_invitations), Policy::DEFAULT)
}

fn invitation_of(invitation: Option<pb::Invitation>) -> Result<Invitation, ApiError> {
    Ok(invitation.ok_or(base::INTERNAL_SERVER_ERROR)?.into())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteMemberBody {
    #[schema(max_length = 255)]
    email: String,
    #[schema(value_type = MemberRoles, inline)]
    role: Value,
    organization_id: Option<String>,
    /// Send a pending invitation again, with a new expiry.
    resend: Option<bool>,
    /// A team of the organization, or a list of them, the invitee joins too.
    #[schema(value_type = Option<TeamIds>, inline)]
    team_id: Option<Value>,
}

/// Invites an address to the named (or active) organization and mails it the invitation.
#[utoipa::path(post, path = "/organization/invite-member", tag = "invitation", request_body = InviteMemberBody,
    responses((status = 200, body = Invitation, description = "The pending invitation"), OrganizationErrors))]
async fn invite_member(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<InviteMemberBody, Session>,
) -> Result<Reply, ApiError> {
    let invitation = state
        .invitations
        .clone()
        .create_invitation(pb::CreateInvitationRequest {
            caller: caller(&auth),
            email: body.email,
            roles: one_or_many("role", &body.role)?,
            organization_id: body.organization_id.filter(|id| !id.is_empty()),
            resend: body.resend.unwrap_or(false),
            team_ids: body
                .team_id
                .map(|ids| one_or_many("teamId", &ids))
                .transpose()?
                .unwrap_or_default(),
        })
        .await?
        .into_inner()
        .invitation;
    Ok(Reply::json(&invitation_of(invitation)?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitationIdBody {
    invitation_id: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerInvitationBody {
    invitation_id: String,
    /// The `token` of the invitation's mailed link (`/accept-invitation/<id>?token=…`): it
    /// proves an unverified recipient's address, which then becomes verified.
    token: Option<String>,
}

/// After the mailed link's token verified the caller's address: every cached session of the
/// user goes, so the next read shows the address verified; whether the caller's cookies must
/// be issued again too (a cookie cache holds the old copy).
async fn forget_stale_copies(state: &AppState, auth: &Session) -> bool {
    forget_cached_user(state, &auth.user.id).await;
    state.config.cookies.cache_enabled
}

#[derive(Serialize, ToSchema)]
pub struct AcceptedInvitation {
    invitation: Invitation,
    member: Member,
}

/// The recipient joins; the organization becomes their session's active one. An unverified
/// recipient needs the mailed link's `token` (`INVITATION_REQUIRE_EMAIL_VERIFICATION`).
#[utoipa::path(post, path = "/organization/accept-invitation", tag = "invitation", request_body = AnswerInvitationBody,
    responses((status = 200, body = AcceptedInvitation, description = "`{invitation, member}`"), OrganizationErrors))]
async fn accept_invitation(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<AnswerInvitationBody, Session>,
) -> Result<Reply, ApiError> {
    let accepted = state
        .invitations
        .clone()
        .accept_invitation(pb::AcceptInvitationRequest {
            caller: caller(&auth),
            invitation_id: body.invitation_id,
            token: body.token,
        })
        .await?
        .into_inner();
    let invitation = invitation_of(accepted.invitation)?;
    // An invitation into exactly one team makes it the active team, and better-auth issues
    // the session cookie again then (only then).
    let one_team = invitation
        .team_id
        .as_deref()
        .is_some_and(|teams| !teams.is_empty() && !teams.contains(','));
    let mut reply = Reply::json(&AcceptedInvitation {
        invitation,
        member: accepted.member.ok_or(base::INTERNAL_SERVER_ERROR)?.into(),
    });
    let cached_copy_stale = accepted.email_verified && forget_stale_copies(&state, &auth).await;
    if one_team || cached_copy_stale {
        reply.set_cookies(reissue(&state, &meta, &auth).await?);
    }
    Ok(reply)
}

#[derive(Serialize, ToSchema)]
pub struct RejectedInvitation {
    invitation: Invitation,
    /// Always `null`.
    member: Option<Member>,
}

/// The recipient declines (an unverified one with the mailed link's `token`, as to accept).
#[utoipa::path(post, path = "/organization/reject-invitation", tag = "invitation", request_body = AnswerInvitationBody,
    responses((status = 200, body = RejectedInvitation, description = "`{invitation, member: null}`"), OrganizationErrors))]
async fn reject_invitation(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<AnswerInvitationBody, Session>,
) -> Result<Reply, ApiError> {
    let rejected = state
        .invitations
        .clone()
        .reject_invitation(pb::RejectInvitationRequest {
            caller: caller(&auth),
            invitation_id: body.invitation_id,
            token: body.token,
        })
        .await?
        .into_inner();
    let mut reply = Reply::json(&RejectedInvitation {
        invitation: invitation_of(rejected.invitation)?,
        member: None,
    });
    if rejected.email_verified && forget_stale_copies(&state, &auth).await {
        reply.set_cookies(reissue(&state, &meta, &auth).await?);
    }
    Ok(reply)
}

/// A member who may cancel invitations withdraws one.
#[utoipa::path(post, path = "/organization/cancel-invitation", tag = "invitation", request_body = InvitationIdBody,
    responses((status = 200, body = Invitation, description = "The canceled invitation"), OrganizationErrors))]
async fn cancel_invitation(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<InvitationIdBody, Session>,
) -> Result<Reply, ApiError> {
    let invitation = state
        .invitations
        .clone()
        .cancel_invitation(pb::CancelInvitationRequest {
            caller: caller(&auth),
            invitation_id: body.invitation_id,
        })
        .await?
        .into_inner()
        .invitation;
    Ok(Reply::json(&invitation_of(invitation)?))
}

#[derive(Deserialize, ToSchema)]
pub struct GetInvitationQuery {
    id: String,
    /// The mailed link's token, for an unverified recipient.
    token: Option<String>,
}

/// One invitation, for its recipient, with where it leads and who sent it. An unverified
/// recipient needs the mailed link's `token` (`INVITATION_REQUIRE_EMAIL_VERIFICATION`).
#[utoipa::path(get, path = "/organization/get-invitation", tag = "invitation",
    params(("id" = String, Query), ("token" = Option<String>, Query, description = "The mailed link's token")),
    responses((status = 200, body = InvitationDetails, description = "The invitation with `organizationName`, `organizationSlug`, `inviterEmail`"), QueryErrors))]
async fn get_invitation(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<GetInvitationQuery, MaybeSession>,
) -> Result<Reply, ApiError> {
    // better-auth's answer here to a signed-out caller.
    let session = auth
        .0
        .ok_or_else(|| ApiError::from(Failure::message_only(401, "Not authenticated")))?;
    let details = state
        .invitations
        .clone()
        .get_invitation(pb::GetInvitationRequest {
            caller: caller(&session),
            invitation_id: body.id,
            token: body.token,
        })
        .await?
        .into_inner()
        .details
        .ok_or(base::INTERNAL_SERVER_ERROR)?;
    Ok(Reply::json(&InvitationDetails::from(details)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListInvitationsQuery {
    organization_id: Option<String>,
}

/// Every invitation of the named (or active) organization, for who may invite.
#[utoipa::path(get, path = "/organization/list-invitations", tag = "invitation", params(("organizationId" = Option<String>, Query)),
    responses((status = 200, body = Vec<Invitation>, description = "The organization's invitations, any status"), QueryErrors))]
async fn list_invitations(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListInvitationsQuery, Session>,
) -> Result<Reply, ApiError> {
    let invitations = state
        .invitations
        .clone()
        .list_invitations(pb::ListInvitationsRequest {
            caller: caller(&auth),
            organization_id: body.organization_id.filter(|id| !id.is_empty()),
        })
        .await?
        .into_inner()
        .invitations;
    let invitations: Vec<Invitation> = invitations.into_iter().map(Into::into).collect();
    Ok(Reply::json(&invitations))
}

#[derive(Deserialize, ToSchema)]
pub struct ListUserInvitationsQuery {
    /// Server-side calls only: refused over HTTP.
    email: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserInvitation {
    #[serde(flatten)]
    invitation: Invitation,
    organization_name: String,
}

/// The caller's pending invitations (a verified address is needed).
#[utoipa::path(get, path = "/organization/list-user-invitations", tag = "invitation",
    responses((status = 200, body = Vec<UserInvitation>, description = "Pending invitations with `organizationName`"), QueryErrors))]
async fn list_user_invitations(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ListUserInvitationsQuery, MaybeSession>,
) -> Result<Reply, ApiError> {
    if body.email.is_some() {
        return Err(Failure::message_only(
            400,
            "User email cannot be passed for client side API calls.",
        )
        .into());
    }
    let session = auth.0.ok_or_else(|| {
        ApiError::from(Failure::message_only(
            400,
            "Missing session headers, or email query parameter.",
        ))
    })?;
    let invitations = state
        .invitations
        .clone()
        .list_user_invitations(pb::ListUserInvitationsRequest {
            caller: caller(&session),
        })
        .await?
        .into_inner()
        .invitations;
    let mut listed = Vec::with_capacity(invitations.len());
    for details in invitations {
        listed.push(UserInvitation {
            invitation: invitation_of(details.invitation)?,
            organization_name: details.organization_name,
        });
    }
    Ok(Reply::json(&listed))
}
