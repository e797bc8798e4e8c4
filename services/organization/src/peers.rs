//! The services the organization rules ask: identity for members' users, session for a
//! session's active organization and team.

use gatehouse_kit::client::ServiceChannel;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;
use gatehouse_proto::session::v1 as session_pb;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;

use crate::member::{ListedMember, Member};
use crate::organization::Caller;

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

    /// Members with their users (one a user identity no longer has shows none).
    pub async fn with_users(&self, members: Vec<Member>) -> Result<Vec<ListedMember>, Failure> {
        let mut listed = Vec::with_capacity(members.len());
        for member in members {
            let user = self.user(&member.user_id).await?;
            listed.push(ListedMember { member, user });
        }
        Ok(listed)
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
