//! Standard Webhooks verification as the payments platform signs (billing-webhooks reference
//! §1.1, §2.1): the HMAC key is the secret's text as shown, `whsec_` prefix included — not the
//! base64-decoded part a generic verifier would use. The checks themselves (three headers, a
//! timestamp within 300 s either way, any `v1` entry matching, constant-time comparison) are
//! the `standardwebhooks` crate's, the reference implementation; this file only chooses the key
//! and answers with the reference libraries' messages (§1.2).

use gatehouse_kit::config::{ExposeSecret, SecretString};
use gatehouse_kit::errors::{ErrorCode, billing};
use http::{HeaderMap, HeaderValue};
use standardwebhooks::{
    HEADER_WEBHOOK_ID, HEADER_WEBHOOK_SIGNATURE, HEADER_WEBHOOK_TIMESTAMP, Webhook, WebhookError,
};

/// The three headers of one delivery as received; an empty one counts as missing.
#[derive(Clone, Copy, Debug)]
pub struct Headers<'a> {
    pub id: &'a str,
    pub timestamp: &'a str,
    pub signature: &'a str,
}

/// Verifies deliveries signed with one secret.
pub struct Verifier(Webhook);

impl Verifier {
    /// The payments platform's treatment of its secret: the raw UTF-8 text is the key.
    pub fn polar(secret: &SecretString) -> Result<Self, WebhookError> {
        Webhook::from_bytes(secret.expose_secret().as_bytes().to_vec()).map(Self)
    }

    /// Checks `body` against `headers`; the refusal is the catalogued code with the reference
    /// libraries' message.
    pub fn verify(&self, headers: Headers<'_>, body: &[u8]) -> Result<(), ErrorCode> {
        if headers.id.is_empty() || headers.timestamp.is_empty() || headers.signature.is_empty() {
            return Err(billing::MISSING_REQUIRED_HEADERS);
        }
        let mut map = HeaderMap::with_capacity(3);
        for (name, value) in [
            (HEADER_WEBHOOK_ID, headers.id),
            (HEADER_WEBHOOK_TIMESTAMP, headers.timestamp),
            (HEADER_WEBHOOK_SIGNATURE, headers.signature),
        ] {
            let value =
                HeaderValue::from_str(value).map_err(|_| billing::INVALID_SIGNATURE_HEADERS)?;
            map.insert(name, value);
        }
        self.0.verify(body, &map).map_err(|error| match error {
            WebhookError::MissingHeader(_) => billing::MISSING_REQUIRED_HEADERS,
            WebhookError::InvalidHeader(_) | WebhookError::InvalidTimestamp => {
                billing::INVALID_SIGNATURE_HEADERS
            }
            WebhookError::TimestampTooOldError => billing::MESSAGE_TIMESTAMP_TOO_OLD,
            WebhookError::FutureTimestampError => billing::MESSAGE_TIMESTAMP_TOO_NEW,
            // A body that is not UTF-8 cannot be what the sender signed (it sends JSON).
            WebhookError::InvalidSignature
            | WebhookError::InvalidPayload
            | WebhookError::InvalidSecret(_) => billing::NO_MATCHING_SIGNATURE_FOUND,
        })
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;

    use super::*;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const BODY: &[u8] =
        br#"{"type":"order.paid","timestamp":"2026-09-14T10:21:37.004512Z","data":{}}"#;

    fn now() -> i64 {
        chrono::Utc::now().timestamp()
    }

    /// Signs as the payments platform does: HMAC key = the secret's text.
    fn polar_signature(id: &str, timestamp: i64, body: &[u8]) -> String {
        Webhook::from_bytes(SECRET.as_bytes().to_vec())
            .and_then(|w| w.sign(id, timestamp, body))
            .unwrap()
    }

    fn verifier() -> Verifier {
        Verifier::polar(&SecretString::from(SECRET)).unwrap()
    }

    fn check(id: &str, timestamp: &str, signature: &str, body: &[u8]) -> Result<(), ErrorCode> {
        verifier().verify(
            Headers {
                id,
                timestamp,
                signature,
            },
            body,
        )
    }

    #[test]
    fn a_body_signed_with_the_secrets_text_verifies() {
        let ts = now();
        let signature = polar_signature("msg_1", ts, BODY);
        assert_eq!(check("msg_1", &ts.to_string(), &signature, BODY), Ok(()));
    }

    #[test]
    fn a_body_signed_with_the_base64_decoded_key_does_not() {
        // What a generic Standard Webhooks sender would do with the same secret.
        let ts = now();
        let generic = Webhook::new(SECRET)
            .unwrap()
            .sign("msg_1", ts, BODY)
            .unwrap();
        assert_eq!(
            check("msg_1", &ts.to_string(), &generic, BODY),
            Err(billing::NO_MATCHING_SIGNATURE_FOUND)
        );
    }

    #[test]
    fn any_matching_entry_of_several_is_enough() {
        let ts = now();
        let good = polar_signature("msg_1", ts, BODY);
        let stale = format!(
            "v1,{}",
            base64::engine::general_purpose::STANDARD.encode([7u8; 32])
        );
        let header = format!("v1a,ignored {stale} {good}");
        assert_eq!(check("msg_1", &ts.to_string(), &header, BODY), Ok(()));
        assert_eq!(
            check("msg_1", &ts.to_string(), &stale, BODY),
            Err(billing::NO_MATCHING_SIGNATURE_FOUND)
        );
    }

    #[test]
    fn a_changed_byte_id_or_timestamp_breaks_the_signature() {
        let ts = now();
        let signature = polar_signature("msg_1", ts, BODY);
        let mut changed = BODY.to_vec();
        changed[10] ^= 1;
        for (id, stamp, body) in [
            ("msg_1", ts, changed.as_slice()),
            ("msg_2", ts, BODY),
            ("msg_1", ts - 1, BODY),
        ] {
            assert_eq!(
                check(id, &stamp.to_string(), &signature, body),
                Err(billing::NO_MATCHING_SIGNATURE_FOUND)
            );
        }
    }

    #[test]
    fn timestamps_more_than_five_minutes_away_are_refused_either_way() {
        for (offset, expected) in [
            (-301, Err(billing::MESSAGE_TIMESTAMP_TOO_OLD)),
            (301, Err(billing::MESSAGE_TIMESTAMP_TOO_NEW)),
            (-290, Ok(())),
            (290, Ok(())),
        ] {
            let ts = now() + offset;
            let signature = polar_signature("msg_1", ts, BODY);
            assert_eq!(
                check("msg_1", &ts.to_string(), &signature, BODY),
                expected,
                "{offset}"
            );
        }
    }

    #[test]
    fn missing_or_malformed_headers_are_named_as_the_reference_libraries_do() {
        let ts = now().to_string();
        let signature = polar_signature("msg_1", now(), BODY);
        assert_eq!(
            check("", &ts, &signature, BODY),
            Err(billing::MISSING_REQUIRED_HEADERS)
        );
        assert_eq!(
            check("msg_1", "", &signature, BODY),
            Err(billing::MISSING_REQUIRED_HEADERS)
        );
        assert_eq!(
            check("msg_1", &ts, "", BODY),
            Err(billing::MISSING_REQUIRED_HEADERS)
        );
        assert_eq!(
            check("msg_1", "yesterday", &signature, BODY),
            Err(billing::INVALID_SIGNATURE_HEADERS)
        );
        assert_eq!(
            check("msg\n1", &ts, &signature, BODY),
            Err(billing::INVALID_SIGNATURE_HEADERS)
        );
        assert_eq!(
            (
                billing::MISSING_REQUIRED_HEADERS.message(),
                billing::MESSAGE_TIMESTAMP_TOO_OLD.message(),
                billing::MESSAGE_TIMESTAMP_TOO_NEW.message(),
                billing::NO_MATCHING_SIGNATURE_FOUND.message()
            ),
            (
                "Missing required headers",
                "Message timestamp too old",
                "Message timestamp too new",
                "No matching signature found"
            )
        );
    }

    #[test]
    fn a_body_that_is_not_utf8_matches_no_signature() {
        let ts = now();
        let signature = polar_signature("msg_1", ts, BODY);
        assert_eq!(
            check("msg_1", &ts.to_string(), &signature, &[0xff, 0xfe]),
            Err(billing::NO_MATCHING_SIGNATURE_FOUND)
        );
    }
}
