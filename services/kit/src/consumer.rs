//! The consumer side of the bus. A consumer owns a durable queue (declared in
//! `gatehouse_proto::events::QUEUES`) and a handler that runs inside a transaction of the
//! consumer's own database. For each delivery:
//!
//! 1. the event id goes into the consumer's `inbox` table in that transaction: an id seen
//!    before is a duplicate (at-least-once delivery) and is acknowledged without running again;
//! 2. the handler runs; its writes commit together with the inbox row;
//! 3. only then is the delivery acknowledged. A failure is retried after the policy's delays,
//!    then moved to the queue's dead letters, from where [`replay_dead_letters`] puts it back.
//!
//! On the in-process bus the acknowledgement goes to the publisher itself, with the outcome:
//! a failure is refused back to the outbox, whose row is published again after its growing
//! delay and parked after its last attempt, so a retry survives a restart of the process.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::bus::{Bus, BusError, Delivery, MemoryDelivery, Message};
use crate::db::{Db, Tx, query};
use crate::foreground::Yield;
use crate::sealing::SealingKey;
use crate::service::BoxError;
use crate::{ids, telemetry};

pub type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send + 'a>>;

/// What a consumer does with one event, inside the transaction that records it as handled.
pub trait Handler: Send + Sync + 'static {
    fn handle<'a>(&'a self, tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a>;
}

/// When a failed delivery is tried again: after each delay in turn, then dead-lettered.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    pub delays: Vec<Duration>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            delays: [1, 5, 30, 120].map(Duration::from_secs).to_vec(),
        }
    }
}

/// Deliveries the broker hands a consumer ahead of the one it handles.
const PREFETCH: u16 = 16;

pub struct Consumer {
    pub queue: &'static str,
    pub db: Db,
    pub bus: Bus,
    pub handler: Arc<dyn Handler>,
    pub retry: RetryPolicy,
    /// Deliveries handled at once. 1 keeps the queue's order; more suits a handler whose
    /// writes do not depend on the order events come in (each in its own transaction), and
    /// keeps a consumer from waiting on one database round trip at a time.
    pub concurrency: u16,
    /// The requests of its service (`Context::foreground`) this consumer makes room for:
    /// during a burst of them, fewer deliveries are handled at once (the queue waits; the
    /// requests do not).
    pub yields: Option<Yield>,
}

/// How one delivery ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Handled,
    Duplicate,
    Retry(Duration, String),
    Dead(String),
}

impl Consumer {
    /// Consumes until `shutdown`, reconnecting after broker outages.
    pub fn spawn(self, shutdown: CancellationToken) {
        tokio::spawn(async move {
            // `run` watches `shutdown` between deliveries, never in the middle of one.
            reconnecting(self.queue, "consumer", &shutdown, || self.run(&shutdown)).await;
        });
    }

    async fn run(&self, shutdown: &CancellationToken) -> Result<(), BusError> {
        // Read before each delivery is taken: a burst narrows the consumer, its end widens it.
        let limit = || Yield::limit(self.yields.as_ref(), self.concurrency);
        match &self.bus {
            Bus::Memory(memory) => {
                let mut running = FuturesUnordered::new();
                let mut receiver = memory.take_receiver(self.queue)?;
                loop {
                    tokio::select! {
                        received = receiver.recv(), if running.len() < limit() => {
                            let Some(MemoryDelivery { delivery, ack }) = received else { break };
                            running.push(async move {
                                let outcome = self.process(&delivery).await;
                                (delivery, ack, outcome)
                            });
                        }
                        Some((delivery, ack, outcome)) = running.next(), if !running.is_empty() => {
                            match (outcome, ack) {
                                (Outcome::Handled | Outcome::Duplicate, ack) => {
                                    if let Some(ack) = ack {
                                        let _ = ack.send(Ok(()));
                                    }
                                }
                                // The publisher's outbox keeps it and tries again later.
                                (Outcome::Retry(_, error) | Outcome::Dead(error), Some(ack)) => {
                                    let _ = ack.send(Err(error));
                                }
                                // A replayed dead letter has no publisher waiting.
                                (Outcome::Retry(delay, _), None) => {
                                    let mut again: Delivery = delivery;
                                    again.attempt += 1;
                                    memory.retry_later(self.queue, again, delay);
                                }
                                (Outcome::Dead(_), None) => memory.dead_letter(self.queue, delivery),
                            }
                        }
                        _ = shutdown.cancelled() => break,
                    }
                }
                memory.return_receiver(self.queue, receiver);
                Ok(())
            }
            Bus::Amqp(amqp) => {
                let prefetch = self.concurrency.max(PREFETCH);
                let mut subscription = amqp.subscribe(self.queue, prefetch).await?;
                let mut running = FuturesUnordered::new();
                tracing::info!(queue = self.queue, "consuming");
                loop {
                    tokio::select! {
                        next = subscription.next(), if running.len() < limit() => {
                            // Deliveries still being handled are redelivered on the next
                            // connection.
                            let (delivery, acker) = next?;
                            running.push(async move {
                                let outcome = self.process(&delivery).await;
                                (delivery, acker, outcome)
                            });
                        }
                        Some((delivery, acker, outcome)) = running.next(), if !running.is_empty() => {
                            match outcome {
                                Outcome::Handled | Outcome::Duplicate => subscription.ack(&acker).await?,
                                Outcome::Retry(delay, _) => {
                                    subscription.retry(&acker, &delivery, delay).await?
                                }
                                Outcome::Dead(error) => {
                                    subscription.dead_letter(&acker, &delivery, &error).await?
                                }
                            }
                        }
                        _ = shutdown.cancelled() => return Ok(()),
                    }
                }
            }
        }
    }

    async fn process(&self, delivery: &Delivery) -> Outcome {
        let message = match self.opened(&delivery.message) {
            Ok(message) => message,
            Err(error) => {
                tracing::error!(queue = self.queue, event_id = %delivery.message.id, %error, "a sealed event could not be opened; dead-lettered");
                return Outcome::Dead(error);
            }
        };
        let message = message.as_ref();
        if message.id.is_empty() {
            // Without an id it cannot be deduplicated; keep it for someone to look at.
            tracing::error!(queue = self.queue, topic = %message.topic, "event without an id; dead-lettered");
            return Outcome::Dead("the message has no id".into());
        }
        let span = tracing::info_span!("consume", queue = self.queue, topic = %message.topic, event_id = %message.id);
        telemetry::set_parent_from_map(&span, &message.headers);
        match self.handle_once(message).instrument(span).await {
            Ok(true) => {
                metrics::counter!("events_consumed_total", "queue" => self.queue).increment(1);
                Outcome::Handled
            }
            Ok(false) => Outcome::Duplicate,
            Err(error) => {
                metrics::counter!("events_failed_total", "queue" => self.queue).increment(1);
                match self.retry.delays.get(delivery.attempt as usize) {
                    Some(delay) => {
                        tracing::warn!(queue = self.queue, event_id = %message.id, attempt = delivery.attempt + 1, %error, "event handling failed; will retry");
                        Outcome::Retry(*delay, error.to_string())
                    }
                    None => {
                        tracing::error!(queue = self.queue, event_id = %message.id, %error, "event handling failed on every attempt; dead-lettered");
                        metrics::counter!("events_dead_lettered_total", "queue" => self.queue)
                            .increment(1);
                        Outcome::Dead(error.to_string())
                    }
                }
            }
        }
    }

    /// `message` with its payload opened when it was sealed ([`crate::sealing`]).
    fn opened<'a>(&self, message: &'a Message) -> Result<Cow<'a, Message>, String> {
        if !SealingKey::is_sealed(&message.payload) {
            return Ok(Cow::Borrowed(message));
        }
        let key = self
            .db
            .sealing()
            .ok_or("a sealed event, and no key here to open it")?;
        let payload = key
            .open(&message.topic, &message.payload)
            .map_err(|error| error.to_string())?;
        Ok(Cow::Owned(Message {
            payload,
            ..message.clone()
        }))
    }

    /// `Ok(false)` when the event was handled before.
    async fn handle_once(&self, message: &Message) -> Result<bool, BoxError> {
        let mut tx = self.db.begin().await?;
        let fresh = query(
            "INSERT INTO inbox (consumer, event_id, received_at) VALUES ($1, $2, $3) \
             ON CONFLICT (consumer, event_id) DO NOTHING",
        )
        .bind(self.queue)
        .bind(message.id.as_str())
        .bind(ids::now())
        .execute(&mut tx)
        .await?;
        if fresh == 0 {
            return Ok(false);
        }
        self.handler.handle(&mut tx, message).await?;
        tx.commit().await?;
        Ok(true)
    }
}

/// Runs `session` until `shutdown`, again after each disconnection (a broker outage) with a
/// pause growing from 200 ms to 5 s. Consumers and workers alike.
pub(crate) async fn reconnecting<F, Fut>(
    queue: &str,
    kind: &str,
    shutdown: &CancellationToken,
    mut session: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), BusError>>,
{
    let mut backoff = Duration::from_millis(200);
    loop {
        let result = session().await;
        if shutdown.is_cancelled() {
            break;
        }
        if let Err(error) = result {
            tracing::warn!(queue, %error, "{kind} disconnected; reconnecting");
        }
        tokio::select! {
            _ = tokio::time::sleep(backoff) => {}
            _ = shutdown.cancelled() => break,
        }
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
    tracing::debug!(queue, "{kind} stopped");
}

/// Puts every dead letter of `queue` back on it (after the cause was fixed).
pub async fn replay_dead_letters(bus: &Bus, queue: &str) -> Result<usize, BusError> {
    match bus {
        Bus::Memory(memory) => memory.replay_dead(queue),
        Bus::Amqp(amqp) => amqp.replay_dead(queue).await,
    }
}
