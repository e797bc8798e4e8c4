//! The `organization` capability (`gatehouse.organization.v1.OrganizationService`, protocol
//! reference §11.6): create, check-slug, update, delete, get-full-organization, list and
//! set-active. Every rule about who may do it is `permission::Roles::allows`.

pub mod grpc;
pub mod store;

use chrono::{DateTime, Utc};
use gatehouse_kit::db::Db;
use gatehouse_kit::errors::organization as codes;
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1 as events;

pub use crate::caller::Caller;
use crate::config::Rules;
use crate::error::OrganizationError;
use crate::invitation::Invitation;
use crate::member::{self, ListedMember, Member};
use crate::peers::Peers;
use crate::permission::{self, OWNER, wants};
use crate::team::{self, Team};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub logo: Option<String>,
    /// A JSON object as text.
    pub metadata: Option<String>,
    pub created_at: DateTime<Utc>,
}

pub struct NewOrganization {
    pub name: String,
    pub slug: String,
    pub logo: Option<String>,
    pub metadata: Option<String>,
    pub keep_current_active_organization: bool,
}

/// An organization with what get-full-organization shows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct FullOrganization {
    pub organization: Organization,
    pub members: Vec<ListedMember>,
    pub invitations: Vec<Invitation>,
    pub teams: Vec<Team>,
}

/// Which organization a call is about.
#[derive(Clone, Copy, Debug)]
pub enum Named<'a> {
    Id(&'a str),
    Slug(&'a str),
}

#[derive(Clone)]
pub struct Organizations {
    db: Db,
    rules: Rules,
    peers: Peers,
}

impl Organizations {
    pub fn new(db: Db, rules: Rules, peers: Peers) -> Self {
        Self { db, rules, peers }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    /// `POST /organization/create`: the caller becomes its owner (and a member of its default
    /// team); it becomes their active organization unless they keep the current one.
    pub async fn create(
        &self,
        caller: &Caller,
        new: NewOrganization,
    ) -> Result<(Organization, Member), OrganizationError> {
        if !self.rules.creation_enabled {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION.into());
        }
        if let Some(limit) = self.rules.organization_limit {
            let count = member::store::count_for_user(&self.db, &caller.user_id).await?;
            if count >= i64::from(limit) {
                return Err(codes::YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS.into());
            }
        }
        let taken = || OrganizationError::from(codes::ORGANIZATION_ALREADY_EXISTS);
        if store::find_by_slug(&self.db, &new.slug).await?.is_some() {
            return Err(taken());
        }
        let now = ids::now();
        let organization = Organization {
            id: ids::new_id(),
            name: new.name,
            slug: new.slug,
            logo: new.logo,
            metadata: new.metadata,
            created_at: now,
        };
        let owner = Member {
            id: ids::new_id(),
            organization_id: organization.id.clone(),
            user_id: caller.user_id.clone(),
            role: OWNER.to_string(),
            created_at: now,
        };
        let default_team = self.rules.default_team.then(|| Team {
            id: ids::new_id(),
            name: organization.name.clone(),
            organization_id: organization.id.clone(),
            created_at: now,
            updated_at: None,
            member_count: 1,
        });
        let user = self.peers.user_to_copy(&caller.user_id).await;
        let mut tx = self.db.begin().await?;
        match store::insert(&mut tx, &organization).await {
            // Another request took the slug since the check.
            Err(error) if error.is_unique_violation_of("slug") => return Err(taken()),
            result => result?,
        }
        member::store::insert(&mut tx, &owner).await?;
        if let Some(user) = &user {
            member::users::save(&mut tx, user).await?;
        }
        if let Some(team) = &default_team {
            team::store::insert(&mut tx, team).await?;
            team::store::add_member(&mut tx, &team.id, &caller.user_id, now).await?;
        }
        tx.enqueue(&OutboxEvent::new(&events::OrganizationCreated {
            organization_id: organization.id.clone(),
            slug: organization.slug.clone(),
            created_by: caller.user_id.clone(),
        }))
        .await?;
        tx.enqueue(&member::added_event(&owner)).await?;
        tx.commit().await?;
        if !new.keep_current_active_organization {
            let team = default_team.map(|team| team.id);
            self.peers
                .set_active(caller, Some(organization.id.clone()), team)
                .await?;
        }
        tracing::info!(organization_id = %organization.id, "organization created");
        Ok((organization, owner))
    }

    /// `POST /organization/check-slug`.
    pub async fn check_slug(&self, slug: &str) -> Result<(), OrganizationError> {
        match store::find_by_slug(&self.db, slug).await? {
            Some(_) => Err(codes::ORGANIZATION_SLUG_ALREADY_TAKEN.into()),
            None => Ok(()),
        }
    }

    /// `POST /organization/update`: the named or active organization, by a member allowed to.
    pub async fn update(
        &self,
        caller: &Caller,
        organization_id: Option<&str>,
        change: store::Change,
    ) -> Result<Organization, OrganizationError> {
        let id = organization_id
            .or(caller.active_organization_id.as_deref())
            .ok_or(codes::ORGANIZATION_NOT_FOUND)?;
        let member = member::store::find_for_user(&self.db, id, &caller.user_id)
            .await?
            .ok_or(codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION)?;
        if !self
            .rules
            .roles
            .allows(&member.role, &wants("organization", "update"))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION.into());
        }
        let taken = || OrganizationError::from(codes::ORGANIZATION_SLUG_ALREADY_TAKEN);
        if let Some(slug) = &change.slug
            && store::find_by_slug(&self.db, slug)
                .await?
                .is_some_and(|other| other.id != id)
        {
            return Err(taken());
        }
        let mut tx = self.db.begin().await?;
        let updated = match store::update(&mut tx, id, &change).await {
            Err(error) if error.is_unique_violation_of("slug") => return Err(taken()),
            result => result?.ok_or(codes::ORGANIZATION_NOT_FOUND)?,
        };
        tx.enqueue(&OutboxEvent::new(&events::OrganizationUpdated {
            organization_id: updated.id.clone(),
        }))
        .await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// `POST /organization/delete`: with its members, invitations and teams; the caller's
    /// session loses it if it was active (every other session on `organization.deleted`).
    pub async fn delete(
        &self,
        caller: &Caller,
        organization_id: &str,
    ) -> Result<Organization, OrganizationError> {
        if !self.rules.deletion_enabled {
            return Err(codes::ORGANIZATION_DELETION_DISABLED.into());
        }
        let member = member::store::find_for_user(&self.db, organization_id, &caller.user_id)
            .await?
            .ok_or(codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION)?;
        if !self
            .rules
            .roles
            .allows(&member.role, &wants("organization", "delete"))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION.into());
        }
        let mut tx = self.db.begin().await?;
        let organization = store::find(&mut tx, organization_id)
            .await?
            .ok_or(codes::ORGANIZATION_NOT_FOUND)?;
        member::users::forget_organization(&mut tx, organization_id).await?;
        store::delete(&mut tx, organization_id).await?;
        tx.enqueue(&OutboxEvent::new(&events::OrganizationDeleted {
            organization_id: organization.id.clone(),
        }))
        .await?;
        tx.commit().await?;
        if caller.active_organization_id.as_deref() == Some(organization_id) {
            self.peers.set_active(caller, None, None).await?;
        }
        tracing::info!(organization_id, "organization deleted");
        Ok(organization)
    }

    /// `GET /organization/get-full-organization`: `None` when nothing is named and nothing is
    /// active. A non-member is refused, and loses the organization as their active one.
    pub async fn get_full(
        &self,
        caller: &Caller,
        named: Option<Named<'_>>,
        members_limit: Option<u32>,
    ) -> Result<Option<FullOrganization>, OrganizationError> {
        let Some(organization) = self.resolve(caller, named).await? else {
            return Ok(None);
        };
        let Some(own) = self.membership_or_forget(caller, &organization.id).await? else {
            return Err(codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION
                .with_status(403)
                .into());
        };
        let limit = members_limit.unwrap_or(self.rules.membership_limit);
        let mut members = member::store::list(&self.db, &organization.id, limit).await?;
        member::users::fill_missing(&self.db, &self.peers, &mut members).await?;
        // Only who may invite sees the invitations; owner-role invitations only owners
        // (better-auth 1.7.24).
        let mut invitations = Vec::new();
        if self
            .rules
            .roles
            .allows(&own.role, &wants("invitation", "create"))
        {
            invitations = crate::invitation::store::list(&self.db, &organization.id).await?;
            if !permission::is_owner(&own.role) {
                invitations.retain(|i| !permission::is_owner(&i.role));
            }
        }
        let teams = team::store::list(&self.db, &organization.id).await?;
        Ok(Some(FullOrganization {
            organization,
            members,
            invitations,
            teams,
        }))
    }

    /// `GET /organization/list`.
    pub async fn list(&self, caller: &Caller) -> Result<Vec<Organization>, OrganizationError> {
        Ok(store::list_for_user(&self.db, &caller.user_id).await?)
    }

    /// `POST /organization/set-active`: `set` false answers the current one; `set` with nothing
    /// named clears it. A non-member is refused, and loses it if it was active.
    pub async fn set_active(
        &self,
        caller: &Caller,
        set: bool,
        named: Option<Named<'_>>,
    ) -> Result<Option<Organization>, OrganizationError> {
        if !set {
            let Some(id) = caller.active_organization_id.as_deref() else {
                return Ok(None);
            };
            return Ok(store::find(&self.db, id).await?);
        }
        let Some(named) = named else {
            self.peers.set_active(caller, None, None).await?;
            return Ok(None);
        };
        let not_a_member = || {
            OrganizationError::from(
                codes::USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION.with_status(403),
            )
        };
        // better-auth looks an id up among the caller's memberships (an unknown id is "not a
        // member"), a slug among organizations first.
        let organization = match named {
            Named::Id(id) => {
                if self.membership_or_forget(caller, id).await?.is_none() {
                    return Err(not_a_member());
                }
                store::find(&self.db, id)
                    .await?
                    .ok_or(codes::ORGANIZATION_NOT_FOUND)?
            }
            Named::Slug(slug) => {
                let organization = store::find_by_slug(&self.db, slug)
                    .await?
                    .ok_or(codes::ORGANIZATION_NOT_FOUND)?;
                if self
                    .membership_or_forget(caller, &organization.id)
                    .await?
                    .is_none()
                {
                    return Err(not_a_member());
                }
                organization
            }
        };
        self.peers
            .set_active(caller, Some(organization.id.clone()), None)
            .await?;
        Ok(Some(organization))
    }

    /// The organization named, else the caller's active one; `ORGANIZATION_NOT_FOUND` for a
    /// name that matches none.
    async fn resolve(
        &self,
        caller: &Caller,
        named: Option<Named<'_>>,
    ) -> Result<Option<Organization>, OrganizationError> {
        let found = match named {
            Some(Named::Id(id)) => store::find(&self.db, id).await?,
            Some(Named::Slug(slug)) => store::find_by_slug(&self.db, slug).await?,
            None => match caller.active_organization_id.as_deref() {
                Some(id) => store::find(&self.db, id).await?,
                None => return Ok(None),
            },
        };
        found
            .map(Some)
            .ok_or_else(|| codes::ORGANIZATION_NOT_FOUND.into())
    }

    /// The caller's membership; without one, their session loses the organization if it
    /// was the active one (better-auth does this on get-full-organization and set-active).
    async fn membership_or_forget(
        &self,
        caller: &Caller,
        organization_id: &str,
    ) -> Result<Option<Member>, OrganizationError> {
        let member =
            member::store::find_for_user(&self.db, organization_id, &caller.user_id).await?;
        if member.is_none() && caller.active_organization_id.as_deref() == Some(organization_id) {
            self.peers.set_active(caller, None, None).await?;
        }
        Ok(member)
    }
}
