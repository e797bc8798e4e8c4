//! The billing-webhook service's settings (every one documented in the README). Its database
//! and listener are kit's shared settings (`BILLING_WEBHOOK_DATABASE_URL`,
//! `BILLING_WEBHOOK_LISTEN`).

use gatehouse_kit::config::{ConfigError, Env, SecretString};

#[derive(Clone, Debug)]
pub struct BillingWebhookConfig {
    /// `POLAR_WEBHOOK_SECRET` (or `POLAR_WEBHOOK_SECRET_FILE`): the secret the payments
    /// platform shows for our endpoint, as shown (`whsec_…`). Unset: the intake answers 503 to
    /// every delivery, so the sender keeps retrying until it is configured.
    pub polar_webhook_secret: Option<SecretString>,
}

impl BillingWebhookConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Ok(Self {
            polar_webhook_secret: env.secret("POLAR_WEBHOOK_SECRET")?,
        })
    }
}
