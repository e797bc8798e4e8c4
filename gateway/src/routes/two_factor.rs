//! The `two_factor` group: better-auth's twoFactor plugin under `/two-factor/*`
//! (`gatehouse.identity.v1.TwoFactorService`), and the gate every password sign-in passes
//! ([`sign_in`]): a user with the second factor on gets `{"twoFactorRedirect": true}` and a
//! signed two-factor cookie instead of a session, unless the browser holds a trust cookie of
//! theirs. The rules (codes, attempts, trust) are the identity service's; this group owns the
//! two cookies and turns a proved challenge into a session.

use axum::extract::State;
use base64::Engine as _;
use gatehouse_kit::errors::{base, two_factor as codes};
use gatehouse_proto::identity::v1 as identity_pb;
use secrecy::ExposeSecret as _;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Group;
use super::shared::session::{forget_cached_user, reissue, signed_in, start_session};
use crate::cookies;
use crate::error::ApiError;
use crate::extract::{Input, MaybeSession, RequestMeta, Session};
use crate::openapi::{BodyErrors, ErrorBody};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::{StatusResponse, User};

/// The web app's page that asks for a pending sign-in's code.
pub const CODE_PAGE: &str = "/sign-in/two-factor/";

pub fn router() -> Group {
    // better-auth's own rule for `/two-factor/*`: 3 requests in 10 s, as for sign-in.
    let guarded = Policy::DEFAULT.rate(RateRule::SignIn);
    Group::new()
        .route(route!(enable), guarded)
        .route(route!(disable), guarded)
        .route(route!(get_totp_uri), guarded)
        .route(route!(generate_backup_codes), guarded)
        .route(route!(verify_totp), guarded)
        .route(route!(send_otp), guarded)
        .route(route!(verify_otp), guarded)
        .route(route!(verify_backup_code), guarded)
}

/// What a sign-in of a user becomes: a session (with the trust cookie renewed, when the browser
/// presented one that proved itself), or a challenge (its cookies, and the methods to offer).
pub enum Gate {
    Open {
        trust_cookie: Option<String>,
    },
    Challenge {
        cookies: Vec<String>,
        methods: Vec<String>,
    },
}

/// Whether `user`'s sign-in needs a second factor from this browser.
pub async fn gate(
    state: &AppState,
    meta: &RequestMeta,
    user: &identity_pb::User,
    remember: bool,
) -> Result<Gate, ApiError> {
    if !user.two_factor_enabled {
        return Ok(Gate::Open { trust_cookie: None });
    }
    let names = &state.cookies.names;
    let presented = meta.cookie(&names.trust_device);
    let trusted_device = presented
        .as_deref()
        .and_then(|raw| trusted_identifier(state, raw, &user.id));
    let start = state
        .two_factor
        .clone()
        .begin_sign_in(identity_pb::BeginSignInRequest {
            user_id: user.id.clone(),
            remember,
            trusted_device,
        })
        .await?
        .into_inner();
    use identity_pb::begin_sign_in_response::Outcome;
    Ok(match start.outcome {
        None => Gate::Open { trust_cookie: None },
        Some(Outcome::Trusted(device)) => Gate::Open {
            trust_cookie: Some(trust_cookie(state, &user.id, &device)),
        },
        Some(Outcome::Challenge(challenge)) => {
            // No session yet: whatever session cookie the browser had is cleared, as
            // better-auth does, and a trust cookie that did not prove itself goes too.
            let mut cookies = vec![
                state.cookies.expire(&names.session_token),
                state.cookies.expire(&names.session_data),
            ];
            if presented.is_some() {
                cookies.push(state.cookies.expire(&names.trust_device));
            }
            let max_age = u64::try_from(challenge.expires_in_seconds).unwrap_or(0);
            cookies.push(state.cookies.set(
                &names.two_factor,
                &cookies::sign(state.config.secret(), &challenge.id),
                Some(max_age),
            ));
            Gate::Challenge {
                cookies,
                methods: challenge.methods,
            }
        }
    })
}

/// A sign-in's JSON answer for `user` (email, username, an app's id token): a session when
/// their second factor is off or the browser is one they trusted; else
/// `{"twoFactorRedirect": true, "twoFactorMethods": […]}` and the challenge's cookie.
pub async fn sign_in(
    state: &AppState,
    meta: &RequestMeta,
    user: identity_pb::User,
    remember: bool,
    callback: Option<String>,
) -> Result<Reply, ApiError> {
    match gate(state, meta, &user, remember).await? {
        Gate::Open { trust_cookie } => {
            let mut reply = signed_in(state, meta, user, remember, callback).await?;
            reply.set_cookies(trust_cookie);
            Ok(reply)
        }
        Gate::Challenge { cookies, methods } => {
            let mut reply = Reply::json(&TwoFactorRedirect {
                two_factor_redirect: true,
                two_factor_methods: methods,
            });
            reply.set_cookies(cookies);
            Ok(reply)
        }
    }
}

/// The trust cookie's inner signature, better-auth's: `HMAC(secret, "<userId>!<identifier>")`,
/// base64url without padding, so a cookie is good for its own user only.
fn trust_token(secret: &str, user_id: &str, identifier: &str) -> String {
    let mac = cookies::hmac_sha256(secret, format!("{user_id}!{identifier}").as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac)
}

/// `<token>!<identifier>`, signed like every cookie.
fn trust_cookie(state: &AppState, user_id: &str, device: &identity_pb::TrustedDevice) -> String {
    let secret = state.config.secret();
    let value = format!(
        "{}!{}",
        trust_token(secret, user_id, &device.identifier),
        device.identifier
    );
    state.cookies.set(
        &state.cookies.names.trust_device,
        &cookies::sign(secret, &value),
        Some(u64::try_from(device.expires_in_seconds).unwrap_or(0)),
    )
}

/// The identifier of a trust cookie that is `user_id`'s, its signatures checked.
pub fn trusted_identifier(state: &AppState, raw: &str, user_id: &str) -> Option<String> {
    let value = cookies::verify_any(&state.config.secrets, raw)?;
    let (token, identifier) = value.split_once('!')?;
    let valid = state.config.secrets.all().any(|secret| {
        let expected = trust_token(secret.expose_secret(), user_id, identifier);
        bool::from(subtle::ConstantTimeEq::ct_eq(
            expected.as_bytes(),
            token.as_bytes(),
        ))
    });
    valid.then(|| identifier.to_string())
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TwoFactorRedirect {
    two_factor_redirect: bool,
    /// `totp` when the user confirmed an authenticator app; `otp` (a code by mail) always.
    two_factor_methods: Vec<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnableBody {
    password: String,
    /// `totp` (default): set up an authenticator app, on once a first code is verified; `otp`:
    /// codes by mail, on at once.
    #[schema(inline)]
    method: Option<EnableMethod>,
    /// The name the authenticator app shows (default `TWO_FACTOR_ISSUER`).
    #[schema(max_length = 255)]
    issuer: Option<String>,
}

#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum EnableMethod {
    Otp,
    Totp,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnableResponse {
    method: String,
    #[serde(rename = "totpURI", skip_serializing_if = "Option::is_none")]
    totp_uri: Option<String>,
    /// Shown once: only their encrypted form is kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    backup_codes: Option<Vec<String>>,
}

/// Starts setting up a second factor (the password first).
#[utoipa::path(post, path = "/two-factor/enable", tag = "two_factor", request_body = EnableBody,
    responses((status = 200, body = EnableResponse, description = "`totp`: the URI for the authenticator app and ten backup codes; the second factor is on once `/two-factor/verify-totp` accepts a first code. `otp`: on now"),
        (status = 400, body = ErrorBody, description = "`INVALID_PASSWORD`, `TOTP_ALREADY_ENABLED`"), BodyErrors))]
async fn enable(
    State(state): State<AppState>,
    Input {
        body,
        auth: caller,
        meta,
    }: Input<EnableBody, Session>,
) -> Result<Reply, ApiError> {
    let method = match body.method {
        Some(EnableMethod::Otp) => "otp",
        Some(EnableMethod::Totp) | None => "totp",
    };
    let enabled = state
        .two_factor
        .clone()
        .enable_two_factor(identity_pb::EnableTwoFactorRequest {
            user_id: caller.user.id.clone(),
            password: body.password,
            method: method.into(),
            issuer: body.issuer,
        })
        .await?
        .into_inner();
    let changed = enabled
        .user
        .as_ref()
        .is_some_and(|u| u.two_factor_enabled != caller.user.two_factor_enabled);
    // The secret and the codes are for this response alone: never kept by a cache.
    let mut reply = Reply::json(&EnableResponse {
        totp_uri: enabled.totp_uri,
        backup_codes: (enabled.method == "totp").then_some(enabled.backup_codes),
        method: enabled.method,
    })
    .no_store();
    if changed {
        refresh_user(&state, &meta, &caller, &mut reply).await?;
    }
    Ok(reply)
}

#[derive(Deserialize, ToSchema)]
pub struct PasswordBody {
    password: String,
}

/// Turns the second factor off (the password first); every trusted browser is forgotten.
#[utoipa::path(post, path = "/two-factor/disable", tag = "two_factor", request_body = PasswordBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"),
        (status = 400, body = ErrorBody, description = "`INVALID_PASSWORD`"), BodyErrors))]
async fn disable(
    State(state): State<AppState>,
    Input {
        body,
        auth: caller,
        meta,
    }: Input<PasswordBody, Session>,
) -> Result<Reply, ApiError> {
    state
        .two_factor
        .clone()
        .disable_two_factor(identity_pb::DisableTwoFactorRequest {
            user_id: caller.user.id.clone(),
            password: body.password,
        })
        .await?;
    let mut reply = Reply::json(&StatusResponse { status: true });
    refresh_user(&state, &meta, &caller, &mut reply).await?;
    if meta.cookie(&state.cookies.names.trust_device).is_some() {
        reply.set_cookie(&state.cookies.expire(&state.cookies.names.trust_device));
    }
    Ok(reply)
}

/// The caller's user changed: cached copies go, and the cookie cache is issued again (not to
/// a caller signed in by an API key, who has no cookies).
async fn refresh_user(
    state: &AppState,
    meta: &RequestMeta,
    caller: &Session,
    reply: &mut Reply,
) -> Result<(), ApiError> {
    forget_cached_user(state, &caller.user.id).await;
    if crate::extract::api_key::presented(state, meta).is_none() {
        reply.set_cookies(reissue(state, meta, caller).await?);
    }
    Ok(())
}

#[derive(Serialize, ToSchema)]
pub struct TotpUriResponse {
    #[serde(rename = "totpURI")]
    totp_uri: String,
}

/// The authenticator app's URI again (the password first).
#[utoipa::path(post, path = "/two-factor/get-totp-uri", tag = "two_factor", request_body = PasswordBody,
    responses((status = 200, body = TotpUriResponse, description = "The `otpauth://` URI"),
        (status = 400, body = ErrorBody, description = "`TOTP_NOT_ENABLED`, `INVALID_PASSWORD`"), BodyErrors))]
async fn get_totp_uri(
    State(state): State<AppState>,
    Input {
        body, auth: caller, ..
    }: Input<PasswordBody, Session>,
) -> Result<Reply, ApiError> {
    let totp_uri = state
        .two_factor
        .clone()
        .get_totp_uri(identity_pb::GetTotpUriRequest {
            user_id: caller.user.id,
            password: body.password,
        })
        .await?
        .into_inner()
        .totp_uri;
    Ok(Reply::json(&TotpUriResponse { totp_uri }).no_store())
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupCodesResponse {
    status: bool,
    backup_codes: Vec<String>,
}

/// Ten new backup codes in place of the old ones (the password first).
#[utoipa::path(post, path = "/two-factor/generate-backup-codes", tag = "two_factor", request_body = PasswordBody,
    responses((status = 200, body = BackupCodesResponse, description = "The new codes, shown once"),
        (status = 400, body = ErrorBody, description = "`TWO_FACTOR_NOT_ENABLED`, `INVALID_PASSWORD`"), BodyErrors))]
async fn generate_backup_codes(
    State(state): State<AppState>,
    Input {
        body, auth: caller, ..
    }: Input<PasswordBody, Session>,
) -> Result<Reply, ApiError> {
    let backup_codes = state
        .two_factor
        .clone()
        .generate_backup_codes(identity_pb::GenerateBackupCodesRequest {
            user_id: caller.user.id,
            password: body.password,
        })
        .await?
        .into_inner()
        .backup_codes;
    Ok(Reply::json(&BackupCodesResponse {
        status: true,
        backup_codes,
    })
    .no_store())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyBody {
    #[schema(max_length = 64)]
    code: String,
    /// Remember this browser: its next sign-ins skip the second factor (30 days by default,
    /// renewed at each).
    trust_device: Option<bool>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyBackupCodeBody {
    #[schema(max_length = 64)]
    code: String,
    /// Prove the code without starting a session.
    disable_session: Option<bool>,
    trust_device: Option<bool>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedResponse {
    /// The new session's token (the caller's own when already signed in by a cookie).
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    user: User,
}

/// Whose code: the signed-in caller's, else the pending sign-in of the two-factor cookie.
fn target(
    state: &AppState,
    meta: &RequestMeta,
    caller: &Option<Session>,
) -> Result<identity_pb::TwoFactorTarget, ApiError> {
    use identity_pb::two_factor_target::Target;
    let target = match caller {
        Some(caller) => Target::SignedIn(identity_pb::SignedInUser {
            user_id: caller.user.id.clone(),
            session_id: caller.session.id.clone(),
        }),
        None => {
            let id = meta
                .cookie(&state.cookies.names.two_factor)
                .and_then(|raw| cookies::verify_any(&state.config.secrets, &raw))
                .ok_or(codes::INVALID_TWO_FACTOR_COOKIE)?;
            Target::Challenge(id)
        }
    };
    Ok(identity_pb::TwoFactorTarget {
        target: Some(target),
    })
}

async fn verify(
    state: &AppState,
    meta: &RequestMeta,
    caller: Option<Session>,
    method: identity_pb::TwoFactorMethod,
    code: String,
    trust_device: bool,
    start_session_too: bool,
) -> Result<Reply, ApiError> {
    let names = &state.cookies.names;
    let verified = state
        .two_factor
        .clone()
        .verify_two_factor(identity_pb::VerifyTwoFactorRequest {
            target: Some(target(state, meta, &caller)?),
            method: method.into(),
            code,
            // A browser is trusted only when it is signed in by this answer.
            trust_device: trust_device && start_session_too,
        })
        .await;
    let verified = match verified {
        Ok(verified) => verified.into_inner(),
        Err(status) => {
            let error = ApiError::from(status);
            // A challenge that is over: its cookie goes, as better-auth expires it.
            if let ApiError::Failure(failure) = &error
                && caller.is_none()
                && (failure.is(codes::INVALID_TWO_FACTOR_COOKIE)
                    || failure.is(codes::TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE))
            {
                meta.response_cookies
                    .add([state.cookies.expire(&names.two_factor)]);
            }
            return Err(error);
        }
    };
    let user = verified.user.ok_or(base::USER_NOT_FOUND)?;
    if let Some(caller) = caller {
        let by_key = crate::extract::api_key::presented(state, meta).is_some();
        let mut reply = Reply::json(&VerifiedResponse {
            token: (!by_key).then(|| caller.session.token.clone()),
            user: user.into(),
        });
        if verified.enabled {
            refresh_user(state, meta, &caller, &mut reply).await?;
        }
        return Ok(reply);
    }
    if !start_session_too {
        let mut reply = Reply::json(&VerifiedResponse {
            token: None,
            user: user.into(),
        });
        reply.set_cookie(&state.cookies.expire(&names.two_factor));
        return Ok(reply);
    }
    let user_id = user.id.clone();
    // The extractor may have queued the deletion of a dead session's cookies: sent after the
    // new session's, it would undo them.
    drop(meta.response_cookies.take());
    let data = start_session(state, meta, user, verified.remember).await?;
    let mut reply = Reply::json(&VerifiedResponse {
        token: Some(data.session.token.clone()),
        user: data.user.clone(),
    });
    reply.set_cookies(session_cookies::issue(
        state,
        meta,
        &data,
        verified.remember,
    ));
    reply.set_cookie(&state.cookies.expire(&names.two_factor));
    if let Some(device) = verified.trusted {
        reply.set_cookie(&trust_cookie(state, &user_id, &device));
    }
    Ok(reply)
}

/// Checks a code from the authenticator app: finishes a pending sign-in, or turns the second
/// factor on for a signed-in user setting it up.
#[utoipa::path(post, path = "/two-factor/verify-totp", tag = "two_factor", request_body = VerifyBody,
    responses((status = 200, body = VerifiedResponse, description = "A pending sign-in becomes a session (its cookies set)"),
        (status = 400, body = ErrorBody, description = "`TOTP_NOT_ENABLED`, `TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE`"),
        (status = 401, body = ErrorBody, description = "`INVALID_CODE` (a code used before too), `INVALID_TWO_FACTOR_COOKIE`"),
        (status = 429, body = ErrorBody, description = "`ACCOUNT_TEMPORARILY_LOCKED`: too many wrong codes for the account; `X-Retry-After` says when to try again"), BodyErrors))]
async fn verify_totp(
    State(state): State<AppState>,
    Input {
        body,
        auth: MaybeSession(caller),
        meta,
    }: Input<VerifyBody, MaybeSession>,
) -> Result<Reply, ApiError> {
    let trust = body.trust_device.unwrap_or(false);
    let method = identity_pb::TwoFactorMethod::Totp;
    verify(&state, &meta, caller, method, body.code, trust, true).await
}

/// Checks a code sent by mail (`/two-factor/send-otp`).
#[utoipa::path(post, path = "/two-factor/verify-otp", tag = "two_factor", request_body = VerifyBody,
    responses((status = 200, body = VerifiedResponse, description = "A pending sign-in becomes a session (its cookies set)"),
        (status = 400, body = ErrorBody, description = "`OTP_HAS_EXPIRED`, `TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE`"),
        (status = 401, body = ErrorBody, description = "`INVALID_CODE`, `INVALID_TWO_FACTOR_COOKIE`"),
        (status = 429, body = ErrorBody, description = "`ACCOUNT_TEMPORARILY_LOCKED`"), BodyErrors))]
async fn verify_otp(
    State(state): State<AppState>,
    Input {
        body,
        auth: MaybeSession(caller),
        meta,
    }: Input<VerifyBody, MaybeSession>,
) -> Result<Reply, ApiError> {
    let trust = body.trust_device.unwrap_or(false);
    let method = identity_pb::TwoFactorMethod::Otp;
    verify(&state, &meta, caller, method, body.code, trust, true).await
}

/// Checks a backup code; each works once.
#[utoipa::path(post, path = "/two-factor/verify-backup-code", tag = "two_factor", request_body = VerifyBackupCodeBody,
    responses((status = 200, body = VerifiedResponse, description = "A pending sign-in becomes a session unless `disableSession`"),
        (status = 400, body = ErrorBody, description = "`BACKUP_CODES_NOT_ENABLED`, `TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE`"),
        (status = 401, body = ErrorBody, description = "`INVALID_BACKUP_CODE`, `INVALID_TWO_FACTOR_COOKIE`"),
        (status = 429, body = ErrorBody, description = "`ACCOUNT_TEMPORARILY_LOCKED`"), BodyErrors))]
async fn verify_backup_code(
    State(state): State<AppState>,
    Input {
        body,
        auth: MaybeSession(caller),
        meta,
    }: Input<VerifyBackupCodeBody, MaybeSession>,
) -> Result<Reply, ApiError> {
    let trust = body.trust_device.unwrap_or(false);
    let start = !body.disable_session.unwrap_or(false);
    let method = identity_pb::TwoFactorMethod::BackupCode;
    verify(&state, &meta, caller, method, body.code, trust, start).await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendOtpBody {
    /// Accepted for better-auth's client; trust is asked for when the code is verified.
    trust_device: Option<bool>,
}

/// Mails a one-time code to the pending sign-in's user (or the signed-in caller), in their
/// language; it works for `TWO_FACTOR_OTP_EXPIRES_IN` seconds.
#[utoipa::path(post, path = "/two-factor/send-otp", tag = "two_factor", request_body(content = Option<SendOtpBody>, content_type = "application/json"),
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`; the code is on its way"),
        (status = 401, body = ErrorBody, description = "`INVALID_TWO_FACTOR_COOKIE`"), BodyErrors))]
async fn send_otp(
    State(state): State<AppState>,
    Input {
        body,
        auth: MaybeSession(caller),
        meta,
    }: Input<SendOtpBody, MaybeSession>,
) -> Result<Reply, ApiError> {
    let _ = body.trust_device;
    state
        .two_factor
        .clone()
        .send_otp(identity_pb::SendOtpRequest {
            target: Some(target(&state, &meta, &caller)?),
        })
        .await?;
    Ok(Reply::json(&StatusResponse { status: true }))
}
