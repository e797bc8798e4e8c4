//! The invitation rules (§11.8), each refusal with better-auth's code and status, in
//! better-auth's order. An invitation and its mail (`mail.requested`) are written in one
//! transaction, so an invitation exists exactly when its mail goes out.

use gatehouse_kit::db::Db;
use gatehouse_kit::errors::organization as codes;
use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_kit::validate::{is_valid_email, normalize_email};
use gatehouse_proto::events::v1::{
    InvitationCreated, InvitationStatusChanged, MailKind, MailRequested,
};

use super::{Accepted, Details, Invitation, Proof, Rejected, store, throttle};
use crate::caller::Caller;
use crate::config::Rules;
use crate::error::OrganizationError;
use crate::member::{self, Member};
use crate::organization::{Organization, store as organizations};
use crate::peers::Peers;
use crate::permission::{self, wants};
use crate::team;

pub struct NewInvitation<'a> {
    pub email: &'a str,
    pub roles: &'a [String],
    pub organization_id: Option<&'a str>,
    pub resend: bool,
    pub team_ids: &'a [String],
}

#[derive(Clone)]
pub struct Invitations {
    db: Db,
    rules: Rules,
    peers: Peers,
}

/// better-auth's answer to an invitation that cannot be found or acted on, on reject and
/// get-invitation (with its exclamation mark).
fn not_found_bang() -> Failure {
    codes::INVITATION_NOT_FOUND.with_message("Invitation not found!")
}

impl Invitations {
    pub fn new(db: Db, rules: Rules, peers: Peers) -> Self {
        Self { db, rules, peers }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    /// `POST /organization/invite-member`.
    pub async fn invite(
        &self,
        caller: &Caller,
        new: NewInvitation<'_>,
    ) -> Result<Invitation, OrganizationError> {
        let organization_id = new
            .organization_id
            .or(caller.active_organization_id.as_deref())
            .ok_or(codes::ORGANIZATION_NOT_FOUND)?;
        if !is_valid_email(new.email.trim()) {
            return Err(base::INVALID_EMAIL.into());
        }
        let email = normalize_email(new.email);
        let own = member::store::find_for_user(&self.db, organization_id, &caller.user_id)
            .await?
            .ok_or(codes::MEMBER_NOT_FOUND)?;
        if !self
            .rules
            .roles
            .allows(&own.role, &wants("invitation", "create"))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION.into());
        }
        let roles: Vec<String> = new
            .roles
            .iter()
            .flat_map(|r| permission::split(r).map(str::to_string).collect::<Vec<_>>())
            .collect();
        if roles.is_empty() {
            return Err(codes::ROLE_NOT_FOUND.into());
        }
        let unknown = self.rules.roles.unknown(&roles);
        if !unknown.is_empty() {
            // better-auth answers this one without a code.
            return Err(Failure::message_only(
                400,
                format!("ROLE_NOT_FOUND: {}", unknown.join(", ")),
            )
            .into());
        }
        let role = roles.join(",");
        if permission::is_owner(&role) && !permission::is_owner(&own.role) {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE.into());
        }
        let invitee = self.peers.user_by_email(&email).await?;
        if let Some(user) = &invitee
            && member::store::find_for_user(&self.db, organization_id, &user.id)
                .await?
                .is_some()
        {
            return Err(codes::USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION.into());
        }
        let now = ids::now();
        let expires_at = now
            + chrono::Duration::from_std(self.rules.invitation_expires_in)
                .unwrap_or(chrono::Duration::MAX);
        let organization = organizations::find(&self.db, organization_id)
            .await?
            .ok_or(codes::ORGANIZATION_NOT_FOUND)?;
        // Identity is asked before the transaction: no lock waits on another service.
        let inviter = self.peers.user(&caller.user_id).await?;
        let (token, token_hash) = super::new_link_token();
        let mut tx = self.db.begin().await?;
        // Pending invitations and mails sent are counted as this one finds them.
        organizations::lock(&mut tx, organization_id).await?;
        let pending = store::find_pending(&mut tx, organization_id, &email, now).await?;
        if pending.is_some() && !new.resend && !self.rules.cancel_pending_on_reinvite {
            return Err(codes::USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION.into());
        }
        let invitation = match pending {
            Some(pending) if new.resend => {
                store::extend(&mut tx, &pending.id, expires_at, &token_hash)
                    .await?
                    .ok_or(codes::INVITATION_NOT_FOUND)?
            }
            Some(pending) => {
                store::settle(&mut tx, &pending.id, "canceled", now).await?;
                self.fresh(
                    &mut tx,
                    &organization,
                    &email,
                    &role,
                    new.team_ids,
                    caller,
                    now,
                    &token_hash,
                )
                .await?
            }
            None => {
                self.fresh(
                    &mut tx,
                    &organization,
                    &email,
                    &role,
                    new.team_ids,
                    caller,
                    now,
                    &token_hash,
                )
                .await?
            }
        };
        // Last, after better-auth's own refusals: dropping the transaction undoes the above.
        throttle::admit(
            &mut tx,
            &self.rules.invitation_mails,
            organization_id,
            &email,
            now,
        )
        .await?;
        let inviter_name = inviter
            .as_ref()
            .map_or_else(|| caller.email.clone(), |u| u.name.clone());
        // The invitee's own language when they have an account, else the inviter's.
        let language = invitee
            .as_ref()
            .or(inviter.as_ref())
            .map_or(gatehouse_kit::language::Language::DEFAULT.code(), |u| {
                u.language
            });
        let page = self.rules.invitation_page.trim_end_matches('/');
        tx.enqueue(&OutboxEvent::new(&MailRequested {
            kind: MailKind::OrganizationInvitation.into(),
            to: email.clone(),
            name: invitee
                .as_ref()
                .map_or_else(|| email.clone(), |u| u.name.clone()),
            language,
            // The address too, so a recipient without an account signs up with it (the page
            // fills it in): it is theirs, they are reading it in their mailbox.
            link_path: format!(
                "{page}/{}?token={token}&email={}",
                invitation.id,
                url::form_urlencoded::byte_serialize(email.as_bytes()).collect::<String>()
            ),
            expires_in_seconds: i64::try_from(self.rules.invitation_expires_in.as_secs())
                .unwrap_or(i64::MAX),
            params: [
                ("organization".to_string(), organization.name.clone()),
                ("inviter".to_string(), inviter_name),
            ]
            .into(),
            user_id: invitee.map(|u| u.id).unwrap_or_default(),
        }))
        .await?;
        tx.enqueue(&OutboxEvent::new(&InvitationCreated {
            organization_id: organization.id.clone(),
            invitation_id: invitation.id.clone(),
            email,
            inviter_id: caller.user_id.clone(),
        }))
        .await?;
        tx.commit().await?;
        Ok(invitation)
    }

    /// A new pending invitation, within the organization's limit and to its own teams.
    #[allow(clippy::too_many_arguments)]
    async fn fresh(
        &self,
        tx: &mut gatehouse_kit::db::Tx,
        organization: &Organization,
        email: &str,
        role: &str,
        team_ids: &[String],
        caller: &Caller,
        now: chrono::DateTime<chrono::Utc>,
        token_hash: &str,
    ) -> Result<Invitation, OrganizationError> {
        if store::count_pending(&mut *tx, &organization.id, now).await?
            >= i64::from(self.rules.invitation_limit)
        {
            return Err(codes::INVITATION_LIMIT_REACHED.into());
        }
        if team_ids.iter().any(|id| id.contains(',')) {
            return Err(codes::INVALID_TEAM_ID.into());
        }
        if !team_ids.is_empty() {
            let teams = team::store::list(&mut *tx, &organization.id).await?;
            if !team_ids.iter().all(|id| teams.iter().any(|t| &t.id == id)) {
                return Err(codes::TEAM_NOT_FOUND.into());
            }
        }
        let expires_at = now
            + chrono::Duration::from_std(self.rules.invitation_expires_in)
                .unwrap_or(chrono::Duration::MAX);
        let invitation = Invitation {
            id: ids::new_id(),
            organization_id: organization.id.clone(),
            email: email.to_string(),
            role: role.to_string(),
            team_id: (!team_ids.is_empty()).then(|| team_ids.join(",")),
            status: store::PENDING.to_string(),
            expires_at,
            created_at: now,
            inviter_id: caller.user_id.clone(),
        };
        store::insert(tx, &invitation, token_hash).await?;
        Ok(invitation)
    }

    /// `POST /organization/accept-invitation`: the recipient becomes a member (and joins the
    /// invitation's teams); the organization becomes their session's active one. `token`: the
    /// mailed link's, which proves an unverified recipient's address (and verifies it).
    pub async fn accept(
        &self,
        caller: &Caller,
        invitation_id: &str,
        token: Option<&str>,
    ) -> Result<Accepted, OrganizationError> {
        let now = ids::now();
        let invitation = store::find(&self.db, invitation_id)
            .await?
            .filter(|i| i.is_open(now))
            .ok_or(codes::INVITATION_NOT_FOUND)?;
        let proof = self
            .check_recipient(
                caller,
                &invitation,
                token,
                codes::EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION,
            )
            .await?;
        if member::store::count(&self.db, &invitation.organization_id).await?
            >= i64::from(self.rules.membership_limit)
        {
            return Err(codes::ORGANIZATION_MEMBERSHIP_LIMIT_REACHED.into());
        }
        self.confirm(caller, &invitation, proof).await?;
        let user = self.peers.user_to_copy(&caller.user_id).await;
        let mut tx = self.db.begin().await?;
        // Pending → accepted once, whoever else tries at the same moment.
        let accepted = store::settle(&mut tx, invitation_id, "accepted", now)
            .await?
            .ok_or(codes::INVITATION_NOT_FOUND)?;
        let member = Member {
            id: ids::new_id(),
            organization_id: accepted.organization_id.clone(),
            user_id: caller.user_id.clone(),
            role: accepted.role.clone(),
            created_at: now,
        };
        match member::store::insert(&mut tx, &member).await {
            Err(error) if error.is_unique_violation_of("user_id") => {
                return Err(codes::USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION.into());
            }
            result => result?,
        }
        if let Some(user) = &user {
            member::users::save(&mut tx, user).await?;
        }
        let team_ids: Vec<&str> = accepted
            .team_id
            .as_deref()
            .map(|ids| ids.split(',').filter(|id| !id.is_empty()).collect())
            .unwrap_or_default();
        // A microsecond apart, so the user's teams list in the order the invitation named them.
        for (joined, team_id) in (0..).zip(&team_ids) {
            let at = now + chrono::Duration::microseconds(joined);
            team::store::add_member(&mut tx, team_id, &caller.user_id, at).await?;
        }
        tx.enqueue(&member::added_event(&member)).await?;
        tx.enqueue(&status_changed(&accepted)).await?;
        tx.commit().await?;
        // One team: it becomes the active team too (better-auth).
        let team = (team_ids.len() == 1).then(|| team_ids[0].to_string());
        self.peers
            .set_active(caller, Some(accepted.organization_id.clone()), team)
            .await?;
        Ok(Accepted {
            invitation: accepted,
            member,
            email_verified: proof == Proof::MailedLink,
        })
    }

    /// `POST /organization/reject-invitation`.
    pub async fn reject(
        &self,
        caller: &Caller,
        invitation_id: &str,
        token: Option<&str>,
    ) -> Result<Rejected, OrganizationError> {
        let now = ids::now();
        let invitation = store::find(&self.db, invitation_id)
            .await?
            .filter(|i| i.is_open(now))
            .ok_or_else(not_found_bang)?;
        let proof = self
            .check_recipient(
                caller,
                &invitation,
                token,
                codes::EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION,
            )
            .await?;
        self.confirm(caller, &invitation, proof).await?;
        let invitation = self
            .settle(invitation_id, "rejected", now, not_found_bang)
            .await?;
        Ok(Rejected {
            invitation,
            email_verified: proof == Proof::MailedLink,
        })
    }

    /// `POST /organization/cancel-invitation`: by a member who may cancel invitations.
    pub async fn cancel(
        &self,
        caller: &Caller,
        invitation_id: &str,
    ) -> Result<Invitation, OrganizationError> {
        let now = ids::now();
        let invitation = store::find(&self.db, invitation_id)
            .await?
            .filter(|i| i.is_open(now))
            .ok_or(codes::INVITATION_NOT_FOUND)?;
        let own =
            member::store::find_for_user(&self.db, &invitation.organization_id, &caller.user_id)
                .await?
                .ok_or(codes::MEMBER_NOT_FOUND)?;
        if !self
            .rules
            .roles
            .allows(&own.role, &wants("invitation", "cancel"))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION.into());
        }
        self.settle(invitation_id, "canceled", now, || {
            codes::INVITATION_NOT_FOUND.into()
        })
        .await
    }

    /// `GET /organization/get-invitation`: for its recipient, while it can be acted on.
    pub async fn get(
        &self,
        caller: &Caller,
        invitation_id: &str,
        token: Option<&str>,
    ) -> Result<Details, OrganizationError> {
        let now = ids::now();
        let invitation = store::find(&self.db, invitation_id)
            .await?
            .filter(|i| i.is_open(now))
            // better-auth 1.7.7: a message and no code.
            .ok_or_else(|| Failure::message_only(400, "Invitation not found!"))?;
        self.check_recipient(
            caller,
            &invitation,
            token,
            codes::EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION,
        )
        .await?;
        let organization = organizations::find(&self.db, &invitation.organization_id)
            .await?
            .ok_or(codes::ORGANIZATION_NOT_FOUND)?;
        member::store::find_for_user(&self.db, &organization.id, &invitation.inviter_id)
            .await?
            .ok_or(codes::INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION)?;
        let inviter_email = self
            .peers
            .user(&invitation.inviter_id)
            .await?
            .map(|u| u.email)
            .unwrap_or_default();
        Ok(Details {
            invitation,
            organization_name: organization.name,
            organization_slug: organization.slug,
            inviter_email,
        })
    }

    /// `GET /organization/list-invitations`: every invitation of the organization, for who
    /// may invite (better-auth 1.7.24); owner-role invitations only for owners.
    pub async fn list(
        &self,
        caller: &Caller,
        organization_id: Option<&str>,
    ) -> Result<Vec<Invitation>, OrganizationError> {
        let organization_id = organization_id
            .or(caller.active_organization_id.as_deref())
            .ok_or_else(|| Failure::message_only(400, "Organization ID is required"))?;
        let own = member::store::find_for_user(&self.db, organization_id, &caller.user_id)
            .await?
            .ok_or_else(|| {
                Failure::message_only(403, "You are not a member of this organization")
            })?;
        if !self
            .rules
            .roles
            .allows(&own.role, &wants("invitation", "create"))
        {
            return Err(codes::YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS.into());
        }
        let mut invitations = store::list(&self.db, organization_id).await?;
        if !permission::is_owner(&own.role) {
            invitations.retain(|i| !permission::is_owner(&i.role));
        }
        Ok(invitations)
    }

    /// `GET /organization/list-user-invitations`: the caller's pending invitations, once
    /// their address is verified (better-auth asks that always).
    pub async fn list_for_user(&self, caller: &Caller) -> Result<Vec<Details>, OrganizationError> {
        if !caller.email_verified {
            return Err(codes::EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION.into());
        }
        let email = normalize_email(&caller.email);
        let mut found = Vec::new();
        for invitation in store::pending_for_email(&self.db, &email, ids::now()).await? {
            let Some(organization) =
                organizations::find(&self.db, &invitation.organization_id).await?
            else {
                continue;
            };
            found.push(Details {
                invitation,
                organization_name: organization.name,
                organization_slug: organization.slug,
                inviter_email: String::new(),
            });
        }
        Ok(found)
    }

    /// Only the recipient (the address, ignoring case); when verification is required
    /// (`INVITATION_REQUIRE_EMAIL_VERIFICATION`), only once that address is verified or the
    /// mailed link's `token` proves its mailbox ([`Proof::MailedLink`]). A caller who took the
    /// address without owning it (unverified addresses change at once) has neither.
    async fn check_recipient(
        &self,
        caller: &Caller,
        invitation: &Invitation,
        token: Option<&str>,
        unverified: gatehouse_kit::errors::ErrorCode,
    ) -> Result<Proof, OrganizationError> {
        if normalize_email(&caller.email) != invitation.email {
            return Err(codes::YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION.into());
        }
        if !self.rules.invitation_requires_verified_email || caller.email_verified {
            return Ok(Proof::Address);
        }
        match token {
            Some(token) if store::link_token_matches(&self.db, &invitation.id, token).await? => {
                Ok(Proof::MailedLink)
            }
            _ => Err(unverified.into()),
        }
    }

    /// After a [`Proof::MailedLink`], identity marks the caller's address verified: the mail
    /// reached it. Refused as not the recipient when the address is no longer theirs.
    async fn confirm(
        &self,
        caller: &Caller,
        invitation: &Invitation,
        proof: Proof,
    ) -> Result<(), OrganizationError> {
        if proof != Proof::MailedLink {
            return Ok(());
        }
        match self
            .peers
            .confirm_email(&caller.user_id, &invitation.email)
            .await
        {
            Ok(()) => Ok(()),
            Err(failure)
                if failure.is(base::EMAIL_MISMATCH) || failure.is(base::USER_NOT_FOUND) =>
            {
                Err(codes::YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION.into())
            }
            Err(failure) => Err(failure.into()),
        }
    }

    async fn settle(
        &self,
        invitation_id: &str,
        status: &str,
        now: chrono::DateTime<chrono::Utc>,
        gone: impl FnOnce() -> Failure,
    ) -> Result<Invitation, OrganizationError> {
        let mut tx = self.db.begin().await?;
        let settled = store::settle(&mut tx, invitation_id, status, now)
            .await?
            .ok_or_else(gone)?;
        tx.enqueue(&status_changed(&settled)).await?;
        tx.commit().await?;
        Ok(settled)
    }
}

fn status_changed(invitation: &Invitation) -> OutboxEvent {
    OutboxEvent::new(&InvitationStatusChanged {
        organization_id: invitation.organization_id.clone(),
        invitation_id: invitation.id.clone(),
        status: invitation.status.clone(),
    })
}
