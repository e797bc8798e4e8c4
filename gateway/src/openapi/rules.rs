//! What the services check beyond the input types' schemas, written into the served document
//! so that it says exactly what is accepted. The gateway validates the types' schemas, in
//! better-auth's (Zod's) words; the rules here are refused by the service behind the route
//! with their own codes (`PASSWORD_TOO_SHORT`, `INVALID_USERNAME`, `INVALID_EMAIL`, …), as
//! better-auth's handlers do, so they are only written down here, never checked twice. Some
//! depend on the configuration (`PASSWORD_*_LENGTH`, `USERNAME_*_LENGTH`).

use gatehouse_kit::config::CredentialRules;
use gatehouse_kit::validate::EMAIL_PATTERN;
use serde_json::{Value, json};

/// What the served documents say that depends on the configuration.
#[derive(Clone, Debug)]
pub struct DocumentSettings {
    pub lengths: CredentialRules,
    /// The roles an admin may give, and those a member may have.
    pub admin_roles: Vec<String>,
    pub organization_roles: Vec<String>,
}

impl Default for DocumentSettings {
    fn default() -> Self {
        Self {
            lengths: CredentialRules::default(),
            admin_roles: names(crate::config::BUILT_IN_ADMIN_ROLES),
            organization_roles: names(crate::config::BUILT_IN_MEMBER_ROLES),
        }
    }
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| name.to_string()).collect()
}

impl From<&crate::config::GatewayConfig> for DocumentSettings {
    fn from(config: &crate::config::GatewayConfig) -> Self {
        Self {
            lengths: config.credentials,
            admin_roles: config.admin_role_names.clone(),
            organization_roles: config.organization_role_names.clone(),
        }
    }
}

/// Roles: one name, or a list of them (the services also take names joined by commas).
const ADMIN_ROLES: &[Target] = &[("SetRoleBody", &["role"]), ("CreateUserBody", &["role"])];
const MEMBER_ROLES: &[Target] = &[
    ("InviteMemberBody", &["role"]),
    ("UpdateMemberRoleBody", &["role"]),
];

/// A property of a component schema: the schema's name and the path to the property through
/// inline objects (`UpdateOrganizationBody`, `["data", "name"]`).
type Target = (&'static str, &'static [&'static str]);

/// New passwords: at least `PASSWORD_MIN_LENGTH` characters, at most `PASSWORD_MAX_LENGTH`.
const NEW_PASSWORDS: &[Target] = &[
    ("SignUpBody", &["password"]),
    ("ChangePasswordBody", &["newPassword"]),
    ("ResetPasswordBody", &["newPassword"]),
    ("SetUserPasswordBody", &["newPassword"]),
];

/// Passwords that prove who the caller is: longer ones are refused before any hash runs.
const PROVING_PASSWORDS: &[Target] = &[
    ("SignInBody", &["password"]),
    ("SignInUsernameBody", &["password"]),
    ("ChangePasswordBody", &["currentPassword"]),
    ("DeleteUserBody", &["password"]),
    // An admin's new user may get a short password (better-auth checks only the maximum).
    ("CreateUserBody", &["password"]),
];

/// Usernames: letters, digits, `_` and `.`, `USERNAME_MIN_LENGTH` to `USERNAME_MAX_LENGTH`.
const USERNAMES: &[Target] = &[
    ("SignUpBody", &["username"]),
    ("UpdateUserBody", &["username"]),
    ("SignInUsernameBody", &["username"]),
    ("IsUsernameAvailableBody", &["username"]),
];

/// Addresses the service checks (`INVALID_EMAIL`) where better-auth's schema takes any string;
/// every `format: email` property (checked here, in Zod's words) gets the pattern too.
const SERVICE_CHECKED_EMAILS: &[Target] = &[
    ("SignInBody", &["email"]),
    ("CreateUserBody", &["email"]),
    ("InviteMemberBody", &["email"]),
];

/// Identifiers the service refuses empty (`VALIDATION_ERROR`, "… is required"). On a field
/// that takes any value (coerced to a string), `minLength` speaks of strings only.
const NONEMPTY: &[Target] = &[
    ("UserIdBody", &["userId"]),
    ("SetUserPasswordBody", &["userId"]),
    ("TeamMemberBody", &["teamId"]),
    ("TeamMemberBody", &["userId"]),
    ("RemoveTeamBody", &["teamId"]),
    ("UpdateTeamBody", &["teamId"]),
];

/// A seller's endpoint: an absolute http or https URL without credentials (the billing
/// service's `INVALID_ENDPOINT_URL`). Its host here is a name whose last label starts with a
/// letter (a number there would be read as an IPv4 address), labels joined by single hyphens.
const ENDPOINT_URL_PATTERN: &str = r"^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\.)*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?::[0-9]{1,4})?(?:/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?(?:\?[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$";
const ENDPOINT_URLS: &[Target] = &[
    ("CreateEndpointBody", &["url"]),
    ("UpdateEndpointBody", &["url"]),
];

/// Event types as the payments platform names them: lower-case words and `_`, joined by `.`.
const EVENT_TYPE_LISTS: &[Target] = &[
    ("CreateEndpointBody", &["eventTypes"]),
    ("UpdateEndpointBody", &["eventTypes"]),
];

/// Times the handler reads as RFC 3339 (`VALIDATION_ERROR` otherwise).
const TIMES: &[Target] = &[
    ("ReplayRangeBody", &["since"]),
    ("ReplayRangeBody", &["until"]),
];

/// The platform's language codes, which the service checks.
const LANGUAGES: &[Target] = &[
    ("SignUpBody", &["language"]),
    ("UpdateUserBody", &["language"]),
];

/// Writes the rules into `document` (either API's); answers the targets it does not hold,
/// which are the other API's (a unit test holds every target to one of the two).
pub fn apply(document: &mut Value, settings: &DocumentSettings) -> Vec<String> {
    let lengths = &settings.lengths;
    let mut missing = Vec::new();
    let codes: Vec<Value> = gatehouse_kit::language::Language::ALL
        .iter()
        .map(|language| Value::from(language.code()))
        .collect();
    let nonempty = json!({ "minLength": 1 });
    let password = json!({
        "minLength": lengths.password_min_length,
        "maxLength": lengths.password_max_length,
    });
    let proof = json!({ "maxLength": lengths.password_max_length });
    let username = json!({
        "minLength": lengths.username_min_length,
        "maxLength": lengths.username_max_length,
        "pattern": format!(
            "^[A-Za-z0-9_.]{{{},{}}}$",
            lengths.username_min_length, lengths.username_max_length
        ),
    });
    let email = json!({ "format": "email", "pattern": EMAIL_PATTERN });
    for (targets, rule) in [
        (NEW_PASSWORDS, &password),
        (PROVING_PASSWORDS, &proof),
        (USERNAMES, &username),
        (SERVICE_CHECKED_EMAILS, &email),
        (NONEMPTY, &nonempty),
        (ENDPOINT_URLS, &json!({ "pattern": ENDPOINT_URL_PATTERN })),
        (
            EVENT_TYPE_LISTS,
            &json!({ "items": { "type": "string", "maxLength": 64, "pattern": r"^[a-z_]+(?:\.[a-z_]+)*$" } }),
        ),
        (TIMES, &json!({ "format": "date-time" })),
    ] {
        for target in targets {
            match property(document, target) {
                Some(property) => merge(property, rule),
                None => missing.push(format!("{}.{}", target.0, target.1.join("."))),
            }
        }
    }
    for target in LANGUAGES {
        match property(document, target) {
            Some(property) => {
                let mut allowed = codes.clone();
                if takes_null(property) {
                    allowed.push(Value::Null);
                }
                merge(property, &json!({ "enum": allowed }));
            }
            None => missing.push(format!("{}.{}", target.0, target.1.join("."))),
        }
    }
    for (targets, names) in [
        (ADMIN_ROLES, &settings.admin_roles),
        (MEMBER_ROLES, &settings.organization_roles),
    ] {
        for target in targets {
            match property(document, target) {
                Some(property) => roles(property, names),
                None => missing.push(format!("{}.{}", target.0, target.1.join("."))),
            }
        }
    }
    missing.extend(permission_questions(document));
    missing.extend(shapes(document));
    never_null_bodies(document);
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for schema in schemas.values_mut() {
            for_each_property(schema, &mut |property| {
                if property.get("format") == Some(&json!("email")) {
                    merge(property, &email);
                }
                if property.get("format") == Some(&json!("date-time")) {
                    merge(property, &json!({ "pattern": DATE_TIME_PATTERN }));
                }
            });
        }
    }
    for_each_parameter(document, &mut |schema| {
        if schema.get("format") == Some(&json!("date-time")) {
            merge(schema, &json!({ "pattern": DATE_TIME_PATTERN }));
        }
    });
    // Last: each form gets its own copy of its schema, with every rule above in it.
    text_only_forms(document);
    missing
}

/// RFC 3339 as the handlers read it (chrono's `parse_from_rfc3339`), beside `format:
/// date-time`, which schemathesis and others may not assert.
const DATE_TIME_PATTERN: &str = r"^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$";

/// A role property: one of `names`, or a non-empty list of them (`null` too where it was
/// allowed: an admin's new user may come without a role).
fn roles(property: &mut Value, names: &[String]) {
    let one = json!({ "type": "string", "enum": names });
    let several = json!({ "type": "array", "items": one.clone(), "minItems": 1 });
    let description = property.get("description").cloned();
    let mut alternatives = vec![one, several];
    if takes_null(property) || one_of_has_null(property) {
        alternatives.push(json!({ "type": "null" }));
    }
    let mut schema = json!({ "oneOf": alternatives });
    if let Some(description) = description {
        schema["description"] = description;
    }
    *property = schema;
}

fn one_of_has_null(property: &Value) -> bool {
    property
        .get("oneOf")
        .and_then(Value::as_array)
        .is_some_and(|items| items.iter().any(|i| i.get("type") == Some(&json!("null"))))
}

fn for_each_parameter(document: &mut Value, visit: &mut impl FnMut(&mut Value)) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for operation in item.values_mut() {
            if let Some(parameters) = operation
                .get_mut("parameters")
                .and_then(Value::as_array_mut)
            {
                for parameter in parameters {
                    if let Some(schema) = parameter.get_mut("schema") {
                        visit(schema);
                    }
                }
            }
        }
    }
}

/// has-permission (admin and organization): the handlers want `permissions`, a map of resource
/// to actions; the organization's route also takes the deprecated `permission` instead (it
/// grants nothing), the admin's refuses it. In better-auth's schema both are a union the
/// gateway judges as a whole, in Zod's words, so the shape is written here.
fn permission_questions(document: &mut Value) -> Vec<String> {
    let actions = json!({
        "type": "object",
        "description": "Resource → actions: `{\"user\": [\"ban\"]}`, `{\"member\": [\"create\"]}`.",
        "additionalProperties": { "type": "array", "items": { "type": "string" } },
    });
    let mut missing = Vec::new();
    match document.pointer_mut("/components/schemas/HasPermissionBody") {
        Some(admin) => {
            admin["required"] = json!(["permissions"]);
            if let Some(properties) = admin["properties"].as_object_mut() {
                properties.insert("permissions".into(), actions.clone());
                // Refused when given; not part of what a caller may send.
                properties.remove("permission");
            }
        }
        None => missing.push("HasPermissionBody".into()),
    }
    match document.pointer_mut("/components/schemas/OrganizationHasPermissionBody") {
        Some(organization) => {
            // `null` is as good as absent; one of the two must be an object, and a
            // `permissions` map must name something.
            let mut asked = actions.clone();
            asked["minProperties"] = json!(1);
            organization["anyOf"] = json!([
                { "required": ["permissions"], "properties": { "permissions": asked } },
                { "required": ["permission"], "properties": { "permission": { "type": "object" } },
                  "not": { "required": ["permissions"], "properties": { "permissions": { "type": "object" } } } },
            ]);
            if let Some(properties) = organization["properties"].as_object_mut() {
                let mut nullable = actions.clone();
                nullable["type"] = json!(["object", "null"]);
                properties.insert("permissions".into(), nullable.clone());
                nullable["description"] =
                    json!("Deprecated: the same map; answered `false` whatever it holds.");
                properties.insert("permission".into(), nullable);
            }
        }
        None => missing.push("OrganizationHasPermissionBody".into()),
    }
    missing
}

/// What the handlers refuse that a property's schema alone cannot say.
fn shapes(document: &mut Value) -> Vec<String> {
    let mut missing = Vec::new();
    // update-user: the fields a user may not set are refused when "supplied" (JavaScript
    // truthiness, as better-auth judges it), so only the empty values may be sent.
    let falsy = json!({ "enum": [null, false, "", 0] });
    for field in [
        "email",
        "role",
        "banned",
        "banReason",
        "banExpires",
        "twoFactorEnabled",
    ] {
        let pointer = format!("/components/schemas/UpdateUserBody/properties/{field}");
        match document.pointer_mut(&pointer) {
            Some(property) => merge(property, &falsy),
            None => missing.push(format!("UpdateUserBody.{field}")),
        }
    }
    // update-user: something must change (a name, username, display name or language, or
    // the image, which `null` removes); the refused fields and unknown keys change nothing.
    match document.pointer_mut("/components/schemas/UpdateUserBody") {
        Some(body) => {
            body["anyOf"] = json!([
                { "required": ["name"], "properties": { "name": { "type": "string" } } },
                { "required": ["image"] },
                { "required": ["username"], "properties": { "username": { "type": "string" } } },
                { "required": ["displayUsername"], "properties": { "displayUsername": { "type": "string" } } },
                { "required": ["language"], "properties": { "language": { "type": "integer" } } },
            ]);
        }
        None => missing.push("UpdateUserBody".into()),
    }
    // an admin's update-user: a name is text (identity refuses `null` there).
    match property(document, &("AdminUpdateUserBody", &["data", "name"])) {
        Some(name) => name["type"] = json!("string"),
        None => missing.push("AdminUpdateUserBody.data.name".into()),
    }
    // organization update: `data` must change something (a name, slug or metadata, or the
    // logo, which `null` clears).
    match property(document, &("UpdateOrganizationBody", &["data"])) {
        Some(data) => {
            data["anyOf"] = json!([
                { "required": ["name"], "properties": { "name": { "type": "string" } } },
                { "required": ["slug"], "properties": { "slug": { "type": "string" } } },
                { "required": ["logo"] },
                { "required": ["metadata"], "properties": { "metadata": { "type": "object" } } },
            ]);
        }
        None => missing.push("UpdateOrganizationBody.data".into()),
    }
    missing
}

/// A JSON `null` body is refused ("expected object"); an optional body is one that may be
/// left out, which utoipa writes as a union with `null`.
fn never_null_bodies(document: &mut Value) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for operation in item.values_mut() {
            let Some(content) = operation
                .pointer_mut("/requestBody/content")
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            for media in content.values_mut() {
                let schema = &mut media["schema"];
                let non_null: Option<Vec<Value>> =
                    schema.get("oneOf").and_then(Value::as_array).map(|items| {
                        items
                            .iter()
                            .filter(|item| item.get("type") != Some(&json!("null")))
                            .cloned()
                            .collect()
                    });
                if let Some([only]) = non_null.as_deref() {
                    *schema = only.clone();
                }
            }
        }
    }
}

/// A form carries text only: no field of it can be `null`. Each form body gets its own copy of
/// the schema without the `null`s.
fn text_only_forms(document: &mut Value) {
    let schemas = document
        .pointer("/components/schemas")
        .cloned()
        .unwrap_or(Value::Null);
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for operation in item.values_mut() {
            let Some(form) = operation
                .pointer_mut("/requestBody/content/application~1x-www-form-urlencoded/schema")
            else {
                continue;
            };
            let resolved = match form.get("$ref").and_then(Value::as_str) {
                Some(reference) => reference
                    .rsplit('/')
                    .next()
                    .and_then(|name| schemas.get(name))
                    .cloned(),
                None => Some(form.clone()),
            };
            let Some(mut schema) = resolved else {
                continue;
            };
            if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                for property in properties.values_mut() {
                    without_null(property);
                }
            }
            *form = schema;
        }
    }
}

fn without_null(property: &mut Value) {
    if let Some(Value::Array(types)) = property.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            property["type"] = only;
        }
    }
    if let Some(Value::Array(allowed)) = property.get_mut("enum") {
        allowed.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(items)) = property.get_mut("oneOf") {
        items.retain(|item| item.get("type") != Some(&json!("null")));
    }
}

fn takes_null(property: &Value) -> bool {
    match property.get("type") {
        Some(Value::Array(types)) => types.contains(&json!("null")),
        Some(kind) => kind == "null",
        None => false,
    }
}

fn property<'a>(document: &'a mut Value, (schema, path): &Target) -> Option<&'a mut Value> {
    let mut at = document.pointer_mut(&format!("/components/schemas/{schema}"))?;
    for name in *path {
        at = at.get_mut("properties")?.get_mut(*name)?;
    }
    Some(at)
}

fn for_each_property(schema: &mut Value, visit: &mut impl FnMut(&mut Value)) {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for property in properties.values_mut() {
            visit(property);
            for_each_property(property, visit);
        }
    }
}

/// Sets `rule`'s keywords on `property`; a length the type already bounds more tightly keeps
/// its bound (the gateway refuses past it first).
fn merge(property: &mut Value, rule: &Value) {
    let (Some(property), Some(rule)) = (property.as_object_mut(), rule.as_object()) else {
        return;
    };
    for (keyword, value) in rule {
        let tighter = match (keyword.as_str(), property.get(keyword), value.as_u64()) {
            ("maxLength", Some(Value::Number(old)), Some(new)) => old.as_u64().map(|o| o.min(new)),
            ("minLength", Some(Value::Number(old)), Some(new)) => old.as_u64().map(|o| o.max(new)),
            _ => None,
        };
        let value = tighter.map_or_else(|| value.clone(), Value::from);
        property.insert(keyword.clone(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_names_a_property_of_one_of_the_documents() {
        let missing_in = |document: utoipa::openapi::OpenApi| {
            let mut document = serde_json::to_value(&document).unwrap();
            apply(&mut document, &DocumentSettings::default())
        };
        let auth = missing_in(crate::routes::routes().document);
        let billing = missing_in(crate::routes::billing_routes().document);
        let nowhere: Vec<&String> = auth.iter().filter(|t| billing.contains(t)).collect();
        assert!(nowhere.is_empty(), "no such properties: {nowhere:?}");
    }

    #[test]
    fn the_lengths_follow_the_configuration() {
        let document = crate::routes::routes().document;
        let mut document = serde_json::to_value(&document).unwrap();
        let settings = DocumentSettings {
            lengths: CredentialRules {
                password_min_length: 12,
                password_max_length: 64,
                username_min_length: 4,
                username_max_length: 20,
            },
            ..DocumentSettings::default()
        };
        apply(&mut document, &settings);
        let sign_up = &document["components"]["schemas"]["SignUpBody"]["properties"];
        assert_eq!(sign_up["password"]["minLength"], 12);
        assert_eq!(sign_up["password"]["maxLength"], 64);
        assert_eq!(sign_up["username"]["pattern"], "^[A-Za-z0-9_.]{4,20}$");
        assert_eq!(sign_up["email"]["pattern"], EMAIL_PATTERN);
        let sign_in = &document["components"]["schemas"]["SignInBody"]["properties"];
        assert_eq!(sign_in["password"]["maxLength"], 64);
        assert!(sign_in["password"].get("minLength").is_none());
        assert_eq!(sign_in["email"]["pattern"], EMAIL_PATTERN);
    }
}
