//! Orders and their line items (reference §4.2 Order). All amounts are integer cents:
//! `net = subtotal − discount`, `total = net + tax`.

use serde::{Deserialize, Serialize};

use super::common::{Address, CustomFieldData, Extra, Metadata, Timestamp, open_enum};
use super::customer::Customer;
use super::discount::Discount;
use super::product::OrderProduct;
use super::subscription::OrderSubscription;

open_enum! {
    /// Order `status`. Polar has `draft` and `void` beyond our spec (reference §4.1, §8.6).
    pub enum OrderStatus {
        Draft = "draft",
        Pending = "pending",
        Paid = "paid",
        Refunded = "refunded",
        PartiallyRefunded = "partially_refunded",
        Void = "void",
    }
}

open_enum! {
    /// Why the order was billed.
    pub enum BillingReason {
        Purchase = "purchase",
        SubscriptionCreate = "subscription_create",
        SubscriptionCycle = "subscription_cycle",
        SubscriptionUpdate = "subscription_update",
        SubscriptionMeterCycle = "subscription_meter_cycle",
    }
}

/// An order (`order.*`). `order.created` can arrive while it is still `pending`;
/// `order.paid` is the "payment received" signal (reference §3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub status: OrderStatus,
    pub paid: bool,
    pub subtotal_amount: i64,
    pub discount_amount: i64,
    pub net_amount: i64,
    pub tax_amount: i64,
    pub total_amount: i64,
    pub applied_balance_amount: i64,
    pub due_amount: i64,
    pub refunded_amount: i64,
    pub refunded_tax_amount: i64,
    pub currency: String,
    pub billing_reason: BillingReason,
    pub billing_name: Option<String>,
    pub billing_address: Option<Address>,
    /// Null while `draft`.
    pub invoice_number: Option<String>,
    pub is_invoice_generated: bool,
    pub receipt_number: Option<String>,
    #[serde(default)]
    pub seats: Option<i64>,
    #[serde(default)]
    pub units: Option<i64>,
    pub customer_id: String,
    pub product_id: Option<String>,
    pub discount_id: Option<String>,
    pub subscription_id: Option<String>,
    pub checkout_id: Option<String>,
    /// Dunning: when the next payment attempt is scheduled.
    #[serde(default)]
    pub next_payment_attempt_at: Option<Timestamp>,
    pub metadata: Metadata,
    #[serde(default)]
    pub custom_field_data: Option<CustomFieldData>,
    pub platform_fee_amount: i64,
    pub platform_fee_currency: Option<String>,
    pub customer: Customer,
    pub product: Option<OrderProduct>,
    pub discount: Option<Discount>,
    pub subscription: Option<OrderSubscription>,
    pub items: Vec<OrderItem>,
    pub description: String,
    pub refundable_amount: i64,
    pub refundable_tax_amount: i64,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Order {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// A line item: `amount` is in cents before discount.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderItem {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub label: String,
    pub amount: i64,
    pub tax_amount: i64,
    pub proration: bool,
    pub product_price_id: Option<String>,
    /// The period billed, for subscription items.
    pub start_timestamp: Option<Timestamp>,
    pub end_timestamp: Option<Timestamp>,
    #[serde(flatten)]
    pub extra: Extra,
}
