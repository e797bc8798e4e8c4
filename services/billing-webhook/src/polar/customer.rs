//! Customers and their members (reference §4.2 Customer, Member); the customer state
//! snapshot is in `customer_state.rs`.

use serde::{Deserialize, Serialize};

use super::common::{Address, Extra, Metadata, Timestamp, open_enum};

open_enum! {
    /// Customer `type`.
    pub enum CustomerType {
        Individual = "individual",
        Team = "team",
    }
}

open_enum! {
    /// A member's `role` within a (team) customer.
    pub enum MemberRole {
        Owner = "owner",
        BillingManager = "billing_manager",
        Member = "member",
    }
}

/// A customer (`customer.*`, and embedded in orders, subscriptions and grants). Polar's union
/// on `type` (individual | team) differs only in `email` being optional for a team, so this
/// is one struct with an open `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub metadata: Metadata,
    /// *Our* user id (better-auth sets it to the user's id): unique per organization and
    /// immutable once set (reference §4.2, §6).
    #[serde(default)]
    pub external_id: Option<String>,
    /// Always set for an individual; may be null for a team.
    #[serde(default)]
    pub email: Option<String>,
    pub email_verified: bool,
    #[serde(rename = "type")]
    pub kind: CustomerType,
    pub name: Option<String>,
    pub billing_name: Option<String>,
    pub billing_address: Option<Address>,
    /// `[value, format]`, e.g. `["FR61954506077", "eu_vat"]`.
    pub tax_id: Option<TaxId>,
    #[serde(default)]
    pub locale: Option<String>,
    pub organization_id: String,
    #[serde(default)]
    pub default_payment_method_id: Option<String>,
    /// Set on `customer.deleted`.
    pub deleted_at: Option<Timestamp>,
    pub first_user_event_at: Option<Timestamp>,
    /// A Gravatar URL; null only for a team without an email.
    pub avatar_url: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Customer {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// A tax id as sent: a two-element array `[value, format]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxId(pub String, pub String);

impl TaxId {
    /// The id itself, e.g. `FR61954506077`.
    pub fn value(&self) -> &str {
        &self.0
    }

    /// Its format, e.g. `eu_vat`, `us_ein`.
    pub fn format(&self) -> &str {
        &self.1
    }
}

/// A member of a customer (a seat holder or team member), as embedded in grants and sent in
/// `member.*` events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub customer_id: String,
    pub email: String,
    pub name: Option<String>,
    pub external_id: Option<String>,
    pub role: MemberRole,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Member {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}
