//! The `member_users` table: the service's copy of what member lists show of each member's
//! user, so a list needs no call to identity. Written when a user becomes a member (from the
//! user identity just answered with), kept current by `user.updated` (`events.rs`), and only
//! ever moved forward: every write carries the user's `updated_at` as its version and applies
//! only when newer, so events arriving late, twice or out of order change nothing. Members who
//! joined before the table existed get their row the first time a list shows them
//! ([`fill_missing`]).

use std::collections::HashMap;

use gatehouse_kit::db::{Db, DbError, Tx, query};
use gatehouse_proto::events::v1::UserUpdated;
use gatehouse_proto::identity::v1 as identity_pb;

use super::{ListedMember, MemberUser};
use crate::error::OrganizationError;
use crate::peers::Peers;

impl From<&identity_pb::User> for MemberUser {
    fn from(u: &identity_pb::User) -> Self {
        MemberUser {
            id: u.id.clone(),
            name: u.name.clone(),
            email: u.email.clone(),
            image: u.image.clone(),
        }
    }
}

/// Writes (or moves forward) the copy of `user` as identity answered with it, provided they
/// are a member: the caller writes it with the membership, or after reading a list.
pub async fn save(tx: &mut Tx, user: &identity_pb::User) -> Result<(), DbError> {
    // INSERT … SELECT so a member removed meanwhile leaves no copy behind; SQLite needs the
    // SELECT's WHERE to parse the upsert after it.
    query(
        "INSERT INTO member_users (user_id, name, email, image, version) \
         SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM members WHERE user_id = $1) \
         ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, email = excluded.email, \
         image = excluded.image, version = excluded.version \
         WHERE excluded.version > member_users.version",
    )
    .bind(user.id.as_str())
    .bind(user.name.as_str())
    .bind(user.email.as_str())
    .bind(user.image.clone())
    .bind(user.updated_at_unix_ms)
    .execute(tx)
    .await?;
    Ok(())
}

/// Applies `user.updated` to the copy, if there is one and the event is newer; whether it
/// changed anything. Users who are no member have no copy and get none.
pub async fn apply(tx: &mut Tx, event: &UserUpdated) -> Result<bool, DbError> {
    let changed = query(
        "UPDATE member_users SET name = $1, email = $2, image = $3, version = $4 \
         WHERE user_id = $5 AND version < $4",
    )
    .bind(event.name.as_str())
    .bind(event.email.as_str())
    .bind(event.image.clone())
    .bind(event.updated_at_unix_ms)
    .bind(event.user_id.as_str())
    .execute(tx)
    .await?;
    Ok(changed > 0)
}

/// Drops the copy of a user who is no longer a member of any organization.
pub async fn forget_unless_member(tx: &mut Tx, user_id: &str) -> Result<(), DbError> {
    query(
        "DELETE FROM member_users WHERE user_id = $1 \
         AND NOT EXISTS (SELECT 1 FROM members WHERE user_id = $1)",
    )
    .bind(user_id)
    .execute(tx)
    .await?;
    Ok(())
}

/// Before the organization goes: drops the copies of its members who belong to no other.
pub async fn forget_organization(tx: &mut Tx, organization_id: &str) -> Result<(), DbError> {
    query(
        "DELETE FROM member_users WHERE user_id IN \
         (SELECT user_id FROM members WHERE organization_id = $1) \
         AND NOT EXISTS (SELECT 1 FROM members m WHERE m.user_id = member_users.user_id \
         AND m.organization_id <> $1)",
    )
    .bind(organization_id)
    .execute(tx)
    .await?;
    Ok(())
}

/// Fills in the users of listed members that have no copy yet (they joined before the copy
/// existed) with one call to identity, and writes their copies so the next list needs none.
/// A copy that cannot be written is only logged: the list is answered all the same.
pub async fn fill_missing(
    db: &Db,
    peers: &Peers,
    listed: &mut [ListedMember],
) -> Result<(), OrganizationError> {
    let mut missing: Vec<String> = listed
        .iter()
        .filter(|m| m.user.is_none())
        .map(|m| m.member.user_id.clone())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    missing.sort_unstable();
    missing.dedup();
    let found: HashMap<String, identity_pb::User> = peers
        .users_by_id(&missing)
        .await?
        .into_iter()
        .map(|u| (u.id.clone(), u))
        .collect();
    for member in listed.iter_mut().filter(|m| m.user.is_none()) {
        member.user = found.get(&member.member.user_id).map(MemberUser::from);
    }
    if let Err(error) = save_all(db, found.into_values().collect()).await {
        tracing::warn!(%error, "members' users not copied; the next list asks identity again");
    }
    Ok(())
}

/// Writes the copies of `users` in one transaction, in the order of their ids: concurrent
/// lists filling the same members then take the rows' locks in the same order and wait for
/// each other, where any other order lets two of them deadlock (PostgreSQL aborts one).
pub async fn save_all(db: &Db, mut users: Vec<identity_pb::User>) -> Result<(), DbError> {
    users.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    let mut tx = db.begin().await?;
    for user in &users {
        save(&mut tx, user).await?;
    }
    tx.commit().await
}
