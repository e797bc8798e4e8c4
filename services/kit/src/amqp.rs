//! The RabbitMQ side of the bus: topology declaration, mandatory confirmed publishes, and the
//! consumer's channel (retry queues with per-message delays, a dead-letter queue per consumer).
//!
//! For a consumer queue `q`: `q` is bound to its topics on the exchange ([`crate::bus::EXCHANGE`]); `q.retry.<n>` holds
//! a message before its `n`-th retry (its expiration is the delay; it then dead-letters back
//! to `q` through the default exchange); `q.dead` keeps what failed every attempt, until it is
//! replayed.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use lapin::PublisherConfirm;
use lapin::message::Delivery as AmqpDelivery;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicGetOptions, BasicPublishOptions, BasicQosOptions,
    ConfirmSelectOptions, ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions,
};
use lapin::types::{AMQPValue, FieldTable, ShortString};
use lapin::{
    BasicProperties, Channel, Confirmation, Connection, ConnectionProperties, ExchangeKind,
};
use tokio::sync::Mutex;

use crate::bus::message::{
    AUDIT_LENGTH, BROKER_TIMEOUT, BusError, Delivery, Message, Published, Topology,
};

/// The largest AMQP frame we negotiate, unless the URL sets `frame_max`. lapin keeps a receive
/// and a send buffer of 32 frames per connection, zeroed up front: at RabbitMQ's 128 KiB that
/// was 8 MiB per connection, 12 MiB resident in an idle service (issue 34). Events are a few
/// KiB; a larger message simply travels in several frames.
const FRAME_MAX: u32 = 16 * 1024;

/// Header counting how many times a message was tried before.
const ATTEMPT_HEADER: &str = "x-gatehouse-attempt";
/// Header carrying the last error of a dead letter.
const ERROR_HEADER: &str = "x-gatehouse-error";

pub struct AmqpBus {
    url: String,
    topology: Topology,
    publisher: Mutex<Option<(Connection, Channel)>>,
}

pub(crate) fn retry_queue(queue: &str, attempt: u32) -> String {
    format!("{queue}.retry.{attempt}")
}

pub(crate) fn dead_queue(queue: &str) -> String {
    format!("{queue}.dead")
}

async fn timeout<T>(
    fut: impl std::future::Future<Output = Result<T, BusError>>,
) -> Result<T, BusError> {
    tokio::time::timeout(BROKER_TIMEOUT, fut)
        .await
        .map_err(|_| BusError::Timeout(BROKER_TIMEOUT))?
}

fn durable() -> QueueDeclareOptions {
    QueueDeclareOptions {
        durable: true,
        ..Default::default()
    }
}

impl AmqpBus {
    pub(crate) fn new(url: &str, topology: Topology) -> Self {
        Self {
            url: url.to_string(),
            topology,
            publisher: Mutex::new(None),
        }
    }

    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// A confirming channel with the whole topology declared (idempotent).
    async fn open(&self) -> Result<(Connection, Channel), BusError> {
        let mut uri: lapin::uri::AMQPUri = self.url.parse().map_err(BusError::InvalidUrl)?;
        uri.query.frame_max.get_or_insert(FRAME_MAX);
        let conn = Connection::connect_uri(uri, ConnectionProperties::default()).await?;
        let channel = conn.create_channel().await?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await?;
        self.declare(&channel).await?;
        Ok((conn, channel))
    }

    async fn declare(&self, channel: &Channel) -> Result<(), BusError> {
        let durable_exchange = ExchangeDeclareOptions {
            durable: true,
            ..Default::default()
        };
        let exchange = self.topology.exchange.as_str();
        channel
            .exchange_declare(
                exchange.into(),
                ExchangeKind::Topic,
                durable_exchange,
                FieldTable::default(),
            )
            .await?;
        for queue in &self.topology.queues {
            channel
                .queue_declare(queue.name.into(), durable(), FieldTable::default())
                .await?;
            for topic in queue.topics {
                bind(channel, exchange, queue.name, topic).await?;
            }
            channel
                .queue_declare(
                    dead_queue(queue.name).as_str().into(),
                    durable(),
                    FieldTable::default(),
                )
                .await?;
        }
        if let Some(audit) = &self.topology.audit {
            channel
                .exchange_declare(
                    audit.as_str().into(),
                    ExchangeKind::Fanout,
                    ExchangeDeclareOptions {
                        durable: true,
                        ..Default::default()
                    },
                    FieldTable::default(),
                )
                .await?;
            let mut arguments = FieldTable::default();
            arguments.insert(
                "x-max-length".into(),
                AMQPValue::LongLongInt(AUDIT_LENGTH as i64),
            );
            arguments.insert(
                "x-overflow".into(),
                AMQPValue::LongString("drop-head".into()),
            );
            channel
                .queue_declare(audit.as_str().into(), durable(), arguments)
                .await?;
            // Earlier versions bound it to the events' exchange, where it made every publish
            // routable; unbinding a binding that is not there changes nothing.
            channel
                .queue_unbind(
                    audit.as_str().into(),
                    exchange.into(),
                    "#".into(),
                    FieldTable::default(),
                )
                .await?;
            bind(channel, audit, audit, "").await?;
        }
        tracing::info!(exchange, "message broker topology declared");
        Ok(())
    }

    /// Declares `q.retry.<attempt>` (on first use: the number of retries is the policy's).
    async fn declare_retry(channel: &Channel, queue: &str, attempt: u32) -> Result<(), BusError> {
        let mut arguments = FieldTable::default();
        arguments.insert(
            "x-dead-letter-exchange".into(),
            AMQPValue::LongString("".into()),
        );
        arguments.insert(
            "x-dead-letter-routing-key".into(),
            AMQPValue::LongString(queue.into()),
        );
        channel
            .queue_declare(
                retry_queue(queue, attempt).as_str().into(),
                durable(),
                arguments,
            )
            .await?;
        Ok(())
    }

    /// The publishing channel, opened again when the broker dropped it.
    async fn channel(
        &self,
        guard: &mut Option<(Connection, Channel)>,
    ) -> Result<Channel, BusError> {
        if let Some((conn, ch)) = guard.as_ref()
            && conn.status().connected()
            && ch.status().connected()
        {
            return Ok(ch.clone());
        }
        *guard = None;
        let (conn, ch) = timeout(self.open()).await?;
        *guard = Some((conn, ch.clone()));
        Ok(ch)
    }

    pub(crate) async fn publish(&self, message: &Message) -> Result<(), BusError> {
        let mut published = self.publish_all(std::slice::from_ref(message)).await;
        match (published.broken, published.settled.pop()) {
            (Some(error), _) => Err(error),
            (None, Some(outcome)) => outcome,
            (None, None) => Err(BusError::Timeout(BROKER_TIMEOUT)),
        }
    }

    /// Sends every message on the one publishing channel, in order, and then awaits their
    /// confirms: the broker confirms the messages of one disk flush together, so a batch costs
    /// about one flush where one message at a time costs one each.
    pub(crate) async fn publish_all(&self, messages: &[Message]) -> Published {
        let mut guard = self.publisher.lock().await;
        let mut published = Published::default();
        let channel = match self.channel(&mut guard).await {
            Ok(channel) => channel,
            Err(error) => {
                published.broken = Some(error);
                return published;
            }
        };
        let mut sent = Vec::with_capacity(messages.len());
        for message in messages {
            match timeout(self.send_with_copy(&channel, message)).await {
                Ok((confirm, copy)) => sent.push((confirm, copy, message.topic.as_str())),
                Err(error) => {
                    published.broken = Some(error);
                    break;
                }
            }
        }
        for (confirm, copy, topic) in sent {
            let outcome = timeout(async {
                let copied = match copy {
                    Some(copy) => Some(settled(copy, topic).await),
                    None => None,
                };
                match (settled(confirm, topic).await, copied) {
                    (_, Some(Err(broken))) if !broken.is_about_the_message() => Err(broken),
                    // No queue of ours takes it and nobody outside subscribed: the audit
                    // queue's copy is where it lives.
                    (Err(BusError::Unroutable(_)), Some(copied))
                        if !self.topology.is_consumed(topic) =>
                    {
                        copied
                    }
                    (outcome, _) => outcome,
                }
            })
            .await;
            match outcome {
                Err(error) if !error.is_about_the_message() => {
                    published.broken = Some(error);
                    break;
                }
                outcome => published.settled.push(outcome),
            }
        }
        let queue_gone = published.settled.iter().any(|outcome| {
            matches!(outcome, Err(BusError::Unroutable(topic)) if self.topology.is_consumed(topic))
        });
        if published.broken.is_some() || queue_gone {
            // Start from a fresh connection next time: the broker may have gone away, or lost
            // a consumer queue, which the new connection declares again (the outbox publishes
            // the returned message again later).
            *guard = None;
        }
        published
    }

    /// Sends `message` to the events' exchange (mandatory: a consumer queue missing there
    /// comes back) and a copy to the audit queue's exchange: their confirms, to await.
    async fn send_with_copy(
        &self,
        channel: &Channel,
        message: &Message,
    ) -> Result<(PublisherConfirm, Option<PublisherConfirm>), BusError> {
        let exchange = &self.topology.exchange;
        let to_consumers = properties(message, 0, None);
        let confirm = send(
            channel,
            exchange,
            &message.topic,
            &message.payload,
            to_consumers,
        )
        .await?;
        let copy = match self.topology.audit.as_deref() {
            Some(audit) => {
                let to_audit = properties(message, 0, None);
                Some(send(channel, audit, &message.topic, &message.payload, to_audit).await?)
            }
            None => None,
        };
        Ok((confirm, copy))
    }

    /// A consumer's own connection on `queue`, with at most `prefetch` unsettled deliveries.
    pub(crate) async fn subscribe(
        &self,
        queue: &str,
        prefetch: u16,
    ) -> Result<AmqpSubscription, BusError> {
        if self.topology.queue(queue).is_none() {
            return Err(BusError::UnknownQueue(queue.to_string()));
        }
        let (conn, channel) = timeout(self.open()).await?;
        channel
            .basic_qos(prefetch, BasicQosOptions::default())
            .await?;
        let consumer = channel
            .basic_consume(
                queue.into(),
                ShortString::from(""),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await?;
        Ok(AmqpSubscription {
            queue: queue.to_string(),
            _conn: conn,
            channel,
            consumer,
        })
    }

    /// Moves every message of `q.dead` back onto `q`, as first attempts.
    pub(crate) async fn replay_dead(&self, queue: &str) -> Result<usize, BusError> {
        let (_conn, channel) = timeout(self.open()).await?;
        let mut count = 0;
        while let Some(got) = channel
            .basic_get(
                dead_queue(queue).as_str().into(),
                BasicGetOptions::default(),
            )
            .await?
        {
            let delivery = &got.delivery;
            let message = message_of(delivery.routing_key.as_str(), delivery);
            timeout(confirmed(
                &channel,
                "",
                queue,
                &message.payload,
                properties(&message, 0, None),
            ))
            .await?;
            delivery.acker.ack(BasicAckOptions::default()).await?;
            count += 1;
        }
        Ok(count)
    }
}

async fn bind(channel: &Channel, exchange: &str, queue: &str, topic: &str) -> Result<(), BusError> {
    channel
        .queue_bind(
            queue.into(),
            exchange.into(),
            topic.into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await?;
    Ok(())
}

/// Publishes with `mandatory` and waits for the confirm; a returned message is unroutable.
/// Sends one mandatory message; the broker's confirm comes later ([`settled`]).
async fn send(
    channel: &Channel,
    exchange: &str,
    routing_key: &str,
    payload: &[u8],
    properties: BasicProperties,
) -> Result<PublisherConfirm, BusError> {
    Ok(channel
        .basic_publish(
            exchange.into(),
            routing_key.into(),
            BasicPublishOptions {
                mandatory: true,
                ..Default::default()
            },
            payload,
            properties,
        )
        .await?)
}

/// Sends one message and awaits its confirm.
async fn confirmed(
    channel: &Channel,
    exchange: &str,
    routing_key: &str,
    payload: &[u8],
    properties: BasicProperties,
) -> Result<(), BusError> {
    let confirm = send(channel, exchange, routing_key, payload, properties).await?;
    settled(confirm, routing_key).await
}

/// What the broker said of one sent message: stored, or returned (no queue took it), or nacked.
async fn settled(confirm: PublisherConfirm, topic: &str) -> Result<(), BusError> {
    match confirm.await? {
        Confirmation::Ack(Some(_)) | Confirmation::Nack(Some(_)) => {
            Err(BusError::Unroutable(topic.to_string()))
        }
        Confirmation::Nack(None) => Err(BusError::Nacked),
        Confirmation::Ack(None) | Confirmation::NotRequested => Ok(()),
    }
}

fn properties(message: &Message, attempt: u32, error: Option<&str>) -> BasicProperties {
    let mut headers = FieldTable::default();
    for (key, value) in &message.headers {
        headers.insert(
            key.as_str().into(),
            AMQPValue::LongString(value.as_str().into()),
        );
    }
    headers.insert(
        ATTEMPT_HEADER.into(),
        AMQPValue::LongLongInt(attempt.into()),
    );
    if let Some(error) = error {
        headers.insert(ERROR_HEADER.into(), AMQPValue::LongString(error.into()));
    }
    BasicProperties::default()
        .with_message_id(message.id.as_str().into())
        .with_type(message.topic.as_str().into())
        .with_content_type("application/x-protobuf".into())
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

fn attempt_of(properties: &BasicProperties) -> u32 {
    let value = properties
        .headers()
        .as_ref()
        .and_then(|table| table.inner().get(ATTEMPT_HEADER).cloned());
    match value {
        Some(AMQPValue::LongLongInt(n)) => u32::try_from(n).unwrap_or(0),
        _ => 0,
    }
}

fn message_of(topic: &str, delivery: &AmqpDelivery) -> Message {
    let mut headers = string_headers(&delivery.properties);
    headers.remove(ERROR_HEADER);
    Message {
        id: delivery
            .properties
            .message_id()
            .as_ref()
            .map(|id| id.as_str().to_string())
            .unwrap_or_default(),
        topic: delivery
            .properties
            .kind()
            .as_ref()
            .map_or(topic.to_string(), |kind| kind.as_str().to_string()),
        payload: delivery.data.clone(),
        headers,
    }
}

pub(crate) struct AmqpSubscription {
    queue: String,
    _conn: Connection,
    channel: Channel,
    consumer: lapin::Consumer,
}

impl AmqpSubscription {
    /// The next delivery, with its acknowledgement handle; what ended the subscription when
    /// the broker's error or the connection's end did.
    pub(crate) async fn next(&mut self) -> Result<(Delivery, AmqpDelivery), BusError> {
        let delivery = match self.consumer.next().await {
            Some(Ok(delivery)) => delivery,
            Some(Err(error)) => return Err(BusError::Broker(error)),
            None => return Err(BusError::Disconnected),
        };
        let message = message_of(delivery.routing_key.as_str(), &delivery);
        let attempt = attempt_of(&delivery.properties);
        Ok((Delivery { message, attempt }, delivery))
    }

    /// Done: the message leaves the queue.
    pub(crate) async fn ack(&self, raw: &AmqpDelivery) -> Result<(), BusError> {
        raw.acker.ack(BasicAckOptions::default()).await?;
        Ok(())
    }

    /// Parks a copy in `q.retry.<n>` for `delay`, then acks the original.
    pub(crate) async fn retry(
        &self,
        acker: &AmqpDelivery,
        delivery: &Delivery,
        delay: std::time::Duration,
    ) -> Result<(), BusError> {
        let attempt = delivery.attempt + 1;
        AmqpBus::declare_retry(&self.channel, &self.queue, attempt).await?;
        let properties = properties(&delivery.message, attempt, None)
            .with_expiration(delay.as_millis().max(1).to_string().as_str().into());
        timeout(confirmed(
            &self.channel,
            "",
            &retry_queue(&self.queue, attempt),
            &delivery.message.payload,
            properties,
        ))
        .await?;
        self.ack(acker).await
    }

    /// Moves the message to `q.dead` with its last error, then acks the original.
    pub(crate) async fn dead_letter(
        &self,
        acker: &AmqpDelivery,
        delivery: &Delivery,
        error: &str,
    ) -> Result<(), BusError> {
        timeout(confirmed(
            &self.channel,
            "",
            &dead_queue(&self.queue),
            &delivery.message.payload,
            properties(&delivery.message, delivery.attempt + 1, Some(error)),
        ))
        .await?;
        self.ack(acker).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ToggleProxy;

    /// A consumer whose broker goes away is told so (the log said "broker did not answer
    /// within 0ns", which sent operators looking for a slow broker).
    #[tokio::test]
    async fn a_subscription_cut_off_from_its_broker_says_it_was_disconnected() {
        let proxy = ToggleProxy::start("127.0.0.1:5672").await;
        let name = format!("test.{}", crate::ids::random_alphanumeric(10));
        let queue = gatehouse_proto::events::Queue {
            name: Box::leak(name.into_boxed_str()),
            topics: &["user.updated"],
        };
        let bus = AmqpBus::new(
            &format!("amqp://guest:guest@{}/%2f", proxy.addr),
            Topology {
                exchange: format!("{}.exchange", queue.name),
                queues: vec![queue],
                audit: None,
            },
        );
        let mut subscription = bus.subscribe(queue.name, 1).await.expect("subscribed");
        proxy.cut();
        let ended = tokio::time::timeout(std::time::Duration::from_secs(10), subscription.next())
            .await
            .expect("the subscription ends when its connection does");
        let Err(error) = ended else {
            panic!("no delivery came")
        };
        assert!(
            matches!(error, BusError::Disconnected | BusError::Broker(_)),
            "{error:?}"
        );
        assert!(
            !error.to_string().contains("did not answer"),
            "a disconnection is not a timeout: {error}"
        );
    }
}
