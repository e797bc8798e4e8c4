//! `gatehouse admin grant|revoke`: the command line's role change, on the identity database
//! directly.

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::base;
use gatehouse_kit::validate::normalize_email;

use crate::email_password::store as credentials;
use crate::error::IdentityError;
use crate::user::{DEFAULT_ROLE, User, store as users};

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
        roles.retain(|r| *r != DEFAULT_ROLE);
        roles.push(role);
    }
    if roles.is_empty() {
        roles.push(DEFAULT_ROLE);
    }
    users::update(db, &user.id, super::store::role(roles.join(",")), None)
        .await?
        .ok_or_else(|| base::USER_NOT_FOUND.into())
}
