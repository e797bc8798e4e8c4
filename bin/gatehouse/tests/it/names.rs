//! Names (of users, organizations and teams) refuse control characters on every route that sets
//! one: a line break or an escape sequence in a name would pass, in a mail or a page, for
//! something the platform wrote (issue 27, finding 3). The refusal is `VALIDATION_ERROR` in the
//! validator's words, and nothing changes.

use serde_json::{Value, json};

use crate::common::{PASSWORD, Stack, unique_email};

/// A line break (a mail header's), an OSC 8 hyperlink escape sequence (a terminal would show
/// "click" linking elsewhere), a tab, DEL and a C1 control.
const BAD_NAMES: [&str; 5] = [
    "Acme\r\nBcc: everyone@example.com",
    "Acme \u{1b}]8;;https://evil.example/\u{1b}\\click here\u{1b}]8;;\u{1b}\\",
    "Acme\tInc",
    "Acme\u{7f}",
    "Acme\u{85}Inc",
];

fn refused(reply: &crate::common::Reply, field: &str, what: &str) {
    assert_eq!(reply.status, 400, "{what}: {}", reply.text);
    assert_eq!(
        reply.json(),
        json!({
            "code": "VALIDATION_ERROR",
            "message": format!("[body.{field}] Invalid string: must not contain control characters"),
        }),
        "{what}"
    );
}

async fn an_admin(stack: &Stack) -> (String, String) {
    let email = unique_email();
    let reply = stack.sign_up(&email).await;
    let id = reply.json()["user"]["id"].as_str().unwrap().to_string();
    let granted = std::process::Command::new(env!("CARGO_BIN_EXE_gatehouse"))
        .args(["admin", "grant", "--email", &email])
        .env_clear()
        .env("DATA_DIR", &stack.data_dir)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(granted.status.success(), "{granted:?}");
    (id, reply.cookie_header())
}

#[tokio::test]
async fn a_name_with_a_control_character_is_refused_everywhere_and_changes_nothing() {
    let stack = Stack::start(&[]).await;
    let (admin_id, jar) = an_admin(&stack).await;
    let created = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": "acme-names"}),
            Some(&jar),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let organization_id = created.json()["id"].as_str().unwrap().to_string();
    let team = stack
        .post(
            "/organization/create-team",
            json!({"name": "Team"}),
            Some(&jar),
        )
        .await;
    assert_eq!(team.status, 200, "{}", team.text);
    let team_id = team.json()["id"].as_str().unwrap().to_string();

    for bad in BAD_NAMES {
        let what = format!("{bad:?}");
        let email = unique_email();
        let sign_up = json!({"name": bad, "email": email, "password": PASSWORD});
        refused(
            &stack.post("/sign-up/email", sign_up, None).await,
            "name",
            &what,
        );
        let signed_in = stack
            .post(
                "/sign-in/email",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(signed_in.status, 401, "{what}: no user was made");

        let update = stack
            .post("/update-user", json!({"name": bad}), Some(&jar))
            .await;
        refused(&update, "name", &what);

        let email = unique_email();
        let create = json!({"email": email, "name": bad, "password": PASSWORD});
        refused(
            &stack.post("/admin/create-user", create, Some(&jar)).await,
            "name",
            &what,
        );
        let listed = stack
            .get(
                &format!("/admin/list-users?filterField=email&filterValue={email}"),
                Some(&jar),
            )
            .await;
        assert_eq!(listed.json()["total"], 0, "{what}: no user was made");

        let edit = json!({"userId": admin_id, "data": {"name": bad}});
        refused(
            &stack.post("/admin/update-user", edit, Some(&jar)).await,
            "data.name",
            &what,
        );

        let organization = json!({"name": bad, "slug": "acme-control"});
        refused(
            &stack
                .post("/organization/create", organization, Some(&jar))
                .await,
            "name",
            &what,
        );
        let rename = json!({"data": {"name": bad}, "organizationId": organization_id});
        refused(
            &stack.post("/organization/update", rename, Some(&jar)).await,
            "data.name",
            &what,
        );

        refused(
            &stack
                .post(
                    "/organization/create-team",
                    json!({"name": bad}),
                    Some(&jar),
                )
                .await,
            "name",
            &what,
        );
        let rename = json!({"teamId": team_id, "data": {"name": bad}});
        refused(
            &stack
                .post("/organization/update-team", rename, Some(&jar))
                .await,
            "data.name",
            &what,
        );
    }

    // Nothing changed: the user's name, the organization, its teams, and no other organization.
    let session = stack.get("/get-session", Some(&jar)).await.json();
    assert_eq!(session["user"]["name"], "Test User");
    let full = stack
        .get("/organization/get-full-organization", Some(&jar))
        .await
        .json();
    assert_eq!(full["name"], "Acme");
    let teams: Vec<&Value> = full["teams"].as_array().unwrap().iter().collect();
    let names: Vec<&str> = teams.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "the default team and ours: {names:?}");
    assert!(
        names.contains(&"Team") && names.contains(&"Acme"),
        "{names:?}"
    );
    let organizations = stack.get("/organization/list", Some(&jar)).await.json();
    assert_eq!(organizations.as_array().unwrap().len(), 1);
    let slug = stack
        .post(
            "/organization/check-slug",
            json!({"slug": "acme-control"}),
            Some(&jar),
        )
        .await;
    assert_eq!(
        slug.status, 200,
        "the refused organization's slug is free: {}",
        slug.text
    );

    // Ordinary names, accents and symbols included, still pass.
    let fine = stack
        .post(
            "/update-user",
            json!({"name": "Zoë O'Brien — ünïcode 🎉"}),
            Some(&jar),
        )
        .await;
    assert_eq!(fine.status, 200, "{}", fine.text);
}
