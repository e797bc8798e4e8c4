//! The in-process bus of standalone mode: the same queues as the broker's, each an unbounded
//! channel, with the acknowledgements a publish awaits.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use gatehouse_proto::events::Queue;
use tokio::sync::{mpsc, oneshot};

use super::message::{
    AUDIT_LENGTH, BROKER_TIMEOUT, BusError, Delivery, Message, Published, Topology,
};

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
    pub(super) fn new(topology: Topology) -> Self {
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
    pub(super) async fn publish(&self, message: &Message) -> Result<(), BusError> {
        acked(self.send(message)?).await
    }

    /// Every message handed to its queues first, then each one's acknowledgements awaited in
    /// order, so the consumers work on the batch while the relay waits.
    pub(super) async fn publish_all(&self, messages: &[Message]) -> Published {
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
