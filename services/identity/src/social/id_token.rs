//! Sign-in and linking with an id token the app got from the provider itself (better-auth's
//! `idToken` body, as Google's and Apple's client libraries hand out): no redirect, no state;
//! the token is verified against the provider's keys (issuer, our client id, expiry, the
//! nonce when the app sent one) and then decides who the user is as a callback would.

use gatehouse_kit::errors::{Failure, admin, base};

use super::provider::{IdTokenError, Profile, Provider, Tokens};
use super::{Finished, Pending, Social, store, tokens};
use crate::error::IdentityError;
use crate::user::User;

/// An id token to sign in or link with.
#[derive(Clone, Debug, Default)]
pub struct IdTokenSignIn {
    pub provider_id: String,
    pub token: String,
    /// The nonce the app put in its request to the provider: the token must carry it.
    pub nonce: Option<String>,
    /// The app's access token, kept with the account (and asked for the user's address when
    /// the id token has none).
    pub access_token: Option<String>,
    pub request_sign_up: bool,
    /// The caller's language (a platform code): a new user's.
    pub language: Option<i32>,
}

impl Social {
    /// The provider and the user its verified id token describes.
    async fn verified(
        &self,
        sign_in: &IdTokenSignIn,
    ) -> Result<(&Provider, Profile), IdentityError> {
        let provider = self
            .providers
            .get(&sign_in.provider_id)
            .ok_or(base::PROVIDER_NOT_FOUND)?;
        let claims = match provider
            .verify_id_token(&sign_in.token, sign_in.nonce.as_deref())
            .await
        {
            Ok(claims) => claims,
            Err(IdTokenError::NotSupported) => return Err(base::ID_TOKEN_NOT_SUPPORTED.into()),
            Err(IdTokenError::Invalid(why)) => {
                tracing::info!(provider = %sign_in.provider_id, %why, "id token refused");
                return Err(base::INVALID_TOKEN.with_status(401).into());
            }
            Err(IdTokenError::Unavailable(why)) => {
                return Err(super::unavailable(&sign_in.provider_id, &why));
            }
        };
        let mut profile = provider
            .profile_from_claims(&claims)
            .ok_or(base::FAILED_TO_GET_USER_INFO)?;
        if profile.email.is_none()
            && let Some(access_token) = &sign_in.access_token
            && let Ok((more, _)) = provider
                .user(
                    &Tokens {
                        access_token: access_token.clone(),
                        ..Default::default()
                    },
                    None,
                )
                .await
            && more.id == profile.id
        {
            profile = more;
        }
        if profile.email.is_none() {
            return Err(base::USER_EMAIL_NOT_FOUND.into());
        }
        Ok((provider, profile))
    }

    fn id_token_tokens(sign_in: &IdTokenSignIn) -> Tokens {
        Tokens {
            access_token: sign_in.access_token.clone().unwrap_or_default(),
            id_token: Some(sign_in.token.clone()),
            ..Default::default()
        }
    }

    /// Signs in (or up) with a verified id token: the user, and whether they are new.
    pub async fn sign_in_with_id_token(
        &self,
        sign_in: IdTokenSignIn,
    ) -> Result<(User, bool), IdentityError> {
        let (provider, profile) = self.verified(&sign_in).await?;
        let pending = Pending {
            request_sign_up: sign_in.request_sign_up,
            language: sign_in.language,
            ..Default::default()
        };
        let tokens = Self::id_token_tokens(&sign_in);
        match self
            .resolve(provider, profile, &tokens, &pending, "")
            .await?
        {
            Finished::SignedIn { user, new_user, .. } => Ok((user, new_user)),
            Finished::Refused { error, .. } if error == "email_not_verified" => {
                Err(base::EMAIL_NOT_VERIFIED.into())
            }
            Finished::Refused {
                error, description, ..
            } if error == "banned" => Err(admin::BANNED_USER.with_message(description).into()),
            // better-auth's message is its redirect error in words ("account not linked").
            Finished::Refused { error, .. } => Err(base::OAUTH_LINK_ERROR
                .with_message(error.replace('_', " "))
                .into()),
            Finished::Linked { .. } => Err(IdentityError::Refused(Failure::message_only(
                500,
                "a sign-in ended as a link",
            ))),
        }
    }

    /// Links the provider's account an id token names to `user`, in better-auth's order of
    /// checks; the account's tokens are updated when it is theirs already.
    pub async fn link_with_id_token(
        &self,
        user: &User,
        sign_in: IdTokenSignIn,
    ) -> Result<(), IdentityError> {
        let (provider, profile) = self.verified(&sign_in).await?;
        let provider_id = provider.config.id.as_str();
        let sealed = tokens::seal(&self.vault, &Self::id_token_tokens(&sign_in));
        match store::owner_of(&self.db, provider_id, &profile.id).await? {
            Some(owner) if owner.id == user.id => {
                store::update_tokens(&self.db, provider_id, &profile.id, &sealed).await?;
                return Ok(());
            }
            Some(_) => return Err(base::SOCIAL_ACCOUNT_ALREADY_LINKED.into()),
            None => {}
        }
        let trusted = self.linking.trusts(provider_id) || profile.email_verified;
        if !trusted || !self.linking.enabled {
            return Err(base::LINKING_NOT_ALLOWED.into());
        }
        let email = profile.email.as_deref().unwrap_or_default();
        if !email.eq_ignore_ascii_case(&user.email) && !self.linking.allow_different_emails {
            return Err(base::LINKING_DIFFERENT_EMAILS_NOT_ALLOWED.into());
        }
        if !store::link(&self.db, &user.id, provider_id, &profile.id, &sealed).await? {
            return Err(base::LINKING_FAILED.into());
        }
        tracing::info!(user_id = %user.id, provider = provider_id, "provider account linked");
        Ok(())
    }
}
