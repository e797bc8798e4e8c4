//! The customer state snapshot of `customer.state_changed` (reference §4.2 CustomerState).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::benefit::BenefitType;
use super::benefit_grant::GrantProperties;
use super::common::{CustomFieldData, Extra, Metadata, Quantity, RecurringInterval, Timestamp};
use super::customer::Customer;
use super::subscription::SubscriptionStatus;

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
