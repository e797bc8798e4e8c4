//! The webhook envelope `{type, timestamp, api_version?, data}` and the dispatch of `data` on
//! `type` (reference §3, §4.3).
//!
//! Every event type of Polar's list whose entity is modelled here has a variant; any other
//! type (`customer_seat.*`, or one Polar adds later) parses to [`Event::Unknown`] with its
//! data kept, never to an error (reference §8.4). The typed model is for reading: fan-out
//! forwards the raw bytes, since Polar's exact bytes are what is signed (reference §4.4, §8.2).

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::benefit::Benefit;
use super::benefit_grant::BenefitGrant;
use super::checkout::Checkout;
use super::common::{Extra, Timestamp, raw_modified_or_created, raw_str};
use super::customer::{Customer, Member};
use super::customer_state::CustomerState;
use super::discount::Discount;
use super::order::Order;
use super::organization::Organization;
use super::product::Product;
use super::refund::Refund;
use super::subscription::Subscription;

/// Why a webhook body could not be read as a Polar event. An unknown event type is *not* an
/// error.
#[derive(Debug, thiserror::Error)]
pub enum PolarParseError {
    /// The body is not JSON.
    #[error("webhook body is not valid JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The body is JSON but not an object.
    #[error("webhook body is not a JSON object")]
    NotAnObject,
    /// A required envelope key (`type`, `timestamp`, `data`) is missing.
    #[error("webhook envelope has no `{0}`")]
    MissingField(&'static str),
    /// An envelope key has the wrong shape (e.g. a non-string `type`, a bad timestamp).
    #[error("webhook envelope field `{field}` is invalid: {reason}")]
    InvalidField { field: &'static str, reason: String },
    /// The type is known but `data` does not match its model.
    #[error("`{event_type}` data does not match its model: {source}")]
    Data {
        event_type: String,
        #[source]
        source: serde_json::Error,
    },
}

/// Parses a webhook body (the raw bytes, after signature verification) into an [`Envelope`].
/// Unknown event types parse to [`Event::Unknown`].
pub fn parse_event(body: &[u8]) -> Result<Envelope, PolarParseError> {
    let value: Value = serde_json::from_slice(body).map_err(PolarParseError::Json)?;
    Envelope::from_value(value)
}

/// A parsed webhook delivery.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// When the event was generated (not when it was sent; always present).
    pub timestamp: Timestamp,
    /// The endpoint's pinned API version (`2026-04`, …); absent in older payloads.
    pub api_version: Option<String>,
    /// The event type and its typed data.
    pub event: Event,
    /// Envelope keys other than `type`, `timestamp`, `api_version` and `data`.
    pub extra: Extra,
}

impl Envelope {
    /// Reads an envelope from an already parsed JSON value.
    pub fn from_value(value: Value) -> Result<Self, PolarParseError> {
        let Value::Object(mut object) = value else {
            return Err(PolarParseError::NotAnObject);
        };
        let event_type = match object.remove("type") {
            Some(Value::String(event_type)) => event_type,
            Some(other) => return Err(invalid("type", &other)),
            None => return Err(PolarParseError::MissingField("type")),
        };
        let timestamp = match object.remove("timestamp") {
            Some(Value::String(text)) => {
                text.parse::<Timestamp>()
                    .map_err(|error| PolarParseError::InvalidField {
                        field: "timestamp",
                        reason: error.to_string(),
                    })?
            }
            Some(other) => return Err(invalid("timestamp", &other)),
            None => return Err(PolarParseError::MissingField("timestamp")),
        };
        let api_version = match object.remove("api_version") {
            None | Some(Value::Null) => None,
            Some(Value::String(version)) => Some(version),
            Some(other) => return Err(invalid("api_version", &other)),
        };
        let data = object
            .remove("data")
            .ok_or(PolarParseError::MissingField("data"))?;
        let event = Event::from_parts(&event_type, data)?;
        Ok(Self {
            timestamp,
            api_version,
            event,
            extra: object,
        })
    }

    /// The envelope as a JSON value (typed fields re-serialised; see the module note on
    /// forwarding raw bytes instead).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    /// The event type as sent, e.g. `order.paid`.
    pub fn event_type(&self) -> &str {
        self.event.event_type()
    }

    /// When the event was generated.
    pub fn timestamp(&self) -> Timestamp {
        self.timestamp
    }

    /// The pinned API version, if sent.
    pub fn api_version(&self) -> Option<&str> {
        self.api_version.as_deref()
    }

    /// The entity the event carries.
    pub fn entity(&self) -> EntityRef<'_> {
        self.event.entity()
    }

    /// The entity's id.
    pub fn entity_id(&self) -> Option<&str> {
        self.entity().id()
    }

    /// The entity's `modified_at`, or its `created_at` when it was never modified: the
    /// version to order projections by.
    pub fn entity_modified_at(&self) -> Option<Timestamp> {
        self.entity().modified_or_created_at()
    }

    /// The customer's `external_id` (our user id) where the entity carries a customer.
    pub fn customer_external_id(&self) -> Option<&str> {
        self.entity().customer_external_id()
    }

    /// The customer's email where the entity carries a customer.
    pub fn customer_email(&self) -> Option<&str> {
        self.entity().customer_email()
    }

    /// The Polar customer id where the entity refers to one.
    pub fn customer_id(&self) -> Option<&str> {
        self.entity().customer_id()
    }

    /// The seller organization the entity belongs to, where it says.
    pub fn organization_id(&self) -> Option<&str> {
        self.entity().organization_id()
    }
}

fn invalid(field: &'static str, value: &Value) -> PolarParseError {
    PolarParseError::InvalidField {
        field,
        reason: format!(
            "expected a string, found {}",
            super::common::json_kind(value)
        ),
    }
}

impl Serialize for Envelope {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        const OWN_KEYS: [&str; 4] = ["type", "timestamp", "api_version", "data"];
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.event.event_type())?;
        map.serialize_entry("timestamp", &self.timestamp)?;
        if let Some(version) = &self.api_version {
            map.serialize_entry("api_version", version)?;
        }
        map.serialize_entry("data", &EventData(&self.event))?;
        for (key, value) in &self.extra {
            if !OWN_KEYS.contains(&key.as_str()) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Envelope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(value).map_err(D::Error::custom)
    }
}

/// Serialises an event's data alone.
struct EventData<'a>(&'a Event);

/// Declares [`Event`]: one variant per known type, each boxing its entity, plus the dispatch.
macro_rules! events {
    ( $( $variant:ident($entity:ident) = $wire:literal ),+ $(,)? ) => {
        /// A Polar event: its type and typed data. Entities are boxed to keep the enum small.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Event {
            $(
                #[doc = concat!("`", $wire, "`")]
                $variant(Box<$entity>),
            )+
            /// A type this model does not know, with its data as sent.
            Unknown { event_type: String, data: Value },
        }

        impl Event {
            /// Every event type with a typed variant.
            pub const KNOWN_TYPES: &'static [&'static str] = &[$($wire),+];

            /// The event type as sent.
            pub fn event_type(&self) -> &str {
                match self {
                    $( Self::$variant(_) => $wire, )+
                    Self::Unknown { event_type, .. } => event_type,
                }
            }

            /// Types `data` after `event_type`; an unknown type keeps the data raw.
            pub fn from_parts(event_type: &str, data: Value) -> Result<Self, PolarParseError> {
                match event_type {
                    $( $wire => serde_json::from_value(data)
                        .map(|entity| Self::$variant(Box::new(entity)))
                        .map_err(|source| PolarParseError::Data {
                            event_type: event_type.to_owned(),
                            source,
                        }), )+
                    _ => Ok(Self::Unknown { event_type: event_type.to_owned(), data }),
                }
            }

            /// The entity the event carries.
            pub fn entity(&self) -> EntityRef<'_> {
                match self {
                    $( Self::$variant(entity) => EntityRef::$entity(&**entity), )+
                    Self::Unknown { data, .. } => EntityRef::Unknown(data),
                }
            }

            /// Whether the type is one this model does not know.
            pub fn is_unknown(&self) -> bool {
                matches!(self, Self::Unknown { .. })
            }
        }

        impl Serialize for EventData<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self.0 {
                    $( Event::$variant(entity) => entity.serialize(serializer), )+
                    Event::Unknown { data, .. } => data.serialize(serializer),
                }
            }
        }
    };
}

events! {
    BenefitCreated(Benefit) = "benefit.created",
    BenefitUpdated(Benefit) = "benefit.updated",
    BenefitGrantCreated(BenefitGrant) = "benefit_grant.created",
    BenefitGrantUpdated(BenefitGrant) = "benefit_grant.updated",
    BenefitGrantRevoked(BenefitGrant) = "benefit_grant.revoked",
    BenefitGrantCycled(BenefitGrant) = "benefit_grant.cycled",
    CheckoutCreated(Checkout) = "checkout.created",
    CheckoutUpdated(Checkout) = "checkout.updated",
    CheckoutExpired(Checkout) = "checkout.expired",
    CustomerCreated(Customer) = "customer.created",
    CustomerUpdated(Customer) = "customer.updated",
    CustomerDeleted(Customer) = "customer.deleted",
    CustomerStateChanged(CustomerState) = "customer.state_changed",
    DiscountCreated(Discount) = "discount.created",
    DiscountUpdated(Discount) = "discount.updated",
    DiscountDeleted(Discount) = "discount.deleted",
    MemberCreated(Member) = "member.created",
    MemberUpdated(Member) = "member.updated",
    MemberDeleted(Member) = "member.deleted",
    OrderCreated(Order) = "order.created",
    OrderUpdated(Order) = "order.updated",
    OrderPaid(Order) = "order.paid",
    OrderRefunded(Order) = "order.refunded",
    OrganizationUpdated(Organization) = "organization.updated",
    ProductCreated(Product) = "product.created",
    ProductUpdated(Product) = "product.updated",
    RefundCreated(Refund) = "refund.created",
    RefundUpdated(Refund) = "refund.updated",
    SubscriptionCreated(Subscription) = "subscription.created",
    SubscriptionActive(Subscription) = "subscription.active",
    SubscriptionUpdated(Subscription) = "subscription.updated",
    SubscriptionCanceled(Subscription) = "subscription.canceled",
    SubscriptionUncanceled(Subscription) = "subscription.uncanceled",
    SubscriptionRevoked(Subscription) = "subscription.revoked",
    SubscriptionCycled(Subscription) = "subscription.cycled",
    SubscriptionPastDue(Subscription) = "subscription.past_due",
    SubscriptionPaused(Subscription) = "subscription.paused",
    SubscriptionResumed(Subscription) = "subscription.resumed",
    SubscriptionMigrated(Subscription) = "subscription.migrated",
}

/// A borrowed view of the entity an event carries, with the accessors projections need.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EntityRef<'a> {
    Benefit(&'a Benefit),
    BenefitGrant(&'a BenefitGrant),
    Checkout(&'a Checkout),
    Customer(&'a Customer),
    CustomerState(&'a CustomerState),
    Discount(&'a Discount),
    Member(&'a Member),
    Order(&'a Order),
    Organization(&'a Organization),
    Product(&'a Product),
    Refund(&'a Refund),
    Subscription(&'a Subscription),
    /// The data of an unknown event type; accessors read it best-effort.
    Unknown(&'a Value),
}

impl<'a> EntityRef<'a> {
    /// What kind of entity this is, as projections file it (`order`, `customer_state`, …);
    /// `None` for an unknown event's data.
    pub fn kind(self) -> Option<&'static str> {
        Some(match self {
            Self::Benefit(_) => "benefit",
            Self::BenefitGrant(_) => "benefit_grant",
            Self::Checkout(_) => "checkout",
            Self::Customer(_) => "customer",
            Self::CustomerState(_) => "customer_state",
            Self::Discount(_) => "discount",
            Self::Member(_) => "member",
            Self::Order(_) => "order",
            Self::Organization(_) => "organization",
            Self::Product(_) => "product",
            Self::Refund(_) => "refund",
            Self::Subscription(_) => "subscription",
            Self::Unknown(_) => return None,
        })
    }

    /// The entity's id.
    pub fn id(self) -> Option<&'a str> {
        match self {
            Self::Benefit(benefit) => benefit.id(),
            Self::BenefitGrant(grant) => Some(&grant.id),
            Self::Checkout(checkout) => Some(&checkout.id),
            Self::Customer(customer) => Some(&customer.id),
            Self::CustomerState(state) => Some(&state.customer.id),
            Self::Discount(discount) => discount.id(),
            Self::Member(member) => Some(&member.id),
            Self::Order(order) => Some(&order.id),
            Self::Organization(organization) => Some(&organization.id),
            Self::Product(product) => Some(&product.core.id),
            Self::Refund(refund) => Some(&refund.id),
            Self::Subscription(subscription) => Some(&subscription.core.id),
            Self::Unknown(raw) => raw_str(raw, "id"),
        }
    }

    /// `modified_at`, or `created_at` when the entity was never modified.
    pub fn modified_or_created_at(self) -> Option<Timestamp> {
        match self {
            Self::Benefit(benefit) => benefit.modified_or_created_at(),
            Self::BenefitGrant(grant) => Some(grant.modified_or_created_at()),
            Self::Checkout(checkout) => Some(checkout.modified_or_created_at()),
            Self::Customer(customer) => Some(customer.modified_or_created_at()),
            Self::CustomerState(state) => Some(state.customer.modified_or_created_at()),
            Self::Discount(discount) => discount.modified_or_created_at(),
            Self::Member(member) => Some(member.modified_or_created_at()),
            Self::Order(order) => Some(order.modified_or_created_at()),
            Self::Organization(organization) => Some(organization.modified_or_created_at()),
            Self::Product(product) => Some(product.core.modified_or_created_at()),
            Self::Refund(refund) => Some(refund.modified_or_created_at()),
            Self::Subscription(subscription) => Some(subscription.core.modified_or_created_at()),
            Self::Unknown(raw) => raw_modified_or_created(raw),
        }
    }

    /// The customer this entity carries, if it embeds a full one.
    pub fn customer(self) -> Option<&'a Customer> {
        match self {
            Self::BenefitGrant(grant) => Some(&grant.customer),
            Self::Customer(customer) => Some(customer),
            Self::CustomerState(state) => Some(&state.customer),
            Self::Order(order) => Some(&order.customer),
            Self::Subscription(subscription) => Some(&subscription.customer),
            _ => None,
        }
    }

    /// The customer's `external_id` (our user id). Checkouts carry it as
    /// `external_customer_id`; an unknown entity is read at `customer.external_id` or
    /// `external_customer_id`.
    pub fn customer_external_id(self) -> Option<&'a str> {
        match self {
            Self::Checkout(checkout) => checkout.external_customer_id.as_deref(),
            Self::Unknown(raw) => raw
                .get("customer")
                .and_then(|customer| raw_str(customer, "external_id"))
                .or_else(|| raw_str(raw, "external_customer_id")),
            other => other
                .customer()
                .and_then(|customer| customer.external_id.as_deref()),
        }
    }

    /// The customer's email. Checkouts carry it as `customer_email`; an unknown entity is
    /// read at `customer.email`.
    pub fn customer_email(self) -> Option<&'a str> {
        match self {
            Self::Checkout(checkout) => checkout.customer_email.as_deref(),
            Self::Unknown(raw) => raw
                .get("customer")
                .and_then(|customer| raw_str(customer, "email")),
            other => other
                .customer()
                .and_then(|customer| customer.email.as_deref()),
        }
    }

    /// The Polar customer id the entity refers to.
    pub fn customer_id(self) -> Option<&'a str> {
        match self {
            Self::BenefitGrant(grant) => Some(&grant.customer_id),
            Self::Checkout(checkout) => checkout.customer_id.as_deref(),
            Self::Customer(customer) => Some(&customer.id),
            Self::CustomerState(state) => Some(&state.customer.id),
            Self::Member(member) => Some(&member.customer_id),
            Self::Order(order) => Some(&order.customer_id),
            Self::Refund(refund) => Some(&refund.customer_id),
            Self::Subscription(subscription) => Some(&subscription.core.customer_id),
            Self::Unknown(raw) => raw_str(raw, "customer_id").or_else(|| {
                raw.get("customer")
                    .and_then(|customer| raw_str(customer, "id"))
            }),
            Self::Benefit(_) | Self::Discount(_) | Self::Organization(_) | Self::Product(_) => None,
        }
    }

    /// The purchase this entity belongs to: its subscription, else its order. It is how an
    /// entity without a `referenceId` of its own (a benefit grant, a refund, a renewal order)
    /// is traced to the organization the purchase was made for.
    pub fn purchase_id(self) -> Option<&'a str> {
        match self {
            Self::BenefitGrant(grant) => grant
                .subscription_id
                .as_deref()
                .or(grant.order_id.as_deref()),
            Self::Refund(refund) => refund
                .subscription_id
                .as_deref()
                .or(Some(refund.order_id.as_str())),
            Self::Order(order) => order.subscription_id.as_deref(),
            _ => None,
        }
    }

    /// The seller organization the entity belongs to.
    pub fn organization_id(self) -> Option<&'a str> {
        match self {
            Self::Benefit(benefit) => benefit.organization_id(),
            Self::Checkout(checkout) => Some(&checkout.organization_id),
            Self::Discount(discount) => discount.organization_id(),
            Self::Organization(organization) => Some(&organization.id),
            Self::Product(product) => Some(&product.core.organization_id),
            Self::Refund(refund) => Some(&refund.organization_id),
            Self::Unknown(raw) => raw_str(raw, "organization_id"),
            Self::Member(_) => None,
            other => other
                .customer()
                .map(|customer| customer.organization_id.as_str()),
        }
    }
}
