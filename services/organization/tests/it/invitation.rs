//! The invitation capability against real identity and session services, on both backends: an
//! invitation and its mail written together, re-sent, accepted once (a member, the
//! organization active), rejected, canceled, expired, and the limits.

use std::time::Duration;

use gatehouse_kit::db::{Backend, query};
use gatehouse_organization::config::Rules;
use gatehouse_organization::error::OrganizationError;
use gatehouse_organization::invitation::Invitations;
use gatehouse_organization::invitation::rules::NewInvitation;
use gatehouse_organization::organization::{Caller, NewOrganization, Organization};
use gatehouse_proto::events::v1::{MailKind, MailRequested};
use prost::Message as _;
use rstest::rstest;

use crate::support::Services;

pub fn refused<T: std::fmt::Debug>(result: Result<T, OrganizationError>) -> (String, u16) {
    match result {
        Err(OrganizationError::Refused(failure)) => {
            (failure.code().to_string(), failure.http_status())
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The token in the link of the newest mail of the invitation, as its recipient reads it.
pub async fn mailed_token(db: &gatehouse_kit::db::Db, invitation_id: &str) -> String {
    let mails: Vec<(Vec<u8>,)> =
        query("SELECT payload FROM outbox WHERE topic = 'mail.requested' ORDER BY created_at, id")
            .fetch_all(db)
            .await
            .unwrap();
    let prefix = format!("/accept-invitation/{invitation_id}?token=");
    mails
        .iter()
        .filter_map(|(payload,)| {
            let mail = MailRequested::decode(payload.as_slice()).unwrap();
            let rest = mail.link_path.strip_prefix(&prefix)?;
            Some(rest.split('&').next().unwrap_or(rest).to_string())
        })
        .next_back()
        .expect("a mail of the invitation")
}

pub fn invite<'a>(email: &'a str, roles: &'a [String]) -> NewInvitation<'a> {
    NewInvitation {
        email,
        roles,
        organization_id: None,
        resend: false,
        team_ids: &[],
    }
}

pub async fn setup(
    services: &Services,
    backend: Backend,
    rules: Rules,
) -> (
    Invitations,
    Organization,
    Caller,
    gatehouse_kit::testing::TestDb,
) {
    let (organizations, _, db) = services.capabilities(backend, rules.clone()).await;
    let invitations = Invitations::new(organizations.db().clone(), rules, services.peers());
    let mut owner = services.signed_in("Olga").await;
    let (organization, _) = organizations
        .create(
            &owner,
            NewOrganization {
                name: "Acme".into(),
                slug: format!(
                    "org-{}",
                    gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
                ),
                logo: None,
                metadata: None,
                keep_current_active_organization: false,
            },
        )
        .await
        .unwrap();
    services.refresh(&mut owner).await;
    (invitations, organization, owner, db)
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn an_invitation_is_mailed_resent_and_accepted_once(#[case] backend: Backend) {
    let services = Services::start().await;
    let (invitations, organization, owner, _db) = setup(&services, backend, Rules::default()).await;
    let (mut invitee, email) = services.signed_in_with_email("Ivan").await;
    let admin = ["admin".to_string()];

    let invitation = invitations
        .invite(&owner, invite(&email.to_uppercase(), &admin))
        .await
        .unwrap();
    assert_eq!(invitation.email, email);
    assert_eq!(invitation.status, "pending");
    let mails: Vec<(Vec<u8>,)> = query("SELECT payload FROM outbox WHERE topic = 'mail.requested'")
        .fetch_all(invitations.db())
        .await
        .unwrap();
    assert_eq!(mails.len(), 1, "{backend:?}: the mail, with the invitation");
    let mail = MailRequested::decode(mails[0].0.as_slice()).unwrap();
    assert_eq!(mail.kind, i32::from(MailKind::OrganizationInvitation));
    assert_eq!(mail.to, email);
    assert_eq!(mail.name, "Ivan", "an account: their name");
    let (token, address) = mail
        .link_path
        .strip_prefix(&format!("/accept-invitation/{}?token=", invitation.id))
        .and_then(|rest| rest.split_once("&email="))
        .expect("the page, the invitation, its token and the invited address");
    assert_eq!(token.len(), 32);
    assert_eq!(
        address,
        url::form_urlencoded::byte_serialize(email.as_bytes()).collect::<String>()
    );
    assert_eq!(mail.params["organization"], "Acme");
    assert_eq!(mail.params["inviter"], "Olga");
    assert_eq!(mail.expires_in_seconds, 172_800);

    assert_eq!(
        refused(invitations.invite(&owner, invite(&email, &admin)).await),
        ("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION".into(), 400)
    );
    let mut again = invite(&email, &admin);
    again.resend = true;
    let resent = invitations.invite(&owner, again).await.unwrap();
    assert_eq!(resent.id, invitation.id);
    assert!(resent.expires_at >= invitation.expires_at);

    let token = mailed_token(invitations.db(), &invitation.id).await;
    let accepted = invitations
        .accept(&invitee, &invitation.id, Some(&token))
        .await
        .unwrap();
    assert_eq!(accepted.invitation.status, "accepted");
    assert_eq!(
        (
            accepted.member.role.as_str(),
            accepted.member.user_id.as_str()
        ),
        ("admin", invitee.user_id.as_str())
    );
    services.refresh(&mut invitee).await;
    assert_eq!(
        invitee.active_organization_id,
        Some(organization.id.clone())
    );
    assert_eq!(
        refused(
            invitations
                .accept(&invitee, &invitation.id, Some(&token))
                .await
        ),
        ("INVITATION_NOT_FOUND".into(), 400),
        "once"
    );
    assert_eq!(
        refused(invitations.invite(&owner, invite(&email, &admin)).await),
        ("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION".into(), 400)
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn only_open_invitations_are_acted_on_by_whom_they_are_for(#[case] backend: Backend) {
    let services = Services::start().await;
    let rules = Rules {
        invitation_expires_in: Duration::from_secs(1),
        invitation_limit: 2,
        ..Rules::default()
    };
    let (invitations, _organization, owner, _db) = setup(&services, backend, rules).await;
    let (invitee, email) = services.signed_in_with_email("Ivan").await;
    let member = ["member".to_string()];
    let stranger = services.signed_in("Sid").await;

    let first = invitations
        .invite(&owner, invite(&email, &member))
        .await
        .unwrap();
    assert_eq!(
        refused(invitations.accept(&stranger, &first.id, None).await),
        ("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION".into(), 403)
    );
    assert_eq!(
        refused(invitations.cancel(&stranger, &first.id).await),
        ("MEMBER_NOT_FOUND".into(), 400)
    );
    let token = mailed_token(invitations.db(), &first.id).await;
    let rejected = invitations
        .reject(&invitee, &first.id, Some(&token))
        .await
        .unwrap();
    assert_eq!(rejected.invitation.status, "rejected", "{backend:?}");
    assert_eq!(
        refused(invitations.cancel(&owner, &first.id).await),
        ("INVITATION_NOT_FOUND".into(), 400),
        "settled: nothing more to do"
    );

    let second = invitations
        .invite(&owner, invite(&email, &member))
        .await
        .unwrap();
    invitations
        .invite(&owner, invite("other@example.com", &member))
        .await
        .unwrap();
    assert_eq!(
        refused(
            invitations
                .invite(&owner, invite("third@example.com", &member))
                .await
        ),
        ("INVITATION_LIMIT_REACHED".into(), 403)
    );
    assert_eq!(
        refused(
            invitations
                .invite(&owner, invite("x@example.com", &["owner".to_string()]))
                .await
        )
        .0,
        "INVITATION_LIMIT_REACHED"
    );
    // Expired: nobody can act on it, and it no longer counts against the limit.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(
        refused(invitations.accept(&invitee, &second.id, None).await),
        ("INVITATION_NOT_FOUND".into(), 400)
    );
    invitations
        .invite(&owner, invite("third@example.com", &member))
        .await
        .unwrap();
    let listed = invitations.list(&owner, None).await.unwrap();
    assert_eq!(listed.len(), 4);
}
