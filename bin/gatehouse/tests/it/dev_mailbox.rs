//! The dev mailbox (`GET /api/dev/mailbox`): the mailer's log in standalone mode, to loopback
//! clients only, never through a proxy, and not at all when `DEV_MAILBOX` is off.

use crate::common::Stack;

fn mailbox_url(stack: &Stack) -> String {
    stack.base.replace("/api/auth", "/api/dev/mailbox")
}

#[tokio::test]
async fn standalone_serves_its_mail_log_to_loopback_clients_only() {
    let stack = Stack::start(&[]).await;
    let url = mailbox_url(&stack);
    let reply = stack.http.get(&url).send().await.unwrap();
    assert_eq!(reply.status(), 200);
    assert_eq!(
        reply.headers()["cache-control"].to_str().unwrap(),
        "no-store",
        "mails carry live tokens"
    );
    let body: serde_json::Value = reply.json().await.unwrap();
    assert_eq!(body, serde_json::json!({ "mails": [] }));

    // Relayed by a proxy (even one on this host): as if there were no mailbox.
    for header in ["x-forwarded-for", "forwarded", "x-real-ip"] {
        let proxied = stack
            .http
            .get(&url)
            .header(header, "203.0.113.9")
            .send()
            .await
            .unwrap();
        assert_eq!(proxied.status(), 404, "{header}");
    }
    let bad = stack
        .http
        .get(format!("{url}?limit=500"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
}

#[tokio::test]
async fn the_mailbox_is_off_when_dev_mailbox_is_false() {
    let stack = Stack::start(&[("DEV_MAILBOX", "false")]).await;
    let reply = stack.http.get(mailbox_url(&stack)).send().await.unwrap();
    assert_eq!(reply.status(), 404);
}
