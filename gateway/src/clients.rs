//! The gateway's gRPC clients, built in one place: each backend service's clients share one
//! lazily connected channel (services may start after the gateway), at the address
//! [`ServiceUrls`] read. Handlers reach a client as `state.<client>` (the state derefs to
//! [`Clients`]). A backend the gateway calls is a block here and nowhere else in the gateway.

use gatehouse_kit::client::{ServiceChannel, lazy_channel};
use gatehouse_kit::config::Env;
use gatehouse_kit::service::service_url;
use gatehouse_kit::service_auth::ServiceToken;
use gatehouse_proto::billing_webhook::v1::customer_service_client::CustomerServiceClient;
use gatehouse_proto::billing_webhook::v1::delivery_service_client::DeliveryServiceClient;
use gatehouse_proto::billing_webhook::v1::endpoint_service_client::EndpointServiceClient;
use gatehouse_proto::billing_webhook::v1::intake_service_client::IntakeServiceClient;
use gatehouse_proto::identity::v1::account_service_client::AccountServiceClient;
use gatehouse_proto::identity::v1::admin_service_client::AdminServiceClient;
use gatehouse_proto::identity::v1::api_key_service_client::ApiKeyServiceClient;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::identity::v1::email_verification_service_client::EmailVerificationServiceClient;
use gatehouse_proto::identity::v1::password_reset_service_client::PasswordResetServiceClient;
use gatehouse_proto::identity::v1::social_service_client::SocialServiceClient;
use gatehouse_proto::identity::v1::two_factor_service_client::TwoFactorServiceClient;
use gatehouse_proto::identity::v1::username_service_client::UsernameServiceClient;
use gatehouse_proto::mailer::v1::mailbox_service_client::MailboxServiceClient;
use gatehouse_proto::organization::v1::invitation_service_client::InvitationServiceClient;
use gatehouse_proto::organization::v1::member_service_client::MemberServiceClient;
use gatehouse_proto::organization::v1::organization_service_client::OrganizationServiceClient;
use gatehouse_proto::organization::v1::team_service_client::TeamServiceClient;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;
use gatehouse_proto::session::v1::token_service_client::TokenServiceClient;
use gatehouse_proto::{billing_webhook, identity, mailer, organization, session};

/// Where each backend the gateway calls listens: `<NAME>_URL`, else the service's default
/// address (`IDENTITY_URL`, …; standalone mode sets them to where it started each part).
#[derive(Clone, Debug)]
pub struct ServiceUrls {
    pub identity: String,
    pub session: String,
    /// The mailer's log, for the dev mailbox (`DEV_MAILBOX`).
    pub mailer: String,
    pub organization: String,
    pub billing_webhook: String,
}

impl ServiceUrls {
    pub fn from_env(env: &Env) -> Self {
        Self {
            identity: service_url(env, identity::NAME, identity::DEFAULT_LISTEN),
            session: service_url(env, session::NAME, session::DEFAULT_LISTEN),
            mailer: service_url(env, mailer::NAME, mailer::DEFAULT_LISTEN),
            organization: service_url(env, organization::NAME, organization::DEFAULT_LISTEN),
            billing_webhook: service_url(
                env,
                billing_webhook::NAME,
                billing_webhook::DEFAULT_LISTEN,
            ),
        }
    }
}

/// Every gRPC client a handler may call, grouped by the backend that serves it.
pub struct Clients {
    // identity
    pub email_password: EmailPasswordServiceClient<ServiceChannel>,
    pub accounts: AccountServiceClient<ServiceChannel>,
    pub usernames: UsernameServiceClient<ServiceChannel>,
    pub admin: AdminServiceClient<ServiceChannel>,
    pub email_verification: EmailVerificationServiceClient<ServiceChannel>,
    pub password_reset: PasswordResetServiceClient<ServiceChannel>,
    pub social: SocialServiceClient<ServiceChannel>,
    pub api_keys: ApiKeyServiceClient<ServiceChannel>,
    pub two_factor: TwoFactorServiceClient<ServiceChannel>,
    // session
    pub sessions: SessionServiceClient<ServiceChannel>,
    pub tokens: TokenServiceClient<ServiceChannel>,
    // mailer
    pub mailbox: MailboxServiceClient<ServiceChannel>,
    // organization
    pub organizations: OrganizationServiceClient<ServiceChannel>,
    pub members: MemberServiceClient<ServiceChannel>,
    pub invitations: InvitationServiceClient<ServiceChannel>,
    pub teams: TeamServiceClient<ServiceChannel>,
    // billing-webhook
    pub intake: IntakeServiceClient<ServiceChannel>,
    pub endpoints: EndpointServiceClient<ServiceChannel>,
    pub deliveries: DeliveryServiceClient<ServiceChannel>,
    pub customers: CustomerServiceClient<ServiceChannel>,
}

impl Clients {
    /// One channel per backend, carrying `token` on every call; nothing connects yet.
    pub fn connect(
        urls: &ServiceUrls,
        token: &ServiceToken,
    ) -> Result<Self, tonic::transport::Error> {
        let identity = lazy_channel(&urls.identity, token)?;
        let session = lazy_channel(&urls.session, token)?;
        let mailer = lazy_channel(&urls.mailer, token)?;
        let organization = lazy_channel(&urls.organization, token)?;
        let billing_webhook = lazy_channel(&urls.billing_webhook, token)?;
        Ok(Self {
            email_password: EmailPasswordServiceClient::new(identity.clone()),
            accounts: AccountServiceClient::new(identity.clone()),
            usernames: UsernameServiceClient::new(identity.clone()),
            admin: AdminServiceClient::new(identity.clone()),
            email_verification: EmailVerificationServiceClient::new(identity.clone()),
            password_reset: PasswordResetServiceClient::new(identity.clone()),
            social: SocialServiceClient::new(identity.clone()),
            api_keys: ApiKeyServiceClient::new(identity.clone()),
            two_factor: TwoFactorServiceClient::new(identity),
            sessions: SessionServiceClient::new(session.clone()),
            tokens: TokenServiceClient::new(session),
            mailbox: MailboxServiceClient::new(mailer),
            organizations: OrganizationServiceClient::new(organization.clone()),
            members: MemberServiceClient::new(organization.clone()),
            invitations: InvitationServiceClient::new(organization.clone()),
            teams: TeamServiceClient::new(organization),
            intake: IntakeServiceClient::new(billing_webhook.clone()),
            endpoints: EndpointServiceClient::new(billing_webhook.clone()),
            deliveries: DeliveryServiceClient::new(billing_webhook.clone()),
            customers: CustomerServiceClient::new(billing_webhook),
        })
    }
}
