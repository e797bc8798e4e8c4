//! Id tokens against the real OpenID provider: sign-in and linking with a token an app got
//! from the provider itself (verified by the provider's keys, issuer, audience, expiry and
//! nonce), the code flow's own id token checked against the sign-in's nonce, and the
//! provider going down mid-sign-in.

use std::collections::HashMap;

use gatehouse_identity::social::id_token::IdTokenSignIn;
use gatehouse_identity::social::{Callback, Finished};
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::base;
use oauth2::PkceCodeChallenge;
use rstest::rstest;

use crate::common::{count, refused, refused_status, setup};
use crate::social::{OidcProvider, at_provider, follow_provider, signed_in, social_for, start};

const APP_REDIRECT: &str = "http://localhost:4100/api/auth/callback/app";

/// What an app's own sign-in at the provider ends with: an id token for `login_hint`,
/// carrying `nonce`, and the access token issued with it.
async fn app_tokens(provider: &OidcProvider, login_hint: &str, nonce: &str) -> (String, String) {
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut url = url::Url::parse(&format!("{}/auth", provider.issuer)).unwrap();
    url.query_pairs_mut()
        .append_pair("client_id", "gatehouse-test")
        .append_pair("response_type", "code")
        .append_pair("scope", "openid email profile")
        .append_pair("redirect_uri", APP_REDIRECT)
        .append_pair("state", "app-state")
        .append_pair("nonce", nonce)
        .append_pair("login_hint", login_hint)
        .append_pair("code_challenge", challenge.as_str())
        .append_pair("code_challenge_method", "S256");
    let back = follow_provider(url.as_str(), APP_REDIRECT).await;
    let query: HashMap<String, String> = back.query_pairs().into_owned().collect();
    let code = query["code"].clone();
    let tokens: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/token", provider.issuer))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs([
                    ("grant_type", "authorization_code"),
                    ("code", code.as_str()),
                    ("redirect_uri", APP_REDIRECT),
                    ("code_verifier", verifier.secret().as_str()),
                    ("client_id", "gatehouse-test"),
                    ("client_secret", "gatehouse-test-secret"),
                ])
                .finish(),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (
        tokens["id_token"].as_str().unwrap().to_string(),
        tokens["access_token"].as_str().unwrap().to_string(),
    )
}

fn with_token(token: &str, nonce: Option<&str>) -> IdTokenSignIn {
    IdTokenSignIn {
        provider_id: "test-oidc".into(),
        token: token.into(),
        nonce: nonce.map(String::from),
        ..Default::default()
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_app_s_id_token_signs_in_once_verified(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);
    let (id_token, access_token) = app_tokens(&provider, "ida@example.com", "n-123").await;

    // A nonce the token does not carry, and a token altered in transit: refused, no user.
    let wrong_nonce = social
        .sign_in_with_id_token(with_token(&id_token, Some("n-999")))
        .await;
    assert_eq!(refused_status(&wrong_nonce), 401, "{backend:?}");
    assert_eq!(refused(wrong_nonce), base::INVALID_TOKEN.code());
    let mut parts: Vec<String> = id_token.split('.').map(String::from).collect();
    parts[1] = parts[1].chars().rev().collect();
    let altered = social
        .sign_in_with_id_token(with_token(&parts.join("."), None))
        .await;
    assert_eq!(refused(altered), base::INVALID_TOKEN.code());
    assert_eq!(count(&t.db, "users").await, 0);

    let (user, new_user) = social
        .sign_in_with_id_token(IdTokenSignIn {
            access_token: Some(access_token),
            ..with_token(&id_token, Some("n-123"))
        })
        .await
        .unwrap();
    assert!(new_user);
    assert_eq!(
        (user.email.as_str(), user.email_verified),
        ("ida@example.com", true)
    );
    let (stored_id_token, stored_access): (String, String) =
        query("SELECT id_token, access_token FROM accounts WHERE user_id = $1")
            .bind(user.id.as_str())
            .fetch_one(&t.db)
            .await
            .unwrap();
    assert!(stored_id_token.starts_with("$gh$") && stored_access.starts_with("$gh$"));

    // The same person again (no nonce: better-auth checks one only when the app sends it).
    let (again, new_user) = social
        .sign_in_with_id_token(with_token(&id_token, None))
        .await
        .unwrap();
    assert_eq!((again.id, new_user), (user.id, false));

    // A plain OAuth 2 provider has no keys to verify with; an unknown one is not found.
    let entry = format!(
        r#"{{"plain":{{"clientId":"gatehouse-test","clientSecret":"s","authorizationUrl":"{0}/auth","tokenUrl":"{0}/token","userInfoUrl":"{0}/me"}}}}"#,
        provider.issuer
    );
    let plain = social_for(&t, &entry);
    for (provider_id, code) in [
        ("plain", base::ID_TOKEN_NOT_SUPPORTED.code()),
        ("nope", base::PROVIDER_NOT_FOUND.code()),
    ] {
        let result = plain
            .sign_in_with_id_token(IdTokenSignIn {
                provider_id: provider_id.into(),
                ..with_token(&id_token, None)
            })
            .await;
        assert_eq!(refused_status(&result), 404);
        assert_eq!(refused(result), code);
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_id_token_links_in_better_auth_s_order(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);
    let sign_up = |email: &str| gatehouse_identity::email_password::SignUp {
        name: "Lin".into(),
        email: email.into(),
        password: "Correct-Horse-9".into(),
        ..Default::default()
    };
    let lin = t
        .rules
        .sign_up(sign_up("lin@example.com"))
        .await
        .unwrap()
        .user;
    let other = t
        .rules
        .sign_up(sign_up("oth@example.com"))
        .await
        .unwrap()
        .user;

    let (someone_else, _) = app_tokens(&provider, "zed@example.com", "n").await;
    let different = social
        .link_with_id_token(&lin, with_token(&someone_else, None))
        .await;
    assert_eq!(refused(different), "LINKING_DIFFERENT_EMAILS_NOT_ALLOWED");

    let (own, _) = app_tokens(&provider, "lin@example.com", "n").await;
    social
        .link_with_id_token(&lin, with_token(&own, None))
        .await
        .unwrap();
    let accounts = t.accounts.list_accounts(&lin.id).await.unwrap();
    assert_eq!(
        accounts
            .iter()
            .map(|a| a.provider_id.as_str())
            .collect::<Vec<_>>(),
        ["credential", "test-oidc"],
        "{backend:?}"
    );
    // Again: theirs already, the tokens updated.
    social
        .link_with_id_token(&lin, with_token(&own, None))
        .await
        .unwrap();
    // Someone else's now.
    let taken = social
        .link_with_id_token(&other, with_token(&own, None))
        .await;
    assert_eq!(refused_status(&taken), 409);
    assert_eq!(refused(taken), base::SOCIAL_ACCOUNT_ALREADY_LINKED.code());

    // An address the provider did not verify links nowhere.
    let (unverified, _) = app_tokens(&provider, "unverified-oth@example.com", "n").await;
    let not_allowed = social
        .link_with_id_token(&other, with_token(&unverified, None))
        .await;
    assert_eq!(refused(not_allowed), "LINKING_NOT_ALLOWED");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_code_flow_s_id_token_must_carry_the_sign_in_s_nonce(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);
    let callback = at_provider(&social, start("nia@example.com")).await;
    // The pending sign-in now expects another nonce than the one the provider put in its
    // token (as when a token of another sign-in is injected).
    let (data,): (String,) = query("SELECT data FROM social_states")
        .fetch_one(&t.db)
        .await
        .unwrap();
    let mut pending: serde_json::Value = serde_json::from_str(&data).unwrap();
    pending["nonce"] = "another-sign-in".into();
    query("UPDATE social_states SET data = $1")
        .bind(pending.to_string())
        .execute(&t.db)
        .await
        .unwrap();
    match social.finish(callback).await.unwrap() {
        Finished::Refused { error, .. } => assert_eq!(error, "unable_to_get_user_info"),
        other => panic!("{backend:?}: {other:?}"),
    }
    assert_eq!(count(&t.db, "users").await, 0);
    // With the nonce it sent, the same provider signs in.
    let callback = at_provider(&social, start("nia@example.com")).await;
    signed_in(social.finish(callback).await.unwrap());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[tokio::test]
async fn a_provider_going_down_mid_sign_in_is_a_clear_refusal(#[case] backend: Backend) {
    let t = setup(backend).await;
    let mut provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);
    let callback: Callback = at_provider(&social, start("dot@example.com")).await;
    let (id_token, _) = app_tokens(&provider, "dot@example.com", "n").await;
    provider.stop().await;

    // The callback cannot reach the provider to exchange its code: said so, on the error
    // callback, nothing made.
    match social.finish(callback).await.unwrap() {
        Finished::Refused {
            error,
            description,
            redirect_to,
        } => {
            assert_eq!(
                (error.as_str(), redirect_to.as_str()),
                ("unable_to_get_user_info", "/sign-in")
            );
            assert!(
                description.contains("could not be reached"),
                "{description}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(count(&t.db, "users").await, 0);
    assert_eq!(count(&t.db, "social_states").await, 0, "used up");

    // An id token whose keys were never fetched cannot be judged: 502, not a refusal of the
    // token (the app may retry).
    let fresh = provider.social(&t, "", &[]);
    let started = std::time::Instant::now();
    let result = fresh
        .sign_in_with_id_token(with_token(&id_token, None))
        .await;
    assert_eq!(refused_status(&result), 502);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(12),
        "bounded by the call timeout"
    );
    assert_eq!(count(&t.db, "users").await, 0);
}
