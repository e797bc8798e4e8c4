//! Sessions from API keys (`API_KEY_SESSIONS`, the api-key plugin's `enableSessionForAPIKeys`):
//! a request carrying `x-api-key` is its key's owner. The key is checked — and one use counted —
//! once per request however many extractors ask ([`Memo`]).

use std::sync::Arc;

use gatehouse_kit::errors::{Failure, api_key as codes};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use tokio::sync::OnceCell;

use super::{RequestMeta, Session};
use crate::error::ApiError;
use crate::state::AppState;

/// The header a key arrives in.
pub const HEADER: &str = "x-api-key";
/// Shorter values are refused before any lookup (403), as better-auth does.
const MIN_LENGTH: usize = 64;

/// One request's verdict on its key, shared by every extractor that reads it.
#[derive(Clone, Default)]
pub struct Memo(Arc<OnceCell<Result<Session, Failure>>>);

/// The key the request carries, when keys sign requests in.
pub fn presented<'a>(state: &AppState, meta: &'a RequestMeta) -> Option<&'a str> {
    if !state.config.api_key_sessions {
        return None;
    }
    meta.headers
        .get(HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.is_empty())
}

/// The session `key` stands for: its owner, checked now by identity (which counts the use).
pub async fn session(state: &AppState, meta: &RequestMeta, key: &str) -> Result<Session, ApiError> {
    let verdict = meta
        .api_key
        .0
        .get_or_init(|| verify(state, meta, key))
        .await;
    verdict.clone().map_err(ApiError::Failure)
}

async fn verify(state: &AppState, meta: &RequestMeta, key: &str) -> Result<Session, Failure> {
    if key.len() < MIN_LENGTH {
        return Err(codes::INVALID_API_KEY.with_status(403));
    }
    let verified = state
        .api_keys
        .clone()
        .verify_api_key(identity_pb::VerifyApiKeyRequest {
            key: key.to_string(),
            permissions_json: None,
        })
        .await
        .map_err(|status| Failure::from_status(&status))?
        .into_inner();
    let Some(api_key) = verified.api_key else {
        return Err(codes::INVALID_API_KEY.into());
    };
    // An organization's key is no one's session (as in better-auth).
    let Some(user) = verified.user else {
        return Err(codes::INVALID_REFERENCE_ID_FROM_API_KEY.into());
    };
    let now = gatehouse_kit::ids::now().timestamp_millis();
    let lifetime = i64::try_from(state.config.cookies.session_max_age.as_millis()).unwrap_or(0);
    Ok(Session {
        // better-auth's session for a key: the key's id and the key, made now, ending with
        // the key or a session's lifetime from now (better-auth reads those seconds as
        // milliseconds; not copied). It is never fresh: a key cannot delete its owner.
        session: session_pb::Session {
            id: api_key.id,
            token: key.to_string(),
            user_id: user.id.clone(),
            expires_at_unix_ms: api_key
                .expires_at_unix_ms
                .unwrap_or(now.saturating_add(lifetime)),
            created_at_unix_ms: now,
            updated_at_unix_ms: now,
            ip_address: meta.client.recorded(),
            user_agent: meta.user_agent(),
            remember_me: false,
            impersonated_by: None,
            active_organization_id: None,
            active_team_id: None,
        },
        user,
        fresh: false,
    })
}
