//! The intake: a delivery of the payments platform's webhooks is verified (`verify`), then
//! stored with its body byte for byte, deduplicated on `webhook-id` (`store`), and only then
//! acknowledged (billing-webhooks reference §2.3). Reading the envelope's type and timestamp
//! never refuses a verified delivery: an unknown or unreadable one is stored all the same, since
//! any non-2xx makes the sender retry and counts towards disabling our endpoint (§8.4).

pub mod grpc;
pub mod store;
pub mod verify;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::billing;
use serde::Deserialize;

use crate::error::BillingError;
pub use verify::{Headers, Verifier};

#[derive(Clone)]
pub struct Intake {
    pub db: Db,
    /// `None` when `POLAR_WEBHOOK_SECRET` is not set.
    pub verifier: Option<Arc<Verifier>>,
}

/// What became of a verified delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    pub event_id: String,
    pub duplicate: bool,
    pub event_type: String,
}

/// The envelope's keys the log is indexed by; `data` is skipped unread.
#[derive(Default, Deserialize)]
struct Head {
    #[serde(rename = "type")]
    event_type: Option<String>,
    timestamp: Option<String>,
    api_version: Option<String>,
}

impl Head {
    /// The keys of a JSON object; nothing from anything else (serde would read a struct from
    /// an array too, by position).
    fn read(body: &[u8]) -> Self {
        match body.trim_ascii_start().first() {
            Some(b'{') => serde_json::from_slice(body).unwrap_or_default(),
            _ => Self::default(),
        }
    }

    fn timestamp(&self) -> Option<DateTime<Utc>> {
        let text = self.timestamp.as_deref()?;
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }
}

impl Intake {
    /// Verifies and stores one delivery.
    pub async fn receive(
        &self,
        headers: Headers<'_>,
        body: &[u8],
    ) -> Result<Received, BillingError> {
        let verifier = self
            .verifier
            .as_ref()
            .ok_or(billing::BILLING_WEBHOOKS_NOT_CONFIGURED)?;
        verifier.verify(headers, body)?;
        let head = Head::read(body);
        let event_type = head.event_type.clone().unwrap_or_default();
        let id = gatehouse_kit::ids::new_id();
        let (event_id, duplicate) = store::insert(
            &self.db,
            &store::NewEvent {
                id: &id,
                webhook_id: headers.id,
                event_type: &event_type,
                event_timestamp: head.timestamp(),
                api_version: head.api_version.as_deref(),
                body,
                received_at: gatehouse_kit::ids::now(),
            },
        )
        .await
        .map_err(|error| {
            BillingError::internal("storing a webhook", billing::FAILED_TO_STORE_WEBHOOK, error)
        })?;
        if event_type.is_empty() {
            tracing::warn!(%event_id, "stored a verified webhook whose envelope has no readable type");
        }
        Ok(Received {
            event_id,
            duplicate,
            event_type,
        })
    }
}
