//! The filed entities (`billing_entities`, the projection's table) as the billing states read
//! them.

use gatehouse_kit::db::{Db, DbError, query};

/// The ids of the customers that are this user's: linked by `external_id`, or by (normalised)
/// email when the customer has no `external_id` and the user's email is verified.
pub async fn customers_of_user(
    db: &Db,
    user_id: &str,
    email: &str,
    email_verified: bool,
) -> Result<Vec<String>, DbError> {
    let linked: Vec<(String,)> = query(
        "SELECT DISTINCT customer_id FROM billing_entities \
         WHERE customer_id IS NOT NULL AND (external_id = $1 \
         OR ($3 AND external_id IS NULL AND email = $2))",
    )
    .bind(user_id)
    .bind(email)
    .bind(email_verified)
    .fetch_all(db)
    .await?;
    Ok(linked.into_iter().map(|(id,)| id).collect())
}

/// The kind and JSON of each entity a user's state shows of one customer, newest first.
pub async fn entities_of_customer(
    db: &Db,
    customer_id: &str,
) -> Result<Vec<(String, String)>, DbError> {
    query(
        "SELECT kind, data FROM billing_entities WHERE customer_id = $1 \
         AND kind IN ('customer', 'customer_state', 'subscription', 'order', \
         'benefit_grant', 'refund') ORDER BY entity_version DESC",
    )
    .bind(customer_id)
    .fetch_all(db)
    .await
}

/// One filed entity as an organization's state reads it.
#[derive(sqlx::FromRow)]
pub struct EntityRow {
    pub kind: String,
    pub id: String,
    pub customer_id: Option<String>,
    pub entity_version: i64,
    pub data: String,
}

/// The subscriptions, orders, grants and refunds marked as bought for `organization_id`.
pub async fn marked_for_organization(
    db: &Db,
    organization_id: &str,
) -> Result<Vec<EntityRow>, DbError> {
    query(
        "SELECT kind, id, customer_id, entity_version, data FROM billing_entities \
         WHERE reference_id = $1 \
         AND kind IN ('subscription', 'order', 'benefit_grant', 'refund')",
    )
    .bind(organization_id)
    .fetch_all(db)
    .await
}

/// A customer's benefit grants and refunds.
pub async fn grants_and_refunds_of(db: &Db, customer_id: &str) -> Result<Vec<EntityRow>, DbError> {
    query(
        "SELECT kind, id, customer_id, entity_version, data FROM billing_entities \
         WHERE customer_id = $1 AND kind IN ('benefit_grant', 'refund')",
    )
    .bind(customer_id)
    .fetch_all(db)
    .await
}
