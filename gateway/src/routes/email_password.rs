//! `POST /sign-up/email` and `POST /sign-in/email`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use gatehouse_kit::ErrorCode;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;

use super::{Meta, Reply};
use crate::body::{self, Fields};
use crate::error::ApiError;
use crate::origin;
use crate::state::AppState;
use crate::wire::{SessionWithUser, SignInResponse, SignUpResponse, User};

/// The checks every email+password POST passes, in better-auth's order: body parsing, the
/// CSRF/origin rules (these routes accept plain form posts), then redirect targets.
fn preflight(
    state: &AppState,
    meta: &Meta,
    bytes: &Bytes,
) -> Result<Option<serde_json::Value>, ApiError> {
    let body = body::parse(&meta.headers, bytes, true)?;
    origin::check_request(&meta.headers, &state.trusted, true)?;
    body::check_redirect_fields(body.as_ref(), meta.query("callbackURL"), &state.trusted)?;
    Ok(body)
}

async fn start_session(
    state: &AppState,
    meta: &Meta,
    user: identity_pb::User,
    remember: bool,
) -> Result<SessionWithUser, ApiError> {
    let session = state
        .sessions
        .clone()
        .create_session(session_pb::CreateSessionRequest {
            user_id: user.id.clone(),
            ip_address: state.client_ip(meta),
            user_agent: meta.user_agent(),
            remember_me: remember,
        })
        .await?
        .into_inner()
        .session
        .ok_or(ErrorCode::FailedToCreateSession)?;
    Ok(SessionWithUser {
        session: session.into(),
        user: user.into(),
    })
}

pub async fn sign_up(
    State(state): State<AppState>,
    meta: Meta,
    bytes: Bytes,
) -> Result<Reply, ApiError> {
    let body = preflight(&state, &meta, &bytes)?;
    let mut fields = Fields::new(body.as_ref(), true);
    let name = fields.required_string("name");
    let email = fields.email("email");
    let password = fields.non_empty_string("password");
    let image = fields.optional_string("image");
    fields.optional_string("callbackURL");
    let remember = fields.optional_bool("rememberMe").unwrap_or(true);
    fields.finish()?;

    let user = state
        .identity
        .clone()
        .sign_up_email(identity_pb::SignUpEmailRequest {
            name,
            email,
            password,
            image,
        })
        .await?
        .into_inner()
        .user
        .ok_or(ErrorCode::FailedToCreateUser)?;
    let data = start_session(&state, &meta, user, remember).await?;
    let mut reply = Reply::json(&SignUpResponse {
        token: Some(data.session.token.clone()),
        user: data.user.clone(),
    });
    state.set_session_cookies(&mut reply, &meta, &data, remember);
    Ok(reply)
}

pub async fn sign_in(
    State(state): State<AppState>,
    meta: Meta,
    bytes: Bytes,
) -> Result<Reply, ApiError> {
    let body = preflight(&state, &meta, &bytes)?;
    let mut fields = Fields::new(body.as_ref(), true);
    let email = fields.required_string("email");
    let password = fields.required_string("password");
    let callback = fields
        .optional_string("callbackURL")
        .filter(|c| !c.is_empty());
    let remember = fields.optional_bool("rememberMe").unwrap_or(true);
    fields.finish()?;

    let user = state
        .identity
        .clone()
        .sign_in_email(identity_pb::SignInEmailRequest { email, password })
        .await?
        .into_inner()
        .user
        .ok_or(ErrorCode::InvalidEmailOrPassword)?;
    let data = start_session(&state, &meta, user, remember).await?;
    let user: User = data.user.clone();
    let mut reply = Reply::json(&SignInResponse {
        redirect: callback.is_some(),
        token: data.session.token.clone(),
        url: callback.clone(),
        user,
    });
    if let Some(location) = callback.and_then(|c| HeaderValue::from_str(&c).ok()) {
        reply
            .response
            .headers_mut()
            .insert(header::LOCATION, location);
    }
    state.set_session_cookies(&mut reply, &meta, &data, remember);
    Ok(reply)
}
