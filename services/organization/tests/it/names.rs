//! Organization and team names refuse control characters from gRPC callers too (the gateway
//! refuses them first, in the same words), on both backends, and a refusal changes nothing.

use gatehouse_kit::db::Backend;
use gatehouse_kit::errors::Failure;
use gatehouse_organization::config::Rules;
use gatehouse_organization::organization::{Caller, NewOrganization};
use gatehouse_proto::organization::v1 as pb;
use gatehouse_proto::organization::v1::organization_service_server::OrganizationService;
use gatehouse_proto::organization::v1::team_service_server::TeamService;
use rstest::rstest;
use tonic::Request;

use crate::support::Services;

const LINE_BREAK: &str = "Acme\r\nBcc: everyone@example.com";

fn caller(caller: &Caller) -> Option<pb::Caller> {
    Some(pb::Caller {
        user_id: caller.user_id.clone(),
        session_token: caller.session_token.clone(),
        active_organization_id: caller.active_organization_id.clone(),
        active_team_id: caller.active_team_id.clone(),
        email: caller.email.clone(),
        email_verified: caller.email_verified,
    })
}

fn refused(status: tonic::Status, field: &str) {
    let failure = Failure::from_status(&status);
    assert_eq!(failure.code(), "VALIDATION_ERROR", "{status:?}");
    assert_eq!(
        failure.message(),
        format!("[body.{field}] Invalid string: must not contain control characters")
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn a_name_with_a_control_character_is_refused_and_changes_nothing(#[case] backend: Backend) {
    let services = Services::start().await;
    let (organizations, _db) = services.organizations(backend, Rules::default()).await;
    let teams = services.teams(&organizations, Rules::default());
    let mut owner = services.signed_in("Olga").await;
    let slug = format!(
        "names-{}",
        gatehouse_kit::ids::random_alphanumeric(8).to_lowercase()
    );

    let created = organizations
        .create_organization(Request::new(pb::CreateOrganizationRequest {
            caller: caller(&owner),
            name: LINE_BREAK.into(),
            slug: slug.clone(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    refused(created, "name");
    assert!(
        organizations.list(&owner).await.unwrap().is_empty(),
        "none made"
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
    owner.active_organization_id = Some(organization.id.clone());
    let renamed = organizations
        .update_organization(Request::new(pb::UpdateOrganizationRequest {
            caller: caller(&owner),
            name: Some("Acme\u{85}Inc".into()),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    refused(renamed, "data.name");

    let team = teams
        .create_team(Request::new(pb::CreateTeamRequest {
            caller: caller(&owner),
            name: "Team\tA".into(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    refused(team, "name");
    let listed = teams.list(&owner, None).await.unwrap();
    assert_eq!(listed.len(), 1, "only the default team: {listed:?}");
    let renamed = teams
        .update_team(Request::new(pb::UpdateTeamRequest {
            caller: caller(&owner),
            team_id: listed[0].id.clone(),
            name: Some(
                "Team \u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\".into(),
            ),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    refused(renamed, "data.name");

    let names: Vec<String> = organizations
        .list(&owner)
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.name)
        .collect();
    assert_eq!(names, ["Acme"]);
    let teams_now = teams.list(&owner, None).await.unwrap();
    assert_eq!(teams_now[0].name, "Acme", "the default team keeps its name");
}
