//! API keys on each backend: what is stored (the hash only), the checks of a key's use in the
//! plugin's order, limits that hold under concurrent use, and the owner's list and changes.

use std::time::Duration;

use crate::common::{count, refused, refused_status, setup};
use gatehouse_identity::api_key::{self, ApiKeys, KeyUpdate, Limits, NewKey, Settings, Sort};
use gatehouse_identity::email_password::SignUp;
use gatehouse_kit::cache::Cache;
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_kit::errors::api_key as codes;
use rstest::rstest;

struct Keys {
    keys: ApiKeys,
    db: Db,
    user_id: String,
    _setup: crate::common::Setup,
}

async fn keys(backend: Backend) -> Keys {
    keys_with(backend, Settings::default()).await
}

async fn keys_with(backend: Backend, settings: Settings) -> Keys {
    let t = setup(backend).await;
    let user_id = sign_up(&t, "owner@example.com").await;
    let cache = Cache::from_url("memory://", Duration::from_millis(100)).unwrap();
    Keys {
        keys: ApiKeys::new(t.db.clone(), cache, settings),
        db: t.db.clone(),
        user_id,
        _setup: t,
    }
}

async fn sign_up(t: &crate::common::Setup, email: &str) -> String {
    t.rules
        .sign_up(SignUp {
            name: "Owner".into(),
            email: email.into(),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .user
        .id
}

fn new_key(user_id: &str) -> NewKey {
    NewKey {
        user_id: user_id.into(),
        name: Some("deploy".into()),
        ..Default::default()
    }
}

async fn outbox_topics(db: &Db) -> Vec<String> {
    let rows: Vec<(String,)> = query("SELECT topic FROM outbox ORDER BY created_at, id")
        .fetch_all(db)
        .await
        .unwrap();
    rows.into_iter().map(|(t,)| t).collect()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn only_the_hash_is_stored_and_the_key_works(#[case] backend: Backend) {
    let t = keys(backend).await;
    let (row, key) = t
        .keys
        .create(NewKey {
            prefix: Some("gh_".into()),
            ..new_key(&t.user_id)
        })
        .await
        .unwrap();
    assert!(key.starts_with("gh_") && key.len() == 3 + 64, "{key}");
    assert!(key[3..].bytes().all(|b| b.is_ascii_alphabetic()));
    assert_eq!(row.start.as_deref(), Some(&key[..6]));
    assert_eq!(row.reference_id, t.user_id);
    assert!(row.rate_limit_enabled && row.remaining.is_none(), "{row:?}");
    let (stored,): (String,) = query("SELECT key_hash FROM api_keys WHERE id = $1")
        .bind(row.id.clone())
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert_eq!(stored, api_key::hash(&key));
    assert_ne!(stored, key);
    assert!(
        outbox_topics(&t.db)
            .await
            .contains(&"api-key.created".into())
    );

    let (used, user) = t.keys.verify(&key, None).await.unwrap();
    assert_eq!(
        (used.id.as_str(), user.unwrap().id.as_str()),
        (row.id.as_str(), t.user_id.as_str())
    );
    assert_eq!(used.request_count, 1);
    assert!(used.last_request.is_some(), "the first use is recorded");
    let listed = t.keys.get(&t.user_id, &row.id).await.unwrap();
    assert!(listed.last_request.is_some());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn refusals_come_in_the_plugins_order(#[case] backend: Backend) {
    let t = keys(backend).await;
    let unknown = "Z".repeat(64);
    let result = t.keys.verify(&unknown, None).await;
    assert_eq!(refused_status(&result), 401);
    assert_eq!(refused(result), codes::INVALID_API_KEY.code());

    let (row, key) = t.keys.create(new_key(&t.user_id)).await.unwrap();
    t.keys
        .update(
            &t.user_id,
            &row.id,
            KeyUpdate {
                enabled: Some(false),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        refused(t.keys.verify(&key, None).await),
        codes::KEY_DISABLED.code()
    );

    let (expiring, expiring_key) = t.keys.create(new_key(&t.user_id)).await.unwrap();
    query("UPDATE api_keys SET expires_at = $1 WHERE id = $2")
        .bind(gatehouse_kit::ids::now() - chrono::Duration::seconds(1))
        .bind(expiring.id.clone())
        .execute(&t.db)
        .await
        .unwrap();
    let result = t.keys.verify(&expiring_key, None).await;
    assert_eq!(refused_status(&result), 401);
    assert_eq!(refused(result), codes::KEY_EXPIRED.code());
    assert!(
        t.keys.get(&t.user_id, &expiring.id).await.is_err(),
        "an expired key is deleted once seen"
    );
    assert!(
        outbox_topics(&t.db)
            .await
            .contains(&"api-key.revoked".into())
    );

    let (_, live) = t.keys.create(new_key(&t.user_id)).await.unwrap();
    query("UPDATE users SET banned = TRUE WHERE id = $1")
        .bind(t.user_id.clone())
        .execute(&t.db)
        .await
        .unwrap();
    assert_eq!(
        refused(t.keys.verify(&live, None).await),
        codes::USER_BANNED.code(),
        "a banned user's keys stop at once"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_unknown_key_is_not_looked_up_twice_in_a_row(#[case] backend: Backend) {
    let t = keys(backend).await;
    let made_up = "Q".repeat(64);
    assert!(t.keys.verify(&made_up, None).await.is_err());
    // The same key appears in the table behind the cache's back: within the TTL the answer
    // still comes from the negative cache, which is what spares the database a flood.
    let (row, _) = t.keys.create(new_key(&t.user_id)).await.unwrap();
    query("UPDATE api_keys SET key_hash = $1 WHERE id = $2")
        .bind(api_key::hash(&made_up))
        .bind(row.id.clone())
        .execute(&t.db)
        .await
        .unwrap();
    assert_eq!(
        refused(t.keys.verify(&made_up, None).await),
        codes::INVALID_API_KEY.code()
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn remaining_uses_are_exact_under_concurrent_use_and_refill(#[case] backend: Backend) {
    let t = keys(backend).await;
    let (_, key) = t
        .keys
        .create(NewKey {
            limits: Limits {
                remaining: Some(5),
                ..Default::default()
            },
            ..new_key(&t.user_id)
        })
        .await
        .unwrap();
    let attempts = (0..20).map(|_| {
        let keys = t.keys.clone();
        let key = key.clone();
        tokio::spawn(async move { keys.verify(&key, None).await })
    });
    let mut allowed = 0;
    for attempt in attempts {
        match attempt.await.unwrap() {
            Ok(_) => allowed += 1,
            Err(error) => assert_eq!(refused(Err::<(), _>(error)), codes::USAGE_EXCEEDED.code()),
        }
    }
    assert_eq!(allowed, 5, "{backend:?}: exactly the remaining uses");
    let result = t.keys.verify(&key, None).await;
    assert_eq!(refused_status(&result), 429);

    let (refilling, refill_key) = t
        .keys
        .create(NewKey {
            limits: Limits {
                remaining: Some(1),
                refill_amount: Some(2),
                refill_interval_ms: Some(300),
                ..Default::default()
            },
            ..new_key(&t.user_id)
        })
        .await
        .unwrap();
    t.keys.verify(&refill_key, None).await.unwrap();
    assert!(t.keys.verify(&refill_key, None).await.is_err());
    tokio::time::sleep(Duration::from_millis(350)).await;
    let (after, _) = t.keys.verify(&refill_key, None).await.unwrap();
    assert_eq!(after.remaining, Some(1), "refilled to 2, one used");
    t.keys.verify(&refill_key, None).await.unwrap();
    assert!(t.keys.verify(&refill_key, None).await.is_err());
    let stored = t.keys.get(&t.user_id, &refilling.id).await.unwrap();
    assert_eq!(stored.remaining, Some(0));
    assert!(stored.last_refill_at.is_some());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_rate_limit_counts_each_use_once_and_says_how_long_to_wait(#[case] backend: Backend) {
    let t = keys(backend).await;
    let (_, key) = t
        .keys
        .create(NewKey {
            limits: Limits {
                rate_limit_time_window_ms: Some(60_000),
                rate_limit_max: Some(3),
                ..Default::default()
            },
            ..new_key(&t.user_id)
        })
        .await
        .unwrap();
    for n in 1..=3 {
        let (used, _) = t.keys.verify(&key, None).await.unwrap();
        assert_eq!(used.request_count, n);
    }
    match t.keys.verify(&key, None).await {
        Err(gatehouse_identity::error::IdentityError::Refused(failure)) => {
            assert_eq!(failure.code(), "RATE_LIMITED");
            assert_eq!(failure.message(), "Rate limit exceeded.");
            let wait = failure.try_again_in_ms().unwrap();
            assert!(wait > 55_000 && wait <= 60_000, "{wait}");
        }
        other => panic!("expected RATE_LIMITED, got {other:?}"),
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn creation_bounds_are_checked_in_order(#[case] backend: Backend) {
    let t = keys_with(
        backend,
        Settings {
            metadata: false,
            ..Settings::default()
        },
    )
    .await;
    let attempt = |change: fn(&mut NewKey)| {
        let mut key = new_key(&t.user_id);
        change(&mut key);
        t.keys.create(key)
    };
    type Change = fn(&mut NewKey);
    let cases: [(Change, &str); 7] = [
        (
            |k| k.expires_in_secs = Some(86_399.0),
            "EXPIRES_IN_IS_TOO_SMALL",
        ),
        (
            |k| k.expires_in_secs = Some(365.0 * 86_400.0 + 1.0),
            "EXPIRES_IN_IS_TOO_LARGE",
        ),
        (|k| k.prefix = Some("p".repeat(33)), "INVALID_PREFIX_LENGTH"),
        (|k| k.name = Some("n".repeat(33)), "INVALID_NAME_LENGTH"),
        (
            |k| k.metadata = Some(r#"{"a":1}"#.into()),
            "METADATA_DISABLED",
        ),
        (
            |k| {
                k.limits.refill_interval_ms = Some(1000);
            },
            "REFILL_AMOUNT_AND_INTERVAL_REQUIRED",
        ),
        (
            |k| {
                k.name = Some("n".repeat(33));
                k.expires_in_secs = Some(5.0);
            },
            "EXPIRES_IN_IS_TOO_SMALL",
        ),
    ];
    for (change, code) in cases {
        assert_eq!(refused(attempt(change).await), code);
    }
    assert_eq!(count_keys(&t.db).await, 0, "nothing was stored");
    // Falsy metadata is no metadata, even with metadata off (better-auth reads it so).
    let (row, _) = attempt(|k| k.metadata = Some("null".into())).await.unwrap();
    assert_eq!(row.metadata, None);
    let (row, _) = attempt(|k| k.expires_in_secs = Some(86_400.0))
        .await
        .unwrap();
    assert!(row.expires_at.is_some());
}

async fn count_keys(db: &Db) -> i64 {
    let (n,): (i64,) = query("SELECT COUNT(*) FROM api_keys")
        .fetch_one(db)
        .await
        .unwrap();
    n
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn owners_list_change_and_delete_only_their_keys(#[case] backend: Backend) {
    let t = keys(backend).await;
    for name in ["b", "a", "c"] {
        t.keys
            .create(NewKey {
                name: Some(name.into()),
                metadata: Some(r#"{"team":"ops"}"#.into()),
                ..new_key(&t.user_id)
            })
            .await
            .unwrap();
    }
    let sort = Some(Sort {
        column: "name",
        descending: true,
    });
    let (page, total) = t
        .keys
        .list(&t.user_id, sort, Some(2), Some(0))
        .await
        .unwrap();
    let names: Vec<_> = page.iter().map(|k| k.name.clone().unwrap()).collect();
    assert_eq!((names, total), (vec!["c".to_string(), "b".into()], 3));
    let (rest, _) = t
        .keys
        .list(&t.user_id, sort, Some(2), Some(2))
        .await
        .unwrap();
    assert_eq!(rest.len(), 1);

    let key = &page[0];
    assert_eq!(key.metadata.as_deref(), Some(r#"{"team":"ops"}"#));
    let nothing = t
        .keys
        .update(&t.user_id, &key.id, KeyUpdate::default())
        .await;
    assert_eq!(refused(nothing), codes::NO_VALUES_TO_UPDATE.code());
    let empty_name = t
        .keys
        .update(
            &t.user_id,
            &key.id,
            KeyUpdate {
                name: Some(String::new()),
                ..Default::default()
            },
        )
        .await;
    assert_eq!(refused(empty_name), codes::INVALID_NAME_LENGTH.code());
    let renamed = t
        .keys
        .update(
            &t.user_id,
            &key.id,
            KeyUpdate {
                name: Some("renamed".into()),
                expires_in_secs: Some(Some(2.0 * 86_400.0)),
                metadata: Some("null".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(renamed.name.as_deref(), Some("renamed"));
    assert!(renamed.expires_at.is_some() && renamed.metadata.is_none());

    // Another user sees none of them.
    let stranger = sign_up(&t._setup, "stranger@example.com").await;
    assert_eq!(
        refused(t.keys.get(&stranger, &key.id).await),
        codes::KEY_NOT_FOUND.code()
    );
    assert_eq!(
        refused(t.keys.delete(&stranger, &key.id).await),
        codes::KEY_NOT_FOUND.code()
    );
    let renaming = t
        .keys
        .update(
            &stranger,
            &key.id,
            KeyUpdate {
                name: Some("mine".into()),
                ..Default::default()
            },
        )
        .await;
    assert_eq!(refused_status(&renaming), 404);
    assert_eq!(t.keys.list(&stranger, None, None, None).await.unwrap().1, 0);

    t.keys.delete(&t.user_id, &key.id).await.unwrap();
    assert_eq!(
        t.keys.list(&t.user_id, None, None, None).await.unwrap().1,
        2
    );
    // The owner's deletion takes the rest, each with its event.
    let before = count(&t.db, "outbox").await;
    assert!(
        gatehouse_identity::user::store::delete(&t.db, &t.user_id)
            .await
            .unwrap()
    );
    assert_eq!(count_keys(&t.db).await, 0);
    assert_eq!(
        count(&t.db, "outbox").await,
        before + 3,
        "two revocations and user.deleted"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_organizations_keys_are_its_own_and_no_ones_session(#[case] backend: Backend) {
    let t = keys(backend).await;
    let organization_id = "org_0123456789abcdefghijklmnopqrstu";
    let (row, key) = t
        .keys
        .create(NewKey {
            organization_id: Some(organization_id.into()),
            config_id: Some("org".into()),
            ..new_key(&t.user_id)
        })
        .await
        .unwrap();
    assert_eq!(
        (row.reference_id.as_str(), row.config_id.as_str()),
        (organization_id, "org")
    );
    assert!(row.organization_owned());
    assert_eq!(
        t.keys.owner(&row.id).await.unwrap(),
        (organization_id.to_string(), true)
    );
    assert_eq!(
        t.keys.list(&t.user_id, None, None, None).await.unwrap().1,
        0
    );
    assert_eq!(
        t.keys
            .list(organization_id, None, None, None)
            .await
            .unwrap()
            .1,
        1
    );
    let (_, owner) = t.keys.verify(&key, None).await.unwrap();
    assert!(owner.is_none(), "an organization's key names no user");

    // Its deletion (the organization's event) takes the key with an api-key.revoked.
    let mut tx = t.db.begin().await.unwrap();
    api_key::store::delete_owned(&mut tx, organization_id)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(count_keys(&t.db).await, 0);
    assert_eq!(
        refused(t.keys.verify(&key, None).await),
        codes::INVALID_API_KEY.code()
    );
}
