//! Request bodies as better-auth reads them: JSON (or a urlencoded form where allowed), then
//! schema validation that reports every problem as `[body.field] <what is wrong>` joined by
//! `"; "`, with code `VALIDATION_ERROR`. Nothing is written before a body has passed.

use axum::body::Bytes;
use axum::http::HeaderMap;
use gatehouse_kit::ErrorCode;
use serde_json::{Map, Value};

use crate::error::ApiError;

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
        return Err(ApiError::WithMessage(
            ErrorCode::UnsupportedMediaType,
            format!("Content-Type is required. Allowed types: {allowed}"),
        ));
    };
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if media.contains(JSON) {
        return serde_json::from_slice(bytes).map(Some).map_err(|_| {
            ApiError::WithMessage(ErrorCode::BadRequest, "Invalid JSON in request body".into())
        });
    }
    if allow_form && media.contains(FORM) {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(bytes).map_err(|_| {
            ApiError::WithMessage(ErrorCode::BadRequest, "Invalid form body".into())
        })?;
        let mut map = Map::new();
        for (key, value) in pairs {
            // A form can only send strings; the one boolean field arrives as "true"/"false".
            let value = match (key.as_str(), value.as_str()) {
                ("rememberMe", "true") => Value::Bool(true),
                ("rememberMe", "false") => Value::Bool(false),
                _ => Value::String(value),
            };
            map.entry(key).or_insert(value);
        }
        return Ok(Some(Value::Object(map)));
    }
    Err(ApiError::WithMessage(
        ErrorCode::UnsupportedMediaType,
        format!("Content-Type \"{content_type}\" is not allowed. Allowed types: {allowed}"),
    ))
}

/// JavaScript's name for a JSON value's type, as Zod reports it.
fn type_name(value: Option<&Value>) -> &'static str {
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

/// Collects validation problems for one body, then reports them all at once.
pub struct Fields<'a> {
    body: Option<&'a Map<String, Value>>,
    issues: Vec<String>,
}

impl<'a> Fields<'a> {
    /// `required`: whether the body itself must be present (an object).
    pub fn new(body: Option<&'a Value>, required: bool) -> Self {
        let mut issues = Vec::new();
        let map = match body {
            Some(Value::Object(map)) => Some(map),
            None if !required => None,
            other => {
                issues.push(format!(
                    "[body] Invalid input: expected object, received {}",
                    type_name(other)
                ));
                None
            }
        };
        Self { body: map, issues }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.body.and_then(|map| map.get(key))
    }

    fn expected(&mut self, key: &str, expected: &str, got: Option<&Value>) {
        self.issues.push(format!(
            "[body.{key}] Invalid input: expected {expected}, received {}",
            type_name(got)
        ));
    }

    pub fn required_string(&mut self, key: &str) -> String {
        match self.get(key) {
            Some(Value::String(s)) => s.clone(),
            other => {
                if self.body.is_some() {
                    self.expected(key, "string", other);
                }
                String::new()
            }
        }
    }

    /// A required string of at least one character.
    pub fn non_empty_string(&mut self, key: &str) -> String {
        let value = self.required_string(key);
        if value.is_empty() && matches!(self.get(key), Some(Value::String(_))) {
            self.issues.push(format!(
                "[body.{key}] Too small: expected string to have >=1 characters"
            ));
        }
        value
    }

    /// A required string that must be an email address.
    pub fn email(&mut self, key: &str) -> String {
        let value = self.required_string(key);
        if matches!(self.get(key), Some(Value::String(_)))
            && !gatehouse_kit::validate::is_valid_email(value.trim())
        {
            self.issues
                .push(format!("[body.{key}] Invalid email address"));
        }
        value
    }

    pub fn optional_string(&mut self, key: &str) -> Option<String> {
        match self.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            other => {
                self.expected(key, "string", other);
                None
            }
        }
    }

    pub fn optional_bool(&mut self, key: &str) -> Option<bool> {
        match self.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            other => {
                self.expected(key, "boolean", other);
                None
            }
        }
    }

    pub fn finish(self) -> Result<(), ApiError> {
        if self.issues.is_empty() {
            Ok(())
        } else {
            Err(ApiError::WithMessage(
                ErrorCode::ValidationError,
                self.issues.join("; "),
            ))
        }
    }
}

/// The redirect-target fields better-auth checks on every state-changing request, before
/// schema validation: each must be a string, relative or on a trusted origin.
pub fn check_redirect_fields(
    body: Option<&Value>,
    query_callback: Option<&str>,
    trusted: &crate::origin::TrustedOrigins,
) -> Result<(), ApiError> {
    let fields = [
        ("callbackURL", ErrorCode::InvalidCallbackUrl),
        ("redirectTo", ErrorCode::InvalidRedirectUrl),
        ("errorCallbackURL", ErrorCode::InvalidErrorCallbackUrl),
        ("newUserCallbackURL", ErrorCode::InvalidNewUserCallbackUrl),
    ];
    for (name, code) in fields {
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
                return Err(ApiError::WithMessage(
                    ErrorCode::ValidationError,
                    format!("Invalid {name}: expected a string"),
                ));
            }
        };
        if target.is_some_and(|t| !t.is_empty() && !trusted.trusts_redirect(t)) {
            return Err(ApiError::Code(code));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_every_problem_in_better_auths_format() {
        let body = json!({ "email": "not-an-email", "password": 5 });
        let mut fields = Fields::new(Some(&body), true);
        fields.required_string("name");
        fields.email("email");
        fields.non_empty_string("password");
        let Err(ApiError::WithMessage(code, message)) = fields.finish() else {
            panic!("expected an error")
        };
        assert_eq!(code, ErrorCode::ValidationError);
        assert_eq!(
            message,
            "[body.name] Invalid input: expected string, received undefined; \
             [body.email] Invalid email address; \
             [body.password] Invalid input: expected string, received number"
        );
    }

    #[test]
    fn a_missing_body_is_reported_once() {
        let mut fields = Fields::new(None, true);
        fields.required_string("email");
        let Err(ApiError::WithMessage(_, message)) = fields.finish() else {
            panic!()
        };
        assert_eq!(
            message,
            "[body] Invalid input: expected object, received undefined"
        );
    }

    #[test]
    fn content_types_are_enforced() {
        let mut headers = HeaderMap::new();
        let bytes = Bytes::from_static(b"{}");
        assert!(matches!(
            parse(&headers, &bytes, false),
            Err(ApiError::WithMessage(ErrorCode::UnsupportedMediaType, _))
        ));
        headers.insert("content-type", "text/plain".parse().unwrap());
        assert!(matches!(
            parse(&headers, &bytes, false),
            Err(ApiError::WithMessage(ErrorCode::UnsupportedMediaType, _))
        ));
        headers.insert(
            "content-type",
            "application/json; charset=utf-8".parse().unwrap(),
        );
        assert_eq!(parse(&headers, &bytes, false).unwrap(), Some(json!({})));
        let broken = Bytes::from_static(b"{\"a\":");
        assert!(matches!(
            parse(&headers, &broken, false),
            Err(ApiError::WithMessage(ErrorCode::BadRequest, _))
        ));
        headers.insert(
            "content-type",
            "application/x-www-form-urlencoded".parse().unwrap(),
        );
        let form = Bytes::from_static(b"email=a%40b.co&rememberMe=false&name=true");
        assert_eq!(
            parse(&headers, &form, true).unwrap(),
            Some(json!({"email": "a@b.co", "rememberMe": false, "name": "true"})),
            "only rememberMe is a boolean"
        );
        assert!(parse(&headers, &form, false).is_err());
    }
}
