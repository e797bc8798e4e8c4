//! Social sign-in on each backend, against a real OpenID provider process
//! (`tests/oidc-provider`, which picks its user by `login_hint`): who the user is, the pending
//! state's single use and lifetime, the linking and sign-up rules, and a provider that is down.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use gatehouse_identity::social::config::{AccountLinking, providers};
use gatehouse_identity::social::tokens::VAULT_PURPOSE;
use gatehouse_identity::social::{Callback, Finished, Social, Start};
use gatehouse_kit::auth_secret::AuthSecrets;
use gatehouse_kit::config::Env;
use gatehouse_kit::db::{Backend, query};
use rstest::rstest;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::{Setup, count, setup};

const REDIRECT_URI: &str = "http://localhost:4000/api/auth/callback/test-oidc";

/// The provider, on a free port, for as long as it is held.
pub struct OidcProvider {
    child: tokio::process::Child,
    pub discovery: String,
    pub issuer: String,
}

/// The auth secret the tests' providers' tokens are encrypted with.
pub const AUTH_SECRET: &str = "identity-test-auth-secret-0123456789abcdef";

impl OidcProvider {
    pub async fn start() -> Self {
        Self::start_with(&[]).await
    }

    /// With more of its settings (`OIDC_ACCESS_TOKEN_TTL`, …).
    pub async fn start_with(settings: &[(&str, &str)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/oidc-provider/server.mjs"
        );
        let mut child = tokio::process::Command::new("node")
            .arg(script)
            .env("OIDC_PORT", port.to_string())
            .envs(settings.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the OpenID provider (node {script}): {e}"));
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = tokio::time::timeout(Duration::from_secs(20), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.starts_with("oidc-provider listening") {
                    return true;
                }
            }
            false
        })
        .await;
        assert!(
            matches!(ready, Ok(true)),
            "the OpenID provider did not start (run `npm ci --prefix tests/oidc-provider`)"
        );
        // Keep reading what it prints: a closed pipe would kill it at its next line.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self {
            child,
            discovery: format!("http://127.0.0.1:{port}/.well-known/openid-configuration"),
            issuer: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Stops the provider (an outage).
    pub async fn stop(&mut self) {
        self.child.kill().await.unwrap();
    }

    /// `Social` with this provider as `test-oidc`, its entry extended by `extra` (JSON fields).
    pub fn social(&self, t: &Setup, extra: &str, linking: &[(&str, &str)]) -> Social {
        let entry = format!(
            r#"{{"test-oidc":{{"clientId":"gatehouse-test","clientSecret":"gatehouse-test-secret","discoveryUrl":"{}"{extra}}}}}"#,
            self.discovery
        );
        let configured = providers(&Env::from_pairs([("SOCIAL_PROVIDERS", entry)])).unwrap();
        let linking = AccountLinking::from_env(&Env::from_pairs(linking.iter().copied())).unwrap();
        let vault = AuthSecrets::single(AUTH_SECRET.to_string().into())
            .unwrap()
            .vault(VAULT_PURPOSE);
        Social::new(t.db.clone(), configured, linking, t.rules.clone(), vault).unwrap()
    }
}

/// `Social` with the providers `entries` configures (`SOCIAL_PROVIDERS`' JSON), the default
/// linking rules and the tests' auth secret.
pub fn social_for(t: &Setup, entries: &str) -> Social {
    let configured = providers(&Env::from_pairs([("SOCIAL_PROVIDERS", entries)])).unwrap();
    let vault = AuthSecrets::single(AUTH_SECRET.to_string().into())
        .unwrap()
        .vault(VAULT_PURPOSE);
    Social::new(
        t.db.clone(),
        configured,
        AccountLinking::default(),
        t.rules.clone(),
        vault,
    )
    .unwrap()
}

pub fn start(login_hint: &str) -> Start {
    Start {
        provider_id: "test-oidc".into(),
        callback_url: "/dashboard".into(),
        new_user_callback_url: Some("/welcome".into()),
        error_callback_url: Some("/sign-in".into()),
        login_hint: Some(login_hint.into()),
        redirect_uri: REDIRECT_URI.into(),
        ..Default::default()
    }
}

/// Follows the provider's redirects (keeping its cookies) until one goes to `until`: that URL.
pub async fn follow_provider(url: &str, until: &str) -> url::Url {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut cookies: HashMap<String, String> = HashMap::new();
    let mut url = url::Url::parse(url).unwrap();
    for _ in 0..20 {
        if url.as_str().starts_with(until) {
            return url;
        }
        let header: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let response = client
            .get(url.clone())
            .header("cookie", header.join("; "))
            .send()
            .await
            .unwrap();
        for value in response.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                cookies.insert(name.into(), value.into());
            }
        }
        let location = response.headers()["location"].to_str().unwrap().to_string();
        url = url.join(&location).unwrap();
    }
    panic!("the provider redirected too many times");
}

/// Starts a sign-in and follows the provider's redirects back: the callback it makes.
pub async fn at_provider(social: &Social, start: Start) -> Callback {
    let (url, state) = social.start(start).await.unwrap();
    let url = follow_provider(&url, REDIRECT_URI).await;
    let query: HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert_eq!(query.get("state"), Some(&state));
    Callback {
        provider_id: "test-oidc".into(),
        state,
        state_cookie_matches: true,
        code: query.get("code").cloned(),
        error: query.get("error").cloned(),
        error_description: query.get("error_description").cloned(),
        iss: query.get("iss").cloned(),
        redirect_uri: REDIRECT_URI.into(),
        ..Default::default()
    }
}

pub fn signed_in(finished: Finished) -> (gatehouse_identity::user::User, bool, String) {
    match finished {
        Finished::SignedIn {
            user,
            new_user,
            redirect_to,
        } => (user, new_user, redirect_to),
        other => panic!("expected a sign-in, got {other:?}"),
    }
}

fn refusal(finished: Finished) -> (String, String, String) {
    match finished {
        Finished::Refused {
            error,
            description,
            redirect_to,
        } => (error, description, redirect_to),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_new_user_is_created_once_and_signed_in_again_later(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);

    // Started from a German browser: the new user's mails (and the app) speak German.
    let german = Start {
        language: Some(6),
        ..start("ann@example.com")
    };
    let callback = at_provider(&social, german).await;
    let (user, new_user, redirect_to) = signed_in(social.finish(callback).await.unwrap());
    assert!(new_user);
    assert_eq!(redirect_to, "/welcome");
    assert_eq!(user.email, "ann@example.com");
    assert_eq!(user.language, 6);
    assert!(user.email_verified, "the provider verified the address");
    assert_eq!(user.name, "Ann");
    let (provider_id, account_id): (String, String) =
        query("SELECT provider_id, account_id FROM accounts WHERE user_id = $1")
            .bind(user.id.as_str())
            .fetch_one(&t.db)
            .await
            .unwrap();
    assert_eq!(provider_id, "test-oidc");
    assert!(
        account_id.starts_with("sub-"),
        "the provider's subject: {account_id}"
    );
    let (created,): (i64,) = query("SELECT COUNT(*) FROM outbox WHERE topic = 'user.created'")
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert_eq!(created, 1);

    let again = at_provider(&social, start("ann@example.com")).await;
    let (same, new_user, redirect_to) = signed_in(social.finish(again).await.unwrap());
    assert_eq!((same.id.as_str(), new_user), (user.id.as_str(), false));
    assert_eq!(redirect_to, "/dashboard");
    assert_eq!(count(&t.db, "users").await, 1);
    assert_eq!(count(&t.db, "accounts").await, 1);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_state_is_used_once_by_its_own_browser_and_only_while_it_lives(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let social = provider.social(&t, "", &[]);

    // An answer that names another issuer than the provider's (RFC 9207): refused, used up.
    let forged = at_provider(&social, start("bo@example.com")).await;
    let forged = Callback {
        iss: Some("https://evil.example".into()),
        ..forged
    };
    let (error, _, redirect_to) = refusal(social.finish(forged).await.unwrap());
    assert_eq!(
        (error.as_str(), redirect_to.as_str()),
        ("issuer_mismatch", "/sign-in")
    );
    assert_eq!(count(&t.db, "users").await, 0);

    let callback = at_provider(&social, start("bo@example.com")).await;
    // Another browser's callback: refused to the error callback, the state not used up.
    let stranger = Callback {
        state_cookie_matches: false,
        ..callback.clone()
    };
    let (error, _, redirect_to) = refusal(social.finish(stranger).await.unwrap());
    assert_eq!(
        (error.as_str(), redirect_to.as_str()),
        ("state_mismatch", "/sign-in")
    );
    signed_in(social.finish(callback.clone()).await.unwrap());
    // Used: the state is unknown now, so the error page (empty target).
    let (error, _, redirect_to) = refusal(social.finish(callback).await.unwrap());
    assert_eq!(
        (error.as_str(), redirect_to.as_str()),
        ("state_mismatch", "")
    );

    let late = at_provider(&social, start("bo@example.com")).await;
    query("UPDATE social_states SET expires_at = $1")
        .bind(gatehouse_kit::ids::now() - chrono::TimeDelta::seconds(1))
        .execute(&t.db)
        .await
        .unwrap();
    let (error, description, redirect_to) = refusal(social.finish(late).await.unwrap());
    assert_eq!(
        (error.as_str(), redirect_to.as_str()),
        ("state_mismatch", "/sign-in")
    );
    assert!(description.contains("10 minutes"), "{description}");
    let (left,): (i64,) = query("SELECT COUNT(*) FROM social_states")
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert_eq!(left, 0, "the expired state is deleted");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_existing_address_links_only_when_both_sides_are_verified(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let email = "cy@example.com";
    let owner = t
        .rules
        .sign_up(gatehouse_identity::email_password::SignUp {
            name: "Cy".into(),
            email: email.into(),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .user;

    let strict = provider.social(&t, "", &[]);
    let callback = at_provider(&strict, start(email)).await;
    let (error, description, redirect_to) = refusal(strict.finish(callback).await.unwrap());
    assert_eq!(
        (error.as_str(), redirect_to.as_str()),
        ("account_not_linked", "/sign-in")
    );
    assert!(description.contains("not verified"), "{description}");
    assert_eq!(count(&t.db, "accounts").await, 1, "nothing linked");

    // An unverified address at the provider never links.
    let unverified = "unverified-cy@example.com";
    t.rules
        .sign_up(gatehouse_identity::email_password::SignUp {
            name: "Cy".into(),
            email: unverified.into(),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let lenient = provider.social(
        &t,
        "",
        &[("ACCOUNT_LINKING_REQUIRE_LOCAL_EMAIL_VERIFIED", "false")],
    );
    let callback = at_provider(&lenient, start(unverified)).await;
    let (error, description, _) = refusal(lenient.finish(callback).await.unwrap());
    assert_eq!(error, "account_not_linked");
    assert!(
        description.contains("provider has not verified"),
        "{description}"
    );

    // Without the local requirement, a provider-verified address links to its owner.
    let callback = at_provider(&lenient, start(email)).await;
    let (user, new_user, _) = signed_in(lenient.finish(callback).await.unwrap());
    assert_eq!((user.id.as_str(), new_user), (owner.id.as_str(), false));
    assert_eq!(count(&t.db, "accounts").await, 3);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sign_up_follows_the_provider_s_settings_and_a_ban_holds(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;

    // An address the provider did not verify makes no account (stricter than better-auth),
    // unless the provider is trusted to vouch for its addresses.
    let social = provider.social(&t, "", &[]);
    let callback = at_provider(&social, start("unverified-zed@example.com")).await;
    let (error, _, _) = refusal(social.finish(callback).await.unwrap());
    assert_eq!(error, "email_not_verified");
    assert_eq!(count(&t.db, "users").await, 0);
    let trusting = provider.social(
        &t,
        "",
        &[("ACCOUNT_LINKING_TRUSTED_PROVIDERS", "test-oidc")],
    );
    let callback = at_provider(&trusting, start("unverified-zed@example.com")).await;
    let (zed, new_user, _) = signed_in(trusting.finish(callback).await.unwrap());
    assert!(new_user && !zed.email_verified);

    let closed = provider.social(&t, r#","disableSignUp":true"#, &[]);
    let callback = at_provider(&closed, start("di@example.com")).await;
    let (error, _, _) = refusal(closed.finish(callback).await.unwrap());
    assert_eq!(error, "signup_disabled");
    assert_eq!(count(&t.db, "users").await, 1, "Zed only");

    let on_request = provider.social(&t, r#","disableImplicitSignUp":true"#, &[]);
    let callback = at_provider(&on_request, start("di@example.com")).await;
    assert_eq!(
        refusal(on_request.finish(callback).await.unwrap()).0,
        "signup_disabled"
    );
    let asked = Start {
        request_sign_up: true,
        ..start("di@example.com")
    };
    let callback = at_provider(&on_request, asked).await;
    let (user, new_user, _) = signed_in(on_request.finish(callback).await.unwrap());
    assert!(new_user);

    query("UPDATE users SET banned = $1, ban_reason = 'spam' WHERE id = $2")
        .bind(true)
        .bind(user.id.as_str())
        .execute(&t.db)
        .await
        .unwrap();
    let callback = at_provider(&on_request, start("di@example.com")).await;
    assert_eq!(
        refusal(on_request.finish(callback).await.unwrap()).0,
        "banned"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[tokio::test]
async fn a_provider_that_is_down_is_a_clear_error_and_changes_nothing(#[case] backend: Backend) {
    let t = setup(backend).await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap();
    let entry = format!(
        r#"{{"down":{{"clientId":"c","clientSecret":"s","discoveryUrl":"http://127.0.0.1:{port}/.well-known/openid-configuration"}}}}"#
    );
    let social = social_for(&t, &entry);
    let started = social
        .start(Start {
            provider_id: "down".into(),
            ..start("x@example.com")
        })
        .await;
    assert_eq!(crate::common::refused_status(&started), 502);
    let (states,): (i64,) = query("SELECT COUNT(*) FROM social_states")
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert_eq!(states, 0);
    let unknown = social.start(start("x@example.com")).await;
    assert_eq!(crate::common::refused(unknown), "PROVIDER_NOT_FOUND");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_link_adds_the_account_to_the_signed_in_user_only(#[case] backend: Backend) {
    let t = setup(backend).await;
    let provider = OidcProvider::start().await;
    let a_user = |email: &str| gatehouse_identity::email_password::SignUp {
        name: "Lu".into(),
        email: email.into(),
        password: "Correct-Horse-9".into(),
        ..Default::default()
    };
    let lu = t
        .rules
        .sign_up(a_user("lu@example.com"))
        .await
        .unwrap()
        .user;
    let link = |user_id: &str, hint: &str| Start {
        link_user_id: Some(user_id.to_string()),
        callback_url: "/account".into(),
        error_callback_url: Some("/account?tab=accounts".into()),
        ..start(hint)
    };

    let strict = provider.social(&t, "", &[]);
    let callback = at_provider(&strict, link(&lu.id, "someone-else@example.com")).await;
    let (error, _, redirect_to) = refusal(strict.finish(callback).await.unwrap());
    assert_eq!(error, "email_does_not_match");
    assert_eq!(redirect_to, "/account?tab=accounts");
    let callback = at_provider(&strict, link(&lu.id, "unverified-lu@example.com")).await;
    assert_eq!(
        refusal(strict.finish(callback).await.unwrap()).0,
        "unable_to_link_account"
    );
    let callback = at_provider(&strict, link(&lu.id, "noemail-lu@example.com")).await;
    assert_eq!(
        refusal(strict.finish(callback).await.unwrap()).0,
        "unable_to_link_account",
        "a link's own checks come before the address's presence, as better-auth's"
    );

    let callback = at_provider(&strict, link(&lu.id, "lu@example.com")).await;
    match strict.finish(callback).await.unwrap() {
        Finished::Linked { redirect_to } => assert_eq!(redirect_to, "/account"),
        other => panic!("expected a link, got {other:?}"),
    }
    assert_eq!(count(&t.db, "accounts").await, 2);

    // With different addresses allowed, another user still cannot take Lu's provider account.
    let open = provider.social(
        &t,
        "",
        &[("ACCOUNT_LINKING_ALLOW_DIFFERENT_EMAILS", "true")],
    );
    let mo = t
        .rules
        .sign_up(a_user("mo@example.com"))
        .await
        .unwrap()
        .user;
    let callback = at_provider(&open, link(&mo.id, "lu@example.com")).await;
    assert_eq!(
        refusal(open.finish(callback).await.unwrap()).0,
        "account_already_linked_to_different_user"
    );
    assert_eq!(count(&t.db, "accounts").await, 3, "Mo's credential only");

    // Unlinking: the provider account goes; the last one stays unless allowed.
    open.unlink(&lu.id, Some("test-oidc"), None).await.unwrap();
    assert_eq!(count(&t.db, "accounts").await, 2);
    assert_eq!(
        crate::common::refused(open.unlink(&lu.id, Some("credential"), None).await),
        "FAILED_TO_UNLINK_LAST_ACCOUNT"
    );
    // better-auth's order: a user's only account is refused as such, whatever was named.
    assert_eq!(
        crate::common::refused(open.unlink(&mo.id, Some("test-oidc"), None).await),
        "FAILED_TO_UNLINK_LAST_ACCOUNT"
    );
}

/// With providers configured, identity does not start without the auth secret their tokens
/// are encrypted with, and says which variable is missing; without providers it needs none.
#[tokio::test]
async fn providers_need_the_auth_secret_at_start() {
    use gatehouse_kit::service::{Context, Part};
    let database = gatehouse_kit::testing::TestDb::new(Backend::Sqlite).await;
    let start = |social: Option<&str>| {
        let mut pairs = vec![
            ("IDENTITY_DATABASE_URL", database.url.clone()),
            (
                "SERVICE_TOKEN",
                "identity-start-test-token-0123456789abcdef".to_string(),
            ),
            ("HASH_POOL_SIZE", "1".to_string()),
        ];
        if let Some(social) = social {
            pairs.push(("SOCIAL_PROVIDERS", social.to_string()));
        }
        async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let stop = tokio_util::sync::CancellationToken::new();
            let context = Context::from_env(Env::from_pairs(pairs)).unwrap();
            let running = gatehouse_identity::SERVICE.run(context, listener, stop.clone());
            // A start that fails returns at once; one that runs is stopped after a moment.
            tokio::select! {
                result = running => result.map_err(|e| e.to_string()),
                _ = tokio::time::sleep(Duration::from_secs(3)) => { stop.cancel(); Ok(()) }
            }
        }
    };
    let with_providers = r#"{"corp":{"clientId":"c","clientSecret":"s","discoveryUrl":"https://id.example/.well-known/openid-configuration"}}"#;
    let error = start(Some(with_providers)).await.unwrap_err();
    assert!(error.contains("AUTH_SECRET"), "{error}");
    assert!(start(None).await.is_ok(), "no providers, no secret needed");
}
