//! The mailer's settings (every one documented in the README). Its database and listener are
//! kit's shared settings (`MAILER_DATABASE_URL`, `MAILER_LISTEN`).

use std::time::Duration;

use gatehouse_kit::config::{ConfigError, Env, SecretUrl};
use lettre::message::Mailbox;
use serde::Deserialize;

#[derive(Clone, Debug)]
pub struct MailerConfig {
    /// `MAIL_URL` (default `file://$DATA_DIR/mail`): where mail goes. `smtp://[user:pass@]host
    /// [:port][?tls=required|opportunistic]` (STARTTLS), `smtps://…` (implicit TLS) or
    /// `file:///dir` (one `.eml` file per mail).
    pub mail_url: SecretUrl,
    /// `MAIL_FROM` (default `Gatehouse <no-reply@localhost>`).
    pub from: Mailbox,
    /// `BASE_URL`: every link in a mail is this origin plus the requested path.
    pub base_url: url::Url,
    /// `MAIL_CONCURRENCY` (default 16): mails in flight at once (and SMTP connections pooled).
    pub concurrency: usize,
    /// `MAIL_GIVE_UP_AFTER` (default 86400 s): a mail still not accepted this long after it
    /// was requested is marked failed (dead-lettered) instead of tried again.
    pub give_up_after: Duration,
    /// `MAIL_RETRY_MAX_DELAY` (default 300 s): the longest wait between attempts; the waits
    /// start at 1 s and double.
    pub retry_max_delay: Duration,
    /// `MAIL_TLS_CA_FILE`: the PEM certificate(s) of a private CA that signed the SMTP
    /// server's certificate, trusted on top of the public roots.
    pub tls_ca_file: Option<String>,
    /// How often the delivery loop looks for due mail when nothing woke it.
    pub poll_interval: Duration,
    /// How long a claimed mail is this mailer's alone; renewed while it is being sent, so a
    /// mailer that died leaves its claimed mails to the others within this.
    pub claim_lease: Duration,
}

#[derive(Deserialize)]
#[serde(default)]
struct MailerSettings {
    mail_url: Option<String>,
    mail_from: String,
    base_url: String,
    mail_concurrency: usize,
    mail_give_up_after: u64,
    mail_retry_max_delay: u64,
    mail_tls_ca_file: Option<String>,
}

impl Default for MailerSettings {
    fn default() -> Self {
        Self {
            mail_url: None,
            mail_from: "Gatehouse <no-reply@localhost>".into(),
            base_url: gatehouse_kit::config::DEFAULT_BASE_URL.into(),
            mail_concurrency: 16,
            mail_give_up_after: 86_400,
            mail_retry_max_delay: 300,
            mail_tls_ca_file: None,
        }
    }
}

fn invalid(name: &str, value: &str, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        name: name.into(),
        value: value.into(),
        reason: reason.to_string(),
    }
}

impl MailerConfig {
    pub fn from_env(env: &Env, data_dir: &str) -> Result<Self, ConfigError> {
        let s: MailerSettings = env.load()?;
        let mail_url = s.mail_url.unwrap_or_else(|| {
            let dir = std::path::Path::new(data_dir).join("mail");
            let dir = std::path::absolute(&dir).unwrap_or(dir);
            format!("file://{}", dir.display())
        });
        let scheme = mail_url.split("://").next().unwrap_or_default();
        if !["smtp", "smtps", "file"].contains(&scheme) {
            return Err(invalid(
                "MAIL_URL",
                &SecretUrl::new(mail_url.as_str()).to_string(),
                "expected smtp://, smtps:// or file://",
            ));
        }
        let from = s
            .mail_from
            .parse()
            .map_err(|e| invalid("MAIL_FROM", &s.mail_from, e))?;
        let base_url =
            url::Url::parse(&s.base_url).map_err(|e| invalid("BASE_URL", &s.base_url, e))?;
        if s.mail_concurrency == 0 {
            return Err(invalid("MAIL_CONCURRENCY", "0", "must be at least 1"));
        }
        Ok(Self {
            mail_url: SecretUrl::new(mail_url),
            from,
            base_url,
            concurrency: s.mail_concurrency,
            give_up_after: Duration::from_secs(s.mail_give_up_after),
            retry_max_delay: Duration::from_secs(s.mail_retry_max_delay.max(1)),
            tls_ca_file: s.mail_tls_ca_file.filter(|f| !f.trim().is_empty()),
            poll_interval: Duration::from_millis(250),
            claim_lease: Duration::from_secs(20),
        })
    }

    /// The wait before attempt `attempts + 1`: 1 s, 2 s, 4 s, … up to the maximum.
    pub fn retry_delay(&self, attempts: u32) -> Duration {
        let doubling = Duration::from_secs(1).saturating_mul(1 << attempts.min(20));
        doubling.min(self.retry_max_delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_the_smtp_password_never_printed() {
        let config =
            MailerConfig::from_env(&Env::from_pairs::<_, &str, &str>([]), "/srv/data").unwrap();
        assert_eq!(config.mail_url.expose(), "file:///srv/data/mail");
        assert_eq!(config.from.to_string(), "Gatehouse <no-reply@localhost>");
        assert_eq!(config.base_url.as_str(), "http://localhost:3000/");

        let env = Env::from_pairs([
            ("MAIL_URL", "smtps://mailer:hunter2@smtp.example.com:465"),
            ("MAIL_FROM", "Shop <accounts@shop.example>"),
        ]);
        let config = MailerConfig::from_env(&env, "./data").unwrap();
        assert!(!format!("{config:?}").contains("hunter2"));
        assert_eq!(config.from.email.to_string(), "accounts@shop.example");

        let bad = Env::from_pairs([("MAIL_URL", "imap://x:hunter2@host")]);
        let error = MailerConfig::from_env(&bad, "./data")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("MAIL_URL") && !error.contains("hunter2"),
            "{error}"
        );
    }

    #[test]
    fn retries_double_up_to_the_maximum() {
        let config =
            MailerConfig::from_env(&Env::from_pairs([("MAIL_RETRY_MAX_DELAY", "10")]), ".")
                .unwrap();
        let waits: Vec<u64> = (0..6).map(|a| config.retry_delay(a).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 10, 10]);
        assert_eq!(config.retry_delay(u32::MAX).as_secs(), 10);
    }
}
