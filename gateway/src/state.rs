//! What every handler shares: configuration, the gRPC clients, cookie settings, trusted origins
//! and the rate limiter. Cloned for every request (by the router and the policy guard), so a
//! clone is one reference count.

use std::ops::Deref;
use std::sync::Arc;

use gatehouse_kit::client::ServiceChannel;
use gatehouse_proto::billing_webhook::v1::customer_service_client::CustomerServiceClient;
use gatehouse_proto::billing_webhook::v1::delivery_service_client::DeliveryServiceClient;
use gatehouse_proto::billing_webhook::v1::endpoint_service_client::EndpointServiceClient;
use gatehouse_proto::billing_webhook::v1::intake_service_client::IntakeServiceClient;
use gatehouse_proto::identity::v1::account_service_client::AccountServiceClient;
use gatehouse_proto::identity::v1::admin_service_client::AdminServiceClient;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::identity::v1::email_verification_service_client::EmailVerificationServiceClient;
use gatehouse_proto::identity::v1::password_reset_service_client::PasswordResetServiceClient;
use gatehouse_proto::identity::v1::username_service_client::UsernameServiceClient;
use gatehouse_proto::mailer::v1::mailbox_service_client::MailboxServiceClient;
use gatehouse_proto::organization::v1::invitation_service_client::InvitationServiceClient;
use gatehouse_proto::organization::v1::member_service_client::MemberServiceClient;
use gatehouse_proto::organization::v1::organization_service_client::OrganizationServiceClient;
use gatehouse_proto::organization::v1::team_service_client::TeamServiceClient;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;

use crate::config::GatewayConfig;
use crate::cookies::CookieJar;
use crate::origin::TrustedOrigins;
use crate::rate_limit::RateLimiter;

#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub config: GatewayConfig,
    pub trusted: TrustedOrigins,
    pub cookies: CookieJar,
    pub email_password: EmailPasswordServiceClient<ServiceChannel>,
    pub accounts: AccountServiceClient<ServiceChannel>,
    pub usernames: UsernameServiceClient<ServiceChannel>,
    pub admin: AdminServiceClient<ServiceChannel>,
    pub email_verification: EmailVerificationServiceClient<ServiceChannel>,
    pub password_reset: PasswordResetServiceClient<ServiceChannel>,
    pub sessions: SessionServiceClient<ServiceChannel>,
    /// The mailer's log, for the dev mailbox (`DEV_MAILBOX`).
    pub mailbox: MailboxServiceClient<ServiceChannel>,
    pub organizations: OrganizationServiceClient<ServiceChannel>,
    pub members: MemberServiceClient<ServiceChannel>,
    pub invitations: InvitationServiceClient<ServiceChannel>,
    pub teams: TeamServiceClient<ServiceChannel>,
    pub intake: IntakeServiceClient<ServiceChannel>,
    pub endpoints: EndpointServiceClient<ServiceChannel>,
    pub deliveries: DeliveryServiceClient<ServiceChannel>,
    pub customers: CustomerServiceClient<ServiceChannel>,
    pub rate_limiter: RateLimiter,
}

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}
