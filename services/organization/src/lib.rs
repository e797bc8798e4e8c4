//! The organization service: organizations, their members, invitations and teams, and who may
//! do what in them (better-auth's organization plugin with teams). One folder per capability,
//! each matching a proto service and a gateway route group of the same name: `organization/`
//! (OrganizationService), `member/` (MemberService), `invitation/` (InvitationService) and
//! `team/` (TeamService). `permission` is the one check every rule uses; `convert` the one place
//! domain types become proto messages.

pub mod caller;
pub mod config;
pub mod convert;
pub mod error;
pub mod invitation;
pub mod member;
pub mod organization;
pub mod peers;
pub mod permission;
pub mod team;

use std::sync::Arc;

use gatehouse_kit::consumer::{Consumer, RetryPolicy};
use gatehouse_kit::db::{Db, Migrations};
use gatehouse_kit::service::{BoxError, Context, GrpcServices, ServicePart};
use gatehouse_proto::events::ORGANIZATION_USER_EVENTS;
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;
use tokio_util::sync::CancellationToken;

pub use config::OrganizationConfig;
pub use gatehouse_proto::organization::{DEFAULT_LISTEN, NAME};

pub const MIGRATIONS: Migrations = gatehouse_kit::service_migrations!();

/// The organization service as a part of the `gatehouse` binary.
pub const SERVICE: ServicePart = ServicePart {
    name: NAME,
    about: "The organization service alone (organizations, members, invitations, teams)",
    default_listen: DEFAULT_LISTEN,
    default_ops_listen: "127.0.0.1:9304",
    migrations: &MIGRATIONS,
    database_connections: gatehouse_kit::service::DEFAULT_DATABASE_CONNECTIONS,
    start: |db, context, shutdown| Box::pin(start(db, context, shutdown)),
};

/// Every capability's rules, over one database.
pub struct Capabilities {
    pub organizations: organization::Organizations,
    pub members: member::Members,
    pub invitations: invitation::Invitations,
    pub teams: team::Teams,
}

/// The organization, member, invitation and team rules over `db`, reading users from `IDENTITY_URL` and setting
/// sessions' active organization through `SESSION_URL`.
pub fn capabilities(db: Db, context: &Context) -> Result<Capabilities, BoxError> {
    let config = OrganizationConfig::from_env(&context.env)?;
    tracing::info!(?config, "organization configuration");
    let channel = |url: &str| gatehouse_kit::client::lazy_channel(url, &context.service_token);
    let peers = peers::Peers {
        users: UserServiceClient::new(channel(&config.identity_url)?),
        sessions: SessionServiceClient::new(channel(&config.session_url)?),
    };
    Ok(Capabilities {
        organizations: organization::Organizations::new(
            db.clone(),
            config.rules.clone(),
            peers.clone(),
        ),
        members: member::Members::new(db.clone(), config.rules.clone(), peers.clone()),
        invitations: invitation::Invitations::new(db.clone(), config.rules.clone(), peers.clone()),
        teams: team::Teams::new(db, config.rules, peers),
    })
}

async fn start(
    db: Db,
    context: Context,
    shutdown: CancellationToken,
) -> Result<GrpcServices, BoxError> {
    Consumer {
        queue: ORGANIZATION_USER_EVENTS.name,
        db: db.clone(),
        bus: context.bus.clone(),
        handler: Arc::new(member::events::UserEvents),
        retry: RetryPolicy::default(),
        concurrency: 1,
        yields: None,
    }
    .spawn(shutdown);
    let capabilities = capabilities(db, &context)?;
    Ok(GrpcServices::new()
        .serve(organization::grpc::server(capabilities.organizations))
        .serve(member::grpc::server(capabilities.members))
        .serve(invitation::grpc::server(capabilities.invitations))
        .serve(team::grpc::server(capabilities.teams)))
}
