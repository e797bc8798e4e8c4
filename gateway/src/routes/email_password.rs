//! The `email_password` group: `POST /sign-up/email` and `POST /sign-in/email`
//! (`gatehouse.identity.v1.EmailPasswordService`).

use axum::extract::State;
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use serde::Deserialize;
use utoipa::ToSchema;

use super::Group;
use super::shared::session::start_session;
use crate::error::ApiError;
use crate::extract::Input;
use crate::openapi::{BodyErrors, ErrorBody};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::{SignInResponse, SignUpResponse};

pub fn router() -> Group {
    let login = Policy::DEFAULT.rate(RateRule::SignIn).form_login();
    Group::new()
        .route(route!(sign_up), login)
        .route(route!(sign_in), login)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
// Free-text fields are bounded (better-auth leaves them unbounded): a name of 255 characters,
// an address of 254 (RFC 5321 §4.5.3.1.3), URLs of 2048.
pub struct SignUpBody {
    #[schema(max_length = 255, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    name: String,
    #[schema(format = Email, max_length = 254)]
    email: String,
    #[schema(min_length = 1)]
    password: String,
    #[schema(max_length = 2048)]
    image: Option<String>,
    /// Where the verification email's link sends the user (checked like every redirect
    /// target).
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
    /// The language of the user's mails, a platform code (0 ru, 1 uk, 3 en, 4 es, 6 de,
    /// 15 pl, 16 fr, 82 tr); default: the best match of `Accept-Language`, else English.
    language: Option<i32>,
    /// `false`: a one-day session held in browser-session cookies.
    remember_me: Option<bool>,
    /// Username plugin: 3–30 letters, digits, `_` or `.` by default (`USERNAME_*_LENGTH`);
    /// stored lower-cased, unique ignoring case.
    #[schema(max_length = 255)]
    username: Option<String>,
    /// The username as the user wants it shown; alone, and a valid username, it is the
    /// username too.
    #[schema(max_length = 255)]
    display_username: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignInBody {
    #[schema(max_length = 254)]
    email: String,
    password: String,
    /// Returned as `url` (and `Location`) for the client to navigate to.
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
    remember_me: Option<bool>,
}

/// Creates a user and signs them in.
#[utoipa::path(post, path = "/sign-up/email", tag = "email_password", request_body(content((SignUpBody = "application/json"), (SignUpBody = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = SignUpResponse, description = "The new user and their session token; the session cookies are set"), (status = 422, body = ErrorBody, description = "`USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL`, `FAILED_TO_CREATE_USER`"), BodyErrors))]
// 400 also carries the username plugin's refusals (`USERNAME_IS_ALREADY_TAKEN`,
// `USERNAME_TOO_SHORT`, `USERNAME_TOO_LONG`, `INVALID_USERNAME`).
async fn sign_up(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<SignUpBody>,
) -> Result<Reply, ApiError> {
    let remember = body.remember_me.unwrap_or(true);
    let signed_up = state
        .email_password
        .clone()
        .sign_up_email(identity_pb::SignUpEmailRequest {
            name: body.name,
            email: body.email,
            password: body.password,
            image: body.image,
            username: body.username,
            display_username: body.display_username,
            language: Some(body.language.unwrap_or_else(|| meta.language())),
            callback_url: body.callback_url.filter(|c| !c.is_empty()),
        })
        .await?
        .into_inner();
    let user = signed_up.user.ok_or(base::FAILED_TO_CREATE_USER)?;
    if !signed_up.sign_in {
        // The address must be verified first (REQUIRE_EMAIL_VERIFICATION).
        return Ok(Reply::json(&SignUpResponse {
            token: None,
            user: user.into(),
            verification_email_sent: signed_up.verification_mail_sent,
        }));
    }
    let data = start_session(&state, &meta, user, remember).await?;
    let mut reply = Reply::json(&SignUpResponse {
        token: Some(data.session.token.clone()),
        user: data.user.clone(),
        verification_email_sent: signed_up.verification_mail_sent,
    });
    reply.set_cookies(session_cookies::issue(&state, &meta, &data, remember));
    Ok(reply)
}

/// Signs in with an email and a password.
#[utoipa::path(post, path = "/sign-in/email", tag = "email_password", request_body(content((SignInBody = "application/json"), (SignInBody = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = SignInResponse, description = "The user and their session token; the session cookies are set"), (status = 401, body = ErrorBody, description = "`INVALID_EMAIL_OR_PASSWORD`"), BodyErrors))]
async fn sign_in(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<SignInBody>,
) -> Result<Reply, ApiError> {
    let callback = body.callback_url.filter(|c| !c.is_empty());
    let remember = body.remember_me.unwrap_or(true);
    let user = state
        .email_password
        .clone()
        .sign_in_email(identity_pb::SignInEmailRequest {
            email: body.email,
            password: body.password,
        })
        .await?
        .into_inner()
        .user
        .ok_or(base::INVALID_EMAIL_OR_PASSWORD)?;
    super::two_factor::sign_in(&state, &meta, user, remember, callback).await
}
