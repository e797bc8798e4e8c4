//! An event on its way into the outbox, and the signal that wakes the relay once one is
//! committed.

use chrono::{DateTime, Utc};
use gatehouse_proto::events::Event;

use crate::sealing::SealingKey;
use crate::{ids, telemetry};

/// An event about to be written to the outbox.
#[derive(Clone, Debug)]
pub struct OutboxEvent {
    pub id: String,
    pub topic: &'static str,
    pub payload: Vec<u8>,
    pub headers: String,
    pub created_at: DateTime<Utc>,
}

impl OutboxEvent {
    /// Encodes `event` and captures the current trace context so the consumer's work joins
    /// this trace.
    pub fn new<E: Event>(event: &E) -> Self {
        let headers = telemetry::current_context_headers();
        Self {
            id: uuid::Uuid::now_v7().to_string(),
            topic: E::TOPIC,
            payload: event.encode_to_vec(),
            headers: serde_json::to_string(&headers).unwrap_or_else(|_| "{}".into()),
            created_at: ids::now(),
        }
    }
}

/// `event` as the outbox stores it: sealed when its topic carries a secret (a mailed link)
/// and there is a key to seal it with.
pub(crate) fn sealed<'a>(
    event: &'a OutboxEvent,
    key: Option<&SealingKey>,
) -> std::borrow::Cow<'a, OutboxEvent> {
    if !gatehouse_proto::events::SEALED_TOPICS.contains(&event.topic) {
        return std::borrow::Cow::Borrowed(event);
    }
    match key {
        Some(key) => std::borrow::Cow::Owned(OutboxEvent {
            payload: key.seal(event.topic, &event.payload),
            ..event.clone()
        }),
        None => {
            tracing::warn!(
                topic = event.topic,
                "no sealing key: a secret-bearing event is stored as it is"
            );
            std::borrow::Cow::Borrowed(event)
        }
    }
}

/// Wakes the relay right after a commit, so events go out without waiting for the poll.
#[derive(Clone, Debug, Default)]
pub struct OutboxSignal(std::sync::Arc<tokio::sync::Notify>);

impl OutboxSignal {
    pub fn notify(&self) {
        self.0.notify_one();
    }

    /// Waits for the next [`notify`](Self::notify) (or one that came since the last wait).
    pub(crate) async fn notified(&self) {
        self.0.notified().await;
    }
}
