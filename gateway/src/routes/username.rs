//! The `username` group (better-auth's username plugin, §9): `POST /sign-in/username` and
//! `POST /is-username-available` (`gatehouse.identity.v1.UsernameService`).

use axum::extract::State;
use gatehouse_kit::errors::username as codes;
use gatehouse_proto::identity::v1 as identity_pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Group;
use crate::error::ApiError;
use crate::extract::Input;
use crate::openapi::{BodyErrors, ErrorBody};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::state::AppState;
use crate::wire::SignInResponse;

pub fn router() -> Group {
    Group::new()
        // JSON only: unlike sign-in/email, no form posts (§9.4).
        .route(
            route!(sign_in_username),
            Policy::DEFAULT.rate(RateRule::SignIn),
        )
        .route(route!(is_username_available), Policy::DEFAULT)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignInUsernameBody {
    #[schema(max_length = 255)]
    username: String,
    password: String,
    /// Returned as `url` (and `Location`) for the client to navigate to.
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
    /// `false`: a one-day session held in browser-session cookies.
    remember_me: Option<bool>,
}

/// Signs in with a username (any case) and a password.
#[utoipa::path(post, path = "/sign-in/username", tag = "username", request_body = SignInUsernameBody,
    responses((status = 200, body = SignInResponse, description = "The user and their session token; the session cookies are set"),
        (status = 401, body = ErrorBody, description = "`INVALID_USERNAME_OR_PASSWORD`"),
        (status = 422, body = ErrorBody, description = "`USERNAME_TOO_SHORT`, `USERNAME_TOO_LONG`, `INVALID_USERNAME`"), BodyErrors))]
async fn sign_in_username(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<SignInUsernameBody>,
) -> Result<Reply, ApiError> {
    let callback = body.callback_url.filter(|c| !c.is_empty());
    let remember = body.remember_me.unwrap_or(true);
    let user = state
        .usernames
        .clone()
        .sign_in_username(identity_pb::SignInUsernameRequest {
            username: body.username,
            password: body.password,
        })
        .await?
        .into_inner()
        .user
        .ok_or(codes::INVALID_USERNAME_OR_PASSWORD)?;
    super::two_factor::sign_in(&state, &meta, user, remember, callback).await
}

#[derive(Deserialize, ToSchema)]
pub struct IsUsernameAvailableBody {
    #[schema(max_length = 255)]
    username: String,
}

#[derive(Serialize, ToSchema)]
pub struct IsUsernameAvailableResponse {
    available: bool,
}

/// Whether a username is valid and not taken (ignoring case).
#[utoipa::path(post, path = "/is-username-available", tag = "username", request_body = IsUsernameAvailableBody,
    responses((status = 200, body = IsUsernameAvailableResponse, description = "`{\"available\": true|false}`"),
        (status = 422, body = ErrorBody, description = "`USERNAME_TOO_SHORT`, `USERNAME_TOO_LONG`, `INVALID_USERNAME`"), BodyErrors))]
async fn is_username_available(
    State(state): State<AppState>,
    Input { body, .. }: Input<IsUsernameAvailableBody>,
) -> Result<Reply, ApiError> {
    let available = state
        .usernames
        .clone()
        .is_username_available(identity_pb::IsUsernameAvailableRequest {
            username: body.username,
        })
        .await?
        .into_inner()
        .available;
    Ok(Reply::json(&IsUsernameAvailableResponse { available }))
}
