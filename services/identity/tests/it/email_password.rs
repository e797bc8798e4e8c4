//! The identity store and rules, on SQLite and on PostgreSQL.

use gatehouse_identity::MIGRATIONS;
use gatehouse_identity::domain::{Identity, SignUp};
use gatehouse_identity::password::Hasher;
use gatehouse_identity::store::{IdentityStore, NewUser, StoreError};
use gatehouse_kit::db::Db;
use gatehouse_kit::outbox::OutboxSignal;
use gatehouse_kit::testing::fresh_databases;
use gatehouse_kit::{ErrorCode, with_db};

async fn identity_on(url: &str) -> Identity {
    let db = Db::connect(url, 4, &MIGRATIONS).await.expect("database");
    Identity::new(
        IdentityStore::new(db, OutboxSignal::default()),
        Hasher::new(2, 64),
        8,
        128,
    )
}

async fn count(db: &Db, table: &str) -> i64 {
    let sql = match table {
        "users" => "SELECT COUNT(*) FROM users",
        "accounts" => "SELECT COUNT(*) FROM accounts",
        _ => "SELECT COUNT(*) FROM outbox WHERE published_at IS NULL",
    };
    with_db!(db, pool => sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await).expect("count")
}

fn sign_up(email: &str, password: &str) -> SignUp {
    SignUp {
        name: "Alice".into(),
        email: email.into(),
        password: password.into(),
        image: None,
    }
}

#[tokio::test]
async fn sign_up_stores_a_lowercased_user_a_credential_and_an_event() {
    for (backend, url) in fresh_databases().await {
        let identity = identity_on(&url).await;
        let user = identity
            .sign_up_email(sign_up("Alice@Example.COM", "Correct-Horse-9"))
            .await
            .unwrap_or_else(|e| panic!("{backend:?}: {e:?}"));
        assert_eq!(user.email, "alice@example.com", "{backend:?}");
        assert!(!user.email_verified, "{backend:?}");
        assert_eq!(user.id.len(), 32);
        assert_eq!(user.created_at, user.updated_at);

        let db = identity.store().db();
        assert_eq!(count(db, "accounts").await, 1, "{backend:?}");
        assert_eq!(
            count(db, "outbox").await,
            1,
            "{backend:?}: user.created waits in the outbox"
        );
        let (topic, payload): (String, String) = with_db!(db, pool => sqlx::query_as(
            "SELECT topic, payload FROM outbox").fetch_one(pool).await)
        .unwrap();
        assert_eq!(topic, "user.created");
        let payload: serde_json::Value = serde_json::from_str(&payload).unwrap();
        assert_eq!(payload["type"], "user.created");
        assert_eq!(payload["data"]["id"], user.id.as_str());
        assert_eq!(payload["data"]["email"], "alice@example.com");
        assert!(
            !payload.to_string().contains("argon2"),
            "no hash leaves the service"
        );

        let stored = identity.store().get_user(&user.id).await.unwrap();
        assert_eq!(
            stored,
            Some(user.clone()),
            "{backend:?}: round trip keeps every field"
        );
        let credential = identity
            .store()
            .find_credential("alice@example.com")
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

#[tokio::test]
async fn duplicate_emails_are_refused_in_any_case() {
    for (backend, url) in fresh_databases().await {
        let identity = identity_on(&url).await;
        identity
            .sign_up_email(sign_up("bob@example.com", "Correct-Horse-9"))
            .await
            .unwrap();
        let again = identity
            .sign_up_email(sign_up("BOB@example.com", "Another-Pass-9"))
            .await;
        assert_eq!(
            again,
            Err(ErrorCode::UserAlreadyExistsUseAnotherEmail),
            "{backend:?}"
        );
        let db = identity.store().db();
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
        let direct = identity
            .store()
            .create_user_with_password(
                NewUser {
                    name: "B".into(),
                    email: "bob@example.com".into(),
                    image: None,
                },
                "x".into(),
            )
            .await;
        assert!(matches!(direct, Err(StoreError::EmailTaken)), "{backend:?}");
    }
}

#[tokio::test]
async fn bad_sign_ups_write_nothing() {
    for (backend, url) in fresh_databases().await {
        let identity = identity_on(&url).await;
        let cases = [
            (
                sign_up("not-an-email", "Correct-Horse-9"),
                ErrorCode::InvalidEmail,
            ),
            (
                sign_up("c@example.com", "short"),
                ErrorCode::PasswordTooShort,
            ),
            (
                sign_up("c@example.com", &"x".repeat(129)),
                ErrorCode::PasswordTooLong,
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(
                identity.sign_up_email(request).await,
                Err(expected),
                "{backend:?}"
            );
        }
        assert_eq!(
            count(identity.store().db(), "users").await,
            0,
            "{backend:?}"
        );
        assert_eq!(
            count(identity.store().db(), "outbox").await,
            0,
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn sign_in_checks_the_password_and_hides_which_part_was_wrong() {
    for (backend, url) in fresh_databases().await {
        let identity = identity_on(&url).await;
        let user = identity
            .sign_up_email(sign_up("dora@example.com", "Correct-Horse-9"))
            .await
            .unwrap();
        let ok = identity
            .sign_in_email("DORA@example.com", "Correct-Horse-9")
            .await;
        assert_eq!(ok.map(|u| u.id), Ok(user.id.clone()), "{backend:?}");
        assert_eq!(
            identity
                .sign_in_email("dora@example.com", "wrong-password")
                .await,
            Err(ErrorCode::InvalidEmailOrPassword)
        );
        assert_eq!(
            identity
                .sign_in_email("nobody@example.com", "Correct-Horse-9")
                .await,
            Err(ErrorCode::InvalidEmailOrPassword),
            "unknown emails answer exactly like wrong passwords"
        );
        assert_eq!(
            identity.sign_in_email("nope", "x").await,
            Err(ErrorCode::InvalidEmail)
        );
        assert_eq!(
            identity
                .sign_in_email("dora@example.com", &"x".repeat(129))
                .await,
            Err(ErrorCode::PasswordTooLong)
        );
    }
}

#[tokio::test]
async fn imported_better_auth_scrypt_hashes_sign_in_and_are_upgraded() {
    // Made by the real better-auth 1.7.7: hashPassword("password123").
    const SCRYPT: &str = "154735a709dc6fb14a8a10fae3290957:2b067f70347727497f9d3232079e135d9d61fa1dccd7c8e8748092c80f0f1d916affaa59d8aa5892c9727bdca6b5967989ee4e48d9205523ce9983a364d508ba";
    for (backend, url) in fresh_databases().await {
        let identity = identity_on(&url).await;
        let user = identity
            .store()
            .create_user_with_password(
                NewUser {
                    name: "Imported".into(),
                    email: "old@example.com".into(),
                    image: None,
                },
                SCRYPT.into(),
            )
            .await
            .unwrap();
        let signed_in = identity
            .sign_in_email("old@example.com", "password123")
            .await;
        assert_eq!(signed_in.map(|u| u.id), Ok(user.id), "{backend:?}");
        let credential = identity
            .store()
            .find_credential("old@example.com")
            .await
            .unwrap()
            .unwrap();
        let upgraded = credential.password_hash.unwrap();
        assert!(
            upgraded.starts_with("$argon2id$"),
            "{backend:?}: re-hashed, got {upgraded}"
        );
        assert!(
            identity
                .sign_in_email("old@example.com", "password123")
                .await
                .is_ok()
        );
        assert_eq!(
            identity
                .sign_in_email("old@example.com", "password124")
                .await,
            Err(ErrorCode::InvalidEmailOrPassword)
        );
    }
}
