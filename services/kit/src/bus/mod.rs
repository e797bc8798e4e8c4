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

mod memory;
pub(crate) mod message;

use std::sync::Arc;

pub use crate::amqp::AmqpBus;
pub use memory::MemoryBus;
pub(crate) use memory::MemoryDelivery;
pub use message::{
    AUDIT_LENGTH, AUDIT_QUEUE, BusError, Delivery, EXCHANGE, Message, Published, Topology,
};

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
            Err(BusError::UnsupportedUrl(crate::redact::redact_url(url)))
        }
    }

    /// For the start-up log: the kind of bus and its URL without credentials.
    pub fn describe(&self) -> String {
        match self {
            Bus::Memory(_) => "memory://".into(),
            Bus::Amqp(amqp) => crate::redact::redact_url(amqp.url()),
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
