//! A signed-in user's own billing state (billing-webhooks reference §6: better-auth's payments
//! plugin makes the user id the customer's `external_id`): the projections of the customers
//! linked to them, and of what belongs to those customers. A customer without an
//! `external_id` is theirs by email only when their email is verified, so an unverified
//! sign-up with someone's address reads nothing of theirs. An organization's billing state is
//! in [`organization`].

pub mod grpc;
mod organization;

pub use organization::OrganizationState;

use gatehouse_kit::db::{Db, DbError, query};

/// At most this many entities of one kind are read (the newest).
const PER_KIND: usize = 100;

/// What a user's billing state holds, each entity's JSON as sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CustomerState {
    pub customer: Option<String>,
    pub state: Option<String>,
    pub subscriptions: Vec<String>,
    pub orders: Vec<String>,
    pub benefit_grants: Vec<String>,
    pub refunds: Vec<String>,
}

pub struct Customers {
    pub db: Db,
}

impl Customers {
    pub async fn state_of(
        &self,
        user_id: &str,
        email: &str,
        email_verified: bool,
    ) -> Result<CustomerState, DbError> {
        let email = email.trim().to_lowercase();
        // The customers that are this user's.
        let linked: Vec<(String,)> = query(
            "SELECT DISTINCT customer_id FROM billing_entities \
             WHERE customer_id IS NOT NULL AND (external_id = $1 \
             OR ($3 AND external_id IS NULL AND email = $2))",
        )
        .bind(user_id)
        .bind(email.as_str())
        .bind(email_verified)
        .fetch_all(&self.db)
        .await?;
        let mut state = CustomerState::default();
        for (customer_id,) in linked {
            let rows: Vec<(String, String)> = query(
                "SELECT kind, data FROM billing_entities WHERE customer_id = $1 \
                 AND kind IN ('customer', 'customer_state', 'subscription', 'order', \
                 'benefit_grant', 'refund') ORDER BY entity_version DESC",
            )
            .bind(customer_id.as_str())
            .fetch_all(&self.db)
            .await?;
            for (kind, data) in rows {
                let list = match kind.as_str() {
                    "customer" => {
                        state.customer.get_or_insert(data);
                        continue;
                    }
                    "customer_state" => {
                        state.state.get_or_insert(data);
                        continue;
                    }
                    "subscription" => &mut state.subscriptions,
                    "order" => &mut state.orders,
                    "benefit_grant" => &mut state.benefit_grants,
                    _ => &mut state.refunds,
                };
                if list.len() < PER_KIND {
                    list.push(data);
                }
            }
        }
        Ok(state)
    }
}
