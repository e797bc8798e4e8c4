//! Which organization an event belongs to when its entity names none. Only a checkout's
//! metadata carries better-auth's `referenceId`, copied onto the subscriptions and orders it
//! makes (billing-webhooks reference §6); a benefit grant, a refund or a renewal order names
//! only its purchase (`subscription_id`, else `order_id`). Such an event belongs to the
//! organization its purchase was made for — known when the purchase's own event is handled,
//! which may come after it.
//!
//! `billing_purchases` holds each purchase's organization. Both sides write the purchase's row
//! before they read (an upsert locks it), so of two events of one purchase handled at once, the
//! second waits for the first to commit and then sees what it did: an event handled first is
//! left waiting (`received_events.purchase_id`) and adopted when its purchase's event comes.

use gatehouse_kit::db::{DbError, Tx, query};

use crate::intake::store::ReceivedEvent;
use crate::projection::Entity;

/// An event handled before its purchase's organization was known, now given it: it is still
/// owed to that organization's endpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adopted {
    pub event_id: String,
    pub event_type: String,
}

/// What [`attribute`] found.
#[derive(Debug, Default)]
pub struct Attribution {
    /// The organization `stored` belongs to.
    pub organization_id: Option<String>,
    /// Events that waited for this purchase.
    pub adopted: Vec<Adopted>,
}

/// The organization `stored` (whose filed entity is `entity`) belongs to: its own
/// `referenceId`, else its purchase's organization. A purchase's event with an organization
/// records it and adopts the events that waited for it; an event whose purchase's
/// organization is not known yet is left waiting.
pub async fn attribute(
    tx: &mut Tx,
    stored: &ReceivedEvent,
    entity: &Entity,
) -> Result<Attribution, DbError> {
    let organization_id = match (&stored.organization_id, &entity.purchase_id) {
        (Some(own), _) => Some(own.clone()),
        (None, Some(purchase)) => inherit(tx, &stored.id, purchase).await?,
        (None, None) => None,
    };
    let mut adopted = Vec::new();
    if let Some(organization) = &organization_id
        && is_purchase(entity.kind)
    {
        adopt(tx, &entity.id, organization, &mut adopted).await?;
    }
    Ok(Attribution {
        organization_id,
        adopted,
    })
}

/// For an event whose entity could not be filed (its body does not match the model): a
/// purchase's event that names its organization still records it and adopts the events that
/// waited for it, reading the purchase's id from the raw body. Without this they would wait
/// for good.
pub async fn adopt_unfiled(tx: &mut Tx, stored: &ReceivedEvent) -> Result<Vec<Adopted>, DbError> {
    let mut adopted = Vec::new();
    if let Some(organization) = &stored.organization_id
        && is_purchase_event(&stored.event_type)
        && let Some(purchase) = entity_id(&stored.body)
    {
        adopt(tx, &purchase, organization, &mut adopted).await?;
    }
    Ok(adopted)
}

fn is_purchase(kind: &str) -> bool {
    matches!(kind, "subscription" | "order")
}

/// Whether an event of `event_type` carries a purchase ([`is_purchase`], by its type alone).
fn is_purchase_event(event_type: &str) -> bool {
    event_type
        .split_once('.')
        .is_some_and(|(kind, _)| is_purchase(kind))
}

/// The organization of `purchase`, written on the event `event_id`; or, when it is not known
/// yet, the event marked as waiting for it.
async fn inherit(tx: &mut Tx, event_id: &str, purchase: &str) -> Result<Option<String>, DbError> {
    // A no-op update rather than DO NOTHING: DO NOTHING would not wait for a purchase's event
    // that is recording the organization right now, and both would miss each other.
    let (organization,): (Option<String>,) = query(
        "INSERT INTO billing_purchases (id) VALUES ($1) ON CONFLICT (id) \
         DO UPDATE SET organization_id = billing_purchases.organization_id \
         RETURNING organization_id",
    )
    .bind(purchase)
    .fetch_one(&mut *tx)
    .await?;
    match &organization {
        Some(organization) => {
            query("UPDATE received_events SET organization_id = $2 WHERE id = $1")
                .bind(event_id)
                .bind(organization.as_str())
        }
        None => query("UPDATE received_events SET purchase_id = $2 WHERE id = $1")
            .bind(event_id)
            .bind(purchase),
    }
    .execute(&mut *tx)
    .await?;
    Ok(organization)
}

/// Records that `purchase` was made for `organization` and gives it every event that waited
/// for it — and, for a waiting renewal order, the events that waited for that order.
async fn adopt(
    tx: &mut Tx,
    purchase: &str,
    organization: &str,
    adopted: &mut Vec<Adopted>,
) -> Result<(), DbError> {
    let mut purchases = vec![purchase.to_string()];
    while let Some(purchase) = purchases.pop() {
        // No row back when the purchase was recorded for this organization already: every
        // event that waited for it was adopted then (most of a purchase's events are such).
        let recorded: Option<(String,)> = query(
            "INSERT INTO billing_purchases (id, organization_id) VALUES ($1, $2) \
             ON CONFLICT (id) DO UPDATE SET organization_id = excluded.organization_id \
             WHERE billing_purchases.organization_id IS DISTINCT FROM excluded.organization_id \
             RETURNING id",
        )
        .bind(purchase.as_str())
        .bind(organization)
        .fetch_optional(&mut *tx)
        .await?;
        if recorded.is_none() {
            continue;
        }
        let waiting: Vec<(String, String, Vec<u8>)> = query(
            "UPDATE received_events SET organization_id = $2 \
             WHERE purchase_id = $1 AND organization_id IS NULL \
             RETURNING id, event_type, body",
        )
        .bind(purchase.as_str())
        .bind(organization)
        .fetch_all(&mut *tx)
        .await?;
        for (event_id, event_type, body) in waiting {
            if is_purchase_event(&event_type)
                && let Some(order) = entity_id(&body)
            {
                purchases.push(order);
            }
            adopted.push(Adopted {
                event_id,
                event_type,
            });
        }
    }
    Ok(())
}

/// `data.id` of a stored body.
fn entity_id(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        data: Data,
    }
    #[derive(serde::Deserialize)]
    struct Data {
        id: String,
    }
    serde_json::from_slice::<Envelope>(body)
        .ok()
        .map(|envelope| envelope.data.id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_waiting_renewal_order_is_read_by_its_id() {
        let body = br#"{"type":"order.paid","data":{"id":"ord_1","subscription_id":"sub_1"}}"#;
        assert_eq!(super::entity_id(body).as_deref(), Some("ord_1"));
        assert_eq!(super::entity_id(b"not json"), None);
    }
}
