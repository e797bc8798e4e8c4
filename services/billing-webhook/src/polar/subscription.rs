//! Subscriptions (reference §4.2 Subscription). The scalar "core" is shared by the full
//! [`Subscription`] (`subscription.*`) and the [`OrderSubscription`] embedded in orders.

use serde::{Deserialize, Serialize};

use super::common::{
    CustomFieldData, Extra, Metadata, Quantity, RecurringInterval, Timestamp, open_enum,
};
use super::customer::Customer;
use super::discount::Discount;
use super::meter::Meter;
use super::product::{Price, Product};

open_enum! {
    /// Subscription `status`. Polar has `paused` beyond our spec (reference §4.1).
    pub enum SubscriptionStatus {
        Incomplete = "incomplete",
        IncompleteExpired = "incomplete_expired",
        Trialing = "trialing",
        Active = "active",
        PastDue = "past_due",
        Canceled = "canceled",
        Unpaid = "unpaid",
        Paused = "paused",
    }
}

open_enum! {
    /// Why the customer canceled.
    pub enum CustomerCancellationReason {
        CustomerService = "customer_service",
        LowQuality = "low_quality",
        MissingFeatures = "missing_features",
        SwitchedService = "switched_service",
        TooComplex = "too_complex",
        TooExpensive = "too_expensive",
        Unused = "unused",
        Other = "other",
    }
}

/// The subscription's scalar fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionCore {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    /// The recurring price in cents, before discount.
    pub amount: i64,
    pub currency: String,
    pub recurring_interval: RecurringInterval,
    pub recurring_interval_count: i64,
    pub status: SubscriptionStatus,
    pub current_period_start: Timestamp,
    pub current_period_end: Timestamp,
    /// Only set when the product has a separate meter cycle.
    pub current_meter_period_start: Option<Timestamp>,
    pub current_meter_period_end: Option<Timestamp>,
    pub trial_start: Option<Timestamp>,
    pub trial_end: Option<Timestamp>,
    /// Canceled, still running until the period ends.
    pub cancel_at_period_end: bool,
    pub canceled_at: Option<Timestamp>,
    pub started_at: Option<Timestamp>,
    /// When it will end (set on cancellation).
    pub ends_at: Option<Timestamp>,
    /// When it did end.
    pub ended_at: Option<Timestamp>,
    #[serde(default)]
    pub past_due_at: Option<Timestamp>,
    pub pause_at_period_end: bool,
    pub paused_at: Option<Timestamp>,
    pub resumes_at: Option<Timestamp>,
    pub customer_id: String,
    pub product_id: String,
    pub discount_id: Option<String>,
    pub checkout_id: Option<String>,
    #[serde(default)]
    pub seats: Option<i64>,
    #[serde(default)]
    pub units: Option<i64>,
    pub customer_cancellation_reason: Option<CustomerCancellationReason>,
    pub customer_cancellation_comment: Option<String>,
    pub metadata: Metadata,
}

impl SubscriptionCore {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// A subscription (`subscription.*`) with its customer, full product, discount, enabled
/// prices, meters and any pending update.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    #[serde(flatten)]
    pub core: SubscriptionCore,
    #[serde(default)]
    pub custom_field_data: Option<CustomFieldData>,
    pub customer: Customer,
    pub product: Product,
    pub discount: Option<Discount>,
    /// The enabled prices.
    pub prices: Vec<Price>,
    pub meters: Vec<SubscriptionMeter>,
    /// A change scheduled for the next period (e.g. a plan switch).
    #[serde(default)]
    pub pending_update: Option<PendingSubscriptionUpdate>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The subscription embedded in an order: the scalar fields only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderSubscription {
    #[serde(flatten)]
    pub core: SubscriptionCore,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Usage of one meter this period, with the full meter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionMeter {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub consumed_units: Quantity,
    pub credited_units: Quantity,
    /// Charged so far this period, in cents.
    pub amount: i64,
    pub meter_id: String,
    pub meter: Meter,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `pending_update`: what changes at `applies_at`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingSubscriptionUpdate {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub applies_at: Timestamp,
    pub product_id: Option<String>,
    pub seats: Option<i64>,
    pub units: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}
