//! Where mail goes: an SMTP server (lettre's pooled async transport: STARTTLS, implicit TLS,
//! authentication, all from `MAIL_URL`) or, in standalone mode, one `.eml` file per mail in a
//! folder (lettre's file transport). Failures are sorted once, here, into those worth another
//! attempt and those that will never succeed.

use lettre::transport::smtp::PoolConfig;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use gatehouse_kit::config::SecretUrl;

#[derive(Clone)]
pub enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    File(AsyncFileTransport<Tokio1Executor>),
}

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("MAIL_URL {url}: {reason}")]
    Config { url: String, reason: String },
}

/// Why an attempt failed, and whether another could succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendError {
    /// The server is unreachable, busy or answered 4xx: try again later.
    Transient(String),
    /// The server answered 5xx (no such mailbox, refused sender …) or the mail cannot be built.
    Permanent(String),
}

/// The TLS mode `url` asks for (`smtps://` implicit, `?tls=required|opportunistic` STARTTLS),
/// trusting `pem` as well as the public roots.
fn tls_with_ca(url: &str, pem: &[u8]) -> Result<Tls, String> {
    let parsed = url::Url::parse(url).map_err(|_| "not a valid URL".to_string())?;
    let host = parsed.host_str().ok_or("no host")?.to_string();
    let ca = Certificate::from_pem(pem).map_err(|e| format!("MAIL_TLS_CA_FILE: {e}"))?;
    let parameters = TlsParameters::builder(host)
        .add_root_certificate(ca)
        .build_rustls()
        .map_err(|e| format!("TLS: {e}"))?;
    let mode = parsed
        .query_pairs()
        .find(|(k, _)| k == "tls")
        .map(|(_, v)| v.into_owned());
    Ok(match (parsed.scheme(), mode.as_deref()) {
        ("smtps", _) => Tls::Wrapper(parameters),
        (_, Some("required")) => Tls::Required(parameters),
        (_, Some("opportunistic")) => Tls::Opportunistic(parameters),
        _ => Tls::None,
    })
}

impl Transport {
    /// Must run inside the Tokio runtime (the SMTP pool spawns its reaper). `ca_pem` is the
    /// private CA that signed the server's certificate (`MAIL_TLS_CA_FILE`), trusted on top of
    /// the public roots.
    pub fn from_url(
        url: &SecretUrl,
        concurrency: usize,
        ca_pem: Option<&[u8]>,
    ) -> Result<Self, TransportError> {
        let raw = url.expose();
        let invalid = |reason: String| TransportError::Config {
            url: url.to_string(),
            reason,
        };
        if let Some(dir) = raw.strip_prefix("file://") {
            std::fs::create_dir_all(dir).map_err(|e| invalid(e.to_string()))?;
            return Ok(Transport::File(AsyncFileTransport::new(dir)));
        }
        let pool = PoolConfig::new().max_size(u32::try_from(concurrency).unwrap_or(u32::MAX));
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(raw)
            // lettre's own message repeats the URL, password included: say what is wrong only.
            .map_err(|_| invalid("not a valid smtp:// or smtps:// URL".into()))?
            .pool_config(pool);
        if let Some(pem) = ca_pem {
            builder = builder.tls(tls_with_ca(raw, pem).map_err(invalid)?);
        }
        Ok(Transport::Smtp(builder.build()))
    }

    pub async fn send(&self, message: Message) -> Result<(), SendError> {
        match self {
            Transport::Smtp(smtp) => smtp.send(message).await.map(drop).map_err(|error| {
                if error.is_permanent() {
                    SendError::Permanent(error.to_string())
                } else {
                    // 4xx, timeouts, refused connections, TLS trouble: the server may recover.
                    SendError::Transient(error.to_string())
                }
            }),
            Transport::File(file) => file
                .send(message)
                .await
                .map(drop)
                .map_err(|error| SendError::Transient(error.to_string())),
        }
    }

    pub fn describe(&self) -> &'static str {
        match self {
            Transport::Smtp(_) => "smtp",
            Transport::File(_) => "file",
        }
    }
}
