//! create-user's and update-user's `data`: more user fields as JSON, under better-auth's names,
//! read into typed values, with better-auth's answers to values of the wrong kind.

use chrono::{DateTime, Utc};
use gatehouse_kit::errors::{admin as codes, base};
use gatehouse_kit::validate::{is_valid_email, normalize_email, one_or_many};
use serde_json::{Map, Value};

use super::Roles;
use crate::email_password::store::Extras;
use crate::error::IdentityError;
use crate::username::rules::UsernameRules;

/// The fields that ban or unban: setting any of them needs `user:ban`.
const BAN_FIELDS: [&str; 3] = ["banned", "banReason", "banExpires"];

/// Whether `data` sets a ban field.
pub fn touches_ban(data: &Map<String, Value>) -> bool {
    BAN_FIELDS.iter().any(|key| data.contains_key(*key))
}

/// Whether `data` asks for a ban (`banned: true`).
pub fn bans(data: &Map<String, Value>) -> bool {
    data.get("banned") == Some(&Value::Bool(true))
}

/// A role field (a role or a list of roles) as a list; anything else is `INVALID_ROLE_TYPE`.
fn roles(value: &Value) -> Result<Vec<String>, IdentityError> {
    one_or_many("role", value).map_err(|_| codes::INVALID_ROLE_TYPE.into())
}

/// The roles a create-user asks for: `role` wins over `data.role`; `None` for the default role.
pub fn requested_roles(
    roles_field: &Option<Vec<String>>,
    data: &Map<String, Value>,
) -> Result<Option<Vec<String>>, IdentityError> {
    match (roles_field, data.get("role")) {
        (Some(given), _) => Ok(Some(given.clone())),
        (None, None) => Ok(None),
        (None, Some(value)) => roles(value).map(Some),
    }
}

/// A text field of create-user's `data`; any other kind of value counts as absent.
pub fn text(data: &Map<String, Value>, key: &str) -> Option<String> {
    data.get(key).and_then(Value::as_str).map(str::to_string)
}

/// create-user's language (`data.language`), checked; the platform's default when absent.
pub fn language(data: &Map<String, Value>) -> Result<i32, IdentityError> {
    Ok(data
        .get("language")
        .and_then(Value::as_i64)
        .and_then(|code| i32::try_from(code).ok())
        .map(crate::user::language)
        .transpose()?
        .unwrap_or(gatehouse_kit::language::Language::DEFAULT.code()))
}

/// What create-user sets beyond a sign-up's fields; a ban expiry that is no RFC 3339 time is
/// no expiry.
pub fn extras(data: &Map<String, Value>, role: Option<String>) -> Extras {
    Extras {
        role,
        email_verified: data.get("emailVerified") == Some(&Value::Bool(true)),
        banned: bans(data),
        ban_reason: text(data, "banReason"),
        ban_expires: text(data, "banExpires")
            .and_then(|raw| DateTime::parse_from_rfc3339(&raw).ok().map(|t| t.to_utc())),
    }
}

/// What an update-user changes, each field checked and normalised: `None` leaves a field as
/// it is; `Some(None)` clears it.
#[derive(Debug, Default, PartialEq)]
pub struct UserChanges {
    pub name: Option<String>,
    pub image: Option<Option<String>>,
    pub email: Option<String>,
    pub email_verified: Option<bool>,
    pub username: Option<Option<String>>,
    pub display_username: Option<Option<String>>,
    /// The roles as stored (comma-separated).
    pub role: Option<String>,
    pub banned: Option<bool>,
    pub ban_reason: Option<Option<String>>,
    pub ban_expires: Option<Option<DateTime<Utc>>>,
}

impl UserChanges {
    /// Reads update-user's `data`, field by field in better-auth's order (the first bad field
    /// is the answer); keys that are no user field are dropped, as better-auth drops them.
    pub fn read(
        data: &Map<String, Value>,
        usernames: &UsernameRules,
        known_roles: &Roles,
    ) -> Result<Self, IdentityError> {
        let invalid = |key: &str| {
            IdentityError::Refused(
                base::VALIDATION_ERROR.with_message(format!("[body.data.{key}] Invalid input")),
            )
        };
        let text = |key: &str| -> Result<Option<Option<String>>, IdentityError> {
            match data.get(key) {
                None => Ok(None),
                Some(Value::Null) => Ok(Some(None)),
                Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
                Some(_) => Err(invalid(key)),
            }
        };
        let mut changes = Self::default();
        if let Some(name) = text("name")? {
            changes.name = Some(name.ok_or_else(|| invalid("name"))?);
        }
        changes.image = text("image")?;
        if let Some(email) = text("email")? {
            let email = normalize_email(&email.ok_or_else(|| invalid("email"))?);
            if !is_valid_email(&email) {
                return Err(base::INVALID_EMAIL.into());
            }
            changes.email = Some(email);
        }
        if let Some(verified) = data.get("emailVerified") {
            changes.email_verified =
                Some(verified.as_bool().ok_or_else(|| invalid("emailVerified"))?);
        }
        if let Some(username) = text("username")? {
            let username = match username {
                Some(raw) => Some(usernames.for_update(&raw).map_err(IdentityError::Refused)?),
                None => None,
            };
            changes.username = Some(username);
        }
        changes.display_username = text("displayUsername")?;
        if let Some(role) = data.get("role") {
            changes.role = Some(known_roles.stored(&roles(role)?)?);
        }
        if let Some(banned) = data.get("banned") {
            changes.banned = Some(banned.as_bool().ok_or_else(|| invalid("banned"))?);
        }
        changes.ban_reason = text("banReason")?;
        if let Some(expires) = text("banExpires")? {
            let expires = match expires {
                Some(raw) => Some(
                    DateTime::parse_from_rfc3339(&raw)
                        .map_err(|_| invalid("banExpires"))?
                        .to_utc(),
                ),
                None => None,
            };
            changes.ban_expires = Some(expires);
        }
        Ok(changes)
    }

    /// Whether nothing changes (only keys that are no user field).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}
