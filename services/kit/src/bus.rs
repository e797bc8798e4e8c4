//! The event bus: RabbitMQ (a durable topic exchange, publisher confirms, mandatory
//! publishes) in distributed mode, an in-process bus with the same queues in standalone mode.
//! Only the outbox relay publishes; only [`crate::consumer`] consumes.
//!
//! Nothing is published into the void. The [`Topology`] — every consumer's durable queue with
//! its bindings, and a bounded audit queue that keeps the latest events of every topic — is
//! declared before the first publish, so an event waits in its queue for a consumer that has
//! not started yet. A publish no consumer queue receives comes back as
//! [`BusError::Unroutable`], and the outbox counts it as a failure. The audit queue has an
//! exchange of its own and gets a copy of each event apart: were it bound to the events'
//! exchange, every publish would reach a queue and a consumer queue gone from the broker
//! would go unnoticed. A topic no consumer of ours takes may come back unroutable (nobody
//! outside subscribed to it either): its audit copy is then where it lives.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_proto::events::{QUEUES, Queue};
use tokio::sync::{mpsc, oneshot};

pub use crate::amqp::AmqpBus;

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

#[derive(Clone)]
pub enum Bus {
    Memory(Arc<MemoryBus>),
    Amqp(Arc<AmqpBus>),
}

impl Bus {
    /// `memory://` or `amqp://user:pass@host:port/vhost`, with the catalogue's topology. AMQP
    /// connects lazily, so a service starts (and keeps its outbox) while the broker is down.
    pub fn from_url(url: &str) -> Result<Self, BusError> {
        Self::with_topology(url, Topology::catalogue())
    }

    pub fn with_topology(url: &str, topology: Topology) -> Result<Self, BusError> {
        if url.starts_with("memory://") {
            Ok(Bus::Memory(Arc::new(MemoryBus::new(topology))))
        } else if url.starts_with("amqp://") || url.starts_with("amqps://") {
            Ok(Bus::Amqp(Arc::new(AmqpBus::new(url, topology))))
        } else {
            Err(BusError::UnsupportedUrl(crate::config::redact_url(url)))
        }
    }

    /// For the start-up log: the kind of bus and its URL without credentials.
    pub fn describe(&self) -> String {
        match self {
            Bus::Memory(_) => "memory://".into(),
            Bus::Amqp(amqp) => crate::config::redact_url(amqp.url()),
        }
    }

    /// Publishes one message: `Ok` once the broker has it in at least one queue.
    pub async fn publish(&self, message: &Message) -> Result<(), BusError> {
        match self {
            Bus::Memory(memory) => memory.publish(message).await,
            Bus::Amqp(amqp) => amqp.publish(message).await,
        }
    }

    /// Publishes `messages` in order, their confirms awaited together.
    pub async fn publish_all(&self, messages: &[Message]) -> Published {
        match self {
            Bus::Memory(memory) => memory.publish_all(messages).await,
            Bus::Amqp(amqp) => amqp.publish_all(messages).await,
        }
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

/// What an in-process consumer made of a delivery: handled (or a duplicate), or the error it
/// failed with.
pub(crate) type Acknowledgement = Result<(), String>;

/// A delivery on the in-process bus, with the acknowledgement its publisher awaits.
pub(crate) struct MemoryDelivery {
    pub(crate) delivery: Delivery,
    pub(crate) ack: Option<oneshot::Sender<Acknowledgement>>,
}

/// Dead letters kept per in-process queue; older ones are dropped (and were logged).
const MEMORY_DEAD_LETTERS: usize = 10_000;

/// A queue of the in-process bus: unbounded, so no event is dropped because its consumer lags,
/// and created with the bus, so none is dropped because its consumer has not subscribed yet.
struct MemoryQueue {
    queue: Queue,
    sender: mpsc::UnboundedSender<MemoryDelivery>,
    receiver: Mutex<Option<mpsc::UnboundedReceiver<MemoryDelivery>>>,
    dead: Mutex<VecDeque<Delivery>>,
}

/// Waits for every consumer's acknowledgement of one message, within the broker timeout.
async fn acked(acks: Vec<oneshot::Receiver<Acknowledgement>>) -> Result<(), BusError> {
    let mut failed = None;
    for ack in acks {
        match tokio::time::timeout(BROKER_TIMEOUT, ack).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(error))) => failed = Some(BusError::NotHandled(error)),
            _ => return Err(BusError::Timeout(BROKER_TIMEOUT)),
        }
    }
    failed.map_or(Ok(()), Err)
}

/// The in-process bus of standalone mode.
pub struct MemoryBus {
    queues: HashMap<&'static str, MemoryQueue>,
    audit: Option<Mutex<VecDeque<Message>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MemoryBus {
    fn new(topology: Topology) -> Self {
        let queues = topology
            .queues
            .iter()
            .map(|queue| {
                let (sender, receiver) = mpsc::unbounded_channel();
                let memory = MemoryQueue {
                    queue: *queue,
                    sender,
                    receiver: Mutex::new(Some(receiver)),
                    dead: Mutex::new(VecDeque::new()),
                };
                (queue.name, memory)
            })
            .collect();
        Self {
            queues,
            audit: topology.audit.as_ref().map(|_| Mutex::new(VecDeque::new())),
        }
    }

    /// Like a broker's confirm, but stronger: `Ok` once every bound consumer has handled it
    /// (so the outbox marks the row published only once it is done, and a restart loses
    /// nothing), `NotHandled` when one failed (the relay tries the row again later and parks it
    /// after its last attempt: the in-process bus's retries and dead letters are the outbox's),
    /// within the broker timeout; a consumer that has not started yet makes it time out, and
    /// the relay publishes again later (the consumers' inboxes drop the duplicates).
    async fn publish(&self, message: &Message) -> Result<(), BusError> {
        acked(self.send(message)?).await
    }

    /// Every message handed to its queues first, then each one's acknowledgements awaited in
    /// order, so the consumers work on the batch while the relay waits.
    async fn publish_all(&self, messages: &[Message]) -> Published {
        let sent: Vec<_> = messages.iter().map(|message| self.send(message)).collect();
        let mut published = Published::default();
        for acks in sent {
            match acks {
                Ok(acks) => match acked(acks).await {
                    Err(error) if !error.is_about_the_message() => {
                        published.broken = Some(error);
                        break;
                    }
                    outcome => published.settled.push(outcome),
                },
                Err(refused) => published.settled.push(Err(refused)),
            }
        }
        published
    }

    /// Hands `message` to every queue bound to its topic; the receivers of their
    /// acknowledgements.
    fn send(&self, message: &Message) -> Result<Vec<oneshot::Receiver<Acknowledgement>>, BusError> {
        let mut routed = false;
        let mut acks = Vec::new();
        for queue in self.queues.values() {
            if queue.queue.topics.contains(&message.topic.as_str()) {
                routed = true;
                let (ack, acked) = oneshot::channel();
                let delivery = MemoryDelivery {
                    delivery: Delivery {
                        message: message.clone(),
                        attempt: 0,
                    },
                    ack: Some(ack),
                };
                // The receiver lives as long as the bus (it is put back when a consumer stops).
                let _ = queue.sender.send(delivery);
                acks.push(acked);
            }
        }
        if let Some(audit) = &self.audit {
            let mut audit = lock(audit);
            if audit.len() >= AUDIT_LENGTH {
                audit.pop_front();
            }
            audit.push_back(message.clone());
            routed = true;
        }
        if !routed {
            return Err(BusError::Unroutable(message.topic.clone()));
        }
        Ok(acks)
    }

    fn queue(&self, name: &str) -> Result<&MemoryQueue, BusError> {
        self.queues
            .get(name)
            .ok_or_else(|| BusError::UnknownQueue(name.to_string()))
    }

    /// Takes the queue's receiving end (one consumer per queue in a process).
    pub(crate) fn take_receiver(
        &self,
        name: &str,
    ) -> Result<mpsc::UnboundedReceiver<MemoryDelivery>, BusError> {
        lock(&self.queue(name)?.receiver)
            .take()
            .ok_or_else(|| BusError::UnknownQueue(format!("{name} (already consumed)")))
    }

    /// Gives the receiving end back when its consumer stops, keeping what it still holds.
    pub(crate) fn return_receiver(
        &self,
        name: &str,
        receiver: mpsc::UnboundedReceiver<MemoryDelivery>,
    ) {
        if let Ok(queue) = self.queue(name) {
            *lock(&queue.receiver) = Some(receiver);
        }
    }

    /// Puts a delivery back on its queue after `delay`.
    pub(crate) fn retry_later(&self, name: &str, delivery: Delivery, delay: Duration) {
        if let Ok(queue) = self.queue(name) {
            let sender = queue.sender.clone();
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let _ = sender.send(MemoryDelivery {
                    delivery,
                    ack: None,
                });
            });
        }
    }

    pub(crate) fn dead_letter(&self, name: &str, delivery: Delivery) {
        if let Ok(queue) = self.queue(name) {
            let mut dead = lock(&queue.dead);
            if dead.len() >= MEMORY_DEAD_LETTERS
                && let Some(dropped) = dead.pop_front()
            {
                tracing::error!(queue = name, event_id = %dropped.message.id, "in-process dead letters full; the oldest is dropped");
            }
            dead.push_back(delivery);
        }
    }

    /// Moves every dead letter of `name` back onto its queue, as first attempts.
    pub(crate) fn replay_dead(&self, name: &str) -> Result<usize, BusError> {
        let queue = self.queue(name)?;
        let dead = std::mem::take(&mut *lock(&queue.dead));
        let count = dead.len();
        for mut delivery in dead {
            delivery.attempt = 0;
            let _ = queue.sender.send(MemoryDelivery {
                delivery,
                ack: None,
            });
        }
        Ok(count)
    }

    /// The latest events of every topic, oldest first (the audit queue).
    pub fn audit(&self) -> Vec<Message> {
        self.audit
            .as_ref()
            .map(|audit| lock(audit).iter().cloned().collect())
            .unwrap_or_default()
    }
}
