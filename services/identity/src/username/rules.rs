//! What a username may be and how it is stored: the rules sign-up, update-user and the
//! username routes share.

use gatehouse_kit::errors::{ErrorCode, Failure, username as codes};

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
