//! The organization service's own settings (every one documented in the README). Its database
//! and listener are kit's shared settings (`ORGANIZATION_DATABASE_URL`, `ORGANIZATION_LISTEN`).

use std::time::Duration;

use gatehouse_kit::access::roles_from_json;
use gatehouse_kit::config::{ConfigError, Env};
use gatehouse_kit::service::service_url;

use crate::permission::Roles;

/// Where a mailed invitation leads: better-auth's own examples' page, in the web app.
const DEFAULT_INVITATION_PAGE: &str = "/accept-invitation/";

#[derive(Clone, Debug)]
pub struct OrganizationConfig {
    /// `IDENTITY_URL`: where members' users are read from.
    pub identity_url: String,
    /// `SESSION_URL`: where a session's active organization and team are set.
    pub session_url: String,
    pub rules: Rules,
}

/// The plugin's options (protocol reference §11.1).
#[derive(Clone, Debug)]
pub struct Rules {
    /// `ORGANIZATION_CREATION_ENABLED` (default true): users may create organizations.
    pub creation_enabled: bool,
    /// `ORGANIZATION_LIMIT` (default none): how many organizations a user may belong to and
    /// still create one.
    pub organization_limit: Option<u32>,
    /// `ORGANIZATION_MEMBERSHIP_LIMIT` (default 100): members per organization; also the
    /// default page of a member list.
    pub membership_limit: u32,
    /// `ORGANIZATION_DELETION_ENABLED` (default true).
    pub deletion_enabled: bool,
    /// `ORGANIZATION_DEFAULT_TEAM` (default true): a new organization gets a team of its name
    /// with its creator in it.
    pub default_team: bool,
    /// `ORGANIZATION_ROLES` (JSON, default none): roles besides owner, admin and member, or
    /// new statements for those.
    pub roles: Roles,
    /// `INVITATION_EXPIRES_IN` (default 172800 s, 48 hours).
    pub invitation_expires_in: Duration,
    /// `INVITATION_LIMIT` (default 100): pending, unexpired invitations per organization.
    pub invitation_limit: u32,
    /// `INVITATION_CANCEL_PENDING_ON_REINVITE` (default false): inviting an address again
    /// cancels its pending invitation instead of refusing.
    pub cancel_pending_on_reinvite: bool,
    /// `INVITATION_REQUIRE_EMAIL_VERIFICATION` (default true; better-auth's default is false):
    /// only a verified address, or one proved by the invitation's mailed link, may accept or
    /// reject, so taking over an unverified address does not take its invitations.
    pub invitation_requires_verified_email: bool,
    /// `INVITATION_PAGE` (default `/accept-invitation/`): the web app's page a mailed
    /// invitation opens, the invitation's id appended.
    pub invitation_page: String,
    pub invitation_mails: InvitationMailLimits,
    /// `TEAM_LIMIT` (default none): teams per organization.
    pub team_limit: Option<u32>,
    /// `TEAM_MEMBER_LIMIT` (default none): members per team.
    pub team_member_limit: Option<u32>,
    /// `TEAM_ALLOW_REMOVING_ALL` (default false): an organization's last team may be removed.
    pub allow_removing_all_teams: bool,
}

/// How many invitation mails (new invitations and resends) may go out, counted over a sliding
/// window from the service's database (`invitation::throttle`). The defaults let an
/// organization invite a full organization's worth of people (`ORGANIZATION_MEMBERSHIP_LIMIT`,
/// 100) in one sitting, and an address hear from a handful of organizations, or one that
/// resends a few times, in an hour; a flood to one address stops at 5 mails an hour.
#[derive(Clone, Debug)]
pub struct InvitationMailLimits {
    /// `INVITATION_MAIL_WINDOW` (default 3600 s, at least 1): the window both limits count in.
    pub window: Duration,
    /// `INVITATION_MAILS_PER_RECIPIENT` (default 5, `0`: none): mails to one address, from
    /// every organization together.
    pub per_recipient: u32,
    /// `INVITATION_MAILS_PER_ORGANIZATION` (default 100, `0`: none): mails one organization
    /// sends, to every address together.
    pub per_organization: u32,
}

impl Default for InvitationMailLimits {
    fn default() -> Self {
        Self {
            window: Duration::from_secs(3600),
            per_recipient: 5,
            per_organization: 100,
        }
    }
}

impl InvitationMailLimits {
    fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let defaults = Self::default();
        let window = env.seconds("INVITATION_MAIL_WINDOW", defaults.window.as_secs())?;
        if window.is_zero() {
            return Err(ConfigError::Invalid {
                name: "INVITATION_MAIL_WINDOW".into(),
                value: "0".into(),
                reason: "the window is at least 1 second".into(),
            });
        }
        Ok(Self {
            window,
            per_recipient: env.parse("INVITATION_MAILS_PER_RECIPIENT", defaults.per_recipient)?,
            per_organization: env.parse(
                "INVITATION_MAILS_PER_ORGANIZATION",
                defaults.per_organization,
            )?,
        })
    }
}

impl OrganizationConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        use gatehouse_proto::{identity, session};
        let limit = env.parse::<u32>("ORGANIZATION_LIMIT", 0)?;
        let team_limit = env.parse::<u32>("TEAM_LIMIT", 0)?;
        let team_member_limit = env.parse::<u32>("TEAM_MEMBER_LIMIT", 0)?;
        let raw_roles = env.string("ORGANIZATION_ROLES", "");
        let custom = if raw_roles.trim().is_empty() {
            Default::default()
        } else {
            roles_from_json(&raw_roles).map_err(|reason| ConfigError::Invalid {
                name: "ORGANIZATION_ROLES".into(),
                value: raw_roles.clone(),
                reason,
            })?
        };
        Ok(Self {
            identity_url: service_url(env, identity::NAME, identity::DEFAULT_LISTEN),
            session_url: service_url(env, session::NAME, session::DEFAULT_LISTEN),
            rules: Rules {
                creation_enabled: env.bool("ORGANIZATION_CREATION_ENABLED", true)?,
                organization_limit: (limit > 0).then_some(limit),
                membership_limit: env.parse("ORGANIZATION_MEMBERSHIP_LIMIT", 100)?,
                deletion_enabled: env.bool("ORGANIZATION_DELETION_ENABLED", true)?,
                default_team: env.bool("ORGANIZATION_DEFAULT_TEAM", true)?,
                roles: Roles::new(custom),
                invitation_expires_in: env.seconds("INVITATION_EXPIRES_IN", 172_800)?,
                invitation_limit: env.parse("INVITATION_LIMIT", 100)?,
                cancel_pending_on_reinvite: env
                    .bool("INVITATION_CANCEL_PENDING_ON_REINVITE", false)?,
                invitation_requires_verified_email: env
                    .bool("INVITATION_REQUIRE_EMAIL_VERIFICATION", true)?,
                invitation_page: env.string("INVITATION_PAGE", DEFAULT_INVITATION_PAGE),
                invitation_mails: InvitationMailLimits::from_env(env)?,
                team_limit: (team_limit > 0).then_some(team_limit),
                team_member_limit: (team_member_limit > 0).then_some(team_member_limit),
                allow_removing_all_teams: env.bool("TEAM_ALLOW_REMOVING_ALL", false)?,
            },
        })
    }
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            creation_enabled: true,
            organization_limit: None,
            membership_limit: 100,
            deletion_enabled: true,
            default_team: true,
            roles: Roles::new(Default::default()),
            invitation_expires_in: Duration::from_secs(172_800),
            invitation_limit: 100,
            cancel_pending_on_reinvite: false,
            invitation_requires_verified_email: true,
            invitation_page: DEFAULT_INVITATION_PAGE.to_string(),
            invitation_mails: InvitationMailLimits::default(),
            team_limit: None,
            team_member_limit: None,
            allow_removing_all_teams: false,
        }
    }
}
