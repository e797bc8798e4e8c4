//! Delivery: requests become queued mails (`events.rs`), and one loop per process sends the
//! due ones (`MAIL_CONCURRENCY` at once), recording each outcome:
//!
//! - accepted → `sent`, and `mail.sent` published (through the outbox, in the same
//!   transaction);
//! - a transient failure (SMTP down, 4xx, timeout) → tried again after 1 s, 2 s, 4 s … up to
//!   `MAIL_RETRY_MAX_DELAY`, for as long as `MAIL_GIVE_UP_AFTER` allows: a mail requested while
//!   SMTP is down goes out when it is back;
//! - a permanent failure (5xx), or time running out → `failed` (the dead letters: kept in the
//!   log with their error, counted in `mails_failed_total`, and `mail.failed` published).

pub mod events;
pub mod store;
pub mod transport;

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use futures_util::StreamExt as _;
use gatehouse_kit::db::{Db, DbError, Tx};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{MailFailed, MailSent};
use lettre::message::{Mailbox, MultiPart};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::config::MailerConfig;
use store::Claimed;
use transport::{SendError, Transport};

/// How long a claimed mail is ours before another replica may take it.
const LEASE: TimeDelta = TimeDelta::seconds(120);

pub struct Delivery {
    pub db: Db,
    pub transport: Transport,
    pub config: MailerConfig,
    pub queued: Arc<Notify>,
}

impl Delivery {
    /// Sends due mail until `shutdown`; a mail being sent when it comes is finished first.
    pub fn spawn(self, shutdown: CancellationToken) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(200);
            while !shutdown.is_cancelled() {
                match self.send_due().await {
                    // A full batch: there may be more due right away.
                    Ok(sent) if sent >= self.batch() => continue,
                    Ok(_) => {
                        backoff = Duration::from_millis(200);
                        tokio::select! {
                            _ = self.queued.notified() => {}
                            _ = tokio::time::sleep(self.config.poll_interval) => {}
                            _ = shutdown.cancelled() => break,
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "mail log unreachable; delivery waits");
                        tokio::select! {
                            _ = tokio::time::sleep(backoff) => {}
                            _ = shutdown.cancelled() => break,
                        }
                        backoff = (backoff * 2).min(Duration::from_secs(5));
                    }
                }
            }
            tracing::debug!("mail delivery stopped");
        })
    }

    fn batch(&self) -> usize {
        self.config.concurrency * 4
    }

    /// One round: claim a batch of due mails and attempt each. Returns how many were claimed.
    pub async fn send_due(&self) -> Result<usize, DbError> {
        let batch = i64::try_from(self.batch()).unwrap_or(i64::MAX);
        let mails = store::claim(&self.db, ids::now(), LEASE, batch).await?;
        let claimed = mails.len();
        let outcomes = futures_util::stream::iter(mails)
            .map(|mail| async move {
                let result = self.attempt(&mail).await;
                (mail, result)
            })
            .buffer_unordered(self.config.concurrency)
            .collect::<Vec<_>>()
            .await;
        // One transaction for the whole batch's outcomes: a commit per mail would cost more
        // than sending it.
        let mut tx = self.db.begin().await?;
        for (mail, result) in outcomes {
            self.record(&mut tx, mail, result).await?;
        }
        tx.commit().await?;
        Ok(claimed)
    }

    async fn attempt(&self, mail: &Claimed) -> Result<(), SendError> {
        let to: Mailbox = mail
            .recipient
            .parse()
            .map_err(|e| SendError::Permanent(format!("recipient address: {e}")))?;
        let message = lettre::Message::builder()
            .from(self.config.from.clone())
            .to(to)
            .subject(mail.subject.as_str())
            .message_id(Some(format!("<{}@gatehouse>", mail.id)))
            .multipart(MultiPart::alternative_plain_html(
                mail.text_body.clone(),
                mail.html_body.clone(),
            ))
            .map_err(|e| SendError::Permanent(format!("building the mail: {e}")))?;
        let started = std::time::Instant::now();
        let result = self.transport.send(message).await;
        metrics::histogram!("mail_send_seconds", "transport" => self.transport.describe())
            .record(started.elapsed().as_secs_f64());
        result
    }

    async fn record(
        &self,
        tx: &mut Tx,
        mail: Claimed,
        result: Result<(), SendError>,
    ) -> Result<(), DbError> {
        let attempts = mail.attempts.saturating_add(1);
        let now = ids::now();
        match result {
            Ok(()) => {
                store::mark_sent(tx, &mail.id, attempts, now).await?;
                tx.enqueue(&OutboxEvent::new(&MailSent {
                    mail_id: mail.id.clone(),
                    kind: mail.kind.clone(),
                }))
                .await?;
                metrics::counter!("mails_sent_total", "kind" => mail.kind).increment(1);
            }
            Err(SendError::Permanent(reason)) => self.fail(tx, &mail, attempts, reason).await?,
            Err(SendError::Transient(reason)) => {
                let waited = (now - mail.created_at).to_std().unwrap_or_default();
                if waited >= self.config.give_up_after {
                    let reason = format!("gave up after {attempts} attempts: {reason}");
                    self.fail(tx, &mail, attempts, reason).await?;
                } else {
                    let wait = self
                        .config
                        .retry_delay(u32::try_from(mail.attempts).unwrap_or(0));
                    let next = now + TimeDelta::from_std(wait).unwrap_or(TimeDelta::MAX);
                    store::mark_retry(tx, &mail.id, attempts, &reason, next).await?;
                    metrics::counter!("mail_retries_total").increment(1);
                    tracing::info!(mail_id = %mail.id, attempts, retry_in_s = wait.as_secs(), %reason, "mail not accepted; will retry");
                }
            }
        }
        Ok(())
    }

    /// Dead-letters `mail`: kept in the log as failed, counted, and `mail.failed` published.
    async fn fail(
        &self,
        tx: &mut Tx,
        mail: &Claimed,
        attempts: i32,
        reason: String,
    ) -> Result<(), DbError> {
        store::mark_failed(tx, &mail.id, attempts, &reason).await?;
        tx.enqueue(&OutboxEvent::new(&MailFailed {
            mail_id: mail.id.clone(),
            kind: mail.kind.clone(),
            reason: reason.clone(),
        }))
        .await?;
        metrics::counter!("mails_failed_total", "kind" => mail.kind.clone()).increment(1);
        tracing::warn!(mail_id = %mail.id, kind = %mail.kind, attempts, %reason, "mail failed for good");
        Ok(())
    }
}
