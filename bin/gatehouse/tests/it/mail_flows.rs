//! The mail flows end to end through the standalone stack: the request, the `mail.requested`
//! event, the mailer writing the mail, the link in it (read from the dev mailbox as a user
//! would read it), and the route the link leads to.

use std::time::Duration;

use gatehouse_kit::db::query;
use serde_json::json;

use crate::common::{PASSWORD, Reply, Stack, unique_email};
use gatehouse_kit::db::Db;

/// A mail as the dev mailbox shows it, with its first link made reachable from the test.
struct Mail {
    kind: String,
    language: i64,
    subject: String,
    link: String,
}

impl Mail {
    /// The link's token: its `token` query parameter, else its last path segment.
    fn token(&self) -> String {
        let url = url::Url::parse(&self.link).unwrap();
        url.query_pairs()
            .find(|(k, _)| k == "token")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_else(|| {
                url.path_segments()
                    .unwrap()
                    .next_back()
                    .unwrap()
                    .to_string()
            })
    }

    /// The link's path and query below the auth API.
    fn route(&self) -> String {
        let url = url::Url::parse(&self.link).unwrap();
        let path = url.path().strip_prefix("/api/auth").unwrap().to_string();
        match url.query() {
            Some(query) => format!("{path}?{query}"),
            None => path,
        }
    }
}

async fn mails_to(stack: &Stack, to: &str) -> Vec<Mail> {
    let mut url = url::Url::parse(&stack.base.replace("/api/auth", "/api/dev/mailbox")).unwrap();
    url.query_pairs_mut().append_pair("to", to);
    let body: serde_json::Value = stack
        .http
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["mails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mail| {
            let text = mail["text"].as_str().unwrap();
            let start = text.find("http").expect("a link in the mail");
            let link = text[start..].split_whitespace().next().unwrap().to_string();
            assert!(
                link.starts_with(&stack.origin),
                "links are absolute on BASE_URL: {link}"
            );
            Mail {
                kind: mail["kind"].as_str().unwrap().to_string(),
                language: mail["language"].as_i64().unwrap(),
                subject: mail["subject"].as_str().unwrap().to_string(),
                link,
            }
        })
        .collect()
}

/// The newest mail to `to` once there are `count` of them (newest first in the mailbox).
async fn nth_mail(stack: &Stack, to: &str, count: usize) -> Mail {
    for _ in 0..100 {
        let mut mails = mails_to(stack, to).await;
        if mails.len() >= count {
            return mails.swap_remove(0);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no mail number {count} to {to}");
}

async fn session_of(stack: &Stack, cookie: &str) -> serde_json::Value {
    stack.get("/get-session", Some(cookie)).await.json()
}

async fn sign_in(stack: &Stack, email: &str, password: &str) -> Reply {
    stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": password}),
            None,
        )
        .await
}

#[tokio::test]
async fn a_verification_link_verifies_the_address_and_only_its_own_user() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let cookie = stack.sign_up(&email).await.cookie_header();

    let mismatch = stack
        .post(
            "/send-verification-email",
            json!({"email": "someone-else@example.com"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(mismatch.status, 400);
    assert_eq!(mismatch.error().0, "EMAIL_MISMATCH");

    let sent = stack
        .post(
            "/send-verification-email",
            json!({"email": email.to_uppercase(), "callbackURL": "/account"}),
            Some(&cookie),
        )
        .await;
    assert_eq!((sent.status, sent.json()), (200, json!({"status": true})));
    let mail = nth_mail(&stack, &email, 1).await;
    assert_eq!(mail.kind, "verify-email");
    assert!(
        mail.route().starts_with("/verify-email?token="),
        "{}",
        mail.link
    );

    // Only a hash of the token is stored.
    let db = stack.identity_db().await;
    let (stored,): (String,) = query("SELECT token_hash FROM verifications")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_ne!(stored, mail.token());
    assert!(!stored.contains(&mail.token()));

    // Opened signed out: verified, sent to the callback, no session started by default.
    let opened = stack.get(&mail.route(), None).await;
    assert_eq!(opened.status, 302);
    assert_eq!(opened.headers["location"], "/account");
    assert!(opened.set_cookie("better-auth.session_token").is_none());
    let session = session_of(&stack, &cookie).await;
    assert_eq!(session["user"]["emailVerified"], true);

    // Opened again: still fine; asking again: already verified.
    let again = stack.get(&mail.route(), None).await;
    assert_eq!(again.status, 302);
    let resend = stack
        .post(
            "/send-verification-email",
            json!({"email": email}),
            Some(&cookie),
        )
        .await;
    assert_eq!(resend.error().0, "EMAIL_ALREADY_VERIFIED");

    // Someone else's signed-in browser: the link proves the mailbox of its own user only.
    let other = stack.sign_up(&unique_email()).await.cookie_header();
    let foreign = stack
        .get(
            &format!("/verify-email?token={}", mail.token()),
            Some(&other),
        )
        .await;
    assert_eq!(
        (foreign.status, foreign.json()),
        (200, json!({"status": true, "user": null}))
    );
    assert!(
        foreign.set_cookies().is_empty(),
        "the caller's cookies are left alone"
    );
    assert_eq!(
        session_of(&stack, &other).await["user"]["emailVerified"],
        false
    );

    // Made-up tokens: JSON without a callback, a redirect with `error` with one.
    let forged = stack.get("/verify-email?token=forged", None).await;
    assert_eq!(
        (forged.status, forged.error().0.as_str()),
        (401, "INVALID_TOKEN")
    );
    let forged = stack
        .get(
            "/verify-email?token=forged&callbackURL=%2Fdone%3Fx%3D1",
            None,
        )
        .await;
    assert_eq!(forged.status, 302);
    assert_eq!(forged.headers["location"], "/done?x=1&error=INVALID_TOKEN");
    let untrusted = stack
        .get(
            "/verify-email?token=forged&callbackURL=https%3A%2F%2Fevil.example",
            None,
        )
        .await;
    assert_eq!(untrusted.error().0, "INVALID_CALLBACK_URL");
}

#[tokio::test]
async fn expired_links_are_refused_as_expired() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let cookie = stack.sign_up(&email).await.cookie_header();
    stack
        .post(
            "/send-verification-email",
            json!({"email": email}),
            Some(&cookie),
        )
        .await;
    stack
        .post("/request-password-reset", json!({"email": email}), None)
        .await;
    let verify = nth_mail(&stack, &email, 2).await;
    let verify = if verify.kind == "verify-email" {
        verify
    } else {
        mails_to(&stack, &email).await.swap_remove(1)
    };
    let db = stack.identity_db().await;
    query("UPDATE verifications SET expires_at = $1")
        .bind(gatehouse_kit::ids::now() - chrono::Duration::seconds(1))
        .execute(&db)
        .await
        .unwrap();
    let opened = stack
        .get(&format!("/verify-email?token={}", verify.token()), None)
        .await;
    assert_eq!(
        (opened.status, opened.error().0.as_str()),
        (401, "TOKEN_EXPIRED")
    );
    assert_eq!(
        session_of(&stack, &cookie).await["user"]["emailVerified"],
        false
    );
    let reset = mails_to(&stack, &email)
        .await
        .into_iter()
        .find(|m| m.kind == "reset-password")
        .unwrap();
    let refused = stack
        .post(
            "/reset-password",
            json!({"newPassword": "Brand-New-Pass-1", "token": reset.token()}),
            None,
        )
        .await;
    assert_eq!(refused.error().0, "INVALID_TOKEN");
}

#[tokio::test]
async fn a_password_reset_goes_through_the_mailed_link_once() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let old_session = stack.sign_up(&email).await.cookie_header();

    // Unknown and known addresses get the same answer; only the user gets a mail.
    let unknown = unique_email();
    let answers = [
        stack
            .post("/request-password-reset", json!({"email": unknown}), None)
            .await,
        stack
            .post(
                "/forget-password",
                json!({"email": email, "redirectTo": "/reset?from=mail"}),
                None,
            )
            .await,
    ];
    for answer in &answers {
        assert_eq!(
            (answer.status, answer.json()),
            (
                200,
                json!({"status": true, "message": "If this email exists in our system, check your email for the reset link"})
            )
        );
    }
    let first = nth_mail(&stack, &email, 1).await;
    assert!(mails_to(&stack, &unknown).await.is_empty());
    assert_eq!(first.kind, "reset-password");
    assert_eq!(first.token().len(), 24);

    // A newer request replaces the older link.
    stack
        .post(
            "/request-password-reset",
            json!({"email": email, "redirectTo": "/reset?from=mail"}),
            None,
        )
        .await;
    let mail = nth_mail(&stack, &email, 2).await;
    assert_ne!(mail.token(), first.token());
    let replaced = stack.get(&first.route(), None).await;
    assert_eq!(replaced.status, 302);
    assert!(
        replaced.headers["location"]
            .to_str()
            .unwrap()
            .ends_with("/reset?from=mail&error=INVALID_TOKEN")
    );

    // The link leads to the app's page, absolute, with the token.
    let opened = stack.get(&mail.route(), None).await;
    assert_eq!(opened.status, 302);
    assert_eq!(
        opened.headers["location"].to_str().unwrap(),
        format!("{}/reset?from=mail&token={}", stack.origin, mail.token())
    );

    // Too short: refused, and the link still works.
    let short = stack
        .post(
            "/reset-password",
            json!({"newPassword": "short", "token": mail.token()}),
            None,
        )
        .await;
    assert_eq!(short.error().0, "PASSWORD_TOO_SHORT");
    // The token may come in the query.
    let reset = stack
        .post(
            &format!("/reset-password?token={}", mail.token()),
            json!({"newPassword": "Brand-New-Pass-1"}),
            None,
        )
        .await;
    assert_eq!((reset.status, reset.json()), (200, json!({"status": true})));
    assert!(reset.set_cookies().is_empty(), "no session is started");

    assert_eq!(sign_in(&stack, &email, PASSWORD).await.status, 401);
    assert_eq!(
        sign_in(&stack, &email, "Brand-New-Pass-1").await.status,
        200
    );
    // Sessions stay unless RESET_PASSWORD_REVOKE_SESSIONS.
    assert_eq!(
        session_of(&stack, &old_session).await["user"]["email"],
        email
    );

    let reused = stack
        .post(
            "/reset-password",
            json!({"newPassword": "Another-Pass-22", "token": mail.token()}),
            None,
        )
        .await;
    assert_eq!(
        (reused.status, reused.error().0.as_str()),
        (400, "INVALID_TOKEN")
    );
    let no_token = stack
        .post(
            "/reset-password",
            json!({"newPassword": "Another-Pass-22"}),
            None,
        )
        .await;
    assert_eq!(no_token.error().0, "INVALID_TOKEN");
    let missing_callback = stack
        .get(&format!("/reset-password/{}", mail.token()), None)
        .await;
    assert_eq!(missing_callback.error().0, "VALIDATION_ERROR");
}

#[tokio::test]
async fn a_reset_can_end_every_session() {
    let stack = Stack::start(&[("RESET_PASSWORD_REVOKE_SESSIONS", "true")]).await;
    let email = unique_email();
    let session = stack.sign_up(&email).await.cookie_header();
    stack
        .post("/request-password-reset", json!({"email": email}), None)
        .await;
    let mail = nth_mail(&stack, &email, 1).await;
    // Without a redirectTo the link leads to the web app's page.
    let opened = stack.get(&mail.route(), None).await;
    assert_eq!(
        opened.headers["location"].to_str().unwrap(),
        format!("{}/reset-password/?token={}", stack.origin, mail.token())
    );
    let reset = stack
        .post(
            "/reset-password",
            json!({"newPassword": "Brand-New-Pass-1", "token": mail.token()}),
            None,
        )
        .await;
    assert_eq!(reset.status, 200);
    assert_eq!(session_of(&stack, &session).await, serde_json::Value::Null);
}

#[tokio::test]
async fn required_verification_holds_sign_in_until_the_link_is_used() {
    let stack = Stack::start(&[
        ("REQUIRE_EMAIL_VERIFICATION", "true"),
        ("EMAIL_VERIFICATION_AUTO_SIGN_IN", "true"),
    ])
    .await;
    let email = unique_email();
    let signed_up = stack
        .post(
            "/sign-up/email",
            json!({"name": "Vera", "email": email, "password": PASSWORD, "callbackURL": "/welcome"}),
            None,
        )
        .await;
    assert_eq!(signed_up.status, 200);
    assert_eq!(signed_up.json()["token"], serde_json::Value::Null);
    assert_eq!(signed_up.json()["verificationEmailSent"], true);
    assert!(signed_up.set_cookies().is_empty());
    let first = nth_mail(&stack, &email, 1).await;
    assert_eq!(first.kind, "verify-email");
    assert!(
        first.link.ends_with("callbackURL=%2Fwelcome"),
        "{}",
        first.link
    );

    // The same address again: the same kind of answer, nothing revealed, nothing created.
    let again = stack
        .post(
            "/sign-up/email",
            json!({"name": "Vera", "email": email, "password": PASSWORD}),
            None,
        )
        .await;
    assert_eq!(again.status, 200);
    assert_ne!(again.json()["user"]["id"], signed_up.json()["user"]["id"]);
    assert_eq!(again.json()["verificationEmailSent"], true);

    // Sign-in is refused, and a fresh link is mailed with the refusal.
    let refused = sign_in(&stack, &email, PASSWORD).await;
    assert_eq!(
        (refused.status, refused.error().0.as_str()),
        (403, "EMAIL_NOT_VERIFIED")
    );
    let second = nth_mail(&stack, &email, 2).await;
    assert_ne!(second.token(), first.token());
    // A wrong password learns nothing about verification.
    assert_eq!(sign_in(&stack, &email, "Wrong-Pass-99").await.status, 401);

    // The link signs the browser in (EMAIL_VERIFICATION_AUTO_SIGN_IN).
    let opened = stack.get(&first.route(), None).await;
    assert_eq!(opened.status, 302);
    assert_eq!(opened.headers["location"], "/welcome");
    let session = session_of(&stack, &opened.cookie_header()).await;
    assert_eq!(session["user"]["email"], email);
    assert_eq!(session["user"]["emailVerified"], true);
    assert_eq!(sign_in(&stack, &email, PASSWORD).await.status, 200);
}

#[tokio::test]
async fn sign_up_says_when_it_mailed_a_verification_link() {
    // Mailed on sign-up without being required: signed in, and told a link is on its way.
    let mailing = Stack::start(&[("EMAIL_VERIFICATION_ON_SIGN_UP", "true")]).await;
    let email = unique_email();
    let body = json!({"name": "Vera", "email": email, "password": PASSWORD});
    let signed_up = mailing.post("/sign-up/email", body, None).await;
    assert_eq!(signed_up.status, 200);
    assert!(signed_up.json()["token"].is_string());
    assert_eq!(signed_up.json()["verificationEmailSent"], true);
    assert_eq!(nth_mail(&mailing, &email, 1).await.kind, "verify-email");

    // Not mailed: better-auth's answer exactly, no such field.
    let quiet = Stack::start(&[]).await;
    let body = json!({"name": "Vera", "email": unique_email(), "password": PASSWORD});
    let signed_up = quiet.post("/sign-up/email", body, None).await;
    assert_eq!(signed_up.status, 200);
    let keys: Vec<_> = signed_up
        .json()
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["token", "user"]);
}

#[tokio::test]
async fn a_verification_link_does_not_sign_in_a_user_with_a_second_factor() {
    let stack = Stack::start(&[("EMAIL_VERIFICATION_AUTO_SIGN_IN", "true")]).await;
    let email = unique_email();
    let cookie = stack.sign_up(&email).await.cookie_header();
    let enabled = stack
        .post(
            "/two-factor/enable",
            json!({"password": PASSWORD, "method": "otp"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(enabled.status, 200, "{}", enabled.text);
    let sent = stack
        .post("/send-verification-email", json!({"email": email}), None)
        .await;
    assert_eq!(sent.status, 200);
    let mail = nth_mail(&stack, &email, 1).await;
    // Opened in a signed-out browser: verified, but no session without the second factor.
    let opened = stack.get(&mail.route(), None).await;
    assert!(
        opened.status == 200 || opened.status == 302,
        "{} {}",
        opened.status,
        opened.text
    );
    assert!(
        opened
            .set_cookies()
            .iter()
            .all(|c| !c.contains("session_token")),
        "no session cookie: {:?}",
        opened.set_cookies()
    );
    let signed_in = sign_in(&stack, &email, PASSWORD).await;
    assert_eq!(signed_in.json()["twoFactorRedirect"], true);
}

#[tokio::test]
async fn signed_out_requests_answer_alike_and_mail_only_unverified_users() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    stack.sign_up(&email).await;
    let unknown = unique_email();
    for address in [&unknown, &email] {
        let started = std::time::Instant::now();
        let answer = stack
            .post("/send-verification-email", json!({"email": address}), None)
            .await;
        assert_eq!(
            (answer.status, answer.json()),
            (200, json!({"status": true}))
        );
        assert!(started.elapsed() >= Duration::from_millis(500));
    }
    assert_eq!(nth_mail(&stack, &email, 1).await.kind, "verify-email");
    assert!(mails_to(&stack, &unknown).await.is_empty());
}

#[tokio::test]
async fn mails_are_written_in_the_users_language() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let signed_up = stack
        .http
        .post(stack.url("/sign-up/email"))
        .header("origin", &stack.origin)
        .header("accept-language", "fr-CH, de;q=0.9")
        .json(&json!({"name": "Zoé", "email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    let signed_up = Reply::from(signed_up).await;
    assert_eq!(signed_up.json()["user"]["language"], 16);
    let cookie = signed_up.cookie_header();

    let unknown = stack
        .post("/update-user", json!({"language": 99}), Some(&cookie))
        .await;
    assert_eq!(
        (unknown.status, unknown.error().0.as_str()),
        (400, "VALIDATION_ERROR")
    );
    let german = stack
        .post("/update-user", json!({"language": 6}), Some(&cookie))
        .await;
    assert_eq!(german.status, 200);
    assert_eq!(session_of(&stack, &cookie).await["user"]["language"], 6);

    stack
        .post("/request-password-reset", json!({"email": email}), None)
        .await;
    let mail = nth_mail(&stack, &email, 1).await;
    assert_eq!(mail.language, 6);
    assert!(mail.subject.contains("Passwort"), "{}", mail.subject);
}

#[tokio::test]
async fn an_unverified_address_changes_at_once_and_the_new_one_is_asked_to_verify() {
    let stack = Stack::start(&[]).await;
    let (email, taken) = (unique_email(), unique_email());
    let cookie = stack.sign_up(&email).await.cookie_header();
    stack.sign_up(&taken).await;

    let same = stack
        .post(
            "/change-email",
            json!({"newEmail": email.to_uppercase()}),
            Some(&cookie),
        )
        .await;
    assert_eq!(
        (same.status, same.json()),
        (400, json!({"message": "Email is the same"}))
    );
    // Someone else's address: the same answer as a success, nothing changes or is mailed.
    let silent = stack
        .post("/change-email", json!({"newEmail": taken}), Some(&cookie))
        .await;
    assert_eq!(
        (silent.status, silent.json()),
        (200, json!({"status": true}))
    );
    assert!(silent.set_cookies().is_empty());

    let new_email = unique_email();
    let changed = stack
        .post(
            "/change-email",
            json!({"newEmail": new_email, "callbackURL": "/account"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(changed.status, 200);
    assert!(
        changed.set_cookie("better-auth.session_token").is_some(),
        "cookies issued again"
    );
    let session = session_of(&stack, &cookie).await;
    assert_eq!(session["user"]["email"], new_email);
    assert_eq!(session["user"]["emailVerified"], false);
    let mail = nth_mail(&stack, &new_email, 1).await;
    assert_eq!(mail.kind, "verify-email");
    assert!(mails_to(&stack, &taken).await.is_empty());
    assert_eq!(sign_in(&stack, &email, PASSWORD).await.status, 401);
    assert_eq!(sign_in(&stack, &new_email, PASSWORD).await.status, 200);
    assert_eq!(stack.get(&mail.route(), None).await.status, 302);
    assert_eq!(
        session_of(&stack, &cookie).await["user"]["emailVerified"],
        true
    );
}

#[tokio::test]
async fn a_verified_address_approves_the_change_then_the_new_one_proves_itself() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let cookie = stack.sign_up(&email).await.cookie_header();
    stack
        .post(
            "/send-verification-email",
            json!({"email": email}),
            Some(&cookie),
        )
        .await;
    stack
        .get(&nth_mail(&stack, &email, 1).await.route(), None)
        .await;

    let new_email = unique_email();
    let asked = stack
        .post(
            "/change-email",
            json!({"newEmail": new_email, "callbackURL": "/account"}),
            Some(&cookie),
        )
        .await;
    assert_eq!((asked.status, asked.json()), (200, json!({"status": true})));
    assert_eq!(
        session_of(&stack, &cookie).await["user"]["email"],
        email,
        "not yet"
    );
    let approval = nth_mail(&stack, &email, 2).await;
    assert_eq!(approval.kind, "confirm-email-change");
    assert!(
        approval.link.ends_with("callbackURL=%2Faccount"),
        "{}",
        approval.link
    );

    // Another user's browser may not carry the change on.
    let other = stack.sign_up(&unique_email()).await.cookie_header();
    let foreign = stack.get(&approval.route(), Some(&other)).await;
    assert_eq!(foreign.status, 302);
    assert_eq!(foreign.headers["location"], "/account?error=INVALID_USER");

    assert_eq!(
        stack.get(&approval.route(), Some(&cookie)).await.status,
        302
    );
    let proof = nth_mail(&stack, &new_email, 1).await;
    assert_eq!(proof.kind, "verify-email");
    // The new address's link leads where the change was asked to lead.
    assert!(
        proof.link.ends_with("callbackURL=%2Faccount"),
        "{}",
        proof.link
    );
    let applied = stack
        .get(
            &format!("/verify-email?token={}", proof.token()),
            Some(&cookie),
        )
        .await;
    assert_eq!(applied.status, 200);
    assert_eq!(applied.json()["user"]["email"], new_email);
    assert_eq!(applied.json()["user"]["emailVerified"], true);
    let session = session_of(&stack, &applied.cookie_header()).await;
    assert_eq!(session["user"]["email"], new_email);

    // Both links now name an address that is no longer the user's.
    for link in [&approval, &proof] {
        let stale = stack
            .get(&format!("/verify-email?token={}", link.token()), None)
            .await;
        assert_eq!(
            (stale.status, stale.error().0.as_str()),
            (401, "USER_NOT_FOUND")
        );
    }
    assert_eq!(sign_in(&stack, &new_email, PASSWORD).await.status, 200);
}

#[tokio::test]
async fn deleting_an_account_ends_its_sessions_and_frees_the_address() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let cookie = stack.sign_up(&email).await.cookie_header();
    let other_browser = sign_in(&stack, &email, PASSWORD).await.cookie_header();

    let wrong = stack
        .post(
            "/delete-user",
            json!({"password": "Wrong-Pass-99"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(
        (wrong.status, wrong.error().0.as_str()),
        (400, "INVALID_PASSWORD")
    );
    assert_eq!(session_of(&stack, &cookie).await["user"]["email"], email);

    let deleted = stack
        .post("/delete-user", json!({"password": PASSWORD}), Some(&cookie))
        .await;
    assert_eq!(
        (deleted.status, deleted.json()),
        (200, json!({"success": true, "message": "User deleted"}))
    );
    assert!(
        deleted
            .set_cookie("better-auth.session_token")
            .is_some_and(|c| c.contains("Max-Age=0")),
        "the cookie is cleared"
    );
    assert_eq!(
        session_of(&stack, &other_browser).await,
        serde_json::Value::Null
    );
    assert_eq!(sign_in(&stack, &email, PASSWORD).await.status, 401);
    stack.sign_up(&email).await;
}

#[tokio::test]
async fn deletion_confirmed_by_mail_needs_the_users_own_browser_and_works_once() {
    let stack = Stack::start(&[("DELETE_USER_VERIFY_BY_MAIL", "true")]).await;
    let email = unique_email();
    let cookie = stack.sign_up(&email).await.cookie_header();
    let asked = stack
        .post(
            "/delete-user",
            json!({"callbackURL": "/goodbye"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(
        asked.json(),
        json!({"success": true, "message": "Verification email sent"})
    );
    assert_eq!(
        session_of(&stack, &cookie).await["user"]["email"],
        email,
        "not yet"
    );
    let mail = nth_mail(&stack, &email, 1).await;
    assert_eq!(mail.kind, "confirm-account-deletion");
    assert_eq!(mail.token().len(), 32);
    assert!(
        mail.token()
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
    );

    let signed_out = stack.get(&mail.route(), None).await;
    assert_eq!(
        (signed_out.status, signed_out.error().0.as_str()),
        (404, "FAILED_TO_GET_USER_INFO")
    );
    let other = stack.sign_up(&unique_email()).await.cookie_header();
    let foreign = stack.get(&mail.route(), Some(&other)).await;
    assert_eq!(
        (foreign.status, foreign.error().0.as_str()),
        (404, "INVALID_TOKEN")
    );
    assert!(session_of(&stack, &other).await["user"].is_object());

    let confirmed = stack.get(&mail.route(), Some(&cookie)).await;
    assert_eq!(confirmed.status, 302);
    assert_eq!(confirmed.headers["location"], "/goodbye");
    assert_eq!(session_of(&stack, &cookie).await, serde_json::Value::Null);
    assert_eq!(sign_in(&stack, &email, PASSWORD).await.status, 401);
}

/// A mailed token works from the mail alone: it is nowhere in the clear in what the stack
/// keeps — identity's outbox (a week), the mailer's log — and the mail still carries it.
#[tokio::test]
async fn a_mailed_token_is_stored_nowhere_in_the_clear() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    stack.sign_up(&email).await;
    let reply = stack
        .post("/request-password-reset", json!({"email": email}), None)
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let mail = nth_mail(&stack, &email, 1).await;
    assert_eq!(mail.kind, "reset-password");
    let token = mail.token();
    assert!(token.len() >= 24, "{token}");

    let contains = |bytes: &[u8]| bytes.windows(token.len()).any(|w| w == token.as_bytes());
    let identity = stack.identity_db().await;
    let payloads: Vec<(Vec<u8>,)> =
        query("SELECT payload FROM outbox WHERE topic = 'mail.requested'")
            .fetch_all(&identity)
            .await
            .unwrap();
    assert!(
        !payloads.is_empty(),
        "the request went through identity's outbox"
    );
    assert!(
        payloads.iter().all(|(payload,)| !contains(payload)),
        "identity's outbox keeps the token sealed"
    );
    let mailer = Db::connect(
        &format!("sqlite://{}/mailer.sqlite", stack.data_dir),
        1,
        &gatehouse_mailer::MIGRATIONS,
    )
    .await
    .unwrap();
    let bodies: Vec<(String, String)> = query("SELECT text_body, html_body FROM mails")
        .fetch_all(&mailer)
        .await
        .unwrap();
    assert!(!bodies.is_empty());
    assert!(
        bodies
            .iter()
            .all(|(text, html)| !contains(text.as_bytes()) && !contains(html.as_bytes())),
        "the mail log keeps its bodies sealed"
    );
}

/// An invitation's mailed link (`/accept-invitation/<id>?token=…`): the invitation's id and
/// the token.
fn invitation_link(mail: &Mail) -> (String, String) {
    let url = url::Url::parse(&mail.link).unwrap();
    let id = url
        .path_segments()
        .unwrap()
        .next_back()
        .unwrap()
        .to_string();
    assert_eq!(
        url.path(),
        format!("/accept-invitation/{id}"),
        "{}",
        mail.link
    );
    (id, mail.token())
}

/// An invitation is for whoever reads the mail it was sent to: someone who made the address
/// hers without owning it (unverified addresses change at once) is refused, while the real
/// invitee, unverified, accepts through the mailed link and is verified by it, in the very
/// next get-session, the cookie cache included.
#[tokio::test]
async fn an_invitation_goes_to_who_reads_its_mail_not_who_takes_its_address() {
    let stack = Stack::start(&[("COOKIE_CACHE_ENABLED", "true")]).await;
    let owner = stack.sign_up(&unique_email()).await.cookie_header();
    let created = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": format!("acme-{}", gatehouse_kit::ids::random_alphanumeric(8).to_lowercase())}),
            Some(&owner),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let invite = |email: &str| json!({"email": email, "role": "admin"});

    let victim = unique_email();
    let sent = stack
        .post("/organization/invite-member", invite(&victim), Some(&owner))
        .await;
    assert_eq!(sent.status, 200, "{}", sent.text);
    let attacker = stack.sign_up(&unique_email()).await.cookie_header();
    let moved = stack
        .post(
            "/change-email",
            json!({"newEmail": victim}),
            Some(&attacker),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    // The cookies issued again, the cookie cache's copy with the new address among them.
    let attacker = moved.cookie_header();
    assert_eq!(session_of(&stack, &attacker).await["user"]["email"], victim);
    let taken = stack
        .post(
            "/organization/accept-invitation",
            json!({"invitationId": sent.json()["id"]}),
            Some(&attacker),
        )
        .await;
    assert_eq!(taken.status, 403, "{}", taken.text);
    assert_eq!(
        taken.error(),
        (
            "EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION".into(),
            "Email verification required before accepting or rejecting invitation".into()
        )
    );

    let invitee_email = unique_email();
    let invitee = stack.sign_up(&invitee_email).await.cookie_header();
    let sent = stack
        .post(
            "/organization/invite-member",
            invite(&invitee_email),
            Some(&owner),
        )
        .await;
    assert_eq!(sent.status, 200, "{}", sent.text);
    let (id, token) = invitation_link(&nth_mail(&stack, &invitee_email, 1).await);
    assert_eq!(id, sent.json()["id"]);
    let unproved = stack
        .get(
            &format!("/organization/get-invitation?id={id}"),
            Some(&invitee),
        )
        .await;
    assert_eq!(unproved.status, 403, "{}", unproved.text);
    let shown = stack
        .get(
            &format!("/organization/get-invitation?id={id}&token={token}"),
            Some(&invitee),
        )
        .await;
    assert_eq!(shown.status, 200, "{}", shown.text);
    let accepted = stack
        .post(
            "/organization/accept-invitation",
            json!({"invitationId": id, "token": token}),
            Some(&invitee),
        )
        .await;
    assert_eq!(accepted.status, 200, "{}", accepted.text);
    assert_eq!(accepted.json()["member"]["role"], "admin");
    // Issued again: without them the cookie cache would show the address unverified a while.
    let invitee = accepted.cookie_header();
    assert!(invitee.contains("better-auth.session_data="), "{invitee}");
    let session = session_of(&stack, &invitee).await;
    assert_eq!(session["user"]["emailVerified"], true, "{session}");
    assert_eq!(
        session["session"]["activeOrganizationId"],
        created.json()["id"]
    );
}
