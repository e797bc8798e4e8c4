//! Work queues: jobs that run outside any transaction and may take long (an HTTP call to
//! someone else's server), several at once, so one slow job never holds up the others.
//!
//! A [`Worker`] consumes a queue of the catalogue like a [`Consumer`](crate::consumer::Consumer)
//! and shares its retry and dead-letter mechanics (`q.retry.<n>`, `q.dead`), with two
//! differences:
//! - no inbox and no transaction around the job: a job makes itself idempotent (it records
//!   what it did in its own rows), because at-least-once delivery may hand it the same work
//!   twice, and a job that fails must still be able to record its failure;
//! - up to `concurrency` jobs run at once (on RabbitMQ, the channel's prefetch), and each ends
//!   on its own: acknowledged, parked for its next retry, or dead-lettered.
//!
//! On the in-process bus the publisher's acknowledgement is given when a job is taken, not
//! when it ends: a job may outlast the relay's broker timeout, and what it owes is recorded
//! by the job's own rows.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::bus::{Bus, BusError, Delivery, MemoryBus, MemoryDelivery};
use crate::consumer::reconnecting;
use crate::service::BoxError;
use crate::telemetry;

/// Why a job failed, and the earliest its retry may come (a receiver that asked for time).
#[derive(Debug)]
pub struct JobError {
    pub error: BoxError,
    pub not_before: Option<Duration>,
}

impl JobError {
    pub fn new(error: impl Into<BoxError>) -> Self {
        Self {
            error: error.into(),
            not_before: None,
        }
    }
}

impl<E: Into<BoxError>> From<E> for JobError {
    fn from(error: E) -> Self {
        Self::new(error)
    }
}

pub type JobFuture<'a> = Pin<Box<dyn Future<Output = Result<(), JobError>> + Send + 'a>>;

/// One unit of work, run for each delivery of the worker's queue.
pub trait Job: Send + Sync + 'static {
    fn run<'a>(&'a self, delivery: &'a Delivery) -> JobFuture<'a>;
}

/// When a failed job runs again: after each delay in turn, each moved by up to `jitter` of
/// itself either way (so a receiver's outage does not bring every retry back at one instant),
/// then the delivery is dead-lettered.
#[derive(Clone, Debug)]
pub struct Schedule {
    pub delays: Vec<Duration>,
    /// A fraction: 0.2 moves a delay by up to ±20 %.
    pub jitter: f64,
}

impl Schedule {
    /// The delay before retry number `attempt + 1`, or `None` when the schedule is spent.
    pub fn delay(&self, attempt: u32, not_before: Option<Duration>) -> Option<Duration> {
        let base = *self.delays.get(attempt as usize)?;
        let factor = if self.jitter > 0.0 {
            rand::rng().random_range(1.0 - self.jitter..=1.0 + self.jitter)
        } else {
            1.0
        };
        let delay = base.mul_f64(factor);
        Some(not_before.map_or(delay, |floor| delay.max(floor)))
    }
}

pub struct Worker {
    pub queue: &'static str,
    pub bus: Bus,
    pub job: Arc<dyn Job>,
    pub schedule: Schedule,
    /// Jobs in flight at most.
    pub concurrency: u16,
}

/// How one run ended.
enum Outcome {
    Done,
    Retry(Duration),
    Dead(String),
}

impl Worker {
    /// Works until `shutdown`, reconnecting after broker outages.
    pub fn spawn(self, shutdown: CancellationToken) {
        let worker = Arc::new(self);
        tokio::spawn(async move {
            reconnecting(worker.queue, "worker", &shutdown, || async {
                match &worker.bus {
                    Bus::Memory(memory) => worker.run_memory(memory.clone(), &shutdown).await,
                    Bus::Amqp(_) => worker.run_amqp(&shutdown).await,
                }
            })
            .await;
        });
    }

    async fn outcome(&self, delivery: &Delivery) -> Outcome {
        let message = &delivery.message;
        let span = tracing::info_span!("work", queue = self.queue, topic = %message.topic, event_id = %message.id, attempt = delivery.attempt + 1);
        telemetry::set_parent_from_map(&span, &message.headers);
        match self.job.run(delivery).instrument(span).await {
            Ok(()) => {
                metrics::counter!("jobs_done_total", "queue" => self.queue).increment(1);
                Outcome::Done
            }
            Err(failure) => {
                metrics::counter!("jobs_failed_total", "queue" => self.queue).increment(1);
                match self.schedule.delay(delivery.attempt, failure.not_before) {
                    Some(delay) => {
                        tracing::debug!(queue = self.queue, event_id = %message.id, error = %failure.error, ?delay, "job failed; will retry");
                        Outcome::Retry(delay)
                    }
                    None => {
                        tracing::warn!(queue = self.queue, event_id = %message.id, error = %failure.error, "job failed on every attempt; dead-lettered");
                        metrics::counter!("jobs_dead_lettered_total", "queue" => self.queue)
                            .increment(1);
                        Outcome::Dead(failure.error.to_string())
                    }
                }
            }
        }
    }

    async fn run_memory(
        self: &Arc<Self>,
        memory: Arc<MemoryBus>,
        shutdown: &CancellationToken,
    ) -> Result<(), BusError> {
        let mut receiver = memory.take_receiver(self.queue)?;
        let slots = Arc::new(Semaphore::new(usize::from(self.concurrency.max(1))));
        loop {
            let received = tokio::select! {
                received = receiver.recv() => received,
                _ = shutdown.cancelled() => None,
            };
            let Some(MemoryDelivery { delivery, ack }) = received else {
                break;
            };
            if let Some(ack) = ack {
                let _ = ack.send(Ok(()));
            }
            let worker = self.clone();
            let memory = memory.clone();
            let slots = slots.clone();
            // The slot is awaited in the task, so taking deliveries never waits: a full worker
            // would otherwise hold up its publisher's relay (its acknowledgement comes here).
            tokio::spawn(async move {
                let Ok(slot) = slots.acquire_owned().await else {
                    return;
                };
                match worker.outcome(&delivery).await {
                    Outcome::Done => {}
                    Outcome::Retry(delay) => {
                        let mut again = delivery;
                        again.attempt += 1;
                        memory.retry_later(worker.queue, again, delay);
                    }
                    Outcome::Dead(_) => memory.dead_letter(worker.queue, delivery),
                }
                drop(slot);
            });
        }
        memory.return_receiver(self.queue, receiver);
        Ok(())
    }

    async fn run_amqp(self: &Arc<Self>, shutdown: &CancellationToken) -> Result<(), BusError> {
        let Bus::Amqp(amqp) = &self.bus else {
            return Ok(());
        };
        // The prefetch bounds the jobs in flight: the broker sends no more until one settles.
        let mut subscription = amqp.subscribe(self.queue, self.concurrency.max(1)).await?;
        tracing::info!(queue = self.queue, "working");
        let (done, mut finished) = mpsc::unbounded_channel();
        loop {
            tokio::select! {
                next = subscription.next() => {
                    // Jobs still running are redelivered by the broker on the next connection.
                    let (delivery, acker) = next?;
                    let worker = self.clone();
                    let done = done.clone();
                    tokio::spawn(async move {
                        let outcome = worker.outcome(&delivery).await;
                        let _ = done.send((delivery, acker, outcome));
                    });
                }
                Some((delivery, acker, outcome)) = finished.recv() => match outcome {
                    Outcome::Done => subscription.ack(&acker).await?,
                    Outcome::Retry(delay) => subscription.retry(&acker, &delivery, delay).await?,
                    Outcome::Dead(error) => subscription.dead_letter(&acker, &delivery, &error).await?,
                },
                _ = shutdown.cancelled() => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_follow_the_schedule_within_the_jitter_then_stop() {
        let schedule = Schedule {
            delays: vec![Duration::from_secs(5), Duration::from_secs(300)],
            jitter: 0.2,
        };
        for _ in 0..200 {
            let first = schedule.delay(0, None).unwrap_or_default();
            assert!((4.0..=6.0).contains(&first.as_secs_f64()), "{first:?}");
            let second = schedule.delay(1, None).unwrap_or_default();
            assert!(
                (240.0..=360.0).contains(&second.as_secs_f64()),
                "{second:?}"
            );
        }
        assert_eq!(schedule.delay(2, None), None, "spent: dead-lettered");
        let floored = schedule.delay(0, Some(Duration::from_secs(60)));
        assert_eq!(floored, Some(Duration::from_secs(60)), "a floor lifts it");
    }
}
