//! Password guessing is slowed per account, whatever addresses it comes from, and sign-ins never
//! fill the hashing queue.

use std::time::Duration;

use serde_json::json;

use crate::common::{PASSWORD, Reply, Stack, unique_email};

async fn sign_in_from(stack: &Stack, ip: &str, email: &str, password: &str) -> Reply {
    let request = stack
        .http
        .post(stack.url("/sign-in/email"))
        .header("origin", &stack.origin)
        .header("x-forwarded-for", ip)
        .json(&json!({"email": email, "password": password}));
    Reply::from(request.send().await.unwrap()).await
}

fn retry_after(reply: &Reply) -> u64 {
    reply.headers["x-retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn twenty_guesses_from_twenty_addresses_are_slowed_for_that_account_only() {
    // Behind a trusted proxy every guess comes from a different client address, so the
    // per-IP limit never applies: only the per-account delay can.
    let stack = Stack::start(&[("TRUSTED_PROXIES", "127.0.0.1")]).await;
    let (alice, bob) = (unique_email(), unique_email());
    stack.sign_up(&alice).await;
    stack.sign_up(&bob).await;

    let mut statuses = Vec::new();
    for n in 0..20 {
        let reply = sign_in_from(&stack, &format!("198.51.100.{n}"), &alice, "wrong-guess-1").await;
        if reply.status == 429 {
            assert_eq!(reply.error().0, "TOO_MANY_REQUESTS");
            assert!((1..=30).contains(&retry_after(&reply)));
        }
        statuses.push(reply.status);
    }
    assert_eq!(
        &statuses[..5],
        &[401; 5],
        "five failures are free: {statuses:?}"
    );
    assert!(
        statuses[5..].iter().all(|s| *s == 429),
        "then each attempt waits its turn: {statuses:?}"
    );

    let other = sign_in_from(&stack, "198.51.100.200", &bob, "wrong-guess-1").await;
    assert_eq!(other.status, 401, "another account is not slowed");
    let other = sign_in_from(&stack, "198.51.100.201", &bob, PASSWORD).await;
    assert_eq!(other.status, 200);

    let waiting = sign_in_from(&stack, "198.51.100.202", &alice, PASSWORD).await;
    assert_eq!(
        waiting.status, 429,
        "not even the right password while waiting"
    );
    tokio::time::sleep(Duration::from_millis(retry_after(&waiting) * 1000 + 200)).await;
    let owner = sign_in_from(&stack, "198.51.100.203", &alice, PASSWORD).await;
    assert_eq!(owner.status, 200, "{}", owner.text);
    let after = sign_in_from(&stack, "198.51.100.204", &alice, "wrong-guess-2").await;
    assert_eq!(after.status, 401, "a success starts the count again");
}

#[tokio::test]
async fn unknown_accounts_are_slowed_the_same_way() {
    let stack = Stack::start(&[("TRUSTED_PROXIES", "127.0.0.1")]).await;
    let nobody = unique_email();
    let mut statuses = Vec::new();
    for n in 0..7 {
        let reply = sign_in_from(&stack, &format!("203.0.113.{n}"), &nobody, "guess-123456").await;
        statuses.push(reply.status);
    }
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429, 429]);
}

#[tokio::test]
async fn past_the_budget_sign_ins_get_429_before_any_hash_is_queued() {
    let stack = Stack::start(&[
        ("HASH_POOL_SIZE", "1"),
        ("SIGN_IN_HASH_BUDGET", "1"),
        ("TRUSTED_PROXIES", "127.0.0.1"),
    ])
    .await;
    let attempts = (0..40).map(|n| {
        let stack = &stack;
        async move {
            let email = unique_email();
            sign_in_from(stack, &format!("192.0.2.{n}"), &email, "guess-123456").await
        }
    });
    let replies = futures_util::future::join_all(attempts).await;
    let refused: Vec<&Reply> = replies.iter().filter(|r| r.status == 429).collect();
    assert!(
        replies.iter().all(|r| r.status == 401 || r.status == 429),
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(!refused.is_empty(), "some were refused");
    for reply in refused {
        assert_eq!(reply.error().0, "TOO_MANY_REQUESTS");
        assert!(retry_after(reply) >= 1);
    }
}
