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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use gatehouse_kit::db::{Db, DbError, Tx};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{MailFailed, MailSent};
use lettre::message::{Mailbox, MultiPart};
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::config::MailerConfig;
use store::Claimed;
use transport::{SendError, Transport};

pub struct Delivery {
    pub db: Db,
    pub transport: Transport,
    pub config: MailerConfig,
    pub queued: Arc<Notify>,
}

/// The longest wait after the mail log failed to answer.
const LONGEST_BACKOFF: Duration = Duration::from_secs(5);

impl Delivery {
    /// Sends due mail until `shutdown`; the mails being sent when it comes are finished first.
    pub fn spawn(self, shutdown: CancellationToken) -> tokio::task::JoinHandle<()> {
        let delivery = Arc::new(self);
        tokio::spawn(async move {
            delivery.run(&shutdown).await;
            tracing::debug!("mail delivery stopped");
        })
    }

    /// Keeps `MAIL_CONCURRENCY` mails in flight while any are due. A mail is claimed only when
    /// a slot is free to send it, its claim is renewed while it is in flight, and its outcome
    /// is recorded as soon as the server answered: a mailer that dies re-sends at most the
    /// mails it was handing over at that instant, and the mails it had claimed are free
    /// again within one lease.
    async fn run(self: &Arc<Self>, shutdown: &CancellationToken) {
        let concurrency = self.config.concurrency;
        // Each send is a task of its own, so that its transaction never waits on this loop
        // (SQLite has one writer); dropped with the loop, the set aborts them.
        let mut sending = JoinSet::new();
        // The mail each send task is sending, whose claim is renewed until the task ends.
        let mut in_flight: HashMap<tokio::task::Id, String> = HashMap::new();
        let mut renew = tokio::time::interval(self.config.claim_lease / 4);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // When to look for due mail next: at once while there may be more, after the poll
        // interval when the last look found less than it asked for, later after a failure.
        let mut look_at = Instant::now();
        let mut backoff = Duration::from_millis(200);
        loop {
            let free = concurrency.saturating_sub(sending.len());
            if !shutdown.is_cancelled() && free > 0 && look_at <= Instant::now() {
                match self.claim(free).await {
                    Ok(mails) => {
                        backoff = Duration::from_millis(200);
                        look_at = if mails.len() < free {
                            Instant::now() + self.config.poll_interval
                        } else {
                            Instant::now()
                        };
                        for mail in mails {
                            let id = mail.id.clone();
                            let delivery = self.clone();
                            let task = sending.spawn(async move { delivery.send(mail).await });
                            in_flight.insert(task.id(), id);
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "mail log unreachable; delivery waits");
                        look_at = Instant::now() + backoff;
                        backoff = (backoff * 2).min(LONGEST_BACKOFF);
                    }
                }
            }
            if shutdown.is_cancelled() && sending.is_empty() {
                return;
            }
            let may_look = !shutdown.is_cancelled() && sending.len() < concurrency;
            tokio::select! {
                Some(done) = sending.join_next_with_id(), if !sending.is_empty() => {
                    let task = match done {
                        Ok((task, ())) => task,
                        // A send that panicked: its claim runs out and it is tried again.
                        Err(error) => {
                            tracing::error!(%error, "a mail's send task failed");
                            error.id()
                        }
                    };
                    in_flight.remove(&task);
                }
                () = self.queued.notified(), if may_look => look_at = Instant::now(),
                () = tokio::time::sleep_until(look_at), if may_look => {}
                _ = renew.tick(), if !in_flight.is_empty() => self.renew(&in_flight).await,
                () = shutdown.cancelled(), if !shutdown.is_cancelled() => {}
            }
        }
    }

    /// Claims up to `slots` due mails for one lease.
    async fn claim(&self, slots: usize) -> Result<Vec<Claimed>, DbError> {
        let lease = TimeDelta::from_std(self.config.claim_lease).unwrap_or(TimeDelta::MAX);
        let slots = i64::try_from(slots).unwrap_or(i64::MAX);
        store::claim(&self.db, ids::now(), lease, slots).await
    }

    /// Extends the claims of the mails in flight by one lease.
    async fn renew(&self, in_flight: &HashMap<tokio::task::Id, String>) {
        let lease = TimeDelta::from_std(self.config.claim_lease).unwrap_or(TimeDelta::MAX);
        let ids: Vec<&str> = in_flight.values().map(String::as_str).collect();
        if let Err(error) = store::renew_claims(&self.db, &ids, ids::now() + lease).await {
            tracing::warn!(%error, "renewing the claims of the mails in flight failed");
        }
    }

    /// Sends one claimed mail and records what happened, in a transaction of its own.
    /// A database that is away for a moment (a restart) is waited for, within the claim's
    /// lease, so that a mail the server accepted is not sent again for want of its record.
    async fn send(&self, mail: Claimed) {
        let result = self.attempt(&mail).await;
        let mut wait = Duration::from_millis(250);
        let give_up = Instant::now() + self.config.claim_lease.mul_f64(0.75);
        loop {
            let recorded = async {
                let mut tx = self.db.begin().await?;
                self.record(&mut tx, mail.clone(), result.clone()).await?;
                tx.commit().await
            };
            match recorded.await {
                Ok(()) => return,
                Err(error) if error.is_unavailable() && Instant::now() + wait < give_up => {
                    tracing::debug!(mail_id = %mail.id, %error, "the mail log is away; recording again");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(LONGEST_BACKOFF);
                }
                Err(error) => {
                    // Its claim runs out and the mail is tried again: sent twice if it was
                    // accepted.
                    tracing::warn!(mail_id = %mail.id, %error, "recording a mail's outcome failed; it will be tried again");
                    return;
                }
            }
        }
    }

    async fn attempt(&self, mail: &Claimed) -> Result<(), SendError> {
        let unopenable =
            |error: gatehouse_kit::sealing::SealError| SendError::Permanent(error.to_string());
        let text = store::opened(&self.db, store::TEXT_BODY, mail.text_body.clone())
            .map_err(unopenable)?;
        let html = store::opened(&self.db, store::HTML_BODY, mail.html_body.clone())
            .map_err(unopenable)?;
        let to: Mailbox = mail
            .recipient
            .parse()
            .map_err(|e| SendError::Permanent(format!("recipient address: {e}")))?;
        let message = lettre::Message::builder()
            .from(self.config.from.clone())
            .to(to)
            .subject(mail.subject.as_str())
            .message_id(Some(format!("<{}@gatehouse>", mail.id)))
            .multipart(MultiPart::alternative_plain_html(text, html))
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
