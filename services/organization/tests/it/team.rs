//! The team capability against real identity and session services, on both backends:
//! creating, renaming and removing teams (with the last-team and active-team rules), the
//! session's active team, a user's teams, and team membership — each refusal with
//! better-auth's code and status, and nothing changed by a refusal.

use gatehouse_kit::db::{Backend, query};
use gatehouse_organization::config::Rules;
use gatehouse_organization::error::OrganizationError;
use gatehouse_organization::member::Members;
use gatehouse_organization::organization::{
    Caller, Named, NewOrganization, Organization, Organizations,
};
use gatehouse_organization::team::Teams;
use rstest::rstest;

use crate::support::Services;

fn refused<T: std::fmt::Debug>(result: Result<T, OrganizationError>) -> (String, u16) {
    match result {
        Err(OrganizationError::Refused(failure)) => {
            (failure.code().to_string(), failure.http_status())
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn code(code: &str, status: u16) -> (String, u16) {
    (code.to_string(), status)
}

/// An organization owned by Olga (in its default team, which is active), with Ada (admin)
/// and Max (member) added server side and the organization active in their sessions.
struct Fixture {
    organizations: Organizations,
    members: Members,
    teams: Teams,
    organization: Organization,
    default_team: String,
    owner: Caller,
    admin: Caller,
    member: Caller,
    services: Services,
    _db: gatehouse_kit::testing::TestDb,
}

async fn create(organizations: &Organizations, caller: &Caller, name: &str) -> Organization {
    let slug = format!(
        "org-{}",
        gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
    );
    let new = NewOrganization {
        name: name.into(),
        slug,
        logo: None,
        metadata: None,
        keep_current_active_organization: false,
    };
    organizations.create(caller, new).await.unwrap().0
}

async fn fixture(backend: Backend, rules: Rules) -> Fixture {
    let services = Services::start().await;
    let (organizations, members, db) = services.capabilities(backend, rules.clone()).await;
    let teams = services.teams(&organizations, rules);
    let mut owner = services.signed_in("Olga").await;
    let organization = create(&organizations, &owner, "Acme").await;
    services.refresh(&mut owner).await;
    let default_team = owner
        .active_team_id
        .clone()
        .expect("the default team is active");
    let mut admin = services.signed_in("Ada").await;
    let mut member = services.signed_in("Max").await;
    let id = Some(organization.id.as_str());
    members
        .add(None, &admin.user_id, &["admin".to_string()], id, None)
        .await
        .unwrap();
    members
        .add(None, &member.user_id, &[], id, None)
        .await
        .unwrap();
    for caller in [&mut admin, &mut member] {
        let named = Some(Named::Id(organization.id.as_str()));
        organizations.set_active(caller, true, named).await.unwrap();
        services.refresh(caller).await;
    }
    Fixture {
        organizations,
        members,
        teams,
        organization,
        default_team,
        owner,
        admin,
        member,
        services,
        _db: db,
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn teams_are_created_renamed_listed_and_removed_by_who_may(#[case] backend: Backend) {
    let f = fixture(backend, Rules::default()).await;
    let team = f
        .teams
        .create(&f.admin, "Support".into(), None)
        .await
        .unwrap();
    assert_eq!(
        (team.organization_id.as_str(), team.member_count),
        (f.organization.id.as_str(), 0),
        "{backend:?}: in the active organization, nobody in it yet"
    );
    assert_eq!(
        team.updated_at,
        Some(team.created_at),
        "better-auth stamps both"
    );
    assert_eq!(
        refused(f.teams.create(&f.member, "Mine".into(), None).await),
        code(
            "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION",
            403
        )
    );
    let stranger = f.services.signed_in("Sam").await;
    let elsewhere = Some(f.organization.id.as_str());
    assert_eq!(
        refused(f.teams.create(&stranger, "Spy".into(), elsewhere).await),
        code(
            "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
            403
        ),
        "better-auth's code for a non-member (sic)"
    );
    assert_eq!(
        refused(f.teams.create(&stranger, "Nowhere".into(), None).await),
        code("NO_ACTIVE_ORGANIZATION", 400)
    );

    let renamed = f
        .teams
        .update(&f.owner, &team.id, Some("Care".into()), None)
        .await
        .unwrap();
    assert_eq!(renamed.name, "Care");
    assert!(renamed.updated_at >= team.updated_at);
    let touched = f
        .teams
        .update(&f.owner, &team.id, None, None)
        .await
        .unwrap();
    assert_eq!(touched.name, "Care", "no name: only updatedAt moves");
    assert_eq!(
        refused(
            f.teams
                .update(&f.member, &team.id, Some("X".into()), None)
                .await
        ),
        code("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM", 403)
    );
    assert_eq!(
        refused(
            f.teams
                .update(&f.owner, "no-such-team", Some("X".into()), None)
                .await
        ),
        code("TEAM_NOT_FOUND", 400)
    );

    let names: Vec<String> = f
        .teams
        .list(&f.member, None)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        ["Acme", "Care"],
        "oldest first, the default team first"
    );
    assert_eq!(
        refused(f.teams.list(&stranger, elsewhere).await),
        code("YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION", 403)
    );

    // Removing: not by a plain member, never the caller's active team, never the last one.
    assert_eq!(
        refused(f.teams.remove(&f.member, &team.id, None).await),
        code(
            "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION",
            403
        )
    );
    assert_eq!(
        refused(f.teams.remove(&f.owner, &f.default_team, None).await),
        code("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM", 403),
        "the owner's active team"
    );
    f.teams.remove(&f.admin, &team.id, None).await.unwrap();
    assert_eq!(
        refused(f.teams.remove(&f.admin, &team.id, None).await),
        code("TEAM_NOT_FOUND", 400)
    );
    assert_eq!(
        refused(f.teams.remove(&f.admin, &f.default_team, None).await),
        code("UNABLE_TO_REMOVE_LAST_TEAM", 400)
    );
    assert_eq!(f.teams.list(&f.owner, None).await.unwrap().len(), 1);
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn team_members_are_added_once_listed_and_removed(#[case] backend: Backend) {
    let f = fixture(backend, Rules::default()).await;
    let team = f.teams.create(&f.owner, "Ops".into(), None).await.unwrap();
    let added = f
        .teams
        .add_member(&f.admin, &team.id, &f.member.user_id, None)
        .await
        .unwrap();
    assert_eq!(
        (added.team_id.as_str(), added.user_id.as_str()),
        (team.id.as_str(), f.member.user_id.as_str()),
        "{backend:?}"
    );
    let again = f
        .teams
        .add_member(&f.admin, &team.id, &f.member.user_id, None)
        .await
        .unwrap();
    assert_eq!(again, added, "adding twice gives the same place back");

    assert_eq!(
        refused(
            f.teams
                .add_member(&f.member, &team.id, &f.admin.user_id, None)
                .await
        ),
        code("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER", 403)
    );
    let stranger = f.services.signed_in("Sam").await;
    assert_eq!(
        refused(
            f.teams
                .add_member(&f.owner, &team.id, &stranger.user_id, None)
                .await
        ),
        code("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", 400),
        "only the organization's members join its teams"
    );
    assert_eq!(
        refused(
            f.teams
                .add_member(&f.owner, "no-such-team", &f.admin.user_id, None)
                .await
        ),
        code("TEAM_NOT_FOUND", 400)
    );

    // Only the team's own members list it.
    let mut member = f.member.clone();
    let listed = f.teams.members(&member, Some(&team.id)).await.unwrap();
    assert_eq!(listed, vec![added.clone()]);
    assert_eq!(
        refused(f.teams.members(&f.admin, Some(&team.id)).await),
        code("USER_IS_NOT_A_MEMBER_OF_THE_TEAM", 400)
    );
    assert_eq!(
        refused(f.teams.members(&member, None).await),
        code("YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM", 400)
    );

    // The session's active team: only one of the caller's teams, in the active organization.
    assert_eq!(
        f.teams.set_active(&member, false, None).await.unwrap(),
        (None, false),
        "nothing active: nothing to re-affirm"
    );
    let (active, changed) = f
        .teams
        .set_active(&member, true, Some(&team.id))
        .await
        .unwrap();
    assert_eq!(
        (active.map(|t| t.id), changed),
        (Some(team.id.clone()), true)
    );
    f.services.refresh(&mut member).await;
    assert_eq!(member.active_team_id.as_deref(), Some(team.id.as_str()));
    assert_eq!(f.teams.members(&member, None).await.unwrap().len(), 1);
    assert_eq!(
        refused(
            f.teams
                .set_active(&member, true, Some(&f.default_team))
                .await
        ),
        code("USER_IS_NOT_A_MEMBER_OF_THE_TEAM", 403)
    );
    let (current, _) = f.teams.set_active(&member, false, None).await.unwrap();
    assert_eq!(
        current.map(|t| t.id),
        Some(team.id.clone()),
        "not set: the current one"
    );

    // A user's teams: their own anywhere, another member's only for who may update members.
    let mine = f.teams.list_for_user(&member, None, None).await.unwrap();
    assert_eq!(mine.iter().map(|t| &t.id).collect::<Vec<_>>(), [&team.id]);
    let theirs = f
        .teams
        .list_for_user(&f.admin, Some(&f.member.user_id), None)
        .await
        .unwrap();
    assert_eq!(theirs, mine);
    assert_eq!(
        refused(
            f.teams
                .list_for_user(&member, Some(&f.admin.user_id), None)
                .await
        ),
        code("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER", 403)
    );

    assert_eq!(
        refused(
            f.teams
                .remove_member(&member, &team.id, &f.member.user_id, None)
                .await
        ),
        code("YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER", 403)
    );
    f.teams
        .remove_member(&f.owner, &team.id, &f.member.user_id, None)
        .await
        .unwrap();
    assert_eq!(
        refused(
            f.teams
                .remove_member(&f.owner, &team.id, &f.member.user_id, None)
                .await
        ),
        code("USER_IS_NOT_A_MEMBER_OF_THE_TEAM", 400)
    );
    assert!(
        f.teams
            .list_for_user(&member, None, None)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        refused(f.teams.set_active(&member, false, None).await),
        code("USER_IS_NOT_A_MEMBER_OF_THE_TEAM", 403),
        "the current team is checked again"
    );
    assert_eq!(
        f.teams.set_active(&member, true, None).await.unwrap(),
        (None, true)
    );
    f.services.refresh(&mut member).await;
    assert_eq!(member.active_team_id, None, "cleared");
    assert_eq!(
        f.teams.set_active(&member, true, None).await.unwrap(),
        (None, false)
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_removed_team_leaves_no_memberships_and_no_invitation_names_it(#[case] backend: Backend) {
    let f = fixture(backend, Rules::default()).await;
    let keep = f.teams.create(&f.owner, "Keep".into(), None).await.unwrap();
    let gone = f.teams.create(&f.owner, "Gone".into(), None).await.unwrap();
    f.teams
        .add_member(&f.owner, &gone.id, &f.member.user_id, None)
        .await
        .unwrap();
    let invitation = format!("inv-{}", gatehouse_kit::ids::random_alphanumeric(8));
    let mut tx = f.organizations.db().begin().await.unwrap();
    query(
        "INSERT INTO invitations (id, organization_id, email, role, team_id, status, \
         expires_at, created_at, inviter_id) VALUES ($1, $2, 'x@example.com', 'member', $3, \
         'pending', $4, $4, $5)",
    )
    .bind(invitation.as_str())
    .bind(f.organization.id.as_str())
    .bind(format!("{},{}", gone.id, keep.id))
    .bind(gatehouse_kit::ids::now() + chrono::Duration::hours(1))
    .bind(f.owner.user_id.as_str())
    .execute(&mut tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();

    f.teams.remove(&f.owner, &gone.id, None).await.unwrap();
    assert!(
        f.teams
            .list_for_user(&f.member, None, None)
            .await
            .unwrap()
            .is_empty(),
        "{backend:?}: the memberships went with the team"
    );
    let (team_id,): (Option<String>,) = query("SELECT team_id FROM invitations WHERE id = $1")
        .bind(invitation.as_str())
        .fetch_one(f.organizations.db())
        .await
        .unwrap();
    assert_eq!(team_id.as_deref(), Some(keep.id.as_str()));

    // A member removed from the organization leaves its teams too.
    f.teams
        .add_member(&f.owner, &keep.id, &f.admin.user_id, None)
        .await
        .unwrap();
    let admin_member = f.members.active_member(&f.admin).await.unwrap().member.id;
    f.members
        .remove(&f.owner, &admin_member, None)
        .await
        .unwrap();
    assert!(
        f.teams
            .list_for_user(&f.admin, None, None)
            .await
            .unwrap()
            .is_empty()
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn limits_and_the_last_team_are_configurable(#[case] backend: Backend) {
    let rules = Rules {
        team_limit: Some(2),
        team_member_limit: Some(1),
        allow_removing_all_teams: true,
        ..Rules::default()
    };
    let f = fixture(backend, rules).await;
    let second = f.teams.create(&f.owner, "Two".into(), None).await.unwrap();
    assert_eq!(
        refused(f.teams.create(&f.owner, "Three".into(), None).await),
        code("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS", 400),
        "{backend:?}"
    );
    f.teams
        .add_member(&f.owner, &second.id, &f.admin.user_id, None)
        .await
        .unwrap();
    assert_eq!(
        refused(
            f.teams
                .add_member(&f.owner, &second.id, &f.member.user_id, None)
                .await
        ),
        code("TEAM_MEMBER_LIMIT_REACHED", 403)
    );
    f.teams.remove(&f.admin, &second.id, None).await.unwrap();
    f.teams
        .remove(&f.admin, &f.default_team, None)
        .await
        .unwrap();
    assert!(f.teams.list(&f.owner, None).await.unwrap().is_empty());
}
