//! Users as other services read them, on each backend: one at a time, and many in one call
//! (organization member lists), with unknown ids left out and the batch bounded; and as
//! `user.updated` tells them after a change (the organization service's copy of members).

use crate::common::{refused, setup};
use gatehouse_identity::account::ProfileUpdate;
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::user::{MAX_BATCH, User};
use gatehouse_kit::db::{Backend, query};
use gatehouse_proto::events::v1::UserUpdated;
use prost::Message as _;
use rstest::rstest;

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn many_users_are_read_in_one_call(#[case] backend: Backend) {
    let t = setup(backend).await;
    let mut ids = Vec::new();
    for name in ["Ann", "Bob", "Cy"] {
        let signed_up = t
            .rules
            .sign_up(SignUp {
                name: name.into(),
                email: format!("{}@example.com", name.to_lowercase()),
                password: "Correct-Horse-9".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        ids.push(signed_up.user.id);
    }
    let asked = vec![ids[2].clone(), "no-such-user".into(), ids[0].clone()];
    let mut found: Vec<(String, String)> = t
        .users
        .get_many(&asked)
        .await
        .unwrap()
        .into_iter()
        .map(|u| (u.id, u.name))
        .collect();
    found.sort();
    let mut expected = vec![
        (ids[0].clone(), "Ann".to_string()),
        (ids[2].clone(), "Cy".into()),
    ];
    expected.sort();
    assert_eq!(found, expected, "{backend:?}: the known ones, whole");
    assert_eq!(
        t.users.get_many(&[]).await.unwrap().len(),
        0,
        "nothing asked"
    );
    let too_many = vec!["x".to_string(); MAX_BATCH + 1];
    assert_eq!(
        refused(t.users.get_many(&too_many).await),
        "VALIDATION_ERROR"
    );
}

/// What `user.updated` should say of `user`.
fn snapshot(user: &User) -> UserUpdated {
    UserUpdated {
        user_id: user.id.clone(),
        name: user.name.clone(),
        email: user.email.clone(),
        image: user.image.clone(),
        updated_at_unix_ms: user.updated_at.timestamp_millis(),
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn user_updated_carries_the_user_as_changed(#[case] backend: Backend) {
    let t = setup(backend).await;
    let id = t
        .rules
        .sign_up(SignUp {
            name: "Ann".into(),
            email: "ann@example.com".into(),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .user
        .id;
    let update = |update: ProfileUpdate| t.accounts.update_user(&id, update);
    let renamed = update(ProfileUpdate {
        name: Some("Ann B".into()),
        image: Some(Some("https://img.example.com/b.png".into())),
        ..ProfileUpdate::default()
    })
    .await
    .unwrap();
    let cleared = update(ProfileUpdate {
        image: Some(None),
        ..ProfileUpdate::default()
    })
    .await
    .unwrap();
    let before = gatehouse_identity::user::store::get(&t.db, &id)
        .await
        .unwrap()
        .unwrap();
    let moved = gatehouse_identity::user::store::change_email(
        &t.db,
        &id,
        "ann@example.com",
        "ann.b@example.com",
        false,
        None,
        &gatehouse_identity::security_notice::email_changed(&before, "ann.b@example.com"),
    )
    .await
    .unwrap()
    .unwrap();

    let rows: Vec<(Vec<u8>,)> =
        query("SELECT payload FROM outbox WHERE topic = 'user.updated' ORDER BY created_at, id")
            .fetch_all(&t.db)
            .await
            .unwrap();
    let published: Vec<UserUpdated> = rows
        .iter()
        .map(|(payload,)| UserUpdated::decode(payload.as_slice()).unwrap())
        .collect();
    assert_eq!(
        published,
        [snapshot(&renamed), snapshot(&cleared), snapshot(&moved)],
        "{backend:?}: each change with the user as it left it"
    );
    assert_eq!(moved.email, "ann.b@example.com");
    assert!(
        published
            .windows(2)
            .all(|w| w[0].updated_at_unix_ms < w[1].updated_at_unix_ms),
        "{backend:?}: versions grow, however close the changes"
    );
}
