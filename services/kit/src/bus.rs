//! The event bus: RabbitMQ (a durable topic exchange, publisher confirms) in distributed mode,
//! an in-process broadcast channel in standalone mode. Only the outbox relay publishes, so a
//! broker outage delays events and never loses them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use lapin::options::{BasicPublishOptions, ConfirmSelectOptions, ExchangeDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{
    BasicProperties, Channel, Confirmation, Connection, ConnectionProperties, ExchangeKind,
};
use tokio::sync::{Mutex, broadcast};

/// The topic exchange every service publishes to; routing key = event type (`user.created`).
pub const EXCHANGE: &str = "gatehouse.events";

const BROKER_TIMEOUT: Duration = Duration::from_secs(5);

/// One event on the wire: the outbox row as published.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Unique per event (UUIDv7); consumers deduplicate on it.
    pub id: String,
    /// Event type, also the routing key.
    pub topic: String,
    /// JSON envelope `{id, type, occurredAt, data}`.
    pub payload: String,
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
    #[error("broker refused the message (nack)")]
    Nacked,
}

#[derive(Clone)]
pub enum Bus {
    Memory(broadcast::Sender<Message>),
    Amqp(Arc<AmqpBus>),
}

impl Bus {
    /// `memory://` or `amqp://user:pass@host:port/vhost`. AMQP connects lazily, so a service
    /// starts (and keeps its outbox) while the broker is down.
    pub fn from_url(url: &str) -> Result<Self, BusError> {
        if url.starts_with("memory://") {
            Ok(Bus::Memory(broadcast::channel(4096).0))
        } else if url.starts_with("amqp://") || url.starts_with("amqps://") {
            Ok(Bus::Amqp(Arc::new(AmqpBus {
                url: url.to_string(),
                channel: Mutex::new(None),
            })))
        } else {
            Err(BusError::UnsupportedUrl(crate::config::redact_url(url)))
        }
    }

    /// Publishes one message and waits for the broker's confirmation.
    pub async fn publish(&self, message: &Message) -> Result<(), BusError> {
        match self {
            Bus::Memory(sender) => {
                // No subscriber is not an error: in-process consumers come and go.
                let _ = sender.send(message.clone());
                Ok(())
            }
            Bus::Amqp(amqp) => amqp.publish(message).await,
        }
    }

    /// For the start-up log: the kind of bus and its URL without credentials.
    pub fn describe(&self) -> String {
        match self {
            Bus::Memory(_) => "memory://".into(),
            Bus::Amqp(amqp) => crate::config::redact_url(&amqp.url),
        }
    }

    /// In-process subscription (standalone mode); `None` for a broker-backed bus, whose
    /// consumers bind their own queues.
    pub fn subscribe_memory(&self) -> Option<broadcast::Receiver<Message>> {
        match self {
            Bus::Memory(sender) => Some(sender.subscribe()),
            Bus::Amqp(_) => None,
        }
    }
}

pub struct AmqpBus {
    url: String,
    channel: Mutex<Option<(Connection, Channel)>>,
}

impl AmqpBus {
    async fn publish(&self, message: &Message) -> Result<(), BusError> {
        let mut guard = self.channel.lock().await;
        let channel = match guard.as_ref() {
            Some((conn, ch)) if conn.status().connected() && ch.status().connected() => ch.clone(),
            _ => {
                *guard = None;
                let (conn, ch) = timeout(self.open()).await?;
                *guard = Some((conn, ch.clone()));
                ch
            }
        };
        let result = timeout(async {
            let confirm = channel
                .basic_publish(
                    EXCHANGE.into(),
                    message.topic.as_str().into(),
                    BasicPublishOptions::default(),
                    message.payload.as_bytes(),
                    properties(message),
                )
                .await?;
            match confirm.await? {
                Confirmation::Nack(_) => Err(BusError::Nacked),
                Confirmation::Ack(_) | Confirmation::NotRequested => Ok(()),
            }
        })
        .await;
        if result.is_err() {
            // Start from a fresh connection next time: the broker may have gone away.
            *guard = None;
        }
        result
    }

    async fn open(&self) -> Result<(Connection, Channel), BusError> {
        let conn = Connection::connect(&self.url, ConnectionProperties::default()).await?;
        let channel = conn.create_channel().await?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await?;
        channel
            .exchange_declare(
                EXCHANGE.into(),
                ExchangeKind::Topic,
                ExchangeDeclareOptions {
                    durable: true,
                    ..Default::default()
                },
                FieldTable::default(),
            )
            .await?;
        tracing::info!(exchange = EXCHANGE, "connected to the message broker");
        Ok((conn, channel))
    }
}

async fn timeout<T>(
    fut: impl std::future::Future<Output = Result<T, BusError>>,
) -> Result<T, BusError> {
    tokio::time::timeout(BROKER_TIMEOUT, fut)
        .await
        .map_err(|_| BusError::Timeout(BROKER_TIMEOUT))?
}

fn properties(message: &Message) -> BasicProperties {
    let mut headers = FieldTable::default();
    for (key, value) in &message.headers {
        headers.insert(
            key.as_str().into(),
            AMQPValue::LongString(value.as_str().into()),
        );
    }
    BasicProperties::default()
        .with_message_id(message.id.as_str().into())
        .with_type(message.topic.as_str().into())
        .with_content_type("application/json".into())
        .with_delivery_mode(2)
        .with_headers(headers)
}

/// Reads the string headers of a delivered AMQP message (trace context for consumers).
pub fn string_headers(properties: &BasicProperties) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(table) = properties.headers() {
        for (key, value) in table.inner() {
            if let AMQPValue::LongString(s) = value {
                out.insert(
                    key.as_str().to_string(),
                    String::from_utf8_lossy(s.as_bytes()).into_owned(),
                );
            }
        }
    }
    out
}
