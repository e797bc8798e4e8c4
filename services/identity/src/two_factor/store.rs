//! The two-factor tables: `two_factors` (a user's sealed secret and backup codes),
//! `two_factor_challenges` (sign-ins waiting for a code), `two_factor_codes` (codes by mail)
//! and `trusted_devices`. Identifiers handed out (challenges, devices) are kept as SHA-256.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, Executor, Tx, query};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;

use crate::user::User;

/// A user's authenticator secret and backup codes, both as stored (sealed).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Secrets {
    pub secret: String,
    pub backup_codes: String,
    pub verified: bool,
    pub last_totp_step: i64,
}

/// A user and their sealed secrets (none before a set-up), read together: a code's check
/// costs one query.
pub struct UserWithSecrets {
    pub user: User,
    pub secrets: Option<Secrets>,
}

impl<'r, R> sqlx::FromRow<'r, R> for UserWithSecrets
where
    R: sqlx::Row,
    usize: sqlx::ColumnIndex<R>,
    User: sqlx::FromRow<'r, R>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<bool>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        let user = User::from_row(row)?;
        let at = crate::user::COLUMNS.len();
        let secret: Option<String> = row.try_get(at)?;
        let secrets = match secret {
            Some(secret) => Some(Secrets {
                secret,
                backup_codes: row
                    .try_get::<Option<String>, _>(at + 1)?
                    .unwrap_or_default(),
                verified: row.try_get::<Option<bool>, _>(at + 2)?.unwrap_or(false),
                last_totp_step: row.try_get::<Option<i64>, _>(at + 3)?.unwrap_or(0),
            }),
            None => None,
        };
        Ok(Self { user, secrets })
    }
}

pub async fn user_with_secrets(db: &Db, user_id: &str) -> Result<Option<UserWithSecrets>, DbError> {
    const SQL: &str = concat!(
        "SELECT ",
        crate::user_columns!(),
        ", two_factors.secret, two_factors.backup_codes, two_factors.verified, \
         two_factors.last_totp_step \
         FROM users LEFT JOIN two_factors ON two_factors.user_id = users.id WHERE users.id = $1"
    );
    query(SQL).bind(user_id).fetch_optional(db).await
}

pub async fn secrets(db: &Db, user_id: &str) -> Result<Option<Secrets>, DbError> {
    query(
        "SELECT secret, backup_codes, verified, last_totp_step FROM two_factors WHERE user_id = $1",
    )
    .bind(user_id)
    .fetch_optional(db)
    .await
}

/// A new secret being set up (not verified), replacing one that never was; false when the
/// user's secret is (or has just become) a verified one, which is never replaced.
pub async fn put_unverified(
    db: &Db,
    user_id: &str,
    secret: &str,
    backup_codes: &str,
) -> Result<bool, DbError> {
    let now = ids::now();
    let written = query(
        "INSERT INTO two_factors (user_id, secret, backup_codes, verified, last_totp_step, created_at, updated_at) \
         VALUES ($1, $2, $3, FALSE, 0, $4, $4) \
         ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, \
         backup_codes = excluded.backup_codes, verified = FALSE, last_totp_step = 0, \
         updated_at = excluded.updated_at WHERE two_factors.verified = FALSE",
    )
    .bind(user_id)
    .bind(secret)
    .bind(backup_codes)
    .bind(now)
    .execute(db)
    .await?;
    Ok(written == 1)
}

/// Records `step` as the newest accepted code's of the secret `sealed` (the one the code was
/// checked against); false when it (or a later one) was accepted already — the code is a
/// replay — or the secret was replaced meanwhile.
pub async fn accept_totp_step(
    db: &Db,
    user_id: &str,
    sealed: &str,
    step: i64,
) -> Result<bool, DbError> {
    let changed = query(
        "UPDATE two_factors SET last_totp_step = $1 \
         WHERE user_id = $2 AND secret = $3 AND last_totp_step < $1",
    )
    .bind(step)
    .bind(user_id)
    .bind(sealed)
    .execute(db)
    .await?;
    Ok(changed == 1)
}

/// Replaces the backup codes when they are still `previous` (a code used twice at once is
/// accepted once).
pub async fn swap_backup_codes(
    db: &Db,
    user_id: &str,
    previous: &str,
    next: &str,
) -> Result<bool, DbError> {
    let changed = query(
        "UPDATE two_factors SET backup_codes = $1, updated_at = $2 \
         WHERE user_id = $3 AND backup_codes = $4",
    )
    .bind(next)
    .bind(ids::now())
    .bind(user_id)
    .bind(previous)
    .execute(db)
    .await?;
    Ok(changed == 1)
}

pub async fn set_backup_codes(db: &Db, user_id: &str, codes: &str) -> Result<bool, DbError> {
    let changed =
        query("UPDATE two_factors SET backup_codes = $1, updated_at = $2 WHERE user_id = $3")
            .bind(codes)
            .bind(ids::now())
            .bind(user_id)
            .execute(db)
            .await?;
    Ok(changed == 1)
}

/// What turning the second factor on or off changes besides the user's flag.
pub enum Switch {
    /// On; with `verify_secret` (the sealed secret a first code was proved against), that
    /// secret becomes the verified one.
    On { verify_secret: Option<String> },
    /// Off: the secret, backup codes and trusted devices go.
    Off,
}

/// Sets `users.two_factor_enabled`, with `user.updated` and `events` in the same transaction;
/// `None` when there is no such user.
pub async fn switch(
    db: &Db,
    user_id: &str,
    switch: Switch,
    events: impl FnOnce(&User) -> Vec<OutboxEvent>,
) -> Result<Option<User>, DbError> {
    let mut tx = db.begin().await?;
    let Some(at) = crate::user::store::next_updated_at(&mut tx, user_id).await? else {
        return Ok(None);
    };
    let on = matches!(switch, Switch::On { .. });
    query("UPDATE users SET two_factor_enabled = $1, updated_at = $2 WHERE id = $3")
        .bind(on)
        .bind(at)
        .bind(user_id)
        .execute(&mut tx)
        .await?;
    match switch {
        Switch::On {
            verify_secret: None,
        } => {}
        Switch::On {
            verify_secret: Some(sealed),
        } => verify_secret(&mut tx, user_id, &sealed, at).await?,
        Switch::Off => {
            query("DELETE FROM two_factors WHERE user_id = $1")
                .bind(user_id)
                .execute(&mut tx)
                .await?;
            forget_devices(&mut tx, user_id).await?;
        }
    }
    let user = crate::user::store::announce(&mut tx, user_id).await?;
    for event in events(&user) {
        tx.enqueue(&event).await?;
    }
    tx.commit().await?;
    Ok(Some(user))
}

/// Marks the secret `sealed` (the one a first code was proved against) verified: in the
/// transaction that turns the second factor on, or alone when it is on already (by mail codes).
pub async fn verify_secret(
    on: impl Executor,
    user_id: &str,
    sealed: &str,
    at: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "UPDATE two_factors SET verified = TRUE, updated_at = $1 WHERE user_id = $2 AND secret = $3",
    )
    .bind(at)
    .bind(user_id)
    .bind(sealed)
    .execute(on)
    .await?;
    Ok(())
}

/// A pending sign-in.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Challenge {
    pub user_id: String,
    pub remember: bool,
    pub attempts: i32,
}

pub async fn create_challenge(
    db: &Db,
    id: &str,
    user_id: &str,
    remember: bool,
    expires_at: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "INSERT INTO two_factor_challenges (id_hash, user_id, remember, attempts, expires_at) \
         VALUES ($1, $2, $3, 0, $4)",
    )
    .bind(ids::sha256_hex(id))
    .bind(user_id)
    .bind(remember)
    .bind(expires_at)
    .execute(db)
    .await?;
    Ok(())
}

/// The challenge while it has not expired.
pub async fn challenge(db: &Db, id: &str) -> Result<Option<Challenge>, DbError> {
    query(
        "SELECT user_id, remember, attempts FROM two_factor_challenges \
         WHERE id_hash = $1 AND expires_at > $2",
    )
    .bind(ids::sha256_hex(id))
    .bind(ids::now())
    .fetch_optional(db)
    .await
}

/// Takes one of the challenge's attempts before a code is checked (so concurrent guesses
/// cannot all slip under the limit); false when none is left or the challenge expired.
pub async fn take_challenge_attempt(db: &Db, id: &str, allowed: i32) -> Result<bool, DbError> {
    let taken = query(
        "UPDATE two_factor_challenges SET attempts = attempts + 1 \
         WHERE id_hash = $1 AND attempts < $2 AND expires_at > $3",
    )
    .bind(ids::sha256_hex(id))
    .bind(allowed)
    .bind(ids::now())
    .execute(db)
    .await?;
    Ok(taken == 1)
}

/// Uses the challenge up; false when another request did first (or it expired meanwhile).
pub async fn consume_challenge(db: &Db, id: &str, user_id: &str) -> Result<bool, DbError> {
    let removed = query(
        "DELETE FROM two_factor_challenges WHERE id_hash = $1 AND user_id = $2 AND expires_at > $3",
    )
    .bind(ids::sha256_hex(id))
    .bind(user_id)
    .bind(ids::now())
    .execute(db)
    .await?;
    Ok(removed == 1)
}

pub async fn drop_challenge(db: &Db, id: &str) -> Result<(), DbError> {
    query("DELETE FROM two_factor_challenges WHERE id_hash = $1")
        .bind(ids::sha256_hex(id))
        .execute(db)
        .await?;
    Ok(())
}

/// A mailed code (sealed) and the wrong guesses made against it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MailedCode {
    pub code: String,
    pub attempts: i32,
}

/// Stores a new code for `target` (replacing an earlier one) and queues its mail, atomically.
pub async fn put_code(
    db: &Db,
    target: &str,
    user_id: &str,
    sealed: &str,
    expires_at: DateTime<Utc>,
    mail: &OutboxEvent,
) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    query(
        "INSERT INTO two_factor_codes (target, user_id, code, attempts, expires_at) \
         VALUES ($1, $2, $3, 0, $4) \
         ON CONFLICT (target) DO UPDATE SET user_id = excluded.user_id, code = excluded.code, \
         attempts = 0, expires_at = excluded.expires_at",
    )
    .bind(target)
    .bind(user_id)
    .bind(sealed)
    .bind(expires_at)
    .execute(&mut tx)
    .await?;
    tx.enqueue(mail).await?;
    tx.commit().await
}

/// The code mailed for `target` while it works.
pub async fn code(db: &Db, target: &str, user_id: &str) -> Result<Option<MailedCode>, DbError> {
    query(
        "SELECT code, attempts FROM two_factor_codes \
         WHERE target = $1 AND user_id = $2 AND expires_at > $3",
    )
    .bind(target)
    .bind(user_id)
    .bind(ids::now())
    .fetch_optional(db)
    .await
}

/// Takes one of the mailed code's attempts before it is compared; false when none is left.
pub async fn take_code_attempt(db: &Db, target: &str, allowed: i32) -> Result<bool, DbError> {
    let taken = query(
        "UPDATE two_factor_codes SET attempts = attempts + 1 WHERE target = $1 AND attempts < $2",
    )
    .bind(target)
    .bind(allowed)
    .execute(db)
    .await?;
    Ok(taken == 1)
}

/// Uses the code up; false when another request did first.
pub async fn consume_code(db: &Db, target: &str, sealed: &str) -> Result<bool, DbError> {
    let removed = query("DELETE FROM two_factor_codes WHERE target = $1 AND code = $2")
        .bind(target)
        .bind(sealed)
        .execute(db)
        .await?;
    Ok(removed == 1)
}

pub async fn trust_device(
    db: &Db,
    identifier: &str,
    user_id: &str,
    expires_at: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "INSERT INTO trusted_devices (id_hash, user_id, expires_at, created_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(ids::sha256_hex(identifier))
    .bind(user_id)
    .bind(expires_at)
    .bind(ids::now())
    .execute(db)
    .await?;
    Ok(())
}

/// Uses up the user's trusted device `identifier` (each sign-in renews it under a new one);
/// false when it is unknown, another user's, or expired.
pub async fn take_trusted_device(
    db: &Db,
    identifier: &str,
    user_id: &str,
) -> Result<bool, DbError> {
    let removed = query(
        "DELETE FROM trusted_devices WHERE id_hash = $1 AND user_id = $2 AND expires_at > $3",
    )
    .bind(ids::sha256_hex(identifier))
    .bind(user_id)
    .bind(ids::now())
    .execute(db)
    .await?;
    Ok(removed == 1)
}

/// Forgets every trusted device of the user, and their pending challenges and mailed codes
/// (in the transaction of a password change, a reset, a disable): whatever was started or
/// trusted under the old credentials ends with them.
pub async fn forget_devices(tx: &mut Tx, user_id: &str) -> Result<(), DbError> {
    for sql in [
        "DELETE FROM trusted_devices WHERE user_id = $1",
        "DELETE FROM two_factor_challenges WHERE user_id = $1",
        "DELETE FROM two_factor_codes WHERE user_id = $1",
    ] {
        query(sql).bind(user_id).execute(&mut *tx).await?;
    }
    Ok(())
}

/// Forgets the user's trusted devices but the one `kept` (a sign-out of the other sessions).
pub async fn forget_other_devices(db: &Db, user_id: &str, kept: &str) -> Result<u64, DbError> {
    query("DELETE FROM trusted_devices WHERE user_id = $1 AND id_hash <> $2")
        .bind(user_id)
        .bind(ids::sha256_hex(kept))
        .execute(db)
        .await
}

/// Removes what expired before `now`: challenges, mailed codes and trusted devices.
pub async fn delete_expired(db: &Db, now: DateTime<Utc>) -> Result<u64, DbError> {
    let mut removed = 0;
    for sql in [
        "DELETE FROM two_factor_challenges WHERE expires_at <= $1",
        "DELETE FROM two_factor_codes WHERE expires_at <= $1",
        "DELETE FROM trusted_devices WHERE expires_at <= $1",
    ] {
        removed += query(sql).bind(now).execute(db).await?;
    }
    Ok(removed)
}
