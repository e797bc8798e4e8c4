//! An organization's own billing state: what was bought for it. Better-auth's payments plugin
//! marks an organization's purchase with its id as the checkout's `referenceId`, which the
//! payments platform copies onto the orders and subscriptions it makes (billing-webhooks
//! reference §6). Benefit grants and refunds carry no such mark of their own; they are the
//! organization's when they belong to one of its orders or subscriptions.

use std::collections::{BTreeSet, HashSet};

use gatehouse_kit::db::DbError;
use serde_json::Value;

use super::{Customers, PER_KIND, store};

/// What an organization's billing state holds, each entity's JSON as sent, newest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrganizationState {
    pub subscriptions: Vec<String>,
    pub orders: Vec<String>,
    pub benefit_grants: Vec<String>,
    pub refunds: Vec<String>,
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
        let mut rows = store::marked_for_organization(&self.db, organization_id).await?;
        let purchases: HashSet<String> = rows
            .iter()
            .filter(|row| row.kind == "subscription" || row.kind == "order")
            .map(|row| row.id.clone())
            .collect();
        let buyers: BTreeSet<String> = rows
            .iter()
            .filter_map(|row| row.customer_id.clone())
            .collect();
        let mut seen: HashSet<(String, String)> = rows
            .iter()
            .map(|row| (row.kind.clone(), row.id.clone()))
            .collect();
        // The buyers' grants and refunds that belong to one of the organization's purchases.
        for customer_id in buyers {
            for row in store::grants_and_refunds_of(&self.db, &customer_id).await? {
                let key = (row.kind.clone(), row.id.clone());
                if seen.contains(&key) || !of_purchase(&row.data, &purchases) {
                    continue;
                }
                seen.insert(key);
                rows.push(row);
            }
        }
        rows.sort_by(|a, b| {
            b.entity_version
                .cmp(&a.entity_version)
                .then_with(|| a.id.cmp(&b.id))
        });
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
