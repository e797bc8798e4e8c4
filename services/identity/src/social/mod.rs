//! Sign-in through a social identity provider (better-auth's `/sign-in/social` and
//! `/callback/{id}`, reference `social-sign-in.md`). A sign-in is a pending state (10
//! minutes, single use) made by [`Social::start`] and used up by [`Social::finish`], which
//! exchanges the code, reads the profile and decides who the user is, in better-auth's order.

pub mod builtin;
pub mod config;
pub mod grpc;
pub mod id_token;
pub mod profile;
pub mod provider;
pub mod store;
pub mod tokens;
pub mod user_info;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::TimeDelta;
use gatehouse_kit::auth_secret::Vault;
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::ids;
use serde::{Deserialize, Serialize};

use self::config::{AccountLinking, ProviderConfig};
use self::provider::{Profile, Provider, Tokens};
use self::tokens::AccountSelector;
use crate::account::store::StoredTokens;
use crate::email_password::EmailPassword;
use crate::email_password::store::{CreateError, NewAccount, NewUser, create_user_with_account};
use crate::error::IdentityError;
use crate::user::User;

/// How long a sign-in may stay at the provider.
const STATE_LIFETIME: TimeDelta = TimeDelta::minutes(10);

/// A redirect sign-in to start.
#[derive(Clone, Debug, Default)]
pub struct Start {
    pub provider_id: String,
    pub callback_url: String,
    pub new_user_callback_url: Option<String>,
    pub error_callback_url: Option<String>,
    pub scopes: Vec<String>,
    pub login_hint: Option<String>,
    pub additional_params: Vec<(String, String)>,
    pub request_sign_up: bool,
    pub redirect_uri: String,
    /// Link the provider's account to this user instead of signing in.
    pub link_user_id: Option<String>,
    /// The browser's language (a platform code): a new user's.
    pub language: Option<i32>,
}

/// A link flow's user, as they were when it started.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LinkTarget {
    user_id: String,
    email: String,
}

/// What the pending state remembers (stored as JSON).
#[derive(Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pending {
    callback_url: String,
    new_user_callback_url: Option<String>,
    error_callback_url: Option<String>,
    code_verifier: Option<String>,
    nonce: String,
    request_sign_up: bool,
    #[serde(default)]
    link: Option<LinkTarget>,
    /// What the sign-in asked for: the grant, when the provider does not name it.
    #[serde(default)]
    scopes: Vec<String>,
    /// The browser's language at the start (a platform code): a new user's.
    #[serde(default)]
    language: Option<i32>,
}

/// The provider's callback.
#[derive(Clone, Debug, Default)]
pub struct Callback {
    pub provider_id: String,
    pub state: String,
    pub state_cookie_matches: bool,
    pub code: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
    pub iss: Option<String>,
    pub redirect_uri: String,
    /// VK's device id, sent back with the code.
    pub device_id: Option<String>,
    /// Apple's first-sign-in `user` field (JSON: the name the user gave).
    pub user: Option<String>,
}

/// Where a finished sign-in sends the browser.
#[derive(Clone, Debug, PartialEq)]
pub enum Finished {
    SignedIn {
        user: User,
        new_user: bool,
        redirect_to: String,
    },
    /// A link flow finished: the account is the user's; no session to start.
    Linked { redirect_to: String },
    /// `redirect_to` empty: the error page (the state was not read).
    Refused {
        error: String,
        description: String,
        redirect_to: String,
    },
}

fn refused(error: &str, description: impl Into<String>, redirect_to: &str) -> Finished {
    Finished::Refused {
        error: error.to_string(),
        description: description.into(),
        redirect_to: redirect_to.to_string(),
    }
}

#[derive(Clone)]
pub struct Social {
    db: Db,
    providers: Arc<BTreeMap<String, Provider>>,
    linking: AccountLinking,
    /// For the ban check and its message, as at email sign-in.
    credentials: EmailPassword,
    /// Keeps the providers' tokens encrypted at rest.
    vault: Vault,
}

impl Social {
    pub fn new(
        db: Db,
        providers: Vec<ProviderConfig>,
        linking: AccountLinking,
        credentials: EmailPassword,
        vault: Vault,
    ) -> Result<Self, provider::ProviderError> {
        let providers = providers
            .into_iter()
            .map(|config| Ok((config.id.clone(), Provider::new(config)?)))
            .collect::<Result<_, provider::ProviderError>>()?;
        Ok(Self {
            db,
            providers: Arc::new(providers),
            linking,
            credentials,
            vault,
        })
    }

    /// The configured providers' ids.
    pub fn provider_ids(&self) -> impl Iterator<Item = &str> {
        self.providers.keys().map(String::as_str)
    }

    /// Stores the pending state and answers the provider's authorization URL and the state.
    pub async fn start(&self, start: Start) -> Result<(String, String), IdentityError> {
        let provider = self
            .providers
            .get(&start.provider_id)
            .ok_or(base::PROVIDER_NOT_FOUND)?;
        let state = ids::random_alphanumeric(32);
        let nonce = ids::random_alphanumeric(32);
        let mut scopes = provider.config.scopes.clone();
        for scope in start.scopes {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        let authorization = provider
            .authorize(
                &state,
                &nonce,
                &scopes,
                start.login_hint.as_deref(),
                &start.additional_params,
                &start.redirect_uri,
            )
            .await
            .map_err(|error| unavailable(&start.provider_id, &error))?;
        let link = match start.link_user_id {
            Some(user_id) => {
                let user = crate::user::store::get(&self.db, &user_id)
                    .await?
                    .ok_or(base::USER_NOT_FOUND)?;
                Some(LinkTarget {
                    user_id: user.id,
                    email: user.email,
                })
            }
            None => None,
        };
        let pending = Pending {
            link,
            callback_url: start.callback_url,
            new_user_callback_url: start.new_user_callback_url,
            error_callback_url: start.error_callback_url,
            code_verifier: authorization.code_verifier,
            nonce,
            request_sign_up: start.request_sign_up,
            scopes,
            language: start.language,
        };
        let data = serde_json::to_string(&pending)
            .map_err(|e| IdentityError::internal("social state", base::INTERNAL_SERVER_ERROR, e))?;
        store::insert_state(
            &self.db,
            &state,
            &start.provider_id,
            &data,
            ids::now() + STATE_LIFETIME,
        )
        .await?;
        Ok((authorization.url.to_string(), state))
    }

    /// Uses the pending state up and decides where the browser goes, in better-auth's order
    /// of checks.
    pub async fn finish(&self, callback: Callback) -> Result<Finished, IdentityError> {
        let Some(stored) = store::find_state(&self.db, &callback.state).await? else {
            return Ok(refused(
                "state_mismatch",
                "This sign-in was not started here, or was finished already. Please restart the process.",
                "",
            ));
        };
        let pending: Pending = serde_json::from_str(&stored.data)
            .map_err(|e| IdentityError::internal("social state", base::INTERNAL_SERVER_ERROR, e))?;
        let error_url = pending.error_callback_url.clone().unwrap_or_default();
        if stored.expires_at <= ids::now() {
            store::delete_state(&self.db, &callback.state).await?;
            return Ok(refused(
                "state_mismatch",
                "This sign-in took longer than 10 minutes. Please restart the process.",
                &error_url,
            ));
        }
        if !callback.state_cookie_matches {
            return Ok(refused(
                "state_mismatch",
                "This sign-in was started in another browser, or its cookie expired. Please restart the process.",
                &error_url,
            ));
        }
        if !store::delete_state(&self.db, &callback.state).await? {
            return Ok(refused(
                "state_mismatch",
                "This sign-in was finished already. Please restart the process.",
                &error_url,
            ));
        }
        if let Some(error) = callback.error.filter(|e| !e.is_empty()) {
            let description = callback
                .error_description
                .unwrap_or_else(|| "The provider refused the sign-in.".into());
            return Ok(refused(&error, description, &error_url));
        }
        let Some(code) = callback.code.filter(|c| !c.is_empty()) else {
            return Ok(refused(
                "no_code",
                "The provider sent no authorization code.",
                &error_url,
            ));
        };
        let provider = match self.providers.get(&callback.provider_id) {
            Some(provider) if stored.provider_id == callback.provider_id => provider,
            _ => {
                return Ok(refused(
                    "oauth_provider_not_found",
                    format!("No provider {:?} is configured here.", callback.provider_id),
                    &error_url,
                ));
            }
        };
        match provider.issuer().await {
            Ok(Some(issuer)) if callback.iss.as_deref().is_some_and(|iss| iss != issuer) => {
                return Ok(refused(
                    "issuer_mismatch",
                    "The answer did not come from the provider this sign-in went to.",
                    &error_url,
                ));
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(provider = %provider.config.id, %error, "provider unreachable");
                return Ok(refused(
                    "unable_to_get_user_info",
                    "The provider could not be reached. Please try again later.",
                    &error_url,
                ));
            }
        }
        let tokens = match provider
            .exchange(
                &code,
                pending.code_verifier.as_deref(),
                &callback.redirect_uri,
                &pending.scopes,
                callback.device_id.as_deref(),
            )
            .await
        {
            Ok(token) => token,
            Err(error @ provider::ProviderError::Http(_)) => {
                tracing::warn!(provider = %provider.config.id, %error, "provider unreachable");
                return Ok(refused(
                    "unable_to_get_user_info",
                    "The provider could not be reached. Please try again later.",
                    &error_url,
                ));
            }
            Err(error) => {
                tracing::info!(provider = %provider.config.id, %error, "code exchange failed");
                return Ok(refused(
                    "invalid_code",
                    "The provider did not accept this sign-in's code. Please restart the process.",
                    &error_url,
                ));
            }
        };
        // An OpenID provider's id token is checked before anything is read from the
        // provider: its signature, issuer, audience, and the nonce this sign-in sent.
        if let Some(id_token) = &tokens.id_token
            && provider.is_openid()
            && let Err(error) = provider
                .verify_id_token(id_token, Some(&pending.nonce))
                .await
        {
            tracing::warn!(provider = %provider.config.id, %error, "id token refused");
            return Ok(refused(
                "unable_to_get_user_info",
                "The provider's answer did not prove who you are. Please restart the process.",
                &error_url,
            ));
        }
        let apple_user: Option<serde_json::Value> = callback
            .user
            .as_deref()
            .and_then(|user| serde_json::from_str(user).ok());
        let profile = match provider.user(&tokens, apple_user.as_ref()).await {
            Ok((profile, _)) => profile,
            Err(error) => {
                tracing::warn!(provider = %provider.config.id, %error, "user info failed");
                return Ok(refused(
                    "unable_to_get_user_info",
                    "The provider did not say who you are. Please try again later.",
                    &error_url,
                ));
            }
        };
        self.resolve(provider, profile, &tokens, &pending, &error_url)
            .await
    }

    /// Who the user is: the account's owner, a user with the address (linked when better-auth
    /// would), or a new user.
    async fn resolve(
        &self,
        provider: &Provider,
        profile: Profile,
        tokens: &Tokens,
        pending: &Pending,
        error_url: &str,
    ) -> Result<Finished, IdentityError> {
        let provider_id = provider.config.id.as_str();
        let tokens = tokens::seal(&self.vault, tokens);
        // A link's own checks come first, as better-auth's (an address missing counts as one
        // not verified there).
        if let Some(link) = &pending.link {
            return self
                .link(provider, &profile, &tokens, link, pending, error_url)
                .await;
        }
        let Some(email) = profile.email.clone().filter(|e| !e.is_empty()) else {
            return Ok(refused(
                "email_not_found",
                "The provider did not share your email address, which an account here needs.",
                error_url,
            ));
        };
        let signed_in = |user: User, new_user: bool| {
            let redirect_to = match (&pending.new_user_callback_url, new_user) {
                (Some(url), true) => url.clone(),
                _ => pending.callback_url.clone(),
            };
            Finished::SignedIn {
                user,
                new_user,
                redirect_to,
            }
        };
        if let Some(owner) = store::owner_of(&self.db, provider_id, &profile.id).await? {
            store::update_tokens(&self.db, provider_id, &profile.id, &tokens).await?;
            let owner = if profile.email_verified && !owner.email_verified && owner.email == email {
                crate::user::store::verify_email(&self.db, &owner.id, &email)
                    .await?
                    .unwrap_or(owner)
            } else {
                owner
            };
            return self.admit(owner, false, error_url, signed_in).await;
        }
        // A provider that shares no address gets a placeholder (`<id>@reddit.placeholder.invalid`,
        // as better-auth's): it reaches nobody and is no one else's, so it neither links nor
        // needs verifying.
        let placeholder = builtin::is_placeholder(&email);
        let same_address = if placeholder {
            None
        } else {
            crate::user::store::find_by_email(&self.db, &email).await?
        };
        if let Some(user) = same_address {
            let trusted = self.linking.trusts(provider_id) || profile.email_verified;
            let local_ok = user.email_verified || !self.linking.require_local_email_verified;
            if !(self.linking.enabled && trusted && local_ok) {
                let why = if !self.linking.enabled {
                    "linking accounts is turned off here"
                } else if !trusted {
                    "the provider has not verified this address"
                } else {
                    "the address of the existing account is not verified yet"
                };
                return Ok(refused(
                    "account_not_linked",
                    format!(
                        "An account with this email exists, but {why}. Sign in with that account's \
                         password, then link the provider from your account page."
                    ),
                    error_url,
                ));
            }
            if !store::link(&self.db, &user.id, provider_id, &profile.id, &tokens).await? {
                return Ok(refused(
                    "unable_to_link_account",
                    "This provider account was linked at the same moment. Please sign in again.",
                    error_url,
                ));
            }
            tracing::info!(user_id = %user.id, provider = provider_id, "provider account linked");
            return self.admit(user, false, error_url, signed_in).await;
        }
        // Stricter than better-auth: an account made from an address nobody verified would be
        // the provider account's, and stay so after the address's owner took it over by a
        // password reset (a pre-hijack). Trusted providers vouch for their addresses.
        if !placeholder && !profile.email_verified && !self.linking.trusts(provider_id) {
            return Ok(refused(
                "email_not_verified",
                "The provider has not verified your email address. Verify it there, or sign up \
                 with your email and a password.",
                error_url,
            ));
        }
        let config = &provider.config;
        if config.disable_sign_up || (config.disable_implicit_sign_up && !pending.request_sign_up) {
            return Ok(refused(
                "signup_disabled",
                "New accounts cannot be made through this provider.",
                error_url,
            ));
        }
        let new = NewUser {
            name: profile.name.clone(),
            email,
            image: profile.image.clone(),
            username: None,
            display_username: None,
            // The browser's language when it is one of ours, else the platform's default.
            language: pending
                .language
                .and_then(|code| crate::user::language(code).ok())
                .unwrap_or(gatehouse_kit::language::Language::DEFAULT.code()),
        };
        let extras = crate::email_password::store::Extras {
            email_verified: profile.email_verified,
            ..Default::default()
        };
        let account = NewAccount {
            provider_id,
            account_id: Some(&profile.id),
            password: None,
            tokens: Some(&tokens),
        };
        match create_user_with_account(&self.db, new, Some(account), extras, |_| None).await {
            Ok(user) => Ok(signed_in(user, true)),
            Err(CreateError::Db(error)) => Err(error.into()),
            // Another sign-in with the same provider account made the user a moment ago:
            // theirs now, so this one signs in too.
            Err(CreateError::EmailTaken) => {
                match store::owner_of(&self.db, provider_id, &profile.id).await? {
                    Some(owner) => self.admit(owner, false, error_url, signed_in).await,
                    None => Ok(refused(
                        "unable_to_create_user",
                        "The account could not be created. Please try again.",
                        error_url,
                    )),
                }
            }
            Err(CreateError::UsernameTaken) => Ok(refused(
                "unable_to_create_user",
                "The account could not be created. Please try again.",
                error_url,
            )),
        }
    }

    /// A link flow's end: the provider's account joins the signed-in user's, when better-auth
    /// would let it.
    async fn link(
        &self,
        provider: &Provider,
        profile: &Profile,
        tokens: &StoredTokens,
        link: &LinkTarget,
        pending: &Pending,
        error_url: &str,
    ) -> Result<Finished, IdentityError> {
        let provider_id = provider.config.id.as_str();
        let email = profile.email.as_deref().unwrap_or_default();
        let trusted = self.linking.trusts(provider_id) || profile.email_verified;
        if !self.linking.enabled || !trusted || email.is_empty() {
            return Ok(refused(
                "unable_to_link_account",
                if self.linking.enabled {
                    "The provider has not verified this address, so it cannot be linked."
                } else {
                    "Linking accounts is turned off here."
                },
                error_url,
            ));
        }
        if email != link.email && !self.linking.allow_different_emails {
            return Ok(refused(
                "email_does_not_match",
                "The provider's account has another email address than yours.",
                error_url,
            ));
        }
        match store::owner_of(&self.db, provider_id, &profile.id).await? {
            Some(owner) if owner.id != link.user_id => {
                return Ok(refused(
                    "account_already_linked_to_different_user",
                    "This provider account is linked to another user already.",
                    error_url,
                ));
            }
            Some(_) => store::update_tokens(&self.db, provider_id, &profile.id, tokens).await?,
            None => {
                if !store::link(&self.db, &link.user_id, provider_id, &profile.id, tokens).await? {
                    // Another callback linked it a moment ago: whose is it now?
                    let owner = store::owner_of(&self.db, provider_id, &profile.id).await?;
                    if owner.is_none_or(|owner| owner.id != link.user_id) {
                        return Ok(refused(
                            "account_already_linked_to_different_user",
                            "This provider account is linked to another user already.",
                            error_url,
                        ));
                    }
                }
                tracing::info!(user_id = %link.user_id, provider = provider_id, "provider account linked");
            }
        }
        Ok(Finished::Linked {
            redirect_to: pending.callback_url.clone(),
        })
    }

    /// Removes one of the user's sign-in methods (`provider_id` with the provider's id for
    /// the user, or the account's own id alone), never their last unless allowed.
    pub async fn unlink(
        &self,
        user_id: &str,
        provider_id: Option<&str>,
        account_id: Option<&str>,
    ) -> Result<(), IdentityError> {
        let accounts = crate::account::store::list(&self.db, user_id).await?;
        let selector = AccountSelector::from_parts(
            provider_id.map(String::from),
            account_id.map(String::from),
        );
        let target = selector.and_then(|selector| {
            accounts
                .iter()
                .find(|a| selector.matches(&a.id, &a.provider_id, &a.account_id))
        });
        // better-auth's order: the last account first, then whether it is one.
        if accounts.len() == 1 && !self.linking.allow_unlinking_all {
            return Err(base::FAILED_TO_UNLINK_LAST_ACCOUNT.into());
        }
        let target = target.ok_or(base::ACCOUNT_NOT_FOUND)?;
        let keep_one = !self.linking.allow_unlinking_all;
        if !store::unlink(&self.db, user_id, &target.id, keep_one).await? {
            // Another unlink took the one before last meanwhile.
            return Err(base::FAILED_TO_UNLINK_LAST_ACCOUNT.into());
        }
        Ok(())
    }

    /// A banned user is refused as at email sign-in (an expired ban lifted).
    async fn admit(
        &self,
        user: User,
        new_user: bool,
        error_url: &str,
        signed_in: impl FnOnce(User, bool) -> Finished,
    ) -> Result<Finished, IdentityError> {
        match self.credentials.admit_banned(user).await {
            Ok(user) => Ok(signed_in(user, new_user)),
            Err(IdentityError::Refused(failure)) => {
                Ok(refused("banned", failure.message().to_string(), error_url))
            }
            Err(other) => Err(other),
        }
    }
}

/// A provider that could not be reached while starting: 502-like, with its name.
fn unavailable(provider_id: &str, error: &dyn std::fmt::Display) -> IdentityError {
    tracing::warn!(provider = provider_id, %error, "provider unreachable");
    IdentityError::Refused(Failure::message_only(
        502,
        format!("The provider {provider_id} could not be reached"),
    ))
}
