//! The `token` group: `GET /jwks` and `GET /token` (better-auth's jwt plugin,
//! `gatehouse.session.v1.TokenService`); get-session's `set-auth-jwt` header is [`auth_header`].
//! Tokens are signed here with the key the session service names ([`crate::token_signer`]).

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, header};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use crate::error::ApiError;
use crate::extract::{Input, NoInput, Session};
use crate::openapi::{ErrorBody, QueryErrors};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;

/// get-session's header with the user's token.
pub const SET_AUTH_JWT: HeaderName = HeaderName::from_static("set-auth-jwt");

pub fn router() -> Group {
    Group::new()
        .route(route!(key_set), Policy::DEFAULT)
        .route(route!(token), Policy::DEFAULT)
}

/// A JWKS document.
#[derive(Serialize, ToSchema)]
pub struct KeySet {
    /// Public keys as JWKs (`kid` the key record's id, `alg`; no private member).
    keys: Vec<Value>,
}

/// The public keys that verify users' tokens: the one signing now and older ones for their
/// grace period. Other services verify tokens with this URL alone.
#[utoipa::path(get, path = "/jwks", tag = "token",
    responses((status = 200, body = KeySet, description = "The key set"), (status = 429, body = ErrorBody, description = "`TOO_MANY_REQUESTS`"), (status = 503, body = ErrorBody, description = "`SERVICE_UNAVAILABLE`")))]
async fn key_set(State(state): State<AppState>) -> Result<Reply, ApiError> {
    let document = state.token_signer.key_set(&state.clients).await?;
    Ok(Reply::raw_json(document.to_string()))
}

#[derive(Serialize, ToSchema)]
pub struct TokenResponse {
    /// A JWT of the user's fields with `sub` (their id), `iat`, `exp` (JWT_EXPIRES_IN later),
    /// and `iss` and `aud` (the base URL's origin).
    token: String,
}

/// The signed-in user's token, for services that take a JWT rather than a session.
#[utoipa::path(get, path = "/token", tag = "token",
    responses((status = 200, body = TokenResponse, description = "The token"), QueryErrors))]
async fn token(
    State(state): State<AppState>,
    Input { auth, .. }: Input<NoInput, Session>,
) -> Result<Reply, ApiError> {
    let token = user_token(&state, crate::wire::User::from(auth.user)).await?;
    Ok(Reply::json(&TokenResponse { token }))
}

/// A token for a user as the wire shows them.
pub async fn user_token(state: &AppState, user: impl Serialize) -> Result<String, ApiError> {
    state.token_signer.sign(&state.clients, &user).await
}

/// get-session's `set-auth-jwt` (when JWT_SET_AUTH_HEADER is on), exposed to browsers. A token
/// that cannot be made (no key yet and the session service unreachable) leaves the header out:
/// the session is still answered, and its refreshed cookies still set.
pub async fn auth_header(state: &AppState, reply: &mut Reply, user: impl Serialize) {
    if !state.config.tokens.set_auth_header {
        return;
    }
    let token = match user_token(state, user).await {
        Ok(token) => token,
        Err(error) => {
            tracing::warn!(?error, "get-session answered without set-auth-jwt");
            return;
        }
    };
    let headers = reply.response.headers_mut();
    match HeaderValue::from_str(&token) {
        Ok(value) => {
            headers.insert(SET_AUTH_JWT, value);
        }
        Err(error) => tracing::error!(%error, "unencodable token dropped"),
    }
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("set-auth-jwt"),
    );
}
