//! The delivery side of the `mails` table: new mails in, due mails claimed, outcomes recorded.

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_kit::db::sea_query::{self, Alias, Expr, ExprTrait as _};
use gatehouse_kit::db::{Backend, Db, DbError, Tx, query};
use gatehouse_kit::sealing::SealError;

/// A mail written and waiting to be sent.
pub struct NewMail<'a> {
    pub id: &'a str,
    pub recipient: &'a str,
    pub kind: &'a str,
    pub language: i32,
    pub subject: &'a str,
    pub text_body: &'a str,
    pub html_body: &'a str,
    pub now: DateTime<Utc>,
}

/// What the bodies are sealed under: they hold the mail's link, a working token.
pub const TEXT_BODY: &str = "mails.text_body";
pub const HTML_BODY: &str = "mails.html_body";

/// A stored body as written, opened when it was sealed.
pub fn opened(db: &Db, context: &str, body: String) -> Result<String, SealError> {
    match db.sealing() {
        Some(key) => key.open_text(context, &body),
        None => Ok(body),
    }
}

/// Queues `mail` (a redelivered request finds its row already there and changes nothing). Its
/// bodies are sealed (`kit::sealing`): the log keeps no working link in the clear.
pub async fn insert(tx: &mut Tx, mail: &NewMail<'_>) -> Result<(), DbError> {
    let (text_body, html_body) = match tx.sealing() {
        Some(key) => (
            key.seal_text(TEXT_BODY, mail.text_body),
            key.seal_text(HTML_BODY, mail.html_body),
        ),
        None => (mail.text_body.to_string(), mail.html_body.to_string()),
    };
    query(
        "INSERT INTO mails (id, recipient, kind, language, subject, text_body, html_body, \
         status, attempts, created_at, next_attempt_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', 0, $8, $8) ON CONFLICT (id) DO NOTHING",
    )
    .bind(mail.id)
    .bind(mail.recipient)
    .bind(mail.kind)
    .bind(mail.language)
    .bind(mail.subject)
    .bind(text_body)
    .bind(html_body)
    .bind(mail.now)
    .execute(tx)
    .await?;
    Ok(())
}

/// A due mail, claimed for one attempt.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Claimed {
    pub id: String,
    pub recipient: String,
    pub kind: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
}

/// Claims up to `batch` due mails for `lease`, oldest first. On PostgreSQL several mailer
/// replicas skip each other's rows; SQLite has one writer.
pub async fn claim(
    db: &Db,
    now: DateTime<Utc>,
    lease: TimeDelta,
    batch: i64,
) -> Result<Vec<Claimed>, DbError> {
    let sql = match db.backend() {
        Backend::Postgres => {
            "UPDATE mails SET claimed_until = $1 WHERE id IN (SELECT id FROM mails \
             WHERE status = 'queued' AND next_attempt_at <= $2 \
             AND (claimed_until IS NULL OR claimed_until < $2) \
             ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) \
             RETURNING id, recipient, kind, subject, text_body, html_body, attempts, created_at"
        }
        Backend::Sqlite => {
            "UPDATE mails SET claimed_until = $1 WHERE id IN (SELECT id FROM mails \
             WHERE status = 'queued' AND next_attempt_at <= $2 \
             AND (claimed_until IS NULL OR claimed_until < $2) \
             ORDER BY next_attempt_at, id LIMIT $3) \
             RETURNING id, recipient, kind, subject, text_body, html_body, attempts, created_at"
        }
    };
    let mut rows: Vec<Claimed> = query(sql)
        .bind(now + lease)
        .bind(now)
        .bind(batch)
        .fetch_all(db)
        .await?;
    rows.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    Ok(rows)
}

/// Extends the claims on `ids` (mails this mailer is sending) to `until`. A claim is short and
/// renewed while its mail is in flight, so a mailer that dies leaves its mails to the others
/// (or to itself, restarted) within one lease, not after the longest send could take.
pub async fn renew_claims(db: &Db, ids: &[&str], until: DateTime<Utc>) -> Result<(), DbError> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut statement = sea_query::Query::update();
    statement
        .table(Alias::new("mails"))
        .value(Alias::new("claimed_until"), until)
        .and_where(Expr::col(Alias::new("status")).eq("queued"))
        // A claim released since (the outcome recorded: a retry later) stays released.
        .and_where(Expr::col(Alias::new("claimed_until")).is_not_null())
        .and_where(Expr::col(Alias::new("id")).is_in(ids.iter().copied()));
    db.build(&statement).execute(db).await?;
    Ok(())
}

pub async fn mark_sent(
    tx: &mut Tx,
    id: &str,
    attempts: i32,
    now: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "UPDATE mails SET status = 'sent', attempts = $1, sent_at = $2, claimed_until = NULL, \
         last_error = NULL WHERE id = $3",
    )
    .bind(attempts)
    .bind(now)
    .bind(id)
    .execute(tx)
    .await?;
    Ok(())
}

pub async fn mark_failed(tx: &mut Tx, id: &str, attempts: i32, error: &str) -> Result<(), DbError> {
    query(
        "UPDATE mails SET status = 'failed', attempts = $1, last_error = $2, claimed_until = NULL \
         WHERE id = $3",
    )
    .bind(attempts)
    .bind(error)
    .bind(id)
    .execute(tx)
    .await?;
    Ok(())
}

pub async fn mark_retry(
    tx: &mut Tx,
    id: &str,
    attempts: i32,
    error: &str,
    next_attempt_at: DateTime<Utc>,
) -> Result<(), DbError> {
    query(
        "UPDATE mails SET attempts = $1, last_error = $2, next_attempt_at = $3, \
         claimed_until = NULL WHERE id = $4",
    )
    .bind(attempts)
    .bind(error)
    .bind(next_attempt_at)
    .bind(id)
    .execute(tx)
    .await?;
    Ok(())
}
