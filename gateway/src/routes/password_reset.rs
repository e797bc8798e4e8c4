//! The `password_reset` group: `POST /request-password-reset` (and its older name
//! `/forget-password`), `GET /reset-password/{token}`, `POST /reset-password`
//! (`gatehouse.identity.v1.PasswordResetService`, protocol §8.21–§8.23).

use axum::extract::{Path, State};
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Group;
use crate::error::ApiError;
use crate::extract::Input;
use crate::openapi::{BodyErrors, ErrorBody};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::StatusResponse;

pub fn router() -> Group {
    let mails = Policy::DEFAULT.rate(RateRule::Email);
    Group::new()
        .route(route!(request_password_reset), mails)
        .route(
            route!(forget_password),
            mails.alias_of("/request-password-reset"),
        )
        .route(route!(reset_password_link), Policy::DEFAULT)
        .route(route!(reset_password), Policy::DEFAULT)
}

/// The one answer, whether or not the address is a user's.
const REQUESTED: &str = "If this email exists in our system, check your email for the reset link";

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestPasswordResetBody {
    #[schema(format = Email, max_length = 254)]
    email: String,
    /// The page where the user chooses a new password: the link leads there with `?token=`
    /// (default: the web app's `/reset-password/`).
    #[schema(max_length = 2048)]
    redirect_to: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct RequestPasswordResetResponse {
    status: bool,
    message: &'static str,
}

/// Mails a reset link if the address is a user's; the answer is the same either way. A newer
/// request replaces the older link.
#[utoipa::path(post, path = "/request-password-reset", tag = "password_reset", request_body = RequestPasswordResetBody,
    responses((status = 200, body = RequestPasswordResetResponse, description = "Always the same answer"), BodyErrors))]
async fn request_password_reset(
    State(state): State<AppState>,
    Input { body, .. }: Input<RequestPasswordResetBody>,
) -> Result<Reply, ApiError> {
    state
        .password_reset
        .clone()
        .request_password_reset(identity_pb::RequestPasswordResetRequest {
            email: body.email,
            redirect_to: body.redirect_to.filter(|r| !r.is_empty()),
        })
        .await?;
    Ok(Reply::json(&RequestPasswordResetResponse {
        status: true,
        message: REQUESTED,
    }))
}

/// The same as `/request-password-reset`, under the name clients before better-auth 1.4 use.
#[utoipa::path(post, path = "/forget-password", tag = "password_reset", request_body = RequestPasswordResetBody,
    responses((status = 200, body = RequestPasswordResetResponse, description = "Always the same answer"), BodyErrors))]
async fn forget_password(
    state: State<AppState>,
    input: Input<RequestPasswordResetBody>,
) -> Result<Reply, ApiError> {
    request_password_reset(state, input).await
}

#[derive(Deserialize, ToSchema)]
pub struct ResetLinkQuery {
    /// The page to send the user to; relative paths are on `BASE_URL`.
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: String,
}

/// The mailed link: redirects to `callbackURL` with `token=<token>` when the link still works,
/// else with `error=INVALID_TOKEN`.
#[utoipa::path(get, path = "/reset-password/{token}", tag = "password_reset", params(("token" = String, Path), ("callbackURL" = String, Query)),
    responses((status = 302, description = "To `callbackURL` with `token` or `error`"), BodyErrors))]
async fn reset_password_link(
    State(state): State<AppState>,
    Path(token): Path<String>,
    Input { body, .. }: Input<ResetLinkQuery>,
) -> Result<Reply, ApiError> {
    let valid = state
        .password_reset
        .clone()
        .check_reset_token(identity_pb::CheckResetTokenRequest {
            token: token.clone(),
        })
        .await
        .map_err(ApiError::from);
    let outcome = match valid {
        Ok(_) => ("token", token.as_str()),
        Err(ApiError::Failure(failure)) if failure.is(base::INVALID_TOKEN) => {
            ("error", base::INVALID_TOKEN.code())
        }
        Err(error) => return Err(error),
    };
    Ok(Reply::redirect(&with_param(
        &state,
        &body.callback_url,
        outcome,
    )))
}

/// `callback` made absolute on `BASE_URL`, with `name=value` set in its query as
/// `URLSearchParams.set` does (in the place of the same name, else at the end), dropping the
/// other of `token`/`error`. An empty callback leads to the auth API's error page, as
/// better-auth's does.
fn with_param(state: &AppState, callback: &str, (name, value): (&str, &str)) -> String {
    let base = &state.config.base_url;
    let target = if callback.is_empty() {
        base.join(&format!("{}/error", crate::BASE_PATH))
    } else {
        base.join(callback)
    };
    let Ok(mut url) = target else {
        return base.to_string();
    };
    let (name, value) = if callback.is_empty() {
        ("error", base::INVALID_TOKEN.code())
    } else {
        (name, value)
    };
    let mut set = false;
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, v) in url.query_pairs() {
        if k == name && !set {
            pairs.push((k.into_owned(), value.to_string()));
            set = true;
        } else if k != "token" && k != "error" {
            pairs.push((k.into_owned(), v.into_owned()));
        }
    }
    if !set {
        pairs.push((name.to_string(), value.to_string()));
    }
    url.query_pairs_mut().clear().extend_pairs(pairs);
    url.to_string()
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetPasswordBody {
    new_password: String,
    /// The link's token (or `?token=` in the query; the body wins).
    token: Option<String>,
}

/// Sets a new password with a mailed link's token, which is used up. No session is started.
#[utoipa::path(post, path = "/reset-password", tag = "password_reset", request_body = ResetPasswordBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"), (status = 400, body = ErrorBody, description = "`INVALID_TOKEN`, `PASSWORD_TOO_SHORT`, `PASSWORD_TOO_LONG`"), BodyErrors))]
async fn reset_password(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<ResetPasswordBody>,
) -> Result<Reply, ApiError> {
    let token = body
        .token
        .filter(|t| !t.is_empty())
        .or_else(|| meta.query("token").map(str::to_string))
        .unwrap_or_default();
    let reset = state
        .password_reset
        .clone()
        .reset_password(identity_pb::ResetPasswordRequest {
            token,
            new_password: body.new_password,
        })
        .await?
        .into_inner();
    if reset.revoke_sessions {
        state
            .sessions
            .clone()
            .revoke_user_sessions(session_pb::RevokeUserSessionsRequest {
                user_id: reset.user_id,
                except_token: None,
            })
            .await?;
    }
    Ok(Reply::json(&StatusResponse { status: true }))
}
