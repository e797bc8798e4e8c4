//! The `email_verification` capability (`gatehouse.identity.v1.EmailVerificationService`):
//! mailing verification links and using them (protocol §8.19, §8.20), including the links of a
//! change of email.

pub mod grpc;

use std::time::Duration;

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::base;
use gatehouse_kit::validate::normalize_email;

use crate::error::IdentityError;
use crate::user::User;
use crate::verification::new_link::NewLink;
use crate::verification::{Link, Purpose, store as links};

/// better-auth pads a signed-out request to this, so the answer's timing does not tell
/// whether the address is an unverified user's.
const SIGNED_OUT_ANSWER_TIME: Duration = Duration::from_millis(500);

#[derive(Clone, Debug)]
pub struct Settings {
    /// Sign-in refused until the address is verified; sign-up answers without a session.
    pub required: bool,
    /// Sign-up mails a verification link.
    pub on_sign_up: bool,
    /// A link opened in a signed-out browser signs it in.
    pub auto_sign_in: bool,
    /// How long a link works.
    pub lifetime: Duration,
    /// `POST /change-email` is allowed.
    pub change_email: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            required: false,
            on_sign_up: false,
            auto_sign_in: false,
            lifetime: Duration::from_secs(3600),
            change_email: true,
        }
    }
}

/// What using a link did.
pub struct Verified {
    pub user: User,
    /// Start a session for a signed-out caller.
    pub sign_in: bool,
    pub email_changed: bool,
    /// The current address approved a change of email (the new one's link is mailed).
    pub change_confirmed: bool,
}

#[derive(Clone)]
pub struct EmailVerification {
    db: Db,
    settings: Settings,
}

impl EmailVerification {
    pub fn new(db: Db, settings: Settings) -> Self {
        Self { db, settings }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// A link verifying `user`'s current address; it leads to `callback` (default `/`).
    pub fn link(&self, user: &User, callback: Option<&str>) -> Link {
        self.link_to(Purpose::VerifyEmail, user, &user.email, None, callback)
    }

    /// A link of a change of email's: the confirmation sent to the current address, or the
    /// verification sent to the new one.
    pub fn link_to(
        &self,
        purpose: Purpose,
        user: &User,
        to: &str,
        new_email: Option<&str>,
        callback: Option<&str>,
    ) -> Link {
        NewLink {
            purpose,
            user,
            to,
            new_email,
            lifetime: self.settings.lifetime,
            path: "/verify-email",
            query: &[("callbackURL", callback.unwrap_or("/"))],
        }
        .build()
    }

    /// Stores `link` and queues its mail.
    pub async fn send_link(&self, link: &Link) -> Result<(), IdentityError> {
        let mut tx = self.db.begin().await?;
        link.write(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    /// `POST /send-verification-email`.
    pub async fn send(
        &self,
        email: &str,
        caller: Option<&str>,
        callback: Option<&str>,
    ) -> Result<(), IdentityError> {
        let email = normalize_email(email);
        if let Some(caller) = caller {
            let user = crate::user::store::get(&self.db, caller)
                .await?
                .ok_or(base::USER_NOT_FOUND)?;
            if user.email != email {
                return Err(base::EMAIL_MISMATCH.into());
            }
            if user.email_verified {
                return Err(base::EMAIL_ALREADY_VERIFIED.into());
            }
            return self.send_link(&self.link(&user, callback)).await;
        }
        let started = tokio::time::Instant::now();
        let result = async {
            match crate::user::store::find_by_email(&self.db, &email).await? {
                Some(user) if !user.email_verified => {
                    self.send_link(&self.link(&user, callback)).await
                }
                _ => Ok(()),
            }
        }
        .await;
        tokio::time::sleep_until(started + SIGNED_OUT_ANSWER_TIME).await;
        // The answer is the same whatever happened; a failure is only logged.
        if let Err(error) = result {
            tracing::error!(%error, "a verification mail could not be queued");
        }
        Ok(())
    }

    /// `GET /verify-email`: every refusal is a 401, which the gateway turns into a redirect
    /// with `?error=` when there is a callback.
    pub async fn verify(
        &self,
        token: &str,
        caller: Option<&str>,
        callback: Option<&str>,
    ) -> Result<Verified, IdentityError> {
        let purposes = [
            Purpose::VerifyEmail,
            Purpose::ConfirmEmailChange,
            Purpose::VerifyNewEmail,
        ];
        let found = links::find(&self.db, token, &purposes)
            .await?
            .ok_or(base::INVALID_TOKEN.with_status(401))?;
        if found.expired() {
            return Err(base::TOKEN_EXPIRED.into());
        }
        let user = crate::user::store::get(&self.db, &found.user_id)
            .await?
            .filter(|user| user.email == found.email)
            // The address the link was for is no longer the user's.
            .ok_or(base::USER_NOT_FOUND.with_status(401))?;
        // A change of email is the signed-in user's own business; a plain verification only
        // proves the mailbox, whoever's browser opens it.
        let changing = found.purpose != Purpose::VerifyEmail.as_str();
        if changing && caller.is_some_and(|caller| caller != user.id) {
            return Err(base::INVALID_USER.into());
        }
        let signed_out = caller.is_none();
        match found.purpose.as_str() {
            p if p == Purpose::ConfirmEmailChange.as_str() => {
                // The current address approved the change: now prove the new one.
                let new_email = found.new_email.as_deref().unwrap_or_default();
                let link = self.link_to(
                    Purpose::VerifyNewEmail,
                    &user,
                    new_email,
                    Some(new_email),
                    callback,
                );
                self.send_link(&link).await?;
                Ok(Verified {
                    user,
                    sign_in: false,
                    email_changed: false,
                    change_confirmed: true,
                })
            }
            p if p == Purpose::VerifyNewEmail.as_str() => {
                let new_email = found.new_email.clone().unwrap_or_default();
                let user = self.apply_email_change(&user, &new_email).await?;
                Ok(Verified {
                    user,
                    sign_in: false,
                    email_changed: true,
                    change_confirmed: false,
                })
            }
            _ if user.email_verified => Ok(Verified {
                user,
                sign_in: false,
                email_changed: false,
                change_confirmed: false,
            }),
            _ => {
                let user = crate::user::store::update(
                    &self.db,
                    &user.id,
                    vec![("email_verified", true.into())],
                    None,
                )
                .await?
                .ok_or(base::USER_NOT_FOUND.with_status(401))?;
                tracing::info!(user_id = %user.id, "email verified");
                Ok(Verified {
                    user,
                    sign_in: signed_out && self.settings.auto_sign_in,
                    email_changed: false,
                    change_confirmed: false,
                })
            }
        }
    }

    /// `POST /change-email`: an unverified address changes at once (and the new one gets a
    /// verification link); a verified one first approves the change through a link mailed to
    /// it. An address in use by someone else changes nothing and mails nothing, and the answer
    /// does not say so. Returns the user as now, and whether the address changed.
    pub async fn change_email(
        &self,
        user_id: &str,
        new_email: &str,
        callback: Option<&str>,
    ) -> Result<(User, bool), IdentityError> {
        if !self.settings.change_email {
            return Err(base::CHANGE_EMAIL_DISABLED.into());
        }
        let new_email = normalize_email(new_email);
        if !gatehouse_kit::validate::is_valid_email(&new_email) {
            return Err(base::INVALID_EMAIL.into());
        }
        let user = crate::user::store::get(&self.db, user_id)
            .await?
            .ok_or(base::USER_NOT_FOUND)?;
        if user.email == new_email {
            return Err(
                gatehouse_kit::errors::Failure::message_only(400, "Email is the same").into(),
            );
        }
        if crate::user::store::find_by_email(&self.db, &new_email)
            .await?
            .is_some()
        {
            return Ok((user, false));
        }
        if user.email_verified {
            let link = self.link_to(
                Purpose::ConfirmEmailChange,
                &user,
                &user.email,
                Some(&new_email),
                callback,
            );
            self.send_link(&link).await?;
            return Ok((user, false));
        }
        let moved = User {
            email: new_email.clone(),
            ..user.clone()
        };
        let link = self.link(&moved, callback);
        match crate::user::store::change_email(
            &self.db,
            &user.id,
            &user.email,
            &new_email,
            false,
            Some(&link),
            &crate::security_notice::email_changed(&user, &new_email),
        )
        .await
        {
            Ok(Some(changed)) => {
                tracing::info!(user_id = %user.id, "email changed (it was not verified)");
                Ok((changed, true))
            }
            Ok(None) => Err(base::USER_NOT_FOUND.into()),
            // Taken meanwhile: the same silent answer.
            Err(error) if error.is_unique_violation_of("email") => Ok((user, false)),
            Err(error) => Err(error.into()),
        }
    }

    /// Sets the new, now verified, address. The link stays: opened again it names an address
    /// that is no longer the user's (`USER_NOT_FOUND`), as better-auth answers.
    async fn apply_email_change(
        &self,
        user: &User,
        new_email: &str,
    ) -> Result<User, IdentityError> {
        match crate::user::store::change_email(
            &self.db,
            &user.id,
            &user.email,
            new_email,
            true,
            None,
            &crate::security_notice::email_changed(user, new_email),
        )
        .await
        {
            Ok(Some(user)) => {
                tracing::info!(user_id = %user.id, "email changed");
                Ok(user)
            }
            Ok(None) => Err(base::INVALID_TOKEN.with_status(401).into()),
            Err(error) if error.is_unique_violation_of("email") => {
                Err(base::USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL.into())
            }
            Err(error) => Err(error.into()),
        }
    }
}
