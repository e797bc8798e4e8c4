//! The `username` capability (`gatehouse.identity.v1.UsernameService`, better-auth's username
//! plugin, protocol §9): what a username may be, how it is stored, sign-in by username and the
//! availability check. Sign-up and update-user apply the same [`UsernameRules`], answering
//! with status 400 where the plugin's own routes answer 422.

pub mod grpc;
pub mod rules;

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{base, username as codes};

use crate::email_password::{EmailPassword, store};
use crate::error::IdentityError;
use crate::user::User;
pub use rules::UsernameRules;

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
