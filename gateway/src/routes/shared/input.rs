//! Reading request fields the way better-auth does, wherever they appear. A field that takes
//! a string or a list of strings (roles, team ids) is read by
//! [`gatehouse_kit::validate::one_or_many`], the one reading with the one error.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An optional field where empty means absent.
pub fn nonempty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

/// `Some(Value::Null)` for an explicit `null`, where plain `Option` would say "absent".
pub fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `Some(None)` for an explicit `null`, `None` when absent (with `#[serde(default)]`).
pub fn explicit<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The wire name of an enum value (its serde name): a sort field as the services take it.
pub fn wire<T: Serialize>(value: T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        _ => String::new(),
    }
}

/// better-auth coerces `userId` to a string (`5` is the user "5", which does not exist).
pub fn user_id(value: &Value) -> String {
    match value {
        Value::String(id) => id.clone(),
        other => other.to_string(),
    }
}

// `sortDirection` of a listing. (No doc comment: it would become the inline schema's
// description in the documents.)
#[derive(Clone, Copy, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortDirection {
    Asc,
    Desc,
}

/// `searchOperator` of a listing: the text matches the services read
/// (`gatehouse_kit::listing::TEXT_MATCHES`), documented as an enum of them.
pub struct TextMatch;

impl utoipa::PartialSchema for TextMatch {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::openapi::one_of(gatehouse_kit::listing::TEXT_MATCHES)
    }
}

impl utoipa::ToSchema for TextMatch {}

/// `filterOperator` of a listing: better-auth's operators as the services read them
/// (`gatehouse_kit::listing::OPERATORS`), documented as an enum of them.
pub struct FilterOperator;

impl utoipa::PartialSchema for FilterOperator {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::openapi::one_of(gatehouse_kit::listing::OPERATORS)
    }
}

impl utoipa::ToSchema for FilterOperator {}
