//! A user's own account on each backend: profile changes (and their event), the username
//! rules on update, password change and set, and the list of sign-in methods.

use crate::common::{count, refused, refused_status, setup};
use gatehouse_identity::account::ProfileUpdate;
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::email_password::store::{self, NewUser};
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::{base, username as codes};
use rstest::rstest;

const PASSWORD: &str = "Correct-Horse-9";

async fn a_user(t: &crate::common::Setup, email: &str, username: Option<&str>) -> String {
    t.rules
        .sign_up(SignUp {
            name: "Ann".into(),
            email: email.into(),
            password: PASSWORD.into(),
            image: Some("https://img.example.com/a.png".into()),
            username: username.map(str::to_string),
            display_username: None,
            ..Default::default()
        })
        .await
        .map(|signed_up| signed_up.user)
        .unwrap()
        .id
}

async fn user_events(t: &crate::common::Setup) -> i64 {
    let (n,): (i64,) = query("SELECT COUNT(*) FROM outbox WHERE topic = 'user.updated'")
        .fetch_one(&t.db)
        .await
        .unwrap();
    n
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn profile_changes_are_stored_with_a_user_updated_event(#[case] backend: Backend) {
    let t = setup(backend).await;
    let id = a_user(&t, "ann@example.com", Some("ann")).await;
    let changed = t
        .accounts
        .update_user(
            &id,
            ProfileUpdate {
                name: Some("Ann B".into()),
                username: Some("Ann.B".into()),
                ..ProfileUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(changed.name, "Ann B");
    assert_eq!(
        changed.username.as_deref(),
        Some("ann.b"),
        "{backend:?}: normalised"
    );
    assert_eq!(
        changed.display_username.as_deref(),
        Some("ann"),
        "{backend:?}: the display form is left as it was"
    );
    assert_eq!(
        changed.image.as_deref(),
        Some("https://img.example.com/a.png")
    );
    assert!(changed.updated_at > changed.created_at);
    assert_eq!(
        t.users.get(&id).await.unwrap(),
        changed,
        "{backend:?}: stored"
    );
    assert_eq!(user_events(&t).await, 1);

    let cleared = t
        .accounts
        .update_user(
            &id,
            ProfileUpdate {
                image: Some(None),
                ..ProfileUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(cleared.image, None, "{backend:?}: null removes the image");
    // The caller's own username in another case is theirs to keep.
    t.accounts
        .update_user(
            &id,
            ProfileUpdate {
                username: Some("ANN.B".into()),
                ..ProfileUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(user_events(&t).await, 3);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn refused_profile_changes_change_nothing(#[case] backend: Backend) {
    let t = setup(backend).await;
    let id = a_user(&t, "ann@example.com", Some("ann")).await;
    a_user(&t, "bea@example.com", Some("bea")).await;
    let before = t.users.get(&id).await.unwrap();
    let update = |username: &str| ProfileUpdate {
        name: Some("Changed".into()),
        username: Some(username.into()),
        ..ProfileUpdate::default()
    };
    let taken = t.accounts.update_user(&id, update("BEA")).await;
    assert_eq!(refused_status(&taken), 400);
    assert_eq!(refused(taken), codes::USERNAME_IS_ALREADY_TAKEN.code());
    let short = t.accounts.update_user(&id, update("x")).await;
    assert_eq!(
        refused_status(&short),
        400,
        "{backend:?}: 400 on update, not 422"
    );
    assert_eq!(refused(short), codes::USERNAME_TOO_SHORT.code());
    let nothing = t.accounts.update_user(&id, ProfileUpdate::default()).await;
    assert_eq!(refused_status(&nothing), 400);
    assert_eq!(
        refused(nothing),
        "",
        "{backend:?}: better-auth's code-less refusal"
    );
    let unknown = t.accounts.update_user("nobody", update("free_name")).await;
    assert_eq!(refused(unknown), base::USER_NOT_FOUND.code());
    assert_eq!(t.users.get(&id).await.unwrap(), before, "{backend:?}");
    assert_eq!(
        user_events(&t).await,
        0,
        "{backend:?}: no event for a refusal"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_password_changes_only_with_the_current_one(#[case] backend: Backend) {
    let t = setup(backend).await;
    let id = a_user(&t, "ann@example.com", None).await;
    let new = "Another-Horse-10";
    let wrong = t.accounts.change_password(&id, "not-it-at-all", new).await;
    assert_eq!(refused(wrong), base::INVALID_PASSWORD.code());
    let short = t.accounts.change_password(&id, PASSWORD, "short").await;
    assert_eq!(refused(short), base::PASSWORD_TOO_SHORT.code());
    let long = t.accounts.change_password(&id, &"x".repeat(129), new).await;
    assert_eq!(refused(long), base::PASSWORD_TOO_LONG.code());
    t.rules.sign_in("ann@example.com", PASSWORD).await.unwrap();

    t.accounts
        .change_password(&id, PASSWORD, new)
        .await
        .unwrap();
    assert!(t.rules.sign_in("ann@example.com", PASSWORD).await.is_err());
    t.rules.sign_in("ann@example.com", new).await.unwrap();
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn set_password_only_for_a_user_without_one(#[case] backend: Backend) {
    let t = setup(backend).await;
    let id = a_user(&t, "ann@example.com", None).await;
    let already = t.accounts.set_password(&id, "Another-Horse-10").await;
    assert_eq!(refused(already), base::PASSWORD_ALREADY_SET.code());

    // A user who signed up another way (no credential account).
    let social = store::create_user(
        &t.db,
        NewUser {
            name: "Sol".into(),
            email: "sol@example.com".into(),
            image: None,
            username: None,
            display_username: None,
            language: 3,
        },
        "placeholder",
    )
    .await
    .unwrap();
    query("DELETE FROM accounts WHERE user_id = $1")
        .bind(social.id.as_str())
        .execute(&t.db)
        .await
        .unwrap();
    let short = t.accounts.set_password(&social.id, "short").await;
    assert_eq!(refused(short), base::PASSWORD_TOO_SHORT.code());
    t.accounts
        .set_password(&social.id, "Another-Horse-10")
        .await
        .unwrap();
    t.rules
        .sign_in("sol@example.com", "Another-Horse-10")
        .await
        .unwrap();
    let accounts = t.accounts.list_accounts(&social.id).await.unwrap();
    assert_eq!(accounts.len(), 1, "{backend:?}");
    assert_eq!(accounts[0].provider_id, "credential");
    assert_eq!(accounts[0].account_id, social.id);
    let unknown = t.accounts.set_password("nobody", "Another-Horse-10").await;
    assert_eq!(refused(unknown), base::USER_NOT_FOUND.code());
    assert_eq!(count(&t.db, "accounts").await, 2);
}
