//! A provider account's tokens after a social sign-in, against the real OpenID provider
//! (`tests/oidc-provider`, which rotates refresh tokens and revokes the grant when one is used
//! twice): kept encrypted, answered valid, refreshed at its real token endpoint once for many
//! concurrent callers, and still readable after the auth secret is rotated.

use gatehouse_identity::social::Social;
use gatehouse_identity::social::config::{AccountLinking, providers};
use gatehouse_identity::social::tokens::{AccountSelector, VAULT_PURPOSE};
use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::base;
use rstest::rstest;

use crate::common::{Setup, refused, setup};
use crate::social::{AUTH_SECRET, OidcProvider, at_provider, signed_in, start};

fn by_provider() -> AccountSelector {
    AccountSelector::Provider {
        provider_id: "test-oidc".into(),
        account_id: None,
    }
}

/// What the provider's user-info endpoint says to `access_token` (its status and `sub`).
async fn at_user_info(provider: &OidcProvider, access_token: &str) -> (u16, Option<String>) {
    let response = reqwest::Client::new()
        .get(format!("{}/me", provider.issuer))
        .bearer_auth(access_token)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    (status, body["sub"].as_str().map(String::from))
}

/// `provider`'s `Social` reading tokens with `secrets` (`AUTH_SECRETS`' form).
fn with_secrets(provider: &OidcProvider, t: &Setup, secrets: &str) -> Social {
    let entry = format!(
        r#"{{"test-oidc":{{"clientId":"gatehouse-test","clientSecret":"gatehouse-test-secret","discoveryUrl":"{}"}}}}"#,
        provider.discovery
    );
    let configured = providers(&Env::from_pairs([("SOCIAL_PROVIDERS", entry)])).unwrap();
    let vault = AuthSecrets::from_env(&Env::from_pairs([("AUTH_SECRETS", secrets)]))
        .unwrap()
        .unwrap()
        .vault(VAULT_PURPOSE);
    let linking = AccountLinking::from_env(&Env::from_pairs([("X", "y")])).unwrap();
    Social::new(t.db.clone(), configured, linking, t.rules.clone(), vault).unwrap()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn tokens_are_kept_encrypted_and_answered_valid(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);
    let callback = at_provider(&social, start("ann@example.com")).await;
    let (user, ..) = signed_in(social.finish(callback).await.unwrap());

    let (id, account_id, access, refresh, id_token, scope): (
        String,
        String,
        String,
        String,
        String,
        String,
    ) = query(
        "SELECT id, account_id, access_token, refresh_token, id_token, scope FROM accounts \
         WHERE user_id = $1",
    )
    .bind(user.id.as_str())
    .fetch_one(&t.db)
    .await
    .unwrap();
    for stored in [&access, &refresh, &id_token] {
        assert!(
            stored.starts_with("$gh$1$"),
            "{backend:?}: encrypted: {stored}"
        );
    }
    assert_eq!(scope, "openid,email,profile", "{backend:?}");

    let token = social.access_token(&user.id, &by_provider()).await.unwrap();
    assert_eq!(
        at_user_info(&provider, &token.access_token).await,
        (200, Some(account_id.clone())),
        "{backend:?}: the answered token works at the provider"
    );
    assert_eq!(token.scopes, ["openid", "email", "profile"]);
    assert_eq!(token.id_token.unwrap().split('.').count(), 3, "a JWT");
    assert!(token.access_token_expires_at.unwrap() > gatehouse_kit::ids::now());
    let listed = t.accounts.list_accounts(&user.id).await.unwrap();
    assert_eq!(listed[0].scopes(), ["openid", "email", "profile"]);

    // The row id (better-auth 1.7's form) and the provider's id for the user (the spec's).
    let by_row = AccountSelector::Row(id.clone());
    let exact = AccountSelector::Provider {
        provider_id: "test-oidc".into(),
        account_id: Some(account_id.clone()),
    };
    for selector in [&by_row, &exact] {
        assert_eq!(
            social
                .access_token(&user.id, selector)
                .await
                .unwrap()
                .access_token,
            token.access_token
        );
    }
    // Another user's account is none of theirs.
    let other = social.access_token("someone-else", &by_row).await;
    assert_eq!(refused(other), base::ACCOUNT_NOT_FOUND.code());

    // What the provider says now, through the token.
    let info = social.account_info(&user.id, &by_row).await.unwrap();
    assert_eq!(info.profile.email.as_deref(), Some("ann@example.com"));
    assert_eq!(info.data["sub"], account_id.as_str());
    assert_eq!(info.account.id, id);

    // A rotated secret still reads them; a dropped one is a clear refusal, not a crash.
    let rotated = with_secrets(
        &provider,
        &t,
        &format!("2:new-secret-new-secret-new-secret-2222,1:{AUTH_SECRET}"),
    );
    let read = rotated.access_token(&user.id, &by_row).await.unwrap();
    assert_eq!(read.access_token, token.access_token);
    let dropped = with_secrets(&provider, &t, "2:new-secret-new-secret-new-secret-2222");
    let result = dropped.access_token(&user.id, &by_row).await;
    assert_eq!(refused(result), "FAILED_TO_GET_ACCESS_TOKEN");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn concurrent_callers_share_one_refresh(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);
    let callback = at_provider(&social, start("bo@example.com")).await;
    let (user, ..) = signed_in(social.finish(callback).await.unwrap());
    // Within 5 s of its expiry: the next get refreshes it (and the new one lives an hour).
    query("UPDATE accounts SET access_token_expires_at = $1")
        .bind(gatehouse_kit::ids::now() + chrono::TimeDelta::seconds(3))
        .execute(&t.db)
        .await
        .unwrap();
    let (stored,): (String,) = query("SELECT access_token FROM accounts WHERE user_id = $1")
        .bind(user.id.as_str())
        .fetch_one(&t.db)
        .await
        .unwrap();
    let vault = AuthSecrets::single(AUTH_SECRET.to_string().into())
        .unwrap()
        .vault(VAULT_PURPOSE);
    let signed_in_token = vault.decrypt("accounts.access_token", &stored).unwrap();

    // Eight at once: with a refresh each, the provider would see its rotated refresh token
    // used twice and revoke the grant.
    let calls = (0..8).map(|_| {
        let social = social.clone();
        let user_id = user.id.clone();
        async move { social.access_token(&user_id, &by_provider()).await }
    });
    let answers = futures_util::future::join_all(calls).await;
    let tokens: Vec<String> = answers
        .into_iter()
        .map(|answer| answer.unwrap().access_token)
        .collect();
    assert!(
        tokens.iter().all(|t| t == &tokens[0]),
        "{backend:?}: one refresh, shared"
    );
    assert_ne!(tokens[0], signed_in_token, "refreshed");
    let (status, _) = at_user_info(&provider, &tokens[0]).await;
    assert_eq!(status, 200, "{backend:?}: the grant was not revoked");

    // An explicit refresh: new tokens, the rotated refresh token kept, the grant alive.
    let refreshed = social
        .refresh_token(&user.id, &by_provider())
        .await
        .unwrap();
    assert_ne!(refreshed.tokens.access_token, tokens[0]);
    assert_eq!(refreshed.scope.as_deref(), Some("openid,email,profile"));
    assert_eq!(
        at_user_info(&provider, &refreshed.tokens.access_token)
            .await
            .0,
        200
    );
    let again = social
        .refresh_token(&user.id, &by_provider())
        .await
        .unwrap();
    assert_eq!(
        at_user_info(&provider, &again.tokens.access_token).await.0,
        200,
        "{backend:?}: the rotated refresh token was stored"
    );
    let (lease,): (Option<String>,) =
        query("SELECT CAST(refreshing_until AS TEXT) FROM accounts WHERE user_id = $1")
            .bind(user.id.as_str())
            .fetch_one(&t.db)
            .await
            .unwrap();
    assert_eq!(lease, None, "the lease is released");

    // No refresh token: named, and nothing changes.
    query("UPDATE accounts SET refresh_token = NULL")
        .execute(&t.db)
        .await
        .unwrap();
    let result = social.refresh_token(&user.id, &by_provider()).await;
    assert_eq!(refused(result), "REFRESH_TOKEN_NOT_FOUND");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn accounts_of_no_configured_provider_are_named(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);
    let signed_up = t
        .rules
        .sign_up(gatehouse_identity::email_password::SignUp {
            name: "Cy".into(),
            email: "cy@example.com".into(),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let credential = t.accounts.list_accounts(&signed_up.user.id).await.unwrap();
    let row = AccountSelector::Row(credential[0].id.clone());
    let info = social.account_info(&signed_up.user.id, &row).await;
    assert_eq!(
        refused(info),
        base::PROVIDER_NOT_CONFIGURED.code(),
        "{backend:?}"
    );
    let token = social.access_token(&signed_up.user.id, &row).await;
    assert_eq!(refused(token), "PROVIDER_NOT_SUPPORTED");
    let elsewhere = social
        .account_info(&signed_up.user.id, &AccountSelector::Row("nope".into()))
        .await;
    assert_eq!(refused(elsewhere), base::ACCOUNT_NOT_FOUND.code());
}
