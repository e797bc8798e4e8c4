//! Products and their prices (reference §4.2 Product, Price). The product "core fields" are
//! shared by the full [`Product`] (`product.*`, subscriptions), [`CheckoutProduct`],
//! [`OrderProduct`] and [`DiscountProduct`]; prices are a union on `amount_type`.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::benefit::{Benefit, BenefitPublic};
use super::common::{
    Extra, Metadata, RecurringInterval, TaxBehavior, Timestamp, Visibility, double_option,
    open_enum, raw_modified_or_created, raw_str, tagged_union,
};
use super::meter::PriceMeter;

open_enum! {
    /// Price `amount_type`. There is no `free` price any more (reference §4.1); old payloads
    /// that still carry one parse as [`Price::Free`].
    pub enum PriceAmountType {
        Fixed = "fixed",
        Custom = "custom",
        Free = "free",
        SeatBased = "seat_based",
        UnitBased = "unit_based",
        MeteredUnit = "metered_unit",
        MeteredTiers = "metered_tiers",
    }
}

open_enum! {
    /// Price `source`.
    pub enum PriceSource {
        Catalog = "catalog",
        AdHoc = "ad_hoc",
    }
}

open_enum! {
    /// How tiers apply: `volume` (one tier's rate for all) or `graduated` (each tier's rate
    /// for its slice).
    pub enum TierType {
        Volume = "volume",
        Graduated = "graduated",
    }
}

open_enum! {
    /// A custom field's `type`.
    pub enum CustomFieldType {
        Text = "text",
        Number = "number",
        Date = "date",
        Checkbox = "checkbox",
        Select = "select",
    }
}

/// The product core fields, shared by every product form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProductCore {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub trial_interval: Option<RecurringInterval>,
    pub trial_interval_count: Option<i64>,
    pub name: String,
    pub description: Option<String>,
    pub visibility: Visibility,
    /// Null for a one-time product.
    pub recurring_interval: Option<RecurringInterval>,
    pub recurring_interval_count: Option<i64>,
    /// Set only when usage is billed on its own cycle.
    pub meter_interval: Option<RecurringInterval>,
    pub meter_interval_count: Option<i64>,
    pub is_recurring: bool,
    pub is_archived: bool,
    pub organization_id: String,
}

impl ProductCore {
    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Timestamp {
        self.modified_at.unwrap_or(self.created_at)
    }
}

/// The full product (`product.*`, and in subscriptions): prices, full benefits, medias and
/// attached custom fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Product {
    #[serde(flatten)]
    pub core: ProductCore,
    pub metadata: Metadata,
    pub is_deletable: bool,
    pub prices: Vec<Price>,
    pub benefits: Vec<Benefit>,
    pub medias: Vec<ProductMedia>,
    pub attached_custom_fields: Vec<AttachedCustomField>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A product in a checkout: core fields, prices, public benefits and medias; no metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckoutProduct {
    #[serde(flatten)]
    pub core: ProductCore,
    pub prices: Vec<Price>,
    pub benefits: Vec<BenefitPublic>,
    pub medias: Vec<ProductMedia>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A product in an order: core fields and metadata, no prices or benefits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderProduct {
    #[serde(flatten)]
    pub core: ProductCore,
    pub metadata: Metadata,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A product a discount applies to (full discount form only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiscountProduct {
    #[serde(flatten)]
    pub core: ProductCore,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A product image or file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProductMedia {
    pub id: String,
    pub organization_id: String,
    pub name: String,
    pub path: String,
    pub mime_type: String,
    pub size: i64,
    pub storage_version: Option<String>,
    pub checksum_etag: Option<String>,
    pub checksum_sha256_base64: Option<String>,
    pub checksum_sha256_hex: Option<String>,
    pub last_modified_at: Option<Timestamp>,
    pub version: Option<String>,
    /// `product_media`.
    pub service: String,
    pub is_uploaded: bool,
    pub created_at: Timestamp,
    pub size_readable: String,
    pub public_url: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A custom field attached to a product or checkout, with its position and whether it is
/// required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttachedCustomField {
    pub custom_field_id: String,
    pub custom_field: CustomField,
    pub order: i64,
    pub required: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A custom field. Polar's union on `type` differs only in `properties`, so this is one
/// struct with an open `type` and every property optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomField {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub metadata: Metadata,
    #[serde(rename = "type")]
    pub kind: CustomFieldType,
    pub slug: String,
    pub name: String,
    pub organization_id: String,
    pub properties: CustomFieldProperties,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Form hints and constraints of a custom field; each key is written back only when sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CustomFieldProperties {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form_help_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form_placeholder: Option<String>,
    /// Text fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub textarea: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
    /// Number and date fields: lower / upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ge: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub le: Option<i64>,
    /// Select fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<CustomFieldOption>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One option of a select custom field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomFieldOption {
    pub value: String,
    pub label: String,
    #[serde(flatten)]
    pub extra: Extra,
}

tagged_union! {
    /// A price, discriminated by `amount_type`. An unknown type keeps the raw object.
    pub enum Price (tag = "amount_type") {
        /// A fixed amount.
        Fixed(FixedPrice) = "fixed",
        /// Pay what you want, between bounds.
        Custom(CustomPrice) = "custom",
        /// Legacy: free (no longer in the current schema).
        Free(FreePrice) = "free",
        /// Per seat, in tiers.
        SeatBased(SeatBasedPrice) = "seat_based",
        /// Per unit bought, in tiers.
        UnitBased(UnitBasedPrice) = "unit_based",
        /// Per metered unit at one rate.
        MeteredUnit(MeteredUnitPrice) = "metered_unit",
        /// Per metered unit, in tiers.
        MeteredTiers(MeteredTiersPrice) = "metered_tiers",
    }
}

impl Price {
    /// The price's `amount_type` (an unknown one as `PriceAmountType::Unknown`).
    pub fn kind(&self) -> PriceAmountType {
        PriceAmountType::from(self.tag().unwrap_or_default())
    }

    /// The fields every known variant shares; `None` for an unknown type.
    pub fn common(&self) -> Option<&PriceCommon> {
        Some(match self {
            Self::Fixed(price) => &price.common,
            Self::Custom(price) => &price.common,
            Self::Free(price) => &price.common,
            Self::SeatBased(price) => &price.common,
            Self::UnitBased(price) => &price.common,
            Self::MeteredUnit(price) => &price.common,
            Self::MeteredTiers(price) => &price.common,
            Self::Unknown(_) => return None,
        })
    }

    /// The price id (read from the raw object for an unknown type).
    pub fn id(&self) -> Option<&str> {
        match self {
            Self::Unknown(raw) => raw_str(raw, "id"),
            known => known.common().map(|common| common.id.as_str()),
        }
    }

    /// `modified_at`, or `created_at` when it was never modified.
    pub fn modified_or_created_at(&self) -> Option<Timestamp> {
        match self {
            Self::Unknown(raw) => raw_modified_or_created(raw),
            known => known
                .common()
                .map(|common| common.modified_at.unwrap_or(common.created_at)),
        }
    }
}

/// The fields every price has (the `amount_type` tag itself lives in [`Price`]).
///
/// Legacy recurring prices also carry `type: "recurring"`, `recurring_interval` and
/// `legacy: true` (reference §4.2 Price, §4.4); those are kept when sent and not written
/// otherwise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceCommon {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub source: PriceSource,
    pub price_currency: String,
    /// Null means the organization's default.
    pub tax_behavior: Option<TaxBehavior>,
    pub is_archived: bool,
    pub product_id: String,
    /// Legacy `type` (`recurring` / `one_time`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub legacy_type: Option<String>,
    /// Legacy recurring prices' interval (absent: `None`; `null`: `Some(None)`).
    #[serde(
        default,
        deserialize_with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub recurring_interval: Option<Option<RecurringInterval>>,
    /// `true` on legacy recurring prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy: Option<bool>,
}

impl PriceCommon {
    /// Whether this is a legacy recurring price.
    pub fn is_legacy(&self) -> bool {
        self.legacy == Some(true)
    }
}

/// `fixed`: `price_amount` cents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedPrice {
    #[serde(flatten)]
    pub common: PriceCommon,
    pub price_amount: i64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `custom` (pay what you want): bounds and preset in cents; a 0 minimum means free or PWYW.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomPrice {
    #[serde(flatten)]
    pub common: PriceCommon,
    pub minimum_amount: i64,
    pub maximum_amount: Option<i64>,
    pub preset_amount: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Legacy `free`: no amount.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FreePrice {
    #[serde(flatten)]
    pub common: PriceCommon,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `seat_based`: seat tiers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatBasedPrice {
    #[serde(flatten)]
    pub common: PriceCommon,
    pub seat_tiers: SeatTiers,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{seat_tier_type?, tiers, minimum_seats, maximum_seats}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatTiers {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_tier_type: Option<TierType>,
    pub tiers: Vec<SeatTier>,
    pub minimum_seats: i64,
    pub maximum_seats: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One seat tier: from `min_seats` to `max_seats` (open-ended when null), `price_per_seat` cents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatTier {
    pub min_seats: i64,
    #[serde(default)]
    pub max_seats: Option<i64>,
    pub price_per_seat: i64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `unit_based`: unit tiers, bounds on units bought, and localized unit labels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitBasedPrice {
    #[serde(flatten)]
    pub common: PriceCommon,
    pub tiers: PriceTiers,
    pub minimum_units: Option<i64>,
    pub maximum_units: Option<i64>,
    /// Locale → label forms (e.g. `{"en": {"one": "seat", "other": "seats"}}`).
    pub unit_label: Option<BTreeMap<String, BTreeMap<String, String>>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{type, tiers}` of unit-based and metered-tiers prices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceTiers {
    #[serde(rename = "type")]
    pub kind: TierType,
    pub tiers: Vec<PriceTier>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One tier: up to `bound` units (open-ended when null) at `unit_amount` cents per unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceTier {
    #[serde(default)]
    pub bound: Option<i64>,
    /// Cents per unit as an exact decimal (sent as a string, e.g. `"0.05"`; reference §7).
    #[serde(with = "rust_decimal::serde::str")]
    pub unit_amount: Decimal,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `metered_unit`: one rate per metered unit, with an optional cap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeteredUnitPrice {
    #[serde(flatten)]
    pub common: PriceCommon,
    pub meter_id: String,
    pub meter: PriceMeter,
    /// Cents per unit as an exact decimal (sent as a string, e.g. `"0.05"`; reference §7, §8.8).
    #[serde(with = "rust_decimal::serde::str")]
    pub unit_amount: Decimal,
    /// The most charged per period, in cents.
    pub cap_amount: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `metered_tiers`: tiered rates per metered unit, with an optional cap.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeteredTiersPrice {
    #[serde(flatten)]
    pub common: PriceCommon,
    pub meter_id: String,
    pub meter: PriceMeter,
    pub tiers: PriceTiers,
    pub cap_amount: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}
