//! Secrets at rest and in flight between services: a mailed link's token must not sit in an
//! outbox row for a week, in the broker's audit queue, or in the mail log, where a database
//! dump or a broker console would hand out working links. Such values are sealed
//! (ChaCha20-Poly1305, a random nonce each) with a key derived from the deployment's
//! `SERVICE_TOKEN`, which every service holds and nothing outside them does.
//!
//! A sealed value says so itself: its first byte, `G` (0x47), is a protobuf tag with the
//! invalid wire type 7, so no protobuf payload starts with it, and sealed text starts with
//! `sealed:`. What is not sealed (written before sealing existed, or by a test) reads as it is.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use rand::Rng as _;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};

use crate::service_auth::ServiceToken;

/// The first bytes of a sealed value: the marker and the format's version.
const MAGIC: [u8; 2] = [b'G', 1];
/// The prefix of sealed text (base64 of the sealed bytes follows).
const TEXT_PREFIX: &str = "sealed:";

#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// Sealed with another key (a rotated `SERVICE_TOKEN`), or altered.
    #[error("a sealed value could not be opened: sealed with another SERVICE_TOKEN, or altered")]
    Unopenable,
}

/// The key that seals and opens values for the services of one deployment.
#[derive(Clone)]
pub struct SealingKey(Arc<LessSafeKey>);

impl fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealingKey([REDACTED])")
    }
}

impl SealingKey {
    /// The deployment's key: derived from the service token, so every service has the same.
    pub fn from_service_token(token: &ServiceToken) -> Self {
        Self::from_bytes(token.derive("gatehouse sealing v1"))
    }

    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        let key = UnboundKey::new(&CHACHA20_POLY1305, &bytes)
            .unwrap_or_else(|_| unreachable!("a ChaCha20-Poly1305 key is 32 bytes"));
        Self(Arc::new(LessSafeKey::new(key)))
    }

    /// Whether `bytes` are sealed (see the module's notes).
    pub fn is_sealed(bytes: &[u8]) -> bool {
        bytes.starts_with(&MAGIC)
    }

    /// `plaintext` sealed, bound to `context` (a topic, a column): opened elsewhere with
    /// another context, it does not open.
    pub fn seal(&self, context: &str, plaintext: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill(&mut nonce);
        let mut sealed = Vec::with_capacity(MAGIC.len() + NONCE_LEN + plaintext.len() + 16);
        sealed.extend_from_slice(&MAGIC);
        sealed.extend_from_slice(&nonce);
        let mut body = plaintext.to_vec();
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context.as_bytes()),
                &mut body,
            )
            .unwrap_or_else(|_| unreachable!("a message under 256 GiB seals"));
        sealed.extend_from_slice(&body);
        sealed
    }

    /// What `bytes` seal, or `bytes` themselves when they are not sealed.
    pub fn open(&self, context: &str, bytes: &[u8]) -> Result<Vec<u8>, SealError> {
        if !Self::is_sealed(bytes) {
            return Ok(bytes.to_vec());
        }
        let rest = &bytes[MAGIC.len()..];
        if rest.len() < NONCE_LEN {
            return Err(SealError::Unopenable);
        }
        let (nonce, body) = rest.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| SealError::Unopenable)?;
        let mut body = body.to_vec();
        let opened = self
            .0
            .open_in_place(nonce, Aad::from(context.as_bytes()), &mut body)
            .map_err(|_| SealError::Unopenable)?;
        Ok(opened.to_vec())
    }

    /// `text` sealed, as text (for a text column).
    pub fn seal_text(&self, context: &str, text: &str) -> String {
        let sealed = self.seal(context, text.as_bytes());
        format!(
            "{TEXT_PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(sealed)
        )
    }

    /// What sealed `text` holds, or `text` itself when it is not sealed.
    pub fn open_text(&self, context: &str, text: &str) -> Result<String, SealError> {
        let Some(encoded) = text.strip_prefix(TEXT_PREFIX) else {
            return Ok(text.to_string());
        };
        let sealed = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|_| SealError::Unopenable)?;
        let opened = self.open(context, &sealed)?;
        String::from_utf8(opened).map_err(|_| SealError::Unopenable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> SealingKey {
        SealingKey::from_bytes([byte; 32])
    }

    #[test]
    fn a_sealed_value_opens_with_its_key_and_context_only() {
        let secret = b"/api/auth/reset-password/tok-ABC123";
        let sealed = key(1).seal("mail.requested", secret);
        assert!(SealingKey::is_sealed(&sealed));
        assert!(
            !sealed.windows(secret.len()).any(|w| w == secret),
            "the secret is not in what is stored"
        );
        assert_ne!(
            sealed,
            key(1).seal("mail.requested", secret),
            "a nonce each"
        );
        assert_eq!(key(1).open("mail.requested", &sealed).unwrap(), secret);
        assert!(
            key(2).open("mail.requested", &sealed).is_err(),
            "another key"
        );
        assert!(
            key(1).open("user.updated", &sealed).is_err(),
            "another context"
        );
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert!(key(1).open("mail.requested", &altered).is_err());
        assert!(key(1).open("mail.requested", &MAGIC).is_err(), "cut short");
    }

    #[test]
    fn what_was_never_sealed_reads_as_it_is() {
        // A protobuf payload never starts with the marker (wire type 7 does not exist).
        let plain = [0x0a, 0x03, b'a', b'b', b'c'];
        assert_eq!(key(1).open("mail.requested", &plain).unwrap(), plain);
        assert_eq!(
            key(1).open_text("mails.html_body", "<p>hi</p>").unwrap(),
            "<p>hi</p>"
        );
        let text = key(1).seal_text("mails.html_body", "<a href=\"/reset/tok\">");
        assert!(text.starts_with("sealed:") && !text.contains("tok"));
        assert_eq!(
            key(1).open_text("mails.html_body", &text).unwrap(),
            "<a href=\"/reset/tok\">"
        );
    }
}
