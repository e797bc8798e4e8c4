//! The organization service's own settings (every one documented in the README), loaded as
//! every part loads its settings: [`OrganizationSettings`] is what the environment says, with
//! the defaults in its `Default` (the only place they are written); [`OrganizationConfig`] is
//! the checked form the rules use. Its database and listener are kit's shared settings
//! (`ORGANIZATION_DATABASE_URL`, `ORGANIZATION_LISTEN`).

use std::time::Duration;

use gatehouse_kit::access::roles_from_json;
use gatehouse_kit::config::{ConfigError, Env};
use gatehouse_kit::service::service_url;
use serde::Deserialize;

use crate::permission::Roles;

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

/// The organization service's variables, one field each (`team_limit` ← `TEAM_LIMIT`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct OrganizationSettings {
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub organization_creation_enabled: bool,
    /// `0`: no limit.
    pub organization_limit: u32,
    pub organization_membership_limit: u32,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub organization_deletion_enabled: bool,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub organization_default_team: bool,
    /// JSON roles; checked when the configuration is built.
    pub organization_roles: Option<String>,
    pub invitation_expires_in: u64,
    pub invitation_limit: u32,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub invitation_cancel_pending_on_reinvite: bool,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub invitation_require_email_verification: bool,
    pub invitation_page: String,
    pub invitation_mail_window: u64,
    pub invitation_mails_per_recipient: u32,
    pub invitation_mails_per_organization: u32,
    /// `0`: no limit.
    pub team_limit: u32,
    /// `0`: no limit.
    pub team_member_limit: u32,
    #[serde(deserialize_with = "gatehouse_kit::config::flag")]
    pub team_allow_removing_all: bool,
}

impl Default for OrganizationSettings {
    fn default() -> Self {
        Self {
            organization_creation_enabled: true,
            organization_limit: 0,
            organization_membership_limit: 100,
            organization_deletion_enabled: true,
            organization_default_team: true,
            organization_roles: None,
            invitation_expires_in: 172_800,
            invitation_limit: 100,
            invitation_cancel_pending_on_reinvite: false,
            invitation_require_email_verification: true,
            // better-auth's own examples' page, in the web app.
            invitation_page: "/accept-invitation/".into(),
            invitation_mail_window: 3600,
            invitation_mails_per_recipient: 5,
            invitation_mails_per_organization: 100,
            team_limit: 0,
            team_member_limit: 0,
            team_allow_removing_all: false,
        }
    }
}

/// `0` is no limit.
fn limit(value: u32) -> Option<u32> {
    (value > 0).then_some(value)
}

impl OrganizationSettings {
    /// The rules these settings make, with `roles` (parsed from `organization_roles`).
    fn rules(self, roles: Roles) -> Rules {
        Rules {
            creation_enabled: self.organization_creation_enabled,
            organization_limit: limit(self.organization_limit),
            membership_limit: self.organization_membership_limit,
            deletion_enabled: self.organization_deletion_enabled,
            default_team: self.organization_default_team,
            roles,
            invitation_expires_in: Duration::from_secs(self.invitation_expires_in),
            invitation_limit: self.invitation_limit,
            cancel_pending_on_reinvite: self.invitation_cancel_pending_on_reinvite,
            invitation_requires_verified_email: self.invitation_require_email_verification,
            invitation_page: self.invitation_page,
            invitation_mails: InvitationMailLimits {
                window: Duration::from_secs(self.invitation_mail_window),
                per_recipient: self.invitation_mails_per_recipient,
                per_organization: self.invitation_mails_per_organization,
            },
            team_limit: limit(self.team_limit),
            team_member_limit: limit(self.team_member_limit),
            allow_removing_all_teams: self.team_allow_removing_all,
        }
    }
}

impl OrganizationConfig {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        use gatehouse_proto::{identity, session};
        let settings: OrganizationSettings = env.load()?;
        if settings.invitation_mail_window == 0 {
            return Err(ConfigError::Invalid {
                name: "INVITATION_MAIL_WINDOW".into(),
                value: "0".into(),
                reason: "the window is at least 1 second".into(),
            });
        }
        let custom = match settings.organization_roles.as_deref() {
            Some(raw) if !raw.trim().is_empty() => {
                roles_from_json(raw).map_err(|reason| ConfigError::Invalid {
                    name: "ORGANIZATION_ROLES".into(),
                    value: raw.to_string(),
                    reason,
                })?
            }
            _ => Default::default(),
        };
        Ok(Self {
            identity_url: service_url(env, identity::NAME, identity::DEFAULT_LISTEN),
            session_url: service_url(env, session::NAME, session::DEFAULT_LISTEN),
            rules: settings.rules(Roles::new(custom)),
        })
    }
}

impl Default for Rules {
    /// The rules of an unconfigured service.
    fn default() -> Self {
        OrganizationSettings::default().rules(Roles::new(Default::default()))
    }
}

impl Default for InvitationMailLimits {
    fn default() -> Self {
        Rules::default().invitation_mails
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<OrganizationConfig, ConfigError> {
        OrganizationConfig::from_env(&Env::from_pairs(pairs.iter().copied()))
    }

    #[test]
    fn unset_variables_take_the_declared_defaults() {
        let rules = config(&[]).unwrap().rules;
        assert!(rules.creation_enabled && rules.deletion_enabled && rules.default_team);
        assert_eq!(rules.organization_limit, None);
        assert_eq!(rules.membership_limit, 100);
        assert_eq!(rules.invitation_expires_in, Duration::from_secs(172_800));
        assert_eq!(rules.invitation_limit, 100);
        assert!(!rules.cancel_pending_on_reinvite);
        assert!(rules.invitation_requires_verified_email);
        assert_eq!(rules.invitation_page, "/accept-invitation/");
        assert_eq!(rules.invitation_mails.window, Duration::from_secs(3600));
        assert_eq!(rules.invitation_mails.per_recipient, 5);
        assert_eq!(rules.invitation_mails.per_organization, 100);
        assert_eq!((rules.team_limit, rules.team_member_limit), (None, None));
        assert!(!rules.allow_removing_all_teams);
        let default = Rules::default();
        assert_eq!(default.membership_limit, rules.membership_limit);
        assert_eq!(default.invitation_page, rules.invitation_page);
    }

    #[test]
    fn set_variables_are_read_and_bad_ones_refused() {
        let rules = config(&[
            ("ORGANIZATION_CREATION_ENABLED", "no"),
            ("ORGANIZATION_LIMIT", "3"),
            ("TEAM_LIMIT", "0"),
            ("TEAM_ALLOW_REMOVING_ALL", "1"),
            ("INVITATION_REQUIRE_EMAIL_VERIFICATION", "FALSE"),
            ("INVITATION_EXPIRES_IN", "60"),
            ("INVITATION_MAILS_PER_RECIPIENT", "0"),
            (
                "ORGANIZATION_ROLES",
                r#"{"billing": {"organization": ["update"]}}"#,
            ),
        ])
        .unwrap()
        .rules;
        assert!(!rules.creation_enabled);
        assert_eq!(rules.organization_limit, Some(3));
        assert_eq!(rules.team_limit, None);
        assert!(rules.allow_removing_all_teams);
        assert!(!rules.invitation_requires_verified_email);
        assert_eq!(rules.invitation_expires_in, Duration::from_secs(60));
        assert_eq!(rules.invitation_mails.per_recipient, 0);
        for (name, value) in [
            ("INVITATION_MAIL_WINDOW", "0"),
            ("ORGANIZATION_ROLES", "not json"),
            ("ORGANIZATION_LIMIT", "many"),
        ] {
            let error = config(&[(name, value)]).unwrap_err().to_string();
            assert!(error.contains(name), "{error}");
        }
        let error = config(&[("ORGANIZATION_DEFAULT_TEAM", "maybe")]).unwrap_err();
        assert!(error.to_string().contains("maybe"), "{error}");
    }
}
