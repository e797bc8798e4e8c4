//! The `social` group: `POST /sign-in/social` and `GET`/`POST /callback/{id}`
//! (`gatehouse.identity.v1.SocialService`). The identity service keeps the pending state and
//! talks to the provider; this group keeps the browser's signed state cookie, starts the
//! session and says where the browser goes.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use super::shared::session::start_session;
use crate::cookies;
use crate::error::ApiError;
use crate::extract::{FreshSession, Input, RequestMeta, Session};
use crate::openapi::{BodyErrors, ErrorBody, QueryErrors};
use crate::policy::{Policy, RateRule};
use crate::reply::Reply;
use crate::session_cookies;
use crate::state::AppState;
use crate::wire::StatusResponse;

pub fn router() -> Group {
    Group::new()
        .route(
            route!(sign_in_social),
            Policy::DEFAULT.rate(RateRule::SignIn).form_login(),
        )
        .route(route!(callback, callback_form_post), Policy::DEFAULT)
        .route(route!(social_providers), Policy::DEFAULT)
        .route(route!(link_social), Policy::DEFAULT)
        .route(route!(unlink_account), Policy::DEFAULT)
}

#[derive(Serialize, ToSchema)]
pub struct SocialProvider {
    /// What `signIn.social` takes as `provider`.
    id: String,
    /// What its button says.
    name: String,
}

#[derive(Serialize, ToSchema)]
pub struct SocialProviders {
    providers: Vec<SocialProvider>,
}

/// The configured providers, for the sign-in screens (not better-auth's: its apps list their
/// providers in their own code; here they come from `SOCIAL_PROVIDERS`).
#[utoipa::path(get, path = "/social-providers", tag = "social",
    responses((status = 200, body = SocialProviders, description = "Every configured provider, by id"), QueryErrors))]
async fn social_providers(State(state): State<AppState>) -> Result<Reply, ApiError> {
    let listed = state
        .social
        .clone()
        .list_providers(identity_pb::ListProvidersRequest {})
        .await?
        .into_inner();
    Ok(Reply::json(&SocialProviders {
        providers: listed
            .providers
            .into_iter()
            .map(|p| SocialProvider {
                id: p.id,
                name: p.name,
            })
            .collect(),
    }))
}

/// The fields of a provider's answer the callback reads (better-auth's callback schema).
const CALLBACK_FIELDS: [&str; 7] = [
    "code",
    "error",
    "error_description",
    "state",
    "iss",
    "user",
    "device_id",
];

/// How long the state cookie lives: the provider's sign-in page should not take longer.
const STATE_COOKIE_MAX_AGE: u64 = 300;

/// Authorization parameters a caller may not set: the flow's own.
const RESERVED_PARAMS: [&str; 8] = [
    "state",
    "client_id",
    "redirect_uri",
    "response_type",
    "code_challenge",
    "code_challenge_method",
    "nonce",
    "scope",
];

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignInSocialBody {
    /// A configured provider's id (`SOCIAL_PROVIDERS`).
    #[schema(max_length = 64)]
    provider: String,
    /// Where the browser goes once signed in (default: the app's home).
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
    /// Where a user who was created by this sign-in goes instead.
    #[schema(max_length = 2048)]
    #[serde(rename = "newUserCallbackURL")]
    new_user_callback_url: Option<String>,
    /// Where a refusal goes, with `?error=<code>&error_description=…` (default: the error
    /// page).
    #[schema(max_length = 2048)]
    #[serde(rename = "errorCallbackURL")]
    error_callback_url: Option<String>,
    /// Answer the URL without a `Location` header.
    disable_redirect: Option<bool>,
    /// Asked for besides the provider's configured scopes.
    scopes: Option<Vec<String>>,
    /// Create the user even where the provider signs up only on request.
    request_sign_up: Option<bool>,
    /// Passed to the provider as `login_hint`.
    #[schema(max_length = 254)]
    login_hint: Option<String>,
    /// More authorization parameters (not the flow's own: `state`, `scope`, …).
    additional_params: Option<BTreeMap<String, String>>,
    /// Accepted; not kept.
    #[schema(value_type = Option<Object>)]
    additional_data: Option<Value>,
    /// An id token the app got from the provider: signs in at once, without a redirect.
    #[schema(inline)]
    id_token: Option<IdTokenBody>,
}

/// An id token from the provider's own client library (better-auth's `idToken`).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdTokenBody {
    /// The id token (a JWT signed by the provider).
    #[schema(max_length = 16384)]
    token: String,
    /// The nonce the app sent the provider: the token must carry it.
    #[schema(max_length = 512)]
    nonce: Option<String>,
    /// The provider's access token, kept with the account.
    #[schema(max_length = 8192)]
    access_token: Option<String>,
    /// Accepted; not kept (as better-auth).
    #[schema(max_length = 8192)]
    refresh_token: Option<String>,
    /// Accepted; not kept.
    expires_at: Option<f64>,
    /// Apple's first-sign-in user object: accepted; not read.
    #[schema(value_type = Option<Object>)]
    user: Option<Value>,
}

impl IdTokenBody {
    fn request(
        self,
        provider_id: String,
        request_sign_up: bool,
        link_user_id: Option<String>,
        language: i32,
    ) -> identity_pb::SignInWithIdTokenRequest {
        let _not_kept = (self.refresh_token, self.expires_at, self.user);
        identity_pb::SignInWithIdTokenRequest {
            provider_id,
            token: self.token,
            nonce: self.nonce,
            access_token: self.access_token,
            request_sign_up,
            link_user_id,
            language: Some(language),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SignInSocialResponse {
    /// The provider's authorization URL.
    url: String,
    /// Whether the answer carries a `Location` header to it.
    redirect: bool,
}

/// Starts a sign-in through a provider: answers its authorization URL (and a `Location` to
/// it unless `disableRedirect`) and sets the signed state cookie its callback needs. With
/// `idToken`: verifies it against the provider's keys and signs in at once.
#[utoipa::path(post, path = "/sign-in/social", tag = "social", request_body = SignInSocialBody,
    responses((status = 200, body = SignInSocialResponse, description = "`{url, redirect}`; with `idToken`, `{redirect: false, token, user}` and the session cookies"),
        (status = 401, body = ErrorBody, description = "`idToken`: `INVALID_TOKEN`, `USER_EMAIL_NOT_FOUND`, `FAILED_TO_GET_USER_INFO`, `OAUTH_LINK_ERROR` (`account not linked`, `signup disabled`, …)"),
        (status = 403, body = ErrorBody, description = "`idToken`: `EMAIL_NOT_VERIFIED` (the provider did not verify the address), `BANNED_USER`"),
        (status = 404, body = ErrorBody, description = "`PROVIDER_NOT_FOUND`, or `ID_TOKEN_NOT_SUPPORTED` (`idToken` to a plain OAuth 2 provider)"),
        (status = 502, body = ErrorBody, description = "The provider could not be reached"),
        BodyErrors))]
async fn sign_in_social(
    State(state): State<AppState>,
    Input { body, meta, .. }: Input<SignInSocialBody>,
) -> Result<Reply, ApiError> {
    if let Some(id_token) = body.id_token {
        let request_sign_up = body.request_sign_up.unwrap_or(false);
        let signed_in = state
            .social
            .clone()
            .sign_in_with_id_token(id_token.request(
                body.provider,
                request_sign_up,
                None,
                meta.language(),
            ))
            .await?
            .into_inner();
        let user = signed_in.user.ok_or(base::FAILED_TO_CREATE_SESSION)?;
        if state.config.two_factor_social_sign_in {
            return super::two_factor::sign_in(&state, &meta, user, true, None).await;
        }
        return super::shared::session::signed_in(&state, &meta, user, true, None).await;
    }
    let additional_params = checked_params(body.additional_params)?;
    let _ = body.additional_data;
    begin(
        &state,
        identity_pb::StartSocialSignInRequest {
            provider_id: body.provider,
            callback_url: body.callback_url.unwrap_or_default(),
            new_user_callback_url: body.new_user_callback_url,
            error_callback_url: body.error_callback_url,
            scopes: body.scopes.unwrap_or_default(),
            login_hint: body.login_hint,
            additional_params: additional_params.into_iter().collect(),
            request_sign_up: body.request_sign_up.unwrap_or(false),
            language: Some(meta.language()),
            ..Default::default()
        },
        body.disable_redirect.unwrap_or(false),
    )
    .await
}

/// `additionalParams`, refused when they would set one of the flow's own parameters.
fn checked_params(
    params: Option<BTreeMap<String, String>>,
) -> Result<BTreeMap<String, String>, ApiError> {
    let params = params.unwrap_or_default();
    if let Some(reserved) = params
        .keys()
        .find(|key| RESERVED_PARAMS.contains(&key.as_str()))
    {
        return Err(base::VALIDATION_ERROR
            .with_message(format!(
                "[body.additionalParams] {reserved} is set by the sign-in itself"
            ))
            .into());
    }
    Ok(params)
}

/// Starts a sign-in or a link at the identity service and answers `{url, redirect}` with the
/// signed state cookie the callback checks.
async fn begin(
    state: &AppState,
    mut request: identity_pb::StartSocialSignInRequest,
    disable_redirect: bool,
) -> Result<Reply, ApiError> {
    let base_url = state.config.base_url.as_str().trim_end_matches('/');
    request.redirect_uri = format!(
        "{base_url}{}/callback/{}",
        crate::BASE_PATH,
        request.provider_id
    );
    if request.callback_url.is_empty() {
        request.callback_url = format!("{base_url}/");
    }
    let started = state
        .social
        .clone()
        .start_social_sign_in(request)
        .await?
        .into_inner();
    let redirect = !disable_redirect;
    let mut reply = Reply::json(&SignInSocialResponse {
        url: started.url.clone(),
        redirect,
    });
    if redirect && let Ok(location) = HeaderValue::from_str(&started.url) {
        reply
            .response
            .headers_mut()
            .insert(header::LOCATION, location);
    }
    let jar = &state.cookies;
    reply.set_cookie(&jar.set(
        &jar.names.state,
        &cookies::sign(state.config.secret(), &started.state),
        Some(STATE_COOKIE_MAX_AGE),
    ));
    Ok(reply)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkSocialBody {
    /// A configured provider's id (`SOCIAL_PROVIDERS`).
    #[schema(max_length = 64)]
    provider: String,
    /// Where the browser goes once linked (default: the app's home).
    #[schema(max_length = 2048)]
    #[serde(rename = "callbackURL")]
    callback_url: Option<String>,
    /// Where a refusal goes, with `?error=<code>&error_description=…`.
    #[schema(max_length = 2048)]
    #[serde(rename = "errorCallbackURL")]
    error_callback_url: Option<String>,
    disable_redirect: Option<bool>,
    scopes: Option<Vec<String>>,
    /// Passed to the provider as `login_hint`.
    #[schema(max_length = 254)]
    login_hint: Option<String>,
    /// More authorization parameters (not the flow's own: `state`, `scope`, …).
    additional_params: Option<BTreeMap<String, String>>,
    /// Accepted; a link never creates a user.
    request_sign_up: Option<bool>,
    #[schema(value_type = Option<Object>)]
    additional_data: Option<Value>,
    /// An id token the app got from the provider: links at once, without a redirect.
    #[schema(inline)]
    id_token: Option<IdTokenBody>,
}

/// What a link with an id token answers (better-auth's shape).
#[derive(Serialize, ToSchema)]
pub struct LinkedResponse {
    /// Always empty: nowhere to go.
    url: String,
    status: bool,
    redirect: bool,
}

/// Links a provider's account to the signed-in user: answers the provider's authorization
/// URL; the callback then adds the account (when the provider verified the address and it is
/// the user's, unless `ACCOUNT_LINKING_ALLOW_DIFFERENT_EMAILS`) and goes to `callbackURL`.
#[utoipa::path(post, path = "/link-social", tag = "social", request_body = LinkSocialBody,
    responses((status = 200, body = SignInSocialResponse, description = "`{url, redirect}`; with `idToken`, `{url: \"\", status: true, redirect: false}`"),
        (status = 401, body = ErrorBody, description = "`idToken`: `INVALID_TOKEN`, `USER_EMAIL_NOT_FOUND`, `LINKING_NOT_ALLOWED`, `LINKING_DIFFERENT_EMAILS_NOT_ALLOWED`"),
        (status = 404, body = ErrorBody, description = "`PROVIDER_NOT_FOUND`, or `ID_TOKEN_NOT_SUPPORTED` (`idToken` to a plain OAuth 2 provider)"),
        (status = 409, body = ErrorBody, description = "`idToken`: `SOCIAL_ACCOUNT_ALREADY_LINKED` (to another user)"),
        (status = 417, body = ErrorBody, description = "`idToken`: `LINKING_FAILED`"),
        (status = 502, body = ErrorBody, description = "The provider could not be reached"),
        BodyErrors))]
async fn link_social(
    State(state): State<AppState>,
    Input {
        body, auth, meta, ..
    }: Input<LinkSocialBody, Session>,
) -> Result<Reply, ApiError> {
    if let Some(id_token) = body.id_token {
        state
            .social
            .clone()
            .sign_in_with_id_token(id_token.request(
                body.provider,
                false,
                Some(auth.user.id),
                meta.language(),
            ))
            .await?;
        return Ok(Reply::json(&LinkedResponse {
            url: String::new(),
            status: true,
            redirect: false,
        }));
    }
    let _ = (body.additional_data, body.request_sign_up);
    let additional_params = checked_params(body.additional_params)?;
    begin(
        &state,
        identity_pb::StartSocialSignInRequest {
            provider_id: body.provider,
            callback_url: body.callback_url.unwrap_or_default(),
            error_callback_url: body.error_callback_url,
            scopes: body.scopes.unwrap_or_default(),
            login_hint: body.login_hint,
            additional_params: additional_params.into_iter().collect(),
            link_user_id: Some(auth.user.id),
            ..Default::default()
        },
        body.disable_redirect.unwrap_or(false),
    )
    .await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnlinkAccountBody {
    /// The provider (better-auth's spec form), with `accountId` the provider's id for the
    /// user when there are several.
    #[schema(max_length = 64)]
    provider_id: Option<String>,
    /// Alone (better-auth 1.7's form): the account's own id, as list-accounts shows it.
    #[schema(max_length = 255)]
    account_id: Option<String>,
}

/// Removes one of the caller's sign-in methods; never the last one unless
/// `ACCOUNT_LINKING_ALLOW_UNLINKING_ALL`. Needs a recent sign-in.
#[utoipa::path(post, path = "/unlink-account", tag = "social", request_body = UnlinkAccountBody,
    responses((status = 200, body = StatusResponse, description = "`{\"status\": true}`"),
        (status = 400, body = ErrorBody, description = "`ACCOUNT_NOT_FOUND`, `FAILED_TO_UNLINK_LAST_ACCOUNT`, `VALIDATION_ERROR`"),
        BodyErrors))]
async fn unlink_account(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<UnlinkAccountBody, FreshSession>,
) -> Result<Reply, ApiError> {
    // Naming neither is naming no account: ACCOUNT_NOT_FOUND, from the service.
    state
        .social
        .clone()
        .unlink_account(identity_pb::UnlinkAccountRequest {
            user_id: auth.0.user.id,
            provider_id: body.provider_id,
            account_id: body.account_id,
        })
        .await?;
    Ok(Reply::json(&StatusResponse { status: true }))
}

/// The provider's answer, as query parameters.
struct CallbackParams {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
    iss: Option<String>,
    device_id: Option<String>,
    user: Option<String>,
}

/// Where the provider sends the browser back: signs the user in and goes to the callback
/// URL (the new-user one for a user just created), or goes to the error callback (or the
/// error page) with `?error=<code>&error_description=…`.
#[utoipa::path(get, path = "/callback/{id}", tag = "social",
    params(("id" = String, Path, description = "The provider"),
           ("state" = Option<String>, Query, description = "The sign-in's state"),
           ("code" = Option<String>, Query, description = "The authorization code"),
           ("error" = Option<String>, Query, description = "The provider's refusal"),
           ("error_description" = Option<String>, Query, description = "Why"),
           ("iss" = Option<String>, Query, description = "The provider's issuer (RFC 9207)"),
           ("device_id" = Option<String>, Query, description = "VK's device id"),
           ("user" = Option<String>, Query, description = "Apple's first-sign-in user (JSON)")),
    responses((status = 302, description = "Signed in, to the callback URL; or refused, to the error callback or the error page")))]
async fn callback(
    State(state): State<AppState>,
    Path(provider_id): Path<String>,
    meta: RequestMeta,
) -> Result<Reply, ApiError> {
    let params = CallbackParams {
        state: meta.query("state").map(str::to_string),
        code: meta.query("code").map(str::to_string),
        error: meta.query("error").map(str::to_string),
        error_description: meta.query("error_description").map(str::to_string),
        iss: meta.query("iss").map(str::to_string),
        device_id: meta.query("device_id").map(str::to_string),
        user: meta.query("user").map(str::to_string),
    };
    let error_page = format!(
        "{}{}/error",
        state.config.base_url.as_str().trim_end_matches('/'),
        crate::BASE_PATH
    );
    let Some(sign_in_state) = params.state.filter(|s| !s.is_empty()) else {
        return Ok(Reply::redirect(&with_error(
            &error_page,
            "state_not_found",
            "The sign-in came back without its state. Please restart the process.",
        )));
    };
    let jar = &state.cookies;
    let cookie_state = meta
        .headers
        .get(header::COOKIE)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| cookies::read(h, &jar.names.state).map(|c| c.into_owned()))
        .and_then(|signed| cookies::verify_any(&state.config.secrets, &signed));
    let finished = match state
        .social
        .clone()
        .finish_social_sign_in(identity_pb::FinishSocialSignInRequest {
            redirect_uri: format!(
                "{}{}/callback/{provider_id}",
                state.config.base_url.as_str().trim_end_matches('/'),
                crate::BASE_PATH
            ),
            provider_id,
            state_cookie_matches: cookie_state.as_deref() == Some(sign_in_state.as_str()),
            state: sign_in_state,
            code: params.code,
            error: params.error,
            error_description: params.error_description,
            iss: params.iss,
            device_id: params.device_id,
            user: params.user,
        })
        .await
    {
        Ok(finished) => finished.into_inner(),
        // The browser is mid-redirect: a page to land on, not a JSON error.
        Err(status) => {
            tracing::warn!(%status, "social callback failed");
            return Ok(Reply::redirect(&with_error(
                &error_page,
                "internal_server_error",
                "Something went wrong on our side. Please restart the sign-in.",
            )));
        }
    };
    let expire_state = jar.expire(&jar.names.state);
    if finished.linked {
        let mut reply = Reply::redirect(&finished.redirect_to);
        reply.set_cookie(&expire_state);
        return Ok(reply);
    }
    match (finished.user, finished.error) {
        (Some(user), None) => {
            let mut trust_cookie = None;
            if state.config.two_factor_social_sign_in {
                match super::two_factor::gate(&state, &meta, &user, true).await? {
                    super::two_factor::Gate::Open {
                        trust_cookie: renewed,
                    } => {
                        trust_cookie = renewed;
                    }
                    // On to the web app's page that asks for the code, then where the sign-in
                    // was going.
                    super::two_factor::Gate::Challenge { cookies, methods } => {
                        let page = format!(
                            "{}?methods={}&callbackURL={}",
                            super::two_factor::CODE_PAGE,
                            methods.join(","),
                            crate::cookies::encode_uri_component(&finished.redirect_to)
                        );
                        let mut reply = Reply::redirect(&page);
                        reply.set_cookie(&expire_state);
                        reply.set_cookies(cookies);
                        return Ok(reply);
                    }
                }
            }
            let data = start_session(&state, &meta, user, true).await?;
            let mut reply = Reply::redirect(&finished.redirect_to);
            reply.set_cookie(&expire_state);
            reply.set_cookies(session_cookies::issue(&state, &meta, &data, true));
            reply.set_cookies(trust_cookie);
            Ok(reply)
        }
        (_, error) => {
            let target = if finished.redirect_to.is_empty() {
                error_page.as_str()
            } else {
                finished.redirect_to.as_str()
            };
            let error = error.as_deref().unwrap_or("unable_to_create_session");
            let mut reply = Reply::redirect(&with_error(
                target,
                error,
                finished.error_description.as_deref().unwrap_or_default(),
            ));
            // A forged callback must not end the browser's own sign-in under way.
            if error != "state_mismatch" {
                reply.set_cookie(&expire_state);
            }
            Ok(reply)
        }
    }
}

/// A `form_post` callback (Apple, or `response_mode=form_post`): sent on to the `GET`
/// callback, so the browser's SameSite=Lax state cookie comes along (a cross-site POST
/// carries none). The body's fields are read as a form whatever its declared type, after the
/// query's, as better-auth merges them.
#[utoipa::path(post, path = "/callback/{id}", tag = "social",
    params(("id" = String, Path, description = "The provider")),
    responses((status = 302, description = "To `GET /callback/{id}` with the same parameters")))]
async fn callback_form_post(
    State(state): State<AppState>,
    Path(provider_id): Path<String>,
    meta: RequestMeta,
    body: String,
) -> Reply {
    // Only the callback's own fields travel on: an `id_token` posted beside them must not end
    // up in a URL (history, logs, Referer).
    let mut params: BTreeMap<String, String> = meta
        .query
        .iter()
        .cloned()
        .chain(url::form_urlencoded::parse(body.as_bytes()).into_owned())
        .filter(|(key, _)| CALLBACK_FIELDS.contains(&key.as_str()))
        .collect();
    params.retain(|_, value| !value.is_empty());
    let mut url = format!(
        "{}{}/callback/{}",
        state.config.base_url.as_str().trim_end_matches('/'),
        crate::BASE_PATH,
        utf8_path(&provider_id)
    );
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&params)
        .finish();
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query);
    }
    Reply::redirect(&url)
}

fn utf8_path(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

/// `target` with `error` and `error_description` added to its query.
fn with_error(target: &str, error: &str, description: &str) -> String {
    let mut pairs = url::form_urlencoded::Serializer::new(String::new());
    pairs.append_pair("error", error);
    if !description.is_empty() {
        pairs.append_pair("error_description", description);
    }
    let separator = if target.contains('?') { '&' } else { '?' };
    format!("{target}{separator}{}", pairs.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_added_to_the_target_s_query() {
        assert_eq!(
            with_error("/sign-in", "no_code", "No code."),
            "/sign-in?error=no_code&error_description=No+code."
        );
        assert_eq!(
            with_error("https://app.example/x?tab=1", "state_mismatch", ""),
            "https://app.example/x?tab=1&error=state_mismatch"
        );
    }
}
