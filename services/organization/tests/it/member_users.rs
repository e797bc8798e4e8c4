//! The copy of members' users that member lists are answered from, on both backends: written
//! when a user becomes a member, moved forward by identity's own `user.updated` events (never
//! back, and a replay changes nothing), copied once for members who joined before it existed,
//! dropped with the membership — and lists that need no call to identity while every copy is
//! there.

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::Handler;
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_organization::config::Rules;
use gatehouse_organization::member::Members;
use gatehouse_organization::member::events::UserEvents;
use gatehouse_organization::member::query::ListQuery;
use gatehouse_organization::organization::{Caller, NewOrganization, Organization, Organizations};
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::{UserDeleted, UserUpdated};
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::identity::v1::account_service_client::AccountServiceClient;
use gatehouse_proto::identity::v1::email_verification_service_client::EmailVerificationServiceClient;
use prost::Message as _;
use rstest::rstest;

use crate::support::Services;

fn page() -> ListQuery {
    ListQuery {
        filters: Vec::new(),
        sort: "created_at",
        descending: false,
        limit: 100,
        offset: None,
    }
}

/// Olga's organization with Max added server side; `offline` lists through an identity that
/// does not answer.
struct Fixture {
    organizations: Organizations,
    members: Members,
    offline: Members,
    organization: Organization,
    owner: Caller,
    member: Caller,
    services: Services,
    _db: gatehouse_kit::testing::TestDb,
}

async fn fixture(backend: Backend) -> Fixture {
    let services = Services::start().await;
    let (organizations, members, db) = services.capabilities(backend, Rules::default()).await;
    let offline = Members::new(
        organizations.db().clone(),
        Rules::default(),
        services.peers_without_identity().await,
    );
    let mut owner = services.signed_in("Olga").await;
    let slug = format!(
        "org-{}",
        gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
    );
    let new = NewOrganization {
        name: "Acme".into(),
        slug,
        logo: None,
        metadata: None,
        keep_current_active_organization: false,
    };
    let (organization, _) = organizations.create(&owner, new).await.unwrap();
    services.refresh(&mut owner).await;
    let mut member = services.signed_in("Max").await;
    let id = Some(organization.id.as_str());
    members
        .add(None, &member.user_id, &[], id, None)
        .await
        .unwrap();
    member.active_organization_id = Some(organization.id.clone());
    Fixture {
        organizations,
        members,
        offline,
        organization,
        owner,
        member,
        services,
        _db: db,
    }
}

/// `(name, email, image)` of each listed member's user, in list order.
async fn listed(members: &Members, caller: &Caller) -> Vec<(String, String, Option<String>)> {
    let (listed, _) = members.list(caller, None, &page()).await.unwrap();
    listed
        .into_iter()
        .map(|m| {
            let user = m.user.expect("every member is listed with their user");
            (user.name, user.email, user.image)
        })
        .collect()
}

/// Identity's `user.updated` events about `user_id`, oldest first, as it published them.
async fn published(identity: &Db, user_id: &str) -> Vec<Message> {
    let rows: Vec<(String, Vec<u8>)> = query(
        "SELECT id, payload FROM outbox WHERE topic = 'user.updated' ORDER BY created_at, id",
    )
    .fetch_all(identity)
    .await
    .unwrap();
    rows.into_iter()
        .filter(|(_, payload)| UserUpdated::decode(payload.as_slice()).unwrap().user_id == user_id)
        .map(|(id, payload)| Message {
            id,
            topic: UserUpdated::TOPIC.to_string(),
            payload,
            headers: Default::default(),
        })
        .collect()
}

/// Handles `message` as the consumer of `organization.user-events` does: in a transaction.
async fn deliver(f: &Fixture, message: &Message) {
    let mut tx = f.organizations.db().begin().await.unwrap();
    UserEvents.handle(&mut tx, message).await.unwrap();
    tx.commit().await.unwrap();
}

/// The copy of the user: `(name, version)`.
async fn copy(f: &Fixture, user_id: &str) -> Option<(String, i64)> {
    query("SELECT name, version FROM member_users WHERE user_id = $1")
        .bind(user_id)
        .fetch_optional(f.organizations.db())
        .await
        .unwrap()
}

async fn copies(f: &Fixture) -> i64 {
    let (n,): (i64,) = query("SELECT COUNT(*) FROM member_users")
        .fetch_one(f.organizations.db())
        .await
        .unwrap();
    n
}

async fn rename(f: &Fixture, user_id: &str, name: &str) {
    AccountServiceClient::new(f.services.identity())
        .update_user(identity_pb::UpdateUserRequest {
            user_id: user_id.into(),
            name: Some(name.into()),
            ..Default::default()
        })
        .await
        .unwrap();
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn lists_ask_identity_nothing_while_every_copy_exists(#[case] backend: Backend) {
    let f = fixture(backend).await;
    assert!(
        f.offline.active_member(&f.owner).await.is_err(),
        "{backend:?}: this identity really does not answer"
    );
    let users = listed(&f.offline, &f.owner).await;
    let names: Vec<&str> = users.iter().map(|(name, _, _)| name.as_str()).collect();
    assert_eq!(
        names,
        ["Olga", "Max"],
        "{backend:?}: copied on create and add"
    );
    assert_eq!(users[1].1, f.member.email, "{backend:?}");
    assert_eq!(
        listed(&f.members, &f.owner).await,
        users,
        "the same as identity says"
    );
    // A filter and a sort on the column both tables have are the member's.
    let by_user = gatehouse_proto::organization::v1::ListMembersRequest {
        filter_field: Some("userId".into()),
        filter_value: Some(f.member.user_id.clone()),
        sort_by: Some("userId".into()),
        ..Default::default()
    };
    let by_user = gatehouse_organization::member::query::list_query(&by_user, 100).unwrap();
    let (found, total) = f.offline.list(&f.owner, None, &by_user).await.unwrap();
    assert_eq!((found.len(), total), (1, 1), "{backend:?}");
    assert_eq!(found[0].user.as_ref().unwrap().name, "Max");
    let offline = Organizations::new(
        f.organizations.db().clone(),
        Rules::default(),
        f.services.peers_without_identity().await,
    );
    let full = offline
        .get_full(&f.owner, None, None)
        .await
        .unwrap()
        .unwrap();
    assert!(full.members.iter().all(|m| m.user.is_some()), "{backend:?}");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn profile_changes_reach_member_lists_through_user_updated(#[case] backend: Backend) {
    let f = fixture(backend).await;
    let id = f.member.user_id.clone();
    AccountServiceClient::new(f.services.identity())
        .update_user(identity_pb::UpdateUserRequest {
            user_id: id.clone(),
            name: Some("Max Power".into()),
            image: Some("https://img.example.com/max.png".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let new_email = format!(
        "{}@example.org",
        gatehouse_kit::ids::random_alphanumeric(12).to_lowercase()
    );
    let changed = EmailVerificationServiceClient::new(f.services.identity())
        .change_email(identity_pb::ChangeEmailRequest {
            user_id: id.clone(),
            new_email: new_email.clone(),
            callback_url: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(changed.changed, "an unverified address changes at once");

    assert_eq!(
        listed(&f.offline, &f.owner).await[1].0,
        "Max",
        "{backend:?}: nothing yet"
    );
    let events = published(&f.services.identity_db().await, &id).await;
    assert_eq!(events.len(), 2, "one per change");
    for event in &events {
        deliver(&f, event).await;
    }
    assert_eq!(
        listed(&f.offline, &f.owner).await[1],
        (
            "Max Power".to_string(),
            new_email,
            Some("https://img.example.com/max.png".to_string())
        ),
        "{backend:?}"
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn older_and_replayed_events_change_nothing(#[case] backend: Backend) {
    let f = fixture(backend).await;
    let id = f.member.user_id.clone();
    // Two changes in a row: their versions still differ (identity's updated_at only grows).
    rename(&f, &id, "First").await;
    rename(&f, &id, "Second").await;
    let events = published(&f.services.identity_db().await, &id).await;
    let [first, second] = events.as_slice() else {
        panic!("two events, got {}", events.len());
    };
    let version = |m: &Message| {
        UserUpdated::decode(m.payload.as_slice())
            .unwrap()
            .updated_at_unix_ms
    };
    assert!(version(second) > version(first));

    deliver(&f, second).await;
    let newest = Some(("Second".to_string(), version(second)));
    assert_eq!(copy(&f, &id).await, newest, "{backend:?}");
    deliver(&f, first).await;
    assert_eq!(
        copy(&f, &id).await,
        newest,
        "{backend:?}: the older one came late"
    );
    deliver(&f, second).await;
    assert_eq!(copy(&f, &id).await, newest, "{backend:?}: replayed");
    assert_eq!(listed(&f.offline, &f.owner).await[1].0, "Second");

    // A user who is no member gets no copy.
    let stranger = f.services.signed_in("Sid").await;
    rename(&f, &stranger.user_id, "Sidney").await;
    for event in published(&f.services.identity_db().await, &stranger.user_id).await {
        deliver(&f, &event).await;
    }
    assert_eq!(copy(&f, &stranger.user_id).await, None, "{backend:?}");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn members_without_a_copy_are_listed_through_identity_once(#[case] backend: Backend) {
    let f = fixture(backend).await;
    // Members from before the copy existed.
    query("DELETE FROM member_users")
        .execute(f.organizations.db())
        .await
        .unwrap();
    assert!(
        f.offline.list(&f.owner, None, &page()).await.is_err(),
        "{backend:?}: without copies, identity is asked"
    );
    let users = listed(&f.members, &f.owner).await;
    assert_eq!(users[1].1, f.member.email, "{backend:?}: from identity");
    assert_eq!(copies(&f).await, 2, "{backend:?}: and copied");
    assert_eq!(listed(&f.offline, &f.owner).await, users, "{backend:?}");
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn copies_go_with_the_last_membership(#[case] backend: Backend) {
    let f = fixture(backend).await;
    let (ada, _) = f.services.signed_in_with_email("Ada").await;
    let id = Some(f.organization.id.as_str());
    f.members
        .add(None, &ada.user_id, &[], id, None)
        .await
        .unwrap();
    assert_eq!(copies(&f).await, 3, "{backend:?}");

    f.members
        .leave(&f.member, &f.organization.id)
        .await
        .unwrap();
    assert_eq!(copy(&f, &f.member.user_id).await, None, "{backend:?}: left");

    let deleted = Message {
        id: gatehouse_kit::ids::new_id(),
        topic: UserDeleted::TOPIC.to_string(),
        payload: UserDeleted {
            user_id: ada.user_id.clone(),
        }
        .encode_to_vec(),
        headers: Default::default(),
    };
    deliver(&f, &deleted).await;
    assert_eq!(
        copy(&f, &ada.user_id).await,
        None,
        "{backend:?}: user deleted"
    );

    f.organizations
        .delete(&f.owner, &f.organization.id)
        .await
        .unwrap();
    assert_eq!(copies(&f).await, 0, "{backend:?}: organization deleted");
}

/// Lists filling the same members at once (the first lists after the copy existed, under
/// load) each write every copy in one transaction: they wait for each other and all succeed.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn concurrent_fills_of_the_same_members_all_succeed(#[case] backend: Backend) {
    let f = fixture(backend).await;
    let db = f.organizations.db().clone();
    let users: Vec<identity_pb::User> = (0..100)
        .map(|n| identity_pb::User {
            id: format!("filled-{n:03}"),
            name: format!("Filled {n}"),
            email: format!("filled-{n}@example.com"),
            updated_at_unix_ms: 1,
            ..Default::default()
        })
        .collect();
    for user in &users {
        query(
            "INSERT INTO members (id, organization_id, user_id, role, created_at) \
             VALUES ($1, $2, $1, 'member', CURRENT_TIMESTAMP)",
        )
        .bind(user.id.as_str())
        .bind(f.organization.id.as_str())
        .execute(&db)
        .await
        .unwrap();
    }
    // Each fill in its own order, as identity's answer (a map) gives them.
    let fills: Vec<_> = (0..8)
        .map(|n| {
            let mut order = users.clone();
            order.rotate_left(n * 13);
            if n % 2 == 1 {
                order.reverse();
            }
            let db = db.clone();
            tokio::spawn(async move {
                gatehouse_organization::member::users::save_all(&db, order).await
            })
        })
        .collect();
    for fill in fills {
        fill.await
            .unwrap()
            .unwrap_or_else(|error| panic!("{backend:?}: a fill failed: {error}"));
    }
    assert_eq!(copies(&f).await, 102, "{backend:?}: Olga, Max and the 100");
}
