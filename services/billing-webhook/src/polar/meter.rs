//! Meters: what usage is counted (a recursive event filter) and how (an aggregation)
//! (reference §4.2 Meter). The full `Meter` is embedded in subscription meters; prices carry
//! the slim `PriceMeter`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::{Extra, Metadata, Quantity, Scalar, Timestamp, open_enum};

open_enum! {
    /// Meter `unit`.
    pub enum MeterUnit {
        Scalar = "scalar",
        Token = "token",
        Custom = "custom",
    }
}

open_enum! {
    /// How a filter joins its clauses.
    pub enum FilterConjunction {
        And = "and",
        Or = "or",
    }
}

open_enum! {
    /// A filter clause's comparison.
    pub enum FilterOperator {
        Eq = "eq",
        Ne = "ne",
        Gt = "gt",
        Gte = "gte",
        Lt = "lt",
        Lte = "lte",
        Like = "like",
        NotLike = "not_like",
    }
}

open_enum! {
    /// An aggregation's `func`.
    pub enum AggregationFunc {
        Count = "count",
        Sum = "sum",
        Max = "max",
        Min = "min",
        Avg = "avg",
        Unique = "unique",
    }
}

/// A meter: timestamped, with its event filter and aggregation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meter {
    pub id: String,
    pub created_at: Timestamp,
    pub modified_at: Option<Timestamp>,
    pub metadata: Metadata,
    pub name: String,
    pub unit: MeterUnit,
    #[serde(default)]
    pub custom_label: Option<String>,
    #[serde(default)]
    pub custom_multiplier: Option<Quantity>,
    pub organization_id: String,
    #[serde(default)]
    pub archived_at: Option<Timestamp>,
    pub filter: MeterFilter,
    pub aggregation: MeterAggregation,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{conjunction, clauses}`: a filter whose clauses are conditions or nested filters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeterFilter {
    pub conjunction: FilterConjunction,
    pub clauses: Vec<FilterNode>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One entry of `clauses`: a nested filter, a condition, or (kept raw) anything else.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FilterNode {
    Filter(MeterFilter),
    Clause(FilterClause),
    Unknown(Value),
}

/// `{property, operator, value}` with a string, number or bool value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FilterClause {
    pub property: String,
    pub operator: FilterOperator,
    pub value: Scalar,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `{func: "count"}`, `{func: sum|max|min|avg, property}` or `{func: "unique", property}`.
/// `func` may be absent on count and unique (reference §4.2 Meter); see [`Self::kind`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeterAggregation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub func: Option<AggregationFunc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl MeterAggregation {
    /// The aggregation function, inferring an absent `func`: with a `property` it is
    /// `unique`, without one `count`.
    pub fn kind(&self) -> AggregationFunc {
        match (&self.func, &self.property) {
            (Some(func), _) => func.clone(),
            (None, Some(_)) => AggregationFunc::Unique,
            (None, None) => AggregationFunc::Count,
        }
    }
}

/// The slim meter embedded in metered prices: `{id, name, unit, custom_label, custom_multiplier}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceMeter {
    pub id: String,
    pub name: String,
    pub unit: MeterUnit,
    #[serde(default)]
    pub custom_label: Option<String>,
    #[serde(default)]
    pub custom_multiplier: Option<Quantity>,
    #[serde(flatten)]
    pub extra: Extra,
}
