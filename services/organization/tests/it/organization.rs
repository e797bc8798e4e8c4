//! The organization capability against real identity and session services, on both backends:
//! creation with its owner, default team and active organization; slugs; updates and
//! deletion by role; the full organization; the active organization.

use gatehouse_kit::db::{Backend, query};
use gatehouse_organization::config::Rules;
use gatehouse_organization::error::OrganizationError;
use gatehouse_organization::member::{self, Member};
use gatehouse_organization::organization::store::Change;
use gatehouse_organization::organization::{
    Caller, Named, NewOrganization, Organization, Organizations,
};
use rstest::rstest;

use crate::support::Services;

fn new(name: &str, slug: &str) -> NewOrganization {
    NewOrganization {
        name: name.into(),
        slug: slug.into(),
        logo: None,
        metadata: Some(r#"{"plan":"pro"}"#.into()),
        keep_current_active_organization: false,
    }
}

/// `(code, HTTP status)` of a refusal.
fn refused<T: std::fmt::Debug>(result: Result<T, OrganizationError>) -> (String, u16) {
    match result {
        Err(OrganizationError::Refused(failure)) => {
            (failure.code().to_string(), failure.http_status())
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn slug() -> String {
    format!(
        "org-{}",
        gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
    )
}

/// Adds `caller` to the organization with `role`, as an accepted invitation will.
async fn join(
    organizations: &Organizations,
    organization: &Organization,
    caller: &Caller,
    role: &str,
) {
    let mut tx = organizations.db().begin().await.unwrap();
    member::store::insert(
        &mut tx,
        &Member {
            id: gatehouse_kit::ids::new_id(),
            organization_id: organization.id.clone(),
            user_id: caller.user_id.clone(),
            role: role.into(),
            created_at: gatehouse_kit::ids::now(),
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

async fn count(organizations: &Organizations, table: &'static str) -> i64 {
    let sql: &'static str = match table {
        "organizations" => "SELECT COUNT(*) FROM organizations",
        "members" => "SELECT COUNT(*) FROM members",
        "teams" => "SELECT COUNT(*) FROM teams",
        "team_members" => "SELECT COUNT(*) FROM team_members",
        _ => unreachable!(),
    };
    let (n,): (i64,) = query(sql).fetch_one(organizations.db()).await.unwrap();
    n
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_creator_owns_it_its_default_team_and_it_becomes_active(#[case] backend: Backend) {
    let services = Services::start().await;
    let (organizations, _db) = services.organizations(backend, Rules::default()).await;
    let mut owner = services.signed_in("Olga").await;
    let slug = slug();

    let (organization, member) = organizations
        .create(&owner, new("Acme", &slug))
        .await
        .unwrap();
    assert_eq!(organization.slug, slug);
    assert_eq!(organization.metadata.as_deref(), Some(r#"{"plan":"pro"}"#));
    assert_eq!(member.role, "owner");
    assert_eq!(member.user_id, owner.user_id);
    let session = services.refresh(&mut owner).await;
    assert_eq!(
        session.active_organization_id.as_deref(),
        Some(organization.id.as_str()),
        "{backend:?}"
    );
    let full = organizations
        .get_full(&owner, None, None)
        .await
        .unwrap()
        .expect("the active organization");
    assert_eq!(full.organization, organization);
    assert_eq!(full.members.len(), 1);
    assert_eq!(full.members[0].user.as_ref().unwrap().name, "Olga");
    assert_eq!(full.teams.len(), 1, "the default team");
    assert_eq!(full.teams[0].name, "Acme");
    assert_eq!(full.teams[0].member_count, 1);
    assert_eq!(full.teams[0].updated_at, None);
    assert_eq!(
        session.active_team_id.as_deref(),
        Some(full.teams[0].id.as_str())
    );
    assert_eq!(count(&organizations, "team_members").await, 1);
    let topics: Vec<(String,)> = query("SELECT topic FROM outbox ORDER BY created_at, id")
        .fetch_all(organizations.db())
        .await
        .unwrap();
    let mut topics: Vec<String> = topics.into_iter().map(|(t,)| t).collect();
    topics.sort();
    assert_eq!(topics, ["member.added", "organization.created"]);

    // The slug is taken now: refused, and nothing more is created.
    assert_eq!(
        refused(organizations.check_slug(&slug).await),
        ("ORGANIZATION_SLUG_ALREADY_TAKEN".into(), 400)
    );
    let other = services.signed_in("Otto").await;
    assert_eq!(
        refused(organizations.create(&other, new("Acme 2", &slug)).await),
        ("ORGANIZATION_ALREADY_EXISTS".into(), 400)
    );
    assert_eq!(count(&organizations, "organizations").await, 1);
    organizations.check_slug(&self::slug()).await.unwrap();

    // Keeping the current active organization.
    let mut keep = new("Second", &self::slug());
    keep.keep_current_active_organization = true;
    let (second, _) = organizations.create(&owner, keep).await.unwrap();
    let session = services.refresh(&mut owner).await;
    assert_eq!(
        session.active_organization_id,
        Some(organization.id.clone())
    );
    let listed: Vec<String> = organizations
        .list(&owner)
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.id)
        .collect();
    assert_eq!(listed, [organization.id.clone(), second.id.clone()]);
    assert!(organizations.list(&other).await.unwrap().is_empty());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn updates_need_the_update_permission_and_a_free_slug(#[case] backend: Backend) {
    let services = Services::start().await;
    let (organizations, _db) = services.organizations(backend, Rules::default()).await;
    let mut owner = services.signed_in("Olga").await;
    let (organization, _) = organizations
        .create(&owner, new("Acme", &slug()))
        .await
        .unwrap();
    services.refresh(&mut owner).await;
    let (taken, _) = organizations
        .create(&services.signed_in("Otto").await, new("Other", &slug()))
        .await
        .unwrap();
    let admin = services.signed_in("Ada").await;
    join(&organizations, &organization, &admin, "admin").await;
    let plain = services.signed_in("Max").await;
    join(&organizations, &organization, &plain, "member").await;
    let stranger = services.signed_in("Sid").await;
    let id = Some(organization.id.as_str());
    let rename = |name: &str| Change {
        name: Some(name.into()),
        ..Change::default()
    };

    // The active organization is the default.
    let renamed = organizations
        .update(&owner, None, rename("Acme Ltd"))
        .await
        .unwrap();
    assert_eq!(renamed.name, "Acme Ltd");
    let by_admin = organizations
        .update(
            &admin,
            id,
            Change {
                logo: Some(Some("https://acme.example/logo.png".into())),
                metadata: Some(None),
                ..Change::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        by_admin.name, "Acme Ltd",
        "{backend:?}: untouched fields stay"
    );
    assert_eq!(
        by_admin.logo.as_deref(),
        Some("https://acme.example/logo.png")
    );
    assert_eq!(by_admin.metadata, None);

    assert_eq!(
        refused(organizations.update(&plain, id, rename("Mine")).await),
        (
            "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION".into(),
            403
        )
    );
    assert_eq!(
        refused(organizations.update(&stranger, id, rename("Mine")).await),
        ("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION".into(), 400)
    );
    assert_eq!(
        refused(organizations.update(&admin, None, rename("Mine")).await),
        ("ORGANIZATION_NOT_FOUND".into(), 400),
        "no id and no active organization"
    );
    let steal = Change {
        slug: Some(taken.slug.clone()),
        ..Change::default()
    };
    assert_eq!(
        refused(organizations.update(&owner, id, steal).await),
        ("ORGANIZATION_SLUG_ALREADY_TAKEN".into(), 400)
    );
    let own_slug = Change {
        slug: Some(organization.slug.clone()),
        ..Change::default()
    };
    organizations.update(&owner, id, own_slug).await.unwrap();
    let full = organizations
        .get_full(&owner, None, None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        full.organization.name, "Acme Ltd",
        "refusals changed nothing"
    );
    assert_eq!(full.members.len(), 3);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn only_members_see_it_and_a_stranger_loses_it_as_active(#[case] backend: Backend) {
    let services = Services::start().await;
    let (organizations, _db) = services.organizations(backend, Rules::default()).await;
    let owner = services.signed_in("Olga").await;
    let (organization, _) = organizations
        .create(&owner, new("Acme", &slug()))
        .await
        .unwrap();
    let mut stranger = services.signed_in("Sid").await;
    assert!(
        organizations
            .get_full(&stranger, None, None)
            .await
            .unwrap()
            .is_none(),
        "nothing named, nothing active"
    );
    assert_eq!(
        refused(
            organizations
                .get_full(&stranger, Some(Named::Slug("no-such-org")), None)
                .await
        ),
        ("ORGANIZATION_NOT_FOUND".into(), 400)
    );
    // A stale active organization (the member was removed since): refused, and forgotten.
    stranger.active_organization_id = Some(organization.id.clone());
    assert_eq!(
        refused(organizations.get_full(&stranger, None, None).await),
        ("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION".into(), 403)
    );
    assert_eq!(
        refused(
            organizations
                .set_active(&stranger, true, Some(Named::Id(&organization.id)))
                .await
        ),
        ("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION".into(), 403)
    );
    assert_eq!(
        services.refresh(&mut stranger).await.active_organization_id,
        None
    );
    let member = services.signed_in("Max").await;
    join(&organizations, &organization, &member, "member").await;
    let full = organizations
        .get_full(&member, Some(Named::Slug(&organization.slug)), Some(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(full.members.len(), 1, "membersLimit");
    assert!(full.invitations.is_empty());
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_active_organization_is_set_kept_and_cleared(#[case] backend: Backend) {
    let services = Services::start().await;
    let (organizations, _db) = services.organizations(backend, Rules::default()).await;
    let mut owner = services.signed_in("Olga").await;
    let mut keep = new("Acme", &slug());
    keep.keep_current_active_organization = true;
    let (organization, _) = organizations.create(&owner, keep).await.unwrap();
    assert_eq!(
        services.refresh(&mut owner).await.active_organization_id,
        None
    );
    assert_eq!(
        organizations.set_active(&owner, false, None).await.unwrap(),
        None
    );

    let active = organizations
        .set_active(&owner, true, Some(Named::Slug(&organization.slug)))
        .await
        .unwrap();
    assert_eq!(active.as_ref(), Some(&organization));
    let session = services.refresh(&mut owner).await;
    assert_eq!(
        session.active_organization_id,
        Some(organization.id.clone())
    );
    assert_eq!(
        organizations.set_active(&owner, false, None).await.unwrap(),
        Some(organization.clone()),
        "{backend:?}: no name: the current one"
    );
    // An unknown id is "not a member"; an unknown slug "not found" (as better-auth answers).
    assert_eq!(
        refused(
            organizations
                .set_active(&owner, true, Some(Named::Id("no-such-id")))
                .await
        ),
        ("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION".into(), 403)
    );
    assert_eq!(
        refused(
            organizations
                .set_active(&owner, true, Some(Named::Slug("no-such-slug")))
                .await
        ),
        ("ORGANIZATION_NOT_FOUND".into(), 400)
    );
    assert_eq!(
        organizations.set_active(&owner, true, None).await.unwrap(),
        None
    );
    assert_eq!(
        services.refresh(&mut owner).await.active_organization_id,
        None
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn owners_delete_it_with_everything_in_it(#[case] backend: Backend) {
    let services = Services::start().await;
    let (organizations, _db) = services.organizations(backend, Rules::default()).await;
    let mut owner = services.signed_in("Olga").await;
    let (organization, _) = organizations
        .create(&owner, new("Acme", &slug()))
        .await
        .unwrap();
    services.refresh(&mut owner).await;
    let admin = services.signed_in("Ada").await;
    join(&organizations, &organization, &admin, "admin").await;

    assert_eq!(
        refused(organizations.delete(&admin, &organization.id).await),
        (
            "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION".into(),
            403
        )
    );
    let stranger = services.signed_in("Sid").await;
    assert_eq!(
        refused(organizations.delete(&stranger, &organization.id).await),
        ("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION".into(), 400)
    );
    let deleted = organizations
        .delete(&owner, &organization.id)
        .await
        .unwrap();
    assert_eq!(deleted, organization);
    for table in ["organizations", "members", "teams", "team_members"] {
        assert_eq!(
            count(&organizations, table).await,
            0,
            "{backend:?}: {table}"
        );
    }
    assert_eq!(
        services.refresh(&mut owner).await.active_organization_id,
        None
    );
    let (deleted_events,): (i64,) =
        query("SELECT COUNT(*) FROM outbox WHERE topic = 'organization.deleted'")
            .fetch_one(organizations.db())
            .await
            .unwrap();
    assert_eq!(deleted_events, 1);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[tokio::test]
async fn creation_and_deletion_can_be_switched_off_and_limited(#[case] backend: Backend) {
    let services = Services::start().await;
    let owner = services.signed_in("Olga").await;
    let off = Rules {
        creation_enabled: false,
        ..Rules::default()
    };
    let (organizations, _db) = services.organizations(backend, off).await;
    assert_eq!(
        refused(organizations.create(&owner, new("Acme", &slug())).await),
        (
            "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION".into(),
            403
        )
    );
    let limited = Rules {
        organization_limit: Some(1),
        deletion_enabled: false,
        ..Rules::default()
    };
    let (organizations, _db) = services.organizations(backend, limited).await;
    let (organization, _) = organizations
        .create(&owner, new("Acme", &slug()))
        .await
        .unwrap();
    assert_eq!(
        refused(organizations.create(&owner, new("Beta", &slug())).await),
        (
            "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS".into(),
            403
        )
    );
    assert_eq!(
        refused(organizations.delete(&owner, &organization.id).await),
        ("ORGANIZATION_DELETION_DISABLED".into(), 404)
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_deleted_user_leaves_every_organization_and_empty_ones_go(#[case] backend: Backend) {
    use gatehouse_kit::bus::Message;
    use gatehouse_kit::consumer::Handler;
    use gatehouse_organization::member::events::UserEvents;
    use gatehouse_proto::events::Event;
    use gatehouse_proto::events::v1::UserDeleted;
    use prost::Message as _;

    let services = Services::start().await;
    let (organizations, _db) = services.organizations(backend, Rules::default()).await;
    let leaving = services.signed_in("Lea").await;
    let staying = services.signed_in("Sam").await;
    let (alone, _) = organizations
        .create(&leaving, new("Alone", &slug()))
        .await
        .unwrap();
    let (shared, _) = organizations
        .create(&staying, new("Shared", &slug()))
        .await
        .unwrap();
    join(&organizations, &shared, &leaving, "admin").await;

    let message = Message {
        id: gatehouse_kit::ids::new_id(),
        topic: UserDeleted::TOPIC.to_string(),
        payload: UserDeleted {
            user_id: leaving.user_id.clone(),
        }
        .encode_to_vec(),
        headers: Default::default(),
    };
    let mut tx = organizations.db().begin().await.unwrap();
    UserEvents.handle(&mut tx, &message).await.unwrap();
    tx.commit().await.unwrap();

    assert_eq!(
        count(&organizations, "organizations").await,
        1,
        "{backend:?}"
    );
    assert!(organizations.list(&leaving).await.unwrap().is_empty());
    let full = organizations
        .get_full(&staying, Some(Named::Id(&shared.id)), None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(full.members.len(), 1, "only the one who stays");
    assert_eq!(count(&organizations, "team_members").await, 1);
    let (deleted,): (i64,) =
        query("SELECT COUNT(*) FROM outbox WHERE topic = 'organization.deleted'")
            .fetch_one(organizations.db())
            .await
            .unwrap();
    assert_eq!(deleted, 1, "{}: announced", alone.id);
}
