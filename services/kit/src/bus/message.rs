//! What travels on a bus and what a bus answers, whichever bus it is: messages and
//! deliveries, publish outcomes, errors, and the topology declared before the first publish.

use std::collections::BTreeMap;
use std::time::Duration;

use gatehouse_proto::events::{QUEUES, Queue};

/// The topic exchange every service publishes to; routing key = topic (`user.created`).
pub const EXCHANGE: &str = "gatehouse.events";
/// Bound to every topic, bounded to the latest [`AUDIT_LENGTH`] events: operators can read
/// what happened, and an event no service consumes yet still lands somewhere durable. Its
/// exchange (a fanout) has the same name.
pub const AUDIT_QUEUE: &str = "gatehouse.audit";
pub const AUDIT_LENGTH: usize = 10_000;

pub(crate) const BROKER_TIMEOUT: Duration = Duration::from_secs(5);

/// One event on the wire: the outbox row as published.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Unique per event (UUIDv7): the AMQP message id; consumers deduplicate on it.
    pub id: String,
    /// The event's topic, also its routing key.
    pub topic: String,
    /// The protobuf-encoded payload (`gatehouse.events.v1`).
    pub payload: Vec<u8>,
    /// Trace context (`traceparent`, `tracestate`) so a consumer joins the producer's trace.
    pub headers: BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error)]
pub enum BusError {
    #[error("unsupported bus URL {0:?}: expected memory:// or amqp(s)://")]
    UnsupportedUrl(String),
    /// The reason only: the URL may hold a password.
    #[error("invalid broker URL: {0}")]
    InvalidUrl(String),
    #[error("broker: {0}")]
    Broker(#[from] lapin::Error),
    #[error("broker did not answer within {0:?}")]
    Timeout(Duration),
    /// The broker's connection or the consumer's channel ended (a broker restart, a network
    /// cut, the channel closed by the broker).
    #[error("the broker closed the connection or the consumer's channel")]
    Disconnected,
    #[error("broker refused the message (nack)")]
    Nacked,
    #[error("no queue is bound to {0:?}: the message was returned")]
    Unroutable(String),
    /// An in-process consumer tried the message and failed: the publisher keeps it (its
    /// outbox row) and publishes it again later, so a restart loses nothing.
    #[error("a consumer could not handle it: {0}")]
    NotHandled(String),
    #[error("no queue named {0:?} in the topology")]
    UnknownQueue(String),
}

impl BusError {
    /// A failure of this one message (it is counted against the outbox row), as opposed to
    /// the broker being unreachable (every row waits).
    pub fn is_about_the_message(&self) -> bool {
        matches!(
            self,
            BusError::Nacked | BusError::Unroutable(_) | BusError::NotHandled(_)
        )
    }
}

/// The queues a bus declares before it publishes.
#[derive(Clone, Debug)]
pub struct Topology {
    /// The topic exchange ([`EXCHANGE`]; tests use their own).
    pub exchange: String,
    pub queues: Vec<Queue>,
    /// The audit queue (and its exchange), which gets a copy of every event; `None`: no audit
    /// queue (tests, where a topic no queue takes must be unroutable).
    pub audit: Option<String>,
}

impl Topology {
    /// Every consumer in `gatehouse_proto::events::QUEUES`, and the audit queue.
    pub fn catalogue() -> Self {
        Self {
            exchange: EXCHANGE.to_string(),
            queues: QUEUES.to_vec(),
            audit: Some(AUDIT_QUEUE.to_string()),
        }
    }

    pub fn queue(&self, name: &str) -> Option<&Queue> {
        self.queues.iter().find(|q| q.name == name)
    }

    /// Whether some consumer queue takes `topic`.
    pub fn is_consumed(&self, topic: &str) -> bool {
        self.queues
            .iter()
            .any(|queue| queue.topics.contains(&topic))
    }
}

/// What [`Bus::publish_all`] made of a batch.
#[derive(Debug, Default)]
pub struct Published {
    /// The outcome of each message from the first on: `Ok` once the broker has it, or a
    /// refusal of that message ([`BusError::is_about_the_message`]).
    pub settled: Vec<Result<(), BusError>>,
    /// The broker's own failure, if one cut the batch short: the messages from
    /// `settled.len()` on are unconfirmed and must be sent again.
    pub broken: Option<BusError>,
}

/// A message handed to a consumer, with how many times it was tried before.
#[derive(Clone, Debug)]
pub struct Delivery {
    pub message: Message,
    pub attempt: u32,
}
