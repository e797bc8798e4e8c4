//! What a user is told by mail about their account's security, on both backends: each mail
//! queued with the change it tells of, to the right address, in the user's language.

use std::collections::BTreeMap;
use std::time::Duration;

use gatehouse_identity::admin::Admin;
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::email_verification::{EmailVerification, Settings};
use gatehouse_identity::password_reset::{self, PasswordReset};
use gatehouse_identity::security_notice::events::SessionEvents;
use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::Handler;
use gatehouse_kit::db::{Backend, query};
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{MailKind, MailRequested, SessionNewDevice};
use prost::Message as _;
use rstest::rstest;

use crate::common::{Setup, setup};

const PASSWORD: &str = "Correct-Horse-9";

async fn mails(t: &Setup) -> Vec<MailRequested> {
    let rows: Vec<(Vec<u8>,)> =
        query("SELECT payload FROM outbox WHERE topic = $1 ORDER BY created_at, id")
            .bind("mail.requested")
            .fetch_all(&t.db)
            .await
            .unwrap();
    rows.iter()
        .map(|(payload,)| MailRequested::decode(payload.as_slice()).unwrap())
        .collect()
}

/// A Polish-speaking user (language 15).
async fn a_user(t: &Setup, email: &str) -> String {
    t.rules
        .sign_up(SignUp {
            name: "Rita".into(),
            email: email.into(),
            password: PASSWORD.into(),
            language: Some(15),
            ..Default::default()
        })
        .await
        .unwrap()
        .user
        .id
}

fn params(mail: &MailRequested) -> BTreeMap<&str, &str> {
    mail.params
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_changed_or_reset_password_is_told_and_a_refused_change_tells_nothing(
    #[case] backend: Backend,
) {
    let t = setup(backend).await;
    let id = a_user(&t, "rita@example.com").await;
    assert!(mails(&t).await.is_empty());

    let refused = t
        .accounts
        .change_password(&id, "not-the-password", "Another-Horse-9")
        .await;
    assert!(refused.is_err());
    assert!(mails(&t).await.is_empty(), "a refused change tells nothing");

    t.accounts
        .change_password(&id, PASSWORD, "Another-Horse-9")
        .await
        .unwrap();
    let told = mails(&t).await;
    assert_eq!(told.len(), 1);
    assert_eq!(told[0].kind(), MailKind::PasswordChanged);
    assert_eq!(told[0].to, "rita@example.com");
    assert_eq!(told[0].language, 15);
    assert_eq!(told[0].user_id, id);
    assert_eq!(told[0].link_path, "/forgot-password/");

    let resets = PasswordReset::new(
        t.db.clone(),
        t.rules.clone(),
        password_reset::Settings {
            lifetime: Duration::from_secs(3600),
            revoke_sessions: false,
            default_page: "/reset-password/".into(),
        },
    );
    resets.request("rita@example.com", None).await.unwrap();
    let link = mails(&t).await.pop().unwrap();
    assert_eq!(link.kind(), MailKind::ResetPassword);
    let token = link.link_path.rsplit('/').next().unwrap().to_string();
    let token = token.split('?').next().unwrap();
    resets.reset(token, "Third-Horse-99").await.unwrap();
    let told = mails(&t).await.pop().unwrap();
    assert_eq!(told.kind(), MailKind::PasswordChanged);
    assert_eq!(told.to, "rita@example.com");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_old_address_hears_of_a_new_one(#[case] backend: Backend) {
    let t = setup(backend).await;
    let id = a_user(&t, "rita@example.com").await;
    let verification = EmailVerification::new(t.db.clone(), Settings::default());
    // An unverified address changes at once.
    let (user, changed) = verification
        .change_email(&id, "rita.new@example.com", None)
        .await
        .unwrap();
    assert!(changed);
    assert_eq!(user.email, "rita.new@example.com");
    let told: Vec<_> = mails(&t)
        .await
        .into_iter()
        .filter(|m| m.kind() == MailKind::EmailChanged)
        .collect();
    assert_eq!(told.len(), 1);
    assert_eq!(told[0].to, "rita@example.com", "to the old address");
    assert_eq!(told[0].language, 15);
    assert_eq!(
        params(&told[0]),
        BTreeMap::from([("new_email", "rita.new@example.com")])
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_ban_is_told_with_its_reason_and_how_long_it_lasts(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin_id = a_user(&t, "root@example.com").await;
    let id = a_user(&t, "rita@example.com").await;
    let admin = Admin::new(
        t.db.clone(),
        t.rules.clone(),
        Default::default(),
        crate::common::admin_settings(vec![admin_id.clone()]),
    );
    admin
        .ban_user(
            &admin_id,
            &id,
            Some("Spamming".into()),
            Some(Duration::from_secs(7200)),
        )
        .await
        .unwrap();
    let told = mails(&t).await.pop().unwrap();
    assert_eq!(told.kind(), MailKind::BannedByAdmin);
    assert_eq!(told.to, "rita@example.com");
    assert_eq!(params(&told), BTreeMap::from([("reason", "Spamming")]));
    assert!(
        (7190..=7200).contains(&told.expires_in_seconds),
        "{}",
        told.expires_in_seconds
    );

    admin.unban_user(&admin_id, &id).await.unwrap();
    admin.ban_user(&admin_id, &id, None, None).await.unwrap();
    let told = mails(&t).await.pop().unwrap();
    assert_eq!(told.kind(), MailKind::BannedByAdmin);
    assert_eq!(told.expires_in_seconds, 0, "a ban with no end");
    assert_eq!(params(&told)["reason"], "No reason");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_new_devices_sign_in_mails_its_user_unless_turned_off(#[case] backend: Backend) {
    let t = setup(backend).await;
    let id = a_user(&t, "rita@example.com").await;
    let message = |user_id: &str| Message {
        id: gatehouse_kit::ids::new_id(),
        topic: SessionNewDevice::TOPIC.into(),
        payload: SessionNewDevice {
            session_id: "s1".into(),
            user_id: user_id.into(),
            device: "Firefox, Windows".into(),
            ip_address: "203.0.113.7".into(),
            created_at_unix_ms: 0,
        }
        .encode_to_vec(),
        headers: Default::default(),
    };
    let handle = |handler: SessionEvents, message: Message| {
        let db = t.db.clone();
        async move {
            let mut tx = db.begin().await.unwrap();
            handler.handle(&mut tx, &message).await.unwrap();
            tx.commit().await.unwrap();
        }
    };

    handle(
        SessionEvents {
            mail_new_devices: false,
        },
        message(&id),
    )
    .await;
    assert!(mails(&t).await.is_empty(), "NEW_DEVICE_MAIL=false");

    handle(
        SessionEvents {
            mail_new_devices: true,
        },
        message(&id),
    )
    .await;
    let told = mails(&t).await;
    assert_eq!(told.len(), 1);
    assert_eq!(told[0].kind(), MailKind::NewDeviceSignIn);
    assert_eq!(
        (told[0].to.as_str(), told[0].language),
        ("rita@example.com", 15)
    );
    assert_eq!(told[0].link_path, "/account/");
    assert_eq!(
        params(&told[0]),
        BTreeMap::from([
            ("device", "Firefox, Windows"),
            ("ip_address", "203.0.113.7")
        ])
    );

    // A user deleted in between: nobody to tell, and the event is done with.
    handle(
        SessionEvents {
            mail_new_devices: true,
        },
        message("gone"),
    )
    .await;
    assert_eq!(mails(&t).await.len(), 1);
}
