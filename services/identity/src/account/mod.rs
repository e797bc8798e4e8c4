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
use crate::verification::new_link::NewLink;
use crate::verification::{Purpose, store as links};
pub use store::{Account, ProfileChanges};

/// What update-user asks for, before the username rules have run.
#[derive(Clone, Debug, Default)]
pub struct ProfileUpdate {
    pub name: Option<String>,
    pub image: Option<Option<String>>,
    pub username: Option<String>,
    pub display_username: Option<String>,
    pub language: Option<i32>,
}

/// `DELETE_USER_*`: whether and how users delete their own account.
#[derive(Clone, Debug)]
pub struct DeleteSettings {
    pub enabled: bool,
    /// Deletion waits for a link mailed to the user.
    pub verify_by_mail: bool,
    /// How long that link works.
    pub lifetime: std::time::Duration,
}

impl Default for DeleteSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            verify_by_mail: false,
            lifetime: std::time::Duration::from_secs(86_400),
        }
    }
}

/// What `POST /delete-user` offers as proof.
#[derive(Clone, Debug, Default)]
pub struct Deletion {
    pub password: Option<String>,
    pub token: Option<String>,
    pub fresh_session: bool,
    pub callback: Option<String>,
}

#[derive(Clone)]
pub struct Accounts {
    db: Db,
    credentials: EmailPassword,
    usernames: UsernameRules,
    deletion: DeleteSettings,
}

impl Accounts {
    pub fn new(db: Db, credentials: EmailPassword, usernames: UsernameRules) -> Self {
        Self {
            db,
            credentials,
            usernames,
            deletion: DeleteSettings::default(),
        }
    }

    pub fn with_delete_settings(self, deletion: DeleteSettings) -> Self {
        Self { deletion, ..self }
    }

    /// `POST /delete-user` (§8.16): a given password must be right; a mailed token deletes at
    /// once; with verification by mail a link is mailed (`Ok(false)`); otherwise the password
    /// or a fresh session is enough. `Ok(true)`: deleted.
    pub async fn delete_user(&self, user_id: &str, proof: Deletion) -> Result<bool, IdentityError> {
        if !self.deletion.enabled {
            return Err(base::NOT_FOUND.into());
        }
        let password = proof.password.filter(|p| !p.is_empty());
        if let Some(password) = &password {
            // Refused before any hash runs, as better-auth does.
            if password.chars().count() > self.credentials.max_password() {
                return Err(base::PASSWORD_TOO_LONG.into());
            }
            let credential = credentials::credential_of(&self.db, user_id)
                .await?
                .ok_or(base::USER_NOT_FOUND)?;
            let Some(stored) = credential.password_hash else {
                return Err(base::CREDENTIAL_ACCOUNT_NOT_FOUND.into());
            };
            if !self
                .credentials
                .hasher()
                .verify(password, &stored)
                .await?
                .valid
            {
                return Err(base::INVALID_PASSWORD.into());
            }
        }
        if let Some(token) = proof.token.filter(|t| !t.is_empty()) {
            self.confirm_delete_user(user_id, &token).await?;
            return Ok(true);
        }
        if self.deletion.verify_by_mail {
            let user = crate::user::store::get(&self.db, user_id)
                .await?
                .ok_or(base::USER_NOT_FOUND)?;
            let link = NewLink {
                purpose: Purpose::DeleteAccount,
                user: &user,
                to: &user.email,
                new_email: None,
                lifetime: self.deletion.lifetime,
                path: "/delete-user/callback",
                query: &[("callbackURL", proof.callback.as_deref().unwrap_or("/"))],
            }
            .build();
            let mut tx = self.db.begin().await?;
            link.write(&mut tx).await?;
            tx.commit().await?;
            return Ok(false);
        }
        if password.is_none() && !proof.fresh_session {
            return Err(base::SESSION_EXPIRED.into());
        }
        self.delete(user_id).await?;
        Ok(true)
    }

    /// Deletes the user with one of their unexpired mailed deletion links.
    pub async fn confirm_delete_user(
        &self,
        user_id: &str,
        token: &str,
    ) -> Result<(), IdentityError> {
        if !self.deletion.enabled {
            return Err(base::NOT_FOUND.with_message("Not found").into());
        }
        let invalid = || IdentityError::from(base::INVALID_TOKEN.with_status(404));
        let found = links::find(&self.db, token, &[Purpose::DeleteAccount])
            .await?
            .ok_or_else(invalid)?;
        if found.expired() || found.user_id != user_id {
            return Err(invalid());
        }
        self.delete(user_id).await
    }

    async fn delete(&self, user_id: &str) -> Result<(), IdentityError> {
        if !crate::user::store::delete(&self.db, user_id).await? {
            return Err(base::USER_NOT_FOUND.into());
        }
        tracing::info!(user_id, "user deleted their account");
        Ok(())
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
            language: update.language.map(crate::user::language).transpose()?,
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
                error.answer_or(base::FAILED_TO_UPDATE_USER),
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
        let notice = crate::security_notice::password_changed(&credential.user);
        credentials::change_password_hash(&self.db, user_id, &account_row_id, &hash, &notice)
            .await?;
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
}
