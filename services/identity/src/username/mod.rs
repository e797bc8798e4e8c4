//! The `username` capability (`gatehouse.identity.v1.UsernameService`, better-auth's username
//! plugin, protocol §9): what a username may be, how it is stored, sign-in by username and the
//! availability check. Sign-up and update-user apply the same [`UsernameRules`], answering
//! with status 400 where the plugin's own routes answer 422.

pub mod grpc;

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{ErrorCode, Failure, base, username as codes};

use crate::email_password::{EmailPassword, store};
use crate::error::IdentityError;
use crate::user::User;

/// `USERNAME_MIN_LENGTH` / `USERNAME_MAX_LENGTH` (3 and 30 by default); letters, digits,
/// underscore and dot; stored lower-cased.
#[derive(Clone, Copy, Debug)]
pub struct UsernameRules {
    pub min_length: usize,
    pub max_length: usize,
}

impl Default for UsernameRules {
    fn default() -> Self {
        Self {
            min_length: 3,
            max_length: 30,
        }
    }
}

impl UsernameRules {
    /// better-auth's order: too short, then too long, then the characters. Checked on the
    /// value as given (`validationOrder: pre-normalization`).
    pub fn check(&self, raw: &str) -> Result<(), ErrorCode> {
        let length = raw.chars().count();
        if length < self.min_length {
            return Err(codes::USERNAME_TOO_SHORT);
        }
        if length > self.max_length {
            return Err(codes::USERNAME_TOO_LONG);
        }
        if !raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            return Err(codes::INVALID_USERNAME);
        }
        Ok(())
    }

    /// How a username is stored and looked up: lower-cased, so uniqueness ignores case.
    pub fn normalize(raw: &str) -> String {
        raw.to_lowercase()
    }

    /// The username and display form a sign-up stores (§9.3): a valid display form alone
    /// becomes the username too; a username alone is also the display form, as typed.
    pub fn for_sign_up(
        &self,
        username: Option<String>,
        display_username: Option<String>,
    ) -> Result<(Option<String>, Option<String>), Failure> {
        let username = username.or_else(|| {
            display_username
                .clone()
                .filter(|display| self.check(display).is_ok())
        });
        let Some(raw) = username else {
            return Ok((None, display_username));
        };
        self.check(&raw).map_err(|code| code.with_status(400))?;
        let display = display_username.unwrap_or_else(|| raw.clone());
        Ok((Some(Self::normalize(&raw)), Some(display)))
    }

    /// A username an existing user asks for (update-user): checked and normalised, 400.
    pub fn for_update(&self, raw: &str) -> Result<String, Failure> {
        self.check(raw).map_err(|code| code.with_status(400))?;
        Ok(Self::normalize(raw))
    }
}

/// Sign-in by username and the availability check.
#[derive(Clone)]
pub struct Usernames {
    db: Db,
    rules: UsernameRules,
    credentials: EmailPassword,
}

impl Usernames {
    pub fn new(db: Db, rules: UsernameRules, credentials: EmailPassword) -> Self {
        Self {
            db,
            rules,
            credentials,
        }
    }

    /// Checks username + password (§9.4). Unknown usernames cost one hash like wrong passwords,
    /// and an account named by username shares its throttle with sign-ins by email.
    pub async fn sign_in(&self, username: &str, password: &str) -> Result<User, IdentityError> {
        if username.is_empty() || password.is_empty() {
            return Err(codes::INVALID_USERNAME_OR_PASSWORD.into());
        }
        self.rules.check(username)?;
        if password.chars().count() > self.credentials.max_password() {
            return Err(base::PASSWORD_TOO_LONG.into());
        }
        let username = UsernameRules::normalize(username);
        let found = store::find_credential(&self.db, store::By::Username(&username)).await?;
        let throttle_key = match &found {
            Some(credential) => credential.user.email.clone(),
            None => format!("username:{username}"),
        };
        let attempt = self.credentials.admit_attempt(&throttle_key).await?;
        self.credentials
            .prove(&throttle_key, attempt, found, password)
            .await
            .map_err(|error| match error {
                IdentityError::Refused(failure) if failure.is(base::INVALID_EMAIL_OR_PASSWORD) => {
                    codes::INVALID_USERNAME_OR_PASSWORD.into()
                }
                other => other,
            })
    }

    /// Whether `username` is valid and free, ignoring case (§9.5).
    pub async fn is_available(&self, username: &str) -> Result<bool, IdentityError> {
        if username.is_empty() {
            return Err(codes::INVALID_USERNAME.into());
        }
        self.rules.check(username)?;
        let taken =
            crate::user::store::find_by_username(&self.db, &UsernameRules::normalize(username))
                .await?;
        Ok(taken.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_is_checked_before_the_characters() {
        let rules = UsernameRules::default();
        assert_eq!(rules.check("ab"), Err(codes::USERNAME_TOO_SHORT));
        assert_eq!(rules.check("a!"), Err(codes::USERNAME_TOO_SHORT));
        assert_eq!(rules.check(&"a".repeat(31)), Err(codes::USERNAME_TOO_LONG));
        assert_eq!(rules.check("al ice"), Err(codes::INVALID_USERNAME));
        assert_eq!(rules.check("élise"), Err(codes::INVALID_USERNAME));
        assert_eq!(rules.check("Alice_1.x"), Ok(()));
        assert_eq!(rules.check(&"a".repeat(30)), Ok(()));
    }

    #[test]
    fn sign_up_fills_the_missing_half_as_better_auth_does() {
        let rules = UsernameRules::default();
        let pair = |u: Option<&str>, d: Option<&str>| {
            rules.for_sign_up(u.map(str::to_string), d.map(str::to_string))
        };
        assert_eq!(
            pair(Some("Alice_1"), None),
            Ok((Some("alice_1".into()), Some("Alice_1".into())))
        );
        assert_eq!(
            pair(None, Some("Bob.B")),
            Ok((Some("bob.b".into()), Some("Bob.B".into())))
        );
        // A display form that is no valid username stays a display form only.
        assert_eq!(pair(None, Some("Bob B")), Ok((None, Some("Bob B".into()))));
        assert_eq!(
            pair(Some("Carol"), Some("Carol the Great")),
            Ok((Some("carol".into()), Some("Carol the Great".into())))
        );
        assert_eq!(pair(None, None), Ok((None, None)));
        let refused = pair(Some("x"), None).unwrap_err();
        assert!(refused.is(codes::USERNAME_TOO_SHORT));
        assert_eq!(refused.http_status(), 400, "400 on sign-up, not 422");
    }
}
