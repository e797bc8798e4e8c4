//! Checkout sessions (reference §4.2 Checkout). Amounts are integer cents; `tax_amount` is
//! null while tax cannot be computed yet.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{
    Address, CustomFieldData, Extra, Metadata, RecurringInterval, TaxBehavior, Timestamp, open_enum,
};
use super::discount::CheckoutDiscount;
use super::product::{AttachedCustomField, CheckoutProduct, Price};

open_enum! {
    /// Checkout `status`.
    pub enum CheckoutStatus {
        Open = "open",
        Expired = "expired",
        Confirmed = "confirmed",
        Succeeded = "succeeded",
        Failed = "failed",
    }
}

open_enum! {
    /// Checkout `payment_processor`.
    pub enum PaymentProcessor {
        Stripe = "stripe",
    }
}

open_enum! {
    /// Whether a billing address field is asked for.
    pub enum BillingAddressFieldMode {
        Required = "required",
        Optional = "optional",
        Disabled = "disabled",
    }
}

/// A checkout (`checkout.*`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkout {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    #[serde(default)]
    pub custom_field_data: Option<CustomFieldData>,
    pub payment_processor: PaymentProcessor,
    pub status: CheckoutStatus,
    pub client_secret: String,
    pub url: String,
    pub expires_at: Timestamp,
    pub success_url: String,
    pub return_url: Option<String>,
    pub embed_origin: Option<String>,
    pub amount: i64,
    #[serde(default)]
    pub seats: Option<i64>,
    #[serde(default)]
    pub min_seats: Option<i64>,
    #[serde(default)]
    pub max_seats: Option<i64>,
    #[serde(default)]
    pub units: Option<i64>,
    #[serde(default)]
    pub min_units: Option<i64>,
    #[serde(default)]
    pub max_units: Option<i64>,
    pub discount_amount: i64,
    pub net_amount: i64,
    /// Null while tax cannot be computed yet.
    pub tax_amount: Option<i64>,
    pub tax_behavior: Option<TaxBehavior>,
    pub total_amount: i64,
    pub currency: String,
    pub allow_trial: Option<bool>,
    pub active_trial_interval: Option<RecurringInterval>,
    pub active_trial_interval_count: Option<i64>,
    pub trial_end: Option<Timestamp>,
    pub organization_id: String,
    pub product_id: Option<String>,
    pub product_price_id: Option<String>,
    pub discount_id: Option<String>,
    pub allow_discount_codes: bool,
    pub require_billing_address: bool,
    pub is_discount_applicable: bool,
    pub is_free_product_price: bool,
    pub is_payment_required: bool,
    pub is_payment_setup_required: bool,
    pub is_payment_form_required: bool,
    pub customer_id: Option<String>,
    pub is_business_customer: bool,
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub customer_ip_address: Option<String>,
    pub customer_billing_name: Option<String>,
    pub customer_billing_address: Option<Address>,
    pub customer_tax_id: Option<String>,
    #[serde(default)]
    pub locale: Option<String>,
    pub payment_method_type: Option<String>,
    pub payment_processor_metadata: BTreeMap<String, String>,
    pub billing_address_fields: BillingAddressFields,
    pub trial_interval: Option<RecurringInterval>,
    pub trial_interval_count: Option<i64>,
    pub metadata: Metadata,
    /// The customer's external id (our user id) when the checkout was created for one.
    pub external_customer_id: Option<String>,
    pub products: Vec<CheckoutProduct>,
    pub product: Option<CheckoutProduct>,
    pub product_price: Option<Price>,
    /// Product id → its prices.
    pub prices: Option<BTreeMap<String, Vec<Price>>>,
    pub discount: Option<CheckoutDiscount>,
    pub subscription_id: Option<String>,
    pub attached_custom_fields: Option<Vec<AttachedCustomField>>,
    pub customer_metadata: Metadata,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Checkout {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// For each billing address field, whether the checkout asks for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BillingAddressFields {
    pub country: BillingAddressFieldMode,
    pub state: BillingAddressFieldMode,
    pub city: BillingAddressFieldMode,
    pub postal_code: BillingAddressFieldMode,
    pub line1: BillingAddressFieldMode,
    pub line2: BillingAddressFieldMode,
    #[serde(flatten)]
    pub extra: Extra,
}
