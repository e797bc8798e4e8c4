//! The fan-out: for every stored event, one pending delivery per enabled endpoint that takes
//! it, and a `billing.delivery-due` for each — written in the transaction of the event's
//! consumer ([`crate::stored_events`]), so an event is fanned out exactly once and no delivery
//! is lost between the two.
//!
//! Which endpoints take an event: those whose type filter names it (or is empty), of an
//! organization the event belongs to. An event belongs to the organization its entity names as
//! `metadata.referenceId` (how better-auth's payments plugin marks an organization's purchase),
//! — or, when its entity names none, the organization its purchase names ([`crate::purchases`])
//! — and to every platform organization (`BILLING_WEBHOOK_PLATFORM_ORGANIZATIONS`), whose
//! endpoints take every event. An organization never receives another's customers' events.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{DbError, Tx};
use gatehouse_kit::ids;
use gatehouse_kit::outbox::OutboxEvent;
use gatehouse_proto::events::v1::BillingDeliveryDue;

use crate::delivery::store as deliveries;
use crate::endpoint;
use crate::intake::store::ReceivedEvent;
use crate::purchases::Adopted;

pub struct FanOut {
    pub platform_organizations: Vec<String>,
}

impl FanOut {
    /// The organizations whose endpoints an event belonging to `reference` goes to: that one,
    /// and every platform organization.
    fn organizations<'a>(&'a self, reference: Option<&'a str>) -> Vec<&'a str> {
        let mut organizations: Vec<&str> = reference.into_iter().collect();
        organizations.extend(self.platform_organizations.iter().map(String::as_str));
        organizations
    }
}

/// A new pending delivery and its first attempt's message, in `tx` (the attempt claimed, so
/// the scheduler leaves it to that message).
pub async fn deliver(
    tx: &mut Tx,
    event_id: &str,
    endpoint_id: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>, DbError> {
    let id = format!("msg_{}", ids::new_id());
    let claimed_until = now + crate::delivery::scheduler::CLAIM;
    if !deliveries::insert(&mut *tx, &id, event_id, endpoint_id, now, claimed_until).await? {
        return Ok(None);
    }
    tx.enqueue(&OutboxEvent::new(&BillingDeliveryDue {
        delivery_id: id.clone(),
        manual: false,
        attempt: 0,
    }))
    .await?;
    Ok(Some(id))
}

impl FanOut {
    /// One delivery for each endpoint that takes `stored`, in `tx`; how many.
    pub async fn fan_out(&self, tx: &mut Tx, stored: &ReceivedEvent) -> Result<usize, DbError> {
        if stored.event_type.is_empty() {
            // Unreadable: kept for people to look at, sent to no one.
            return Ok(0);
        }
        let organizations = self.organizations(stored.organization_id.as_deref());
        let sent = send(tx, &stored.id, &stored.event_type, &organizations).await?;
        tracing::debug!(event_id = %stored.id, endpoints = sent, "fanned out");
        Ok(sent)
    }

    /// An event fanned out before it was known to belong to `organization`
    /// ([`crate::purchases`]): one delivery for each of that organization's endpoints that
    /// takes it. The platform's endpoints had it already.
    pub async fn fan_out_adopted(
        &self,
        tx: &mut Tx,
        adopted: &Adopted,
        organization: &str,
    ) -> Result<usize, DbError> {
        send(tx, &adopted.event_id, &adopted.event_type, &[organization]).await
    }
}

/// One delivery of `event_id` for each enabled endpoint of `organizations` that takes
/// `event_type`; how many.
async fn send(
    tx: &mut Tx,
    event_id: &str,
    event_type: &str,
    organizations: &[&str],
) -> Result<usize, DbError> {
    let now = ids::now();
    let mut sent = 0usize;
    for endpoint in endpoint::store::enabled_of(tx, organizations).await? {
        if endpoint.takes(event_type) && deliver(tx, event_id, &endpoint.id, now).await?.is_some() {
            sent += 1;
        }
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_reaches_its_referenced_organization_and_the_platform_only() {
        let fan_out = FanOut {
            platform_organizations: vec!["platform".into()],
        };
        let to = fan_out.organizations(Some("org_a"));
        for (organization, receives) in [("org_a", true), ("org_b", false), ("platform", true)] {
            assert_eq!(to.contains(&organization), receives, "{organization}");
        }
        assert_eq!(
            fan_out.organizations(None),
            ["platform"],
            "no one's: the platform"
        );
        let mut endpoint = endpoint::store::tests::endpoint();
        endpoint.event_types = vec!["order.created".into()];
        assert!(!endpoint.takes("order.paid") && endpoint.takes("order.created"));
    }
}
