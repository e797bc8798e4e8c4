//! User names refuse control characters from gRPC callers too (the gateway refuses them first,
//! in the same words), on both backends, and a refusal changes nothing.

use crate::common::{count, setup};
use gatehouse_identity::email_password::SignUp;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::Failure;
use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::account_service_server::AccountService;
use gatehouse_proto::identity::v1::admin_service_server::AdminService;
use gatehouse_proto::identity::v1::email_password_service_server::EmailPasswordService;
use rstest::rstest;
use tonic::Request;

fn refused(status: tonic::Status, field: &str) {
    let failure = Failure::from_status(&status);
    assert_eq!(failure.code(), "VALIDATION_ERROR", "{status:?}");
    assert_eq!(
        failure.message(),
        format!("[body.{field}] Invalid string: must not contain control characters")
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_name_with_a_control_character_is_refused_and_changes_nothing(#[case] backend: Backend) {
    let t = setup(backend).await;
    let signed_up = t
        .rules
        .sign_up_email(Request::new(pb::SignUpEmailRequest {
            name: "Ann\r\nBcc: everyone@example.com".into(),
            email: "ann@example.com".into(),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    refused(signed_up, "name");
    assert_eq!(count(&t.db, "users").await, 0, "no user was made");

    let ann = t
        .rules
        .sign_up(SignUp {
            name: "Ann".into(),
            email: "ann@example.com".into(),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .user;
    let update = AccountService::update_user(
        &t.accounts,
        Request::new(pb::UpdateUserRequest {
            user_id: ann.id.clone(),
            name: Some("Ann\tB".into()),
            ..Default::default()
        }),
    )
    .await
    .unwrap_err();
    refused(update, "name");
    let created = AdminService::create_user(
        &t.admin,
        Request::new(pb::CreateUserRequest {
            actor_id: ann.id.clone(),
            email: "bob@example.com".into(),
            name: "Bob \u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\".into(),
            ..Default::default()
        }),
    )
    .await
    .unwrap_err();
    refused(created, "name");
    let edited = AdminService::edit_user(
        &t.admin,
        Request::new(pb::EditUserRequest {
            actor_id: ann.id.clone(),
            user_id: ann.id.clone(),
            data_json: r#"{"name": "Ann\u0085B"}"#.into(),
        }),
    )
    .await
    .unwrap_err();
    refused(edited, "data.name");

    assert_eq!(count(&t.db, "users").await, 1, "only Ann");
    let (name,): (String,) = query("SELECT name FROM users")
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert_eq!(name, "Ann", "her name is as it was");
}
