//! The member rules (§11.7), each refusal with better-auth's code and status, in better-auth's
//! order. The owner rules: only an owner may make an owner or change one; the last owner can
//! neither leave, nor be removed, nor stop being an owner. A change that may take an owner away
//! reads the members and writes in one transaction with the organization locked
//! (`organizations::lock`), so two owners demoting or removing each other at once are decided
//! one after the other and the second is refused.

use gatehouse_kit::access::Request;
use gatehouse_kit::db::{Db, DbError, Tx};
use gatehouse_kit::errors::organization as codes;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::{MemberRemoved, MemberRoleUpdated};

use super::query::ListQuery;
use super::{ListedMember, Member, MemberUser, added_event, store, users};
use crate::caller::Caller;
use crate::config::Rules;
use crate::error::OrganizationError;
use crate::organization::{Named, store as organizations};
use crate::peers::Peers;
use crate::permission::{self, ADMIN, MEMBER, OWNER, wants};
use crate::team;

#[derive(Clone)]
pub struct Members {
    db: Db,
    rules: Rules,
    peers: Peers,
}

impl Members {
    pub fn new(db: Db, rules: Rules, peers: Peers) -> Self {
        Self { db, rules, peers }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    pub fn membership_limit(&self) -> u32 {
        self.rules.membership_limit
    }

    /// Server-side `addMember`: a user joins an organization (and, when named, one of its
    /// teams) with the roles given (`member` when none).
    pub async fn add(
        &self,
        caller: Option<&Caller>,
        user_id: &str,
        roles: &[String],
        organization_id: Option<&str>,
        team_id: Option<&str>,
    ) -> Result<Member, OrganizationError> {
        let organization_id = organization_id
            .or(caller.and_then(|c| c.active_organization_id.as_deref()))
            .ok_or(codes::NO_ACTIVE_ORGANIZATION)?;
        organizations::find(&self.db, organization_id)
            .await?
            .ok_or(codes::ORGANIZATION_NOT_FOUND)?;
        let Some(user) = self.peers.user(user_id).await? else {
            return Err(base::USER_NOT_FOUND.with_status(400).into());
        };
        let role = self.role_string(roles)?;
        if store::find_for_user(&self.db, organization_id, user_id)
            .await?
            .is_some()
        {
            return Err(codes::USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION.into());
        }
        if store::count(&self.db, organization_id).await? >= i64::from(self.rules.membership_limit)
        {
            return Err(codes::ORGANIZATION_MEMBERSHIP_LIMIT_REACHED.into());
        }
        let now = ids::now();
        let member = Member {
            id: ids::new_id(),
            organization_id: organization_id.to_string(),
            user_id: user_id.to_string(),
            role,
            created_at: now,
        };
        let mut tx = self.db.begin().await?;
        if let Some(team_id) = team_id {
            let in_organization = team::store::list(&mut tx, organization_id)
                .await?
                .iter()
                .any(|t| t.id == team_id);
            if !in_organization {
                return Err(codes::TEAM_NOT_FOUND.into());
            }
            team::store::add_member(&mut tx, team_id, user_id, now).await?;
        }
        match store::insert(&mut tx, &member).await {
            // Added by another request since the check.
            Err(error) if error.is_unique_violation_of("user_id") => {
                return Err(codes::USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION.into());
            }
            result => result?,
        }
        users::save(&mut tx, &user).await?;
        tx.enqueue(&added_event(&member)).await?;
        tx.commit().await?;
        Ok(member)
    }

    /// `GET /organization/list-members`.
    pub async fn list(
        &self,
        caller: &Caller,
        named: Option<Named<'_>>,
        query: &ListQuery,
    ) -> Result<(Vec<ListedMember>, u64), OrganizationError> {
        let organization_id = self.organization_of(caller, named).await?;
        self.caller_in(caller, &organization_id).await?;
        let (mut members, total) = store::page(&self.db, &organization_id, query).await?;
        users::fill_missing(&self.db, &self.peers, &mut members).await?;
        Ok((members, total))
    }

    /// `GET /organization/get-active-member`.
    pub async fn active_member(&self, caller: &Caller) -> Result<ListedMember, OrganizationError> {
        let organization_id = caller
            .active_organization_id
            .as_deref()
            .ok_or(codes::NO_ACTIVE_ORGANIZATION)?;
        let member = store::find_for_user(&self.db, organization_id, &caller.user_id)
            .await?
            .ok_or(codes::MEMBER_NOT_FOUND)?;
        let user = self.peers.user(&member.user_id).await?;
        Ok(ListedMember {
            member,
            user: user.as_ref().map(MemberUser::from),
        })
    }

    /// `GET /organization/get-active-member-role`: the caller's role, or (a member asking)
    /// another member's.
    pub async fn active_role(
        &self,
        caller: &Caller,
        user_id: Option<&str>,
        named: Option<Named<'_>>,
    ) -> Result<String, OrganizationError> {
        let organization_id = self.organization_of(caller, named).await?;
        let own = self.caller_in(caller, &organization_id).await?;
        match user_id.filter(|id| *id != caller.user_id) {
            None => Ok(own.role),
            Some(other) => Ok(store::find_for_user(&self.db, &organization_id, other)
                .await?
                .ok_or(codes::YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION)?
                .role),
        }
    }

    /// `POST /organization/update-member-role`.
    pub async fn update_role(
        &self,
        caller: &Caller,
        member_id: &str,
        roles: &[String],
        organization_id: Option<&str>,
    ) -> Result<Member, OrganizationError> {
        let not_allowed =
            || OrganizationError::from(codes::YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER);
        let organization_id = organization_id
            .or(caller.active_organization_id.as_deref())
            .ok_or(codes::NO_ACTIVE_ORGANIZATION)?;
        // Every check reads the members as this change finds them (see `organizations::lock`).
        let mut tx = self.db.begin().await?;
        organizations::lock(&mut tx, organization_id).await?;
        let own = store::find_for_user(&mut tx, organization_id, &caller.user_id)
            .await?
            .ok_or(codes::MEMBER_NOT_FOUND)?;
        let target = store::find(&mut tx, member_id)
            .await?
            .ok_or(codes::MEMBER_NOT_FOUND)?;
        if target.organization_id != organization_id {
            return Err(not_allowed());
        }
        let role = self.role_string(roles)?;
        let caller_is_owner = permission::is_owner(&own.role);
        // The creator's role may do anything here (better-auth's `allowCreatorAllPermissions`).
        if !caller_is_owner
            && !self
                .rules
                .roles
                .allows(&own.role, &wants("member", "update"))
        {
            return Err(not_allowed());
        }
        let touches_owner = permission::is_owner(&target.role) || permission::is_owner(&role);
        if touches_owner && !caller_is_owner {
            return Err(not_allowed());
        }
        if permission::is_owner(&target.role)
            && !permission::is_owner(&role)
            && owners(&mut tx, organization_id).await? <= 1
        {
            return Err(codes::YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER.into());
        }
        let updated = store::set_role(&mut tx, &target.id, &role)
            .await?
            .ok_or(codes::MEMBER_NOT_FOUND)?;
        tx.enqueue(&role_updated(&updated)).await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// `POST /organization/remove-member`: by member id, or by email (it has an `@`). Named
    /// by email, the answer carries the member's user.
    pub async fn remove(
        &self,
        caller: &Caller,
        id_or_email: &str,
        organization_id: Option<&str>,
    ) -> Result<ListedMember, OrganizationError> {
        let organization_id = organization_id
            .or(caller.active_organization_id.as_deref())
            .ok_or(codes::NO_ACTIVE_ORGANIZATION)?;
        // Identity is asked before the organization is locked: no lock waits on another service.
        let named_user = if id_or_email.contains('@') {
            let user = self
                .peers
                .user_by_email(id_or_email)
                .await?
                .ok_or(codes::MEMBER_NOT_FOUND)?;
            Some(user)
        } else {
            None
        };
        let mut tx = self.db.begin().await?;
        organizations::lock(&mut tx, organization_id).await?;
        let own = store::find_for_user(&mut tx, organization_id, &caller.user_id)
            .await?
            .ok_or(codes::MEMBER_NOT_FOUND)?;
        let (target, user) = match &named_user {
            Some(user) => {
                let member = store::find_for_user(&mut tx, organization_id, &user.id)
                    .await?
                    .ok_or(codes::MEMBER_NOT_FOUND)?;
                (member, Some(MemberUser::from(user)))
            }
            None => {
                let member = store::find(&mut tx, id_or_email)
                    .await?
                    .filter(|m| m.organization_id == organization_id)
                    .ok_or(codes::MEMBER_NOT_FOUND)?;
                (member, None)
            }
        };
        if permission::is_owner(&target.role)
            && (!permission::is_owner(&own.role) || owners(&mut tx, organization_id).await? <= 1)
        {
            // better-auth answers a non-owner removing an owner with this code too.
            return Err(codes::YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER.into());
        }
        if !self
            .rules
            .roles
            .allows(&own.role, &wants("member", "delete"))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER
                .with_status(401)
                .into());
        }
        delete(&mut tx, &target).await?;
        tx.commit().await?;
        if target.user_id == caller.user_id
            && caller.active_organization_id.as_deref() == Some(organization_id)
        {
            self.peers.set_active(caller, None, None).await?;
        }
        Ok(ListedMember {
            member: target,
            user,
        })
    }

    /// `POST /organization/leave`.
    pub async fn leave(
        &self,
        caller: &Caller,
        organization_id: &str,
    ) -> Result<Member, OrganizationError> {
        let mut tx = self.db.begin().await?;
        organizations::lock(&mut tx, organization_id).await?;
        let own = store::find_for_user(&mut tx, organization_id, &caller.user_id)
            .await?
            .ok_or(codes::MEMBER_NOT_FOUND)?;
        if permission::is_owner(&own.role) && owners(&mut tx, organization_id).await? <= 1 {
            return Err(codes::YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER.into());
        }
        delete(&mut tx, &own).await?;
        tx.commit().await?;
        if caller.active_organization_id.as_deref() == Some(organization_id) {
            self.peers.set_active(caller, None, None).await?;
        }
        Ok(own)
    }

    /// `POST /organization/has-permission`: whether the caller's role in the organization
    /// allows everything asked (the same check every route makes).
    pub async fn has_permission(
        &self,
        caller: &Caller,
        organization_id: Option<&str>,
        wanted: &Request,
        owner_has_every_permission: bool,
    ) -> Result<bool, OrganizationError> {
        let organization_id = organization_id
            .or(caller.active_organization_id.as_deref())
            .ok_or(codes::NO_ACTIVE_ORGANIZATION)?;
        let own = store::find_for_user(&self.db, organization_id, &caller.user_id)
            .await?
            .ok_or(codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION.with_status(401))?;
        if owner_has_every_permission && crate::permission::is_owner(&own.role) {
            return Ok(true);
        }
        Ok(self.rules.roles.allows(&own.role, wanted))
    }

    /// The organization named, else the caller's active one (list-members and
    /// get-active-member-role): an unknown slug is `ORGANIZATION_NOT_FOUND`, nothing at all
    /// `NO_ACTIVE_ORGANIZATION`.
    async fn organization_of(
        &self,
        caller: &Caller,
        named: Option<Named<'_>>,
    ) -> Result<String, OrganizationError> {
        match named {
            Some(Named::Id(id)) => Ok(id.to_string()),
            Some(Named::Slug(slug)) => Ok(organizations::find_by_slug(&self.db, slug)
                .await?
                .ok_or(codes::ORGANIZATION_NOT_FOUND)?
                .id),
            None => Ok(caller
                .active_organization_id
                .clone()
                .ok_or(codes::NO_ACTIVE_ORGANIZATION)?),
        }
    }

    /// The caller's membership, else 403 `YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION`.
    async fn caller_in(
        &self,
        caller: &Caller,
        organization_id: &str,
    ) -> Result<Member, OrganizationError> {
        Ok(
            store::find_for_user(&self.db, organization_id, &caller.user_id)
                .await?
                .ok_or(codes::YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION)?,
        )
    }

    /// The roles asked for as one stored string; `ROLE_NOT_FOUND: <names>` for unknown ones.
    fn role_string(&self, roles: &[String]) -> Result<String, Failure> {
        let roles: Vec<String> = roles
            .iter()
            .flat_map(|r| permission::split(r).map(str::to_string).collect::<Vec<_>>())
            .collect();
        if roles.is_empty() {
            return Ok(MEMBER.to_string());
        }
        let unknown = self.rules.roles.unknown(&roles);
        if !unknown.is_empty() {
            return Err(codes::ROLE_NOT_FOUND
                .with_message(format!("ROLE_NOT_FOUND: {}", unknown.join(", "))));
        }
        Ok(roles.join(","))
    }
}

/// How many members hold the owner role (in the transaction that locked the organization).
async fn owners(tx: &mut Tx, organization_id: &str) -> Result<usize, OrganizationError> {
    let roles = store::roles(tx, organization_id).await?;
    Ok(roles.iter().filter(|r| permission::is_owner(r)).count())
}

/// `member.role-updated` for `member` as it is now.
fn role_updated(member: &Member) -> OutboxEvent {
    OutboxEvent::new(&MemberRoleUpdated {
        organization_id: member.organization_id.clone(),
        member_id: member.id.clone(),
        user_id: member.user_id.clone(),
        role: member.role.clone(),
    })
}

/// Deletes the membership, with `member.removed`.
async fn delete(tx: &mut Tx, member: &Member) -> Result<(), OrganizationError> {
    store::delete(tx, member).await?;
    users::forget_unless_member(tx, &member.user_id).await?;
    tx.enqueue(&OutboxEvent::new(&MemberRemoved {
        organization_id: member.organization_id.clone(),
        member_id: member.id.clone(),
        user_id: member.user_id.clone(),
    }))
    .await?;
    Ok(())
}

/// After a membership went without anyone's say (its user was deleted), in the transaction
/// that locked the organization: an organization left with members but no owner makes its
/// longest-standing admin, else its longest-standing member, the owner (`member.role-updated`),
/// so someone can still manage and delete it. The member promoted, if any.
pub async fn keep_an_owner(tx: &mut Tx, organization_id: &str) -> Result<Option<Member>, DbError> {
    let members = store::all_of(&mut *tx, organization_id).await?;
    if members.iter().any(|m| permission::is_owner(&m.role)) {
        return Ok(None);
    }
    let is_admin = |m: &&Member| permission::split(&m.role).any(|r| r == ADMIN);
    let Some(heir) = members.iter().find(is_admin).or(members.first()) else {
        return Ok(None);
    };
    let Some(promoted) = store::set_role(tx, &heir.id, OWNER).await? else {
        return Ok(None);
    };
    tx.enqueue(&role_updated(&promoted)).await?;
    Ok(Some(promoted))
}
