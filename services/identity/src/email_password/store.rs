//! Users with their credential account: created together, read together at sign-in.

use gatehouse_kit::db::{Db, DbError, Tx, query};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::UserCreated;

use crate::user::User;
use crate::user_columns;

pub const CREDENTIAL_PROVIDER: &str = "credential";

/// A user with their credential account, as sign-in needs it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Credential {
    #[sqlx(flatten)]
    pub user: User,
    /// The credential account's row id; `None` when the user only has social accounts.
    pub account_row_id: Option<String>,
    pub password_hash: Option<String>,
}

pub struct NewUser {
    pub name: String,
    /// Already normalised (lower-cased).
    pub email: String,
    pub image: Option<String>,
    /// Already checked and normalised.
    pub username: Option<String>,
    pub display_username: Option<String>,
    /// The platform's language code (already checked).
    pub language: i32,
}

/// What an admin may set beyond a sign-up's fields (better-auth's create-user `role`, `data`).
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// `None`: the default role.
    pub role: Option<String>,
    pub email_verified: bool,
    pub banned: bool,
    pub ban_reason: Option<String>,
    pub ban_expires: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("a user with this email exists")]
    EmailTaken,
    #[error("a user with this username exists")]
    UsernameTaken,
    #[error(transparent)]
    Db(DbError),
}

/// Creates the user, their credential account and the `user.created` event, atomically.
pub async fn create_user(db: &Db, new: NewUser, password_hash: &str) -> Result<User, CreateError> {
    create_user_with(db, new, Some(password_hash), Extras::default(), |_| None).await
}

/// Creates the user (with a credential account when there is a password), the `user.created`
/// event and the link `mail` makes for the new user (a verification), atomically.
pub async fn create_user_with(
    db: &Db,
    new: NewUser,
    password_hash: Option<&str>,
    extras: Extras,
    mail: impl FnOnce(&User) -> Option<crate::verification::Link>,
) -> Result<User, CreateError> {
    let account = password_hash.map(|hash| NewAccount {
        provider_id: CREDENTIAL_PROVIDER,
        account_id: None,
        password: Some(hash),
        tokens: None,
    });
    create_user_with_account(db, new, account, extras, mail).await
}

/// An account created with its user.
pub struct NewAccount<'a> {
    pub provider_id: &'a str,
    /// The provider's id for the user; `None`: the user's own id (a credential account).
    pub account_id: Option<&'a str>,
    pub password: Option<&'a str>,
    /// A provider account's tokens, encrypted.
    pub tokens: Option<&'a crate::account::store::StoredTokens>,
}

/// Creates the user with `account`, the `user.created` event and the link `mail` makes for
/// the new user, atomically.
pub async fn create_user_with_account(
    db: &Db,
    new: NewUser,
    account: Option<NewAccount<'_>>,
    extras: Extras,
    mail: impl FnOnce(&User) -> Option<crate::verification::Link>,
) -> Result<User, CreateError> {
    let now = ids::now();
    let defaults = User::new(new.name, new.email, new.image, now);
    let user = User {
        username: new.username,
        display_username: new.display_username,
        language: new.language,
        role: extras.role.unwrap_or(defaults.role.clone()),
        email_verified: extras.email_verified,
        banned: extras.banned,
        ban_reason: extras.ban_reason,
        ban_expires: extras.ban_expires,
        ..defaults
    };
    // No secrets: the event travels to other services.
    let event = OutboxEvent::new(&UserCreated {
        user_id: user.id.clone(),
        email: user.email.clone(),
        name: user.name.clone(),
        email_verified: user.email_verified,
        created_at_unix_ms: now.timestamp_millis(),
    });
    let result: Result<(), DbError> = async {
        let mut tx = db.begin().await?;
        query(
            "INSERT INTO users (id, name, email, email_verified, image, created_at, updated_at, \
             username, display_username, role, banned, ban_reason, ban_expires, language) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        )
        .bind(user.id.as_str())
        .bind(user.name.as_str())
        .bind(user.email.as_str())
        .bind(user.email_verified)
        .bind(user.image.clone())
        .bind(user.created_at)
        .bind(user.updated_at)
        .bind(user.username.clone())
        .bind(user.display_username.clone())
        .bind(user.role.as_str())
        .bind(user.banned)
        .bind(user.ban_reason.clone())
        .bind(user.ban_expires)
        .bind(user.language)
        .execute(&mut tx)
        .await?;
        if let Some(account) = &account {
            let tokens = account.tokens.cloned().unwrap_or_default();
            query(
                "INSERT INTO accounts (id, account_id, provider_id, user_id, password, \
                 access_token, refresh_token, id_token, access_token_expires_at, \
                 refresh_token_expires_at, scope, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind(ids::new_id())
            .bind(account.account_id.unwrap_or(user.id.as_str()))
            .bind(account.provider_id)
            .bind(user.id.as_str())
            .bind(account.password)
            .bind(tokens.access_token)
            .bind(tokens.refresh_token)
            .bind(tokens.id_token)
            .bind(tokens.access_token_expires_at)
            .bind(tokens.refresh_token_expires_at)
            .bind(tokens.scope)
            .bind(now)
            .bind(now)
            .execute(&mut tx)
            .await?;
        }
        tx.enqueue(&event).await?;
        if let Some(link) = mail(&user) {
            link.write(&mut tx).await?;
        }
        tx.commit().await
    }
    .await;
    match result {
        Ok(()) => Ok(user),
        Err(error) if error.is_unique_violation_of("username") => Err(CreateError::UsernameTaken),
        Err(DbError::UniqueViolation(_)) => Err(CreateError::EmailTaken),
        Err(error) => Err(CreateError::Db(error)),
    }
}

/// How a sign-in names its account.
pub enum By<'a> {
    /// Normalised (lower-cased) email.
    Email(&'a str),
    /// Normalised (lower-cased) username.
    Username(&'a str),
}

/// A user with their credential account (if any), filtered by the `WHERE` that follows.
macro_rules! credential_select {
    () => {
        concat!(
            "SELECT ",
            user_columns!(),
            ", accounts.id AS account_row_id, accounts.password AS password_hash \
             FROM users LEFT JOIN accounts ON accounts.user_id = users.id AND accounts.provider_id = $1 "
        )
    };
}

/// The user named by `by` and their credential account, if any.
pub async fn find_credential(db: &Db, by: By<'_>) -> Result<Option<Credential>, DbError> {
    let (sql, value) = match by {
        By::Email(email) => (
            concat!(credential_select!(), "WHERE users.email = $2"),
            email,
        ),
        By::Username(username) => (
            concat!(credential_select!(), "WHERE users.username = $2"),
            username,
        ),
    };
    query(sql)
        .bind(CREDENTIAL_PROVIDER)
        .bind(value)
        .fetch_optional(db)
        .await
}

/// A user (by id) with their credential account, if they have one.
pub async fn credential_of(db: &Db, user_id: &str) -> Result<Option<Credential>, DbError> {
    query(concat!(credential_select!(), "WHERE users.id = $2"))
        .bind(CREDENTIAL_PROVIDER)
        .bind(user_id)
        .fetch_optional(db)
        .await
}

pub async fn set_password_hash(
    db: &Db,
    account_row_id: &str,
    password_hash: &str,
) -> Result<(), DbError> {
    query("UPDATE accounts SET password = $1, updated_at = $2 WHERE id = $3")
        .bind(password_hash)
        .bind(ids::now())
        .bind(account_row_id)
        .execute(db)
        .await?;
    Ok(())
}

/// Sets the user's password in `tx`: replaces the credential account's, or creates one for a
/// user who only had social accounts (as better-auth's reset-password does).
pub async fn set_credential(
    tx: &mut Tx,
    user_id: &str,
    password_hash: &str,
) -> Result<(), DbError> {
    let now = ids::now();
    let updated = query(
        "UPDATE accounts SET password = $1, updated_at = $2 WHERE user_id = $3 AND provider_id = $4",
    )
    .bind(password_hash)
    .bind(now)
    .bind(user_id)
    .bind(CREDENTIAL_PROVIDER)
    .execute(&mut *tx)
    .await?;
    if updated == 0 {
        query(
            "INSERT INTO accounts (id, account_id, provider_id, user_id, password, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(ids::new_id())
        .bind(user_id)
        .bind(CREDENTIAL_PROVIDER)
        .bind(user_id)
        .bind(password_hash)
        .bind(now)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    // A new password ends the trust of every browser (two-factor plugin).
    crate::two_factor::store::forget_devices(tx, user_id).await?;
    Ok(())
}

/// A user's change of their own password: the credential's hash replaced, their trusted
/// browsers forgotten and `notice` (their mail) queued, atomically.
pub async fn change_password_hash(
    db: &Db,
    user_id: &str,
    account_row_id: &str,
    password_hash: &str,
    notice: &OutboxEvent,
) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    tx.enqueue(notice).await?;
    query("UPDATE accounts SET password = $1, updated_at = $2 WHERE id = $3")
        .bind(password_hash)
        .bind(ids::now())
        .bind(account_row_id)
        .execute(&mut tx)
        .await?;
    crate::two_factor::store::forget_devices(&mut tx, user_id).await?;
    tx.commit().await
}
