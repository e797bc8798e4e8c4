//! A provider account's tokens after sign-in: kept encrypted (access, refresh AND id token;
//! better-auth leaves them plain by default), answered to their user (`get-access-token`,
//! refreshed when under 5 s from expiry), and refreshed one at a time per account: concurrent
//! callers share one refresh instead of racing with the same refresh token, which a rotating
//! provider honours once and then revokes.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use gatehouse_kit::auth_secret::Vault;
use gatehouse_kit::errors::base;
use gatehouse_kit::ids;

use super::Social;
use super::provider::{Provider, Tokens};
use super::store::{self, TokenRow};
use crate::account::store::StoredTokens;
use crate::error::IdentityError;

/// What the tokens' keys are derived for (see `kit::auth_secret`).
pub const VAULT_PURPOSE: &str = "provider tokens";
/// An access token this close to its expiry is refreshed before it is handed out.
const EXPIRY_MARGIN: TimeDelta = TimeDelta::seconds(5);
/// How long one refresh may hold the account: longer than a provider call may take.
const REFRESH_LEASE: TimeDelta = TimeDelta::seconds(20);
/// How often a caller waiting for another's refresh looks again.
const WAIT_STEP: Duration = Duration::from_millis(50);

/// Which of the user's accounts (better-auth 1.7: the row id; its spec: the provider and,
/// optionally, the provider's id for the user).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccountSelector {
    Row(String),
    Provider {
        provider_id: String,
        account_id: Option<String>,
    },
}

impl AccountSelector {
    /// From the wire's optional `providerId` and `accountId`; `None` names nothing.
    pub fn from_parts(provider_id: Option<String>, account_id: Option<String>) -> Option<Self> {
        match (provider_id, account_id) {
            (Some(provider_id), account_id) => Some(Self::Provider {
                provider_id,
                account_id,
            }),
            (None, Some(id)) => Some(Self::Row(id)),
            (None, None) => None,
        }
    }

    pub fn matches(&self, id: &str, provider_id: &str, account_id: &str) -> bool {
        match self {
            Self::Row(row) => row == id,
            Self::Provider {
                provider_id: wanted,
                account_id: None,
            } => wanted == provider_id,
            Self::Provider {
                provider_id: wanted,
                account_id: Some(wanted_account),
            } => wanted == provider_id && wanted_account == account_id,
        }
    }
}

/// What `get-access-token` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessToken {
    pub access_token: String,
    pub access_token_expires_at: Option<DateTime<Utc>>,
    pub scopes: Vec<String>,
    pub id_token: Option<String>,
}

/// What `account-info` answers.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountInfo {
    pub account: crate::account::store::Account,
    pub profile: super::provider::Profile,
    /// The provider's answer as it came.
    pub data: serde_json::Value,
}

/// What `refresh-token` answers: the new tokens and the account they are for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refreshed {
    pub tokens: Tokens,
    /// As stored (comma-separated): a refresh does not change what was granted.
    pub scope: Option<String>,
    pub provider_id: String,
    /// The account's row id.
    pub account_id: String,
}

fn provider_not_supported(provider_id: &str) -> IdentityError {
    base::PROVIDER_NOT_SUPPORTED
        .with_message(format!("Provider {provider_id} is not supported."))
        .into()
}

/// Columns of the account's token row; values opened through `vault`.
pub fn seal(vault: &Vault, tokens: &Tokens) -> StoredTokens {
    StoredTokens {
        access_token: Some(tokens.access_token.as_str())
            .filter(|t| !t.is_empty())
            .map(|t| vault.encrypt("accounts.access_token", t)),
        refresh_token: tokens
            .refresh_token
            .as_deref()
            .map(|t| vault.encrypt("accounts.refresh_token", t)),
        id_token: tokens
            .id_token
            .as_deref()
            .map(|t| vault.encrypt("accounts.id_token", t)),
        access_token_expires_at: tokens.access_token_expires_at,
        refresh_token_expires_at: tokens.refresh_token_expires_at,
        scope: Some(tokens.scopes.join(",")).filter(|s| !s.is_empty()),
    }
}

fn open(vault: &Vault, row: &TokenRow) -> Result<Tokens, gatehouse_kit::auth_secret::VaultError> {
    let text = |column: &str, value: &Option<String>| {
        value
            .as_deref()
            .map(|v| vault.decrypt(column, v))
            .transpose()
    };
    Ok(Tokens {
        access_token: text("accounts.access_token", &row.access_token)?.unwrap_or_default(),
        refresh_token: text("accounts.refresh_token", &row.refresh_token)?,
        id_token: text("accounts.id_token", &row.id_token)?,
        access_token_expires_at: row.access_token_expires_at,
        refresh_token_expires_at: row.refresh_token_expires_at,
        scopes: row.account().scopes(),
    })
}

impl Social {
    async fn token_row(
        &self,
        user_id: &str,
        selector: &AccountSelector,
    ) -> Result<TokenRow, IdentityError> {
        store::token_rows(&self.db, user_id)
            .await?
            .into_iter()
            .find(|row| selector.matches(&row.id, &row.provider_id, &row.account_id))
            .ok_or_else(|| base::ACCOUNT_NOT_FOUND.into())
    }

    fn provider_of(&self, row: &TokenRow) -> Result<&Provider, IdentityError> {
        self.providers
            .get(&row.provider_id)
            .ok_or_else(|| provider_not_supported(&row.provider_id))
    }

    /// A valid access token for one of the user's provider accounts: refreshed first when it
    /// expires within 5 seconds and a refresh token is at hand.
    pub async fn access_token(
        &self,
        user_id: &str,
        selector: &AccountSelector,
    ) -> Result<AccessToken, IdentityError> {
        let row = self.token_row(user_id, selector).await?;
        let provider = self.provider_of(&row)?;
        let failed = |why: &dyn std::fmt::Display| {
            tracing::info!(provider = %row.provider_id, %why, "no valid access token");
            IdentityError::from(base::FAILED_TO_GET_ACCESS_TOKEN)
        };
        let mut tokens = open(&self.vault, &row).map_err(|e| failed(&e))?;
        let expiring = tokens
            .access_token_expires_at
            .is_some_and(|at| at - ids::now() < EXPIRY_MARGIN);
        if expiring && tokens.refresh_token.is_some() {
            tokens = self
                .refresh_once(provider, &row)
                .await
                .map_err(|e| failed(&e))?;
        }
        Ok(AccessToken {
            access_token: tokens.access_token,
            access_token_expires_at: tokens.access_token_expires_at,
            scopes: row.account().scopes(),
            id_token: tokens.id_token,
        })
    }

    /// What the provider says about the user now, through a valid access token.
    pub async fn account_info(
        &self,
        user_id: &str,
        selector: &AccountSelector,
    ) -> Result<AccountInfo, IdentityError> {
        let row = self.token_row(user_id, selector).await?;
        let provider = self
            .providers
            .get(&row.provider_id)
            .ok_or(base::PROVIDER_NOT_CONFIGURED)?;
        let token = self.access_token(user_id, selector).await?;
        if token.access_token.is_empty() {
            return Err(base::ACCESS_TOKEN_NOT_FOUND.into());
        }
        let (profile, data) = provider
            .user(
                &Tokens {
                    access_token: token.access_token.clone(),
                    id_token: token.id_token.clone(),
                    ..Default::default()
                },
                None,
            )
            .await
            .map_err(|why| {
                tracing::info!(provider = %row.provider_id, %why, "account info failed");
                IdentityError::from(base::FAILED_TO_GET_USER_INFO)
            })?;
        Ok(AccountInfo {
            account: row.account(),
            profile,
            data,
        })
    }

    /// New tokens from the provider for one of the user's accounts, now.
    pub async fn refresh_token(
        &self,
        user_id: &str,
        selector: &AccountSelector,
    ) -> Result<Refreshed, IdentityError> {
        let row = self.token_row(user_id, selector).await?;
        let provider = self.provider_of(&row)?;
        if row.refresh_token.is_none() {
            return Err(base::REFRESH_TOKEN_NOT_FOUND.into());
        }
        let tokens = self.refresh_once(provider, &row).await.map_err(|why| {
            tracing::info!(provider = %row.provider_id, %why, "token refresh failed");
            IdentityError::from(base::FAILED_TO_REFRESH_ACCESS_TOKEN)
        })?;
        Ok(Refreshed {
            tokens,
            scope: row.scope.clone(),
            provider_id: row.provider_id.clone(),
            account_id: row.id.clone(),
        })
    }

    /// Refreshes the account's tokens, or waits for the refresh another caller (on any
    /// replica) has under way and answers its tokens.
    async fn refresh_once(&self, provider: &Provider, seen: &TokenRow) -> Result<Tokens, String> {
        let deadline = ids::now() + REFRESH_LEASE + REFRESH_LEASE;
        loop {
            let now = ids::now();
            if store::take_refresh_lease(&self.db, &seen.id, now, now + REFRESH_LEASE)
                .await
                .map_err(|e| e.to_string())?
            {
                return self.refresh_holding_lease(provider, seen).await;
            }
            // Someone else refreshes: their tokens are ours once they are written.
            tokio::time::sleep(WAIT_STEP).await;
            let row = store::token_row(&self.db, &seen.id)
                .await
                .map_err(|e| e.to_string())?
                .ok_or("the account was removed")?;
            // Their tokens, once written; a lease released without new tokens is a refresh
            // that failed, and ours may not (the loop takes the lease next).
            if row.refreshing_until.is_none() && row.access_token != seen.access_token {
                return open(&self.vault, &row).map_err(|e| e.to_string());
            }
            if ids::now() > deadline {
                return Err("another refresh of this account did not finish".into());
            }
        }
    }

    async fn refresh_holding_lease(
        &self,
        provider: &Provider,
        seen: &TokenRow,
    ) -> Result<Tokens, String> {
        let account_row_id = seen.id.as_str();
        let result = async {
            // Read again under the lease: another caller may have refreshed since `seen` was
            // read (its tokens are the answer, and its refresh token the only valid one).
            let row = store::token_row(&self.db, account_row_id)
                .await
                .map_err(|e| e.to_string())?
                .ok_or("the account was removed")?;
            let current = open(&self.vault, &row).map_err(|e| e.to_string())?;
            if row.access_token != seen.access_token {
                store::release_refresh_lease(&self.db, account_row_id)
                    .await
                    .map_err(|e| e.to_string())?;
                return Ok(current);
            }
            let refresh_token = current.refresh_token.ok_or("no refresh token")?;
            let mut tokens = provider
                .refresh(&refresh_token, &current.scopes)
                .await
                .map_err(|e| e.to_string())?;
            // A refresh says nothing of what was granted: the grant stays as stored.
            tokens.scopes = current.scopes;
            tokens.id_token = tokens.id_token.or(current.id_token);
            tokens.refresh_token_expires_at = tokens
                .refresh_token_expires_at
                .or(current.refresh_token_expires_at);
            store::save_refreshed(&self.db, account_row_id, &seal(&self.vault, &tokens))
                .await
                .map_err(|e| e.to_string())?;
            Ok(tokens)
        }
        .await;
        if result.is_err()
            && let Err(error) = store::release_refresh_lease(&self.db, account_row_id).await
        {
            tracing::warn!(%error, "could not release a refresh lease; it lapses by itself");
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_follow_both_wire_forms() {
        let row = AccountSelector::from_parts(None, Some("row1".into())).unwrap();
        assert!(row.matches("row1", "github", "42"));
        assert!(!row.matches("row2", "github", "row1"));
        let provider = AccountSelector::from_parts(Some("github".into()), None).unwrap();
        assert!(provider.matches("row9", "github", "42"));
        let exact = AccountSelector::from_parts(Some("github".into()), Some("42".into())).unwrap();
        assert!(exact.matches("row9", "github", "42") && !exact.matches("row9", "github", "43"));
        assert_eq!(AccountSelector::from_parts(None, None), None);
    }
}
