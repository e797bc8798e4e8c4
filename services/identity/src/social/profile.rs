//! What a provider says about the user, made fit for a user row: an address sign-up would
//! refuse is no address, a name has no control characters and at most 255 characters, a
//! picture URL at most 2048.

use serde_json::Value;

/// What a provider says about the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The provider's id for the user (`sub`, or `id`).
    pub id: String,
    /// Lower-cased.
    pub email: Option<String>,
    pub email_verified: bool,
    pub name: String,
    pub image: Option<String>,
}

/// The longest name and picture URL kept, as sign-up's limits.
const MAX_NAME: usize = 255;
const MAX_URL: usize = 2048;

impl Profile {
    /// A profile from a provider's raw values, cleaned.
    pub fn new(
        id: String,
        email: Option<String>,
        email_verified: bool,
        name: &str,
        image: Option<String>,
    ) -> Self {
        Self {
            id,
            email: email
                .map(|e| e.trim().to_lowercase())
                .filter(|e| gatehouse_kit::validate::is_valid_email(e)),
            email_verified,
            name: clean_name(name),
            image: image.filter(|url| !url.is_empty() && url.len() <= MAX_URL),
        }
    }
}

/// A claim as text: a non-empty string, or a number written out.
pub fn text(claims: &Value, key: &str) -> Option<String> {
    match claims.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// A claim as a flag: `true`, or the string `"true"`.
pub fn flag(claims: &Value, key: &str) -> bool {
    match claims.get(key) {
        Some(Value::Bool(verified)) => *verified,
        Some(Value::String(verified)) => verified == "true",
        _ => false,
    }
}

/// OpenID's standard claims (`sub`, `email`, `email_verified`, `name`, `picture`), with
/// plain OAuth 2's `id` for `sub`.
pub fn profile_of(claims: &Value) -> Option<Profile> {
    let id = text(claims, "sub").or_else(|| text(claims, "id"))?;
    Some(Profile::new(
        id,
        text(claims, "email"),
        flag(claims, "email_verified"),
        &text(claims, "name").unwrap_or_default(),
        text(claims, "picture"),
    ))
}

/// The provider's name for the user as sign-up would accept one: control characters dropped,
/// at most 255 characters.
fn clean_name(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn profiles_read_openid_claims_and_oauth_ids() {
        let openid = profile_of(&json!({"sub": "s1", "email": "Bob@Example.com",
            "email_verified": true, "name": "Bob", "picture": "https://x/p.png"}))
        .unwrap();
        assert_eq!(openid.id, "s1");
        assert_eq!(openid.email.as_deref(), Some("bob@example.com"));
        assert!(openid.email_verified);
        let oauth = profile_of(&json!({"id": 42, "email_verified": "false"})).unwrap();
        assert_eq!(
            (oauth.id.as_str(), oauth.email, oauth.email_verified),
            ("42", None, false)
        );
        assert!(profile_of(&json!({"email": "a@b"})).is_none());
    }

    #[test]
    fn a_provider_s_profile_meets_the_sign_up_rules() {
        let long = "n".repeat(300);
        let profile = profile_of(&json!({"sub": "s", "email": "not an address",
            "name": format!("Ann\u{0}\u{1b}[31m{long}"), "picture": format!("https://x/{long}{long}{long}{long}{long}{long}{long}")}))
        .unwrap();
        assert_eq!(profile.email, None, "an invalid address is none");
        assert!(
            profile.name.starts_with("Ann[31m"),
            "{:?}",
            &profile.name[..8]
        );
        assert_eq!(profile.name.chars().count(), 255);
        assert!(!profile.name.chars().any(char::is_control));
        assert_eq!(
            profile.image, None,
            "a picture URL over 2048 characters is dropped"
        );
    }
}
