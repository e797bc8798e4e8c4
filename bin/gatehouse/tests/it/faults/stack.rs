//! Distributed mode as the fault suite plays it: one process of the `gatehouse` binary per
//! part, each on its own port so that it can be killed and started again, on a PostgreSQL
//! cluster of the suite's own, with Redis and RabbitMQ (a virtual host of its own) behind
//! cuttable proxies, a real SMTP server process and a seller's receiver.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_kit::testing::ToggleProxy;
use tokio::process::{Child, Command};

use super::cluster::PgCluster;

/// Every part as `gatehouse parts` lists it, the services first and the gateway last (the
/// order they are killed in).
pub fn parts() -> Vec<gatehouse::Placement> {
    let mut all = gatehouse::placements();
    all.rotate_left(1);
    all
}

pub const POLAR_SECRET: &str = "whsec_ZmF1bHQgc3VpdGUgc2VjcmV0IGZvciB0aGUgaW50YWtl";
/// Mails in flight at once: what one crash of the mailer may send twice, at most.
pub const MAIL_CONCURRENCY: usize = 2;
/// Seconds: long enough to outlast the receiver's outage.
pub const RETRY_SCHEDULE: [f64; 6] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
pub const SCHEDULER_TICK_MS: u64 = 250;

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One part's process, started again with the same settings after a kill.
pub struct Part {
    pub name: &'static str,
    pub port: u16,
    env: Vec<(String, String)>,
    child: Option<Child>,
    log: PathBuf,
}

impl Part {
    fn spawn(&mut self) {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_gatehouse"));
        command
            .arg(self.name)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::from(file.try_clone().unwrap()))
            .stderr(Stdio::from(file))
            .kill_on_drop(true);
        self.child = Some(command.spawn().expect("spawn gatehouse"));
    }

    /// SIGKILL: nothing is drained, nothing finished.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.start_kill().unwrap();
            let _ = child.wait().await;
        }
    }

    /// Started again; `Ok` once its port accepts connections.
    pub async fn restart(&mut self) {
        self.spawn();
        self.wait_listening().await;
    }

    pub async fn wait_listening(&self) {
        for _ in 0..300 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{} did not listen again:\n{}", self.name, self.log());
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Part {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.log);
    }
}

/// A seller's endpoint: records the `data.id` of every event it accepts; while `down` it
/// answers 503.
#[derive(Clone, Default)]
pub struct Receiver {
    pub down: Arc<AtomicBool>,
    pub received: Arc<Mutex<Vec<String>>>,
}

impl Receiver {
    pub async fn serve(&self) -> String {
        use axum::http::StatusCode;
        let receiver = self.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |body: axum::body::Bytes| {
                let receiver = receiver.clone();
                async move {
                    if receiver.down.load(Ordering::SeqCst) {
                        return StatusCode::SERVICE_UNAVAILABLE;
                    }
                    let event: serde_json::Value =
                        serde_json::from_slice(&body).unwrap_or_default();
                    if let Some(id) = event["data"]["id"].as_str() {
                        receiver.received.lock().unwrap().push(id.to_string());
                    }
                    StatusCode::OK
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }
}

/// A RabbitMQ virtual host of the suite's own: no queue of another suite's run is shared.
pub struct Vhost(pub String);

fn rabbitmqctl(args: &[&str]) {
    let out = std::process::Command::new("rabbitmqctl")
        .args(args)
        .output()
        .expect("rabbitmqctl (the fault suite makes a RabbitMQ virtual host of its own)");
    assert!(
        out.status.success(),
        "rabbitmqctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Vhost {
    pub fn create() -> Self {
        let name = format!(
            "gatehouse-faults-{}",
            gatehouse_kit::ids::random_alphanumeric(8).to_lowercase()
        );
        rabbitmqctl(&["add_vhost", &name]);
        rabbitmqctl(&["set_permissions", "-p", &name, "guest", ".*", ".*", ".*"]);
        Self(name)
    }
}

impl Drop for Vhost {
    fn drop(&mut self) {
        let _ = std::process::Command::new("rabbitmqctl")
            .args(["delete_vhost", &self.0])
            .output();
    }
}

/// `smtp_sink.py` (the mailer's tests' real SMTP server), writing what it accepts to `dir`.
pub struct SmtpSink {
    _child: Child,
    pub dir: PathBuf,
    pub port: u16,
}

impl SmtpSink {
    pub async fn start() -> Self {
        use tokio::io::AsyncBufReadExt as _;
        let python = std::env::var("SMTP_SINK_PYTHON").unwrap_or_else(|_| {
            format!(
                "{}/.cache/gatehouse-smtp-venv/bin/python",
                std::env::var("HOME").unwrap_or_default()
            )
        });
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../services/mailer/tests/smtp_sink.py"
        );
        let port = free_port();
        let dir = std::env::temp_dir().join(format!(
            "gatehouse-faults-mail-{}",
            gatehouse_kit::ids::random_alphanumeric(8)
        ));
        let mut child = Command::new(&python)
            .args([script, &port.to_string(), &dir.display().to_string()])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("the SMTP server ({python}, with aiosmtpd): {e}"));
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = tokio::time::timeout(Duration::from_secs(15), lines.next_line()).await;
        assert!(
            matches!(ready, Ok(Ok(Some(ref line))) if line == "ready"),
            "the SMTP server did not start: {ready:?}"
        );
        Self {
            _child: child,
            dir,
            port,
        }
    }

    /// Every mail accepted so far: (recipient, Message-ID).
    pub fn received(&self) -> Vec<(String, String)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|e| e == "eml"))
            .filter_map(|path| std::fs::read(path).ok())
            .filter_map(|raw| {
                let message = mail_parser::MessageParser::default().parse(&raw)?;
                let to = message.to()?.first()?.address()?.to_string();
                Some((to, message.message_id()?.to_string()))
            })
            .collect()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub struct Stack {
    pub parts: Vec<Part>,
    pub api: String,
    pub origin: String,
    pub pg: PgCluster,
    pub broker: ToggleProxy,
    pub redis: ToggleProxy,
    pub smtp: SmtpSink,
    _vhost: Vhost,
}

impl Stack {
    pub async fn start() -> Self {
        let pg = PgCluster::start(free_port());
        let placements = parts();
        // A service's database is named after it (`billing_webhook` for `billing-webhook`).
        let database = |name: &str| name.replace('-', "_");
        let databases: Vec<String> = placements
            .iter()
            .filter(|part| part.database_url_var.is_some())
            .map(|part| database(part.name))
            .collect();
        pg.create_databases(&databases.iter().map(String::as_str).collect::<Vec<_>>())
            .await;
        let vhost = Vhost::create();
        let broker = ToggleProxy::start("127.0.0.1:5672").await;
        let redis = ToggleProxy::start("127.0.0.1:6379").await;
        let smtp = SmtpSink::start().await;
        let ports: HashMap<&str, u16> = placements
            .iter()
            .map(|part| (part.name, free_port()))
            .collect();
        let url = |part: &str| format!("http://127.0.0.1:{}", ports[part]);
        let origin = format!("http://localhost:{}", ports["gateway"]);
        // Every part is told where every service is; each reads the addresses it needs.
        let addresses: Vec<(String, String)> = placements
            .iter()
            .filter_map(|part| Some((part.url_var.clone()?, url(part.name))))
            .collect();
        let shared = [
            (
                "SERVICE_TOKEN",
                "fault-suite-service-token-0123456789abcdef".to_string(),
            ),
            (
                "AUTH_SECRET",
                "fault-suite-auth-secret-0123456789abcdef".to_string(),
            ),
            ("CACHE_URL", format!("redis://{}", redis.addr)),
            (
                "BUS_URL",
                format!("amqp://guest:guest@{}/{}", broker.addr, vhost.0),
            ),
            ("RUST_LOG", "warn".to_string()),
            ("BASE_URL", origin.clone()),
        ];
        let own: HashMap<&str, Vec<(&str, String)>> = HashMap::from([
            ("identity", vec![("HASH_POOL_SIZE", "2".to_string())]),
            (
                "mailer",
                vec![
                    ("MAIL_URL", format!("smtp://127.0.0.1:{}", smtp.port)),
                    ("MAIL_CONCURRENCY", MAIL_CONCURRENCY.to_string()),
                    ("MAIL_RETRY_MAX_DELAY", "1".to_string()),
                ],
            ),
            (
                "billing-webhook",
                vec![
                    ("POLAR_WEBHOOK_SECRET", POLAR_SECRET.to_string()),
                    (
                        "BILLING_WEBHOOK_ALLOWED_NETWORKS",
                        "127.0.0.0/8".to_string(),
                    ),
                    (
                        "BILLING_WEBHOOK_RETRY_SCHEDULE",
                        RETRY_SCHEDULE.map(|s| s.to_string()).join(","),
                    ),
                    (
                        "BILLING_WEBHOOK_SCHEDULER_TICK_MS",
                        SCHEDULER_TICK_MS.to_string(),
                    ),
                ],
            ),
            (
                "gateway",
                vec![
                    ("RATE_LIMIT_MAX", "1000000".to_string()),
                    ("RATE_LIMIT_SIGN_IN_MAX", "1000000".to_string()),
                    ("RATE_LIMIT_EMAIL_MAX", "1000000".to_string()),
                ],
            ),
        ]);
        let mut parts: Vec<Part> = placements
            .iter()
            .map(|placement| {
                let name = placement.name;
                let mut env: Vec<(String, String)> = shared
                    .iter()
                    .chain(own.get(name).into_iter().flatten())
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .chain(addresses.iter().cloned())
                    .collect();
                env.push((
                    placement.listen_var.clone(),
                    format!("127.0.0.1:{}", ports[name]),
                ));
                env.push((placement.ops_listen_var.clone(), "127.0.0.1:0".to_string()));
                if let Some(var) = &placement.database_url_var {
                    env.push((var.clone(), pg.url(&database(name))));
                }
                Part {
                    name,
                    port: ports[name],
                    env,
                    child: None,
                    log: std::env::temp_dir().join(format!(
                        "gatehouse-faults-{name}-{}.log",
                        gatehouse_kit::ids::new_id()
                    )),
                }
            })
            .collect();
        for part in &mut parts {
            part.spawn();
        }
        for part in &parts {
            part.wait_listening().await;
        }
        Self {
            api: format!("http://127.0.0.1:{}/api", ports["gateway"]),
            origin,
            parts,
            pg,
            broker,
            redis,
            smtp,
            _vhost: vhost,
        }
    }

    pub fn part(&mut self, name: &str) -> &mut Part {
        self.parts
            .iter_mut()
            .find(|part| part.name == name)
            .unwrap_or_else(|| panic!("no part {name}"))
    }

    /// Every part's log, for a failure's message.
    pub fn logs(&self) -> String {
        self.parts
            .iter()
            .map(|part| format!("--- {} ---\n{}", part.name, part.log()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}
