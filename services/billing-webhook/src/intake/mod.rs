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
use gatehouse_kit::foreground::Foreground;
use serde::Deserialize;

use crate::error::BillingError;
pub use verify::{Headers, Verifier};

#[derive(Clone)]
pub struct Intake {
    pub db: Db,
    /// `None` when `POLAR_WEBHOOK_SECRET` is not set.
    pub verifier: Option<Arc<Verifier>>,
    /// Deliveries being received: the stored-events consumer makes room for a burst of them.
    pub requests: Foreground,
}

/// What became of a verified delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    pub event_id: String,
    pub duplicate: bool,
    pub event_type: String,
}

/// The envelope's keys the log is indexed by; of `data`, only its metadata is read.
#[derive(Default, Deserialize)]
struct Head {
    #[serde(rename = "type")]
    event_type: Option<String>,
    timestamp: Option<String>,
    api_version: Option<String>,
    data: Option<HeadData>,
}

/// [`Head`] without `data`: what is read when `data` is not an object.
#[derive(Deserialize)]
struct Bare {
    #[serde(rename = "type")]
    event_type: Option<String>,
    timestamp: Option<String>,
    api_version: Option<String>,
}

impl From<Bare> for Head {
    fn from(bare: Bare) -> Self {
        Self {
            event_type: bare.event_type,
            timestamp: bare.timestamp,
            api_version: bare.api_version,
            data: None,
        }
    }
}

#[derive(Default, Deserialize)]
struct HeadData {
    /// Any JSON: a metadata value of an unexpected shape must not unread the envelope.
    metadata: Option<serde_json::Value>,
}

impl Head {
    /// The keys of a JSON object; nothing from anything else (serde would read a struct from
    /// an array too, by position).
    fn read(body: &[u8]) -> Self {
        match body.trim_ascii_start().first() {
            // A `data` that is not an object fails the first reading, not the envelope.
            Some(b'{') => serde_json::from_slice(body)
                .or_else(|_| serde_json::from_slice::<Bare>(body).map(Head::from))
                .unwrap_or_default(),
            _ => Self::default(),
        }
    }

    /// The organization the event belongs to: the id its entity names as
    /// `metadata.referenceId`, how better-auth's payments plugin marks an organization's
    /// purchase.
    fn organization_id(&self) -> Option<&str> {
        crate::polar::reference_id(self.data.as_ref()?.metadata.as_ref()?)
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
        let _in_flight = self.requests.enter();
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
                organization_id: head.organization_id(),
                body,
                received_at: gatehouse_kit::ids::now(),
            },
        )
        .await
        .map_err(|error| {
            BillingError::internal(
                "storing a webhook",
                error.answer_or(billing::FAILED_TO_STORE_WEBHOOK),
                error,
            )
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

#[cfg(test)]
mod tests {
    use super::Head;

    #[test]
    fn the_envelope_names_its_organization_by_reference_id() {
        let head = Head::read(
            br#"{"type":"order.paid","data":{"id":"o1","metadata":{"referenceId":"org_a"}}}"#,
        );
        assert_eq!(head.event_type.as_deref(), Some("order.paid"));
        assert_eq!(head.organization_id(), Some("org_a"));
        for body in [
            &br#"{"type":"order.paid","data":{}}"#[..],
            br#"{"type":"order.paid","data":{"metadata":{"referenceId":""}}}"#,
            br#"{"type":"order.paid","data":{"metadata":{"referenceId":7}}}"#,
            br#"{"type":"order.paid","data":{"metadata":"odd"}}"#,
        ] {
            let head = Head::read(body);
            assert_eq!(head.organization_id(), None);
            // An odd metadata value leaves the rest of the envelope readable.
            assert_eq!(head.event_type.as_deref(), Some("order.paid"));
        }
        assert_eq!(Head::read(b"not json").organization_id(), None);
        let odd_data = Head::read(br#"{"type":"order.paid","data":"text"}"#);
        assert_eq!(odd_data.event_type.as_deref(), Some("order.paid"));
    }
}
