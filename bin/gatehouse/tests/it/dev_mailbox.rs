//! The dev mailbox (`GET /api/dev/mailbox`): the mailer's log when `DEV_MAILBOX` is on (the
//! run command's choice, never a default), to loopback clients naming a loopback host only,
//! never through a proxy.

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
    // A request naming another host reached the loopback port: a page whose name was
    // rebound to 127.0.0.1 (DNS rebinding), or a same-host proxy that adds no forwarding
    // header. It gets nothing.
    for host in [
        "rebind.attacker.example",
        "rebind.attacker.example:3000",
        "localhost.attacker.example",
    ] {
        let rebound = stack
            .http
            .get(&url)
            .header("host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(rebound.status(), 404, "{host}");
    }
    let named = stack
        .http
        .get(url.replace("127.0.0.1", "localhost"))
        .send()
        .await
        .unwrap();
    assert_eq!(named.status(), 200, "localhost names this machine");
    let bad = stack
        .http
        .get(format!("{url}?limit=500"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
}

#[tokio::test]
async fn standalone_has_no_mailbox_unless_dev_mailbox_is_set() {
    // Every standalone setting but DEV_MAILBOX as the tests give it.
    let stack = Stack::start(&[("DEV_MAILBOX", "")]).await;
    let reply = stack.http.get(mailbox_url(&stack)).send().await.unwrap();
    assert_eq!(
        reply.status(),
        404,
        "off unless the run command turns it on"
    );
}

#[tokio::test]
async fn the_mailbox_is_off_when_dev_mailbox_is_false() {
    let stack = Stack::start(&[("DEV_MAILBOX", "false")]).await;
    let reply = stack.http.get(mailbox_url(&stack)).send().await.unwrap();
    assert_eq!(reply.status(), 404);
}
