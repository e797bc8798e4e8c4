//! An organization never loses its last owner, whatever its owners do at the same moment: many
//! rounds of two owners demoting, removing each other or leaving at once (and of an owner's
//! user deleted while the other steps down), on both backends, on a runtime with two worker
//! threads so the two requests really run side by side. Every round ends with an owner, and
//! every refusal is the owner rule's (never a database error).

use gatehouse_kit::bus::Message;
use gatehouse_kit::consumer::Handler;
use gatehouse_kit::db::{Backend, Db, query};
use gatehouse_organization::config::Rules;
use gatehouse_organization::error::OrganizationError;
use gatehouse_organization::member::events::UserEvents;
use gatehouse_organization::member::{self, Member, Members};
use gatehouse_organization::organization::{self as organization, Caller, Organization};
use gatehouse_proto::events::Event;
use gatehouse_proto::events::v1::UserDeleted;
use prost::Message as _;
use rstest::rstest;

use crate::support::Services;

const ROUNDS: usize = 15;

/// What one owner does to the other (or to themselves) in a round.
#[derive(Clone, Copy, Debug)]
enum Move {
    /// Makes the other owner an admin.
    DemoteOther,
    /// Makes themselves an admin.
    DemoteSelf,
    RemoveOther,
    Leave,
}

/// A user who is no more than an id: the owner rules never ask identity about them.
fn caller() -> Caller {
    Caller {
        user_id: gatehouse_kit::ids::new_id(),
        ..Caller::default()
    }
}

async fn insert_member(db: &Db, organization_id: &str, user_id: &str, role: &str) -> Member {
    let member = Member {
        id: gatehouse_kit::ids::new_id(),
        organization_id: organization_id.to_string(),
        user_id: user_id.to_string(),
        role: role.to_string(),
        created_at: gatehouse_kit::ids::now(),
    };
    let mut tx = db.begin().await.unwrap();
    member::store::insert(&mut tx, &member).await.unwrap();
    tx.commit().await.unwrap();
    member
}

/// A new organization with these members, oldest first; their memberships.
async fn organization_of(db: &Db, people: &[(&Caller, &str)]) -> Vec<Member> {
    let organization = Organization {
        id: gatehouse_kit::ids::new_id(),
        name: "Acme".into(),
        slug: format!(
            "org-{}",
            gatehouse_kit::ids::random_alphanumeric(12).to_lowercase()
        ),
        logo: None,
        metadata: None,
        created_at: gatehouse_kit::ids::now(),
    };
    let mut tx = db.begin().await.unwrap();
    organization::store::insert(&mut tx, &organization)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let mut memberships = Vec::new();
    for (who, role) in people {
        memberships.push(insert_member(db, &organization.id, &who.user_id, role).await);
    }
    memberships
}

/// A new organization owned by `a` and `b`, with `plain` an ordinary member; its id and the
/// owners' memberships.
async fn two_owners(db: &Db, a: &Caller, b: &Caller, plain: &Caller) -> (String, Member, Member) {
    let mut memberships =
        organization_of(db, &[(a, "owner"), (b, "owner"), (plain, "member")]).await;
    memberships.pop();
    let second = memberships.pop().unwrap();
    let first = memberships.pop().unwrap();
    (first.organization_id.clone(), first, second)
}

/// `who` makes `what` in the organization, `other` being the other owner's membership.
async fn make(
    members: Members,
    who: Caller,
    what: Move,
    own: Member,
    other: Member,
) -> Result<(), OrganizationError> {
    let organization_id = own.organization_id.as_str();
    let admin = ["admin".to_string()];
    match what {
        Move::DemoteOther => members
            .update_role(&who, &other.id, &admin, Some(organization_id))
            .await
            .map(drop),
        Move::DemoteSelf => members
            .update_role(&who, &own.id, &admin, Some(organization_id))
            .await
            .map(drop),
        Move::RemoveOther => members
            .remove(&who, &other.id, Some(organization_id))
            .await
            .map(drop),
        Move::Leave => members.leave(&who, organization_id).await.map(drop),
    }
}

async fn owners(db: &Db, organization_id: &str) -> usize {
    let roles: Vec<(String,)> = query("SELECT role FROM members WHERE organization_id = $1")
        .bind(organization_id)
        .fetch_all(db)
        .await
        .unwrap();
    roles
        .iter()
        .filter(|(role,)| role.split(',').any(|r| r.trim() == "owner"))
        .count()
}

/// A refusal by the owner rules is expected of one of the two; anything else is a failure.
fn expected(result: Result<(), OrganizationError>) {
    match result {
        Ok(()) => {}
        Err(OrganizationError::Refused(failure))
            if [
                "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER",
                "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
                "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
                "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
                "MEMBER_NOT_FOUND",
            ]
            .contains(&failure.code()) => {}
        Err(other) => panic!("not an owner rule's refusal: {other:?}"),
    }
}

#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_owners_acting_at_once_never_leave_none(#[case] backend: Backend) {
    let services = Services::start().await;
    let (_, members, _database) = services.capabilities(backend, Rules::default()).await;
    let db = members.db().clone();
    let pairs = [
        (Move::DemoteOther, Move::DemoteOther),
        (Move::RemoveOther, Move::RemoveOther),
        (Move::Leave, Move::Leave),
        (Move::DemoteSelf, Move::DemoteSelf),
        (Move::DemoteOther, Move::Leave),
        (Move::RemoveOther, Move::DemoteSelf),
    ];
    let (a, b, plain) = (caller(), caller(), caller());
    for (moves, round) in pairs
        .iter()
        .flat_map(|p| std::iter::repeat_n(p, ROUNDS))
        .zip(0..)
    {
        let (organization_id, first, second) = two_owners(&db, &a, &b, &plain).await;
        let one = tokio::spawn(make(
            members.clone(),
            a.clone(),
            moves.0,
            first.clone(),
            second.clone(),
        ));
        let two = tokio::spawn(make(members.clone(), b.clone(), moves.1, second, first));
        expected(one.await.unwrap());
        expected(two.await.unwrap());
        assert!(
            owners(&db, &organization_id).await >= 1,
            "{backend:?}: round {round}, {moves:?} left no owner"
        );
    }
}

fn user_deleted(user_id: &str) -> Message {
    Message {
        id: gatehouse_kit::ids::new_id(),
        topic: UserDeleted::TOPIC.to_string(),
        payload: UserDeleted {
            user_id: user_id.to_string(),
        }
        .encode_to_vec(),
        headers: Default::default(),
    }
}

async fn delete_user(db: Db, user_id: String) {
    let mut tx = db.begin().await.unwrap();
    UserEvents
        .handle(&mut tx, &user_deleted(&user_id))
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// identity's `user.deleted` takes a membership away without asking anyone: when it takes an
/// organization's last owner, the longest-standing admin (else member) becomes its owner.
#[rstest]
#[case::sqlite(Backend::Sqlite)]
#[case::postgres(Backend::Postgres)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_owner_leaves_an_owner_behind(#[case] backend: Backend) {
    let services = Services::start().await;
    let (_, members, _database) = services.capabilities(backend, Rules::default()).await;
    let db = members.db().clone();

    // Where the deleted user was the only owner, the admin (not the older plain member)
    // takes over; where there is another owner, nobody is promoted.
    let (owner, plain, admin) = (caller(), caller(), caller());
    let (shared, _, _) = two_owners(&db, &owner, &caller(), &plain).await;
    let only = organization_of(
        &db,
        &[(&owner, "owner"), (&plain, "member"), (&admin, "admin")],
    )
    .await[0]
        .organization_id
        .clone();
    delete_user(db.clone(), owner.user_id.clone()).await;
    let role_of = |user: &Caller, organization_id: &str| {
        let (db, user_id, organization_id) = (
            db.clone(),
            user.user_id.clone(),
            organization_id.to_string(),
        );
        async move {
            member::store::find_for_user(&db, &organization_id, &user_id)
                .await
                .unwrap()
                .map(|m| m.role)
        }
    };
    assert_eq!(
        role_of(&admin, &only).await.as_deref(),
        Some("owner"),
        "{backend:?}: the admin owns it now"
    );
    assert_eq!(role_of(&plain, &only).await.as_deref(), Some("member"));
    assert_eq!(owners(&db, &only).await, 1);
    assert_eq!(
        owners(&db, &shared).await,
        1,
        "the co-owner stays the owner"
    );
    assert_eq!(role_of(&plain, &shared).await.as_deref(), Some("member"));
    let (announced,): (i64,) =
        query("SELECT COUNT(*) FROM outbox WHERE topic = 'member.role-updated'")
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(announced, 1, "the promotion is announced");

    // One owner's user deleted while the other steps down, many times over.
    for round in 0..ROUNDS * 2 {
        let (a, b) = (caller(), caller());
        let (organization_id, own, other) = two_owners(&db, &a, &b, &plain).await;
        let deletion = tokio::spawn(delete_user(db.clone(), a.user_id.clone()));
        let step_down = tokio::spawn(make(members.clone(), b, Move::DemoteSelf, other, own));
        deletion.await.unwrap();
        expected(step_down.await.unwrap());
        assert_eq!(
            owners(&db, &organization_id).await,
            1,
            "{backend:?}: round {round} left no owner"
        );
    }
}
