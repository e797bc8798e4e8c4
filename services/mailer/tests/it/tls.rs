//! SMTP the way a provider runs it: STARTTLS or implicit TLS with a certificate from a private
//! CA (`MAIL_TLS_CA_FILE`), and a login; a wrong password is a permanent failure.

use std::time::Duration;

use gatehouse_kit::db::Backend;
use gatehouse_proto::mailer::v1::MailStatus;

use crate::support::{Mailer, SmtpSink, free_port, private_ca_and_certificate, reset_password};

fn temp_dir(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "gatehouse-mailer-{what}-{}",
        gatehouse_kit::ids::new_id()
    ))
}

#[tokio::test]
async fn starttls_with_a_login_delivers_and_a_wrong_password_is_dead_lettered() {
    let certs = temp_dir("certs");
    let (ca, cert, key) = private_ca_and_certificate(&certs);
    let port = free_port();
    let sink = SmtpSink::start_with(
        port,
        temp_dir("starttls"),
        &["--starttls", &cert, &key, "--auth", "mailer:s3cret-pass"],
    )
    .await;
    let ca = [("MAIL_TLS_CA_FILE", ca.as_str())];

    let wrong = format!("smtp://mailer:wrong-pass@127.0.0.1:{port}?tls=required");
    let refused = Mailer::start_with(Backend::Sqlite, &wrong, &ca).await;
    refused
        .request(reset_password("bo@example.com", "Bo", "tok-2"))
        .await;
    let failed = refused
        .wait_for(MailStatus::Failed, 1, Duration::from_secs(15))
        .await;
    assert!(
        failed[0].last_error.contains("535"),
        "{}",
        failed[0].last_error
    );
    assert!(
        !failed[0].last_error.contains("wrong-pass"),
        "the password is never recorded"
    );

    let good = format!("smtp://mailer:s3cret-pass@127.0.0.1:{port}?tls=required");
    let mailer = Mailer::start_with(Backend::Sqlite, &good, &ca).await;
    mailer
        .request(reset_password("ada@example.com", "Ada", "tok-1"))
        .await;
    let sent = mailer
        .wait_for(MailStatus::Sent, 1, Duration::from_secs(15))
        .await;
    assert_eq!(sent[0].attempts, 1);
    assert_eq!(sink.received().len(), 1);
    assert_eq!(sink.received()[0].to, "ada@example.com");

    assert_eq!(sink.received().len(), 1);
    sink.stop().await;
    let _ = std::fs::remove_dir_all(certs);
}

#[tokio::test]
async fn implicit_tls_delivers_and_an_untrusted_certificate_is_not_accepted() {
    let certs = temp_dir("certs");
    let (ca, cert, key) = private_ca_and_certificate(&certs);
    let port = free_port();
    let sink =
        SmtpSink::start_with(port, temp_dir("smtps"), &["--implicit-tls", &cert, &key]).await;
    let url = format!("smtps://127.0.0.1:{port}");

    let trusting =
        Mailer::start_with(Backend::Sqlite, &url, &[("MAIL_TLS_CA_FILE", ca.as_str())]).await;
    trusting
        .request(reset_password("cy@example.com", "Cy", "tok-3"))
        .await;
    trusting
        .wait_for(MailStatus::Sent, 1, Duration::from_secs(15))
        .await;
    assert_eq!(sink.received().len(), 1);

    // Without the CA the certificate is unknown: no mail goes out over an unverified channel.
    let untrusting = Mailer::start(Backend::Sqlite, &url).await;
    untrusting
        .request(reset_password("di@example.com", "Di", "tok-4"))
        .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let queued = untrusting.mails(MailStatus::Queued).await;
    assert_eq!(queued.len(), 1, "kept for another attempt");
    assert!(queued[0].attempts >= 1 && !queued[0].last_error.is_empty());
    assert_eq!(sink.received().len(), 1);
    sink.stop().await;
    let _ = std::fs::remove_dir_all(certs);
}
