//! The organization plugin's JSON shapes (protocol §11.3), built from the organization
//! service's protos.

use gatehouse_kit::ids::iso;
use gatehouse_proto::organization::v1 as pb;
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub logo: Option<String>,
    /// The stored JSON text (or null), except from create and update: there the object
    /// parsed, and no key at all when there is none (better-auth's quirk, kept for clients
    /// that rely on it).
    #[schema(value_type = Option<Metadata>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    pub created_at: String,
}

/// An organization's metadata as an answer shows it: the stored JSON text, or the object.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum Metadata {
    Text(String),
    Object(std::collections::HashMap<String, Value>),
}

impl Organization {
    /// As every route but create and update shows it: metadata as stored.
    pub fn stored(organization: pb::Organization) -> Self {
        let metadata = Some(
            organization
                .metadata
                .clone()
                .map_or(Value::Null, Value::String),
        );
        Self {
            metadata,
            ..Self::without_metadata(organization)
        }
    }

    /// As create and update show it: metadata parsed, absent when there is none.
    pub fn written(organization: pb::Organization) -> Self {
        let metadata = organization
            .metadata
            .as_deref()
            .and_then(|text| serde_json::from_str(text).ok());
        Self {
            metadata,
            ..Self::without_metadata(organization)
        }
    }

    fn without_metadata(organization: pb::Organization) -> Self {
        Self {
            id: organization.id,
            name: organization.name,
            slug: organization.slug,
            logo: organization.logo,
            metadata: None,
            created_at: iso(organization.created_at_unix_ms),
        }
    }
}

/// Input: a member's role, several separated by commas, or a list of roles (the
/// organization's roles: `owner`, `admin`, `member` and those `ORGANIZATION_ROLES` adds).
/// The field that takes it carries no description of its own: beside an inline union one
/// would turn it into a schema no value satisfies.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum MemberRoles {
    One(String),
    Several(Vec<String>),
}

/// Input: a team of the organization, or a list of them.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum TeamIds {
    One(String),
    Several(Vec<String>),
}

/// What a member list shows of a member's user.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct MemberUser {
    pub id: String,
    pub name: String,
    pub email: String,
    pub image: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub id: String,
    pub organization_id: String,
    pub user_id: String,
    /// One role or several, comma-separated.
    pub role: String,
    pub created_at: String,
    /// In member lists; not in the answers of create, accept and update-member-role.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<MemberUser>,
}

impl From<pb::Member> for Member {
    fn from(member: pb::Member) -> Self {
        Self {
            id: member.id,
            organization_id: member.organization_id,
            user_id: member.user_id,
            role: member.role,
            created_at: iso(member.created_at_unix_ms),
            user: member.user.map(|u| MemberUser {
                id: u.id,
                name: u.name,
                email: u.email,
                image: u.image,
            }),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub id: String,
    pub organization_id: String,
    pub email: String,
    pub role: String,
    /// pending | accepted | rejected | canceled
    pub status: String,
    pub expires_at: String,
    pub created_at: String,
    pub inviter_id: String,
    pub team_id: Option<String>,
}

impl From<pb::Invitation> for Invitation {
    fn from(invitation: pb::Invitation) -> Self {
        Self {
            id: invitation.id,
            organization_id: invitation.organization_id,
            email: invitation.email,
            role: invitation.role,
            status: invitation.status,
            expires_at: iso(invitation.expires_at_unix_ms),
            created_at: iso(invitation.created_at_unix_ms),
            inviter_id: invitation.inviter_id,
            team_id: invitation.team_id,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Team {
    pub id: String,
    pub name: String,
    pub organization_id: String,
    pub created_at: String,
    pub updated_at: Option<String>,
    /// How many members the team has: better-auth 1.7 shows it in a full organization only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member_count: Option<u32>,
}

impl From<pb::Team> for Team {
    /// As the team routes show a team: without its member count.
    fn from(team: pb::Team) -> Self {
        Self {
            id: team.id,
            name: team.name,
            organization_id: team.organization_id,
            created_at: iso(team.created_at_unix_ms),
            updated_at: team.updated_at_unix_ms.map(iso),
            member_count: None,
        }
    }
}

impl Team {
    /// As a full organization shows its teams: with their member counts.
    pub fn counted(team: pb::Team) -> Self {
        let member_count = Some(team.member_count);
        Self {
            member_count,
            ..team.into()
        }
    }
}

/// A user's place in a team.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeamMember {
    pub id: String,
    pub team_id: String,
    pub user_id: String,
    pub created_at: String,
}

impl From<pb::TeamMember> for TeamMember {
    fn from(member: pb::TeamMember) -> Self {
        Self {
            id: member.id,
            team_id: member.team_id,
            user_id: member.user_id,
            created_at: iso(member.created_at_unix_ms),
        }
    }
}

/// `GET /organization/get-full-organization`: the organization with its members (and their
/// users), its invitations and its teams.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct FullOrganization {
    #[serde(flatten)]
    pub organization: Organization,
    pub members: Vec<Member>,
    pub invitations: Vec<Invitation>,
    pub teams: Vec<Team>,
}

/// `POST /organization/create`: the organization with its one member, the creator.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct CreatedOrganization {
    #[serde(flatten)]
    pub organization: Organization,
    pub members: Vec<Member>,
}

/// `GET /organization/get-invitation`: the invitation with where it leads and who sent it.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitationDetails {
    #[serde(flatten)]
    pub invitation: Invitation,
    pub organization_name: String,
    pub organization_slug: String,
    pub inviter_email: String,
}

impl From<pb::InvitationDetails> for InvitationDetails {
    fn from(details: pb::InvitationDetails) -> Self {
        Self {
            invitation: details.invitation.unwrap_or_default().into(),
            organization_name: details.organization_name,
            organization_slug: details.organization_slug,
            inviter_email: details.inviter_email,
        }
    }
}
