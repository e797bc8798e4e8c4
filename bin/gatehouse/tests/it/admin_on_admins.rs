//! Admins acting on admins through the whole stack: every admin route that changes or acts as
//! another admin refuses an admin and changes nothing, a super-admin (`ADMIN_USER_IDS`) still
//! may, and a password or email an admin sets ends the user's sessions at once and mails them
//! (read from the dev mailbox).

use std::time::Duration;

use gatehouse_kit::db::query;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::testing::eventually;
use gatehouse_proto::events::v1::UserCredentialsChanged;
use serde_json::{Value, json};

use crate::admin::an_admin;
use crate::common::{PASSWORD, Reply, Stack, unique_email};

const NEW_PASSWORD: &str = "Another-Horse-10";

async fn session_of(stack: &Stack, jar: &str) -> Value {
    stack.get("/get-session", Some(jar)).await.json()
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

/// The text of the newest mail of `kind` to `to`, once the mailer has written it.
async fn mail(stack: &Stack, to: &str, kind: &str) -> String {
    let mut url = url::Url::parse(&stack.base.replace("/api/auth", "/api/dev/mailbox")).unwrap();
    url.query_pairs_mut().append_pair("to", to);
    let found = eventually(Duration::from_secs(15), || async {
        let body: Value = stack
            .http
            .get(url.clone())
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        body["mails"]
            .as_array()?
            .iter()
            .find(|mail| mail["kind"] == kind)
            .and_then(|mail| mail["text"].as_str().map(str::to_string))
    })
    .await;
    found.unwrap_or_else(|| panic!("no {kind} mail to {to}"))
}

/// How many mails and sign-outs identity has written so far.
async fn notices(stack: &Stack) -> i64 {
    let (n,): (i64,) = query(
        "SELECT COUNT(*) FROM outbox WHERE topic IN ('mail.requested', 'user.credentials-changed')",
    )
    .fetch_one(&stack.identity_db().await)
    .await
    .unwrap();
    n
}

/// A user whose id is `id` (what `ADMIN_USER_IDS` names), signed in: written to identity's
/// tables as sign-up would, with the password hash of a user who signed up with [`PASSWORD`].
async fn user_with_id(stack: &Stack, id: &str, email: &str) -> String {
    let template = stack.sign_up(&unique_email()).await.json()["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let db = stack.identity_db().await;
    let (hash,): (String,) = query("SELECT password FROM accounts WHERE user_id = $1")
        .bind(&template)
        .fetch_one(&db)
        .await
        .unwrap();
    let now = gatehouse_kit::ids::now();
    query("INSERT INTO users (id, name, email, created_at, updated_at) VALUES ($1, 'Root', $2, $3, $3)")
        .bind(id)
        .bind(email)
        .bind(now)
        .execute(&db)
        .await
        .unwrap();
    query(
        "INSERT INTO accounts (id, account_id, provider_id, user_id, password, created_at, updated_at) \
         VALUES ($1, $2, 'credential', $2, $3, $4, $4)",
    )
    .bind(gatehouse_kit::ids::new_id())
    .bind(id)
    .bind(&hash)
    .bind(now)
    .execute(&db)
    .await
    .unwrap();
    let signed_in = sign_in(stack, email, PASSWORD).await;
    assert_eq!(signed_in.status, 200, "{}", signed_in.text);
    signed_in.cookie_header()
}

/// Every route that changes or acts as `target` (whose session token is `token`), with the
/// code an admin target refuses it with.
fn every_route(target: &str, token: &str) -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "/admin/set-role",
            json!({"userId": target, "role": "user"}),
            "YOU_CANNOT_CHANGE_ADMINS_ROLE",
        ),
        (
            "/admin/update-user",
            json!({"userId": target, "data": {"name": "Hacked"}}),
            "YOU_CANNOT_UPDATE_ADMINS",
        ),
        (
            "/admin/update-user",
            json!({"userId": target, "data": {"email": unique_email()}}),
            "YOU_CANNOT_UPDATE_ADMINS",
        ),
        (
            "/admin/ban-user",
            json!({"userId": target}),
            "YOU_CANNOT_BAN_ADMINS",
        ),
        (
            "/admin/unban-user",
            json!({"userId": target}),
            "YOU_CANNOT_BAN_ADMINS",
        ),
        (
            "/admin/set-user-password",
            json!({"userId": target, "newPassword": NEW_PASSWORD}),
            "YOU_CANNOT_SET_ADMINS_PASSWORD",
        ),
        (
            "/admin/revoke-user-sessions",
            json!({"userId": target}),
            "YOU_CANNOT_REVOKE_ADMINS_SESSIONS",
        ),
        (
            "/admin/revoke-user-session",
            json!({"sessionToken": token}),
            "YOU_CANNOT_REVOKE_ADMINS_SESSIONS",
        ),
        (
            "/admin/remove-user",
            json!({"userId": target}),
            "YOU_CANNOT_REMOVE_ADMINS",
        ),
        (
            "/admin/impersonate-user",
            json!({"userId": target}),
            "YOU_CANNOT_IMPERSONATE_ADMINS",
        ),
    ]
}

/// Every route of [`every_route`] refuses `actor` on the admin signed in with `target_jar`
/// (as `target_email`), and the admin keeps their account, password and session.
async fn assert_refused_on(stack: &Stack, actor: &str, target_jar: &str, target_email: &str) {
    let before = session_of(stack, target_jar).await;
    let (target, token) = (
        before["user"]["id"].as_str().unwrap(),
        before["session"]["token"].as_str().unwrap(),
    );
    let written = notices(stack).await;
    for (path, body, code) in every_route(target, token) {
        let reply = stack.post(path, body.clone(), Some(actor)).await;
        assert_eq!(
            (reply.status, reply.error().0.as_str()),
            (403, code),
            "{path} {body}: {}",
            reply.text
        );
        assert!(reply.set_cookies().is_empty(), "{path}");
    }
    let after = session_of(stack, target_jar).await;
    assert_eq!(after["session"]["token"], before["session"]["token"]);
    assert_eq!(after["user"], before["user"], "the admin is untouched");
    assert_eq!(
        sign_in(stack, target_email, PASSWORD).await.status,
        200,
        "the admin's password still works"
    );
    assert_eq!(notices(stack).await, written, "no mail, nobody signed out");
}

#[tokio::test]
async fn an_admin_acting_on_another_admin_is_refused_on_every_route() {
    let stack = Stack::start(&[]).await;
    let (_, actor) = an_admin(&stack).await;
    let (peer_email, peer) = an_admin(&stack).await;
    assert_refused_on(&stack, &actor, &peer, &peer_email).await;

    // The same routes work on a user who is no admin (the rule is about the target).
    let email = unique_email();
    let plain = stack.sign_up(&email).await.json()["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let renamed = stack
        .post(
            "/admin/update-user",
            json!({"userId": plain, "data": {"name": "Renamed"}}),
            Some(&actor),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    // And an admin may still change themselves, and step down.
    let me = session_of(&stack, &actor).await["user"]["id"].clone();
    let stepped_down = stack
        .post(
            "/admin/set-role",
            json!({"userId": me, "role": "user"}),
            Some(&actor),
        )
        .await;
    assert_eq!(stepped_down.json()["user"]["role"], "user");
}

#[tokio::test]
async fn a_super_admin_acts_on_admins_and_admins_not_on_a_super_admin() {
    const ROOT: &str = "super-admin-of-this-test";
    let stack = Stack::start(&[("ADMIN_USER_IDS", ROOT)]).await;
    let root_email = unique_email();
    let root = user_with_id(&stack, ROOT, &root_email).await;
    let (peer_email, peer) = an_admin(&stack).await;
    let peer_id = session_of(&stack, &peer).await["user"]["id"].clone();

    // An admin cannot touch the super-admin (an admin by id, whatever their role).
    let (_, other_admin) = an_admin(&stack).await;
    assert_refused_on(&stack, &other_admin, &root, &root_email).await;

    // The super-admin sets the admin's password: the admin is signed out and mailed.
    let set = stack
        .post(
            "/admin/set-user-password",
            json!({"userId": peer_id, "newPassword": NEW_PASSWORD}),
            Some(&root),
        )
        .await;
    assert_eq!(
        (set.status, set.json()),
        (200, json!({"status": true})),
        "{}",
        set.text
    );
    assert_eq!(session_of(&stack, &peer).await, Value::Null, "at once");
    assert_eq!(sign_in(&stack, &peer_email, NEW_PASSWORD).await.status, 200);
    mail(&stack, &peer_email, "password-set-by-admin").await;
    for (path, body) in [
        ("/admin/ban-user", json!({"userId": peer_id})),
        ("/admin/unban-user", json!({"userId": peer_id})),
        (
            "/admin/set-role",
            json!({"userId": peer_id, "role": "user"}),
        ),
    ] {
        let reply = stack.post(path, body, Some(&root)).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
    }
}

#[tokio::test]
async fn a_password_or_email_an_admin_sets_ends_the_users_sessions_and_mails_them() {
    let stack = Stack::start(&[]).await;
    let (_, admin) = an_admin(&stack).await;
    let email = unique_email();
    let signed_up = stack.sign_up(&email).await;
    let user_id = signed_up.json()["user"]["id"].as_str().unwrap().to_string();
    let first = signed_up.cookie_header();
    let second = sign_in(&stack, &email, PASSWORD).await.cookie_header();

    let set = stack
        .post(
            "/admin/set-user-password",
            json!({"userId": user_id, "newPassword": NEW_PASSWORD}),
            Some(&admin),
        )
        .await;
    assert_eq!(set.status, 200, "{}", set.text);
    assert!(
        set.set_cookies().is_empty(),
        "the admin keeps their session"
    );
    for jar in [&first, &second] {
        assert_eq!(
            session_of(&stack, jar).await,
            Value::Null,
            "signed out at once"
        );
    }
    assert_eq!(sign_in(&stack, &email, PASSWORD).await.status, 401);
    let third = sign_in(&stack, &email, NEW_PASSWORD).await;
    assert_eq!(third.status, 200);
    let text = mail(&stack, &email, "password-set-by-admin").await;
    assert!(
        text.contains(&format!("{}/forgot-password/", stack.origin)),
        "a way to choose their own password: {text}"
    );

    // A new email: signed out again, and the old address hears of it.
    let moved_to = unique_email();
    let moved = stack
        .post(
            "/admin/update-user",
            json!({"userId": user_id, "data": {"email": moved_to}}),
            Some(&admin),
        )
        .await;
    assert_eq!(moved.json()["email"], moved_to.as_str(), "{}", moved.text);
    assert_eq!(
        session_of(&stack, &third.cookie_header()).await,
        Value::Null
    );
    let text = mail(&stack, &email, "email-changed-by-admin").await;
    assert!(text.contains(&moved_to), "names the new address: {text}");
    assert_eq!(sign_in(&stack, &moved_to, NEW_PASSWORD).await.status, 200);
    assert_ne!(session_of(&stack, &admin).await, Value::Null);

    // An admin setting their own password through the route signs themselves out too.
    let me = session_of(&stack, &admin).await["user"]["id"].clone();
    let own = stack
        .post(
            "/admin/set-user-password",
            json!({"userId": me, "newPassword": NEW_PASSWORD}),
            Some(&admin),
        )
        .await;
    assert_eq!(own.status, 200, "{}", own.text);
    assert!(
        own.set_cookie("better-auth.session_token")
            .is_some_and(|c| c.contains("Max-Age=0")),
        "{:?}",
        own.set_cookies()
    );
    assert_eq!(session_of(&stack, &admin).await, Value::Null);
}

/// The event alone ends the sessions (what happens when the gateway's own call fails).
#[tokio::test]
async fn user_credentials_changed_ends_every_session_of_the_user() {
    let stack = Stack::start(&[]).await;
    let up = stack.sign_up(&unique_email()).await;
    let user_id = up.json()["user"]["id"].as_str().unwrap().to_string();
    let jar = up.cookie_header();
    assert_ne!(session_of(&stack, &jar).await, Value::Null);
    let identity = stack.identity_db().await;
    let mut tx = identity.begin().await.unwrap();
    tx.enqueue(&OutboxEvent::new(&UserCredentialsChanged { user_id }))
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let gone = eventually(Duration::from_secs(10), || async {
        (stack.get("/get-session", Some(&jar)).await.text == "null").then_some(())
    })
    .await;
    assert!(gone.is_some(), "user.credentials-changed ended the session");
}
