//! A signed-in user's own billing state (billing-webhooks reference §6: better-auth's payments
//! plugin makes the user id the customer's `external_id`): the projections of the customers
//! linked to them, and of what belongs to those customers. A customer without an
//! `external_id` is theirs by email only when their email is verified, so an unverified
//! sign-up with someone's address reads nothing of theirs. An organization's billing state is
//! in [`organization`].

pub mod grpc;
mod organization;
pub mod store;

pub use organization::OrganizationState;

use gatehouse_kit::db::{Db, DbError};

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
        let mut state = CustomerState::default();
        for customer_id in
            store::customers_of_user(&self.db, user_id, &email, email_verified).await?
        {
            let rows = store::entities_of_customer(&self.db, &customer_id).await?;
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
