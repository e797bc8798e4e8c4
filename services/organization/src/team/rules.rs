//! The team rules (§11.9), each refusal with better-auth's code and status, in better-auth's
//! order. Who may create, rename and remove teams is `team:*`; who may put people in teams
//! and take them out is `member:update` / `member:delete` — the one permission check.

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::organization as codes;
use gatehouse_kit::errors::{ErrorCode, base};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1 as events;

use super::{Team, TeamMember, store};
use crate::caller::Caller;
use crate::config::Rules;
use crate::error::OrganizationError;
use crate::invitation;
use crate::member::{self, Member};
use crate::peers::Peers;
use crate::permission::wants;

#[derive(Clone)]
pub struct Teams {
    db: Db,
    rules: Rules,
    peers: Peers,
}

impl Teams {
    pub fn new(db: Db, rules: Rules, peers: Peers) -> Self {
        Self { db, rules, peers }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    /// `POST /organization/create-team`.
    pub async fn create(
        &self,
        caller: &Caller,
        name: String,
        organization_id: Option<&str>,
    ) -> Result<Team, OrganizationError> {
        let organization_id = active_or(caller, organization_id)?;
        // better-auth answers a non-member with the invitation code (sic).
        let own = self
            .membership(
                organization_id,
                &caller.user_id,
                codes::YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION,
            )
            .await?;
        self.require(
            &own,
            "team",
            "create",
            codes::YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION,
        )?;
        if let Some(limit) = self.rules.team_limit
            && store::count(&self.db, organization_id).await? >= i64::from(limit)
        {
            return Err(codes::YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS.into());
        }
        // better-auth stamps a new team's updatedAt with its createdAt (only an
        // organization's default team starts with none).
        let now = ids::now();
        let team = Team {
            id: ids::new_id(),
            name,
            organization_id: organization_id.to_string(),
            created_at: now,
            updated_at: Some(now),
            member_count: 0,
        };
        let mut tx = self.db.begin().await?;
        store::insert(&mut tx, &team).await?;
        tx.enqueue(&OutboxEvent::new(&events::TeamCreated {
            organization_id: team.organization_id.clone(),
            team_id: team.id.clone(),
            name: team.name.clone(),
        }))
        .await?;
        tx.commit().await?;
        Ok(team)
    }

    /// `POST /organization/update-team`: a new name (nothing else of a team changes); an
    /// update with no name still stamps `updatedAt`, as better-auth does.
    pub async fn update(
        &self,
        caller: &Caller,
        team_id: &str,
        name: Option<String>,
        organization_id: Option<&str>,
    ) -> Result<Team, OrganizationError> {
        let organization_id = active_or(caller, organization_id)?;
        let refused = codes::YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM;
        let own = self
            .membership(organization_id, &caller.user_id, refused)
            .await?;
        self.require(&own, "team", "update", refused)?;
        let team = self.team_in(team_id, organization_id).await?;
        let mut tx = self.db.begin().await?;
        let updated = store::rename(&mut tx, &team.id, name.as_deref(), ids::now())
            .await?
            .ok_or(codes::TEAM_NOT_FOUND)?;
        tx.enqueue(&OutboxEvent::new(&events::TeamUpdated {
            organization_id: updated.organization_id.clone(),
            team_id: updated.id.clone(),
            name: updated.name.clone(),
        }))
        .await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// `POST /organization/remove-team`: with its memberships; pending invitations stop naming
    /// it, and sessions that had it active lose it (`team.removed`).
    pub async fn remove(
        &self,
        caller: &Caller,
        team_id: &str,
        organization_id: Option<&str>,
    ) -> Result<(), OrganizationError> {
        let organization_id = active_or(caller, organization_id)?;
        let own = self
            .membership(
                organization_id,
                &caller.user_id,
                codes::YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM,
            )
            .await?;
        if caller.active_team_id.as_deref() == Some(team_id) {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM.into());
        }
        self.require(
            &own,
            "team",
            "delete",
            codes::YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION,
        )?;
        let team = self.team_in(team_id, organization_id).await?;
        if !self.rules.allow_removing_all_teams
            && store::count(&self.db, organization_id).await? <= 1
        {
            return Err(codes::UNABLE_TO_REMOVE_LAST_TEAM.into());
        }
        let mut tx = self.db.begin().await?;
        if !store::delete(&mut tx, &team.id).await? {
            return Err(codes::TEAM_NOT_FOUND.into());
        }
        invitation::store::forget_team(&mut tx, organization_id, &team.id).await?;
        tx.enqueue(&OutboxEvent::new(&events::TeamRemoved {
            organization_id: team.organization_id.clone(),
            team_id: team.id.clone(),
        }))
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// `GET /organization/list-teams`: the named (or active) organization's teams.
    pub async fn list(
        &self,
        caller: &Caller,
        organization_id: Option<&str>,
    ) -> Result<Vec<Team>, OrganizationError> {
        let organization_id = active_or(caller, organization_id)?;
        self.membership(
            organization_id,
            &caller.user_id,
            codes::YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION,
        )
        .await?;
        Ok(store::list(&self.db, organization_id).await?)
    }

    /// `POST /organization/set-active-team`. `set` with a team makes it active; `set` with
    /// none clears the active team; not `set` re-affirms the current one (checked again as if
    /// named). Only a team of the active organization the caller is in. Answers the active
    /// team now and whether the session changed (better-auth re-issues the cookie only then).
    pub async fn set_active(
        &self,
        caller: &Caller,
        set: bool,
        team_id: Option<&str>,
    ) -> Result<(Option<Team>, bool), OrganizationError> {
        let current = caller.active_team_id.as_deref();
        let team_id = match (set, team_id) {
            (true, Some(id)) => id,
            (false, _) => match current {
                Some(id) => id,
                None => return Ok((None, false)),
            },
            (true, None) => {
                if current.is_none() {
                    return Ok((None, false));
                }
                self.peers.set_active_team(caller, None).await?;
                return Ok((None, true));
            }
        };
        let organization_id = active_or(caller, None)?;
        let team = self.team_in(team_id, organization_id).await?;
        if store::find_member(&self.db, &team.id, &caller.user_id)
            .await?
            .is_none()
        {
            return Err(codes::USER_IS_NOT_A_MEMBER_OF_THE_TEAM
                .with_status(403)
                .into());
        }
        self.peers
            .set_active_team(caller, Some(team.id.clone()))
            .await?;
        Ok((Some(team), true))
    }

    /// `GET /organization/list-user-teams`: the caller's teams (in every organization unless
    /// one is named), or another member's in an organization, for who may update members.
    pub async fn list_for_user(
        &self,
        caller: &Caller,
        user_id: Option<&str>,
        organization_id: Option<&str>,
    ) -> Result<Vec<Team>, OrganizationError> {
        let other = user_id.filter(|id| *id != caller.user_id);
        let Some(other) = other else {
            if let Some(organization_id) = organization_id {
                self.membership(
                    organization_id,
                    &caller.user_id,
                    codes::YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION,
                )
                .await?;
            }
            return Ok(store::list_for_user(&self.db, &caller.user_id, organization_id).await?);
        };
        let organization_id = active_or(caller, organization_id)?;
        let own = self
            .membership(
                organization_id,
                &caller.user_id,
                codes::YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION,
            )
            .await?;
        self.require(
            &own,
            "member",
            "update",
            codes::YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER,
        )?;
        self.membership(
            organization_id,
            other,
            codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION,
        )
        .await?;
        Ok(store::list_for_user(&self.db, other, Some(organization_id)).await?)
    }

    /// `GET /organization/list-team-members`: the named (or active) team's members, for its
    /// own members.
    pub async fn members(
        &self,
        caller: &Caller,
        team_id: Option<&str>,
    ) -> Result<Vec<TeamMember>, OrganizationError> {
        let team_id = team_id
            .or(caller.active_team_id.as_deref())
            .ok_or(codes::YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM)?;
        let team = store::find(&self.db, team_id)
            .await?
            .ok_or(codes::TEAM_NOT_FOUND)?;
        let in_organization =
            member::store::find_for_user(&self.db, &team.organization_id, &caller.user_id)
                .await?
                .is_some();
        let in_team = store::find_member(&self.db, &team.id, &caller.user_id)
            .await?
            .is_some();
        if !in_organization || !in_team {
            return Err(codes::USER_IS_NOT_A_MEMBER_OF_THE_TEAM.into());
        }
        Ok(store::members(&self.db, &team.id).await?)
    }

    /// `POST /organization/add-team-member`: a member of the organization joins one of its
    /// teams; one already in it gets their place back unchanged.
    pub async fn add_member(
        &self,
        caller: &Caller,
        team_id: &str,
        user_id: &str,
        organization_id: Option<&str>,
    ) -> Result<TeamMember, OrganizationError> {
        let organization_id = active_or(caller, organization_id)?;
        let not_a_member = codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION;
        let own = self
            .membership(organization_id, &caller.user_id, not_a_member)
            .await?;
        self.require(
            &own,
            "member",
            "update",
            codes::YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER,
        )?;
        self.membership(organization_id, user_id, not_a_member)
            .await?;
        let team = self.team_in(team_id, organization_id).await?;
        if let Some(existing) = store::find_member(&self.db, &team.id, user_id).await? {
            return Ok(existing);
        }
        if self.peers.user(user_id).await?.is_none() {
            return Err(base::USER_NOT_FOUND.with_status(400).into());
        }
        if let Some(limit) = self.rules.team_member_limit
            && team.member_count >= i64::from(limit)
        {
            return Err(codes::TEAM_MEMBER_LIMIT_REACHED.into());
        }
        let mut tx = self.db.begin().await?;
        let added = match store::add_member(&mut tx, &team.id, user_id, ids::now()).await {
            // Added by another request since the check: theirs is the place.
            Err(error) if error.is_unique_violation_of("user_id") => {
                drop(tx);
                return store::find_member(&self.db, &team.id, user_id)
                    .await?
                    .ok_or_else(|| codes::USER_IS_NOT_A_MEMBER_OF_THE_TEAM.into());
            }
            result => result?,
        };
        tx.enqueue(&OutboxEvent::new(&events::TeamMemberAdded {
            organization_id: team.organization_id.clone(),
            team_id: team.id.clone(),
            user_id: user_id.to_string(),
        }))
        .await?;
        tx.commit().await?;
        Ok(added)
    }

    /// `POST /organization/remove-team-member`.
    pub async fn remove_member(
        &self,
        caller: &Caller,
        team_id: &str,
        user_id: &str,
        organization_id: Option<&str>,
    ) -> Result<(), OrganizationError> {
        let organization_id = active_or(caller, organization_id)?;
        let not_a_member = codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION;
        let own = self
            .membership(organization_id, &caller.user_id, not_a_member)
            .await?;
        self.require(
            &own,
            "member",
            "delete",
            codes::YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER,
        )?;
        self.membership(organization_id, user_id, not_a_member)
            .await?;
        let team = self.team_in(team_id, organization_id).await?;
        let mut tx = self.db.begin().await?;
        if !store::remove_member(&mut tx, &team.id, user_id).await? {
            return Err(codes::USER_IS_NOT_A_MEMBER_OF_THE_TEAM.into());
        }
        tx.enqueue(&OutboxEvent::new(&events::TeamMemberRemoved {
            organization_id: team.organization_id.clone(),
            team_id: team.id.clone(),
            user_id: user_id.to_string(),
        }))
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// `user_id`'s membership of the organization, else `refused`.
    async fn membership(
        &self,
        organization_id: &str,
        user_id: &str,
        refused: ErrorCode,
    ) -> Result<Member, OrganizationError> {
        Ok(
            member::store::find_for_user(&self.db, organization_id, user_id)
                .await?
                .ok_or(refused)?,
        )
    }

    /// The one permission check, with the refusal this route answers.
    fn require(
        &self,
        member: &Member,
        resource: &str,
        action: &str,
        refused: ErrorCode,
    ) -> Result<(), OrganizationError> {
        if self
            .rules
            .roles
            .allows(&member.role, &wants(resource, action))
        {
            Ok(())
        } else {
            Err(refused.into())
        }
    }

    /// The team, if it is one of the organization's; `TEAM_NOT_FOUND` otherwise.
    async fn team_in(
        &self,
        team_id: &str,
        organization_id: &str,
    ) -> Result<Team, OrganizationError> {
        Ok(store::find(&self.db, team_id)
            .await?
            .filter(|t| t.organization_id == organization_id)
            .ok_or(codes::TEAM_NOT_FOUND)?)
    }
}

/// The organization named, else the caller's active one; `NO_ACTIVE_ORGANIZATION` without
/// either.
fn active_or<'a>(
    caller: &'a Caller,
    organization_id: Option<&'a str>,
) -> Result<&'a str, OrganizationError> {
    Ok(organization_id
        .or(caller.active_organization_id.as_deref())
        .ok_or(codes::NO_ACTIVE_ORGANIZATION)?)
}
