//! Filtered lists as better-auth's list routes take them (§10.6: admin `list-users`, the
//! organization plugin's `list-members`): a filter on a field, read as its column's kind, with
//! one of better-auth's operators, turned into one sea-query condition. Each list names its
//! own fields and columns; this is what they share.

use chrono::{DateTime, Utc};
use sea_query::{Alias, Cond, Expr, ExprTrait, Func, LikeExpr, SimpleExpr};
use serde_json::Value;

use crate::errors::{Failure, base};

fn invalid(message: String) -> Failure {
    base::VALIDATION_ERROR.with_message(message)
}

/// How a column's values compare (filter values arrive as strings from a query string).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Bool,
    Time,
}

/// A value a column is compared with, already of the column's kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Text(String),
    Bool(bool),
    Time(DateTime<Utc>),
}

impl From<Scalar> for SimpleExpr {
    fn from(value: Scalar) -> Self {
        match value {
            Scalar::Text(text) => text.into(),
            Scalar::Bool(flag) => flag.into(),
            Scalar::Time(time) => time.into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    Contains,
    StartsWith,
    EndsWith,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    Compare(&'static str, CompareOp, Scalar),
    In(&'static str, Vec<Scalar>, bool),
    /// Text matching, ignoring case.
    Like(&'static str, String, Match),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Lte,
    Gt,
    Gte,
}

/// `%`, `_` and the escape itself match literally.
pub fn like_pattern(value: &str, how: Match) -> String {
    let escaped = value
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    match how {
        Match::Contains => format!("%{escaped}%"),
        Match::StartsWith => format!("{escaped}%"),
        Match::EndsWith => format!("%{escaped}"),
    }
}

/// Every filter, all required. Text matching ignores case: columns in `stored_lower` are
/// compared as they are (stored lower-cased already), others through `lower()`.
pub fn condition(filters: &[Filter], stored_lower: &[&str]) -> Cond {
    let mut all = Cond::all();
    for filter in filters {
        all = all.add(match filter {
            Filter::Compare(column, op, value) => {
                let col = Expr::col(Alias::new(*column));
                let value = SimpleExpr::from(value.clone());
                match op {
                    CompareOp::Eq => col.eq(value),
                    CompareOp::Ne => col.ne(value),
                    CompareOp::Lt => col.lt(value),
                    CompareOp::Lte => col.lte(value),
                    CompareOp::Gt => col.gt(value),
                    CompareOp::Gte => col.gte(value),
                }
            }
            Filter::In(column, values, negated) => {
                let values: Vec<SimpleExpr> = values.iter().cloned().map(Into::into).collect();
                let col = Expr::col(Alias::new(*column));
                if *negated {
                    col.is_not_in(values)
                } else {
                    col.is_in(values)
                }
            }
            Filter::Like(column, value, how) => {
                let pattern = LikeExpr::new(like_pattern(value, *how)).escape('\\');
                if stored_lower.contains(column) {
                    // Stored lower-cased already: the column as it is.
                    Expr::col(Alias::new(*column)).like(pattern)
                } else {
                    Expr::expr(Func::lower(Expr::col(Alias::new(*column)))).like(pattern)
                }
            }
        });
    }
    all
}

/// A filter value as the column's kind; query strings make every value a string.
fn scalar(location: &str, kind: Kind, value: &Value, field: &str) -> Result<Scalar, Failure> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => {
            return Err(invalid(format!(
                "[{location}.filterValue] Invalid input for {field}"
            )));
        }
    };
    Ok(match kind {
        Kind::Text => Scalar::Text(text),
        Kind::Bool => Scalar::Bool(match text.as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(invalid(format!(
                    "[{location}.filterValue] {field} is true or false"
                )));
            }
        }),
        Kind::Time => Scalar::Time(
            chrono::DateTime::parse_from_rfc3339(&text)
                .map_err(|_| {
                    invalid(format!(
                        "[{location}.filterValue] {field} is an ISO 8601 date"
                    ))
                })?
                .to_utc(),
        ),
    })
}

/// better-auth's filter operators (`filterOperator`), as [`filter`] reads them.
pub const OPERATORS: &[&str] = &[
    "eq",
    "ne",
    "lt",
    "lte",
    "gt",
    "gte",
    "in",
    "not_in",
    "contains",
    "starts_with",
    "ends_with",
];

/// The operators that match text (`searchOperator`), as [`matcher`] reads them.
pub const TEXT_MATCHES: &[&str] = &["contains", "starts_with", "ends_with"];

/// `contains`, `starts_with`, `ends_with`.
pub fn matcher(operator: &str) -> Option<Match> {
    Some(match operator {
        "contains" => Match::Contains,
        "starts_with" => Match::StartsWith,
        "ends_with" => Match::EndsWith,
        _ => return None,
    })
}

/// One filter on `field` (its `column` and `kind` already looked up by the caller): `value` as
/// the column's kind, `operator` one of better-auth's (`eq` when absent). `location` names the
/// input in messages (`query`).
pub fn filter(
    location: &str,
    field: &str,
    (column, kind): (&'static str, Kind),
    value: &Value,
    operator: Option<&str>,
) -> Result<Filter, Failure> {
    let compare = |op| {
        Ok::<_, Failure>(Filter::Compare(
            column,
            op,
            scalar(location, kind, value, field)?,
        ))
    };
    let operator = operator.unwrap_or("eq");
    Ok(match operator {
        "eq" => compare(CompareOp::Eq)?,
        "ne" => compare(CompareOp::Ne)?,
        "lt" => compare(CompareOp::Lt)?,
        "lte" => compare(CompareOp::Lte)?,
        "gt" => compare(CompareOp::Gt)?,
        "gte" => compare(CompareOp::Gte)?,
        "in" | "not_in" => {
            let values = match value {
                Value::Array(values) => values.clone(),
                Value::String(list) => list
                    .split(',')
                    .map(|v| Value::String(v.trim().into()))
                    .collect(),
                other => vec![other.clone()],
            };
            let values = values
                .iter()
                .map(|v| scalar(location, kind, v, field))
                .collect::<Result<_, _>>()?;
            Filter::In(column, values, operator == "not_in")
        }
        other => match (matcher(other), kind) {
            (Some(how), Kind::Text) => {
                let Scalar::Text(text) = scalar(location, kind, value, field)? else {
                    unreachable!("a text column reads text")
                };
                Filter::Like(column, text, how)
            }
            _ => {
                return Err(invalid(format!(
                    "[{location}.filterOperator] Unknown operator for {field}: {other}"
                )));
            }
        },
    })
}

/// `sortDirection`: `asc` (the default) or `desc`; true when descending.
pub fn descending(location: &str, direction: Option<&str>) -> Result<bool, Failure> {
    match direction {
        None | Some("asc") => Ok(false),
        Some("desc") => Ok(true),
        Some(other) => Err(invalid(format!(
            "[{location}.sortDirection] Unknown direction: {other}"
        ))),
    }
}

/// The total a page shows without counting: the rows before it and in it, when nothing
/// follows the page (`last`) and it is not empty past the start (the offset may be past the
/// end, where the total is not `offset`).
pub fn total_from_page(offset: Option<u64>, rows: usize, last: bool) -> Option<u64> {
    let offset = offset.unwrap_or(0);
    let rows = rows as u64;
    (last && (rows > 0 || offset == 0)).then(|| offset.saturating_add(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_last_page_shows_its_total_unless_it_is_past_the_end() {
        assert_eq!(total_from_page(None, 0, true), Some(0));
        assert_eq!(total_from_page(Some(20), 5, true), Some(25));
        assert_eq!(total_from_page(Some(20), 5, false), None);
        assert_eq!(total_from_page(Some(30), 0, true), None, "past the end");
    }

    /// The operators the documents list are those the filter reads: each is accepted on a text
    /// column, and the text ones are the matcher's.
    #[test]
    fn every_listed_operator_is_read() {
        let text = Value::String("a,b".into());
        for operator in OPERATORS {
            let read = filter("query", "name", ("name", Kind::Text), &text, Some(operator));
            assert!(read.is_ok(), "{operator}: {read:?}");
        }
        for operator in TEXT_MATCHES {
            assert!(matcher(operator).is_some(), "{operator}");
        }
        assert!(filter("query", "name", ("name", Kind::Text), &text, Some("like")).is_err());
    }

    #[test]
    fn like_patterns_match_wildcards_literally() {
        assert_eq!(like_pattern("A_b%", Match::Contains), "%a\\_b\\%%");
        assert_eq!(like_pattern("x", Match::StartsWith), "x%");
        assert_eq!(like_pattern("x\\", Match::EndsWith), "%x\\\\");
    }

    #[test]
    fn filters_read_values_as_their_columns_kind() {
        let created = ("created_at", Kind::Time);
        assert!(matches!(
            filter(
                "query",
                "createdAt",
                created,
                &Value::String("2026-01-01T00:00:00Z".into()),
                Some("gt")
            ),
            Ok(Filter::Compare(
                "created_at",
                CompareOp::Gt,
                Scalar::Time(_)
            ))
        ));
        let bad = filter(
            "query",
            "createdAt",
            created,
            &Value::String("soon".into()),
            None,
        );
        assert_eq!(
            bad.unwrap_err().message(),
            "[query.filterValue] createdAt is an ISO 8601 date"
        );
        let role = ("role", Kind::Text);
        assert_eq!(
            filter(
                "query",
                "role",
                role,
                &Value::String("admin,owner".into()),
                Some("in")
            )
            .unwrap(),
            Filter::In(
                "role",
                vec![Scalar::Text("admin".into()), Scalar::Text("owner".into())],
                false
            )
        );
        assert!(
            filter(
                "query",
                "createdAt",
                created,
                &Value::String("x".into()),
                Some("contains")
            )
            .is_err()
        );
        assert!(descending("query", Some("desc")).unwrap());
        assert!(descending("query", Some("up")).is_err());
    }
}
