//! Shared building blocks: the open-enum and tagged-union macros, metadata values, exact
//! numbers, addresses and the small enumerations used by several entities.
//!
//! Leniency rules (reference §4, §4.4, §7, §8.6):
//! - every enum is open: a value this model does not know lands in `Unknown(String)` and is
//!   written back unchanged;
//! - every union keyed by a tag keeps an unknown tag as the raw JSON object;
//! - structs keep keys they do not declare in `extra` (`#[serde(flatten)]`), so a parse and a
//!   re-serialisation lose nothing. Nothing here uses `deny_unknown_fields`.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A wire timestamp: RFC 3339 with an offset (Polar sends microseconds and `Z`).
pub type Timestamp = chrono::DateTime<chrono::FixedOffset>;

/// Keys on the wire that the model does not declare, kept verbatim (reference §4.4).
pub type Extra = serde_json::Map<String, Value>;

/// `meta` in the reference: user-set key/value pairs whose values are strings, numbers or bools.
pub type Metadata = BTreeMap<String, Scalar>;

/// `cfd` in the reference: custom-field data keyed by field slug; values may also be `null`.
pub type CustomFieldData = BTreeMap<String, Scalar>;

/// Defines an open string enumeration: the listed values plus `Unknown(String)`, which takes
/// any other value and writes it back unchanged.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this model does not know yet, kept as sent.
            Unknown(String),
        }

        impl $name {
            /// The value as it appears on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $wire, )+
                    Self::Unknown(other) => other,
                }
            }

            /// Whether the value is one this model does not know.
            pub fn is_unknown(&self) -> bool {
                matches!(self, Self::Unknown(_))
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $wire => Self::$variant, )+
                    other => Self::Unknown(other.to_owned()),
                }
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                match value.as_str() {
                    $( $wire => Self::$variant, )+
                    _ => Self::Unknown(value),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <String as ::serde::Deserialize>::deserialize(deserializer).map(Self::from)
            }
        }
    };
}
pub(crate) use open_enum;

/// Defines a union discriminated by a string tag (`type`, `amount_type`, …). Each listed tag
/// value maps to a struct that holds everything but the tag; any other tag (or a missing one)
/// keeps the whole raw JSON object in `Unknown(Value)`, so an unknown variant is never an error.
macro_rules! tagged_union {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident (tag = $tag:literal) {
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant($ty), )+
            /// A tag value this model does not know: the raw JSON object, tag included.
            Unknown(::serde_json::Value),
        }

        impl $name {
            /// The tag name on the wire.
            pub const TAG: &'static str = $tag;

            /// The tag value as sent (`None` only for an unknown payload without a string tag).
            pub fn tag(&self) -> Option<&str> {
                match self {
                    $( Self::$variant(_) => Some($wire), )+
                    Self::Unknown(raw) => raw.get($tag).and_then(::serde_json::Value::as_str),
                }
            }

            /// Whether the tag is one this model does not know.
            pub fn is_unknown(&self) -> bool {
                matches!(self, Self::Unknown(_))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(inner) => {
                        $crate::polar::common::serialize_tagged(serializer, $tag, $wire, inner)
                    } )+
                    Self::Unknown(raw) => ::serde::Serialize::serialize(raw, serializer),
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use ::serde::de::Error as _;
                let mut object = match <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)? {
                    ::serde_json::Value::Object(object) => object,
                    other => {
                        return Err(D::Error::custom(format_args!(
                            "expected a JSON object for {}, found {}",
                            stringify!($name),
                            $crate::polar::common::json_kind(&other),
                        )))
                    }
                };
                let tag = object.get($tag).and_then(::serde_json::Value::as_str).map(str::to_owned);
                match tag.as_deref() {
                    $( Some($wire) => {
                        object.remove($tag);
                        ::serde_json::from_value(::serde_json::Value::Object(object))
                            .map(Self::$variant)
                            .map_err(|e| D::Error::custom(format_args!(
                                "{} `{}`: {}", stringify!($name), $wire, e
                            )))
                    } )+
                    _ => Ok(Self::Unknown(::serde_json::Value::Object(object))),
                }
            }
        }
    };
}
pub(crate) use tagged_union;

/// Serialises `inner` (a struct without its tag) as a JSON object with `tag_key: tag` added.
pub(crate) fn serialize_tagged<S, T>(
    serializer: S,
    tag_key: &str,
    tag: &str,
    inner: &T,
) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    T: Serialize,
{
    use serde::ser::Error as _;
    match serde_json::to_value(inner).map_err(S::Error::custom)? {
        Value::Object(mut object) => {
            object.insert(tag_key.to_owned(), Value::String(tag.to_owned()));
            object.serialize(serializer)
        }
        other => Err(S::Error::custom(format_args!(
            "tagged variant `{tag}` did not serialise to an object but to {}",
            json_kind(&other)
        ))),
    }
}

/// A short name of a JSON value's kind, for error messages.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// For keys that may be absent *or* `null` (e.g. grant `account_id`): absent is `None`,
/// `null` is `Some(None)`, so both write back the way they came.
pub(crate) fn double_option<'de, T, D>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// `raw[key]` as a string, for best-effort accessors on unknown payloads.
pub(crate) fn raw_str<'a>(raw: &'a Value, key: &str) -> Option<&'a str> {
    raw.get(key).and_then(Value::as_str)
}

/// `raw[key]` parsed as an RFC 3339 timestamp, for best-effort accessors on unknown payloads.
pub(crate) fn raw_timestamp(raw: &Value, key: &str) -> Option<Timestamp> {
    raw_str(raw, key).and_then(|text| chrono::DateTime::parse_from_rfc3339(text).ok())
}

/// `modified_at`, or `created_at` when the former is null or absent, from a raw payload.
pub(crate) fn raw_modified_or_created(raw: &Value) -> Option<Timestamp> {
    raw_timestamp(raw, "modified_at").or_else(|| raw_timestamp(raw, "created_at"))
}

/// One metadata or custom-field value: a string, number or bool (reference §4 `meta`/`cfd`).
/// Numbers keep their exact JSON form (`48213` stays an integer); `null` and anything else
/// (arrays, objects) are kept too rather than failing the parse.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    String(String),
    Number(serde_json::Number),
    Bool(bool),
    Null,
    /// An array or object, which the schema does not allow but which is kept.
    Other(Value),
}

impl Scalar {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(text) => Some(text),
            _ => None,
        }
    }

    /// The number as an `i64`, if it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Self::Number(number) => number.as_i64(),
            _ => None,
        }
    }

    /// The number as an `f64`, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Number(number) => number.as_f64(),
            _ => None,
        }
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(flag) => Some(*flag),
            _ => None,
        }
    }
}

impl From<Value> for Scalar {
    fn from(value: Value) -> Self {
        match value {
            Value::String(text) => Self::String(text),
            Value::Number(number) => Self::Number(number),
            Value::Bool(flag) => Self::Bool(flag),
            Value::Null => Self::Null,
            other => Self::Other(other),
        }
    }
}

impl From<&str> for Scalar {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

impl Serialize for Scalar {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(text) => serializer.serialize_str(text),
            Self::Number(number) => number.serialize(serializer),
            Self::Bool(flag) => serializer.serialize_bool(*flag),
            Self::Null => serializer.serialize_unit(),
            Self::Other(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}

/// A quantity that may be fractional (meter units, multipliers). It keeps the exact JSON
/// number it came as, so `12840` stays an integer and `0.5` a float when written back
/// (reference §7: "meter units may be fractional"). Not for money.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Quantity(pub serde_json::Number);

impl Quantity {
    /// The value as an `f64` (exact for integers up to 2^53 and for the floats sent).
    pub fn as_f64(&self) -> f64 {
        // `as_f64` is `None` only with serde_json's arbitrary-precision feature, for a value
        // outside f64's range; treat that as not-a-number rather than panic.
        self.0.as_f64().unwrap_or(f64::NAN)
    }

    /// The value as an `i64`, if it was sent as an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.0.as_i64()
    }
}

impl From<i64> for Quantity {
    fn from(value: i64) -> Self {
        Self(value.into())
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A postal address (customers, orders, checkouts). `country` is ISO 3166-1 alpha-2; a US or
/// CA `state` is prefixed, e.g. `US-CA` (reference §4.2 Customer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Address {
    #[serde(default)]
    pub line1: Option<String>,
    #[serde(default)]
    pub line2: Option<String>,
    #[serde(default)]
    pub postal_code: Option<String>,
    #[serde(default)]
    pub city: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    pub country: String,
    #[serde(flatten)]
    pub extra: Extra,
}

open_enum! {
    /// `recurring_interval`, `trial_interval`, `meter_interval`.
    pub enum RecurringInterval {
        Day = "day",
        Week = "week",
        Month = "month",
        Year = "year",
    }
}

open_enum! {
    /// Product and benefit `visibility`.
    pub enum Visibility {
        Draft = "draft",
        Private = "private",
        Public = "public",
    }
}

open_enum! {
    /// `tax_behavior`: checkouts use inclusive/exclusive; prices and the organization default
    /// also use `location` (reference §4.1 "Other").
    pub enum TaxBehavior {
        Location = "location",
        Inclusive = "inclusive",
        Exclusive = "exclusive",
    }
}
