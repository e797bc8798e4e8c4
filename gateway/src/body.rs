//! Request bodies as better-auth reads them: JSON (or a urlencoded form where allowed), then
//! validation against the route's input type. The type's OpenAPI schema (the same one the
//! document shows) drives it: every problem is reported as `[body.field] <what is wrong>`
//! (Zod's words), joined by `"; "`, with code `VALIDATION_ERROR`. Nothing is written before a
//! body has passed.

use axum::body::Bytes;
use axum::http::HeaderMap;
use gatehouse_kit::errors::{ErrorCode, base};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{KnownFormat, Object, Schema, SchemaFormat, SchemaType, Type};

use crate::error::ApiError;

fn refused(code: ErrorCode, message: impl Into<String>) -> ApiError {
    code.with_message(message.into()).into()
}

const JSON: &str = "application/json";
const FORM: &str = "application/x-www-form-urlencoded";

/// Parses the body; `Ok(None)` for an empty body (allowed: validation decides).
pub fn parse(
    headers: &HeaderMap,
    bytes: &Bytes,
    allow_form: bool,
) -> Result<Option<Value>, ApiError> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let allowed = if allow_form {
        format!("{JSON}, {FORM}")
    } else {
        JSON.to_string()
    };
    let Some(content_type) = headers.get("content-type").and_then(|v| v.to_str().ok()) else {
        return Err(refused(
            base::UNSUPPORTED_MEDIA_TYPE,
            format!("Content-Type is required. Allowed types: {allowed}"),
        ));
    };
    let media = media_type(content_type);
    if media == JSON {
        return serde_json::from_slice(bytes)
            .map(Some)
            .map_err(|_| refused(base::BAD_REQUEST, "Invalid JSON in request body"));
    }
    if allow_form && media == FORM {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(bytes)
            .map_err(|_| refused(base::BAD_REQUEST, "Invalid form body"))?;
        return Ok(Some(strings(pairs)));
    }
    Err(refused(
        base::UNSUPPORTED_MEDIA_TYPE,
        format!("Content-Type \"{content_type}\" is not allowed. Allowed types: {allowed}"),
    ))
}

/// The media type of a `Content-Type` value, parameters dropped, matched exactly (RFC 9110
/// §8.3.1: case-insensitive). better-auth tests for a substring, so `application/jsonx` and
/// `text/x-www-form-urlencoded-ish` would pass as JSON or a form.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Whether the request says its body is a urlencoded form.
pub fn is_form(headers: &HeaderMap) -> bool {
    headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| media_type(v) == FORM)
}

/// Form fields or query parameters as a JSON object of strings (the first of repeated keys).
pub fn strings(pairs: Vec<(String, String)>) -> Value {
    let mut map = Map::new();
    for (key, value) in pairs {
        map.entry(key).or_insert(Value::String(value));
    }
    Value::Object(map)
}

/// JavaScript's name for a JSON value's type, as Zod reports it.
pub fn type_name(value: Option<&Value>) -> &'static str {
    match value {
        None => "undefined",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

/// The object schema of an input type (inline, as `#[derive(ToSchema)]` structs are). A
/// struct with an inlined `#[serde(flatten)]` part is an `allOf` of objects: merged into one.
pub fn object_schema<T: utoipa::PartialSchema>() -> Option<Object> {
    match T::schema() {
        RefOr::T(Schema::Object(object)) => Some(object),
        RefOr::T(Schema::AllOf(all)) => {
            let mut parts = all.items.into_iter().map(|part| match part {
                RefOr::T(Schema::Object(object)) => Some(object),
                _ => None,
            });
            let mut merged = parts.next()??;
            for part in parts {
                let part = part?;
                merged.properties.extend(part.properties);
                merged.required.extend(part.required);
            }
            Some(merged)
        }
        _ => None,
    }
}

/// Whether `schema` declares `name` as one of its fields.
pub fn declares(schema: Option<&Object>, name: &str) -> bool {
    schema.is_some_and(|o| o.properties.contains_key(name))
}

fn types(schema: &RefOr<Schema>) -> (Vec<Type>, Option<&Object>) {
    match schema {
        RefOr::T(Schema::Object(object)) => match &object.schema_type {
            SchemaType::Type(t) => (vec![t.clone()], Some(object)),
            SchemaType::Array(ts) => (ts.clone(), Some(object)),
            SchemaType::AnyValue => (Vec::new(), Some(object)),
        },
        // `Option<Vec<_>>`: `type: [array, null]`.
        RefOr::T(Schema::Array(array)) => match &array.schema_type {
            SchemaType::Array(ts) => (ts.clone(), None),
            _ => (vec![Type::Array], None),
        },
        // `Option<inline enum>`: `oneOf: [null, {enum}]`, the enum's object carries the values.
        RefOr::T(Schema::OneOf(one)) => {
            let mut all = Vec::new();
            let mut object = None;
            for item in &one.items {
                let (types, inner) = types(item);
                all.extend(types);
                object = object.or(inner.filter(|o| o.enum_values.is_some()));
            }
            (all, object)
        }
        _ => (Vec::new(), None),
    }
}

/// Whether `value` is of one of `schema`'s types, and a list's items of its items' types.
fn fits(schema: &RefOr<Schema>, value: &Value) -> bool {
    if !types(schema).0.iter().any(|t| type_matches(t, value)) {
        return false;
    }
    match (schema, value) {
        (RefOr::T(Schema::OneOf(union)), _) => union.items.iter().any(|item| fits(item, value)),
        (RefOr::T(Schema::Array(array)), Value::Array(items)) => match &array.items {
            utoipa::openapi::schema::ArrayItems::RefOrSchema(item) => {
                items.iter().all(|v| fits(item, v))
            }
            utoipa::openapi::schema::ArrayItems::False => items.is_empty(),
        },
        _ => true,
    }
}

fn type_matches(t: &Type, value: &Value) -> bool {
    match (t, value) {
        (Type::String, Value::String(_))
        | (Type::Boolean, Value::Bool(_))
        | (Type::Number, Value::Number(_))
        | (Type::Array, Value::Array(_))
        | (Type::Object, Value::Object(_))
        | (Type::Null, Value::Null) => true,
        (Type::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

fn type_word(t: &Type) -> &'static str {
    match t {
        Type::String => "string",
        Type::Boolean => "boolean",
        Type::Number | Type::Integer => "number",
        Type::Array => "array",
        Type::Object => "object",
        Type::Null => "null",
    }
}

/// A query value that must be a whole number within `range` (query values are text), or
/// absent (missing or empty); anything else is `VALIDATION_ERROR` naming `[query.<field>]`.
pub fn whole_number(
    value: Option<&str>,
    field: &str,
    range: std::ops::RangeInclusive<u32>,
) -> Result<Option<u32>, ApiError> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    match value.parse::<u32>() {
        Ok(n) if range.contains(&n) => Ok(Some(n)),
        _ => Err(refused(
            base::VALIDATION_ERROR,
            format!(
                "[query.{field}] Invalid input: expected a whole number from {} to {}",
                range.start(),
                range.end()
            ),
        )),
    }
}

/// A form or query can only send strings: booleans declared by the schema arrive as
/// `"true"`/`"false"`, numbers as their digits, and are read as such.
pub fn coerce_strings(value: &mut Value, schema: Option<&Object>) {
    let (Value::Object(map), Some(schema)) = (value, schema) else {
        return;
    };
    for (name, property) in &schema.properties {
        let (types, _) = types(property);
        let Some(field) = map.get_mut(name) else {
            continue;
        };
        let Some(text) = field.as_str() else {
            continue;
        };
        let coerced = match text {
            "true" if types.contains(&Type::Boolean) => Some(Value::Bool(true)),
            "false" if types.contains(&Type::Boolean) => Some(Value::Bool(false)),
            _ if types.contains(&Type::Integer) => text.parse::<i64>().ok().map(Value::from),
            _ if types.contains(&Type::Number) => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number),
            _ => None,
        };
        if let Some(coerced) = coerced {
            *field = coerced;
        }
    }
}

/// Checks `value` against `T`'s schema and reads it into `T`, or reports every problem at
/// once. `location` is `body` or `query`. A missing body is allowed when no field is required.
pub fn validate<T>(location: &str, value: Option<&Value>) -> Result<T, ApiError>
where
    T: utoipa::PartialSchema + DeserializeOwned,
{
    let schema = object_schema::<T>();
    let required: &[String] = schema.as_ref().map_or(&[], |s| &s.required);
    let empty = Value::Object(Map::new());
    let value = match value {
        None if required.is_empty() => &empty,
        other => other.unwrap_or(&Value::Null),
    };
    let Value::Object(map) = value else {
        let got = if matches!(value, Value::Null) {
            "undefined"
        } else {
            type_name(Some(value))
        };
        // A body that takes any keys (a flattened map: `additionalProperties`) is a record.
        let expected = match schema
            .as_ref()
            .and_then(|s| s.additional_properties.as_deref())
        {
            None | Some(utoipa::openapi::schema::AdditionalProperties::FreeForm(false)) => "object",
            Some(_) => "record",
        };
        return Err(refused(
            base::VALIDATION_ERROR,
            format!("[{location}] Invalid input: expected {expected}, received {got}"),
        ));
    };
    let mut issues = Vec::new();
    if let Some(schema) = &schema {
        for (name, property) in &schema.properties {
            check_field(
                location,
                name,
                property,
                map.get(name),
                required,
                &mut issues,
            );
        }
    }
    if !issues.is_empty() {
        return Err(refused(base::VALIDATION_ERROR, issues.join("; ")));
    }
    serde_json::from_value(value.clone()).map_err(|error| {
        tracing::error!(%error, "an input type and its schema disagree");
        refused(
            base::VALIDATION_ERROR,
            format!("[{location}] Invalid input"),
        )
    })
}

fn check_field(
    location: &str,
    name: &str,
    property: &RefOr<Schema>,
    value: Option<&Value>,
    required: &[String],
    issues: &mut Vec<String>,
) {
    // A union (a role or a list of roles) fails as a whole, as zod says; `Option<…>` of one
    // (`oneOf: [null, union]`) too, when its value is not null.
    let (unwrapped, nullable) = match property {
        RefOr::T(Schema::OneOf(option))
            if option.items.len() == 2
                && option.items.iter().any(|i| types(i).0 == [Type::Null]) =>
        {
            let other = option.items.iter().find(|i| types(i).0 != [Type::Null]);
            (other.unwrap_or(property), true)
        }
        _ => (property, false),
    };
    if let RefOr::T(Schema::OneOf(union)) = unwrapped {
        let refused = match value {
            None => required.iter().any(|r| r == name),
            Some(Value::Null) if nullable => false,
            Some(v) => !union.items.iter().any(|item| fits(item, v)),
        };
        if refused {
            issues.push(format!("[{location}.{name}] Invalid input"));
        }
        return;
    }
    let (types, object) = types(property);
    // zod's words: a map of any keys is a `record`; a required field of any type (coerced by
    // the route, like the admin routes' `userId`) is `nonoptional`.
    let expected = match types.first() {
        None => "nonoptional",
        Some(Type::Object) if object.is_some_and(|o| o.additional_properties.is_some()) => "record",
        Some(t) => type_word(t),
    };
    let Some(value) = value else {
        if required.iter().any(|r| r == name) {
            issues.push(format!(
                "[{location}.{name}] Invalid input: expected {expected}, received undefined"
            ));
        }
        return;
    };
    if !types.is_empty() && !types.iter().any(|t| type_matches(t, value)) {
        issues.push(format!(
            "[{location}.{name}] Invalid input: expected {expected}, received {}",
            type_name(Some(value))
        ));
        return;
    }
    // An optional enum (`oneOf: [null, {enum}]`) takes null as its absence.
    let null_allowed = value.is_null() && types.contains(&Type::Null);
    if let Some(allowed) = object.and_then(|o| o.enum_values.as_ref())
        && !allowed.contains(value)
        && !null_allowed
    {
        let options: Vec<String> = allowed.iter().map(Value::to_string).collect();
        issues.push(format!(
            "[{location}.{name}] Invalid option: expected one of {}",
            options.join("|")
        ));
        return;
    }
    // An inline object (`#[schema(inline)]`: update-team's `data`) is checked field by field,
    // its fields named by their path (`[body.data.name]`), as zod does.
    if let (Value::Object(fields), Some(object)) = (value, object)
        && !object.properties.is_empty()
    {
        let location = format!("{location}.{name}");
        for (field, property) in &object.properties {
            check_field(
                &location,
                field,
                property,
                fields.get(field),
                &object.required,
                issues,
            );
        }
        return;
    }
    if let (Value::Number(number), Some(object)) = (value, object)
        && let Some(number) = number.as_f64()
    {
        if let Some(min) = object.minimum.as_ref().map(as_f64)
            && number < min
        {
            issues.push(format!(
                "[{location}.{name}] Too small: expected number to be >={min}"
            ));
        } else if let Some(max) = object.maximum.as_ref().map(as_f64)
            && number > max
        {
            issues.push(format!(
                "[{location}.{name}] Too big: expected number to be <={max}"
            ));
        }
        return;
    }
    let (Value::String(text), Some(object)) = (value, object) else {
        return;
    };
    let length = text.chars().count();
    if let Some(min) = object.min_length
        && length < min
    {
        issues.push(format!(
            "[{location}.{name}] Too small: expected string to have >={min} characters"
        ));
    }
    if let Some(max) = object.max_length
        && length > max
    {
        issues.push(format!(
            "[{location}.{name}] Too big: expected string to have <={max} characters"
        ));
    }
    if object.format == Some(SchemaFormat::KnownFormat(KnownFormat::Email))
        && !gatehouse_kit::validate::is_valid_email(text.trim())
    {
        issues.push(format!("[{location}.{name}] Invalid email address"));
    }
    if let Some(refusal) = object
        .pattern
        .as_deref()
        .and_then(|pattern| breaks_pattern(pattern, text))
    {
        issues.push(format!("[{location}.{name}] {refusal}"));
    }
}

fn as_f64(number: &utoipa::Number) -> f64 {
    match *number {
        utoipa::Number::Int(n) => n as f64,
        utoipa::Number::UInt(n) => n as f64,
        utoipa::Number::Float(n) => n,
    }
}

/// What is wrong with `text` under `pattern`, if anything. The input types use only patterns
/// that stand for one of kit's rules (the services apply the same rule), decided by that rule
/// rather than by a regular expression, in words a person can act on. A unit test holds every
/// pattern in the types to this list.
fn breaks_pattern(pattern: &str, text: &str) -> Option<&'static str> {
    use gatehouse_kit::validate::{
        KEY_PREFIX, KEY_PREFIX_REFUSAL, NO_CONTROL_CHARACTERS, has_control_characters,
        is_key_prefix,
    };
    match pattern {
        NO_CONTROL_CHARACTERS => has_control_characters(text)
            .then_some("Invalid string: must not contain control characters"),
        KEY_PREFIX => (!is_key_prefix(text)).then_some(KEY_PREFIX_REFUSAL),
        unknown => {
            tracing::error!(
                pattern = unknown,
                "an input type uses a pattern the validator does not know"
            );
            None
        }
    }
}

/// The fields that name where a browser will be sent, and the code refusing an untrusted one.
pub const REDIRECT_FIELDS: [(&str, ErrorCode); 4] = [
    ("callbackURL", base::INVALID_CALLBACK_URL),
    ("redirectTo", base::INVALID_REDIRECT_URL),
    ("errorCallbackURL", base::INVALID_ERROR_CALLBACK_URL),
    ("newUserCallbackURL", base::INVALID_NEW_USER_CALLBACK_URL),
];

/// The redirect-target fields better-auth checks on every state-changing request, before
/// schema validation: each must be a string, relative or on a trusted origin.
pub fn check_redirect_fields(
    body: Option<&Value>,
    query_callback: Option<&str>,
    trusted: &crate::origin::TrustedOrigins,
) -> Result<(), ApiError> {
    for (name, code) in REDIRECT_FIELDS {
        let value = body.and_then(|b| b.get(name));
        let target = match value {
            None | Some(Value::Null) => {
                if name == "callbackURL" {
                    query_callback
                } else {
                    None
                }
            }
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => {
                return Err(refused(
                    base::VALIDATION_ERROR,
                    format!("Invalid {name}: expected a string"),
                ));
            }
        };
        if target.is_some_and(|t| !t.is_empty() && !trusted.trusts_redirect(t)) {
            return Err(code.into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct Sample {
        name: String,
        #[schema(format = Email)]
        email: String,
        #[schema(min_length = 1)]
        password: String,
        #[serde(rename = "rememberMe")]
        remember_me: Option<bool>,
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct AllOptional {
        #[serde(rename = "callbackURL")]
        callback_url: Option<String>,
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct Nested {
        id: String,
        #[schema(inline)]
        data: NestedData,
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct NestedData {
        #[schema(min_length = 1)]
        name: Option<String>,
        count: u32,
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct WithOptionalEnum {
        #[schema(inline)]
        method: Option<Method>,
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Method {
        Otp,
        Totp,
    }

    #[test]
    fn an_optional_enum_takes_null_as_absent_and_refuses_other_values() {
        for body in [json!({}), json!({"method": null}), json!({"method": "otp"})] {
            assert!(
                validate::<WithOptionalEnum>("body", Some(&body)).is_ok(),
                "{body}"
            );
        }
        let body = json!({"method": "sms"});
        let (_, text) = message(validate::<WithOptionalEnum>("body", Some(&body)).unwrap_err());
        assert_eq!(
            text,
            "[body.method] Invalid option: expected one of \"otp\"|\"totp\""
        );
    }

    fn message(error: ApiError) -> (String, String) {
        let ApiError::Failure(failure) = error else {
            panic!("expected a failure")
        };
        (failure.code().to_string(), failure.message().to_string())
    }

    #[test]
    fn inline_objects_are_checked_field_by_field_under_their_path() {
        let body = json!({ "id": "x", "data": { "name": "" } });
        let (_, text) = message(validate::<Nested>("body", Some(&body)).unwrap_err());
        assert_eq!(
            text,
            "[body.data.name] Too small: expected string to have >=1 characters; \
             [body.data.count] Invalid input: expected number, received undefined"
        );
        let body = json!({ "id": "x" });
        let (_, text) = message(validate::<Nested>("body", Some(&body)).unwrap_err());
        assert_eq!(
            text,
            "[body.data] Invalid input: expected object, received undefined"
        );
        let body = json!({ "id": "x", "data": { "count": 2 } });
        assert!(validate::<Nested>("body", Some(&body)).is_ok());
    }

    #[test]
    fn reports_every_problem_in_better_auths_format() {
        let body = json!({ "email": "not-an-email", "password": 5 });
        let (code, text) = message(validate::<Sample>("body", Some(&body)).unwrap_err());
        assert_eq!(code, "VALIDATION_ERROR");
        assert_eq!(
            text,
            "[body.name] Invalid input: expected string, received undefined; \
             [body.email] Invalid email address; \
             [body.password] Invalid input: expected string, received number"
        );
        let short = json!({ "name": "A", "email": "a@example.com", "password": "" });
        assert_eq!(
            message(validate::<Sample>("body", Some(&short)).unwrap_err()).1,
            "[body.password] Too small: expected string to have >=1 characters"
        );
    }

    #[test]
    fn a_missing_body_is_reported_once_when_fields_are_required() {
        let (_, text) = message(validate::<Sample>("body", None).unwrap_err());
        assert_eq!(
            text,
            "[body] Invalid input: expected object, received undefined"
        );
        let (_, text) = message(validate::<Sample>("body", Some(&json!([1]))).unwrap_err());
        assert_eq!(
            text,
            "[body] Invalid input: expected object, received array"
        );
        assert!(validate::<AllOptional>("body", None).is_ok());
    }

    #[test]
    fn valid_input_is_read_and_nulls_count_as_absent() {
        let body = json!({ "name": "A", "email": "a@example.com", "password": "x", "rememberMe": null, "extra": 1 });
        let sample: Sample = validate("body", Some(&body)).unwrap();
        assert_eq!(sample.remember_me, None);
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct Roles {
        #[schema(value_type = OneOrMany, inline)]
        role: Value,
        #[schema(value_type = Option<OneOrMany>, inline)]
        teams: Option<Value>,
    }

    #[test]
    fn a_union_judges_a_list_by_its_items() {
        for good in [
            json!({ "role": "admin" }),
            json!({ "role": ["admin", "member"], "teams": null }),
            json!({ "role": "admin", "teams": ["t1"] }),
        ] {
            assert!(validate::<Roles>("body", Some(&good)).is_ok(), "{good}");
        }
        for (bad, said) in [
            (json!({ "role": [{}] }), "[body.role] Invalid input"),
            (json!({ "role": null }), "[body.role] Invalid input"),
            (json!({}), "[body.role] Invalid input"),
            (
                json!({ "role": "a", "teams": [1] }),
                "[body.teams] Invalid input",
            ),
            (
                json!({ "role": "a", "teams": {} }),
                "[body.teams] Invalid input",
            ),
        ] {
            let (_, text) = message(validate::<Roles>("body", Some(&bad)).unwrap_err());
            assert_eq!(text, said, "{bad}");
        }
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct Listed {
        tags: Option<Vec<String>>,
    }

    #[test]
    fn an_optional_list_may_be_null() {
        // The schema says `type: [array, null]`; a `null` reads as absent, as for any field.
        let listed: Listed = validate("body", Some(&json!({ "tags": null }))).unwrap();
        assert_eq!(listed.tags, None);
        let (_, text) =
            message(validate::<Listed>("body", Some(&json!({ "tags": 5 }))).unwrap_err());
        assert_eq!(
            text,
            "[body.tags] Invalid input: expected array, received number"
        );
    }

    #[test]
    fn form_booleans_follow_the_schema() {
        let mut form = strings(vec![
            ("rememberMe".into(), "false".into()),
            ("name".into(), "true".into()),
        ]);
        coerce_strings(&mut form, object_schema::<Sample>().as_ref());
        assert_eq!(form, json!({"rememberMe": false, "name": "true"}));
    }

    fn patterns(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(pattern)) = map.get("pattern") {
                    found.push(pattern.clone());
                }
                map.values().for_each(|v| patterns(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| patterns(v, found)),
            _ => {}
        }
    }

    #[test]
    fn every_pattern_in_the_input_types_is_one_the_validator_decides() {
        // The types' schemas (not the served documents, whose extra patterns the services
        // check): a pattern here that `breaks_pattern` does not know would go unchecked.
        let mut found = Vec::new();
        for document in [
            crate::routes::routes().document,
            crate::routes::billing_routes().document,
        ] {
            patterns(&serde_json::to_value(&document).unwrap(), &mut found);
        }
        assert!(!found.is_empty());
        for pattern in found {
            assert!(
                [
                    gatehouse_kit::validate::NO_CONTROL_CHARACTERS,
                    gatehouse_kit::validate::KEY_PREFIX
                ]
                .contains(&pattern.as_str()),
                "{pattern}"
            );
        }
        assert_eq!(
            breaks_pattern(gatehouse_kit::validate::KEY_PREFIX, "gh$!"),
            Some(gatehouse_kit::validate::KEY_PREFIX_REFUSAL)
        );
        assert_eq!(
            breaks_pattern(gatehouse_kit::validate::KEY_PREFIX, "gh_1-"),
            None
        );
        assert_eq!(
            breaks_pattern(gatehouse_kit::validate::NO_CONTROL_CHARACTERS, "a\nb"),
            Some("Invalid string: must not contain control characters")
        );
        assert_eq!(
            breaks_pattern(gatehouse_kit::validate::NO_CONTROL_CHARACTERS, "ab"),
            None
        );
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct Bounded {
        #[schema(minimum = 0, maximum = 1000000000000.0)]
        seconds: Option<f64>,
    }

    #[test]
    fn a_number_outside_its_bounds_is_refused_in_zods_words() {
        for good in [json!({}), json!({"seconds": 0}), json!({"seconds": 1e12})] {
            assert!(validate::<Bounded>("body", Some(&good)).is_ok(), "{good}");
        }
        for (bad, said) in [
            (
                json!({"seconds": -1}),
                "[body.seconds] Too small: expected number to be >=0",
            ),
            (
                json!({"seconds": 1.5e12}),
                "[body.seconds] Too big: expected number to be <=1000000000000",
            ),
        ] {
            let (_, text) = message(validate::<Bounded>("body", Some(&bad)).unwrap_err());
            assert_eq!(text, said, "{bad}");
        }
    }

    #[derive(serde::Deserialize, utoipa::ToSchema, Debug)]
    #[allow(dead_code)]
    struct Numbers {
        language: Option<i32>,
        seconds: Option<f64>,
    }

    #[test]
    fn form_numbers_follow_the_schema() {
        // A form can only carry text: `language=3` is the number 3, as JSON would send it.
        let mut form = strings(vec![
            ("language".into(), "3".into()),
            ("seconds".into(), "1.5".into()),
        ]);
        coerce_strings(&mut form, object_schema::<Numbers>().as_ref());
        assert_eq!(form, json!({"language": 3, "seconds": 1.5}));
        let read: Numbers = validate("body", Some(&form)).unwrap();
        assert_eq!(read.language, Some(3));
        // What is not a number stays text, and is refused as such.
        let mut form = strings(vec![("language".into(), "1.5".into())]);
        coerce_strings(&mut form, object_schema::<Numbers>().as_ref());
        let (_, text) = message(validate::<Numbers>("body", Some(&form)).unwrap_err());
        assert_eq!(
            text,
            "[body.language] Invalid input: expected number, received string"
        );
    }

    #[test]
    fn content_types_are_enforced() {
        let mut headers = HeaderMap::new();
        let bytes = Bytes::from_static(b"{}");
        let code = |r: Result<Option<Value>, ApiError>| message(r.unwrap_err()).0;
        assert_eq!(
            code(parse(&headers, &bytes, false)),
            "UNSUPPORTED_MEDIA_TYPE"
        );
        headers.insert("content-type", "text/plain".parse().unwrap());
        assert_eq!(
            code(parse(&headers, &bytes, false)),
            "UNSUPPORTED_MEDIA_TYPE"
        );
        headers.insert(
            "content-type",
            "application/json; charset=utf-8".parse().unwrap(),
        );
        assert_eq!(parse(&headers, &bytes, false).unwrap(), Some(json!({})));
        let broken = Bytes::from_static(b"{\"a\":");
        assert_eq!(code(parse(&headers, &broken, false)), "BAD_REQUEST");
        headers.insert(
            "content-type",
            "application/x-www-form-urlencoded".parse().unwrap(),
        );
        let form = Bytes::from_static(b"email=a%40b.co&rememberMe=false");
        assert_eq!(
            parse(&headers, &form, true).unwrap(),
            Some(json!({"email": "a@b.co", "rememberMe": "false"}))
        );
        assert!(parse(&headers, &form, false).is_err());
    }

    #[test]
    fn media_types_match_exactly() {
        let bytes = Bytes::from_static(b"{}");
        for near_miss in [
            "application/jsonx",
            "application/json-patch+json",
            "text/application/json",
        ] {
            let mut headers = HeaderMap::new();
            headers.insert("content-type", near_miss.parse().unwrap());
            let (code, text) = message(parse(&headers, &bytes, true).unwrap_err());
            assert_eq!(code, "UNSUPPORTED_MEDIA_TYPE", "{near_miss}");
            assert!(text.contains(near_miss), "{text}");
        }
        let mut headers = HeaderMap::new();
        headers.insert(
            "content-type",
            "Application/JSON ; charset=utf-8".parse().unwrap(),
        );
        assert_eq!(parse(&headers, &bytes, false).unwrap(), Some(json!({})));
        headers.insert(
            "content-type",
            "application/x-www-form-urlencodedx".parse().unwrap(),
        );
        assert!(!is_form(&headers));
    }
}
