//! A real billing-webhook part on its own database, and deliveries signed the way the payments
//! platform signs them — computed here with HMAC-SHA256 by hand from the Standard Webhooks
//! spec (billing-webhooks reference §1.1), not with the crate the service verifies with.

use base64::Engine;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, Db};
use gatehouse_kit::service::{Context, Part};
use gatehouse_kit::service_auth::ServiceToken;
use gatehouse_kit::testing::TestDb;
use gatehouse_proto::billing_webhook::v1 as pb;
use gatehouse_proto::billing_webhook::v1::customer_service_client::CustomerServiceClient;
use gatehouse_proto::billing_webhook::v1::delivery_service_client::DeliveryServiceClient;
use gatehouse_proto::billing_webhook::v1::endpoint_service_client::EndpointServiceClient;
use gatehouse_proto::billing_webhook::v1::intake_service_client::IntakeServiceClient;
use std::sync::{Arc, Mutex};

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::{Consumer, Handler, HandlerFuture, RetryPolicy};
use gatehouse_kit::db::Tx;
use gatehouse_kit::sealing::SealingKey;
use gatehouse_proto::events::MAILER_MAIL_REQUESTS;
use gatehouse_proto::events::v1::MailRequested;
use hmac::{KeyInit, Mac};
use prost::Message as _;
use tokio_util::sync::CancellationToken;

pub const TOKEN: &str = "billing-tests-service-token-0123456789";
/// A secret as the payments platform shows it; its text is the HMAC key.
pub const SECRET: &str = "whsec_UG9sYXIgc2lnbnMgd2l0aCB0aGUgdGV4dCBvZiB0aGlzIHNlY3JldA";

/// The fixture `name` (`order.paid`) as the payments platform sends it: compact JSON.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/polar/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    serde_json::to_vec(&value).unwrap()
}

/// `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`.
pub fn sign(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// A delivery of `body` under `id`, signed now with [`SECRET`].
pub fn delivery(id: &str, body: &[u8]) -> pb::ReceiveRequest {
    let timestamp = now();
    pb::ReceiveRequest {
        webhook_id: id.into(),
        webhook_timestamp: timestamp.to_string(),
        webhook_signature: sign(SECRET.as_bytes(), id, timestamp, body),
        body: body.to_vec(),
    }
}

/// What the mailer would take from the bus: the stand-in for it that every test part has (on
/// the in-process bus a published event waits for its queue's consumer).
#[derive(Clone, Default)]
pub struct Mailbox(pub Arc<Mutex<Vec<MailRequested>>>);

impl Handler for Mailbox {
    fn handle<'a>(&'a self, _tx: &'a mut Tx, message: &'a Message) -> HandlerFuture<'a> {
        Box::pin(async move {
            let mail = MailRequested::decode(message.payload.as_slice())?;
            self.0.lock().unwrap().push(mail);
            Ok(())
        })
    }
}

/// A billing-webhook part, stopped when dropped.
pub struct Billing {
    /// The mails it asked for.
    pub mailbox: Mailbox,
    pub client: IntakeServiceClient<gatehouse_kit::client::ServiceChannel>,
    pub endpoints: EndpointServiceClient<gatehouse_kit::client::ServiceChannel>,
    pub deliveries: DeliveryServiceClient<gatehouse_kit::client::ServiceChannel>,
    pub customers: CustomerServiceClient<gatehouse_kit::client::ServiceChannel>,
    pub db: Db,
    /// The part's bus (in-process unless `BUS_URL` says otherwise).
    pub bus: gatehouse_kit::bus::Bus,
    shutdown: CancellationToken,
    _database: TestDb,
}

impl Drop for Billing {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl Billing {
    pub async fn start(backend: Backend) -> Self {
        Self::start_with(backend, &[("POLAR_WEBHOOK_SECRET", SECRET)]).await
    }

    pub async fn start_with(backend: Backend, extra: &[(&str, &str)]) -> Self {
        let database = TestDb::new(backend).await;
        // Migrated here first, so the part starting finds nothing left to migrate.
        let db = database
            .connect(&gatehouse_billing_webhook::MIGRATIONS)
            .await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let env = Env::from_pairs(
            [
                ("BILLING_WEBHOOK_DATABASE_URL", database.url.as_str()),
                ("SERVICE_TOKEN", TOKEN),
            ]
            .into_iter()
            .chain(extra.iter().copied()),
        );
        let context = Context::from_env(env).unwrap();
        let shutdown = CancellationToken::new();
        let mailbox = Mailbox::default();
        Consumer {
            queue: MAILER_MAIL_REQUESTS.name,
            // The deployment's key, as the mailer has it: mail requests arrive sealed.
            db: db
                .clone()
                .with_sealing(SealingKey::from_service_token(&context.service_token)),
            bus: context.bus.clone(),
            handler: Arc::new(mailbox.clone()),
            retry: RetryPolicy::default(),
            concurrency: 1,
            yields: None,
        }
        .spawn(shutdown.clone());
        let context_bus = context.bus.clone();
        tokio::spawn(gatehouse_billing_webhook::SERVICE.run(context, listener, shutdown.clone()));
        let token = ServiceToken::new(TOKEN).unwrap();
        let channel = gatehouse_kit::client::lazy_channel(&url, &token).unwrap();
        Self {
            mailbox,
            client: IntakeServiceClient::new(channel.clone()),
            endpoints: EndpointServiceClient::new(channel.clone()),
            deliveries: DeliveryServiceClient::new(channel.clone()),
            customers: CustomerServiceClient::new(channel),
            db,
            bus: context_bus,
            shutdown,
            _database: database,
        }
    }

    /// Sends `request`, waiting for the part to listen.
    pub async fn receive(
        &self,
        request: pb::ReceiveRequest,
    ) -> Result<pb::ReceiveResponse, tonic::Status> {
        let mut client = self.client.clone();
        for _ in 0..100 {
            match client.receive(request.clone()).await {
                // Not listening yet (an answer from the part carries its error details).
                Err(status)
                    if status.code() == tonic::Code::Unavailable && status.details().is_empty() =>
                {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                other => return other.map(|r| r.into_inner()),
            }
        }
        panic!("the billing-webhook part did not start");
    }
}
