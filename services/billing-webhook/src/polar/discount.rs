//! Discounts (reference §4.2 Discount): a union on `type` (fixed | percentage) with an open
//! `duration` (once | forever | repeating; `duration_in_months` only for repeating).
//! [`Discount`] serves both the full form (`discount.*`, with `products`) and the "Base" form
//! embedded in orders and subscriptions (no `products`); checkouts carry the slim
//! [`CheckoutDiscount`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{
    Extra, Metadata, Timestamp, open_enum, raw_modified_or_created, raw_str, tagged_union,
};
use super::product::DiscountProduct;

open_enum! {
    /// Discount `type`.
    pub enum DiscountType {
        Fixed = "fixed",
        Percentage = "percentage",
    }
}

open_enum! {
    /// Discount `duration`.
    pub enum DiscountDuration {
        Once = "once",
        Forever = "forever",
        Repeating = "repeating",
    }
}

tagged_union! {
    /// A discount, discriminated by `type`. An unknown type keeps the raw object.
    pub enum Discount (tag = "type") {
        /// A fixed amount off (`amount` cents in `currency`, or per currency in `amounts`).
        Fixed(FixedDiscount) = "fixed",
        /// A percentage off, in basis points (1000 = 10 %).
        Percentage(PercentageDiscount) = "percentage",
    }
}

impl Discount {
    /// The discount type (an unknown one as `DiscountType::Unknown`).
    pub fn kind(&self) -> DiscountType {
        DiscountType::from(self.tag().unwrap_or_default())
    }

    /// The fields both known types share; `None` for an unknown type.
    pub fn common(&self) -> Option<&DiscountCommon> {
        match self {
            Self::Fixed(discount) => Some(&discount.common),
            Self::Percentage(discount) => Some(&discount.common),
            Self::Unknown(_) => None,
        }
    }

    /// The discount's `duration` (read from the raw object for an unknown type).
    pub fn duration(&self) -> Option<DiscountDuration> {
        match self {
            Self::Unknown(raw) => raw_str(raw, "duration").map(DiscountDuration::from),
            known => known.common().map(|common| common.duration.clone()),
        }
    }

    /// The discount id (read from the raw object for an unknown type).
    pub fn id(&self) -> Option<&str> {
        match self {
            Self::Unknown(raw) => raw_str(raw, "id"),
            known => known.common().map(|common| common.id.as_str()),
        }
    }

    /// The organization the discount belongs to.
    pub fn organization_id(&self) -> Option<&str> {
        match self {
            Self::Unknown(raw) => raw_str(raw, "organization_id"),
            known => known.common().map(|common| common.organization_id.as_str()),
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

/// The fields every discount has (the `type` tag itself lives in [`Discount`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiscountCommon {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub duration: DiscountDuration,
    /// Only for `repeating`; absent otherwise (and then not written back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_in_months: Option<i64>,
    pub metadata: Metadata,
    pub name: String,
    pub code: Option<String>,
    pub starts_at: Option<Timestamp>,
    pub ends_at: Option<Timestamp>,
    pub max_redemptions: Option<i64>,
    #[serde(default)]
    pub max_redemptions_per_customer: Option<i64>,
    pub redemptions_count: i64,
    pub organization_id: String,
    /// Only in the full form (`discount.*` events); absent in orders and subscriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub products: Option<Vec<DiscountProduct>>,
}

/// A fixed-amount discount.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedDiscount {
    #[serde(flatten)]
    pub common: DiscountCommon,
    /// Cents off, in `currency`.
    pub amount: i64,
    pub currency: String,
    /// Cents off per currency (multi-currency; written back only when sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amounts: Option<BTreeMap<String, i64>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A percentage discount.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PercentageDiscount {
    #[serde(flatten)]
    pub common: DiscountCommon,
    /// 1000 = 10 %.
    pub basis_points: i64,
    #[serde(flatten)]
    pub extra: Extra,
}

tagged_union! {
    /// The slim discount on a checkout: `{id, name, code, duration, duration_in_months?}` plus
    /// the amounts of its type.
    pub enum CheckoutDiscount (tag = "type") {
        Fixed(CheckoutFixedDiscount) = "fixed",
        Percentage(CheckoutPercentageDiscount) = "percentage",
    }
}

impl CheckoutDiscount {
    /// The fields both known types share; `None` for an unknown type.
    pub fn common(&self) -> Option<&CheckoutDiscountCommon> {
        match self {
            Self::Fixed(discount) => Some(&discount.common),
            Self::Percentage(discount) => Some(&discount.common),
            Self::Unknown(_) => None,
        }
    }
}

/// The fields every checkout discount has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckoutDiscountCommon {
    pub id: String,
    pub name: String,
    pub code: Option<String>,
    pub duration: DiscountDuration,
    /// Only for `repeating`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_in_months: Option<i64>,
}

/// A fixed-amount checkout discount.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckoutFixedDiscount {
    #[serde(flatten)]
    pub common: CheckoutDiscountCommon,
    pub amount: i64,
    pub currency: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amounts: Option<BTreeMap<String, i64>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A percentage checkout discount.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckoutPercentageDiscount {
    #[serde(flatten)]
    pub common: CheckoutDiscountCommon,
    pub basis_points: i64,
    #[serde(flatten)]
    pub extra: Extra,
}
