//! Who may answer an invitation (`INVITATION_REQUIRE_EMAIL_VERIFICATION`, on by default), on
//! both backends against real identity and session services: a user who took the invited
//! address without owning it (unverified addresses change at once) and a stranger holding the
//! mailed link are both refused, and nothing changes; the real invitee, unverified, answers
//! with the mailed link's token and ends verified, in identity and in their session; a resend's
//! link replaces the earlier one; with the setting off, better-auth's default comes back.

use gatehouse_kit::db::Backend;
use gatehouse_organization::config::Rules;
use gatehouse_organization::invitation::Invitations;
use gatehouse_organization::organization::Caller;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::identity::v1::email_verification_service_client::EmailVerificationServiceClient;
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;
use rstest::rstest;

use crate::invitation::{invite, mailed_token, refused, setup};
use crate::support::Services;

const UNVERIFIED: &str = "EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION";

fn address() -> String {
    format!(
        "invitee-{}@example.com",
        gatehouse_kit::ids::random_alphanumeric(10).to_lowercase()
    )
}

/// The user as identity has them now.
async fn identity_user(services: &Services, user_id: &str) -> identity_pb::User {
    UserServiceClient::new(services.identity())
        .get_user(identity_pb::GetUserRequest {
            id: user_id.to_string(),
        })
        .await
        .unwrap()
        .into_inner()
        .user
        .unwrap()
}

/// A user who signed up with an address of her own, then changed it to `email` (at once: she
/// had not verified hers): her session shows `email`, unverified.
async fn taken_over(services: &Services, email: &str) -> Caller {
    let mut attacker = services.signed_in("Mallory").await;
    let changed = EmailVerificationServiceClient::new(services.identity())
        .change_email(identity_pb::ChangeEmailRequest {
            user_id: attacker.user_id.clone(),
            new_email: email.to_string(),
            callback_url: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(changed.changed, "an unverified address changes at once");
    attacker.email = email.to_string();
    attacker
}

async fn members(invitations: &Invitations) -> i64 {
    let (n,): (i64,) = gatehouse_kit::db::query("SELECT COUNT(*) FROM members")
        .fetch_one(invitations.db())
        .await
        .unwrap();
    n
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn taking_the_address_or_the_link_alone_takes_no_invitation(#[case] backend: Backend) {
    let services = Services::start().await;
    let (invitations, _organization, owner, _db) =
        setup(&services, backend, Rules::default()).await;
    let email = address();
    let admin = ["admin".to_string()];
    let invitation = invitations
        .invite(&owner, invite(&email, &admin))
        .await
        .unwrap();
    let token = mailed_token(invitations.db(), &invitation.id).await;

    let attacker = taken_over(&services, &email).await;
    for guess in [None, Some("not-the-token"), Some("")] {
        assert_eq!(
            refused(invitations.accept(&attacker, &invitation.id, guess).await),
            (UNVERIFIED.into(), 403),
            "{backend:?}: the address alone, token {guess:?}"
        );
        assert_eq!(
            refused(invitations.reject(&attacker, &invitation.id, guess).await),
            (UNVERIFIED.into(), 403)
        );
    }
    assert_eq!(
        refused(invitations.get(&attacker, &invitation.id, None).await),
        ("EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION".into(), 403)
    );
    let mut stranger = services.signed_in("Sid").await;
    stranger.email_verified = true;
    assert_eq!(
        refused(
            invitations
                .accept(&stranger, &invitation.id, Some(&token))
                .await
        ),
        ("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION".into(), 403),
        "the link alone"
    );

    // The link opened with a session read before its user moved off the address: identity
    // verifies only the address the user has now.
    let (moving, moving_email) = services.signed_in_with_email("Moe").await;
    let second = invitations
        .invite(&owner, invite(&moving_email, &admin))
        .await
        .unwrap();
    let second_token = mailed_token(invitations.db(), &second.id).await;
    EmailVerificationServiceClient::new(services.identity())
        .change_email(identity_pb::ChangeEmailRequest {
            user_id: moving.user_id.clone(),
            new_email: address(),
            callback_url: None,
        })
        .await
        .unwrap();
    assert_eq!(
        refused(
            invitations
                .accept(&moving, &second.id, Some(&second_token))
                .await
        ),
        ("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION".into(), 403),
        "{backend:?}: a stale session"
    );
    assert!(
        !identity_user(&services, &moving.user_id)
            .await
            .email_verified
    );

    let listed = invitations.list(&owner, None).await.unwrap();
    assert_eq!(
        (listed[0].status.as_str(), listed[0].role.as_str()),
        ("pending", "admin"),
        "untouched"
    );
    assert_eq!(listed[1].status, "pending");
    assert_eq!(members(&invitations).await, 1, "nobody joined");
    assert!(
        !identity_user(&services, &attacker.user_id)
            .await
            .email_verified
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_mailed_link_lets_its_unverified_invitee_in_and_verifies_the_address(
    #[case] backend: Backend,
) {
    let services = Services::start().await;
    let (invitations, organization, owner, _db) = setup(&services, backend, Rules::default()).await;
    let (invitee, email) = services.signed_in_with_email("Ivan").await;
    services.session_user(&invitee).await;
    let admin = ["admin".to_string()];
    let invitation = invitations
        .invite(&owner, invite(&email, &admin))
        .await
        .unwrap();
    let first_link = mailed_token(invitations.db(), &invitation.id).await;
    let mut again = invite(&email, &admin);
    again.resend = true;
    invitations.invite(&owner, again).await.unwrap();
    let token = mailed_token(invitations.db(), &invitation.id).await;
    assert_ne!(token, first_link, "a resend mails a new link");

    assert_eq!(
        refused(invitations.get(&invitee, &invitation.id, None).await).0,
        "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION",
        "{backend:?}"
    );
    let details = invitations
        .get(&invitee, &invitation.id, Some(&token))
        .await
        .unwrap();
    assert_eq!(details.organization_name, organization.name);
    assert!(
        !identity_user(&services, &invitee.user_id)
            .await
            .email_verified,
        "looking verifies nothing"
    );
    assert_eq!(
        refused(
            invitations
                .accept(&invitee, &invitation.id, Some(&first_link))
                .await
        ),
        (UNVERIFIED.into(), 403),
        "the earlier mail's link was replaced"
    );

    let accepted = invitations
        .accept(&invitee, &invitation.id, Some(&token))
        .await
        .unwrap();
    assert!(accepted.email_verified);
    assert_eq!(accepted.invitation.status, "accepted");
    assert_eq!(accepted.member.role, "admin");
    assert!(
        identity_user(&services, &invitee.user_id)
            .await
            .email_verified
    );
    assert!(
        services.session_user(&invitee).await.email_verified,
        "{backend:?}: the session shows it at once"
    );

    // Rejecting with the link proves the address as well.
    let (declining, other) = services.signed_in_with_email("Dana").await;
    let second = invitations
        .invite(&owner, invite(&other, &admin))
        .await
        .unwrap();
    let token = mailed_token(invitations.db(), &second.id).await;
    let rejected = invitations
        .reject(&declining, &second.id, Some(&token))
        .await
        .unwrap();
    assert_eq!(rejected.invitation.status, "rejected");
    assert!(rejected.email_verified);
    assert!(
        identity_user(&services, &declining.user_id)
            .await
            .email_verified
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn with_the_setting_off_the_address_is_enough_as_in_better_auth(#[case] backend: Backend) {
    let services = Services::start().await;
    let rules = Rules {
        invitation_requires_verified_email: false,
        ..Rules::default()
    };
    let (invitations, _organization, owner, _db) = setup(&services, backend, rules).await;
    let email = address();
    let invitation = invitations
        .invite(&owner, invite(&email, &["member".to_string()]))
        .await
        .unwrap();
    let holder = taken_over(&services, &email).await;
    invitations
        .get(&holder, &invitation.id, None)
        .await
        .unwrap();
    let accepted = invitations
        .accept(&holder, &invitation.id, None)
        .await
        .unwrap();
    assert_eq!(accepted.invitation.status, "accepted", "{backend:?}");
    assert!(!accepted.email_verified);
    assert!(
        !identity_user(&services, &holder.user_id)
            .await
            .email_verified,
        "nothing proved the mailbox"
    );
}
