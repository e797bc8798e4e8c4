//! The traffic the fault suite keeps up while it breaks things: users signing up, signing in,
//! reading their session and asking for password resets, and the payments platform sending
//! webhooks. Every answer is checked as it comes: while a part is down a request may be told
//! 503, never anything else (a 401 to a right password, a 500, a signed-in session read as
//! none); only while the gateway itself is down may a request find nobody listening.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use hmac::{KeyInit, Mac};
use serde_json::json;
use tokio::task::JoinHandle;

use super::stack::POLAR_SECRET;
use crate::common::PASSWORD;

/// What the traffic met, and what it was told was done (and so must not be lost).
#[derive(Default)]
pub struct Record {
    /// `"<route> <status>"` → how many.
    pub answers: Mutex<BTreeMap<String, usize>>,
    pub violations: Mutex<Vec<String>>,
    /// Users whose sign-up was answered 200.
    pub users: Mutex<Vec<String>>,
    /// Addresses whose password reset was answered 200: each is owed one mail.
    pub resets: Mutex<Vec<String>>,
    /// The `data.id` of every webhook acknowledged (stored): each is owed a delivery.
    pub webhooks: Mutex<Vec<String>>,
}

impl Record {
    fn count(&self, route: &str, answer: &str) {
        *self
            .answers
            .lock()
            .unwrap()
            .entry(format!("{route} {answer}"))
            .or_default() += 1;
    }

    fn violation(&self, what: String) {
        self.violations.lock().unwrap().push(what);
    }

    pub fn answered(&self, route: &str, status: u16) -> usize {
        self.answers
            .lock()
            .unwrap()
            .get(&format!("{route} {status}"))
            .copied()
            .unwrap_or(0)
    }
}

pub struct Load {
    pub record: Arc<Record>,
    stop: Arc<AtomicBool>,
    gateway_down: Arc<AtomicBool>,
    tasks: Vec<JoinHandle<()>>,
}

struct Client {
    http: reqwest::Client,
    api: String,
    origin: String,
    record: Arc<Record>,
    gateway_down: Arc<AtomicBool>,
}

struct Answer {
    status: u16,
    cookie: Option<String>,
    body: serde_json::Value,
}

impl Client {
    /// Sends the request and checks the answer against `allowed` (503 always is).
    async fn call(
        &self,
        route: &str,
        request: reqwest::RequestBuilder,
        allowed: &[u16],
    ) -> Option<Answer> {
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                let down = self.gateway_down.load(Ordering::SeqCst);
                self.record
                    .count(route, if down { "unreachable" } else { "error" });
                if !down {
                    self.record.violation(format!(
                        "{route}: no answer while the gateway was up: {error}"
                    ));
                }
                return None;
            }
        };
        let status = response.status().as_u16();
        self.record.count(route, &status.to_string());
        let cookie = response
            .headers()
            .get_all(reqwest::header::SET_COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .find(|value| value.contains("session_token="))
            .and_then(|value| value.split(';').next())
            .map(str::to_string);
        let text = response.text().await.unwrap_or_default();
        if status != 503 && !allowed.contains(&status) {
            self.record
                .violation(format!("{route}: answered {status}: {text}"));
        }
        let body = serde_json::from_str(&text).unwrap_or_default();
        Some(Answer {
            status,
            cookie,
            body,
        })
    }

    fn post(&self, path: &str, body: serde_json::Value) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}{path}", self.api))
            .header("origin", &self.origin)
            .json(&body)
    }

    /// One user's round: sign up, sign in, read the session, and every other time ask for a
    /// password reset.
    async fn user_round(&self, round: usize) {
        let email = format!(
            "fault-{}@example.com",
            gatehouse_kit::ids::random_alphanumeric(12).to_lowercase()
        );
        let signed_up = self
            .call(
                "sign-up",
                self.post(
                    "/auth/sign-up/email",
                    json!({"name": "Fay", "email": email, "password": PASSWORD}),
                ),
                &[200],
            )
            .await;
        if signed_up.is_none_or(|answer| answer.status != 200) {
            // A part is down: as a client would, wait a moment before trying again.
            tokio::time::sleep(Duration::from_millis(100)).await;
            return;
        }
        self.record.users.lock().unwrap().push(email.clone());
        let signed_in = self
            .call(
                "sign-in",
                self.post(
                    "/auth/sign-in/email",
                    json!({"email": email, "password": PASSWORD}),
                ),
                &[200],
            )
            .await;
        if let Some(cookie) = signed_in.and_then(|answer| answer.cookie) {
            let session = self
                .call(
                    "get-session",
                    self.http
                        .get(format!("{}/auth/get-session", self.api))
                        .header("cookie", cookie),
                    &[200],
                )
                .await;
            if let Some(session) = session.filter(|answer| answer.status == 200)
                && session.body["session"].is_null()
            {
                self.record.violation(format!(
                    "get-session: a signed-in session read as none ({email})"
                ));
            }
        }
        if round.is_multiple_of(2) {
            let reset = self
                .call(
                    "request-password-reset",
                    self.post("/auth/request-password-reset", json!({"email": email})),
                    &[200],
                )
                .await;
            if reset.is_some_and(|answer| answer.status == 200) {
                self.record.resets.lock().unwrap().push(email);
            }
        }
    }

    /// The payments platform sends one `order.paid` for `organization_id`.
    async fn webhook(&self, organization_id: &str, template: &serde_json::Value) {
        let suffix = gatehouse_kit::ids::random_alphanumeric(12);
        let mut event = template.clone();
        event["data"]["id"] = json!(format!("ord_fault_{suffix}"));
        event["data"]["metadata"]["referenceId"] = json!(organization_id);
        let body = serde_json::to_vec(&event).unwrap();
        let id = format!("msg_fault_{suffix}");
        let timestamp = chrono::Utc::now().timestamp();
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(POLAR_SECRET.as_bytes()).unwrap();
        mac.update(format!("{id}.{timestamp}.").as_bytes());
        mac.update(&body);
        let signature = format!(
            "v1,{}",
            base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
        );
        let request = self
            .http
            .post(format!("{}/billing/webhooks", self.api))
            .header("content-type", "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body);
        if let Some(answer) = self.call("webhook", request, &[202]).await
            && answer.status == 202
        {
            self.record
                .webhooks
                .lock()
                .unwrap()
                .push(format!("ord_fault_{suffix}"));
        }
    }
}

impl Load {
    /// `users` clients doing user rounds back to back, and one sending a webhook every
    /// 100 ms for `organization_id`.
    pub fn start(api: &str, origin: &str, users: usize, organization_id: &str) -> Self {
        let record = Arc::new(Record::default());
        let stop = Arc::new(AtomicBool::new(false));
        let gateway_down = Arc::new(AtomicBool::new(false));
        let client = || {
            Arc::new(Client {
                http: reqwest::Client::builder()
                    .timeout(Duration::from_secs(20))
                    .build()
                    .unwrap(),
                api: api.to_string(),
                origin: origin.to_string(),
                record: record.clone(),
                gateway_down: gateway_down.clone(),
            })
        };
        let mut tasks = Vec::new();
        for _ in 0..users {
            let (client, stop) = (client(), stop.clone());
            tasks.push(tokio::spawn(async move {
                let mut round = 0;
                while !stop.load(Ordering::SeqCst) {
                    client.user_round(round).await;
                    round += 1;
                }
            }));
        }
        let (client, stop_sending) = (client(), stop.clone());
        let organization_id = organization_id.to_string();
        tasks.push(tokio::spawn(async move {
            let template: serde_json::Value =
                serde_json::from_slice(&crate::faults::fixture("order.paid")).unwrap();
            while !stop_sending.load(Ordering::SeqCst) {
                client.webhook(&organization_id, &template).await;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
        Self {
            record,
            stop,
            gateway_down,
            tasks,
        }
    }

    /// While set, a request that finds nobody listening is expected.
    pub fn gateway_down(&self, down: bool) {
        self.gateway_down.store(down, Ordering::SeqCst);
    }

    pub async fn stop(self) -> Arc<Record> {
        self.stop.store(true, Ordering::SeqCst);
        for task in self.tasks {
            task.await.unwrap();
        }
        self.record
    }
}
