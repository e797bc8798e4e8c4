//! An organization's own billing state: what was bought for it. Better-auth's payments plugin
//! marks an organization's purchase with its id as the checkout's `referenceId`, which the
//! payments platform copies onto the orders and subscriptions it makes (billing-webhooks
//! reference §6). Benefit grants and refunds carry no such mark of their own; they are the
//! organization's when they belong to one of its orders or subscriptions.

use std::collections::{BTreeSet, HashSet};

use gatehouse_kit::db::{DbError, query};
use serde_json::Value;

use super::{Customers, PER_KIND};

/// What an organization's billing state holds, each entity's JSON as sent, newest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrganizationState {
    pub subscriptions: Vec<String>,
    pub orders: Vec<String>,
    pub benefit_grants: Vec<String>,
    pub refunds: Vec<String>,
}

/// One filed row as read here.
struct Row {
    kind: String,
    id: String,
    version: i64,
    data: String,
}

impl OrganizationState {
    fn list(&mut self, kind: &str) -> Option<&mut Vec<String>> {
        Some(match kind {
            "subscription" => &mut self.subscriptions,
            "order" => &mut self.orders,
            "benefit_grant" => &mut self.benefit_grants,
            "refund" => &mut self.refunds,
            _ => return None,
        })
    }
}

impl Customers {
    pub async fn state_of_organization(
        &self,
        organization_id: &str,
    ) -> Result<OrganizationState, DbError> {
        let marked: Vec<(String, String, Option<String>, i64, String)> = query(
            "SELECT kind, id, customer_id, entity_version, data FROM billing_entities \
             WHERE reference_id = $1 \
             AND kind IN ('subscription', 'order', 'benefit_grant', 'refund')",
        )
        .bind(organization_id)
        .fetch_all(&self.db)
        .await?;
        let purchases: HashSet<String> = marked
            .iter()
            .filter(|(kind, ..)| kind == "subscription" || kind == "order")
            .map(|(_, id, ..)| id.clone())
            .collect();
        let buyers: BTreeSet<String> = marked
            .iter()
            .filter_map(|(_, _, customer, ..)| customer.clone())
            .collect();
        let mut rows: Vec<Row> = marked
            .into_iter()
            .map(|(kind, id, _, version, data)| Row {
                kind,
                id,
                version,
                data,
            })
            .collect();
        let mut seen: HashSet<(String, String)> = rows
            .iter()
            .map(|row| (row.kind.clone(), row.id.clone()))
            .collect();
        // The buyers' grants and refunds that belong to one of the organization's purchases.
        for customer_id in buyers {
            let theirs: Vec<(String, String, i64, String)> = query(
                "SELECT kind, id, entity_version, data FROM billing_entities \
                 WHERE customer_id = $1 AND kind IN ('benefit_grant', 'refund')",
            )
            .bind(customer_id.as_str())
            .fetch_all(&self.db)
            .await?;
            for (kind, id, version, data) in theirs {
                if seen.contains(&(kind.clone(), id.clone())) || !of_purchase(&data, &purchases) {
                    continue;
                }
                seen.insert((kind.clone(), id.clone()));
                rows.push(Row {
                    kind,
                    id,
                    version,
                    data,
                });
            }
        }
        rows.sort_by(|a, b| b.version.cmp(&a.version).then_with(|| a.id.cmp(&b.id)));
        let mut state = OrganizationState::default();
        for row in rows {
            if let Some(list) = state.list(&row.kind)
                && list.len() < PER_KIND
            {
                list.push(row.data);
            }
        }
        Ok(state)
    }
}

/// Whether a grant's or refund's JSON names one of `purchases` as its order or subscription.
fn of_purchase(data: &str, purchases: &HashSet<String>) -> bool {
    let Ok(entity) = serde_json::from_str::<Value>(data) else {
        return false;
    };
    ["subscription_id", "order_id"].iter().any(|key| {
        entity
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|id| purchases.contains(id))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::of_purchase;

    #[test]
    fn a_grant_or_refund_is_the_organizations_through_its_order_or_subscription() {
        let purchases: HashSet<String> = ["sub_org".to_string(), "ord_org".to_string()].into();
        assert!(of_purchase(
            r#"{"subscription_id":"sub_org","order_id":null}"#,
            &purchases
        ));
        assert!(of_purchase(
            r#"{"subscription_id":null,"order_id":"ord_org"}"#,
            &purchases
        ));
        assert!(!of_purchase(
            r#"{"subscription_id":"sub_own","order_id":null}"#,
            &purchases
        ));
        assert!(!of_purchase(r#"{"subscription_id":7}"#, &purchases));
        assert!(!of_purchase("not json", &purchases));
    }
}
