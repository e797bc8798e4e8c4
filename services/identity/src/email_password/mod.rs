//! The `email_password` capability (`gatehouse.identity.v1.EmailPasswordService`): who may
//! sign up with an email and a password, and whether a password proves who someone is.

pub mod grpc;
pub mod store;
pub mod throttle;

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{base, username as username_codes};
use gatehouse_kit::validate::{is_valid_email, normalize_email};

use std::sync::Arc;

use crate::email_verification::EmailVerification;
use crate::error::IdentityError;
use crate::password::{HashError, Hasher};
use crate::user::User;
use crate::username::rules::UsernameRules;
use throttle::SignInThrottle;

#[derive(Clone)]
pub struct EmailPassword {
    db: Db,
    hasher: Hasher,
    min_password: usize,
    max_password: usize,
    throttle: Option<SignInThrottle>,
    /// Sign-ins are refused (429) while this many hashes are queued, so they never fill the
    /// queue that sign-ups and password changes also need.
    sign_in_budget: usize,
    usernames: UsernameRules,
    /// What a banned user is told (`ADMIN_BANNED_USER_MESSAGE`).
    banned_message: Arc<str>,
    /// Whether sign-up mails a verification link and sign-in waits for one to be used.
    verification: EmailVerification,
}

/// better-auth's `bannedUserMessage` default.
pub const BANNED_MESSAGE: &str = "You have been banned from this application. Please contact support if you believe this is an error.";

#[derive(Default)]
pub struct SignUp {
    pub name: String,
    pub email: String,
    pub password: String,
    pub image: Option<String>,
    pub username: Option<String>,
    pub display_username: Option<String>,
    /// A platform language code; `None`: English.
    pub language: Option<i32>,
    /// Where the verification mail's link leads.
    pub callback_url: Option<String>,
}

/// A sign-up's outcome.
pub struct SignedUp {
    pub user: User,
    /// False while the address must be verified first: no session.
    pub sign_in: bool,
    /// Sign-up mails a verification link (`EMAIL_VERIFICATION_ON_SIGN_UP`); said the same
    /// when the address was taken, so the answer tells nothing about who has an account.
    pub verification_mail_sent: bool,
}

impl EmailPassword {
    pub fn new(db: Db, hasher: Hasher, min_password: usize, max_password: usize) -> Self {
        Self {
            db: db.clone(),
            hasher,
            min_password,
            max_password,
            throttle: None,
            sign_in_budget: usize::MAX,
            usernames: UsernameRules::default(),
            banned_message: BANNED_MESSAGE.into(),
            verification: EmailVerification::new(db, Default::default()),
        }
    }

    /// Sign-up's verification mail and sign-in's wait for it (`REQUIRE_EMAIL_VERIFICATION`).
    pub fn with_email_verification(self, verification: EmailVerification) -> Self {
        Self {
            verification,
            ..self
        }
    }

    /// What a banned user is told when refused.
    pub fn with_banned_message(self, message: &str) -> Self {
        Self {
            banned_message: message.into(),
            ..self
        }
    }

    /// A user about to get a session (admin plugin §10.4): a ban whose time is up is lifted
    /// (publishing user.updated); a standing ban refuses with `BANNED_USER` (403).
    pub async fn admit_banned(&self, user: User) -> Result<User, IdentityError> {
        if !user.banned {
            return Ok(user);
        }
        if user
            .ban_expires
            .is_some_and(|expires| expires <= gatehouse_kit::ids::now())
        {
            let lifted = crate::user::store::update(
                &self.db,
                &user.id,
                crate::user::store::unbanned(),
                None,
            )
            .await?;
            tracing::info!(user_id = %user.id, "expired ban lifted");
            return Ok(lifted.unwrap_or(user));
        }
        Err(IdentityError::Refused(
            gatehouse_kit::errors::admin::BANNED_USER.with_message(self.banned_message.to_string()),
        ))
    }

    /// What sign-up accepts as a username (the username plugin's settings).
    pub fn with_username_rules(self, usernames: UsernameRules) -> Self {
        Self { usernames, ..self }
    }

    /// Slows repeated failures per account (see [`throttle`]).
    pub fn with_throttle(self, throttle: SignInThrottle) -> Self {
        Self {
            throttle: Some(throttle),
            ..self
        }
    }

    pub fn with_sign_in_budget(self, queued_hashes: usize) -> Self {
        Self {
            sign_in_budget: queued_hashes.max(1),
            ..self
        }
    }

    /// Refuses before any hash is queued while the account waits out its delay.
    async fn admit(&self, email: &str) -> Result<Option<throttle::Attempt>, IdentityError> {
        let Some(throttle) = &self.throttle else {
            return Ok(None);
        };
        match throttle.admit(email).await {
            Ok(attempt) => Ok(Some(attempt)),
            Err(left) => {
                metrics::counter!("sign_in_refused_total", "why" => "account").increment(1);
                Err(IdentityError::Refused(
                    base::TOO_MANY_REQUESTS.with_retry_after(left.as_secs_f64().ceil() as u64),
                ))
            }
        }
    }

    async fn record(&self, email: &str, attempt: Option<throttle::Attempt>, succeeded: bool) {
        if let (Some(throttle), Some(attempt)) = (&self.throttle, attempt) {
            if succeeded {
                throttle.succeeded(email).await;
            } else {
                throttle.failed(email, attempt).await;
            }
        }
    }

    pub async fn sign_up(&self, request: SignUp) -> Result<SignedUp, IdentityError> {
        // The username plugin's checks come first, as its before-hook does (§9.3).
        let (username, display_username) = self
            .usernames
            .for_sign_up(request.username, request.display_username)
            .map_err(IdentityError::Refused)?;
        if let Some(username) = &username
            && crate::user::store::find_by_username(&self.db, username)
                .await?
                .is_some()
        {
            return Err(username_codes::USERNAME_IS_ALREADY_TAKEN.into());
        }
        let email = normalize_email(&request.email);
        if !is_valid_email(&email) {
            return Err(base::INVALID_EMAIL.into());
        }
        self.check_password_length(&request.password, true)?;
        let language = match request.language {
            Some(code) => crate::user::language(code)?,
            None => gatehouse_kit::language::Language::DEFAULT.code(),
        };
        let hash = self
            .hasher
            .hash(&request.password)
            .await
            .map_err(|error| match error {
                HashError::Busy => IdentityError::Busy,
                error => IdentityError::internal("hashing", base::FAILED_TO_CREATE_USER, error),
            })?;
        let new = store::NewUser {
            name: request.name,
            email,
            image: request.image,
            username,
            display_username,
            language,
        };
        let settings = self.verification.settings();
        let sign_in = !settings.required;
        let mail = |user: &User| {
            settings.on_sign_up.then(|| {
                self.verification
                    .link(user, request.callback_url.as_deref())
            })
        };
        let synthetic = (!sign_in).then(|| {
            User::new(
                new.name.clone(),
                new.email.clone(),
                new.image.clone(),
                gatehouse_kit::ids::now(),
            )
        });
        let created =
            store::create_user_with(&self.db, new, Some(&hash), Default::default(), mail).await;
        match created {
            Ok(user) => {
                tracing::info!(user_id = %user.id, "user signed up");
                Ok(SignedUp {
                    user,
                    sign_in,
                    verification_mail_sent: settings.on_sign_up,
                })
            }
            // With verification required the answer never says the address is taken
            // (better-auth §7.6): a user that does not exist, and no session.
            Err(store::CreateError::EmailTaken) => match synthetic {
                Some(user) => Ok(SignedUp {
                    user,
                    sign_in,
                    verification_mail_sent: settings.on_sign_up,
                }),
                None => Err(base::USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL.into()),
            },
            Err(store::CreateError::UsernameTaken) => {
                Err(username_codes::USERNAME_IS_ALREADY_TAKEN.into())
            }
            Err(store::CreateError::Db(error)) => Err(IdentityError::internal(
                "creating a user",
                error.answer_or(base::FAILED_TO_CREATE_USER),
                error,
            )),
        }
    }

    /// Checks email + password. Every failure looks the same from outside, and takes one hash
    /// verification whether or not the account exists.
    pub async fn sign_in(&self, email: &str, password: &str) -> Result<User, IdentityError> {
        let email = normalize_email(email);
        if !is_valid_email(&email) {
            return Err(base::INVALID_EMAIL.into());
        }
        if password.chars().count() > self.max_password {
            return Err(base::PASSWORD_TOO_LONG.into());
        }
        let attempt = self.admit(&email).await?;
        let found = store::find_credential(&self.db, store::By::Email(&email)).await?;
        self.prove(&email, attempt, found, password).await
    }

    /// Checks `password` against `found` (the account a sign-in named, if any), counted in the
    /// per-account throttle under `throttle_key` (the account's email whenever it is known, so
    /// every way of naming one account shares its allowance). Refuses with
    /// `INVALID_EMAIL_OR_PASSWORD` whatever went wrong, after one hash verification either way.
    pub(crate) async fn prove(
        &self,
        throttle_key: &str,
        attempt: Option<throttle::Attempt>,
        found: Option<store::Credential>,
        password: &str,
    ) -> Result<User, IdentityError> {
        let found = found.and_then(|c| match (c.account_row_id, c.password_hash) {
            (Some(account), Some(hash)) => Some((c.user, account, hash)),
            _ => None,
        });
        let Some((user, account_row_id, stored)) = found else {
            self.hasher
                .verify_dummy_within(password, self.sign_in_budget)
                .await?;
            self.record(throttle_key, attempt, false).await;
            return Err(base::INVALID_EMAIL_OR_PASSWORD.into());
        };
        let verification = self
            .hasher
            .verify_within(password, &stored, self.sign_in_budget)
            .await?;
        self.record(throttle_key, attempt, verification.valid).await;
        if !verification.valid {
            return Err(base::INVALID_EMAIL_OR_PASSWORD.into());
        }
        if verification.needs_rehash {
            self.upgrade_hash(&account_row_id, password).await;
        }
        if self.verification.settings().required && !user.email_verified {
            // A fresh link with the refusal, so the user has one that works.
            let link = self.verification.link(&user, None);
            if let Err(error) = self.verification.send_link(&link).await {
                tracing::error!(%error, "a verification mail could not be queued");
            }
            return Err(base::EMAIL_NOT_VERIFIED.into());
        }
        // Only a caller who proved the password learns of a ban.
        self.admit_banned(user).await
    }

    /// Proves `password` is the user's own, where a route asks for it again (the two-factor
    /// routes): `INVALID_PASSWORD` when it is not or the user has none, after one hash
    /// verification either way.
    /// Counted in the per-account throttle like a sign-in, and hashed within the sign-in
    /// budget: a stolen session must not become a way to guess the password.
    pub async fn check_password(&self, user_id: &str, password: &str) -> Result<(), IdentityError> {
        if password.chars().count() > self.max_password {
            return Err(base::PASSWORD_TOO_LONG.into());
        }
        let Some(credential) = store::credential_of(&self.db, user_id).await? else {
            return Err(base::USER_NOT_FOUND.into());
        };
        let email = credential.user.email;
        let attempt = self.admit(&email).await?;
        let Some(stored) = credential.password_hash else {
            self.hasher
                .verify_dummy_within(password, self.sign_in_budget)
                .await?;
            self.record(&email, attempt, false).await;
            return Err(base::INVALID_PASSWORD.into());
        };
        let valid = self
            .hasher
            .verify_within(password, &stored, self.sign_in_budget)
            .await?
            .valid;
        self.record(&email, attempt, valid).await;
        if !valid {
            return Err(base::INVALID_PASSWORD.into());
        }
        Ok(())
    }

    /// The per-account throttle's verdict for `throttle_key`, before any hash is queued.
    pub(crate) async fn admit_attempt(
        &self,
        throttle_key: &str,
    ) -> Result<Option<throttle::Attempt>, IdentityError> {
        self.admit(throttle_key).await
    }

    /// `PASSWORD_TOO_SHORT` (when `require_minimum`) or `PASSWORD_TOO_LONG`, by the configured
    /// lengths: the one length rule of sign-up, change, set and an admin's create and set.
    pub fn check_password_length(
        &self,
        password: &str,
        require_minimum: bool,
    ) -> Result<(), IdentityError> {
        let length = password.chars().count();
        if require_minimum && length < self.min_password {
            return Err(base::PASSWORD_TOO_SHORT.into());
        }
        if length > self.max_password {
            return Err(base::PASSWORD_TOO_LONG.into());
        }
        Ok(())
    }

    pub fn max_password(&self) -> usize {
        self.max_password
    }

    pub fn min_password(&self) -> usize {
        self.min_password
    }

    pub fn hasher(&self) -> &Hasher {
        &self.hasher
    }

    /// Replaces an imported (scrypt) or outdated hash after a successful sign-in. Best effort:
    /// a failure leaves the old, still valid hash in place.
    async fn upgrade_hash(&self, account_row_id: &str, password: &str) {
        let result = match self.hasher.hash(password).await {
            Ok(hash) => store::set_password_hash(&self.db, account_row_id, &hash)
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
