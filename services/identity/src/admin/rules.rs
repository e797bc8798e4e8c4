//! The admin actions, each with the permission it needs and the checks on whom it acts on.

use std::time::Duration;

use gatehouse_kit::access::{AccessError, Request};
use gatehouse_kit::errors::{ErrorCode, Failure, admin as codes, base};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::validate::{is_valid_email, normalize_email};
use gatehouse_proto::events::v1::UserBanned;
use serde_json::{Map, Value};

use super::data::{self, UserChanges};
use super::store::{self, Column, ListQuery};
use super::{Admin, Edited, NewUserByAdmin, notice, permissions};
use crate::email_password::store as credentials;
use crate::error::IdentityError;
use crate::user::{User, store as users};

fn ban_event(user_id: &str) -> OutboxEvent {
    OutboxEvent::new(&UserBanned {
        user_id: user_id.to_string(),
    })
}

impl Admin {
    /// create-user: `user:create`, and `user:set-role` when a role is given.
    pub async fn create_user(
        &self,
        actor_id: &str,
        new: NewUserByAdmin,
    ) -> Result<User, IdentityError> {
        let role = data::requested_roles(&new.roles, &new.data)?;
        let bans = data::touches_ban(&new.data);
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["create"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS,
            )
            .await?;
        if role.is_some() && !self.may(&actor, &["set-role"]) {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE.into());
        }
        if bans && !self.may(&actor, &["ban"]) {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS.into());
        }
        let role = role
            .map(|roles| self.settings.roles.stored(&roles))
            .transpose()?;
        let email = normalize_email(&new.email);
        if !is_valid_email(&email) {
            return Err(base::INVALID_EMAIL.into());
        }
        if let Some(password) = &new.password {
            self.credentials.check_password_length(password, false)?;
        }
        let text = |key: &str| data::text(&new.data, key);
        let (username, display_username) = self
            .usernames
            .for_sign_up(text("username"), text("displayUsername"))
            .map_err(IdentityError::Refused)?;
        let hash = match &new.password {
            Some(password) => Some(self.credentials.hasher().hash(password).await?),
            None => None,
        };
        let created = credentials::create_user_with(
            &self.db,
            credentials::NewUser {
                name: new.name,
                email,
                image: text("image"),
                username,
                display_username,
                language: data::language(&new.data)?,
            },
            hash.as_deref(),
            data::extras(&new.data, role),
            |_| None,
        )
        .await;
        match created {
            Ok(user) => {
                tracing::info!(actor = actor_id, user_id = %user.id, "user created by an admin");
                Ok(user)
            }
            Err(credentials::CreateError::EmailTaken) => {
                Err(codes::USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL.into())
            }
            Err(credentials::CreateError::UsernameTaken) => {
                Err(gatehouse_kit::errors::username::USERNAME_IS_ALREADY_TAKEN.into())
            }
            Err(credentials::CreateError::Db(error)) => Err(IdentityError::internal(
                "creating a user",
                error.answer_or(codes::FAILED_TO_CREATE_USER),
                error,
            )),
        }
    }

    /// list-users: `user:list`.
    pub async fn list_users(
        &self,
        actor_id: &str,
        query: &ListQuery,
    ) -> Result<(Vec<User>, u64), IdentityError> {
        self.authorize(
            actor_id,
            &permissions("user", &["list"]),
            codes::YOU_ARE_NOT_ALLOWED_TO_LIST_USERS,
        )
        .await?;
        Ok(store::list(&self.db, query).await?)
    }

    /// get-user: `user:get`.
    pub async fn inspect_user(&self, actor_id: &str, user_id: &str) -> Result<User, IdentityError> {
        self.authorize(
            actor_id,
            &permissions("user", &["get"]),
            codes::YOU_ARE_NOT_ALLOWED_TO_GET_USER,
        )
        .await?;
        self.target(user_id).await
    }

    async fn set(
        &self,
        user_id: &str,
        columns: Vec<Column>,
        also: Vec<OutboxEvent>,
    ) -> Result<User, IdentityError> {
        users::update(&self.db, user_id, columns, also)
            .await
            .map_err(|error| {
                if error.is_unique_violation_of("username") {
                    gatehouse_kit::errors::username::USERNAME_IS_ALREADY_TAKEN.into()
                } else if error.is_unique_violation_of("email") {
                    codes::USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL.into()
                } else {
                    IdentityError::internal(
                        "updating a user",
                        error.answer_or(base::FAILED_TO_UPDATE_USER),
                        error,
                    )
                }
            })?
            .ok_or_else(|| base::USER_NOT_FOUND.into())
    }

    /// set-role: `user:set-role`; several roles are stored comma-separated.
    pub async fn set_role(
        &self,
        actor_id: &str,
        user_id: &str,
        roles: &[String],
    ) -> Result<User, IdentityError> {
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["set-role"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE,
            )
            .await?;
        let role = self.settings.roles.stored(roles)?;
        self.target_of(&actor, user_id, codes::YOU_CANNOT_CHANGE_ADMINS_ROLE)
            .await?;
        self.set(user_id, store::role(role), Vec::new()).await
    }

    /// update-user: `user:update`, plus `user:set-role` for a role, `user:ban` for the ban
    /// fields and `user:set-email` for the email fields. A new email ends the user's sessions
    /// and is mailed to the old address.
    pub async fn edit_user(
        &self,
        actor_id: &str,
        user_id: &str,
        data: Map<String, Value>,
    ) -> Result<Edited, IdentityError> {
        if data.is_empty() {
            return Err(codes::NO_DATA_TO_UPDATE.into());
        }
        if data.contains_key("password") {
            return Err(codes::PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER.into());
        }
        if data.contains_key("id") {
            return Err(codes::USER_ID_CANNOT_BE_UPDATED.into());
        }
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["update"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS,
            )
            .await?;
        let needs = |actions: &'static [&'static str], refusal: ErrorCode| {
            if self.may(&actor, actions) {
                Ok(())
            } else {
                Err(IdentityError::from(refusal))
            }
        };
        if data.contains_key("role") {
            needs(
                &["set-role"],
                codes::YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE,
            )?;
        }
        if data::touches_ban(&data) {
            needs(&["ban"], codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS)?;
            if user_id == actor_id && data::bans(&data) {
                return Err(codes::YOU_CANNOT_BAN_YOURSELF.into());
            }
        }
        if data.contains_key("email") || data.contains_key("emailVerified") {
            needs(
                &["set-email"],
                codes::YOU_ARE_NOT_ALLOWED_TO_SET_USERS_EMAIL,
            )?;
        }
        let target = self
            .target_of(&actor, user_id, codes::YOU_CANNOT_UPDATE_ADMINS)
            .await?;
        let changes = UserChanges::read(&data, &self.usernames, &self.settings.roles)?;
        if changes.is_empty() {
            // Only keys that are no user field: nothing to change (better-auth drops them).
            return Ok(Edited {
                user: target,
                sessions_ended: false,
            });
        }
        let mut also = Vec::new();
        if let Some(email) = changes.email.as_deref()
            && email != target.email
        {
            also.extend(notice::email_changed(&target, email));
        }
        let banning = changes.banned == Some(true);
        // user.updated goes out in any case (a ban may come with a new name); a ban or a new
        // email also ends the user's sessions.
        let sessions_ended = banning || !also.is_empty();
        if banning {
            also.push(ban_event(user_id));
        }
        let user = self.set(user_id, store::changes(changes), also).await?;
        if sessions_ended {
            tracing::info!(
                actor = actor_id,
                user_id,
                "user's sessions ended by an admin's update"
            );
        }
        Ok(Edited {
            user,
            sessions_ended,
        })
    }

    /// ban-user: `user:ban`. The user's sessions end (user.banned), signing in is refused
    /// until the ban expires or is lifted, and they are told by mail, with the reason.
    pub async fn ban_user(
        &self,
        actor_id: &str,
        user_id: &str,
        reason: Option<String>,
        expires_in: Option<Duration>,
    ) -> Result<User, IdentityError> {
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["ban"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS,
            )
            .await?;
        if user_id == actor_id {
            return Err(codes::YOU_CANNOT_BAN_YOURSELF.into());
        }
        let target = self
            .target_of(&actor, user_id, codes::YOU_CANNOT_BAN_ADMINS)
            .await?;
        let reason = reason.unwrap_or_else(|| self.settings.default_ban_reason.clone());
        let expires = match expires_in.or(self.settings.default_ban_expires_in) {
            None => None,
            Some(lifetime) => Some(
                chrono::TimeDelta::from_std(lifetime)
                    .ok()
                    .and_then(|lifetime| ids::now().checked_add_signed(lifetime))
                    .ok_or_else(|| {
                        IdentityError::Refused(base::VALIDATION_ERROR.with_message(
                            "[body.banExpiresIn] Too big: a ban cannot outlast the calendar",
                        ))
                    })?,
            ),
        };
        let told = notice::banned(&target, &reason, expires);
        let user = self
            .set(
                user_id,
                store::ban(reason, expires),
                vec![ban_event(user_id), told],
            )
            .await?;
        tracing::info!(actor = actor_id, user_id, "user banned");
        Ok(user)
    }

    /// unban-user: `user:ban`. Lifting an admin's ban is for super-admins, as banning is.
    pub async fn unban_user(&self, actor_id: &str, user_id: &str) -> Result<User, IdentityError> {
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["ban"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS,
            )
            .await?;
        self.target_of(&actor, user_id, codes::YOU_CANNOT_BAN_ADMINS)
            .await?;
        self.set(user_id, users::unbanned(), Vec::new()).await
    }

    /// remove-user: `user:delete`. Publishes user.deleted (their sessions go too).
    pub async fn remove_user(&self, actor_id: &str, user_id: &str) -> Result<(), IdentityError> {
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["delete"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS,
            )
            .await?;
        if user_id == actor_id {
            return Err(codes::YOU_CANNOT_REMOVE_YOURSELF.into());
        }
        self.target_of(&actor, user_id, codes::YOU_CANNOT_REMOVE_ADMINS)
            .await?;
        if !crate::user::store::delete(&self.db, user_id).await? {
            return Err(base::USER_NOT_FOUND.into());
        }
        tracing::info!(actor = actor_id, user_id, "user removed");
        Ok(())
    }

    /// set-user-password: `user:set-password`; creates the credential account if missing.
    /// Every session of the user ends (user.credentials-changed) and they are mailed, in the
    /// transaction that sets the password.
    pub async fn set_user_password(
        &self,
        actor_id: &str,
        user_id: &str,
        new_password: &str,
    ) -> Result<(), IdentityError> {
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["set-password"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD,
            )
            .await?;
        self.credentials.check_password_length(new_password, true)?;
        let target = self
            .target_of(&actor, user_id, codes::YOU_CANNOT_SET_ADMINS_PASSWORD)
            .await?;
        let hash = self.credentials.hasher().hash(new_password).await?;
        let mut tx = self.db.begin().await?;
        credentials::set_credential(&mut tx, user_id, &hash).await?;
        for event in notice::password_set(&target) {
            tx.enqueue(&event).await?;
        }
        tx.commit().await?;
        tracing::info!(actor = actor_id, user_id, "password set by an admin");
        Ok(())
    }

    /// reset-two-factor: `user:reset-two-factor`. The user's second factor goes (secret,
    /// backup codes, trusted devices); they are mailed and signed out everywhere, in the
    /// transaction of the change.
    pub async fn reset_two_factor(
        &self,
        actor_id: &str,
        user_id: &str,
    ) -> Result<User, IdentityError> {
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["reset-two-factor"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_RESET_USERS_TWO_FACTOR,
            )
            .await?;
        self.target_of(&actor, user_id, codes::YOU_CANNOT_RESET_ADMINS_TWO_FACTOR)
            .await?;
        let user = crate::two_factor::store::switch(
            &self.db,
            user_id,
            crate::two_factor::store::Switch::Off,
            |user| notice::two_factor_reset(user, actor_id),
        )
        .await?
        .ok_or(base::USER_NOT_FOUND)?;
        tracing::info!(actor = actor_id, user_id, "two-factor reset by an admin");
        Ok(user)
    }

    /// impersonate-user: `user:impersonate`; an admin target also needs
    /// `user:impersonate-admins` (or `ADMIN_ALLOW_IMPERSONATING_ADMINS`). A banned user cannot
    /// be given a session.
    pub async fn impersonate(
        &self,
        actor_id: &str,
        user_id: &str,
    ) -> Result<(User, Duration), IdentityError> {
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["impersonate"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS,
            )
            .await?;
        let target = self.target(user_id).await?;
        if self.settings.roles.is_admin(&target)
            && !self.settings.allow_impersonating_admins
            && !self.may(&actor, &["impersonate-admins"])
        {
            return Err(codes::YOU_CANNOT_IMPERSONATE_ADMINS.into());
        }
        let target = self.credentials.admit_banned(target).await?;
        tracing::info!(actor = actor_id, user_id, "impersonation started");
        Ok((target, self.settings.impersonation_lifetime))
    }

    /// has-permission: the caller's own roles when signed in, else `role`, else the roles of
    /// the user `user_id`.
    pub async fn has_permission(
        &self,
        actor_id: Option<&str>,
        user_id: Option<&str>,
        role: Option<&str>,
        wanted: &Value,
    ) -> Result<bool, IdentityError> {
        let wanted = match Request::from_json(wanted) {
            Ok(wanted) => wanted,
            // Asking for nothing holds nothing (better-auth answers false).
            Err(AccessError::Empty) => return Ok(false),
            Err(AccessError::Malformed) => {
                return Err(IdentityError::Refused(
                    base::VALIDATION_ERROR.with_message("[body] Invalid input"),
                ));
            }
        };
        let roles = &self.settings.roles;
        if let Some(actor) = actor_id {
            let actor = users::get(&self.db, actor)
                .await?
                .ok_or(base::UNAUTHORIZED)?;
            return Ok(roles.user_allows(&actor, &wanted));
        }
        if let Some(role) = role {
            return Ok(roles.allows("", role, &wanted));
        }
        let Some(user_id) = user_id else {
            return Err(IdentityError::Refused(Failure::message_only(
                400,
                "user id or role is required",
            )));
        };
        let Some(user) = users::get(&self.db, user_id).await? else {
            return Err(IdentityError::Refused(Failure::message_only(
                400,
                "user not found",
            )));
        };
        Ok(roles.user_allows(&user, &wanted))
    }
}
