//! The admin plugin's rules on each backend: who may do what (read from the table on every
//! call), creating, listing, banning, removing and impersonating users, and the role command.

use crate::common::{Setup, admin_settings, refused, refused_status, setup};
use gatehouse_identity::admin::{Admin, ListQuery, Named, NewUserByAdmin, change_role, store};
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::username::UsernameRules;
use gatehouse_kit::access::Request;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::{admin as codes, base};
use gatehouse_proto::identity::v1::ListUsersRequest;
use rstest::rstest;
use serde_json::json;
use std::time::Duration;

const PASSWORD: &str = "Correct-Horse-9";

async fn user(t: &Setup, name: &str) -> String {
    t.rules
        .sign_up(SignUp {
            name: name.into(),
            email: format!("{}@example.com", name.to_lowercase()),
            password: PASSWORD.into(),
            image: None,
            username: None,
            display_username: None,
            ..Default::default()
        })
        .await
        .map(|signed_up| signed_up.user)
        .unwrap()
        .id
}

async fn an_admin(t: &Setup, name: &str) -> String {
    let id = user(t, name).await;
    change_role(&t.db, Named::Id(&id), "admin", true)
        .await
        .unwrap();
    id
}

async fn events(t: &Setup, topic: &str) -> i64 {
    let (n,): (i64,) = query("SELECT COUNT(*) FROM outbox WHERE topic = $1")
        .bind(topic)
        .fetch_one(&t.db)
        .await
        .unwrap();
    n
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn only_permitted_actors_act_and_a_role_change_counts_at_once(#[case] backend: Backend) {
    let t = setup(backend).await;
    let (plain, target) = (user(&t, "Plain").await, user(&t, "Target").await);
    let everything = [
        refused(t.admin.list_users(&plain, &ListQuery::default()).await),
        refused(t.admin.inspect_user(&plain, &target).await),
        refused(t.admin.set_role(&plain, &target, &["admin".into()]).await),
        refused(t.admin.ban_user(&plain, &target, None, None).await),
        refused(t.admin.unban_user(&plain, &target).await),
        refused(t.admin.remove_user(&plain, &target).await),
        refused(
            t.admin
                .set_user_password(&plain, &target, "Another-Horse-10")
                .await,
        ),
        refused(t.admin.impersonate(&plain, &target).await),
        refused(
            t.admin
                .edit_user(
                    &plain,
                    &target,
                    json!({"name": "x"}).as_object().unwrap().clone(),
                )
                .await,
        ),
    ];
    assert_eq!(
        everything,
        [
            codes::YOU_ARE_NOT_ALLOWED_TO_LIST_USERS,
            codes::YOU_ARE_NOT_ALLOWED_TO_GET_USER,
            codes::YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE,
            codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS,
            codes::YOU_ARE_NOT_ALLOWED_TO_BAN_USERS,
            codes::YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS,
            codes::YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD,
            codes::YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS,
            codes::YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS,
        ]
        .map(|c| c.code().to_string()),
        "{backend:?}"
    );
    assert_eq!(
        refused_status(&t.admin.list_users(&plain, &ListQuery::default()).await),
        403
    );

    // The command grants the role; the very next call sees it, and a revoke takes it back.
    let granted = change_role(&t.db, Named::Email("PLAIN@example.com"), "admin", true)
        .await
        .unwrap();
    assert_eq!(
        granted.role, "admin",
        "{backend:?}: the default role gives way"
    );
    assert_eq!(events(&t, "user.updated").await, 1);
    let (users, total) = t
        .admin
        .list_users(&plain, &ListQuery::default())
        .await
        .unwrap();
    assert_eq!((users.len(), total), (2, 2), "{backend:?}");
    let revoked = change_role(&t.db, Named::Id(&plain), "admin", false)
        .await
        .unwrap();
    assert_eq!(revoked.role, "user");
    assert!(
        t.admin
            .list_users(&plain, &ListQuery::default())
            .await
            .is_err()
    );
    let missing = change_role(&t.db, Named::Email("nobody@example.com"), "admin", true).await;
    assert_eq!(refused(missing), base::USER_NOT_FOUND.code());

    // ADMIN_USER_IDS pass every check, whatever their role.
    let configured = Admin::new(
        t.db.clone(),
        t.rules.clone(),
        UsernameRules::default(),
        admin_settings(vec![plain.clone()]),
    );
    configured.inspect_user(&plain, &target).await.unwrap();
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn admins_create_users_with_roles_and_fields(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin = an_admin(&t, "Root").await;
    let new = |email: &str, password: Option<&str>| NewUserByAdmin {
        email: email.into(),
        password: password.map(str::to_string),
        name: "Made".into(),
        roles: None,
        data: serde_json::Map::new(),
    };
    let plain = t
        .admin
        .create_user(&admin, new("Made@Example.com", None))
        .await
        .unwrap();
    assert_eq!(
        (plain.email.as_str(), plain.role.as_str()),
        ("made@example.com", "user")
    );
    assert!(
        t.rules.sign_in("made@example.com", PASSWORD).await.is_err(),
        "no credential"
    );

    let full = t
        .admin
        .create_user(
            &admin,
            NewUserByAdmin {
                roles: Some(vec!["admin".into(), "user".into()]),
                data: json!({"emailVerified": true, "username": "Made_2"})
                    .as_object()
                    .unwrap()
                    .clone(),
                ..new("made2@example.com", Some(PASSWORD))
            },
        )
        .await
        .unwrap();
    assert_eq!(full.role, "admin,user", "{backend:?}");
    assert!(full.email_verified);
    assert_eq!(full.username.as_deref(), Some("made_2"));
    t.rules
        .sign_in("made2@example.com", PASSWORD)
        .await
        .unwrap();

    let taken = t
        .admin
        .create_user(&admin, new("MADE@example.com", None))
        .await;
    assert_eq!(
        refused(taken),
        codes::USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL.code()
    );
    let invalid = t.admin.create_user(&admin, new("not-an-email", None)).await;
    assert_eq!(refused(invalid), base::INVALID_EMAIL.code());
    let unknown_role = t
        .admin
        .create_user(
            &admin,
            NewUserByAdmin {
                roles: Some(vec!["wizard".into()]),
                ..new("w@example.com", None)
            },
        )
        .await;
    assert_eq!(
        refused(unknown_role),
        codes::YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE.code()
    );
    assert_eq!(
        events(&t, "user.created").await,
        3,
        "{backend:?}: root and two created"
    );
}

fn list(request: ListUsersRequest) -> ListQuery {
    gatehouse_identity::admin::query::list_query(&request).unwrap()
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn list_users_searches_filters_sorts_and_pages(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin = an_admin(&t, "Root").await;
    for name in ["Alice", "alfred", "Bob", "Carol", "Dave_x", "Davex"] {
        user(&t, name).await;
    }
    let names = |users: Vec<gatehouse_identity::user::User>| {
        users.into_iter().map(|u| u.name).collect::<Vec<_>>()
    };
    let run = |request: ListUsersRequest| {
        let query = list(request);
        let admin = admin.clone();
        let t_admin = t.admin.clone();
        async move { t_admin.list_users(&admin, &query).await.unwrap() }
    };
    let (users, total) = run(ListUsersRequest {
        search_value: Some("AL".into()),
        search_field: Some("name".into()),
        search_operator: Some("starts_with".into()),
        sort_by: Some("name".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(
        (names(users), total),
        (vec!["alfred".to_string(), "Alice".into()], 2),
        "{backend:?}: case-insensitive"
    );
    let (users, _) = run(ListUsersRequest {
        search_value: Some("e_x".into()),
        search_field: Some("name".into()),
        search_operator: Some("ends_with".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(
        names(users),
        vec!["Dave_x"],
        "{backend:?}: `_` matches itself only"
    );
    let (users, total) = run(ListUsersRequest {
        sort_by: Some("email".into()),
        sort_direction: Some("desc".into()),
        limit: Some(2),
        offset: Some(1),
        ..Default::default()
    })
    .await;
    assert_eq!(
        (names(users), total),
        (vec!["Davex".to_string(), "Dave_x".into()], 7),
        "{backend:?}"
    );
    let (users, total) = run(ListUsersRequest {
        filter_field: Some("role".into()),
        filter_value_json: Some("\"admin\"".into()),
        filter_operator: Some("ne".into()),
        ..Default::default()
    })
    .await;
    assert_eq!((users.len(), total), (6, 6));
    let (users, _) = run(ListUsersRequest {
        filter_field: Some("banned".into()),
        filter_value_json: Some("\"false\"".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(users.len(), 7, "{backend:?}: a boolean from a query string");
    let (users, _) = run(ListUsersRequest {
        filter_field: Some("name".into()),
        filter_value_json: Some("\"Bob,Carol\"".into()),
        filter_operator: Some("in".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(users.len(), 2);
    for bad in [
        ListUsersRequest {
            sort_by: Some("password".into()),
            ..Default::default()
        },
        ListUsersRequest {
            search_value: Some("x".into()),
            search_field: Some("role".into()),
            ..Default::default()
        },
        ListUsersRequest {
            filter_field: Some("banned".into()),
            filter_value_json: Some("\"maybe\"".into()),
            ..Default::default()
        },
        ListUsersRequest {
            filter_value_json: Some("\"x\"".into()),
            filter_operator: Some("like".into()),
            ..Default::default()
        },
    ] {
        let refused = gatehouse_identity::admin::query::list_query(&bad).unwrap_err();
        assert!(refused.is(base::VALIDATION_ERROR), "{bad:?}");
    }
    let _ = store::column("email");
}

/// The unfiltered total is the count the triggers keep (migration 0006): it follows every way
/// a user comes and goes, sign-up, an admin's create and remove, a row written or deleted
/// directly, and always equals `COUNT(*)`.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_unfiltered_total_follows_users_coming_and_going(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin = an_admin(&t, "Root").await;
    let totals = || async {
        let page = ListQuery {
            limit: Some(1),
            ..Default::default()
        };
        let (_, listed) = t.admin.list_users(&admin, &page).await.unwrap();
        let (counted,): (i64,) = query("SELECT COUNT(*) FROM users")
            .fetch_one(&t.db)
            .await
            .unwrap();
        assert_eq!(
            listed, counted as u64,
            "{backend:?}: the kept count drifted"
        );
        listed
    };
    assert_eq!(totals().await, 1, "{backend:?}");
    let signed_up = user(&t, "Signed").await;
    let created = t
        .admin
        .create_user(
            &admin,
            NewUserByAdmin {
                email: "made@example.com".into(),
                password: Some(PASSWORD.into()),
                name: "Made".into(),
                roles: None,
                data: Default::default(),
            },
        )
        .await
        .unwrap();
    assert_eq!(totals().await, 3, "{backend:?}: signed up and created");
    t.admin.remove_user(&admin, &created.id).await.unwrap();
    assert_eq!(totals().await, 2, "{backend:?}: removed");
    query("INSERT INTO users (id, name, email, created_at, updated_at) VALUES ('direct', 'D', 'd@example.com', $1, $1)")
        .bind(gatehouse_kit::ids::now())
        .execute(&t.db)
        .await
        .unwrap();
    query("DELETE FROM users WHERE id = $1")
        .bind(&signed_up)
        .execute(&t.db)
        .await
        .unwrap();
    assert_eq!(totals().await, 2, "{backend:?}: one row in, one out");
    // A sign-up refused (the email is taken) counts no one.
    let taken = t
        .rules
        .sign_up(SignUp {
            name: "Again".into(),
            email: "root@example.com".into(),
            password: PASSWORD.into(),
            ..Default::default()
        })
        .await;
    assert!(taken.is_err(), "{backend:?}");
    assert_eq!(totals().await, 2, "{backend:?}: refused");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn every_page_and_total_is_the_plain_offset_of_the_list(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin = an_admin(&t, "Root").await;
    // Five users a moment, so that pages start and end inside a run of equal times.
    let start = gatehouse_kit::ids::now();
    for n in 0..25 {
        let created = start + chrono::Duration::milliseconds(n / 5);
        query(
            "INSERT INTO users (id, name, email, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
        )
        .bind(format!("id-{:02}", (n * 7) % 25))
        .bind(format!("User {n}"))
        .bind(format!("user{n}@example.com"))
        .bind(created)
        .execute(&t.db)
        .await
        .unwrap();
    }
    let all: Vec<(String,)> = query("SELECT id FROM users ORDER BY created_at, id")
        .fetch_all(&t.db)
        .await
        .unwrap();
    let all: Vec<String> = all.into_iter().map(|(id,)| id).collect();
    assert_eq!(all.len(), 26);
    let ids = |users: Vec<gatehouse_identity::user::User>| {
        users.into_iter().map(|u| u.id).collect::<Vec<_>>()
    };
    for limit in [None, Some(1), Some(3), Some(7), Some(26), Some(30)] {
        for offset in [
            None,
            Some(0),
            Some(1),
            Some(4),
            Some(5),
            Some(13),
            Some(25),
            Some(26),
            Some(40),
        ] {
            let (users, total) = t
                .admin
                .list_users(
                    &admin,
                    &ListQuery {
                        limit,
                        offset,
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
            let from = usize::try_from(offset.unwrap_or(0)).unwrap().min(all.len());
            let to = limit.map_or(all.len(), |l| {
                (from + usize::try_from(l).unwrap()).min(all.len())
            });
            assert_eq!(
                (ids(users), total),
                (all[from..to].to_vec(), 26),
                "{backend:?}: limit {limit:?} offset {offset:?}"
            );
        }
    }
    // Filtered: the total from a short page, and counted past the end.
    let users_only = |limit, offset| ListUsersRequest {
        search_value: Some("user ".into()),
        search_field: Some("name".into()),
        search_operator: Some("starts_with".into()),
        limit,
        offset,
        ..Default::default()
    };
    for (limit, offset, rows) in [
        (Some(10), Some(20), 5),
        (Some(10), Some(25), 0),
        (Some(5), Some(20), 5),
    ] {
        let (users, total) = t
            .admin
            .list_users(&admin, &list(users_only(limit, offset)))
            .await
            .unwrap();
        assert_eq!(
            (users.len(), total),
            (rows, 25),
            "{backend:?}: {limit:?} {offset:?}"
        );
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_ban_refuses_sign_in_until_it_lapses_or_is_lifted(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin = an_admin(&t, "Root").await;
    let target = user(&t, "Bad").await;
    let own = t.admin.ban_user(&admin, &admin, None, None).await;
    assert_eq!(refused(own), codes::YOU_CANNOT_BAN_YOURSELF.code());
    let forever = t
        .admin
        .ban_user(
            &admin,
            &target,
            None,
            Some(Duration::from_secs(u64::MAX / 4)),
        )
        .await;
    assert_eq!(
        refused(forever),
        base::VALIDATION_ERROR.code(),
        "{backend:?}: refused, no panic"
    );
    assert!(!t.users.get(&target).await.unwrap().banned);
    let banned = t.admin.ban_user(&admin, &target, None, None).await.unwrap();
    assert!(banned.banned);
    assert_eq!(banned.ban_reason.as_deref(), Some("No reason"));
    assert_eq!(banned.ban_expires, None);
    assert_eq!(
        events(&t, "user.banned").await,
        1,
        "{backend:?}: sessions end through the event"
    );
    let refused_in = t.rules.sign_in("bad@example.com", PASSWORD).await;
    assert_eq!(refused_status(&refused_in), 403);
    assert_eq!(refused(refused_in), codes::BANNED_USER.code());
    let wrong = t.rules.sign_in("bad@example.com", "not-the-password").await;
    assert_eq!(
        refused(wrong),
        base::INVALID_EMAIL_OR_PASSWORD.code(),
        "{backend:?}: no ban news without the password"
    );

    let lifted = t.admin.unban_user(&admin, &target).await.unwrap();
    assert!(!lifted.banned && lifted.ban_reason.is_none());
    t.rules.sign_in("bad@example.com", PASSWORD).await.unwrap();

    t.admin
        .ban_user(
            &admin,
            &target,
            Some("spam".into()),
            Some(Duration::from_secs(1)),
        )
        .await
        .unwrap();
    assert_eq!(
        refused(t.rules.sign_in("bad@example.com", PASSWORD).await),
        codes::BANNED_USER.code()
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let back = t.rules.sign_in("bad@example.com", PASSWORD).await.unwrap();
    assert!(!back.banned, "{backend:?}: an expired ban lifts itself");
    assert!(!t.users.get(&target).await.unwrap().banned);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn removal_impersonation_and_permission_questions(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin = an_admin(&t, "Root").await;
    let other_admin = an_admin(&t, "Second").await;
    let target = user(&t, "Gone").await;

    let (who, lifetime) = t.admin.impersonate(&admin, &target).await.unwrap();
    assert_eq!(
        (who.id.as_str(), lifetime),
        (target.as_str(), Duration::from_secs(3600))
    );
    let admins = t.admin.impersonate(&admin, &other_admin).await;
    assert_eq!(refused(admins), codes::YOU_CANNOT_IMPERSONATE_ADMINS.code());

    let wanted = json!({"user": ["ban"]});
    assert!(
        t.admin
            .has_permission(Some(&admin), None, None, &wanted)
            .await
            .unwrap()
    );
    assert!(
        !t.admin
            .has_permission(Some(&target), None, Some("admin"), &wanted)
            .await
            .unwrap(),
        "the session's user first"
    );
    assert!(
        t.admin
            .has_permission(None, Some(&target), Some("admin"), &wanted)
            .await
            .unwrap(),
        "then the role"
    );
    assert!(
        !t.admin
            .has_permission(None, Some(&target), None, &wanted)
            .await
            .unwrap()
    );
    let nobody = t.admin.has_permission(None, None, None, &wanted).await;
    assert_eq!(refused_status(&nobody), 400);
    let empty = t
        .admin
        .has_permission(Some(&admin), None, None, &json!({}))
        .await;
    assert!(
        !empty.unwrap(),
        "{backend:?}: asking for nothing holds nothing"
    );
    let malformed = t
        .admin
        .has_permission(Some(&admin), None, None, &json!({"user": "ban"}))
        .await;
    assert_eq!(refused_status(&malformed), 400);
    assert!(Request::from_json(&wanted).is_ok());

    let own = t.admin.remove_user(&admin, &admin).await;
    assert_eq!(refused(own), codes::YOU_CANNOT_REMOVE_YOURSELF.code());
    t.admin.remove_user(&admin, &target).await.unwrap();
    assert_eq!(
        refused(t.users.get(&target).await),
        base::USER_NOT_FOUND.code()
    );
    let (accounts,): (i64,) = query("SELECT COUNT(*) FROM accounts WHERE user_id = $1")
        .bind(target.as_str())
        .fetch_one(&t.db)
        .await
        .unwrap();
    assert_eq!(accounts, 0, "{backend:?}: their accounts go too");
    assert_eq!(events(&t, "user.deleted").await, 1);
    let again = t.admin.remove_user(&admin, &target).await;
    assert_eq!(refused(again), base::USER_NOT_FOUND.code());
}

/// The search indexes (pg_trgm; SQLite's FTS5 trigram table kept by triggers) follow every
/// change of a user's name or email and every removal, and a `%` typed in a search matches
/// only itself even where the index treats it as a wildcard.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn searches_follow_renames_email_changes_and_removals(#[case] backend: Backend) {
    let t = setup(backend).await;
    let admin = an_admin(&t, "Root").await;
    let marta = user(&t, "Marta").await;
    let martin = user(&t, "Martin").await;
    t.rules
        .sign_up(SignUp {
            name: "Mar%tin".into(),
            email: "percent@example.com".into(),
            password: PASSWORD.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let search = |field: &'static str, value: &'static str| {
        let admin = admin.clone();
        let t_admin = t.admin.clone();
        async move {
            let query = list(ListUsersRequest {
                search_value: Some(value.into()),
                search_field: Some(field.into()),
                sort_by: Some("name".into()),
                ..Default::default()
            });
            let (users, total) = t_admin.list_users(&admin, &query).await.unwrap();
            let names: Vec<String> = users.into_iter().map(|u| u.name).collect();
            assert_eq!(names.len() as u64, total, "{value}: total matches the page");
            names
        }
    };
    assert_eq!(
        search("name", "MART").await,
        ["Marta", "Martin"],
        "{backend:?}"
    );
    assert_eq!(
        search("name", "r%t").await,
        ["Mar%tin"],
        "{backend:?}: `%` literal"
    );

    let rename = json!({"name": "Ingrid"}).as_object().unwrap().clone();
    t.admin.edit_user(&admin, &marta, rename).await.unwrap();
    assert_eq!(
        search("name", "mart").await,
        ["Martin"],
        "{backend:?}: old name"
    );
    assert_eq!(
        search("name", "grid").await,
        ["Ingrid"],
        "{backend:?}: new name"
    );

    let email = json!({"email": "zq-unique@example.org"})
        .as_object()
        .unwrap()
        .clone();
    t.admin.edit_user(&admin, &martin, email).await.unwrap();
    assert_eq!(
        search("email", "q-uni").await,
        ["Martin"],
        "{backend:?}: new email"
    );
    assert!(
        search("email", "martin@").await.is_empty(),
        "{backend:?}: old email"
    );

    t.admin.remove_user(&admin, &martin).await.unwrap();
    assert!(
        search("email", "q-uni").await.is_empty(),
        "{backend:?}: removed"
    );
    assert_eq!(
        search("name", "TIN").await,
        ["Mar%tin"],
        "{backend:?}: the rest stay"
    );
}
