//! `list-users`: search, filter, sort and page the users. Its query is read as strings
//! ([`ListUsersQuery`]) and documented as what it means ([`ListUsersQueryParams`]).

use axum::extract::State;
use gatehouse_proto::identity::v1 as identity_pb;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::body::whole_number;
use crate::error::ApiError;
use crate::extract::{BareSession, Input};
use crate::openapi::AdminErrors;
use crate::reply::Reply;
use crate::routes::shared::input::{FilterOperator, SortDirection, TextMatch, wire};
use crate::state::AppState;
use crate::wire::User;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListUsersQuery {
    #[schema(max_length = 255)]
    search_value: Option<String>,
    /// `email` (the default) or `name`.
    #[schema(inline)]
    search_field: Option<SearchField>,
    /// `contains` (the default), `starts_with` or `ends_with`.
    #[schema(value_type = Option<TextMatch>, inline)]
    search_operator: Option<String>,
    /// A whole number, at most 1000; 0 or none: the first 1000 (every answer holds at most 1000).
    limit: Option<String>,
    offset: Option<String>,
    sort_by: Option<String>,
    /// `asc` (the default) or `desc`.
    #[schema(inline)]
    sort_direction: Option<SortDirection>,
    /// Checked here, with or without a `filterValue`, like the operator.
    #[schema(value_type = Option<UserField>, inline)]
    filter_field: Option<String>,
    /// Repeat the key for `in` and `not_in`.
    #[schema(max_length = 2048)]
    filter_value: Option<String>,
    #[schema(value_type = Option<FilterOperator>, inline)]
    filter_operator: Option<String>,
}

/// A user's field as list-users names it (`sortBy`, `filterField`).
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub enum UserField {
    Id,
    Name,
    Email,
    EmailVerified,
    Image,
    CreatedAt,
    UpdatedAt,
    Username,
    DisplayUsername,
    Role,
    Banned,
    BanReason,
    BanExpires,
}

/// `sortBy`: a user's field, or empty for none (checked by the service).
pub struct UserSortField;

impl utoipa::PartialSchema for UserSortField {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::openapi::one_of_or_empty(&[
            "id",
            "name",
            "email",
            "emailVerified",
            "image",
            "createdAt",
            "updatedAt",
            "username",
            "displayUsername",
            "role",
            "banned",
            "banReason",
            "banExpires",
        ])
    }
}

impl ToSchema for UserSortField {}

#[derive(Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchField {
    Email,
    Name,
}

#[derive(Serialize, ToSchema)]
pub struct ListUsersResponse {
    users: Vec<User>,
    /// Every user that matches, whatever the page.
    total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u32>,
}

/// The most users one page may hold.
const MAX_PAGE: u32 = 1000;

/// Searches, filters, sorts and pages the users (`user:list`).
#[utoipa::path(get, path = "/admin/list-users", tag = "admin", params(ListUsersQueryParams),
    responses((status = 200, body = ListUsersResponse, description = "One page of users and how many match"), AdminErrors))]
pub(super) async fn list_users(
    State(state): State<AppState>,
    Input { body, auth, meta }: Input<ListUsersQuery, BareSession>,
) -> Result<Reply, ApiError> {
    // 0 means no limit and is not echoed, as better-auth reads it; every answer still holds at
    // most MAX_PAGE users (better-auth would send the whole table).
    let limit = whole_number(body.limit.as_deref(), "limit", 0..=MAX_PAGE)?.filter(|n| *n > 0);
    let offset = whole_number(body.offset.as_deref(), "offset", 0..=u32::MAX)?.filter(|n| *n > 0);
    // `filterValue=a&filterValue=b` is a list (for `in`).
    let values: Vec<&str> = meta
        .query
        .iter()
        .filter(|(key, _)| key == "filterValue")
        .map(|(_, value)| value.as_str())
        .collect();
    let filter_value_json = match values.as_slice() {
        [] => None,
        [one] => Some(Value::String(one.to_string()).to_string()),
        many => Some(json!(many).to_string()),
    };
    let _ = body.filter_value;
    let found = state
        .admin
        .clone()
        .list_users(identity_pb::ListUsersRequest {
            actor_id: auth.0.user.id,
            search_value: body.search_value,
            search_field: body.search_field.map(wire),
            search_operator: body.search_operator,
            filter_field: body.filter_field,
            filter_value_json,
            filter_operator: body.filter_operator,
            sort_by: body.sort_by,
            sort_direction: body.sort_direction.map(wire),
            limit: Some(limit.unwrap_or(MAX_PAGE)),
            offset,
        })
        .await?
        .into_inner();
    let page = ListUsersResponse {
        users: found.users.into_iter().map(Into::into).collect(),
        total: found.total,
        limit,
        offset,
    };
    Ok(Reply::json(&page))
}

/// `utoipa`'s query parameters for list-users (the same fields as [`ListUsersQuery`],
/// written as what they mean where the query itself is read as strings, as better-auth reads it).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ListUsersQueryParams {
    #[param(max_length = 255)]
    search_value: Option<String>,
    #[param(inline)]
    search_field: Option<SearchField>,
    #[param(inline)]
    search_operator: Option<TextMatch>,
    /// At most this many (and never more than 1000); 0: 1000.
    #[param(value_type = Option<i64>, minimum = 0, maximum = 1000)]
    limit: Option<u32>,
    #[param(value_type = Option<i64>, minimum = 0, maximum = 4294967295.0)]
    offset: Option<u32>,
    #[param(inline)]
    sort_by: Option<UserSortField>,
    /// `asc` (the default) or `desc`.
    #[param(inline)]
    sort_direction: Option<SortDirection>,
    /// The field `filterValue` is compared with (`email` when absent).
    #[param(inline)]
    filter_field: Option<UserField>,
    /// Read as the field's kind: text, `true`/`false`, or an ISO 8601 time; repeat the key
    /// for `in` and `not_in`.
    #[param(max_length = 2048)]
    filter_value: Option<String>,
    /// The text operators only on text fields.
    #[param(inline)]
    filter_operator: Option<FilterOperator>,
}
