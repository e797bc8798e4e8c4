//! How many invitation mails go out. Every mail queued (a new invitation or a resend) is
//! recorded, and one more is refused with 429 and `X-Retry-After` once its address, or its
//! organization, has had its share in the sliding window (`config::InvitationMailLimits`).
//! The count is the database's, read and written in the transaction that writes the
//! invitation, after the organization's lock and the address's row lock are taken: every
//! replica counts the same mails, and two sends at once are counted one after the other.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Tx, query};
use gatehouse_kit::errors::organization as codes;
use gatehouse_kit::ids;

use crate::config::InvitationMailLimits;
use crate::error::OrganizationError;

/// Records one invitation mail from the organization to `email` at `now`, or refuses it when
/// either limit is reached; a refusal leaves the transaction for the caller to drop. The
/// organization's row must already be locked (`organization::store::lock`).
pub async fn admit(
    tx: &mut Tx,
    limits: &InvitationMailLimits,
    organization_id: &str,
    email: &str,
    now: DateTime<Utc>,
) -> Result<(), OrganizationError> {
    let window = chrono::Duration::from_std(limits.window).unwrap_or(chrono::Duration::MAX);
    let since = now - window;
    lock_recipient(tx, email, now).await?;
    query("DELETE FROM invitation_mails WHERE email = $1 AND sent_at <= $2")
        .bind(email)
        .bind(since)
        .execute(&mut *tx)
        .await?;
    let checks = [
        (
            limits.per_recipient,
            sent_to(tx, email, since).await?,
            codes::TOO_MANY_INVITATIONS_TO_THIS_EMAIL,
        ),
        (
            limits.per_organization,
            sent_by(tx, organization_id, since).await?,
            codes::TOO_MANY_INVITATIONS_FROM_THIS_ORGANIZATION,
        ),
    ];
    for (limit, sent, refusal) in checks {
        if limit == 0 || sent.len() < usize::try_from(limit).unwrap_or(usize::MAX) {
            continue;
        }
        // A slot frees when the oldest mail counted leaves the window.
        let frees_at = sent[0] + window;
        let wait = u64::try_from((frees_at - now).num_milliseconds()).unwrap_or(0);
        let seconds = wait.div_ceil(1000);
        return Err(refusal.with_retry_after(seconds).into());
    }
    query("INSERT INTO invitation_mails (id, organization_id, email, sent_at) VALUES ($1, $2, $3, $4)")
        .bind(ids::new_id())
        .bind(organization_id)
        .bind(email)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Takes the address's row lock until the transaction ends (an upsert locks the row it meets
/// on PostgreSQL; SQLite's transaction holds the write lock already).
async fn lock_recipient(tx: &mut Tx, email: &str, now: DateTime<Utc>) -> Result<(), DbError> {
    query(
        "INSERT INTO invitation_mail_recipients (email, last_mail_at) VALUES ($1, $2) \
         ON CONFLICT (email) DO UPDATE SET last_mail_at = excluded.last_mail_at",
    )
    .bind(email)
    .bind(now)
    .execute(tx)
    .await?;
    Ok(())
}

/// When the mails to `email` since `since` went out, oldest first.
async fn sent_to(
    tx: &mut Tx,
    email: &str,
    since: DateTime<Utc>,
) -> Result<Vec<DateTime<Utc>>, DbError> {
    let rows: Vec<(DateTime<Utc>,)> = query(
        "SELECT sent_at FROM invitation_mails WHERE email = $1 AND sent_at > $2 ORDER BY sent_at",
    )
    .bind(email)
    .bind(since)
    .fetch_all(tx)
    .await?;
    Ok(rows.into_iter().map(|(at,)| at).collect())
}

/// When the organization's mails since `since` went out, oldest first.
async fn sent_by(
    tx: &mut Tx,
    organization_id: &str,
    since: DateTime<Utc>,
) -> Result<Vec<DateTime<Utc>>, DbError> {
    let rows: Vec<(DateTime<Utc>,)> = query(
        "SELECT sent_at FROM invitation_mails WHERE organization_id = $1 AND sent_at > $2 \
         ORDER BY sent_at",
    )
    .bind(organization_id)
    .bind(since)
    .fetch_all(tx)
    .await?;
    Ok(rows.into_iter().map(|(at,)| at).collect())
}
