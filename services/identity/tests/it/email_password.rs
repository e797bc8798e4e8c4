//! Sign-up and sign-in rules and their store, on SQLite and on PostgreSQL.

use crate::common::{count, refused, setup};
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::email_password::store::{self, CreateError, NewUser};
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::{ErrorCode, base};
use gatehouse_proto::events::v1::UserCreated;
use prost::Message as _;
use rstest::rstest;

fn code(c: ErrorCode) -> String {
    c.code().to_string()
}

fn sign_up(email: &str, password: &str) -> SignUp {
    SignUp {
        name: "Alice".into(),
        email: email.into(),
        password: password.into(),
        image: None,
        username: None,
        display_username: None,
        ..Default::default()
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sign_up_stores_a_lowercased_user_a_credential_and_an_event(#[case] backend: Backend) {
    {
        let t = setup(backend).await;
        let user = t
            .rules
            .sign_up(sign_up("Alice@Example.COM", "Correct-Horse-9"))
            .await
            .map(|signed_up| signed_up.user)
            .unwrap_or_else(|e| panic!("{backend:?}: {e:?}"));
        assert_eq!(user.email, "alice@example.com", "{backend:?}");
        assert!(!user.email_verified, "{backend:?}");
        assert_eq!(user.id.len(), 32);
        assert_eq!(user.created_at, user.updated_at);

        let db = &t.db;
        assert_eq!(count(db, "accounts").await, 1, "{backend:?}");
        assert_eq!(
            count(db, "outbox").await,
            1,
            "{backend:?}: user.created waits in the outbox"
        );
        let (topic, payload): (String, Vec<u8>) = query("SELECT topic, payload FROM outbox")
            .fetch_one(db)
            .await
            .unwrap();
        assert_eq!(topic, "user.created");
        let event = UserCreated::decode(payload.as_slice()).unwrap();
        assert_eq!(event.user_id, user.id);
        assert_eq!(event.email, "alice@example.com");
        assert_eq!(event.created_at_unix_ms, user.created_at.timestamp_millis());
        assert!(
            !String::from_utf8_lossy(&payload).contains("argon2"),
            "no hash leaves the service"
        );

        let stored = t.users.get(&user.id).await.ok();
        assert_eq!(
            stored,
            Some(user.clone()),
            "{backend:?}: round trip keeps every field"
        );
        let credential = store::find_credential(&t.db, store::By::Email("alice@example.com"))
            .await
            .unwrap()
            .unwrap();
        assert!(
            credential
                .password_hash
                .unwrap()
                .starts_with("$argon2id$v=19$m=19456,t=2,p=1$")
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn duplicate_emails_are_refused_in_any_case(#[case] backend: Backend) {
    {
        let t = setup(backend).await;
        t.rules
            .sign_up(sign_up("bob@example.com", "Correct-Horse-9"))
            .await
            .map(|signed_up| signed_up.user)
            .unwrap();
        let again = t
            .rules
            .sign_up(sign_up("BOB@example.com", "Another-Pass-9"))
            .await
            .map(|signed_up| signed_up.user);
        assert_eq!(
            refused(again),
            code(base::USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL),
            "{backend:?}"
        );
        let db = &t.db;
        assert_eq!(count(db, "users").await, 1, "{backend:?}");
        assert_eq!(
            count(db, "accounts").await,
            1,
            "{backend:?}: nothing half-written"
        );
        assert_eq!(
            count(db, "outbox").await,
            1,
            "{backend:?}: no event for the refused sign-up"
        );
        let direct = store::create_user(
            &t.db,
            NewUser {
                name: "B".into(),
                email: "bob@example.com".into(),
                image: None,
                username: None,
                display_username: None,
                language: 3,
            },
            "x",
        )
        .await;
        assert!(
            matches!(direct, Err(CreateError::EmailTaken)),
            "{backend:?}"
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn bad_sign_ups_write_nothing(#[case] backend: Backend) {
    {
        let t = setup(backend).await;
        let cases = [
            (
                sign_up("not-an-email", "Correct-Horse-9"),
                base::INVALID_EMAIL,
            ),
            (sign_up("c@example.com", "short"), base::PASSWORD_TOO_SHORT),
            (
                sign_up("c@example.com", &"x".repeat(129)),
                base::PASSWORD_TOO_LONG,
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(
                refused(
                    t.rules
                        .sign_up(request)
                        .await
                        .map(|signed_up| signed_up.user)
                ),
                code(expected),
                "{backend:?}"
            );
        }
        assert_eq!(count(&t.db, "users").await, 0, "{backend:?}");
        assert_eq!(count(&t.db, "outbox").await, 0, "{backend:?}");
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn sign_in_checks_the_password_and_hides_which_part_was_wrong(#[case] backend: Backend) {
    {
        let t = setup(backend).await;
        let user = t
            .rules
            .sign_up(sign_up("dora@example.com", "Correct-Horse-9"))
            .await
            .map(|signed_up| signed_up.user)
            .unwrap();
        let ok = t.rules.sign_in("DORA@example.com", "Correct-Horse-9").await;
        assert_eq!(ok.unwrap().id, user.id, "{backend:?}");
        assert_eq!(
            refused(t.rules.sign_in("dora@example.com", "wrong-password").await),
            code(base::INVALID_EMAIL_OR_PASSWORD)
        );
        assert_eq!(
            refused(
                t.rules
                    .sign_in("nobody@example.com", "Correct-Horse-9")
                    .await
            ),
            code(base::INVALID_EMAIL_OR_PASSWORD),
            "unknown emails answer exactly like wrong passwords"
        );
        assert_eq!(
            refused(t.rules.sign_in("nope", "x").await),
            code(base::INVALID_EMAIL)
        );
        assert_eq!(
            refused(t.rules.sign_in("dora@example.com", &"x".repeat(129)).await),
            code(base::PASSWORD_TOO_LONG)
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn imported_better_auth_scrypt_hashes_sign_in_and_are_upgraded(#[case] backend: Backend) {
    // Made by the real better-auth 1.7.7: hashPassword("password123").
    const SCRYPT: &str = "154735a709dc6fb14a8a10fae3290957:2b067f70347727497f9d3232079e135d9d61fa1dccd7c8e8748092c80f0f1d916affaa59d8aa5892c9727bdca6b5967989ee4e48d9205523ce9983a364d508ba";
    {
        let t = setup(backend).await;
        let user = store::create_user(
            &t.db,
            NewUser {
                name: "Imported".into(),
                email: "old@example.com".into(),
                image: None,
                username: None,
                display_username: None,
                language: 3,
            },
            SCRYPT,
        )
        .await
        .unwrap();
        let signed_in = t.rules.sign_in("old@example.com", "password123").await;
        assert_eq!(signed_in.unwrap().id, user.id, "{backend:?}");
        let credential = store::find_credential(&t.db, store::By::Email("old@example.com"))
            .await
            .unwrap()
            .unwrap();
        let upgraded = credential.password_hash.unwrap();
        assert!(
            upgraded.starts_with("$argon2id$"),
            "{backend:?}: re-hashed, got {upgraded}"
        );
        assert!(
            t.rules
                .sign_in("old@example.com", "password123")
                .await
                .is_ok()
        );
        assert_eq!(
            refused(t.rules.sign_in("old@example.com", "password124").await),
            code(base::INVALID_EMAIL_OR_PASSWORD)
        );
    }
}
