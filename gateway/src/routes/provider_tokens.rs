//! The `provider_tokens` group: `POST /get-access-token`, `POST /refresh-token` and
//! `GET /account-info` (`gatehouse.identity.v1.SocialService`): what a signed-in user's
//! linked provider accounts hold, for apps that call the provider's API on their behalf.
//!
//! Bodies take both forms clients send: better-auth 1.7's `{accountId}` (the account's row
//! id, as list-accounts shows it) and its spec's `{providerId, accountId?}` (the provider's
//! id for the user). `userId` is accepted and ignored: always the caller.

use axum::extract::State;
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::Group;
use crate::error::ApiError;
use crate::extract::{BareSession, Input, Later, RequestMeta};
use crate::openapi::{BodyErrors, ErrorBody};
use crate::policy::Policy;
use crate::reply::Reply;
use crate::state::AppState;

pub fn router() -> Group {
    Group::new()
        .route(route!(get_access_token), Policy::DEFAULT)
        .route(route!(refresh_token), Policy::DEFAULT)
        .route(route!(account_info), Policy::DEFAULT)
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderAccountBody {
    /// The provider (the spec's form), with `accountId` the provider's id for the user.
    #[schema(max_length = 64)]
    provider_id: Option<String>,
    /// Alone (better-auth 1.7's form): the account's own id, as list-accounts shows it.
    #[schema(max_length = 255)]
    account_id: Option<String>,
    /// Accepted and ignored: always the caller.
    #[schema(max_length = 255)]
    user_id: Option<String>,
    /// better-auth's account cookie, which Gatehouse does not keep: names no account.
    use_account_cookie: Option<bool>,
}

impl ProviderAccountBody {
    fn account(self, user_id: String) -> Option<identity_pb::ProviderAccount> {
        let _ignored = (self.user_id, self.use_account_cookie);
        Some(identity_pb::ProviderAccount {
            user_id,
            provider_id: self.provider_id,
            account_id: self.account_id,
        })
    }
}

fn iso(ms: Option<i64>) -> Option<String> {
    ms.map(gatehouse_kit::ids::iso)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessTokenResponse {
    access_token: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    access_token_expires_at: Option<String>,
    scopes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id_token: Option<String>,
}

/// A valid access token for one of the caller's provider accounts, refreshed first when it
/// expires within 5 seconds.
#[utoipa::path(post, path = "/get-access-token", tag = "provider_tokens",
    request_body = ProviderAccountBody,
    responses((status = 200, body = AccessTokenResponse, description = "A valid access token"),
        (status = 400, body = ErrorBody, description = "`ACCOUNT_NOT_FOUND`, `PROVIDER_NOT_SUPPORTED`, `FAILED_TO_GET_ACCESS_TOKEN`, `VALIDATION_ERROR`"),
        BodyErrors))]
async fn get_access_token(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ProviderAccountBody, BareSession>,
) -> Result<Reply, ApiError> {
    let token = state
        .social
        .clone()
        .get_access_token(identity_pb::GetAccessTokenRequest {
            account: body.account(auth.0.user.id),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&AccessTokenResponse {
        access_token: token.access_token,
        access_token_expires_at: iso(token.access_token_expires_at_unix_ms),
        scopes: token.scopes,
        id_token: token.id_token,
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshTokenResponse {
    access_token: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    access_token_expires_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refresh_token_expires_at: Option<String>,
    /// The granted scopes as stored: comma-separated.
    scope: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id_token: Option<String>,
    provider_id: String,
    /// The account's own id.
    account_id: String,
}

/// New tokens from the provider now. Concurrent refreshes of one account share one call.
#[utoipa::path(post, path = "/refresh-token", tag = "provider_tokens",
    request_body = ProviderAccountBody,
    responses((status = 200, body = RefreshTokenResponse, description = "The new tokens"),
        (status = 400, body = ErrorBody, description = "`ACCOUNT_NOT_FOUND`, `PROVIDER_NOT_SUPPORTED`, `REFRESH_TOKEN_NOT_FOUND`, `FAILED_TO_REFRESH_ACCESS_TOKEN`, `VALIDATION_ERROR`"),
        BodyErrors))]
async fn refresh_token(
    State(state): State<AppState>,
    Input { body, auth, .. }: Input<ProviderAccountBody, BareSession>,
) -> Result<Reply, ApiError> {
    let refreshed = state
        .social
        .clone()
        .refresh_token(identity_pb::RefreshTokenRequest {
            account: body.account(auth.0.user.id),
        })
        .await?
        .into_inner();
    Ok(Reply::json(&RefreshTokenResponse {
        access_token: refreshed.access_token,
        refresh_token: refreshed.refresh_token,
        access_token_expires_at: iso(refreshed.access_token_expires_at_unix_ms),
        refresh_token_expires_at: iso(refreshed.refresh_token_expires_at_unix_ms),
        scope: refreshed.scope,
        id_token: refreshed.id_token,
        provider_id: refreshed.provider_id,
        account_id: refreshed.account_id,
    }))
}

/// What a provider says about the user, for one of their linked accounts.
#[derive(Serialize, ToSchema)]
pub struct AccountInfoResponse {
    user: ProviderUser,
    /// The provider's answer, as it sent it.
    #[schema(value_type = Object)]
    data: Value,
    account: AccountRef,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderUser {
    /// The provider's id for the user.
    id: String,
    name: String,
    email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    email_verified: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountRef {
    id: String,
    provider_id: String,
    account_id: String,
}

/// better-auth's query is `{accountId, userId?}` or `{useAccountCookie: true}` (a literal
/// that a query string can never be), strictly: unknown keys are refused.
fn account_info_query(meta: &RequestMeta) -> Result<String, ApiError> {
    if let Some((key, _)) = meta
        .query
        .iter()
        .find(|(key, _)| !matches!(key.as_str(), "accountId" | "userId" | "useAccountCookie"))
    {
        return Err(base::VALIDATION_ERROR
            .with_message(format!("[query] Unrecognized key: \"{key}\""))
            .into());
    }
    match meta.query("accountId") {
        Some(id) if meta.query("useAccountCookie").is_none() => Ok(id.to_string()),
        _ => Err(base::VALIDATION_ERROR
            .with_message("[query] Invalid input")
            .into()),
    }
}

/// The provider's profile of the caller for one of their linked accounts (`accountId`, the
/// account's id as list-accounts shows it), read now with a valid access token.
#[utoipa::path(get, path = "/account-info", tag = "provider_tokens",
    params(("accountId" = String, Query, description = "One of the caller's accounts (its `id`)"),
           ("userId" = Option<String>, Query, description = "Accepted and ignored: always the caller")),
    responses((status = 200, body = AccountInfoResponse, description = "The provider's profile of the caller"),
        (status = 400, body = ErrorBody, description = "`ACCOUNT_NOT_FOUND`, `PROVIDER_NOT_CONFIGURED` (a credential account), `FAILED_TO_GET_ACCESS_TOKEN`, `VALIDATION_ERROR`"),
        (status = 401, body = ErrorBody, description = "`FAILED_TO_GET_USER_INFO`: the provider did not say")))]
async fn account_info(
    State(state): State<AppState>,
    meta: RequestMeta,
    // The query is judged first; better-auth answers the missing session with an empty 401.
    session: Later<BareSession>,
) -> Result<Reply, ApiError> {
    let account_id = account_info_query(&meta)?;
    let BareSession(caller) = session.check(&state, &meta).await?;
    let info = state
        .social
        .clone()
        .get_account_info(identity_pb::GetAccountInfoRequest {
            account: Some(identity_pb::ProviderAccount {
                user_id: caller.user.id,
                provider_id: None,
                account_id: Some(account_id),
            }),
        })
        .await?
        .into_inner();
    let account = info.account.ok_or(base::ACCOUNT_NOT_FOUND)?;
    let user = info.user.unwrap_or_default();
    Ok(Reply::json(&AccountInfoResponse {
        user: ProviderUser {
            id: user.id,
            name: user.name,
            email: user.email,
            image: user.image,
            email_verified: user.email_verified,
        },
        data: serde_json::from_str(&info.profile_json).unwrap_or(Value::Null),
        account: AccountRef {
            id: account.id,
            provider_id: account.provider_id,
            account_id: account.account_id,
        },
    }))
}
