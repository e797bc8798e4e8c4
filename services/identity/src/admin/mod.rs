//! The `admin` capability (`gatehouse.identity.v1.AdminService`, better-auth's admin plugin,
//! §10): creating, listing, changing, banning and removing users, impersonation's checks, and
//! the one permission check every admin action goes through. The actor's roles are read from
//! the users table on every call, so a role change counts from the actor's next request.
//! Every action on another user also goes through [`Roles::may_act_on`]: only a super-admin
//! acts on another admin.
//!
//! Here: the types and the checks every action shares; `rules.rs` the actions, `data.rs` the
//! reading of create-user's and update-user's `data`, `store.rs` the SQL, `grant.rs` the
//! command line's role change.

mod data;
mod grant;
pub mod grpc;
mod notice;
pub mod query;
pub mod roles;
mod rules;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_kit::access::Request;
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{ErrorCode, base};
use serde_json::{Map, Value};

use crate::email_password::EmailPassword;
use crate::error::IdentityError;
use crate::user::{User, store as users};
use crate::username::rules::UsernameRules;
pub use grant::{Named, change_role};
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

/// The permission to do `actions` on `resource`.
fn permissions(resource: &'static str, actions: &'static [&'static str]) -> Request {
    Request::all([(resource, actions)])
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

    /// Whether `actor` holds the permission to do `actions` on users.
    fn may(&self, actor: &User, actions: &'static [&'static str]) -> bool {
        self.settings
            .roles
            .user_allows(actor, &permissions("user", actions))
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
}
