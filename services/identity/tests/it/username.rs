//! The username plugin's rules end to end on each backend: sign-up with a username, sign-in by
//! username (any case), the availability check, and the refusals with their statuses.

use crate::common::{count, refused, refused_status, setup};
use gatehouse_identity::email_password::SignUp;
use gatehouse_kit::db::Backend;
use gatehouse_kit::errors::{base, username as codes};
use rstest::rstest;

const PASSWORD: &str = "Correct-Horse-9";

fn sign_up(email: &str, username: Option<&str>, display: Option<&str>) -> SignUp {
    SignUp {
        name: "Ursula".into(),
        email: email.into(),
        password: PASSWORD.into(),
        image: None,
        username: username.map(str::to_string),
        display_username: display.map(str::to_string),
        ..Default::default()
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_username_is_stored_lowercased_and_unique_ignoring_case(#[case] backend: Backend) {
    let t = setup(backend).await;
    let user = t
        .rules
        .sign_up(sign_up("u1@example.com", Some("Alice_1"), None))
        .await
        .map(|signed_up| signed_up.user)
        .unwrap();
    assert_eq!(user.username.as_deref(), Some("alice_1"));
    assert_eq!(user.display_username.as_deref(), Some("Alice_1"));
    assert_eq!(
        user.role, "user",
        "{backend:?}: the admin plugin's default role"
    );
    assert!(!user.banned);

    let taken = t
        .rules
        .sign_up(sign_up("u2@example.com", Some("ALICE_1"), None))
        .await
        .map(|signed_up| signed_up.user);
    assert_eq!(refused_status(&taken), 400);
    assert_eq!(refused(taken), codes::USERNAME_IS_ALREADY_TAKEN.code());
    // A display form alone, valid as a username, is taken the same way.
    let via_display = t
        .rules
        .sign_up(sign_up("u3@example.com", None, Some("alice_1")))
        .await
        .map(|signed_up| signed_up.user);
    assert_eq!(
        refused(via_display),
        codes::USERNAME_IS_ALREADY_TAKEN.code()
    );
    for (raw, code) in [
        ("ab", codes::USERNAME_TOO_SHORT),
        (&"a".repeat(31), codes::USERNAME_TOO_LONG),
        ("no spaces", codes::INVALID_USERNAME),
    ] {
        let result = t
            .rules
            .sign_up(sign_up("u4@example.com", Some(raw), None))
            .await
            .map(|signed_up| signed_up.user);
        assert_eq!(refused_status(&result), 400, "{backend:?}: 400 on sign-up");
        assert_eq!(refused(result), code.code());
    }
    assert_eq!(
        count(&t.db, "users").await,
        1,
        "{backend:?}: no refused user stored"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sign_in_by_username_finds_any_case_and_fails_alike(#[case] backend: Backend) {
    let t = setup(backend).await;
    let user = t
        .rules
        .sign_up(sign_up("bob@example.com", Some("Bob.B"), None))
        .await
        .map(|signed_up| signed_up.user)
        .unwrap();
    let signed_in = t.usernames.sign_in("BOB.b", PASSWORD).await.unwrap();
    assert_eq!(signed_in.id, user.id);

    for (username, password) in [
        ("bob.b", "wrong-password"),
        ("nobody_here", PASSWORD),
        ("", PASSWORD),
        ("bob.b", ""),
    ] {
        let result = t.usernames.sign_in(username, password).await;
        assert_eq!(
            refused_status(&result),
            401,
            "{backend:?}: {username}/{password}"
        );
        assert_eq!(
            refused(result),
            codes::INVALID_USERNAME_OR_PASSWORD.code(),
            "{backend:?}: the same answer for an unknown username and a wrong password"
        );
    }
    let malformed = t.usernames.sign_in("b!", PASSWORD).await;
    assert_eq!(refused_status(&malformed), 422);
    assert_eq!(refused(malformed), codes::USERNAME_TOO_SHORT.code());
    let long = t.usernames.sign_in("bob.b", &"x".repeat(129)).await;
    assert_eq!(refused(long), base::PASSWORD_TOO_LONG.code());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn availability_ignores_case_and_refuses_invalid_names_with_422(#[case] backend: Backend) {
    let t = setup(backend).await;
    t.rules
        .sign_up(sign_up("carol@example.com", Some("carol"), None))
        .await
        .map(|signed_up| signed_up.user)
        .unwrap();
    assert!(!t.usernames.is_available("CAROL").await.unwrap());
    assert!(t.usernames.is_available("carol2").await.unwrap());
    for (raw, code) in [
        ("", codes::INVALID_USERNAME),
        ("ab", codes::USERNAME_TOO_SHORT),
        ("ca rol", codes::INVALID_USERNAME),
    ] {
        let result = t.usernames.is_available(raw).await;
        assert_eq!(refused_status(&result), 422, "{backend:?}: {raw:?}");
        assert_eq!(refused(result), code.code());
    }
}
