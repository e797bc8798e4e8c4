//! The invitation mail limits on both backends: sends and resends to one address, from every
//! organization together, and from one organization, counted over a sliding window from the
//! database; a refusal is a 429 with the wait, and changes nothing (no invitation, no mail,
//! no new expiry); many sends at once to one address still stop at the limit.

use std::time::Duration;

use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_organization::config::{InvitationMailLimits, Rules};
use gatehouse_organization::error::OrganizationError;
use gatehouse_organization::invitation::Invitations;
use gatehouse_organization::invitation::rules::NewInvitation;
use gatehouse_organization::organization::{NewOrganization, Organizations};
use rstest::rstest;

use crate::invitation::{invite, refused, setup};
use crate::support::Services;

fn limited(window_secs: u64, per_recipient: u32, per_organization: u32) -> Rules {
    Rules {
        invitation_mails: InvitationMailLimits {
            window: Duration::from_secs(window_secs),
            per_recipient,
            per_organization,
        },
        ..Rules::default()
    }
}

fn resend<'a>(email: &'a str, roles: &'a [String]) -> NewInvitation<'a> {
    NewInvitation {
        resend: true,
        ..invite(email, roles)
    }
}

async fn count(db: &Db, sql: &'static str) -> i64 {
    let (n,): (i64,) = query(sql).fetch_one(db).await.unwrap();
    n
}

async fn mails(db: &Db) -> i64 {
    count(
        db,
        "SELECT COUNT(*) FROM outbox WHERE topic = 'mail.requested'",
    )
    .await
}

/// The refusal's code, status and wait in seconds.
fn throttled<T: std::fmt::Debug>(result: Result<T, OrganizationError>) -> (String, u16, u64) {
    match result {
        Err(OrganizationError::Refused(failure)) => (
            failure.code().to_string(),
            failure.http_status(),
            failure
                .retry_after_secs()
                .expect("a 429 says how long to wait"),
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn invitation_mails_are_limited_per_address_and_per_organization(#[case] backend: Backend) {
    let services = Services::start().await;
    let (invitations, _organization, owner, _db) =
        setup(&services, backend, limited(3600, 3, 5)).await;
    let db = invitations.db().clone();
    let member = ["member".to_string()];
    let target = "target@example.com";

    let first = invitations
        .invite(&owner, invite(target, &member))
        .await
        .unwrap();
    invitations
        .invite(&owner, resend(target, &member))
        .await
        .unwrap();
    let last = invitations
        .invite(&owner, resend(&target.to_uppercase(), &member))
        .await
        .unwrap();
    assert_eq!(mails(&db).await, 3, "{backend:?}");
    let (code, status, wait) = throttled(invitations.invite(&owner, resend(target, &member)).await);
    assert_eq!(
        (code.as_str(), status),
        ("TOO_MANY_INVITATIONS_TO_THIS_EMAIL", 429),
        "{backend:?}: a fourth mail to the address within the hour"
    );
    assert!(
        (3590..=3600).contains(&wait),
        "until the first leaves the window: {wait}"
    );
    assert_eq!(mails(&db).await, 3, "refused: no mail");
    let unchanged = invitations.list(&owner, None).await.unwrap();
    assert_eq!(unchanged.len(), 1);
    assert_eq!(unchanged[0].id, first.id);
    assert_eq!(
        unchanged[0].expires_at, last.expires_at,
        "refused: no new expiry"
    );

    // The address's count is every organization's: another one may not mail it either.
    let mut other_owner = services.signed_in("Oleg").await;
    let organizations = Organizations::new(db.clone(), Rules::default(), services.peers());
    organizations
        .create(
            &other_owner,
            NewOrganization {
                name: "Other".into(),
                slug: "other".into(),
                logo: None,
                metadata: None,
                keep_current_active_organization: false,
            },
        )
        .await
        .unwrap();
    services.refresh(&mut other_owner).await;
    let elsewhere = Invitations::new(db.clone(), limited(3600, 3, 5), services.peers());
    assert_eq!(
        throttled(
            elsewhere
                .invite(&other_owner, invite(target, &member))
                .await
        )
        .0,
        "TOO_MANY_INVITATIONS_TO_THIS_EMAIL"
    );
    assert!(elsewhere.list(&other_owner, None).await.unwrap().is_empty());

    // The organization's count: two more addresses, then no more.
    for email in ["second@example.com", "third@example.com"] {
        invitations
            .invite(&owner, invite(email, &member))
            .await
            .unwrap();
    }
    let (code, status, _) = throttled(
        invitations
            .invite(&owner, invite("fourth@example.com", &member))
            .await,
    );
    assert_eq!(
        (code.as_str(), status),
        ("TOO_MANY_INVITATIONS_FROM_THIS_ORGANIZATION", 429)
    );
    assert_eq!(mails(&db).await, 5);
    assert_eq!(invitations.list(&owner, None).await.unwrap().len(), 3);
    // better-auth's own refusals come first.
    assert_eq!(
        refused(invitations.invite(&owner, invite(target, &member)).await),
        ("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION".into(), 400)
    );
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test]
async fn the_window_slides(#[case] backend: Backend) {
    let services = Services::start().await;
    let (invitations, _organization, owner, _db) =
        setup(&services, backend, limited(1, 1, 0)).await;
    let member = ["member".to_string()];
    let target = "slide@example.com";
    invitations
        .invite(&owner, invite(target, &member))
        .await
        .unwrap();
    let (code, _, wait) = throttled(invitations.invite(&owner, resend(target, &member)).await);
    assert_eq!(code, "TOO_MANY_INVITATIONS_TO_THIS_EMAIL", "{backend:?}");
    assert_eq!(wait, 1);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    invitations
        .invite(&owner, resend(target, &member))
        .await
        .expect("the first mail has left the window");
    assert_eq!(mails(invitations.db()).await, 2);
}

/// Forty resends at once (what one inviter fired at one address in a tenth of a second): the
/// limit holds, counted by the database, and every other one is a clean 429.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_sends_at_once_stop_at_the_limit(#[case] backend: Backend) {
    let services = Services::start().await;
    let (invitations, _organization, owner, _db) =
        setup(&services, backend, limited(3600, 3, 100)).await;
    let target = "flood@example.com";
    let member = vec!["member".to_string()];
    invitations
        .invite(&owner, invite(target, &member))
        .await
        .unwrap();
    let sends = (0..40).map(|_| {
        let (invitations, owner, member): (Invitations, _, _) =
            (invitations.clone(), owner.clone(), member.clone());
        tokio::spawn(async move { invitations.invite(&owner, resend(target, &member)).await })
    });
    let mut sent = 1;
    for send in sends.collect::<Vec<_>>() {
        match send.await.unwrap() {
            Ok(_) => sent += 1,
            refusal => assert_eq!(throttled(refusal).1, 429, "{backend:?}"),
        }
    }
    assert_eq!(sent, 3, "{backend:?}");
    assert_eq!(mails(invitations.db()).await, 3);
}
