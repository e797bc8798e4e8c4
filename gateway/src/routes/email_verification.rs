//! The `email_verification` group: `POST /send-verification-email`, `GET /verify-email` and
//! `POST /change-email`, whose links lead to `/verify-email`
//! (`gatehouse.identity.v1.EmailVerificationService`, protocol §8.18–§8.20).

use axum::extract::State;
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Group;
use super::shared::session::{forget_cached_user, start_session};
use crate::error::ApiError;
use crate::extract::{Input, MaybeSession, Session as SignedIn};
use crate::openapi::{BodyErrors, ErrorBody};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::{SessionWithUser, StatusResponse, User};

pub fn router() -> Group {
    Group::new()
        .route(
            route!(send_verification_email),
            Policy::DEFAULT.rate(RateRule::Email),
        )
        .route(route!(verify_email), Policy::DEFAULT)
        .route(route!(change_email), Policy::DEFAULT.rate(RateRule::SignIn))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeEmailBody {
    #[schema(format = Email, max_length = 254)]
    new_email: String,
    /// Where the mailed link sends the user afterwards (default `/`).
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
}

/// Changes the caller's address. Unverified: at once (the session cookie is issued again) and
/// the new address gets a verification link. Verified: a link to the current address approves
/// the change, then one to the new address applies it. An address in use: the same answer,
/// nothing changed, nothing mailed.
#[utoipa::path(post, path = "/change-email", tag = "email_verification", request_body = ChangeEmailBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"), BodyErrors))]
// 400: `{"message": "Email is the same"}`, `CHANGE_EMAIL_DISABLED`.
async fn change_email(
    State(state): State<AppState>,
    Input {
        body,
        auth: caller,
        meta,
    }: Input<ChangeEmailBody, SignedIn>,
) -> Result<Reply, ApiError> {
    let changed = state
        .email_verification
        .clone()
        .change_email(identity_pb::ChangeEmailRequest {
            user_id: caller.user.id.clone(),
            new_email: body.new_email,
            callback_url: body.callback_url.filter(|c| !c.is_empty()),
        })
        .await?
        .into_inner();
    let mut reply = Reply::json(&StatusResponse { status: true });
    if changed.changed {
        let user = changed.user.ok_or(base::FAILED_TO_UPDATE_USER)?;
        forget_cached_user(&state, &user.id).await;
        let remember = caller.session.remember_me && !session_cookies::dont_remember(&state, &meta);
        let data = SessionWithUser {
            session: caller.session.into(),
            user: user.into(),
        };
        reply.set_cookies(session_cookies::issue(&state, &meta, &data, remember));
    }
    Ok(reply)
}

#[derive(Deserialize, ToSchema)]
pub struct SendVerificationEmailBody {
    #[schema(format = Email, max_length = 254)]
    email: String,
    /// Where the link sends the user once verified (default `/`).
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
}

/// Mails a verification link. Signed in: the address must be the caller's
/// (`EMAIL_MISMATCH`) and unverified (`EMAIL_ALREADY_VERIFIED`). Signed out: always
/// `{"status": true}` after half a second, and a mail only to an unverified user.
#[utoipa::path(post, path = "/send-verification-email", tag = "email_verification", request_body = SendVerificationEmailBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"), BodyErrors))]
async fn send_verification_email(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<SendVerificationEmailBody, MaybeSession>,
) -> Result<Reply, ApiError> {
    state
        .email_verification
        .clone()
        .send_verification_email(identity_pb::SendVerificationEmailRequest {
            email: body.email,
            caller_user_id: auth.0.map(|caller| caller.user.id),
            callback_url: body.callback_url.filter(|c| !c.is_empty()),
        })
        .await?;
    Ok(Reply::json(&StatusResponse { status: true }))
}

#[derive(Deserialize, ToSchema)]
pub struct VerifyEmailQuery {
    token: String,
    /// Where to go afterwards; a refusal goes there too, with `?error=<CODE>`.
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
}

/// `{"status": true, "user": …}`: `user` is null unless the link changed the address.
#[derive(Serialize, ToSchema)]
pub struct VerifyEmailResponse {
    status: bool,
    user: Option<User>,
}

/// Uses a mailed link: verifies the address, or carries a change of email a step further.
/// With `callbackURL` every answer is a redirect there (refusals add `error=<CODE>`).
#[utoipa::path(get, path = "/verify-email", tag = "email_verification", params(("token" = String, Query), ("callbackURL" = Option<String>, Query)),
    responses((status = 200, body = VerifyEmailResponse, description = "Verified"), (status = 302, description = "To `callbackURL`"), (status = 401, body = ErrorBody, description = "`INVALID_TOKEN`, `TOKEN_EXPIRED`, `USER_NOT_FOUND`, `INVALID_USER`"), BodyErrors))]
async fn verify_email(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<VerifyEmailQuery, MaybeSession>,
) -> Result<Reply, ApiError> {
    let callback = body.callback_url.filter(|c| !c.is_empty());
    let caller = auth.0;
    let verified = state
        .email_verification
        .clone()
        .verify_email(identity_pb::VerifyEmailRequest {
            token: body.token,
            caller_user_id: caller.as_ref().map(|c| c.user.id.clone()),
            callback_url: callback.clone(),
        })
        .await
        .map_err(ApiError::from);
    let verified = match (verified, &callback) {
        (Ok(verified), _) => verified.into_inner(),
        (Err(ApiError::Failure(failure)), Some(callback)) if !failure.is_server_error() => {
            let separator = if callback.contains('?') { '&' } else { '?' };
            return Ok(Reply::redirect(&format!(
                "{callback}{separator}error={}",
                failure.code()
            )));
        }
        (Err(error), _) => return Err(error),
    };
    let user = verified.user.ok_or(base::USER_NOT_FOUND)?;
    forget_cached_user(&state, &user.id).await;
    let mut reply = match &callback {
        Some(callback) => Reply::redirect(callback),
        // The approval of a change of email changed nothing yet: better-auth answers the
        // status alone, and issues no cookie.
        None if verified.change_confirmed => Reply::json(&StatusResponse { status: true }),
        None => Reply::json(&VerifyEmailResponse {
            status: true,
            user: verified.email_changed.then(|| user.clone().into()),
        }),
    };
    if verified.change_confirmed {
        return Ok(reply);
    }
    match caller {
        // The caller's cookies show the verified (or changed) address at once.
        Some(caller) if caller.user.id == user.id => {
            let remember =
                caller.session.remember_me && !session_cookies::dont_remember(&state, &meta);
            let data = SessionWithUser {
                session: caller.session.into(),
                user: user.into(),
            };
            reply.set_cookies(session_cookies::issue(&state, &meta, &data, remember));
        }
        Some(_) => {}
        // A user with a second factor signs in with it: a mailbox alone is not enough.
        None if verified.sign_in && !user.two_factor_enabled => {
            let data = start_session(&state, &meta, user, true).await?;
            reply.set_cookies(session_cookies::issue(&state, &meta, &data, true));
        }
        None => {}
    }
    Ok(reply)
}
