//! Domain types to the organization service's proto messages: the one place they meet.

use gatehouse_proto::organization::v1 as pb;

use crate::invitation::{Details, Invitation};
use crate::member::{ListedMember, Member};
use crate::organization::Organization;
use crate::team::{Team, TeamMember};

impl From<Organization> for pb::Organization {
    fn from(o: Organization) -> Self {
        pb::Organization {
            id: o.id,
            name: o.name,
            slug: o.slug,
            logo: o.logo,
            metadata: o.metadata,
            created_at_unix_ms: o.created_at.timestamp_millis(),
        }
    }
}

impl From<Member> for pb::Member {
    fn from(m: Member) -> Self {
        pb::Member {
            id: m.id,
            organization_id: m.organization_id,
            user_id: m.user_id,
            role: m.role,
            created_at_unix_ms: m.created_at.timestamp_millis(),
            user: None,
        }
    }
}

impl From<ListedMember> for pb::Member {
    fn from(listed: ListedMember) -> Self {
        let user = listed.user.map(|u| pb::MemberUser {
            id: u.id,
            name: u.name,
            email: u.email,
            image: u.image,
        });
        pb::Member {
            user,
            ..listed.member.into()
        }
    }
}

impl From<Invitation> for pb::Invitation {
    fn from(i: Invitation) -> Self {
        pb::Invitation {
            id: i.id,
            organization_id: i.organization_id,
            email: i.email,
            role: i.role,
            status: i.status,
            expires_at_unix_ms: i.expires_at.timestamp_millis(),
            created_at_unix_ms: i.created_at.timestamp_millis(),
            inviter_id: i.inviter_id,
            team_id: i.team_id,
        }
    }
}

impl From<Team> for pb::Team {
    fn from(t: Team) -> Self {
        pb::Team {
            id: t.id,
            name: t.name,
            organization_id: t.organization_id,
            created_at_unix_ms: t.created_at.timestamp_millis(),
            updated_at_unix_ms: t.updated_at.map(|at| at.timestamp_millis()),
            member_count: u32::try_from(t.member_count).unwrap_or(u32::MAX),
        }
    }
}

impl From<TeamMember> for pb::TeamMember {
    fn from(m: TeamMember) -> Self {
        pb::TeamMember {
            id: m.id,
            team_id: m.team_id,
            user_id: m.user_id,
            created_at_unix_ms: m.created_at.timestamp_millis(),
        }
    }
}

impl From<Details> for pb::InvitationDetails {
    fn from(d: Details) -> Self {
        pb::InvitationDetails {
            invitation: Some(d.invitation.into()),
            organization_name: d.organization_name,
            organization_slug: d.organization_slug,
            inviter_email: d.inviter_email,
        }
    }
}
