//! The organization routes through the whole standalone stack (gateway → organization service
//! → identity and session over gRPC), answering as better-auth 1.7.7 does: the exact shapes
//! (metadata parsed only by create and update, as better-auth does), the session's active organization and
//! team, refusals by role, and each route's answer to a signed-out caller.

use serde_json::{Value, json};

use crate::common::{Stack, unique_email};

fn slug() -> String {
    format!(
        "org-{}",
        gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
    )
}

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

async fn session_of(stack: &Stack, cookie: &str) -> Value {
    stack
        .get("/get-session?disableCookieCache=true", Some(cookie))
        .await
        .json()
}

#[tokio::test]
async fn an_owner_creates_reads_switches_updates_and_deletes_an_organization() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let cookie = stack.sign_up(&email).await.cookie_header();
    let slug = slug();

    let created = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": slug, "metadata": {"plan": "pro"}}),
            Some(&cookie),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let org = created.json();
    assert_eq!(
        keys(&org),
        [
            "createdAt",
            "id",
            "logo",
            "members",
            "metadata",
            "name",
            "slug"
        ]
    );
    assert_eq!(org["metadata"], json!({"plan": "pro"}), "parsed");
    assert_eq!(org["logo"], Value::Null);
    let owner = &org["members"][0];
    assert_eq!(
        keys(owner),
        ["createdAt", "id", "organizationId", "role", "userId"]
    );
    assert_eq!(owner["role"], "owner");
    assert!(
        created.set_cookies().is_empty(),
        "create re-issues no cookie"
    );

    // The new organization and its default team are the session's active ones.
    let session = session_of(&stack, &cookie).await;
    assert_eq!(session["session"]["activeOrganizationId"], org["id"]);
    let full = stack
        .get("/organization/get-full-organization", Some(&cookie))
        .await;
    assert_eq!(full.status, 200, "{}", full.text);
    let full = full.json();
    assert_eq!(
        keys(&full),
        [
            "createdAt",
            "id",
            "invitations",
            "logo",
            "members",
            "metadata",
            "name",
            "slug",
            "teams"
        ]
    );
    assert_eq!(
        full["metadata"], r#"{"plan":"pro"}"#,
        "stored text elsewhere"
    );
    assert_eq!(full["members"][0]["user"]["email"], email.as_str());
    assert_eq!(
        keys(&full["members"][0]["user"]),
        ["email", "id", "image", "name"]
    );
    let team = &full["teams"][0];
    assert_eq!(team["name"], "Acme");
    assert_eq!(team["memberCount"], 1);
    assert_eq!(team["updatedAt"], Value::Null);
    assert_eq!(session["session"]["activeTeamId"], team["id"]);

    // Slugs.
    let taken = stack
        .post(
            "/organization/check-slug",
            json!({"slug": slug}),
            Some(&cookie),
        )
        .await;
    assert_eq!(
        (taken.status, taken.error().0.as_str()),
        (400, "ORGANIZATION_SLUG_ALREADY_TAKEN")
    );
    let again = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": slug}),
            Some(&cookie),
        )
        .await;
    assert_eq!(
        (again.status, again.error().0.as_str()),
        (400, "ORGANIZATION_ALREADY_EXISTS")
    );

    // A second one, kept inactive; then switched to by slug (cookies re-issued), and off.
    let second_slug = self::slug();
    let second = stack
        .post(
            "/organization/create",
            json!({"name": "Second", "slug": second_slug, "keepCurrentActiveOrganization": true}),
            Some(&cookie),
        )
        .await
        .json();
    assert!(second.get("metadata").is_none(), "none stored: no key");
    assert_eq!(
        session_of(&stack, &cookie).await["session"]["activeOrganizationId"],
        org["id"]
    );
    let switched = stack
        .post(
            "/organization/set-active",
            json!({"organizationSlug": second_slug}),
            Some(&cookie),
        )
        .await;
    assert_eq!(switched.status, 200, "{}", switched.text);
    assert_eq!(switched.json()["id"], second["id"]);
    assert_eq!(switched.json()["metadata"], Value::Null);
    assert!(switched.set_cookie("better-auth.session_token").is_some());
    let cached = stack
        .get("/get-session", Some(&switched.cookie_header()))
        .await
        .json();
    assert_eq!(
        cached["session"]["activeOrganizationId"], second["id"],
        "the re-issued cookie cache shows it"
    );
    let list = stack.get("/organization/list", Some(&cookie)).await.json();
    let ids: Vec<&Value> = list.as_array().unwrap().iter().map(|o| &o["id"]).collect();
    assert_eq!(ids, [&org["id"], &second["id"]]);
    let off = stack
        .post(
            "/organization/set-active",
            json!({"organizationId": null}),
            Some(&cookie),
        )
        .await;
    assert_eq!((off.status, off.json()), (200, Value::Null));
    assert_eq!(
        stack
            .get("/organization/get-full-organization", Some(&cookie))
            .await
            .json(),
        Value::Null,
        "nothing active, nothing named"
    );

    // Update: metadata parsed in the answer only when sent.
    let updated = stack
        .post(
            "/organization/update",
            json!({"organizationId": org["id"], "data": {"name": "Acme Ltd", "metadata": {"plan": "max"}}}),
            Some(&cookie),
        )
        .await;
    assert_eq!(updated.status, 200, "{}", updated.text);
    assert_eq!(updated.json()["name"], "Acme Ltd");
    assert_eq!(updated.json()["metadata"], json!({"plan": "max"}));
    let logo = stack
        .post(
            "/organization/update",
            json!({"organizationId": org["id"], "data": {"logo": "https://acme.example/l.png"}}),
            Some(&cookie),
        )
        .await
        .json();
    assert_eq!(
        logo["metadata"],
        json!({"plan": "max"}),
        "parsed whenever there is some"
    );
    assert_eq!(logo["logo"], "https://acme.example/l.png");

    // Delete.
    let deleted = stack
        .post(
            "/organization/delete",
            json!({"organizationId": org["id"]}),
            Some(&cookie),
        )
        .await;
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    assert_eq!(deleted.json()["metadata"], r#"{"plan":"max"}"#);
    let gone = stack
        .get(
            &format!(
                "/organization/get-full-organization?organizationId={}",
                org["id"].as_str().unwrap()
            ),
            Some(&cookie),
        )
        .await;
    assert_eq!(
        (gone.status, gone.error().0.as_str()),
        (400, "ORGANIZATION_NOT_FOUND")
    );
}

#[tokio::test]
async fn strangers_and_signed_out_callers_get_better_auths_answers_and_change_nothing() {
    let stack = Stack::start(&[]).await;
    let owner = stack.sign_up(&unique_email()).await.cookie_header();
    let org = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": slug()}),
            Some(&owner),
        )
        .await
        .json();
    let id = org["id"].as_str().unwrap();
    let stranger = stack.sign_up(&unique_email()).await.cookie_header();

    for (path, body, code, status) in [
        (
            "/organization/update",
            json!({"organizationId": id, "data": {"name": "Mine"}}),
            "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
            400,
        ),
        (
            "/organization/delete",
            json!({"organizationId": id}),
            "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
            400,
        ),
        (
            "/organization/set-active",
            json!({"organizationId": id}),
            "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
            403,
        ),
        (
            "/organization/set-active",
            json!({"organizationSlug": "no-such-slug"}),
            "ORGANIZATION_NOT_FOUND",
            400,
        ),
        (
            "/organization/update",
            json!({"data": {"name": "Mine"}}),
            "ORGANIZATION_NOT_FOUND",
            400,
        ),
    ] {
        let reply = stack.post(path, body.clone(), Some(&stranger)).await;
        assert_eq!(
            (reply.status, reply.error().0.as_str()),
            (status, code),
            "{path} {body}: {}",
            reply.text
        );
    }
    let full = stack
        .get(
            &format!("/organization/get-full-organization?organizationId={id}"),
            Some(&stranger),
        )
        .await;
    assert_eq!(
        (full.status, full.error().0.as_str()),
        (403, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION")
    );

    // Bad input: zod's messages.
    for (path, body, message) in [
        (
            "/organization/create",
            json!({"name": "", "slug": ""}),
            "[body.name] Too small: expected string to have >=1 characters; [body.slug] Too small: expected string to have >=1 characters",
        ),
        (
            "/organization/create",
            json!({"name": "M", "slug": "m-slug", "metadata": "x"}),
            "[body.metadata] Invalid input: expected record, received string",
        ),
        (
            "/organization/update",
            json!({}),
            "[body.data] Invalid input: expected object, received undefined",
        ),
        (
            "/organization/update",
            json!({"data": {"name": ""}}),
            "[body.data.name] Too small: expected string to have >=1 characters",
        ),
        (
            "/organization/delete",
            json!({}),
            "[body.organizationId] Invalid input: expected string, received undefined",
        ),
    ] {
        let reply = stack.post(path, body.clone(), Some(&owner)).await;
        assert_eq!(
            reply.json(),
            json!({"code": "VALIDATION_ERROR", "message": message}),
            "{path} {body}"
        );
        assert_eq!(reply.status, 400);
    }

    // Signed out: each route's own answer.
    for (path, body, status, answer) in [
        (
            "/organization/create",
            json!({"name": "A", "slug": "a"}),
            401,
            "",
        ),
        (
            "/organization/delete",
            json!({"organizationId": id}),
            401,
            "",
        ),
        (
            "/organization/update",
            json!({"data": {"name": "x"}}),
            401,
            r#"{"message":"User not found"}"#,
        ),
        (
            "/organization/check-slug",
            json!({"slug": "a"}),
            401,
            r#"{"message":"Unauthorized","code":"UNAUTHORIZED"}"#,
        ),
        (
            "/organization/set-active",
            json!({}),
            401,
            r#"{"message":"Unauthorized","code":"UNAUTHORIZED"}"#,
        ),
    ] {
        let reply = stack.post(path, body, None).await;
        assert_eq!(reply.status, status, "{path}");
        if answer.is_empty() {
            assert_eq!(reply.text, "", "{path}: an empty body");
        } else {
            assert_eq!(
                reply.json(),
                serde_json::from_str::<Value>(answer).unwrap(),
                "{path}"
            );
        }
    }
    for path in ["/organization/list", "/organization/get-full-organization"] {
        let reply = stack.get(path, None).await;
        assert_eq!(
            (reply.status, reply.error().0.as_str()),
            (401, "UNAUTHORIZED"),
            "{path}"
        );
    }

    // None of it changed the organization.
    let full = stack
        .get("/organization/get-full-organization", Some(&owner))
        .await
        .json();
    assert_eq!(full["name"], "Acme");
    assert_eq!(full["members"].as_array().unwrap().len(), 1);
}

/// Polls `check` for up to 5 s: events travel on the bus after the request that caused them.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..100 {
        if check().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{what}: not within 5 s");
}

#[tokio::test]
async fn a_deleted_organization_is_no_sessions_active_one_and_a_deleted_users_goes() {
    let stack = Stack::start(&[]).await;
    let email = unique_email();
    let first = stack.sign_up(&email).await.cookie_header();
    let org = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": slug()}),
            Some(&first),
        )
        .await
        .json();
    // The same user in a second browser, with the organization active there too.
    let second = stack
        .post(
            "/sign-in/email",
            json!({"email": email, "password": crate::common::PASSWORD}),
            None,
        )
        .await
        .cookie_header();
    let active = stack
        .post(
            "/organization/set-active",
            json!({"organizationId": org["id"]}),
            Some(&second),
        )
        .await;
    assert_eq!(active.status, 200, "{}", active.text);
    let second = active.cookie_header();
    assert_eq!(
        session_of(&stack, &second).await["session"]["activeOrganizationId"],
        org["id"]
    );

    let deleted = stack
        .post(
            "/organization/delete",
            json!({"organizationId": org["id"]}),
            Some(&first),
        )
        .await;
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    eventually(
        "organization.deleted clears the other session's active organization",
        || async {
            let session = session_of(&stack, &second).await;
            session["session"]["activeOrganizationId"].is_null()
                && session["session"]["activeTeamId"].is_null()
        },
    )
    .await;

    // A user deleted with an organization only they belong to: it goes too.
    let kept = stack
        .post(
            "/organization/create",
            json!({"name": "Solo", "slug": slug()}),
            Some(&first),
        )
        .await
        .json();
    let id = kept["id"].as_str().unwrap().to_string();
    let other = stack.sign_up(&unique_email()).await.cookie_header();
    let path = format!("/organization/get-full-organization?organizationId={id}");
    let before = stack.get(&path, Some(&other)).await;
    assert_eq!(
        (before.status, before.error().0.as_str()),
        (403, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION")
    );
    let gone = stack
        .post(
            "/delete-user",
            json!({"password": crate::common::PASSWORD}),
            Some(&first),
        )
        .await;
    assert_eq!(gone.status, 200, "{}", gone.text);
    eventually(
        "user.deleted removes the organization left without members",
        || async {
            let reply = stack.get(&path, Some(&other)).await;
            reply.status == 400 && reply.error().0 == "ORGANIZATION_NOT_FOUND"
        },
    )
    .await;
}

/// Adds a user to an organization the way another service would: the server-side RPC.
pub(crate) async fn add_member(stack: &Stack, organization_id: &str, user_id: &str, role: &str) {
    use gatehouse_proto::organization::v1 as pb;
    use gatehouse_proto::organization::v1::member_service_client::MemberServiceClient;
    let channel = gatehouse_kit::client::lazy_channel(
        &format!("http://{}", stack.organization_addr),
        &stack.service_token,
    )
    .unwrap();
    MemberServiceClient::new(channel)
        .add_member(pb::AddMemberRequest {
            user_id: user_id.to_string(),
            roles: vec![role.to_string()],
            organization_id: Some(organization_id.to_string()),
            ..Default::default()
        })
        .await
        .unwrap();
}

pub(crate) async fn user_id(stack: &Stack, cookie: &str) -> String {
    session_of(stack, cookie).await["user"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn members_are_listed_changed_and_removed_through_the_member_routes() {
    let stack = Stack::start(&[]).await;
    let owner = stack.sign_up(&unique_email()).await.cookie_header();
    let org = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": slug()}),
            Some(&owner),
        )
        .await
        .json();
    let id = org["id"].as_str().unwrap();
    let member_email = unique_email();
    let member = stack.sign_up(&member_email).await.cookie_header();
    add_member(&stack, id, &user_id(&stack, &member).await, "member").await;
    // add-member is server-side only: no HTTP route.
    let http_add = stack
        .post(
            "/organization/add-member",
            json!({"userId": "x", "role": "member"}),
            Some(&owner),
        )
        .await;
    assert_eq!((http_add.status, http_add.text.as_str()), (404, ""));

    let listed = stack.get("/organization/list-members", Some(&owner)).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let listed = listed.json();
    assert_eq!(keys(&listed), ["members", "total"]);
    assert_eq!(listed["total"], 2);
    assert_eq!(listed["members"][1]["user"]["email"], member_email.as_str());
    assert_eq!(
        keys(&listed["members"][1]),
        [
            "createdAt",
            "id",
            "organizationId",
            "role",
            "user",
            "userId"
        ]
    );
    let page = stack
        .get(
            "/organization/list-members?limit=1&offset=1&sortBy=createdAt&sortDirection=desc",
            Some(&owner),
        )
        .await
        .json();
    assert_eq!(page["total"], 2);
    assert_eq!(page["members"][0]["role"], "owner");
    let filtered = stack
        .get(
            "/organization/list-members?filterField=role&filterValue=member&filterOperator=eq",
            Some(&owner),
        )
        .await
        .json();
    assert_eq!(filtered["total"], 1);
    let bad_sort = stack
        .get("/organization/list-members?sortBy=nope", Some(&owner))
        .await;
    assert_eq!(
        bad_sort.json(),
        json!({"code": "VALIDATION_ERROR", "message": "[query.sortBy] Unknown field: nope"})
    );

    // The member's own view: no active organization yet, then the one they make active.
    let none = stack
        .get("/organization/get-active-member", Some(&member))
        .await;
    assert_eq!(
        (none.status, none.error().0.as_str()),
        (400, "NO_ACTIVE_ORGANIZATION")
    );
    let member = stack
        .post(
            "/organization/set-active",
            json!({"organizationId": id}),
            Some(&member),
        )
        .await
        .cookie_header();
    let me = stack
        .get("/organization/get-active-member", Some(&member))
        .await
        .json();
    assert_eq!(me["user"]["email"], member_email.as_str());
    let member_id = me["id"].as_str().unwrap().to_string();
    let role = stack
        .get("/organization/get-active-member-role", Some(&member))
        .await;
    assert_eq!((role.status, role.json()), (200, json!({"role": "member"})));

    // has-permission: what a member may not, until an owner makes them an admin.
    let ask = |cookie: String| {
        let stack = &stack;
        async move {
            stack
                .post(
                    "/organization/has-permission",
                    json!({"permissions": {"member": ["create"]}}),
                    Some(&cookie),
                )
                .await
                .json()
        }
    };
    assert_eq!(
        ask(member.clone()).await,
        json!({"error": null, "success": false})
    );
    let refused = stack
        .post(
            "/organization/update-member-role",
            json!({"memberId": member_id, "role": "admin"}),
            Some(&member),
        )
        .await;
    assert_eq!(
        (refused.status, refused.error().0.as_str()),
        (403, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER")
    );
    let empty = stack
        .post(
            "/organization/update-member-role",
            json!({"memberId": member_id, "role": ""}),
            Some(&owner),
        )
        .await;
    assert_eq!((empty.status, empty.text.as_str()), (400, ""));
    let promoted = stack
        .post(
            "/organization/update-member-role",
            json!({"memberId": member_id, "role": ["admin", "member"]}),
            Some(&owner),
        )
        .await;
    assert_eq!(promoted.status, 200, "{}", promoted.text);
    assert_eq!(promoted.json()["role"], "admin,member");
    assert!(promoted.json().get("user").is_none());
    assert_eq!(
        ask(member.clone()).await,
        json!({"error": null, "success": true}),
        "the new role counts from the next request"
    );
    let deprecated = stack
        .post(
            "/organization/has-permission",
            json!({"permission": {"member": ["create"]}}),
            Some(&member),
        )
        .await;
    assert_eq!(deprecated.json(), json!({"error": null, "success": false}));

    // The last owner stays; a member leaves; by email, the answer carries the user.
    let owner_leaves = stack
        .post(
            "/organization/leave",
            json!({"organizationId": id}),
            Some(&owner),
        )
        .await;
    assert_eq!(
        (owner_leaves.status, owner_leaves.error().0.as_str()),
        (400, "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER")
    );
    let removed = stack
        .post(
            "/organization/remove-member",
            json!({"memberIdOrEmail": member_email}),
            Some(&owner),
        )
        .await;
    assert_eq!(removed.status, 200, "{}", removed.text);
    assert_eq!(
        removed.json()["member"]["user"]["email"],
        member_email.as_str()
    );
    let after = stack
        .get("/organization/list-members", Some(&owner))
        .await
        .json();
    assert_eq!(after["total"], 1);

    // Signed out: better-auth's UNAUTHORIZED everywhere.
    for (path, body) in [
        (
            "/organization/update-member-role",
            json!({"memberId": member_id, "role": "admin"}),
        ),
        (
            "/organization/remove-member",
            json!({"memberIdOrEmail": member_id}),
        ),
        ("/organization/leave", json!({"organizationId": id})),
        (
            "/organization/has-permission",
            json!({"permissions": {"member": ["create"]}}),
        ),
    ] {
        let reply = stack.post(path, body, None).await;
        assert_eq!(
            (reply.status, reply.error().0.as_str()),
            (401, "UNAUTHORIZED"),
            "{path}"
        );
    }
    for path in [
        "/organization/list-members",
        "/organization/get-active-member",
        "/organization/get-active-member-role",
    ] {
        let reply = stack.get(path, None).await;
        assert_eq!(
            (reply.status, reply.error().0.as_str()),
            (401, "UNAUTHORIZED"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_members_new_profile_reaches_list_members_through_user_updated() {
    let stack = Stack::start(&[]).await;
    let owner = stack.sign_up(&unique_email()).await.cookie_header();
    let org = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": slug()}),
            Some(&owner),
        )
        .await
        .json();
    let member = stack.sign_up(&unique_email()).await.cookie_header();
    let id = org["id"].as_str().unwrap();
    add_member(&stack, id, &user_id(&stack, &member).await, "member").await;

    let image = "https://img.example.com/max.png";
    let renamed = stack
        .post(
            "/update-user",
            json!({"name": "Max Power", "image": image}),
            Some(&member),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    // The organization service answers from its own copy, which the event moves forward.
    eventually("the new profile in list-members", || async {
        let listed = stack
            .get("/organization/list-members", Some(&owner))
            .await
            .json();
        let user = &listed["members"][1]["user"];
        user["name"] == "Max Power" && user["image"] == image
    })
    .await;
}

/// An owner signed up on `stack`, with a new organization active: their cookie.
async fn owner_of_new_organization(stack: &Stack) -> String {
    let cookie = stack.sign_up(&unique_email()).await.cookie_header();
    let created = stack
        .post(
            "/organization/create",
            json!({"name": "Acme", "slug": slug()}),
            Some(&cookie),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    cookie
}

fn retry_after(reply: &crate::common::Reply) -> u64 {
    reply.headers["x-retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// invite-member sends mail, so it counts under the mail rule (`RATE_LIMIT_EMAIL_*`), not the
/// general one.
#[tokio::test]
async fn inviting_counts_under_the_mail_rate_rule() {
    let stack = Stack::start(&[("RATE_LIMIT_EMAIL_MAX", "3")]).await;
    let cookie = owner_of_new_organization(&stack).await;
    let invite = |email: String| json!({"email": email, "role": "member"});
    for attempt in 1..=3 {
        let sent = stack
            .post(
                "/organization/invite-member",
                invite(unique_email()),
                Some(&cookie),
            )
            .await;
        assert_eq!(sent.status, 200, "attempt {attempt}: {}", sent.text);
    }
    let limited = stack
        .post(
            "/organization/invite-member",
            invite(unique_email()),
            Some(&cookie),
        )
        .await;
    assert_eq!(limited.status, 429, "{}", limited.text);
    assert_eq!(limited.error().0, "TOO_MANY_REQUESTS");
    assert!((1..=60).contains(&retry_after(&limited)));
    let listed = stack
        .get("/organization/list-invitations", Some(&cookie))
        .await;
    assert_eq!(
        listed.json().as_array().unwrap().len(),
        3,
        "refused: no invitation"
    );
}

/// Past the per-address limit (`INVITATION_MAILS_PER_RECIPIENT`), a resend is a 429 in the
/// protocol's shape with the wait in `X-Retry-After`, and mails nothing.
#[tokio::test]
async fn resending_to_one_address_stops_at_its_limit() {
    let stack = Stack::start(&[("INVITATION_MAILS_PER_RECIPIENT", "2")]).await;
    let cookie = owner_of_new_organization(&stack).await;
    let target = unique_email();
    let first = stack
        .post(
            "/organization/invite-member",
            json!({"email": target, "role": "member"}),
            Some(&cookie),
        )
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    let again = json!({"email": target, "role": "member", "resend": true});
    let resent = stack
        .post("/organization/invite-member", again.clone(), Some(&cookie))
        .await;
    assert_eq!(resent.status, 200, "{}", resent.text);
    let limited = stack
        .post("/organization/invite-member", again, Some(&cookie))
        .await;
    assert_eq!(limited.status, 429, "{}", limited.text);
    assert_eq!(
        limited.error(),
        (
            "TOO_MANY_INVITATIONS_TO_THIS_EMAIL".into(),
            "Too many invitations were sent to this email address recently. Try again later".into()
        )
    );
    assert!((3590..=3600).contains(&retry_after(&limited)));
    let listed = stack
        .get("/organization/list-invitations", Some(&cookie))
        .await
        .json();
    assert_eq!(
        listed[0]["expiresAt"],
        resent.json()["expiresAt"],
        "not extended"
    );
}
