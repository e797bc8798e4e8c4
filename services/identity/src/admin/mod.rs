//! The `admin` capability (`gatehouse.identity.v1.AdminService`, better-auth's admin plugin,
//! §10): creating, listing, changing, banning and removing users, impersonation's checks, and
//! the one permission check every admin action goes through. The actor's roles are read from
//! the users table on every call, so a role change counts from the actor's next request.
//! Every action on another user also goes through [`Roles::may_act_on`]: only a super-admin
//! acts on another admin.

pub mod grpc;
mod notice;
pub mod query;
pub mod roles;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::access::{AccessError, Request};
use gatehouse_kit::db::Db;
use gatehouse_kit::db::sea_query::SimpleExpr;
use gatehouse_kit::errors::{ErrorCode, Failure, admin as codes, base};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::validate::{is_valid_email, normalize_email};
use gatehouse_proto::events::v1::UserBanned;
use serde_json::{Map, Value};

use crate::email_password::{EmailPassword, store as credentials};
use crate::error::IdentityError;
use crate::user::{User, store as users};
use crate::username::UsernameRules;
pub use roles::Roles;
pub use store::ListQuery;

/// The admin plugin's settings (`ADMIN_*`, README).
#[derive(Clone, Debug)]
pub struct AdminSettings {
    pub roles: Roles,
    pub impersonation_lifetime: Duration,
    pub allow_impersonating_admins: bool,
    pub default_ban_reason: String,
    pub default_ban_expires_in: Option<Duration>,
}

/// What create-user asks for.
#[derive(Clone, Debug, Default)]
pub struct NewUserByAdmin {
    pub email: String,
    pub password: Option<String>,
    pub name: String,
    /// `None`: the default role.
    pub roles: Option<Vec<String>>,
    /// More user fields (`data`), better-auth's names.
    pub data: Map<String, Value>,
}

/// A user as an admin's update-user left them.
#[derive(Clone, Debug)]
pub struct Edited {
    pub user: User,
    /// The change ended every session of theirs (a ban, a new email).
    pub sessions_ended: bool,
}

#[derive(Clone)]
pub struct Admin {
    db: Db,
    credentials: EmailPassword,
    usernames: UsernameRules,
    settings: Arc<AdminSettings>,
}

fn permissions(resource: &'static str, actions: &'static [&'static str]) -> Request {
    Request::all([(resource, actions)])
}

fn ban_event(user_id: &str) -> OutboxEvent {
    OutboxEvent::new(&UserBanned {
        user_id: user_id.to_string(),
    })
}

impl Admin {
    pub fn new(
        db: Db,
        credentials: EmailPassword,
        usernames: UsernameRules,
        settings: AdminSettings,
    ) -> Self {
        Self {
            db,
            credentials,
            usernames,
            settings: Arc::new(settings),
        }
    }

    pub fn roles(&self) -> &Roles {
        &self.settings.roles
    }

    /// The actor, if they hold every permission of `wanted`; `refusal` otherwise.
    pub async fn authorize(
        &self,
        actor_id: &str,
        wanted: &Request,
        refusal: ErrorCode,
    ) -> Result<User, IdentityError> {
        let actor = users::get(&self.db, actor_id)
            .await?
            .ok_or(base::UNAUTHORIZED)?;
        if self.settings.roles.user_allows(&actor, wanted) {
            Ok(actor)
        } else {
            Err(refusal.into())
        }
    }

    async fn target(&self, user_id: &str) -> Result<User, IdentityError> {
        users::get(&self.db, user_id)
            .await?
            .ok_or_else(|| base::USER_NOT_FOUND.into())
    }

    /// The user an action is on, if `actor` may act on them ([`Roles::may_act_on`]); refused
    /// with `on_admin` when they are another admin and the actor no super-admin.
    async fn target_of(
        &self,
        actor: &User,
        user_id: &str,
        on_admin: ErrorCode,
    ) -> Result<User, IdentityError> {
        let target = self.target(user_id).await?;
        self.check_target(actor, &target, on_admin)?;
        Ok(target)
    }

    fn check_target(
        &self,
        actor: &User,
        target: &User,
        on_admin: ErrorCode,
    ) -> Result<(), IdentityError> {
        if self.settings.roles.may_act_on(actor, target) {
            return Ok(());
        }
        tracing::warn!(actor = %actor.id, user_id = %target.id, refused = on_admin.code(), "an admin's action on another admin refused");
        Err(on_admin.into())
    }

    /// Authorize's target check for the actions the gateway carries out itself (a user's
    /// sessions): `on_admin` when `user_id` is another admin; an unknown user is nobody to
    /// protect.
    pub async fn authorize_on(
        &self,
        actor: &User,
        user_id: &str,
        on_admin: ErrorCode,
    ) -> Result<(), IdentityError> {
        match users::get(&self.db, user_id).await? {
            Some(target) => self.check_target(actor, &target, on_admin),
            None => Ok(()),
        }
    }

    fn check_roles(&self, roles: &[String]) -> Result<String, IdentityError> {
        if roles.is_empty() || !self.settings.roles.knows(roles) {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE.into());
        }
        Ok(roles.iter().map(|r| r.trim()).collect::<Vec<_>>().join(","))
    }

    /// create-user: `user:create`, and `user:set-role` when a role is given.
    pub async fn create_user(
        &self,
        actor_id: &str,
        new: NewUserByAdmin,
    ) -> Result<User, IdentityError> {
        // `role` wins over `data.role`; a `data.role` that is no role is refused.
        let role = match (&new.roles, new.data.get("role")) {
            (Some(roles), _) => Some(roles.clone()),
            (None, None) => None,
            (None, Some(Value::String(role))) => Some(vec![role.clone()]),
            (None, Some(Value::Array(roles))) => Some(
                roles
                    .iter()
                    .map(|r| r.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(codes::INVALID_ROLE_TYPE)?,
            ),
            (None, Some(_)) => return Err(codes::INVALID_ROLE_TYPE.into()),
        };
        let bans = ["banned", "banReason", "banExpires"]
            .iter()
            .any(|key| new.data.contains_key(*key));
        let actor = self
            .authorize(
                actor_id,
                &permissions("user", &["create"]),
                codes::YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS,
            )
            .await?;
        if role.is_some()
            && !self
                .settings
                .roles
                .user_allows(&actor, &permissions("user", &["set-role"]))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE.into());
        }
        if bans
            && !self
                .settings
                .roles
                .user_allows(&actor, &permissions("user", &["ban"]))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS.into());
        }
        let role = role.map(|roles| self.check_roles(&roles)).transpose()?;
        let email = normalize_email(&new.email);
        if !is_valid_email(&email) {
            return Err(base::INVALID_EMAIL.into());
        }
        if let Some(password) = &new.password {
            self.credentials.check_password_length(password, false)?;
        }
        let text = |key: &str| {
            new.data
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
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
                language: new
                    .data
                    .get("language")
                    .and_then(Value::as_i64)
                    .and_then(|code| i32::try_from(code).ok())
                    .map(crate::user::language)
                    .transpose()?
                    .unwrap_or(gatehouse_kit::language::Language::DEFAULT.code()),
            },
            hash.as_deref(),
            credentials::Extras {
                role,
                email_verified: new.data.get("emailVerified") == Some(&Value::Bool(true)),
                banned: new.data.get("banned") == Some(&Value::Bool(true)),
                ban_reason: text("banReason"),
                ban_expires: text("banExpires").and_then(|raw| {
                    chrono::DateTime::parse_from_rfc3339(&raw)
                        .ok()
                        .map(|t| t.to_utc())
                }),
            },
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
        columns: Vec<(&'static str, SimpleExpr)>,
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
        let role = self.check_roles(roles)?;
        self.target_of(&actor, user_id, codes::YOU_CANNOT_CHANGE_ADMINS_ROLE)
            .await?;
        self.set(user_id, vec![("role", role.into())], Vec::new())
            .await
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
        let roles = self.settings.roles.clone();
        let needs = |actions: &'static [&'static str], refusal: ErrorCode| {
            if roles.user_allows(&actor, &permissions("user", actions)) {
                Ok(())
            } else {
                Err(IdentityError::from(refusal))
            }
        };
        let bans = ["banned", "banReason", "banExpires"]
            .iter()
            .any(|key| data.contains_key(*key));
        if data.contains_key("role") {
            needs(
                &["set-role"],
                codes::YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE,
            )?;
        }
        if bans {
            needs(&["ban"], codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS)?;
            if user_id == actor_id && data.get("banned") == Some(&Value::Bool(true)) {
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
        let invalid = |key: &str| {
            IdentityError::Refused(
                base::VALIDATION_ERROR.with_message(format!("[body.data.{key}] Invalid input")),
            )
        };
        let text = |key: &str| -> Result<Option<Option<String>>, IdentityError> {
            match data.get(key) {
                None => Ok(None),
                Some(Value::Null) => Ok(Some(None)),
                Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
                Some(_) => Err(invalid(key)),
            }
        };
        let mut columns: Vec<(&'static str, SimpleExpr)> = Vec::new();
        if let Some(name) = text("name")? {
            columns.push(("name", name.ok_or_else(|| invalid("name"))?.into()));
        }
        if let Some(image) = text("image")? {
            columns.push(("image", image.into()));
        }
        let mut also = Vec::new();
        if let Some(email) = text("email")? {
            let email = normalize_email(&email.ok_or_else(|| invalid("email"))?);
            if !is_valid_email(&email) {
                return Err(base::INVALID_EMAIL.into());
            }
            if email != target.email {
                also.extend(notice::email_changed(&target, &email));
            }
            columns.push(("email", email.into()));
        }
        if let Some(verified) = data.get("emailVerified") {
            columns.push((
                "email_verified",
                verified
                    .as_bool()
                    .ok_or_else(|| invalid("emailVerified"))?
                    .into(),
            ));
        }
        if let Some(username) = text("username")? {
            let username = match username {
                Some(raw) => Some(
                    self.usernames
                        .for_update(&raw)
                        .map_err(IdentityError::Refused)?,
                ),
                None => None,
            };
            columns.push(("username", username.into()));
        }
        if let Some(display) = text("displayUsername")? {
            columns.push(("display_username", display.into()));
        }
        if let Some(role) = data.get("role") {
            let roles = match role {
                Value::String(role) => vec![role.clone()],
                Value::Array(roles) => roles
                    .iter()
                    .map(|r| {
                        r.as_str()
                            .map(str::to_string)
                            .ok_or(codes::INVALID_ROLE_TYPE)
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(codes::INVALID_ROLE_TYPE.into()),
            };
            columns.push(("role", self.check_roles(&roles)?.into()));
        }
        let mut banning = false;
        if let Some(banned) = data.get("banned") {
            banning = banned.as_bool().ok_or_else(|| invalid("banned"))?;
            columns.push(("banned", banning.into()));
        }
        if let Some(reason) = text("banReason")? {
            columns.push(("ban_reason", reason.into()));
        }
        if let Some(expires) = text("banExpires")? {
            let expires = match expires {
                Some(raw) => Some(
                    chrono::DateTime::parse_from_rfc3339(&raw)
                        .map_err(|_| invalid("banExpires"))?
                        .to_utc(),
                ),
                None => None,
            };
            columns.push(("ban_expires", expires.into()));
        }
        if columns.is_empty() {
            // Only keys that are no user field: nothing to change (better-auth drops them).
            return Ok(Edited {
                user: target,
                sessions_ended: false,
            });
        }
        // user.updated goes out in any case (a ban may come with a new name); a ban or a new
        // email also ends the user's sessions.
        let sessions_ended = banning || !also.is_empty();
        if banning {
            also.push(ban_event(user_id));
        }
        let user = self.set(user_id, columns, also).await?;
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

    /// ban-user: `user:ban`. The user's sessions end (user.banned), and signing in is refused
    /// until the ban expires or is lifted.
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
        self.target_of(&actor, user_id, codes::YOU_CANNOT_BAN_ADMINS)
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
        let user = self
            .set(
                user_id,
                vec![
                    ("banned", true.into()),
                    ("ban_reason", reason.into()),
                    ("ban_expires", expires.into()),
                ],
                vec![ban_event(user_id)],
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
        self.set(user_id, unbanned(), Vec::new()).await
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
            && !self
                .settings
                .roles
                .user_allows(&actor, &permissions("user", &["impersonate-admins"]))
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

/// The columns that lift a ban.
pub fn unbanned() -> Vec<(&'static str, SimpleExpr)> {
    vec![
        ("banned", false.into()),
        ("ban_reason", Option::<String>::None.into()),
        (
            "ban_expires",
            Option::<chrono::DateTime<chrono::Utc>>::None.into(),
        ),
    ]
}

/// Who `gatehouse admin grant|revoke` names.
pub enum Named<'a> {
    Email(&'a str),
    Id(&'a str),
}

/// `gatehouse admin grant|revoke`: adds `role` to (or takes it from) a user's roles, with the
/// `user.updated` event that drops their cached sessions. Works on the identity database
/// directly, so it needs no running service and no credentials beyond the database's; the
/// running identity service publishes the event, and reads roles from the table on every admin
/// call, so the change counts from the user's next request.
pub async fn change_role(
    db: &Db,
    named: Named<'_>,
    role: &str,
    grant: bool,
) -> Result<User, IdentityError> {
    let found = match named {
        Named::Email(email) => {
            credentials::find_credential(db, credentials::By::Email(&normalize_email(email)))
                .await?
                .map(|c| c.user)
        }
        Named::Id(id) => users::get(db, id).await?,
    };
    let user = found.ok_or(base::USER_NOT_FOUND)?;
    let mut roles: Vec<&str> = user
        .role
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty() && *r != role)
        .collect();
    if grant {
        // The default role grants nothing; an admin is just `admin`, as better-auth sets it.
        roles.retain(|r| *r != crate::user::DEFAULT_ROLE);
        roles.push(role);
    }
    if roles.is_empty() {
        roles.push(crate::user::DEFAULT_ROLE);
    }
    let role = roles.join(",");
    users::update(db, &user.id, vec![("role", role.into())], None)
        .await?
        .ok_or_else(|| base::USER_NOT_FOUND.into())
}
