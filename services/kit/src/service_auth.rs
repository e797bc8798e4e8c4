//! Service-to-service authentication. Every gRPC call carries the deployment's service token
//! (`authorization: Bearer <SERVICE_TOKEN>`) and every service refuses a call without it with
//! `UNAUTHENTICATED`, before any handler runs. Without it, anything that could reach a
//! service's port could create a session for any user, or try passwords without the gateway's
//! rate limits. The comparison is constant-time. Standalone mode generates a token per start.
//!
//! The token is also the root of the services' other internal keys ([`ServiceToken::derive`]):
//! whoever holds it can already do anything a service can, so keys derived from it widen no
//! one's reach.

use std::fmt;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hmac::{KeyInit, Mac};
use secrecy::{ExposeSecret, SecretString};
use subtle::ConstantTimeEq;

use crate::config::{ConfigError, Env};

/// The variable that holds it (or `SERVICE_TOKEN_FILE`).
pub const VAR: &str = "SERVICE_TOKEN";
const MIN_LENGTH: usize = 32;

#[derive(Clone)]
pub struct ServiceToken {
    secret: SecretString,
    /// `Bearer <token>`, ready to send.
    header: http::HeaderValue,
}

impl fmt::Debug for ServiceToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServiceToken([REDACTED])")
    }
}

impl ServiceToken {
    /// `SERVICE_TOKEN` (or `SERVICE_TOKEN_FILE`): required, 32 characters or more.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let secret = env.secret(VAR)?.ok_or_else(|| ConfigError::Missing {
            name: VAR.into(),
            why: "services accept only calls that carry it (32+ random characters, the same \
                  for every process of the deployment)"
                .into(),
        })?;
        Self::new(secret.expose_secret())
    }

    pub fn new(token: &str) -> Result<Self, ConfigError> {
        let invalid = |reason: &str| ConfigError::Invalid {
            name: VAR.into(),
            value: "<redacted>".into(),
            reason: reason.into(),
        };
        if token.len() < MIN_LENGTH {
            return Err(invalid("must be at least 32 characters"));
        }
        let mut header = http::HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| invalid("must be printable ASCII"))?;
        header.set_sensitive(true);
        Ok(Self {
            secret: token.to_string().into(),
            header,
        })
    }

    /// A fresh random token (standalone mode, tests).
    pub fn generate() -> Self {
        let token = crate::ids::random_alphanumeric(48);
        Self {
            header: http::HeaderValue::from_str(&format!("Bearer {token}"))
                .unwrap_or_else(|_| unreachable!("alphanumeric is a valid header value")),
            secret: token.into(),
        }
    }

    /// The token itself (to hand to a part started in the same process).
    pub fn expose(&self) -> &str {
        self.secret.expose_secret()
    }

    /// The `authorization` value a client sends.
    pub fn header(&self) -> &http::HeaderValue {
        &self.header
    }

    /// Whether `value` is exactly our `Bearer <token>`, in constant time.
    pub fn accepts(&self, value: Option<&http::HeaderValue>) -> bool {
        value.is_some_and(|value| bool::from(value.as_bytes().ct_eq(self.header.as_bytes())))
    }

    /// A key for one internal purpose: HMAC-SHA256(token, purpose).
    pub fn derive(&self, purpose: &str) -> [u8; 32] {
        let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(
            self.secret.expose_secret().as_bytes(),
        )
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }
}

/// The middleware in front of every service's gRPC routes.
pub async fn require(token: ServiceToken, request: Request, next: Next) -> Response {
    if token.accepts(request.headers().get(http::header::AUTHORIZATION)) {
        return next.run(request).await;
    }
    metrics::counter!("grpc_unauthenticated_total").increment(1);
    tracing::warn!(
        path = %request.uri().path(),
        "gRPC call refused: missing or wrong service token"
    );
    tonic::Status::unauthenticated("missing or wrong service token")
        .into_http::<axum::body::Body>()
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_checked_exactly_and_never_printed() {
        let token = ServiceToken::new("0123456789abcdef0123456789abcdef-hunter2").unwrap();
        assert!(token.accepts(Some(token.header())));
        let wrong = http::HeaderValue::from_static("Bearer 0123456789abcdef0123456789abcdef");
        assert!(!token.accepts(Some(&wrong)));
        assert!(!token.accepts(None));
        assert!(!format!("{token:?}").contains("hunter2"));
        assert!(ServiceToken::new("short").is_err());
        let missing = ServiceToken::from_env(&Env::from_pairs([("X", "y")])).unwrap_err();
        assert!(missing.to_string().contains("SERVICE_TOKEN"));
        assert_ne!(token.derive("a"), token.derive("b"));
        assert_ne!(
            token.derive("a"),
            ServiceToken::generate().derive("a"),
            "keys follow the token"
        );
    }
}
