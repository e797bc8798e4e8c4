//! Mailed links on both backends: what is stored (a hash), what is queued with it (one
//! `mail.requested` in the same transaction), and that a link works once, even raced.

use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::email_verification::{EmailVerification, Settings};
use gatehouse_identity::password_reset::{self, PasswordReset};
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_proto::events::v1::{MailKind, MailRequested};
use prost::Message as _;
use rstest::rstest;

use crate::common::{refused, setup};

fn resets(t: &crate::common::Setup) -> PasswordReset {
    PasswordReset::new(
        t.db.clone(),
        t.rules.clone(),
        password_reset::Settings {
            lifetime: std::time::Duration::from_secs(3600),
            revoke_sessions: false,
            default_page: "/reset-password/".into(),
        },
    )
}

async fn mails(db: &Db) -> Vec<MailRequested> {
    let rows: Vec<(Vec<u8>,)> =
        query("SELECT payload FROM outbox WHERE topic = $1 ORDER BY created_at, id")
            .bind("mail.requested")
            .fetch_all(db)
            .await
            .unwrap();
    rows.iter()
        .map(|(payload,)| MailRequested::decode(payload.as_slice()).unwrap())
        .collect()
}

fn token_of(mail: &MailRequested) -> String {
    let url = url::Url::parse(&format!("https://x{}", mail.link_path)).unwrap();
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

async fn links(db: &Db) -> Vec<String> {
    let rows: Vec<(String,)> = query("SELECT token_hash FROM verifications")
        .fetch_all(db)
        .await
        .unwrap();
    rows.into_iter().map(|(hash,)| hash).collect()
}

async fn a_user(t: &crate::common::Setup, email: &str) -> String {
    t.rules
        .sign_up(SignUp {
            name: "Rita".into(),
            email: email.into(),
            password: "Correct-Horse-9".into(),
            language: Some(15),
            ..Default::default()
        })
        .await
        .unwrap()
        .user
        .id
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_reset_link_is_stored_hashed_mailed_with_it_and_replaced_by_a_newer_one(
    #[case] backend: Backend,
) {
    let t = setup(backend).await;
    let resets = resets(&t);
    let user_id = a_user(&t, "rita@example.com").await;

    resets.request("nobody@example.com", None).await.unwrap();
    assert!(links(&t.db).await.is_empty(), "{backend:?}");
    assert!(mails(&t.db).await.is_empty(), "{backend:?}");

    resets
        .request("RITA@example.com", Some("/reset"))
        .await
        .unwrap();
    let first = mails(&t.db).await.remove(0);
    assert_eq!(first.kind(), MailKind::ResetPassword);
    assert_eq!(
        (first.to.as_str(), first.user_id.as_str(), first.language),
        ("rita@example.com", user_id.as_str(), 15)
    );
    assert_eq!(first.expires_in_seconds, 3600);
    let token = token_of(&first);
    assert!(
        first.link_path.starts_with(&format!(
            "/api/auth/reset-password/{token}?callbackURL=%2Freset"
        )),
        "{}",
        first.link_path
    );
    assert_eq!(
        links(&t.db).await,
        vec![gatehouse_kit::ids::sha256_hex(&token)],
        "{backend:?}: only the hash is kept"
    );

    resets.request("rita@example.com", None).await.unwrap();
    let all = mails(&t.db).await;
    assert_eq!((all.len(), links(&t.db).await.len()), (2, 1), "{backend:?}");
    let newer = token_of(&all[1]);
    assert_eq!(refused(resets.check(&token).await), "INVALID_TOKEN");
    assert_eq!(
        refused(resets.reset(&token, "Brand-New-Pass-1").await),
        "INVALID_TOKEN"
    );
    resets.check(&newer).await.unwrap();
    let done = resets.reset(&newer, "Brand-New-Pass-1").await.unwrap();
    assert_eq!(done.user_id, user_id);
    assert!(links(&t.db).await.is_empty(), "{backend:?}: used up");
    t.rules
        .sign_in("rita@example.com", "Brand-New-Pass-1")
        .await
        .unwrap();
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn two_resets_racing_with_one_link_succeed_once(#[case] backend: Backend) {
    let t = setup(backend).await;
    let resets = resets(&t);
    a_user(&t, "race@example.com").await;
    resets.request("race@example.com", None).await.unwrap();
    let token = token_of(&mails(&t.db).await[0]);
    let (a, b) = tokio::join!(
        resets.reset(&token, "First-Pass-111"),
        resets.reset(&token, "Second-Pass-222")
    );
    let won: Vec<bool> = [a.is_ok(), b.is_ok()].into();
    assert_eq!(
        won.iter().filter(|ok| **ok).count(),
        1,
        "{backend:?}: exactly one reset may use the link"
    );
    let winner = if won[0] {
        "First-Pass-111"
    } else {
        "Second-Pass-222"
    };
    t.rules.sign_in("race@example.com", winner).await.unwrap();
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn verification_links_expire_and_are_swept_later(#[case] backend: Backend) {
    let t = setup(backend).await;
    let verification = EmailVerification::new(t.db.clone(), Settings::default());
    let user_id = a_user(&t, "vic@example.com").await;
    verification
        .send("vic@example.com", Some(&user_id), Some("/done"))
        .await
        .unwrap();
    let mail = mails(&t.db).await.remove(0);
    assert_eq!(mail.kind(), MailKind::VerifyEmail);
    assert!(
        mail.link_path.ends_with("&callbackURL=%2Fdone"),
        "{}",
        mail.link_path
    );
    let token = token_of(&mail);

    let an_hour_ago = gatehouse_kit::ids::now() - chrono::Duration::hours(1);
    query("UPDATE verifications SET expires_at = $1")
        .bind(an_hour_ago)
        .execute(&t.db)
        .await
        .unwrap();
    assert_eq!(
        refused(
            verification
                .verify(&token, None, None)
                .await
                .map(|v| v.user)
        ),
        "TOKEN_EXPIRED"
    );
    // Swept once expired for longer than the cut-off: then it is no link at all.
    let swept = gatehouse_identity::verification::store::delete_expired(
        &t.db,
        an_hour_ago - chrono::Duration::seconds(1),
    )
    .await
    .unwrap();
    assert_eq!(swept, 0, "{backend:?}: not yet");
    let swept =
        gatehouse_identity::verification::store::delete_expired(&t.db, gatehouse_kit::ids::now())
            .await
            .unwrap();
    assert_eq!(swept, 1, "{backend:?}");
    assert_eq!(
        refused(
            verification
                .verify(&token, None, None)
                .await
                .map(|v| v.user)
        ),
        "INVALID_TOKEN"
    );
    let user = t.users.get(&user_id).await.unwrap();
    assert!(!user.email_verified, "{backend:?}");
}
