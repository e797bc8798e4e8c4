//! The `user` capability: reading users (`gatehouse.identity.v1.UserService`). Other services
//! see users only through it, and confirm through it an address that proved its mailbox to them.

pub mod grpc;
pub mod store;

use chrono::{DateTime, Utc};
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::base;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::UserUpdated;

use crate::error::IdentityError;

/// A user as the identity service keeps it. Read from a row whose first columns are
/// [`COLUMNS`], in that order (see the `FromRow` below).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub name: String,
    /// Trimmed and lower-cased.
    pub email: String,
    pub email_verified: bool,
    pub image: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Username plugin: normalised (lower-cased) and unique; the form the user typed.
    pub username: Option<String>,
    pub display_username: Option<String>,
    /// Admin plugin: one role or several, comma-separated.
    pub role: String,
    pub banned: bool,
    pub ban_reason: Option<String>,
    /// `None` while banned: until unbanned.
    pub ban_expires: Option<DateTime<Utc>>,
    /// The platform's code of the language the user's mails are written in.
    pub language: i32,
    /// Two-factor plugin: sign-ins ask for a second factor.
    pub two_factor_enabled: bool,
}

/// The columns a user is read from, in the order every user query selects them.
pub(crate) const COLUMNS: [&str; 15] = [
    "id",
    "name",
    "email",
    "email_verified",
    "image",
    "created_at",
    "updated_at",
    "username",
    "display_username",
    "role",
    "banned",
    "ban_reason",
    "ban_expires",
    "language",
    "two_factor_enabled",
];

/// By position, not by name: a page of users is 1,300 values, and finding each by its name
/// (a hash of the name per value) cost more than decoding it. Debug builds check the names.
impl<'r, R> sqlx::FromRow<'r, R> for User
where
    R: sqlx::Row,
    usize: sqlx::ColumnIndex<R>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    DateTime<Utc>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<DateTime<Utc>>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i32: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        if cfg!(debug_assertions) {
            use sqlx::Column as _;
            for (index, name) in COLUMNS.iter().enumerate() {
                let found = row.try_column(index)?.name();
                if found != *name {
                    return Err(sqlx::Error::ColumnNotFound(format!(
                        "user column {index} is {found}, expected {name}"
                    )));
                }
            }
        }
        Ok(Self {
            id: row.try_get(0)?,
            name: row.try_get(1)?,
            email: row.try_get(2)?,
            email_verified: row.try_get(3)?,
            image: row.try_get(4)?,
            created_at: row.try_get(5)?,
            updated_at: row.try_get(6)?,
            username: row.try_get(7)?,
            display_username: row.try_get(8)?,
            role: row.try_get(9)?,
            banned: row.try_get(10)?,
            ban_reason: row.try_get(11)?,
            ban_expires: row.try_get(12)?,
            language: row.try_get(13)?,
            two_factor_enabled: row.try_get(14)?,
        })
    }
}

/// A language code a user may choose: one of the platform's, else `VALIDATION_ERROR`.
pub fn language(code: i32) -> Result<i32, IdentityError> {
    match gatehouse_kit::language::Language::from_code(code) {
        Some(language) => Ok(language.code()),
        None => Err(IdentityError::Refused(base::VALIDATION_ERROR.with_message(
            "[body.language] Unknown language code: use one of 0 (ru), 1 (uk), 3 (en), 4 (es), \
             6 (de), 15 (pl), 16 (fr), 82 (tr)",
        ))),
    }
}

/// The role every new user gets (better-auth's `defaultRole`).
pub const DEFAULT_ROLE: &str = "user";

/// The most users one `GetUsers` call reads (a full organization's member list is 100 by default).
pub const MAX_BATCH: usize = 1000;

impl User {
    /// A new user as sign-up (or an admin) creates them: not verified, default role, unbanned.
    pub fn new(name: String, email: String, image: Option<String>, now: DateTime<Utc>) -> Self {
        Self {
            id: gatehouse_kit::ids::new_id(),
            name,
            email,
            email_verified: false,
            image,
            created_at: now,
            updated_at: now,
            username: None,
            display_username: None,
            role: DEFAULT_ROLE.to_string(),
            banned: false,
            ban_reason: None,
            ban_expires: None,
            language: gatehouse_kit::language::Language::DEFAULT.code(),
            two_factor_enabled: false,
        }
    }
}

/// `user.updated` with the user as they are now: what other services keep of them
/// (the organization service's copy of members' profiles) comes from it.
pub fn updated_event(user: &User) -> OutboxEvent {
    OutboxEvent::new(&UserUpdated {
        user_id: user.id.clone(),
        name: user.name.clone(),
        email: user.email.clone(),
        image: user.image.clone(),
        updated_at_unix_ms: user.updated_at.timestamp_millis(),
    })
}

#[derive(Clone)]
pub struct Users {
    db: Db,
}

impl Users {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    pub async fn get(&self, id: &str) -> Result<User, IdentityError> {
        store::get(&self.db, id)
            .await?
            .ok_or_else(|| base::USER_NOT_FOUND.into())
    }

    /// Up to [`MAX_BATCH`] users by id; unknown ids are left out.
    pub async fn get_many(&self, ids: &[String]) -> Result<Vec<User>, IdentityError> {
        if ids.len() > MAX_BATCH {
            return Err(base::VALIDATION_ERROR
                .with_message(format!("at most {MAX_BATCH} ids at once"))
                .into());
        }
        Ok(store::get_many(&self.db, ids).await?)
    }

    /// The user with this email, compared as stored (lower-cased).
    pub async fn get_by_email(&self, email: &str) -> Result<User, IdentityError> {
        let email = gatehouse_kit::validate::normalize_email(email);
        store::find_by_email(&self.db, &email)
            .await?
            .ok_or_else(|| base::USER_NOT_FOUND.into())
    }

    /// An address another service saw prove its mailbox (an invitation's mailed link) becomes
    /// verified, provided it is still the user's: `EMAIL_MISMATCH` when it changed meanwhile.
    pub async fn confirm_email(&self, user_id: &str, email: &str) -> Result<User, IdentityError> {
        let email = gatehouse_kit::validate::normalize_email(email);
        let user = self.get(user_id).await?;
        if user.email != email {
            return Err(base::EMAIL_MISMATCH.into());
        }
        if user.email_verified {
            return Ok(user);
        }
        let verified = store::verify_email(&self.db, user_id, &email)
            .await?
            .ok_or(base::EMAIL_MISMATCH)?;
        tracing::info!(user_id = %verified.id, "email verified by an invitation's link");
        Ok(verified)
    }
}
