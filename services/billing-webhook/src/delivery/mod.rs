//! Attempts at sellers' endpoints, one per `billing.delivery-due` on the work queue
//! `billing-webhook.deliveries` (kit's [`Worker`](gatehouse_kit::worker::Worker): many at once,
//! so a slow endpoint holds up only its own attempts). The retry schedule is in the database
//! ([`scheduler`]), not in the queue.
//!
//! An attempt POSTs the stored event's body, byte for byte, with `webhook-id` (the delivery's
//! id, the same on every attempt and replay), `webhook-timestamp` (now) and
//! `webhook-signature` (the endpoint's secrets). Only a 2xx within the attempt timeout
//! succeeds; redirects are not followed (billing-webhooks reference §3, §5). Of the answer's
//! body only the first [`KEPT_BODY_BYTES`] are read, within the same timeout. Each attempt is
//! recorded before the job ends, with when the next is due (the schedule's next delay, ±20 %,
//! at least 60 s after a timeout or a 429); when the schedule is spent the delivery is
//! `failed`. Only a failure to record makes the job fail (and the worker retry it). Manual
//! attempts (replays) are tried once and change the delivery only by succeeding. Both kinds
//! take one of their endpoint's slots ([`slots`]) or are put off until one is free. The
//! delivery row decides: a scheduled message for a delivery that is no longer pending, or a
//! replay's for one that owes no replay, is a duplicate and sends nothing.

pub mod destination;
pub mod grpc;
pub mod log;
pub mod replay;
pub mod scheduler;
pub mod slots;
pub mod store;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_kit::bus::Delivery;
use gatehouse_kit::db::Db;
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::worker::{Job, JobError, JobFuture, Schedule};
use gatehouse_proto::events::v1::{BillingDeliveryDue, MailKind, MailRequested};
use prost::Message as _;

use crate::config::FanOutConfig;
use crate::endpoint::{self, Endpoint, secret};
use destination::{GuardedResolver, Policy, Refused};
use store::status;

/// Response bodies are kept up to this many characters (the payments platform keeps 2,048).
const KEPT_BODY_CHARS: usize = 2048;
/// What is read of an answer's body at most: enough for [`KEPT_BODY_CHARS`] of UTF-8. The
/// rest is never read (the connection is dropped), so an endpoint answering gigabytes costs
/// no more memory than one answering nothing.
const KEPT_BODY_BYTES: usize = KEPT_BODY_CHARS * 4;
/// After a timeout or a 429 the next try waits at least this long (Svix's floor).
const BACK_PRESSURE_FLOOR: Duration = Duration::from_secs(60);
/// Where the disabled endpoint's mail sends its registrant: the organization's page.
const DISABLED_MAIL_LINK: &str = "/organization/";
/// Each retry's delay moves by up to this fraction of itself either way, so an outage's
/// retries do not all come back at one instant (Svix's ±20 %).
const JITTER: f64 = 0.2;

/// How one HTTP attempt ended.
#[derive(Debug)]
pub struct Sent {
    pub status: Option<u16>,
    pub body: Option<String>,
    pub error: Option<String>,
    /// A timeout or a 429: the receiver needs time.
    pub overloaded: bool,
}

impl Sent {
    fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// Sends attempts: the HTTP client (no redirects, no proxy, names resolved through the
/// destination policy) and the rules around it.
pub struct Deliverer {
    pub db: Db,
    client: reqwest::Client,
    policy: Arc<Policy>,
    slots: Arc<slots::Slots>,
    /// The retry schedule: the configured delays, each moved by up to [`JITTER`].
    schedule: Schedule,
    config: FanOutConfig,
}

impl Deliverer {
    pub fn new(db: Db, config: FanOutConfig) -> Result<Self, reqwest::Error> {
        // The one TLS provider of the tree (ring), as every main installs it; a no-op then,
        // and what makes the client buildable where no main ran (tests).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let policy = Arc::new(Policy {
            allowed: config.allowed_networks.clone(),
        });
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(config.attempt_timeout)
            .connect_timeout(config.attempt_timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("Gatehouse-Webhooks/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(GuardedResolver::new(policy.clone())))
            .build()?;
        Ok(Self {
            db,
            client,
            policy,
            slots: Arc::new(slots::Slots::new(usize::from(config.endpoint_concurrency))),
            schedule: Schedule {
                delays: config.retry_schedule.clone(),
                jitter: JITTER,
            },
            config,
        })
    }

    /// Each endpoint's attempts in flight here, which the scheduler claims within.
    pub fn slots(&self) -> Arc<slots::Slots> {
        self.slots.clone()
    }

    /// POSTs `body` to `endpoint`, signed for this moment.
    pub async fn send(&self, endpoint: &Endpoint, webhook_id: &str, body: &[u8]) -> Sent {
        let failed = |error: String| Sent {
            status: None,
            body: None,
            error: Some(error),
            overloaded: false,
        };
        // A literal address never reaches the resolver: judged here, at every attempt.
        let url = match destination::check_url(&endpoint.url, &self.policy) {
            Ok(url) => url,
            Err(refused @ Refused::Internal(_)) => {
                tracing::info!(endpoint_id = %endpoint.id, %refused, "an endpoint's address is refused");
                return failed(destination::UNREACHABLE.into());
            }
            Err(refused) => return failed(refused.to_string()),
        };
        let now = Utc::now();
        let timestamp = now.timestamp();
        let signature = match secret::signature(endpoint, webhook_id, timestamp, body, now) {
            Ok(signature) => signature,
            Err(error) => return failed(format!("cannot sign the body: {error}")),
        };
        let request = self
            .client
            .post(url)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header("webhook-id", webhook_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body.to_vec());
        let deadline = tokio::time::Instant::now() + self.config.attempt_timeout;
        match request.send().await {
            Ok(mut response) => {
                let code = response.status().as_u16();
                // The status decided the attempt; the body is only kept for people to read.
                let mut kept = Vec::new();
                let _ =
                    tokio::time::timeout_at(deadline, read_prefix(&mut response, &mut kept)).await;
                Sent {
                    status: Some(code),
                    body: Some(
                        String::from_utf8_lossy(&kept)
                            .chars()
                            .take(KEPT_BODY_CHARS)
                            .collect(),
                    ),
                    error: None,
                    overloaded: code == 429,
                }
            }
            Err(error) if unreachable(&error) => failed(destination::UNREACHABLE.into()),
            Err(error) => Sent {
                overloaded: error.is_timeout(),
                ..failed(describe(&error))
            },
        }
    }

    /// One attempt at the delivery `due` names.
    async fn attempt(&self, due: &BillingDeliveryDue) -> Result<(), JobError> {
        let Some(delivery) = store::due(&self.db, &due.delivery_id).await? else {
            // Removed with its endpoint.
            return Ok(());
        };
        // A scheduled message for a delivery settled or attempted since is a duplicate; so
        // is a replay's for one that owes none now.
        let owed = if due.manual {
            delivery.replay_at.is_some()
        } else {
            delivery.status == status::PENDING && delivery.attempts == due.attempt
        };
        if !owed {
            return Ok(());
        }
        let Some(endpoint) = endpoint::store::by_id(&self.db, &delivery.endpoint_id).await? else {
            return Ok(());
        };
        if !endpoint.enabled {
            // Disabled since: nothing is sent; a replay leaves the delivery as it is.
            if due.manual {
                store::drop_replay(&self.db, &delivery.id).await?;
            } else {
                store::set_status(&self.db, &delivery.id, status::SKIPPED).await?;
            }
            return Ok(());
        }
        let Some(slot) = self.slots.acquire(&endpoint.id) else {
            // Its endpoint is busy with as many attempts as it may have: due again at once,
            // not counted as an attempt; the scheduler claims it as soon as one of those ends.
            if due.manual {
                store::put_off_replay(&self.db, &delivery.id, ids::now()).await?;
            } else {
                store::put_off(&self.db, &delivery.id, due.attempt, ids::now()).await?;
            }
            metrics::counter!("billing_delivery_attempts_put_off_total").increment(1);
            return Ok(());
        };
        let started_at = ids::now();
        let clock = Instant::now();
        let sent = self.send(&endpoint, &delivery.id, &delivery.body).await;
        drop(slot);
        let duration_ms = i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX);
        let succeeded = sent.succeeded();
        metrics::counter!("billing_delivery_attempts_total", "outcome" => if succeeded { "succeeded" } else { "failed" }).increment(1);
        metrics::histogram!("billing_delivery_attempt_seconds").record(clock.elapsed());

        let next_delay = if succeeded {
            None
        } else {
            self.schedule.delay(
                u32::try_from(delivery.attempts).unwrap_or(u32::MAX),
                sent.overloaded.then_some(BACK_PRESSURE_FLOOR),
            )
        };
        let (new_status, next_attempt_at) = match (succeeded, next_delay) {
            (true, _) => (status::DELIVERED, None),
            (false, Some(delay)) => (
                status::PENDING,
                TimeDelta::from_std(delay).ok().map(|d| started_at + d),
            ),
            (false, None) => (status::FAILED, None),
        };
        let mut tx = self.db.begin().await?;
        store::record_attempt(
            &mut tx,
            &store::Attempt {
                id: ids::new_id(),
                delivery_id: delivery.id.clone(),
                endpoint_id: endpoint.id.clone(),
                trigger: if due.manual { "manual" } else { "scheduled" }.into(),
                started_at,
                duration_ms,
                response_status: sent.status.map(i32::from),
                response_body: sent.body.clone(),
                error: sent.error.clone(),
                succeeded,
            },
        )
        .await?;
        if due.manual {
            store::settle_manual(&mut tx, &delivery.id, succeeded, started_at).await?;
        } else {
            store::settle(
                &mut tx,
                &delivery.id,
                new_status,
                started_at,
                next_attempt_at,
            )
            .await?;
        }
        self.track_health(&mut tx, &endpoint, succeeded, started_at)
            .await?;
        tx.commit().await?;

        if !succeeded {
            tracing::debug!(delivery_id = %delivery.id, status = new_status, error = ?sent.error, answered = ?sent.status, "attempt failed");
        }
        Ok(())
    }

    /// An endpoint's failing streak: it starts at the first failure after a success, ends at
    /// the next success, and an endpoint failing again `disable_after` into it is disabled.
    /// Targeted updates only: the endpoint read before the attempt may be stale by now.
    async fn track_health(
        &self,
        tx: &mut gatehouse_kit::db::Tx,
        endpoint: &Endpoint,
        succeeded: bool,
        at: DateTime<Utc>,
    ) -> Result<(), gatehouse_kit::db::DbError> {
        if succeeded {
            return endpoint::store::mark_healthy(&mut *tx, &endpoint.id).await;
        }
        let limit = TimeDelta::from_std(self.config.disable_after).unwrap_or(TimeDelta::MAX);
        let reason = format!(
            "Every delivery failed for {} hours without a success",
            limit.num_hours()
        );
        let cutoff = at
            .checked_sub_signed(limit)
            .unwrap_or(DateTime::<Utc>::MIN_UTC);
        if endpoint::store::disable_if_failing_since(&mut *tx, &endpoint.id, cutoff, &reason, at)
            .await?
        {
            tracing::warn!(endpoint_id = %endpoint.id, organization_id = %endpoint.organization_id, "endpoint failing for too long; disabled");
            metrics::counter!("billing_endpoints_disabled_total").increment(1);
            // Whoever registered it hears of it, in the transaction that disabled it.
            let registrant = &endpoint.created_by;
            tx.enqueue(&OutboxEvent::new(&MailRequested {
                kind: MailKind::EndpointDisabled.into(),
                to: registrant.email.clone(),
                name: if registrant.name.is_empty() {
                    registrant.email.clone()
                } else {
                    registrant.name.clone()
                },
                language: registrant.language,
                link_path: DISABLED_MAIL_LINK.into(),
                expires_in_seconds: 0,
                params: [("url".to_string(), endpoint.url.clone())].into(),
                user_id: String::new(),
            }))
            .await?;
        }
        endpoint::store::mark_failing(&mut *tx, &endpoint.id, at).await
    }
}

/// Reads the first [`KEPT_BODY_BYTES`] of `response`'s body into `kept`, and no more; what
/// came before a read failed (or the caller's deadline cut it short) stays in `kept`.
async fn read_prefix(response: &mut reqwest::Response, kept: &mut Vec<u8>) {
    while kept.len() < KEPT_BODY_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = KEPT_BODY_BYTES - kept.len();
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) | Err(_) => break,
        }
    }
}

/// Whether the destination resolver refused the attempt ([`destination::Unreachable`]): its
/// cause is logged there, and the attempt records no more than that it was refused.
fn unreachable(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.is::<destination::Unreachable>() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// A transport error in words: reqwest's own message stops at the outermost cause.
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "timed out".to_string()
    } else if error.is_connect() {
        "could not connect".to_string()
    } else {
        error.to_string()
    };
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl Job for Deliverer {
    fn run<'a>(&'a self, delivery: &'a Delivery) -> JobFuture<'a> {
        Box::pin(async move {
            let due = BillingDeliveryDue::decode(delivery.message.payload.as_slice())
                .map_err(JobError::new)?;
            self.attempt(&due).await
        })
    }
}
