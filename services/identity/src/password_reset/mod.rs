//! The `password_reset` capability (`gatehouse.identity.v1.PasswordResetService`): forgotten
//! passwords (protocol §8.21–§8.23). A newer request replaces the older link; a link works
//! once.

pub mod grpc;

use std::time::Duration;

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::base;
use gatehouse_kit::validate::normalize_email;

use crate::email_password::{EmailPassword, store as credentials};
use crate::error::IdentityError;
use crate::verification::new_link::NewLink;
use crate::verification::{Purpose, store as links};

#[derive(Clone, Debug)]
pub struct Settings {
    /// How long a link works.
    pub lifetime: Duration,
    /// A reset ends every session of the user.
    pub revoke_sessions: bool,
    /// Where a link leads when the request named no `redirectTo` (the web app's page).
    pub default_page: String,
}

/// A reset that took place.
#[derive(Debug)]
pub struct Reset {
    pub user_id: String,
    pub revoke_sessions: bool,
}

#[derive(Clone)]
pub struct PasswordReset {
    db: Db,
    credentials: EmailPassword,
    settings: Settings,
}

impl PasswordReset {
    pub fn new(db: Db, credentials: EmailPassword, settings: Settings) -> Self {
        Self {
            db,
            credentials,
            settings,
        }
    }

    /// Mails a link to the user with this address, replacing their earlier ones. Unknown
    /// addresses get the same work (a transaction that finds nothing to replace) and no mail.
    pub async fn request(
        &self,
        email: &str,
        redirect_to: Option<&str>,
    ) -> Result<(), IdentityError> {
        let email = normalize_email(email);
        let user = crate::user::store::find_by_email(&self.db, &email).await?;
        let mut tx = self.db.begin().await?;
        match user {
            Some(user) => {
                let page = redirect_to
                    .filter(|r| !r.is_empty())
                    .unwrap_or(&self.settings.default_page);
                let link = NewLink {
                    purpose: Purpose::ResetPassword,
                    user: &user,
                    to: &user.email,
                    new_email: None,
                    lifetime: self.settings.lifetime,
                    path: "/reset-password/{token}",
                    query: &[("callbackURL", page)],
                }
                .build();
                links::delete_for_user(&mut tx, &user.id, Purpose::ResetPassword).await?;
                link.write(&mut tx).await?;
                tracing::info!(user_id = %user.id, "password reset requested");
            }
            None => links::delete_for_user(&mut tx, "", Purpose::ResetPassword).await?,
        }
        tx.commit().await?;
        Ok(())
    }

    /// `INVALID_TOKEN` unless the link still works.
    pub async fn check(&self, token: &str) -> Result<(), IdentityError> {
        match links::find(&self.db, token, &[Purpose::ResetPassword]).await? {
            Some(found) if !found.expired() => Ok(()),
            _ => Err(base::INVALID_TOKEN.into()),
        }
    }

    /// Sets the password the link is for and uses the link up. The length is checked before
    /// the link, so a refused password leaves the link working.
    pub async fn reset(&self, token: &str, new_password: &str) -> Result<Reset, IdentityError> {
        if token.is_empty() {
            return Err(base::INVALID_TOKEN.into());
        }
        self.credentials.check_password_length(new_password, true)?;
        let found = links::find(&self.db, token, &[Purpose::ResetPassword])
            .await?
            .filter(|found| !found.expired())
            .ok_or(base::INVALID_TOKEN)?;
        let hash = self.credentials.hasher().hash(new_password).await?;
        let mut tx = self.db.begin().await?;
        if !links::consume(&mut tx, &found.id).await? {
            // Another request used it first.
            return Err(base::INVALID_TOKEN.into());
        }
        credentials::set_credential(&mut tx, &found.user_id, &hash).await?;
        // The user is told, in the transaction of the change (a link for a user deleted since
        // changes nothing they could read).
        if let Some(user) = crate::user::store::get(&mut tx, &found.user_id).await? {
            tx.enqueue(&crate::security_notice::password_changed(&user))
                .await?;
        }
        tx.commit().await?;
        tracing::info!(user_id = %found.user_id, "password reset");
        Ok(Reset {
            user_id: found.user_id,
            revoke_sessions: self.settings.revoke_sessions,
        })
    }
}
