//! Users as other services read them, on each backend: one at a time, and many in one call
//! (organization member lists), with unknown ids left out and the batch bounded.

use crate::common::{refused, setup};
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::user::MAX_BATCH;
use gatehouse_kit::db::Backend;
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
