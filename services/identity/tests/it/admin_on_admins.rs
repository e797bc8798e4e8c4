//! Admins acting on admins, on each backend: every admin action on another admin is refused
//! unless the actor is a super-admin (`ADMIN_USER_IDS`), and changes nothing; a password or an
//! email an admin sets ends the user's sessions (`user.credentials-changed`) and mails them,
//! in the transaction of the change.

use gatehouse_identity::admin::{Admin, Named, change_role};
use gatehouse_identity::email_password::SignUp;
use gatehouse_identity::error::IdentityError;
use gatehouse_identity::user::User;
use gatehouse_identity::username::UsernameRules;
use gatehouse_kit::db::{Backend, query};
use gatehouse_kit::errors::{ErrorCode, admin as codes};
use gatehouse_proto::events::v1::{MailKind, MailRequested, UserCredentialsChanged};
use prost::Message as _;
use rstest::rstest;
use serde_json::{Map, Value, json};

use crate::common::{Setup, admin_settings, refused, setup};

const PASSWORD: &str = "Correct-Horse-9";
const NEW_PASSWORD: &str = "Another-Horse-10";

async fn user(t: &Setup, name: &str, role: Option<&str>) -> User {
    let id = t
        .rules
        .sign_up(SignUp {
            name: name.into(),
            email: format!("{}@example.com", name.to_lowercase()),
            password: PASSWORD.into(),
            language: Some(6),
            ..Default::default()
        })
        .await
        .unwrap()
        .user
        .id;
    if let Some(role) = role {
        change_role(&t.db, Named::Id(&id), role, true)
            .await
            .unwrap();
    }
    t.users.get(&id).await.unwrap()
}

fn data(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

/// Every event written so far, in order: (topic, payload).
async fn outbox(t: &Setup) -> Vec<(String, Vec<u8>)> {
    query("SELECT topic, payload FROM outbox ORDER BY created_at, id")
        .fetch_all(&t.db)
        .await
        .unwrap()
}

async fn of_topic(t: &Setup, topic: &str) -> Vec<Vec<u8>> {
    outbox(t)
        .await
        .into_iter()
        .filter(|(found, _)| found == topic)
        .map(|(_, payload)| payload)
        .collect()
}

async fn mails(t: &Setup) -> Vec<MailRequested> {
    of_topic(t, "mail.requested")
        .await
        .iter()
        .map(|payload| MailRequested::decode(payload.as_slice()).unwrap())
        .collect()
}

async fn signed_out(t: &Setup) -> Vec<String> {
    of_topic(t, "user.credentials-changed")
        .await
        .iter()
        .map(|payload| {
            UserCredentialsChanged::decode(payload.as_slice())
                .unwrap()
                .user_id
        })
        .collect()
}

/// Each admin action `actor` may try on `target`, with the code an admin target refuses it with.
async fn every_action(admin: &Admin, actor: &str, target: &str) -> Vec<(&'static str, String)> {
    let code = |result: Result<(), IdentityError>| match result {
        Ok(()) => "allowed".to_string(),
        Err(error) => refused::<()>(Err(error)),
    };
    let on = |data_value: Value| data(data_value);
    vec![
        (
            "set-role",
            code(
                admin
                    .set_role(actor, target, &["user".into()])
                    .await
                    .map(drop),
            ),
        ),
        (
            "update-user name",
            code(
                admin
                    .edit_user(actor, target, on(json!({"name": "Hacked"})))
                    .await
                    .map(drop),
            ),
        ),
        (
            "update-user email",
            code(
                admin
                    .edit_user(actor, target, on(json!({"email": "taken@evil.example"})))
                    .await
                    .map(drop),
            ),
        ),
        (
            "update-user role",
            code(
                admin
                    .edit_user(actor, target, on(json!({"role": "user"})))
                    .await
                    .map(drop),
            ),
        ),
        (
            "update-user ban",
            code(
                admin
                    .edit_user(actor, target, on(json!({"banned": true})))
                    .await
                    .map(drop),
            ),
        ),
        (
            "ban-user",
            code(admin.ban_user(actor, target, None, None).await.map(drop)),
        ),
        (
            "unban-user",
            code(admin.unban_user(actor, target).await.map(drop)),
        ),
        (
            "set-user-password",
            code(admin.set_user_password(actor, target, NEW_PASSWORD).await),
        ),
        ("remove-user", code(admin.remove_user(actor, target).await)),
        (
            "impersonate-user",
            code(admin.impersonate(actor, target).await.map(drop)),
        ),
    ]
}

fn refusals() -> Vec<(&'static str, String)> {
    let c = |code: ErrorCode| code.code().to_string();
    vec![
        ("set-role", c(codes::YOU_CANNOT_CHANGE_ADMINS_ROLE)),
        ("update-user name", c(codes::YOU_CANNOT_UPDATE_ADMINS)),
        ("update-user email", c(codes::YOU_CANNOT_UPDATE_ADMINS)),
        ("update-user role", c(codes::YOU_CANNOT_UPDATE_ADMINS)),
        ("update-user ban", c(codes::YOU_CANNOT_UPDATE_ADMINS)),
        ("ban-user", c(codes::YOU_CANNOT_BAN_ADMINS)),
        ("unban-user", c(codes::YOU_CANNOT_BAN_ADMINS)),
        (
            "set-user-password",
            c(codes::YOU_CANNOT_SET_ADMINS_PASSWORD),
        ),
        ("remove-user", c(codes::YOU_CANNOT_REMOVE_ADMINS)),
        ("impersonate-user", c(codes::YOU_CANNOT_IMPERSONATE_ADMINS)),
    ]
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_admin_acting_on_another_admin_is_refused_and_changes_nothing(#[case] backend: Backend) {
    let t = setup(backend).await;
    let actor = user(&t, "Actor", Some("admin")).await;
    // Any role of ADMIN_ROLES makes an admin, also among several.
    let peer = user(&t, "Peer", Some("admin")).await;
    let multi = user(&t, "Multi", None).await;
    t.admin
        .set_role(&actor.id, &multi.id, &["user".into(), "admin".into()])
        .await
        .unwrap();
    let multi = t.users.get(&multi.id).await.unwrap();

    for target in [&peer, &multi] {
        let before = outbox(&t).await;
        assert_eq!(
            every_action(&t.admin, &actor.id, &target.id).await,
            refusals(),
            "{backend:?}: {}",
            target.role
        );
        assert_eq!(
            t.users.get(&target.id).await.unwrap(),
            *target,
            "{backend:?}: the admin is untouched"
        );
        assert_eq!(outbox(&t).await, before, "{backend:?}: no event, no mail");
        t.rules
            .sign_in(&target.email, PASSWORD)
            .await
            .expect("the password is unchanged");
        // The sessions the gateway ends itself are refused through Authorize's target check.
        let revoke = t
            .admin
            .authorize_on(&actor, &target.id, codes::YOU_CANNOT_REVOKE_ADMINS_SESSIONS)
            .await;
        assert_eq!(
            refused(revoke),
            codes::YOU_CANNOT_REVOKE_ADMINS_SESSIONS.code(),
            "{backend:?}"
        );
    }

    // A super-admin (ADMIN_USER_IDS) counts as an admin whatever their role.
    let root = user(&t, "Root", None).await;
    let configured = Admin::new(
        t.db.clone(),
        t.rules.clone(),
        UsernameRules::default(),
        admin_settings(vec![root.id.clone()]),
    );
    let before = outbox(&t).await;
    assert_eq!(
        every_action(&configured, &actor.id, &root.id).await,
        refusals(),
        "{backend:?}: the super-admin"
    );
    assert_eq!(t.users.get(&root.id).await.unwrap(), root);
    assert_eq!(outbox(&t).await, before);

    // Users who are no admins, an unknown user, and the actor themselves are fair game.
    let plain = user(&t, "Plain", None).await;
    t.admin
        .authorize_on(&actor, &plain.id, codes::YOU_CANNOT_REVOKE_ADMINS_SESSIONS)
        .await
        .unwrap();
    t.admin
        .authorize_on(&actor, "nobody", codes::YOU_CANNOT_REVOKE_ADMINS_SESSIONS)
        .await
        .unwrap();
    t.admin
        .edit_user(&actor.id, &actor.id, data(json!({"name": "Me Again"})))
        .await
        .unwrap();
    let stepped_down = t
        .admin
        .set_role(&actor.id, &actor.id, &["user".into()])
        .await
        .unwrap();
    assert_eq!(
        stepped_down.role, "user",
        "{backend:?}: an admin may step down"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_super_admin_acts_on_admins(#[case] backend: Backend) {
    let t = setup(backend).await;
    let root = user(&t, "Root", None).await;
    let other_root = user(&t, "Second", None).await;
    let admin = Admin::new(
        t.db.clone(),
        t.rules.clone(),
        UsernameRules::default(),
        admin_settings(vec![root.id.clone(), other_root.id.clone()]),
    );
    let peer = user(&t, "Peer", Some("admin")).await;

    admin
        .set_user_password(&root.id, &peer.id, NEW_PASSWORD)
        .await
        .unwrap();
    t.rules.sign_in(&peer.email, NEW_PASSWORD).await.unwrap();
    let renamed = admin
        .edit_user(
            &root.id,
            &peer.id,
            data(json!({"name": "Renamed", "email": "moved@example.com"})),
        )
        .await
        .unwrap();
    assert_eq!(
        (renamed.user.email.as_str(), renamed.sessions_ended),
        ("moved@example.com", true)
    );
    admin
        .authorize_on(&root, &peer.id, codes::YOU_CANNOT_REVOKE_ADMINS_SESSIONS)
        .await
        .unwrap();
    assert!(
        admin
            .ban_user(&root.id, &peer.id, None, None)
            .await
            .unwrap()
            .banned
    );
    assert!(!admin.unban_user(&root.id, &peer.id).await.unwrap().banned);
    let demoted = admin
        .set_role(&root.id, &peer.id, &["user".into()])
        .await
        .unwrap();
    assert_eq!(demoted.role, "user", "{backend:?}");
    // And on another super-admin.
    admin
        .edit_user(&root.id, &other_root.id, data(json!({"name": "Also Root"})))
        .await
        .unwrap();
    admin.remove_user(&root.id, &other_root.id).await.unwrap();
    assert!(t.users.get(&other_root.id).await.is_err(), "{backend:?}");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_password_or_email_an_admin_sets_signs_the_user_out_and_mails_them(
    #[case] backend: Backend,
) {
    let t = setup(backend).await;
    let actor = user(&t, "Actor", Some("admin")).await;
    let target = user(&t, "Target", None).await;
    let sign_up_mails = mails(&t).await.len();

    t.admin
        .set_user_password(&actor.id, &target.id, NEW_PASSWORD)
        .await
        .unwrap();
    t.rules
        .sign_in(&target.email, NEW_PASSWORD)
        .await
        .expect("the new password");
    assert_eq!(
        signed_out(&t).await,
        std::slice::from_ref(&target.id),
        "{backend:?}: every session of theirs ends"
    );
    let mail = mails(&t).await.pop().unwrap();
    assert_eq!(
        (
            mail.kind(),
            mail.to.as_str(),
            mail.language,
            mail.name.as_str()
        ),
        (
            MailKind::PasswordSetByAdmin,
            "target@example.com",
            6,
            "Target"
        ),
        "{backend:?}: in the user's language"
    );
    assert_eq!(
        (mail.link_path.as_str(), mail.user_id.as_str()),
        ("/forgot-password/", target.id.as_str())
    );

    // A user who had no password (created by an admin) gets a credential account, and the
    // same mail.
    let made = t
        .admin
        .create_user(
            &actor.id,
            gatehouse_identity::admin::NewUserByAdmin {
                email: "made@example.com".into(),
                name: "Made".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    t.admin
        .set_user_password(&actor.id, &made.id, NEW_PASSWORD)
        .await
        .unwrap();
    t.rules
        .sign_in("made@example.com", NEW_PASSWORD)
        .await
        .unwrap();
    assert_eq!(signed_out(&t).await.len(), 2, "{backend:?}");

    // A new email: the OLD address hears of it, naming the new one.
    let moved = t
        .admin
        .edit_user(
            &actor.id,
            &target.id,
            data(json!({"email": "Elsewhere@Example.com"})),
        )
        .await
        .unwrap();
    assert!(moved.sessions_ended, "{backend:?}");
    assert_eq!(moved.user.email, "elsewhere@example.com");
    let mail = mails(&t).await.pop().unwrap();
    assert_eq!(
        (mail.kind(), mail.to.as_str()),
        (MailKind::EmailChangedByAdmin, "target@example.com"),
        "{backend:?}: to the address they were moved from"
    );
    assert_eq!(
        mail.params.get("new_email").map(String::as_str),
        Some("elsewhere@example.com")
    );
    assert_eq!(mail.link_path, "/sign-in/");
    assert_eq!(signed_out(&t).await.last(), Some(&target.id));

    // The same address again (in another case), a name or a flag: nobody is signed out.
    let (events, mailed) = (signed_out(&t).await.len(), mails(&t).await.len());
    for same in [
        json!({"email": "ELSEWHERE@example.com"}),
        json!({"name": "Just A Name"}),
        json!({"emailVerified": true}),
    ] {
        let edited = t
            .admin
            .edit_user(&actor.id, &target.id, data(same.clone()))
            .await
            .unwrap();
        assert!(!edited.sessions_ended, "{backend:?}: {same}");
    }
    assert_eq!(
        (signed_out(&t).await.len(), mails(&t).await.len()),
        (events, mailed),
        "{backend:?}"
    );
    // A refused change (the address is taken) writes no mail and no event either.
    let taken = t
        .admin
        .edit_user(
            &actor.id,
            &target.id,
            data(json!({"email": "actor@example.com"})),
        )
        .await;
    assert_eq!(
        refused(taken),
        codes::USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL.code()
    );
    assert_eq!(
        (signed_out(&t).await.len(), mails(&t).await.len()),
        (events, mailed),
        "{backend:?}: rolled back with the change"
    );
    // A ban through update-user ends the sessions too (user.banned).
    let banned = t
        .admin
        .edit_user(&actor.id, &target.id, data(json!({"banned": true})))
        .await
        .unwrap();
    assert!(banned.sessions_ended, "{backend:?}");
    assert_eq!(mails(&t).await.len() - sign_up_mails, 3, "{backend:?}");
}
