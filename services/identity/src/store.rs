//! The identity tables: users and their accounts. Writes that cause events put them in the
//! outbox in the same transaction.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::Db;
use gatehouse_kit::outbox::{OutboxEvent, OutboxSignal};
use gatehouse_kit::{enqueue, ids, with_db};
use serde::Serialize;

pub const CREDENTIAL_PROVIDER: &str = "credential";

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct User {
    pub id: String,
    pub name: String,
    pub email: String,
    pub email_verified: bool,
    pub image: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

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
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("a user with this email exists")]
    EmailTaken,
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

/// The `user.created` event's data. No secrets: it travels to other services.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UserCreated<'a> {
    id: &'a str,
    email: &'a str,
    name: &'a str,
    email_verified: bool,
    created_at: String,
}

#[derive(Clone)]
pub struct IdentityStore {
    db: Db,
    outbox: OutboxSignal,
}

/// The user columns every query selects (a macro so queries stay literal strings).
macro_rules! user_columns {
    () => {
        "users.id, users.name, users.email, users.email_verified, users.image, users.created_at, users.updated_at"
    };
}

impl IdentityStore {
    pub fn new(db: Db, outbox: OutboxSignal) -> Self {
        Self { db, outbox }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Creates the user, their credential account and the `user.created` event, atomically.
    pub async fn create_user_with_password(
        &self,
        new: NewUser,
        password_hash: String,
    ) -> Result<User, StoreError> {
        let now = ids::now();
        let user = User {
            id: ids::new_id(),
            name: new.name,
            email: new.email,
            email_verified: false,
            image: new.image,
            created_at: now,
            updated_at: now,
        };
        let event = OutboxEvent::new(
            "user.created",
            &UserCreated {
                id: &user.id,
                email: &user.email,
                name: &user.name,
                email_verified: user.email_verified,
                created_at: ids::iso(now.timestamp_millis()),
            },
        );
        // An async block, so `?` ends the transaction rather than the function.
        let result: Result<(), sqlx::Error> = with_db!(&self.db, pool => async {
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO users (id, name, email, email_verified, image, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&user.id)
            .bind(&user.name)
            .bind(&user.email)
            .bind(user.email_verified)
            .bind(&user.image)
            .bind(user.created_at)
            .bind(user.updated_at)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO accounts (id, account_id, provider_id, user_id, password, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(ids::new_id())
            .bind(&user.id)
            .bind(CREDENTIAL_PROVIDER)
            .bind(&user.id)
            .bind(&password_hash)
            .bind(now)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            enqueue!(&mut *tx, event)?;
            tx.commit().await
        }.await);
        match result {
            Ok(()) => {
                self.outbox.notify();
                Ok(user)
            }
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(StoreError::EmailTaken),
            Err(e) => Err(e.into()),
        }
    }

    /// The user with this (normalised) email and their credential account, if any.
    pub async fn find_credential(&self, email: &str) -> Result<Option<Credential>, StoreError> {
        const SQL: &str = concat!(
            "SELECT ",
            user_columns!(),
            ", accounts.id AS account_row_id, accounts.password AS password_hash \
             FROM users LEFT JOIN accounts ON accounts.user_id = users.id AND accounts.provider_id = $1 \
             WHERE users.email = $2"
        );
        Ok(
            with_db!(&self.db, pool => sqlx::query_as::<_, Credential>(SQL)
            .bind(CREDENTIAL_PROVIDER)
            .bind(email)
            .fetch_optional(pool)
            .await)?,
        )
    }

    pub async fn set_password_hash(
        &self,
        account_row_id: &str,
        password_hash: &str,
    ) -> Result<(), StoreError> {
        with_db!(&self.db, pool => sqlx::query("UPDATE accounts SET password = $1, updated_at = $2 WHERE id = $3")
            .bind(password_hash)
            .bind(ids::now())
            .bind(account_row_id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected()))?;
        Ok(())
    }

    pub async fn get_user(&self, id: &str) -> Result<Option<User>, StoreError> {
        const SQL: &str = concat!(
            "SELECT ",
            user_columns!(),
            " FROM users WHERE users.id = $1"
        );
        Ok(with_db!(&self.db, pool => sqlx::query_as::<_, User>(SQL)
            .bind(id)
            .fetch_optional(pool)
            .await)?)
    }
}
