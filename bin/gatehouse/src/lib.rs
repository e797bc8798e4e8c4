//! The `gatehouse` binary's parts list and standalone wiring. The gateway crate knows no
//! service crate; this crate is where they meet.

pub mod standalone;

use gatehouse_kit::service::Part;

/// Every service of Gatehouse: each gets a subcommand, and standalone mode runs them all.
/// Adding a service is one line here.
pub const PARTS: &[&dyn Part] = &[
    &gatehouse_identity::SERVICE,
    &gatehouse_session::SERVICE,
    &gatehouse_mailer::SERVICE,
    &gatehouse_organization::SERVICE,
    &gatehouse_billing_webhook::SERVICE,
];

/// The part called `name`.
pub fn part(name: &str) -> Option<&'static dyn Part> {
    PARTS.iter().copied().find(|part| part.name() == name)
}
