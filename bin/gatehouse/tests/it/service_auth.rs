//! A process that can reach a service's gRPC port but does not hold the deployment's service
//! token can neither create a session for anyone nor try passwords past the gateway's limits.

use gatehouse_kit::client::lazy_channel;
use gatehouse_kit::db::query;
use gatehouse_kit::service_auth::ServiceToken;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::identity::v1::{SignInEmailRequest, SignUpEmailRequest};
use gatehouse_proto::session::v1::CreateSessionRequest;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;
use tonic::Code;
use tonic::transport::{Channel, Endpoint};

use crate::common::{PASSWORD, Stack, unique_email};

fn bare(addr: std::net::SocketAddr) -> Channel {
    Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_lazy()
}

fn sign_up(email: &str) -> SignUpEmailRequest {
    SignUpEmailRequest {
        name: "Mallory".into(),
        email: email.into(),
        password: PASSWORD.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn calls_without_the_right_service_token_are_refused_and_change_nothing() {
    let stack = Stack::start(&[]).await;
    let victim = stack.sign_up(&unique_email()).await;
    let victim_id = victim.json()["user"]["id"].as_str().unwrap().to_string();
    let identity_url = format!("http://{}", stack.identity_addr);
    let session_url = format!("http://{}", stack.session_addr);
    let wrong = ServiceToken::generate();
    let email = unique_email();

    let mut anonymous = EmailPasswordServiceClient::new(bare(stack.identity_addr));
    let mut impostor =
        EmailPasswordServiceClient::new(lazy_channel(&identity_url, &wrong).unwrap());
    for refused in [
        anonymous.sign_up_email(sign_up(&email)).await,
        impostor.sign_up_email(sign_up(&email)).await,
    ] {
        assert_eq!(refused.unwrap_err().code(), Code::Unauthenticated);
    }
    let guess = SignInEmailRequest {
        email: "anyone@example.com".into(),
        password: "guess-123456".into(),
    };
    assert_eq!(
        anonymous.sign_in_email(guess).await.unwrap_err().code(),
        Code::Unauthenticated,
        "no password guessing past the gateway"
    );

    let hijack = CreateSessionRequest {
        user_id: victim_id.clone(),
        ip_address: "203.0.113.66".into(),
        user_agent: "mallory".into(),
        remember_me: true,
        ..Default::default()
    };
    let refused = SessionServiceClient::new(lazy_channel(&session_url, &wrong).unwrap())
        .create_session(hijack.clone())
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    let refused = SessionServiceClient::new(bare(stack.session_addr))
        .create_session(hijack)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);

    let (users,): (i64,) = query("SELECT COUNT(*) FROM users WHERE email = $1")
        .bind(email.as_str())
        .fetch_one(&stack.identity_db().await)
        .await
        .unwrap();
    assert_eq!(users, 0, "no user was created");
    let (sessions,): (i64,) = query("SELECT COUNT(*) FROM sessions WHERE user_id = $1")
        .bind(victim_id.as_str())
        .fetch_one(&stack.session_db().await)
        .await
        .unwrap();
    assert_eq!(sessions, 1, "only the victim's own sign-up session exists");

    let mut gateway_like =
        EmailPasswordServiceClient::new(lazy_channel(&identity_url, &stack.service_token).unwrap());
    let created = gateway_like.sign_up_email(sign_up(&email)).await;
    assert!(
        created.is_ok(),
        "with the token the call works: {created:?}"
    );
}
