//! Typed serde models of the payments platform's (Polar's) webhook payloads: every entity and
//! event of `shared/reference/billing-webhooks.md` §3–§4, and [`parse_event`] for a body.
//!
//! Conventions (reference §4, §7, §8):
//! - wire names are snake_case, as the Rust fields; ids are strings (UUIDs);
//! - money is integer cents (`i64`); decimal-string unit prices are exact
//!   [`rust_decimal::Decimal`]s; meter units that may be fractional are [`Quantity`];
//! - timestamps are `chrono::DateTime<FixedOffset>` ([`Timestamp`]);
//! - keys marked `|null` or `?` in the reference are `Option` (`#[serde(default)]` for `?`) and
//!   are written back as `null`, as Polar's server does; keys that only some variants carry are
//!   written back only when they were sent;
//! - enums are open (`Unknown(String)`), tagged unions keep an unknown tag as raw JSON, and
//!   undeclared keys are kept in `extra` (e.g. `guild_token`, `notification_settings`,
//!   reference §4.4). A parse then re-serialisation keeps every key and value, though
//!   timestamps may be spelled differently (`.120000Z` → `.120Z`).
//!
//! The typed model is for reading and projections; forward Polar's raw bytes (§8.2).

mod benefit;
mod benefit_grant;
mod checkout;
mod common;
mod customer;
mod customer_state;
mod discount;
mod event;
mod meter;
mod order;
mod organization;
mod product;
mod refund;
mod subscription;

pub use benefit::*;
pub use benefit_grant::*;
pub use checkout::*;
pub use common::{
    Address, CustomFieldData, Extra, Metadata, Quantity, RecurringInterval, Scalar, TaxBehavior,
    Timestamp, Visibility,
};
pub use customer::*;
pub use customer_state::*;
pub use discount::*;
pub use event::*;
pub use meter::*;
pub use order::*;
pub use organization::*;
pub use product::*;
pub use refund::*;
pub use subscription::*;

/// The exact decimal type used for `unit_amount`.
pub use rust_decimal::Decimal;

/// The organization an entity was bought for, as its `metadata` names it: better-auth's
/// payments plugin puts the organization's id in the checkout's `referenceId`, and the
/// payments platform copies checkout metadata onto the orders and subscriptions it makes
/// (reference §6). Anything but a non-empty string names no one.
pub fn reference_id(metadata: &serde_json::Value) -> Option<&str> {
    metadata
        .get("referenceId")?
        .as_str()
        .filter(|id| !id.is_empty())
}
