//! A real SMTP server process and a real mailer part for the tests.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use gatehouse_kit::bus::Message;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::Backend;
use gatehouse_kit::service::{Context, Part};
use gatehouse_kit::service_auth::ServiceToken;
use gatehouse_kit::testing::TestDb;
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{MailKind, MailRequested};
use gatehouse_proto::mailer::v1 as pb;
use gatehouse_proto::mailer::v1::mailbox_service_client::MailboxServiceClient;
use prost::Message as _;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;

pub const TOKEN: &str = "mailer-tests-service-token-0123456789";
pub const BASE_URL: &str = "https://auth.example.com";

/// The Python that has aiosmtpd: `SMTP_SINK_PYTHON`, else the venv scripts/test.sh makes.
fn python() -> String {
    std::env::var("SMTP_SINK_PYTHON").unwrap_or_else(|_| {
        let home = std::env::var("HOME").unwrap_or_default();
        format!("{home}/.cache/gatehouse-smtp-venv/bin/python")
    })
}

pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `smtp_sink.py` listening on `port`; the mails it accepted are files in `dir`.
pub struct SmtpSink {
    child: tokio::process::Child,
    pub dir: PathBuf,
}

impl SmtpSink {
    pub async fn start(port: u16, dir: PathBuf) -> Self {
        Self::start_with(port, dir, &[]).await
    }

    /// With `smtp_sink.py`'s options (`--starttls CERT KEY`, `--implicit-tls CERT KEY`,
    /// `--auth USER:PASSWORD`).
    pub async fn start_with(port: u16, dir: PathBuf, options: &[&str]) -> Self {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/smtp_sink.py");
        let mut child = tokio::process::Command::new(python())
            .args([script, &port.to_string(), &dir.display().to_string()])
            .args(options)
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start the SMTP server ({}; scripts/test.sh makes a venv with aiosmtpd): {e}", python())
            });
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let ready = tokio::time::timeout(Duration::from_secs(15), lines.next_line()).await;
        assert!(
            matches!(ready, Ok(Ok(Some(ref line))) if line == "ready"),
            "the SMTP server did not start ({ready:?}); is aiosmtpd installed for {}?",
            python()
        );
        Self { child, dir }
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }

    /// Every mail received so far, parsed, oldest first.
    pub fn received(&self) -> Vec<Received> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        paths.retain(|p| p.extension().is_some_and(|e| e == "eml"));
        paths.sort();
        paths
            .iter()
            .map(|p| Received::parse(&std::fs::read(p).unwrap()))
            .collect()
    }
}

#[derive(Debug, Clone)]
pub struct Received {
    pub to: String,
    pub from: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    pub message_id: String,
}

impl Received {
    fn parse(raw: &[u8]) -> Self {
        let message = mail_parser::MessageParser::default()
            .parse(raw)
            .expect("a MIME message");
        let address = |a: Option<&mail_parser::Address>| {
            a.and_then(|a| a.first())
                .and_then(|a| a.address())
                .unwrap_or_default()
                .to_string()
        };
        Self {
            to: address(message.to()),
            from: address(message.from()),
            subject: message.subject().unwrap_or_default().to_string(),
            text: message.body_text(0).unwrap_or_default().to_string(),
            html: message.body_html(0).unwrap_or_default().to_string(),
            message_id: message.message_id().unwrap_or_default().to_string(),
        }
    }
}

/// A mailer part on its own database, sending to `mail_url`.
pub struct Mailer {
    pub context: Context,
    pub client: MailboxServiceClient<gatehouse_kit::client::ServiceChannel>,
    shutdown: CancellationToken,
    _database: TestDb,
}

impl Drop for Mailer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl Mailer {
    pub async fn start(backend: Backend, mail_url: &str) -> Self {
        Self::start_with(backend, mail_url, &[]).await
    }

    pub async fn start_with(backend: Backend, mail_url: &str, extra: &[(&str, &str)]) -> Self {
        let database = TestDb::new(backend).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let env = Env::from_pairs(
            [
                ("MAILER_DATABASE_URL", database.url.as_str()),
                ("SERVICE_TOKEN", TOKEN),
                ("MAIL_URL", mail_url),
                ("MAIL_FROM", "Gatehouse Tests <no-reply@gatehouse.test>"),
                ("BASE_URL", BASE_URL),
                ("MAIL_RETRY_MAX_DELAY", "1"),
            ]
            .into_iter()
            .chain(extra.iter().copied()),
        );
        let context = Context::from_env(env).unwrap();
        let shutdown = CancellationToken::new();
        tokio::spawn(gatehouse_mailer::SERVICE.run(context.clone(), listener, shutdown.clone()));
        let token = ServiceToken::new(TOKEN).unwrap();
        let client =
            MailboxServiceClient::new(gatehouse_kit::client::lazy_channel(&url, &token).unwrap());
        Self {
            context,
            client,
            shutdown,
            _database: database,
        }
    }

    /// Publishes a `mail.requested` as identity's outbox would; returns the event (mail) id.
    pub async fn request(&self, request: MailRequested) -> String {
        let id = gatehouse_kit::ids::new_id();
        let message = Message {
            id: id.clone(),
            topic: MailRequested::TOPIC.into(),
            payload: request.encode_to_vec(),
            headers: Default::default(),
        };
        // The part declares its queue as it starts; until then the bus has nowhere to put it.
        for _ in 0..100 {
            if self.context.bus.publish(&message).await.is_ok() {
                return id;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the mail request could not be published");
    }

    pub async fn mails(&self, status: pb::MailStatus) -> Vec<pb::Mail> {
        let mut client = self.client.clone();
        for _ in 0..100 {
            if let Ok(reply) = client
                .list_mails(pb::ListMailsRequest {
                    limit: 100,
                    recipient: String::new(),
                    status: status.into(),
                })
                .await
            {
                return reply.into_inner().mails;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the mailbox service did not answer");
    }

    /// Waits until `n` mails are in `status`.
    pub async fn wait_for(
        &self,
        status: pb::MailStatus,
        n: usize,
        within: Duration,
    ) -> Vec<pb::Mail> {
        let found = gatehouse_kit::testing::eventually(within, || async {
            let mails = self.mails(status).await;
            (mails.len() >= n).then_some(mails)
        })
        .await;
        match found {
            Some(mails) => mails,
            None => panic!(
                "{n} mails not {status:?} within {within:?}; the log: {:#?}",
                self.mails(pb::MailStatus::Unspecified).await
            ),
        }
    }
}

pub fn reset_password(to: &str, name: &str, token: &str) -> MailRequested {
    MailRequested {
        kind: MailKind::ResetPassword.into(),
        to: to.into(),
        name: name.into(),
        language: 3,
        link_path: format!("/api/auth/reset-password/{token}?callbackURL=%2Freset-password"),
        expires_in_seconds: 3600,
        params: Default::default(),
        user_id: "user-1".into(),
    }
}

/// A private CA and a server certificate it signed for 127.0.0.1 and localhost, made by
/// `openssl`: `(ca, cert, key)` PEM paths. The mailer trusts the CA through `MAIL_TLS_CA_FILE`.
pub fn private_ca_and_certificate(dir: &std::path::Path) -> (String, String, String) {
    std::fs::create_dir_all(dir).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl (Debian's openssl package) makes the test certificates");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::fs::write(
        path("leaf.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    let (ca, ca_key, cert, key, csr) = (
        path("ca.pem"),
        path("ca.key"),
        path("cert.pem"),
        path("key.pem"),
        path("leaf.csr"),
    );
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=Gatehouse Test CA",
        "-keyout",
        &ca_key,
        "-out",
        &ca,
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-keyout",
        &key,
        "-out",
        &csr,
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        &csr,
        "-CA",
        &ca,
        "-CAkey",
        &ca_key,
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        &path("leaf.ext"),
        "-out",
        &cert,
    ]);
    (ca, cert, key)
}
