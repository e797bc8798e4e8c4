//! Generated gRPC code for Gatehouse's services, one module per proto package, with each
//! service's name and default address (its clients' default `<NAME>_URL`).

pub mod identity {
    pub const NAME: &str = "identity";
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:50051";

    pub mod v1 {
        tonic::include_proto!("gatehouse.identity.v1");
    }
}

pub mod session {
    pub const NAME: &str = "session";
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:50052";

    pub mod v1 {
        tonic::include_proto!("gatehouse.session.v1");
    }
}

pub mod mailer {
    pub const NAME: &str = "mailer";
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:50053";

    pub mod v1 {
        tonic::include_proto!("gatehouse.mailer.v1");
    }
}

pub mod organization {
    pub const NAME: &str = "organization";
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:50054";

    pub mod v1 {
        tonic::include_proto!("gatehouse.organization.v1");
    }
}

pub mod billing_webhook {
    pub const NAME: &str = "billing-webhook";
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:50055";

    pub mod v1 {
        tonic::include_proto!("gatehouse.billing_webhook.v1");
    }
}

/// The events services publish: payload types, their topics, and the consumer queues bound
/// to them. Every process declares these queues before it publishes, so an event never waits
/// for its consumer to have started once.
pub mod events {
    pub mod v1 {
        tonic::include_proto!("gatehouse.events.v1");
    }

    /// An event payload and the topic (routing key) it is published under.
    pub trait Event: prost::Message + Default + 'static {
        const TOPIC: &'static str;
    }

    macro_rules! topics {
        ($( $payload:ty => $topic:literal ),+ $(,)?) => {
            $( impl Event for $payload { const TOPIC: &'static str = $topic; } )+
            /// Every topic.
            pub const TOPICS: &[&str] = &[$( $topic ),+];
        };
    }

    topics! {
        v1::UserCreated => "user.created",
        v1::UserUpdated => "user.updated",
        v1::UserDeleted => "user.deleted",
        v1::UserBanned => "user.banned",
        v1::UserCredentialsChanged => "user.credentials-changed",
        v1::SessionRevoked => "session.revoked",
        v1::SessionNewDevice => "session.new-device",
        v1::MailRequested => "mail.requested",
        v1::MailSent => "mail.sent",
        v1::MailFailed => "mail.failed",
        v1::OrganizationCreated => "organization.created",
        v1::OrganizationUpdated => "organization.updated",
        v1::OrganizationDeleted => "organization.deleted",
        v1::MemberAdded => "member.added",
        v1::MemberRoleUpdated => "member.role-updated",
        v1::MemberRemoved => "member.removed",
        v1::InvitationCreated => "invitation.created",
        v1::InvitationStatusChanged => "invitation.status-changed",
        v1::TeamCreated => "team.created",
        v1::TeamUpdated => "team.updated",
        v1::TeamRemoved => "team.removed",
        v1::TeamMemberAdded => "team-member.added",
        v1::TeamMemberRemoved => "team-member.removed",
        v1::BillingEventReceived => "billing.event-received",
        v1::BillingDeliveryDue => "billing.delivery-due",
        v1::ApiKeyCreated => "api-key.created",
        v1::ApiKeyRevoked => "api-key.revoked",
        v1::UserTwoFactorChanged => "user.two-factor-changed",
    }

    /// Topics whose payload carries a secret (a mailed link's token): sealed in the outbox,
    /// on the bus and in the audit queue (`gatehouse_kit::sealing`), opened by the consumer.
    pub const SEALED_TOPICS: &[&str] = &["mail.requested"];

    /// A consumer's durable queue and the topics bound to it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Queue {
        pub name: &'static str,
        pub topics: &'static [&'static str],
    }

    /// The session service drops its cached copies of a user who changed, and the sessions of
    /// a user who was deleted or banned, or whose password or email an admin set.
    pub const SESSION_USER_EVENTS: Queue = Queue {
        name: "session.user-events",
        topics: &[
            "user.updated",
            "user.deleted",
            "user.banned",
            "user.credentials-changed",
        ],
    };

    /// Sessions lose an organization that was deleted, or a team that was removed, as their
    /// active one.
    pub const SESSION_ORGANIZATION_EVENTS: Queue = Queue {
        name: "session.organization-events",
        topics: &["organization.deleted", "team.removed"],
    };

    /// The organization service keeps its copy of members' profiles current, and removes a
    /// deleted user's memberships, and an organization left without members.
    pub const ORGANIZATION_USER_EVENTS: Queue = Queue {
        name: "organization.user-events",
        topics: &["user.updated", "user.deleted"],
    };

    /// The mailer writes and sends every requested mail.
    pub const MAILER_MAIL_REQUESTS: Queue = Queue {
        name: "mailer.mail-requests",
        topics: &["mail.requested"],
    };

    /// The billing-webhook service handles every stored webhook event in one transaction: it
    /// files the event's entity in the projections (customers, their state, subscriptions,
    /// orders, refunds, benefit grants) and fans it out to the endpoints that take it (one
    /// delivery row per endpoint, each owed an attempt).
    pub const BILLING_EVENTS: Queue = Queue {
        name: "billing-webhook.events",
        topics: &["billing.event-received"],
    };

    /// The billing-webhook service's work queue of HTTP attempts at sellers' endpoints, retried
    /// on the delivery schedule and dead-lettered when it is spent.
    pub const BILLING_DELIVERIES: Queue = Queue {
        name: "billing-webhook.deliveries",
        topics: &["billing.delivery-due"],
    };

    /// The billing-webhook service removes a deleted organization's endpoints, with the
    /// deliveries they still owe.
    pub const BILLING_ORGANIZATION_EVENTS: Queue = Queue {
        name: "billing-webhook.organization-events",
        topics: &["organization.deleted"],
    };

    /// Identity deletes a deleted organization's API keys.
    pub const IDENTITY_ORGANIZATION_EVENTS: Queue = Queue {
        name: "identity.organization-events",
        topics: &["organization.deleted"],
    };

    /// Identity mails a user who signed in from a new device.
    pub const IDENTITY_SESSION_EVENTS: Queue = Queue {
        name: "identity.session-events",
        topics: &["session.new-device"],
    };

    /// Every consumer queue. Adding a consumer is a line here and its handler.
    pub const QUEUES: &[Queue] = &[
        IDENTITY_ORGANIZATION_EVENTS,
        IDENTITY_SESSION_EVENTS,
        SESSION_USER_EVENTS,
        SESSION_ORGANIZATION_EVENTS,
        MAILER_MAIL_REQUESTS,
        ORGANIZATION_USER_EVENTS,
        BILLING_EVENTS,
        BILLING_DELIVERIES,
        BILLING_ORGANIZATION_EVENTS,
    ];
}
