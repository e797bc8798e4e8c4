//! Sellers' endpoints: where an organization's owners and admins want the billing events, the
//! types they take, and the Standard Webhooks secret that signs what is sent (billing-webhooks
//! reference §5, §7). Every operation names the organization, and an endpoint of another
//! organization is not found.

pub mod events;
pub mod grpc;
pub mod manage;
pub mod secret;
pub mod store;

use chrono::{DateTime, Utc};
use gatehouse_kit::errors::{ErrorCode, billing as codes};

use crate::delivery::destination::{self, Policy, Refused};

/// An endpoint as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    pub id: String,
    pub organization_id: String,
    pub url: String,
    pub description: String,
    /// The event types it takes; empty takes every type.
    pub event_types: Vec<String>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub secret: String,
    /// Sign with the UTF-8 text of the secret as the key (the payments platform's way).
    pub polar_signing: bool,
    pub previous_secret: Option<String>,
    /// How the previous secret signs; `None` (rows rotated before it was kept) as the current.
    pub previous_polar_signing: Option<bool>,
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
    pub failing_since: Option<DateTime<Utc>>,
    /// Who registered it: told by mail, in their language, if it is disabled.
    pub created_by: Registrant,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Endpoint {
    /// Whether it takes events of `event_type`.
    pub fn takes(&self, event_type: &str) -> bool {
        self.event_types.is_empty() || self.event_types.iter().any(|t| t == event_type)
    }
}

/// Who registered an endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Registrant {
    pub email: String,
    pub name: String,
    /// The platform's language code (`gatehouse_kit::language`).
    pub language: i32,
}

/// At most this many endpoints per organization, and this many types per endpoint.
pub const MAX_ENDPOINTS: usize = 20;
pub const MAX_EVENT_TYPES: usize = 64;
const MAX_URL_LENGTH: usize = 2048;
const MAX_DESCRIPTION_LENGTH: usize = 512;

/// The fields an owner sets, checked: a create fills all of them, an update those it names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub url: Option<String>,
    pub description: Option<String>,
    pub event_types: Option<Vec<String>>,
    pub enabled: Option<bool>,
    pub polar_signing: Option<bool>,
}

fn url_refusal(refused: Refused) -> ErrorCode {
    match refused {
        Refused::Internal(_) => codes::ENDPOINT_URL_NOT_ALLOWED,
        Refused::NotHttp | Refused::Credentials => codes::INVALID_ENDPOINT_URL,
    }
}

/// An event type as the payments platform names them: lower-case words joined by `.` and `_`
/// (`subscription.past_due`). Unknown types are allowed: the sender adds new ones.
fn valid_event_type(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.split('.').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        })
}

impl Settings {
    /// The settings with the URL parsed (as it will be sent to), the event types deduplicated
    /// in their order, and every field within its limits.
    pub fn checked(mut self, policy: &Policy) -> Result<Self, ErrorCode> {
        if let Some(url) = &self.url {
            if url.len() > MAX_URL_LENGTH {
                return Err(codes::INVALID_ENDPOINT_URL);
            }
            let parsed = destination::check_url(url.trim(), policy).map_err(url_refusal)?;
            self.url = Some(parsed.to_string());
        }
        if let Some(description) = &self.description
            && description.chars().count() > MAX_DESCRIPTION_LENGTH
        {
            return Err(gatehouse_kit::errors::base::VALIDATION_ERROR);
        }
        if let Some(types) = self.event_types.take() {
            let mut unique: Vec<String> = Vec::with_capacity(types.len());
            for name in types.iter().map(|t| t.trim()) {
                if !valid_event_type(name) {
                    return Err(codes::INVALID_EVENT_TYPE);
                }
                if !unique.iter().any(|seen| seen == name) {
                    unique.push(name.to_string());
                }
            }
            if unique.len() > MAX_EVENT_TYPES {
                return Err(codes::INVALID_EVENT_TYPE);
            }
            self.event_types = Some(unique);
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_and_normalised() {
        let strict = Policy::default();
        let settings = Settings {
            url: Some(" https://Hooks.Example.com/in ".into()),
            event_types: Some(vec![
                "order.paid".into(),
                "subscription.past_due".into(),
                "order.paid".into(),
            ]),
            ..Default::default()
        }
        .checked(&strict)
        .unwrap();
        assert_eq!(
            settings.url.as_deref(),
            Some("https://hooks.example.com/in")
        );
        assert_eq!(
            settings.event_types,
            Some(vec!["order.paid".into(), "subscription.past_due".into()])
        );
        let refused = |settings: Settings| settings.checked(&strict).unwrap_err().code();
        for (settings, code) in [
            (
                Settings {
                    url: Some("ftp://example.com".into()),
                    ..Default::default()
                },
                "INVALID_ENDPOINT_URL",
            ),
            (
                Settings {
                    url: Some("http://192.168.0.10/hook".into()),
                    ..Default::default()
                },
                "ENDPOINT_URL_NOT_ALLOWED",
            ),
            (
                Settings {
                    event_types: Some(vec!["Order Paid".into()]),
                    ..Default::default()
                },
                "INVALID_EVENT_TYPE",
            ),
            (
                Settings {
                    event_types: Some(vec!["order..paid".into()]),
                    ..Default::default()
                },
                "INVALID_EVENT_TYPE",
            ),
        ] {
            assert_eq!(refused(settings), code);
        }
    }

    #[test]
    fn an_empty_filter_takes_every_type() {
        let mut endpoint = store::tests::endpoint();
        assert!(endpoint.takes("anything.new"));
        endpoint.event_types = vec!["order.paid".into()];
        assert!(endpoint.takes("order.paid") && !endpoint.takes("order.created"));
    }
}
