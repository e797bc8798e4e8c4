//! A whole Gatehouse stack in the test process (standalone wiring: real gRPC over loopback),
//! plus an HTTP client that speaks to it like a browser would.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::Db;
use gatehouse_proto::events::v1::UserCreated;
use lapin::options::{
    BasicConsumeOptions, ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions,
};
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties, ExchangeKind};
use prost::Message as _;
use reqwest::header::{HeaderMap, SET_COOKIE};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub const PASSWORD: &str = "Correct-Horse-9";
pub const RABBITMQ: &str = "127.0.0.1:5672";

pub struct Stack {
    pub base: String,
    pub identity_addr: std::net::SocketAddr,
    pub session_addr: std::net::SocketAddr,
    pub organization_addr: std::net::SocketAddr,
    /// Metrics and health.
    pub ops_addr: std::net::SocketAddr,
    /// What calls to the services must carry.
    pub service_token: gatehouse_kit::service_auth::ServiceToken,
    pub origin: String,
    pub data_dir: String,
    pub shutdown: CancellationToken,
    pub http: reqwest::Client,
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.shutdown.cancel();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// Every part's listeners on a free loopback port (`IDENTITY_LISTEN=127.0.0.1:0`, …), so
/// stacks run side by side.
pub fn any_free_port() -> Vec<(String, String)> {
    gatehouse::placements()
        .into_iter()
        .flat_map(|part| [part.listen_var, part.ops_listen_var])
        .map(|var| (var, "127.0.0.1:0".to_string()))
        .collect()
}

pub fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl Stack {
    /// Starts a stack; `extra` overrides settings (rate limits are raised unless overridden).
    pub async fn start(extra: &[(&str, &str)]) -> Stack {
        install_crypto();
        let data_dir = std::env::temp_dir()
            .join(format!("gatehouse-e2e-{}", gatehouse_kit::ids::new_id()))
            .display()
            .to_string();
        let mut vars: HashMap<String, String> = [
            ("DATA_DIR", data_dir.as_str()),
            ("RATE_LIMIT_MAX", "100000"),
            ("RATE_LIMIT_SIGN_IN_MAX", "100000"),
            ("RATE_LIMIT_EMAIL_MAX", "100000"),
            ("HASH_POOL_SIZE", "2"),
            // The tests read the mails they cause, as a developer would in the web app.
            ("DEV_MAILBOX", "true"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain(any_free_port())
        .collect();
        for (k, v) in extra {
            vars.insert(k.to_string(), v.to_string());
        }
        let _ = gatehouse_kit::telemetry::init("test", &Env::from_pairs([("RUST_LOG", "warn")]));
        let shutdown = CancellationToken::new();
        // The base URL must name the port the gateway really gets, so the port is picked here.
        // Another test may take it between that pick and the gateway's bind: pick again then.
        let mut attempts = 0;
        let (running, origin) = loop {
            attempts += 1;
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .unwrap()
                .port();
            let mut vars = vars.clone();
            vars.insert("GATEWAY_LISTEN".into(), format!("127.0.0.1:{port}"));
            vars.entry("BASE_URL".into())
                .or_insert_with(|| format!("http://localhost:{port}"));
            let origin = vars["BASE_URL"].trim_end_matches('/').to_string();
            match gatehouse::standalone::start(&Env::from_pairs(vars), shutdown.clone()).await {
                Ok(running) => break (running, origin),
                Err(gatehouse::standalone::StandaloneError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::AddrInUse && attempts < 5 => {}
                Err(e) => panic!("standalone stack starts: {e:?}"),
            }
        };
        let base = format!("http://{}/api/auth", running.gateway_addr);
        let (identity_addr, session_addr) = (running.addr("identity"), running.addr("session"));
        let organization_addr = running.addr("organization");
        let (ops_addr, service_token) = (running.ops_addr, running.service_token.clone());
        tokio::spawn(running.wait());
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let stack = Stack {
            base,
            identity_addr,
            session_addr,
            organization_addr,
            ops_addr,
            service_token,
            origin,
            data_dir,
            shutdown,
            http,
        };
        stack.wait_ready().await;
        stack
    }

    /// Until the gateway answers and every service reports serving (migrations done).
    async fn wait_ready(&self) {
        use tonic_health::pb::health_client::HealthClient;
        use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};
        let ops = tonic::transport::Endpoint::from_shared(format!("http://{}", self.ops_addr))
            .unwrap()
            .connect_lazy();
        let mut health = HealthClient::new(ops);
        for _ in 0..200 {
            let gateway = self.http.get(format!("{}/ok", self.base)).send().await;
            let mut serving = gateway.is_ok_and(|r| r.status() == 200);
            for service in [
                "gatehouse.identity.v1.UserService",
                "gatehouse.session.v1.SessionService",
            ] {
                let request = HealthCheckRequest {
                    service: service.into(),
                };
                serving &= health
                    .check(request)
                    .await
                    .is_ok_and(|reply| reply.into_inner().status == ServingStatus::Serving as i32);
            }
            if serving {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the stack did not become ready");
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A JSON POST as the official client sends it from the app's own origin.
    pub async fn post(&self, path: &str, body: serde_json::Value, cookie: Option<&str>) -> Reply {
        let mut request = self
            .http
            .post(self.url(path))
            .header("origin", &self.origin)
            .json(&body);
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        Reply::from(request.send().await.expect("request")).await
    }

    pub async fn get(&self, path: &str, cookie: Option<&str>) -> Reply {
        let mut request = self.http.get(self.url(path));
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        Reply::from(request.send().await.expect("request")).await
    }

    pub async fn sign_up(&self, email: &str) -> Reply {
        let reply = self
            .post(
                "/sign-up/email",
                serde_json::json!({"name": "Test User", "email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(reply.status, 200, "sign-up: {}", reply.text);
        reply
    }

    pub async fn identity_db(&self) -> Db {
        let url = format!("sqlite://{}/identity.sqlite", self.data_dir);
        Db::connect(&url, 1, &gatehouse_identity::MIGRATIONS)
            .await
            .unwrap()
    }

    pub async fn session_db(&self) -> Db {
        let url = format!("sqlite://{}/session.sqlite", self.data_dir);
        Db::connect(&url, 1, &gatehouse_session::MIGRATIONS)
            .await
            .unwrap()
    }
}

pub fn unique_email() -> String {
    format!(
        "user-{}@example.com",
        gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
    )
}

pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Reply {
    pub async fn from(response: reqwest::Response) -> Reply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap_or_default();
        Reply {
            status,
            headers,
            text,
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.text))
    }

    pub fn set_cookies(&self) -> Vec<String> {
        self.headers
            .get_all(SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect()
    }

    /// The full Set-Cookie line for a cookie name.
    pub fn set_cookie(&self, name: &str) -> Option<String> {
        self.set_cookies()
            .into_iter()
            .find(|c| c.starts_with(&format!("{name}=")))
    }

    /// A `Cookie` header carrying every non-empty cookie this reply set.
    pub fn cookie_header(&self) -> String {
        self.set_cookies()
            .iter()
            .filter_map(|c| c.split(';').next())
            .filter(|pair| !pair.ends_with('='))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// `{message, code}` of an error reply.
    pub fn error(&self) -> (String, String) {
        let body = self.json();
        (
            body["code"].as_str().unwrap_or_default().to_string(),
            body["message"].as_str().unwrap_or_default().to_string(),
        )
    }
}

/// Every `user.created` event (its protobuf payload decoded), read straight from RabbitMQ (not
/// through the proxy).
pub async fn user_created_events() -> mpsc::UnboundedReceiver<(UserCreated, lapin::BasicProperties)>
{
    let connection = Connection::connect(
        &format!("amqp://guest:guest@{RABBITMQ}/%2f"),
        ConnectionProperties::default(),
    )
    .await
    .expect("RabbitMQ is required for this test (127.0.0.1:5672)");
    let channel = connection.create_channel().await.unwrap();
    channel
        .exchange_declare(
            gatehouse_kit::bus::EXCHANGE.into(),
            ExchangeKind::Topic,
            ExchangeDeclareOptions {
                durable: true,
                ..Default::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    let queue = channel
        .queue_declare(
            "".into(),
            QueueDeclareOptions {
                exclusive: true,
                auto_delete: true,
                ..Default::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    channel
        .queue_bind(
            queue.name().clone(),
            gatehouse_kit::bus::EXCHANGE.into(),
            "user.created".into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
    let mut consumer = channel
        .basic_consume(
            queue.name().clone(),
            "test".into(),
            BasicConsumeOptions {
                no_ack: true,
                ..Default::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let _keep = connection;
        while let Some(Ok(delivery)) = consumer.next().await {
            let body = UserCreated::decode(delivery.data.as_slice()).unwrap_or_default();
            if tx.send((body, delivery.properties.clone())).is_err() {
                break;
            }
        }
    });
    rx
}

pub async fn wait_for_user(
    events: &mut mpsc::UnboundedReceiver<(UserCreated, lapin::BasicProperties)>,
    user_id: &str,
    within: Duration,
) -> Option<(UserCreated, lapin::BasicProperties)> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let left = deadline.checked_duration_since(tokio::time::Instant::now())?;
        match tokio::time::timeout(left, events.recv()).await {
            Ok(Some((body, props))) if body.user_id == user_id => return Some((body, props)),
            Ok(Some(_)) => continue,
            _ => return None,
        }
    }
}
