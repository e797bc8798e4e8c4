//! The `gatehouse` binary's parts list and standalone wiring. The gateway crate knows no
//! service crate; this crate is where they meet.

pub mod standalone;

use gatehouse_kit::service::{Part, env_prefix, listen_var, ops_listen_var, url_var};

/// Every service of Gatehouse: each gets a subcommand, standalone mode runs them all, and
/// `gatehouse parts` lists them (with the gateway) for the deployment checks. Adding a service
/// is one line here.
pub const PARTS: &[&dyn Part] = &[
    &gatehouse_identity::SERVICE,
    &gatehouse_session::SERVICE,
    &gatehouse_mailer::SERVICE,
    &gatehouse_organization::SERVICE,
    &gatehouse_billing_webhook::SERVICE,
];

/// The gateway's name as a part: its subcommand and the prefix of its settings.
pub const GATEWAY: &str = "gateway";

/// The part called `name`.
pub fn part(name: &str) -> Option<&'static dyn Part> {
    PARTS.iter().copied().find(|part| part.name() == name)
}

/// One process a deployment runs, as `gatehouse parts --json` prints it for the scripts that
/// check and play the manifests (`scripts/k8s-check.py`, `scripts/pods-smoke.py`,
/// `scripts/test.sh`): its name and the variables that place it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Placement {
    pub name: &'static str,
    /// `IDENTITY_LISTEN` and its default.
    pub listen_var: String,
    pub default_listen: String,
    /// `IDENTITY_OPS_LISTEN` (metrics, health) and its default.
    pub ops_listen_var: String,
    pub default_ops_listen: String,
    /// `IDENTITY_URL`: where the other parts reach a service (none for the gateway).
    pub url_var: Option<String>,
    /// `IDENTITY_DATABASE_URL`: a service's database (none for the gateway).
    pub database_url_var: Option<String>,
}

/// Every part a deployment runs: the gateway first, then [`PARTS`] in order.
pub fn placements() -> Vec<Placement> {
    let gateway = gatehouse_gateway::config::GatewaySettings::default();
    let mut all = vec![Placement {
        name: GATEWAY,
        listen_var: listen_var(GATEWAY),
        default_listen: gateway.gateway_listen,
        ops_listen_var: ops_listen_var(GATEWAY),
        default_ops_listen: gateway.gateway_ops_listen,
        url_var: None,
        database_url_var: None,
    }];
    all.extend(PARTS.iter().map(|part| Placement {
        name: part.name(),
        listen_var: listen_var(part.name()),
        default_listen: part.default_listen().to_string(),
        ops_listen_var: ops_listen_var(part.name()),
        default_ops_listen: part.default_ops_listen().to_string(),
        url_var: Some(url_var(part.name())),
        // Every service has its database (kit's `DatabaseSettings`).
        database_url_var: Some(format!("{}_DATABASE_URL", env_prefix(part.name()))),
    }));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_has_its_own_name_and_ports() {
        let all = placements();
        assert_eq!(all[0].name, GATEWAY);
        assert_eq!(all.len(), PARTS.len() + 1);
        let mut seen = std::collections::BTreeSet::new();
        for placement in &all {
            assert!(
                seen.insert(placement.name.to_string()),
                "{} twice",
                placement.name
            );
            for addr in [&placement.default_listen, &placement.default_ops_listen] {
                assert!(
                    seen.insert(addr.clone()),
                    "{addr} is {}'s and another's",
                    placement.name
                );
            }
        }
        let billing = all.iter().find(|p| p.name == "billing-webhook").unwrap();
        assert_eq!(billing.listen_var, "BILLING_WEBHOOK_LISTEN");
        assert_eq!(
            billing.database_url_var.as_deref(),
            Some("BILLING_WEBHOOK_DATABASE_URL")
        );
    }
}
