//! The identity rules: who may sign up, and whether a password proves who someone is.

use gatehouse_kit::ErrorCode;
use gatehouse_kit::validate::{is_valid_email, normalize_email};

use crate::password::{HashError, Hasher};
use crate::store::{IdentityStore, NewUser, StoreError, User};

#[derive(Clone)]
pub struct Identity {
    store: IdentityStore,
    hasher: Hasher,
    min_password: usize,
    max_password: usize,
}

pub struct SignUp {
    pub name: String,
    pub email: String,
    pub password: String,
    pub image: Option<String>,
}

impl Identity {
    pub fn new(
        store: IdentityStore,
        hasher: Hasher,
        min_password: usize,
        max_password: usize,
    ) -> Self {
        Self {
            store,
            hasher,
            min_password,
            max_password,
        }
    }

    pub fn store(&self) -> &IdentityStore {
        &self.store
    }

    pub async fn sign_up_email(&self, request: SignUp) -> Result<User, ErrorCode> {
        let email = normalize_email(&request.email);
        if !is_valid_email(&email) {
            return Err(ErrorCode::InvalidEmail);
        }
        let length = request.password.chars().count();
        if length < self.min_password {
            return Err(ErrorCode::PasswordTooShort);
        }
        if length > self.max_password {
            return Err(ErrorCode::PasswordTooLong);
        }
        let hash = self
            .hasher
            .hash(&request.password)
            .await
            .map_err(|error| match error {
                HashError::Busy => busy(),
                error => {
                    tracing::error!(%error, "password hashing failed");
                    ErrorCode::FailedToCreateUser
                }
            })?;
        let new = NewUser {
            name: request.name,
            email,
            image: request.image,
        };
        match self.store.create_user_with_password(new, hash).await {
            Ok(user) => {
                tracing::info!(user_id = %user.id, "user signed up");
                Ok(user)
            }
            Err(StoreError::EmailTaken) => Err(ErrorCode::UserAlreadyExistsUseAnotherEmail),
            Err(error) => {
                tracing::error!(%error, "creating a user failed");
                Err(ErrorCode::FailedToCreateUser)
            }
        }
    }

    /// Checks email + password. Every failure looks the same from outside, and takes one hash
    /// verification whether or not the account exists.
    pub async fn sign_in_email(&self, email: &str, password: &str) -> Result<User, ErrorCode> {
        let email = normalize_email(email);
        if !is_valid_email(&email) {
            return Err(ErrorCode::InvalidEmail);
        }
        if password.chars().count() > self.max_password {
            return Err(ErrorCode::PasswordTooLong);
        }
        let credential = self.store.find_credential(&email).await.map_err(internal)?;
        let found = credential.and_then(|c| match (c.account_row_id, c.password_hash) {
            (Some(account), Some(hash)) => Some((c.user, account, hash)),
            _ => None,
        });
        let Some((user, account_row_id, stored)) = found else {
            self.hasher.verify_dummy(password).await.map_err(hashing)?;
            return Err(ErrorCode::InvalidEmailOrPassword);
        };
        let verification = self
            .hasher
            .verify(password, &stored)
            .await
            .map_err(hashing)?;
        if !verification.valid {
            return Err(ErrorCode::InvalidEmailOrPassword);
        }
        if verification.needs_rehash {
            self.upgrade_hash(&account_row_id, password).await;
        }
        Ok(user)
    }

    pub async fn get_user(&self, id: &str) -> Result<User, ErrorCode> {
        self.store
            .get_user(id)
            .await
            .map_err(internal)?
            .ok_or(ErrorCode::UserNotFound)
    }

    /// Replaces an imported (scrypt) or outdated hash after a successful sign-in. Best effort:
    /// a failure leaves the old, still valid hash in place.
    async fn upgrade_hash(&self, account_row_id: &str, password: &str) {
        let result = match self.hasher.hash(password).await {
            Ok(hash) => self
                .store
                .set_password_hash(account_row_id, &hash)
                .await
                .map_err(|e| e.to_string()),
            Err(error) => Err(error.to_string()),
        };
        match result {
            Ok(()) => tracing::info!(account = account_row_id, "password re-hashed with argon2id"),
            Err(error) => tracing::warn!(%error, "password re-hash failed; keeping the old hash"),
        }
    }
}

/// The hashing queue is full: answer at once rather than wait past the caller's timeout.
fn busy() -> ErrorCode {
    metrics::counter!("sign_in_shed_total").increment(1);
    ErrorCode::ServiceUnavailable
}

fn hashing(error: HashError) -> ErrorCode {
    match error {
        HashError::Busy => busy(),
        error => internal(error),
    }
}

fn internal(error: impl std::fmt::Display) -> ErrorCode {
    tracing::error!(%error, "identity storage failure");
    ErrorCode::InternalServerError
}
