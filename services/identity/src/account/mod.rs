//! The `account` capability (`gatehouse.identity.v1.AccountService`): a signed-in user's own
//! profile, password and sign-in methods (protocol §8.11, §8.13, §8.14, §8.24).

pub mod grpc;
pub mod store;

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{Failure, base, username as username_codes};

use crate::email_password::{EmailPassword, store as credentials};
use crate::error::IdentityError;
use crate::user::User;
use crate::username::UsernameRules;
pub use store::{Account, ProfileChanges};

/// What update-user asks for, before the username rules have run.
#[derive(Clone, Debug, Default)]
pub struct ProfileUpdate {
    pub name: Option<String>,
    pub image: Option<Option<String>>,
    pub username: Option<String>,
    pub display_username: Option<String>,
}

#[derive(Clone)]
pub struct Accounts {
    db: Db,
    credentials: EmailPassword,
    usernames: UsernameRules,
}

impl Accounts {
    pub fn new(db: Db, credentials: EmailPassword, usernames: UsernameRules) -> Self {
        Self {
            db,
            credentials,
            usernames,
        }
    }

    /// Changes the profile (§8.11, §9.3): a new username is checked, normalised and must not
    /// belong to someone else; the display form is kept as given. Publishes `user.updated`.
    pub async fn update_user(
        &self,
        user_id: &str,
        update: ProfileUpdate,
    ) -> Result<User, IdentityError> {
        let username = match update.username.as_deref() {
            Some(raw) => {
                let username = self
                    .usernames
                    .for_update(raw)
                    .map_err(IdentityError::Refused)?;
                let holder = crate::user::store::find_by_username(&self.db, &username).await?;
                if holder.is_some_and(|holder| holder.id != user_id) {
                    return Err(username_codes::USERNAME_IS_ALREADY_TAKEN.into());
                }
                Some(username)
            }
            None => None,
        };
        let changes = ProfileChanges {
            name: update.name,
            image: update.image,
            username,
            display_username: update.display_username,
        };
        if changes.is_empty() {
            return Err(IdentityError::Refused(Failure::message_only(
                400,
                "No fields to update",
            )));
        }
        match store::update_profile(&self.db, user_id, changes).await {
            Ok(Some(user)) => Ok(user),
            Ok(None) => Err(base::USER_NOT_FOUND.into()),
            Err(error) if error.is_unique_violation_of("username") => {
                Err(username_codes::USERNAME_IS_ALREADY_TAKEN.into())
            }
            Err(error) => Err(IdentityError::internal(
                "updating a user",
                base::FAILED_TO_UPDATE_USER,
                error,
            )),
        }
    }

    /// Replaces the password once the current one is proven (§8.13).
    pub async fn change_password(
        &self,
        user_id: &str,
        current: &str,
        new: &str,
    ) -> Result<User, IdentityError> {
        self.credentials.check_password_length(new, true)?;
        if current.chars().count() > self.credentials.max_password() {
            return Err(base::PASSWORD_TOO_LONG.into());
        }
        let found = credentials::credential_of(&self.db, user_id).await?;
        let Some(credential) = found else {
            return Err(base::USER_NOT_FOUND.into());
        };
        let (Some(account_row_id), Some(stored)) =
            (credential.account_row_id, credential.password_hash)
        else {
            return Err(base::CREDENTIAL_ACCOUNT_NOT_FOUND.into());
        };
        let hasher = self.credentials.hasher();
        if !hasher.verify(current, &stored).await?.valid {
            return Err(base::INVALID_PASSWORD.into());
        }
        let hash = hasher.hash(new).await?;
        credentials::set_password_hash(&self.db, &account_row_id, &hash).await?;
        tracing::info!(user_id, "password changed");
        // The caller may start a new session with it (revokeOtherSessions): not when banned.
        self.credentials.admit_banned(credential.user).await
    }

    /// Sets a password for a user who has none (§8.14, server side only).
    pub async fn set_password(&self, user_id: &str, new: &str) -> Result<(), IdentityError> {
        self.credentials.check_password_length(new, true)?;
        let found = credentials::credential_of(&self.db, user_id).await?;
        let Some(credential) = found else {
            return Err(base::USER_NOT_FOUND.into());
        };
        if credential.password_hash.is_some() {
            return Err(base::PASSWORD_ALREADY_SET.into());
        }
        let hash = self.credentials.hasher().hash(new).await?;
        match credential.account_row_id {
            Some(account_row_id) => {
                credentials::set_password_hash(&self.db, &account_row_id, &hash).await?
            }
            None => store::add_credential(&self.db, user_id, &hash).await?,
        }
        tracing::info!(user_id, "password set");
        Ok(())
    }

    /// The user's sign-in methods.
    pub async fn list_accounts(&self, user_id: &str) -> Result<Vec<Account>, IdentityError> {
        Ok(store::list(&self.db, user_id).await?)
    }

    /// One of the user's accounts, for its provider's profile of them (§8.29). No social
    /// provider is configured yet, so every account that exists answers
    /// `PROVIDER_NOT_CONFIGURED`, the credential account included.
    pub async fn account_info(
        &self,
        user_id: &str,
        account_id: &str,
    ) -> Result<Account, IdentityError> {
        match store::find(&self.db, user_id, account_id).await? {
            None => Err(base::ACCOUNT_NOT_FOUND.into()),
            Some(_) => Err(base::PROVIDER_NOT_CONFIGURED.into()),
        }
    }
}
