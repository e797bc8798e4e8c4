//! Endpoint secrets and the signatures they make (Standard Webhooks §1.1; billing-webhooks
//! reference §2.1, §5). A new secret is `whsec_` + base64 of 24 random bytes, as Svix makes
//! them: every Standard Webhooks library verifies with it (the key is the decoded bytes).
//! With the endpoint's `polar_signing` the key is the UTF-8 text of the whole secret instead,
//! as the payments platform signs, so receivers on its SDKs (0.x and 1.x) and better-auth's
//! plugin verify with the secret as shown. During a rotation's overlap the header carries one
//! `v1,` entry per secret, so a receiver still holding the old one keeps verifying.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use rand::RngCore;
use standardwebhooks::{Webhook, WebhookError};

use super::Endpoint;

const PREFIX: &str = "whsec_";
const SECRET_BYTES: usize = 24;

/// A new secret.
pub fn generate() -> String {
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rng().fill_bytes(&mut bytes);
    format!("{PREFIX}{}", STANDARD.encode(bytes))
}

fn signer(secret: &str, polar_signing: bool) -> Result<Webhook, WebhookError> {
    if polar_signing {
        Webhook::from_bytes(secret.as_bytes().to_vec())
    } else {
        Webhook::new(secret)
    }
}

/// The `webhook-signature` header for one attempt: the current secret's entry, then the
/// previous secret's while its overlap lasts.
pub fn signature(
    endpoint: &Endpoint,
    webhook_id: &str,
    timestamp: i64,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<String, WebhookError> {
    let mut header =
        signer(&endpoint.secret, endpoint.polar_signing)?.sign(webhook_id, timestamp, body)?;
    if let (Some(previous), Some(until)) = (
        &endpoint.previous_secret,
        endpoint.previous_secret_expires_at,
    ) && until > now
    {
        header.push(' ');
        let polar_signing = endpoint
            .previous_polar_signing
            .unwrap_or(endpoint.polar_signing);
        header.push_str(&signer(previous, polar_signing)?.sign(webhook_id, timestamp, body)?);
    }
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeDelta;

    #[test]
    fn secrets_are_standard_and_both_keys_sign_during_an_overlap() {
        let secret = generate();
        assert!(secret.starts_with(PREFIX));
        let decoded = STANDARD.decode(&secret[PREFIX.len()..]).unwrap();
        assert_eq!(decoded.len(), SECRET_BYTES);
        assert_ne!(secret, generate());

        let now = Utc::now();
        let mut endpoint = crate::endpoint::store::tests::endpoint();
        endpoint.secret = secret.clone();
        let one = signature(&endpoint, "msg_1", 1_700_000_000, b"{}", now).unwrap();
        assert_eq!(one.split(' ').count(), 1);
        let mut headers = http::HeaderMap::new();
        headers.insert("webhook-id", "msg_1".parse().unwrap());
        headers.insert(
            "webhook-timestamp",
            now.timestamp().to_string().parse().unwrap(),
        );
        let fresh = signature(&endpoint, "msg_1", now.timestamp(), b"{}", now).unwrap();
        headers.insert("webhook-signature", fresh.parse().unwrap());
        Webhook::new(&secret)
            .unwrap()
            .verify(b"{}", &headers)
            .unwrap();

        endpoint.previous_secret = Some(secret.clone());
        endpoint.previous_secret_expires_at = Some(now + TimeDelta::hours(1));
        endpoint.secret = generate();
        let both = signature(&endpoint, "msg_1", now.timestamp(), b"{}", now).unwrap();
        assert_eq!(both.split(' ').count(), 2);
        headers.insert("webhook-signature", both.parse().unwrap());
        Webhook::new(&secret)
            .unwrap()
            .verify(b"{}", &headers)
            .unwrap();
        Webhook::new(&endpoint.secret)
            .unwrap()
            .verify(b"{}", &headers)
            .unwrap();

        let later = now + TimeDelta::hours(2);
        let after = signature(&endpoint, "msg_1", now.timestamp(), b"{}", later).unwrap();
        assert_eq!(after.split(' ').count(), 1, "the overlap is over");

        endpoint.polar_signing = true;
        endpoint.previous_secret = None;
        let polar = signature(&endpoint, "msg_1", now.timestamp(), b"{}", now).unwrap();
        headers.insert("webhook-signature", polar.parse().unwrap());
        let key = endpoint.secret.as_bytes().to_vec();
        Webhook::from_bytes(key)
            .unwrap()
            .verify(b"{}", &headers)
            .unwrap();
        assert!(
            Webhook::new(&endpoint.secret)
                .unwrap()
                .verify(b"{}", &headers)
                .is_err()
        );
    }
}
