//! The member capability against real identity and session services, on both backends: adding
//! (server side), listing with filters, sorting and paging, roles and the owner rules, removal
//! by id and by email, leaving, and has-permission — each refusal with better-auth's code.

use gatehouse_kit::access::Request;
use gatehouse_kit::db::{Backend, query};
use gatehouse_organization::config::Rules;
use gatehouse_organization::error::OrganizationError;
use gatehouse_organization::member::Members;
use gatehouse_organization::member::query::ListQuery;
use gatehouse_organization::organization::{Caller, Named, NewOrganization, Organization};
use rstest::rstest;
use serde_json::json;

use crate::support::Services;

fn refused<T: std::fmt::Debug>(result: Result<T, OrganizationError>) -> (String, u16) {
    match result {
        Err(OrganizationError::Refused(failure)) => {
            (failure.code().to_string(), failure.http_status())
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn roles(list: &[&str]) -> Vec<String> {
    list.iter().map(|r| r.to_string()).collect()
}

fn page(limit: u64) -> ListQuery {
    ListQuery {
        filters: Vec::new(),
        sort: "created_at",
        descending: false,
        limit,
        offset: None,
    }
}

/// An organization owned by Olga, with Ada (admin) and Max (member) added server side.
struct Fixture {
    members: Members,
    organization: Organization,
    owner: Caller,
    admin: Caller,
    member: Caller,
    member_email: String,
    _services: Services,
    _db: gatehouse_kit::testing::TestDb,
}

async fn fixture(backend: Backend) -> Fixture {
    let services = Services::start().await;
    let (organizations, members, db) = services.capabilities(backend, Rules::default()).await;
    let mut owner = services.signed_in("Olga").await;
    let slug = format!(
        "org-{}",
        gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
    );
    let (organization, _) = organizations
        .create(
            &owner,
            NewOrganization {
                name: "Acme".into(),
                slug,
                logo: None,
                metadata: None,
                keep_current_active_organization: false,
            },
        )
        .await
        .unwrap();
    services.refresh(&mut owner).await;
    let mut admin = services.signed_in("Ada").await;
    let (mut member, member_email) = services.signed_in_with_email("Max").await;
    let id = Some(organization.id.as_str());
    members
        .add(None, &admin.user_id, &roles(&["admin"]), id, None)
        .await
        .unwrap();
    members
        .add(None, &member.user_id, &[], id, None)
        .await
        .unwrap();
    admin.active_organization_id = Some(organization.id.clone());
    member.active_organization_id = Some(organization.id.clone());
    Fixture {
        members,
        organization,
        owner,
        admin,
        member,
        member_email,
        _services: services,
        _db: db,
    }
}

async fn member_id(f: &Fixture, caller: &Caller) -> String {
    f.members.active_member(caller).await.unwrap().member.id
}

/// Every page of the three members, and its total: from the page when nothing follows it,
/// counted when something does or the offset is past the end.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn every_page_and_total_is_the_plain_offset_of_the_list(#[case] backend: Backend) {
    let f = fixture(backend).await;
    let (all, _) = f.members.list(&f.owner, None, &page(100)).await.unwrap();
    let all: Vec<String> = all.into_iter().map(|m| m.member.id).collect();
    assert_eq!(all.len(), 3);
    for limit in [0, 1, 2, 3, 4] {
        for offset in [None, Some(0), Some(1), Some(2), Some(3), Some(5)] {
            let mut query = page(limit);
            query.offset = offset;
            let (listed, total) = f.members.list(&f.owner, None, &query).await.unwrap();
            let from = usize::try_from(offset.unwrap_or(0)).unwrap().min(3);
            let to = (from + usize::try_from(limit).unwrap()).min(3);
            let ids: Vec<String> = listed.into_iter().map(|m| m.member.id).collect();
            assert_eq!(
                (ids, total),
                (all[from..to].to_vec(), 3),
                "{backend:?}: limit {limit} offset {offset:?}"
            );
        }
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn members_are_added_listed_filtered_sorted_and_paged(#[case] backend: Backend) {
    let f = fixture(backend).await;
    let (listed, total) = f.members.list(&f.owner, None, &page(100)).await.unwrap();
    assert_eq!(total, 3, "{backend:?}");
    let names: Vec<&str> = listed
        .iter()
        .map(|m| m.user.as_ref().unwrap().name.as_str())
        .collect();
    assert_eq!(names, ["Olga", "Ada", "Max"], "oldest first");
    assert_eq!(listed[2].member.role, "member", "no role given: member");

    let mut second = page(1);
    second.offset = Some(1);
    second.descending = true;
    let (one, total) = f.members.list(&f.owner, None, &second).await.unwrap();
    assert_eq!((one.len(), total), (1, 3));
    assert_eq!(one[0].member.user_id, f.admin.user_id);

    let query = gatehouse_proto::organization::v1::ListMembersRequest {
        filter_field: Some("role".into()),
        filter_value: Some("admin".into()),
        ..Default::default()
    };
    let admins = gatehouse_organization::member::query::list_query(&query, 100).unwrap();
    let (found, total) = f.members.list(&f.admin, None, &admins).await.unwrap();
    assert_eq!((found.len(), total), (1, 1));
    let unknown = gatehouse_proto::organization::v1::ListMembersRequest {
        sort_by: Some("nope".into()),
        ..Default::default()
    };
    assert!(gatehouse_organization::member::query::list_query(&unknown, 100).is_err());

    // Adding refuses what better-auth refuses.
    let id = Some(f.organization.id.as_str());
    assert_eq!(
        refused(f.members.add(None, &f.member.user_id, &[], id, None).await),
        ("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION".into(), 400)
    );
    assert_eq!(
        refused(f.members.add(None, "no-such-user", &[], id, None).await),
        ("USER_NOT_FOUND".into(), 400)
    );
    let stranger = f._services.signed_in("Sid").await;
    assert_eq!(
        refused(
            f.members
                .add(None, &stranger.user_id, &roles(&["boss"]), id, None)
                .await
        ),
        ("ROLE_NOT_FOUND".into(), 400)
    );
    assert_eq!(
        refused(
            f.members
                .list(&stranger, Some(Named::Id(&f.organization.id)), &page(10))
                .await
        ),
        ("YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION".into(), 403)
    );
    assert_eq!(
        refused(f.members.list(&stranger, None, &page(10)).await),
        ("NO_ACTIVE_ORGANIZATION".into(), 400)
    );
    assert_eq!(
        refused(f.members.active_member(&stranger).await),
        ("NO_ACTIVE_ORGANIZATION".into(), 400)
    );
    assert_eq!(
        f.members
            .active_role(&f.admin, Some(&f.owner.user_id), None)
            .await
            .unwrap(),
        "owner"
    );
    assert_eq!(
        refused(
            f.members
                .active_role(&f.admin, Some(&stranger.user_id), None)
                .await
        ),
        ("YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION".into(), 403)
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn roles_change_by_permission_and_owners_stay(#[case] backend: Backend) {
    let f = fixture(backend).await;
    let (owner_id, admin_id, member_id) = (
        member_id(&f, &f.owner).await,
        member_id(&f, &f.admin).await,
        member_id(&f, &f.member).await,
    );
    let not_allowed = ("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER".to_string(), 403);
    assert_eq!(
        refused(
            f.members
                .update_role(&f.member, &admin_id, &roles(&["member"]), None)
                .await
        ),
        not_allowed,
        "{backend:?}: members may not"
    );
    assert_eq!(
        refused(
            f.members
                .update_role(&f.admin, &owner_id, &roles(&["member"]), None)
                .await
        ),
        not_allowed,
        "admins may not change an owner"
    );
    assert_eq!(
        refused(
            f.members
                .update_role(&f.admin, &member_id, &roles(&["owner"]), None)
                .await
        ),
        not_allowed,
        "nor make one"
    );
    let unknown = f
        .members
        .update_role(&f.admin, &member_id, &roles(&["nope"]), None)
        .await;
    match unknown {
        Err(OrganizationError::Refused(failure)) => {
            assert_eq!(failure.code(), "ROLE_NOT_FOUND");
            assert_eq!(failure.message(), "ROLE_NOT_FOUND: nope");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        refused(
            f.members
                .update_role(&f.admin, "nope", &roles(&["member"]), None)
                .await
        ),
        ("MEMBER_NOT_FOUND".into(), 400)
    );
    assert_eq!(
        refused(
            f.members
                .update_role(&f.owner, &owner_id, &roles(&["admin"]), None)
                .await
        ),
        (
            "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER".into(),
            400
        )
    );

    let updated = f
        .members
        .update_role(&f.admin, &member_id, &roles(&["admin", "member"]), None)
        .await
        .unwrap();
    assert_eq!(updated.role, "admin,member");
    assert_eq!(
        f.members.active_role(&f.member, None, None).await.unwrap(),
        "admin,member",
        "effective on the next request"
    );
    let wanted = |v| Request::from_json(&v).unwrap();
    assert!(
        f.members
            .has_permission(
                &f.member,
                None,
                &wanted(json!({"member": ["create"]})),
                false
            )
            .await
            .unwrap()
    );
    assert!(
        !f.members
            .has_permission(
                &f.admin,
                None,
                &wanted(json!({"organization": ["delete"]})),
                false
            )
            .await
            .unwrap()
    );
    // The api-key plugin's check lets the creator role do anything, even what no statement
    // grants; others still need the statement.
    let api_keys = wanted(json!({"apiKey": ["create"]}));
    assert!(
        !f.members
            .has_permission(&f.owner, None, &api_keys, false)
            .await
            .unwrap()
    );
    assert!(
        f.members
            .has_permission(&f.owner, None, &api_keys, true)
            .await
            .unwrap()
    );
    assert!(
        !f.members
            .has_permission(&f.admin, None, &api_keys, true)
            .await
            .unwrap()
    );
    // An owner may hand ownership on; then the old owner may step down.
    f.members
        .update_role(&f.owner, &admin_id, &roles(&["owner"]), None)
        .await
        .unwrap();
    f.members
        .update_role(&f.owner, &owner_id, &roles(&["admin"]), None)
        .await
        .unwrap();
    let stranger = f._services.signed_in("Sid").await;
    assert_eq!(
        refused(
            f.members
                .has_permission(
                    &stranger,
                    Some(&f.organization.id),
                    &wanted(json!({"member": ["create"]})),
                    false
                )
                .await
        ),
        ("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION".into(), 401)
    );
    let (events,): (i64,) =
        query("SELECT COUNT(*) FROM outbox WHERE topic = 'member.role-updated'")
            .fetch_one(f.members_db())
            .await
            .unwrap();
    assert_eq!(events, 3);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn members_are_removed_by_id_or_email_and_leave_but_the_last_owner_stays(
    #[case] backend: Backend,
) {
    let f = fixture(backend).await;
    let (owner_id, admin_id) = (member_id(&f, &f.owner).await, member_id(&f, &f.admin).await);
    assert_eq!(
        refused(f.members.leave(&f.owner, &f.organization.id).await),
        (
            "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER".into(),
            400
        ),
        "{backend:?}"
    );
    assert_eq!(
        refused(f.members.remove(&f.admin, &owner_id, None).await),
        (
            "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER".into(),
            400
        )
    );
    assert_eq!(
        refused(f.members.remove(&f.member, &admin_id, None).await),
        ("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER".into(), 401)
    );
    assert_eq!(
        refused(f.members.remove(&f.admin, "nobody@example.com", None).await),
        ("MEMBER_NOT_FOUND".into(), 400)
    );
    let by_email = f
        .members
        .remove(&f.admin, &f.member_email.to_uppercase(), None)
        .await
        .unwrap();
    assert_eq!(by_email.member.user_id, f.member.user_id);
    assert_eq!(by_email.user.unwrap().email, f.member_email);
    assert_eq!(
        refused(f.members.leave(&f.member, &f.organization.id).await),
        ("MEMBER_NOT_FOUND".into(), 400),
        "gone already"
    );
    let left = f.members.leave(&f.admin, &f.organization.id).await.unwrap();
    assert_eq!(left.id, admin_id);
    let (_, total) = f.members.list(&f.owner, None, &page(10)).await.unwrap();
    assert_eq!(total, 1);
    let (removed,): (i64,) = query("SELECT COUNT(*) FROM outbox WHERE topic = 'member.removed'")
        .fetch_one(f.members_db())
        .await
        .unwrap();
    assert_eq!(removed, 2);
}

impl Fixture {
    fn members_db(&self) -> &gatehouse_kit::db::Db {
        self.members.db()
    }
}
