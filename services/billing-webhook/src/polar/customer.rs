//! Customers, their members, and the customer state snapshot of `customer.state_changed`
//! (reference §4.2 Customer, Member, CustomerState).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::benefit::BenefitType;
use super::benefit_grant::GrantProperties;
use super::common::{
    Address, CustomFieldData, Extra, Metadata, Quantity, RecurringInterval, Timestamp, open_enum,
};
use super::subscription::SubscriptionStatus;

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

/// `customer.state_changed`: the customer plus a full snapshot of active subscriptions,
/// granted benefits and active meters. Undeclared keys land in `customer.extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerState {
    #[serde(flatten)]
    pub customer: Customer,
    pub active_subscriptions: Vec<CustomerStateSubscription>,
    pub granted_benefits: Vec<CustomerStateBenefitGrant>,
    pub active_meters: Vec<CustomerStateMeter>,
}

/// An active subscription in the customer state.
///
/// `status` is `active` or `trialing` on the wire. Polar's 1.x SDKs type it as
/// `granted | disabled` (a code-generation name clash); don't mirror that (reference §2.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerStateSubscription {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    #[serde(default)]
    pub custom_field_data: Option<CustomFieldData>,
    pub metadata: Metadata,
    pub status: SubscriptionStatus,
    /// The recurring price in cents, before discount.
    pub amount: i64,
    pub currency: String,
    pub recurring_interval: RecurringInterval,
    pub current_period_start: Timestamp,
    pub current_period_end: Timestamp,
    pub trial_start: Option<Timestamp>,
    pub trial_end: Option<Timestamp>,
    pub cancel_at_period_end: bool,
    pub canceled_at: Option<Timestamp>,
    pub started_at: Option<Timestamp>,
    pub ends_at: Option<Timestamp>,
    pub product_id: String,
    pub discount_id: Option<String>,
    #[serde(default)]
    pub seats: Option<i64>,
    #[serde(default)]
    pub units: Option<i64>,
    pub meters: Vec<CustomerStateSubscriptionMeter>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A subscription meter in the customer state (without the embedded meter).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerStateSubscriptionMeter {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub consumed_units: Quantity,
    pub credited_units: Quantity,
    /// Charged so far this period, in cents.
    pub amount: i64,
    pub meter_id: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A granted benefit in the customer state; `properties` are typed after `benefit_type` when
/// deserialised through serde's traits (see the note on
/// [`BenefitGrant`](super::benefit_grant::BenefitGrant) about `remote = "Self"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct CustomerStateBenefitGrant {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub granted_at: Timestamp,
    pub benefit_id: String,
    pub benefit_type: BenefitType,
    pub benefit_metadata: Metadata,
    pub properties: GrantProperties,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Serialize for CustomerStateBenefitGrant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The serde-derived body (`remote = "Self"` makes it an inherent function).
        CustomerStateBenefitGrant::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for CustomerStateBenefitGrant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut grant = CustomerStateBenefitGrant::deserialize(deserializer)?;
        grant.properties = grant
            .properties
            .resolve(&grant.benefit_type)
            .map_err(D::Error::custom)?;
        Ok(grant)
    }
}

/// An active meter in the customer state: `balance = credited_units − consumed_units`, which
/// goes negative on overage. Units may be fractional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomerStateMeter {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub meter_id: String,
    pub consumed_units: Quantity,
    pub credited_units: Quantity,
    pub balance: Quantity,
    #[serde(flatten)]
    pub extra: Extra,
}
