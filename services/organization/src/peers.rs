//! The services the organization rules ask: identity for users (member lists read their own
//! copy, `member::users`), session for a session's active organization and team.

use gatehouse_kit::client::ServiceChannel;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;
use gatehouse_proto::session::v1 as session_pb;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;

use crate::caller::Caller;

/// Identity's limit for one `GetUsers` call.
const MAX_USERS_PER_CALL: usize = 1000;

#[derive(Clone)]
pub struct Peers {
    pub users: UserServiceClient<ServiceChannel>,
    pub sessions: SessionServiceClient<ServiceChannel>,
}

impl Peers {
    /// The user with `id`; `None` when identity no longer has them.
    pub async fn user(&self, id: &str) -> Result<Option<identity_pb::User>, Failure> {
        let found = self
            .users
            .clone()
            .get_user(identity_pb::GetUserRequest { id: id.to_string() })
            .await;
        match found {
            Ok(response) => Ok(response.into_inner().user),
            Err(status) => {
                let failure = Failure::from_status(&status);
                if failure.is(base::USER_NOT_FOUND) {
                    Ok(None)
                } else {
                    Err(failure)
                }
            }
        }
    }

    /// The user with `id`, for a new member's copy (`member::users`). Best effort: without it
    /// the membership is written all the same, and the first member list copies the user.
    pub async fn user_to_copy(&self, id: &str) -> Option<identity_pb::User> {
        self.user(id)
            .await
            .inspect_err(|failure| {
                tracing::warn!(code = failure.code(), "user not read; not copied");
            })
            .ok()
            .flatten()
    }

    /// The user with `email` (any case); `None` when there is none.
    pub async fn user_by_email(&self, email: &str) -> Result<Option<identity_pb::User>, Failure> {
        let found = self
            .users
            .clone()
            .get_user_by_email(identity_pb::GetUserByEmailRequest {
                email: email.to_string(),
            })
            .await;
        match found {
            Ok(response) => Ok(response.into_inner().user),
            Err(status) => {
                let failure = Failure::from_status(&status);
                if failure.is(base::USER_NOT_FOUND) {
                    Ok(None)
                } else {
                    Err(failure)
                }
            }
        }
    }

    /// Has identity mark the user's address verified, as it proved its mailbox here: refused
    /// with `EMAIL_MISMATCH` when `email` is no longer the user's.
    pub async fn confirm_email(&self, user_id: &str, email: &str) -> Result<(), Failure> {
        self.users
            .clone()
            .confirm_email(identity_pb::ConfirmEmailRequest {
                user_id: user_id.to_string(),
                email: email.to_string(),
            })
            .await
            .map_err(|status| Failure::from_status(&status))?;
        Ok(())
    }

    /// The users with these ids that identity has, in no particular order: one call per
    /// [`MAX_USERS_PER_CALL`] ids.
    pub async fn users_by_id(&self, ids: &[String]) -> Result<Vec<identity_pb::User>, Failure> {
        let mut users = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(MAX_USERS_PER_CALL) {
            let found = self
                .users
                .clone()
                .get_users(identity_pb::GetUsersRequest {
                    ids: chunk.to_vec(),
                })
                .await
                .map_err(|status| Failure::from_status(&status))?;
            users.extend(found.into_inner().users);
        }
        Ok(users)
    }

    /// Sets (or clears) the caller's session's active organization and team.
    pub async fn set_active(
        &self,
        caller: &Caller,
        organization: Option<String>,
        team: Option<String>,
    ) -> Result<(), Failure> {
        self.sessions
            .clone()
            .set_active(session_pb::SetActiveRequest {
                token: caller.session_token.clone(),
                organization: Some(session_pb::ActiveId { id: organization }),
                team: Some(session_pb::ActiveId { id: team }),
            })
            .await
            .map_err(|status| Failure::from_status(&status))?;
        Ok(())
    }

    /// Sets (or clears) the caller's session's active team, leaving its organization as is.
    pub async fn set_active_team(
        &self,
        caller: &Caller,
        team: Option<String>,
    ) -> Result<(), Failure> {
        self.sessions
            .clone()
            .set_active(session_pb::SetActiveRequest {
                token: caller.session_token.clone(),
                organization: None,
                team: Some(session_pb::ActiveId { id: team }),
            })
            .await
            .map_err(|status| Failure::from_status(&status))?;
        Ok(())
    }
}
