//! list-users' parameters (better-auth §10.6) turned into a [`ListQuery`]: field names checked
//! against the user's fields, filter values read as the column's kind.

use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::identity::v1 as pb;
use serde_json::Value;

use super::store::{CompareOp, Filter, Kind, ListQuery, Match, Scalar, column};

fn invalid(message: String) -> Failure {
    base::VALIDATION_ERROR.with_message(message)
}

/// A filter value as the column's kind; query strings make every value a string.
fn scalar(kind: Kind, value: &Value, field: &str) -> Result<Scalar, Failure> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => {
            return Err(invalid(format!(
                "[query.filterValue] Invalid input for {field}"
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
                    "[query.filterValue] {field} is true or false"
                )));
            }
        }),
        Kind::Time => Scalar::Time(
            chrono::DateTime::parse_from_rfc3339(&text)
                .map_err(|_| invalid(format!("[query.filterValue] {field} is an ISO 8601 date")))?
                .to_utc(),
        ),
    })
}

fn matcher(operator: &str) -> Option<Match> {
    Some(match operator {
        "contains" => Match::Contains,
        "starts_with" => Match::StartsWith,
        "ends_with" => Match::EndsWith,
        _ => return None,
    })
}

pub fn list_query(r: &pb::ListUsersRequest) -> Result<ListQuery, Failure> {
    let mut filters = Vec::new();
    if let Some(value) = r.search_value.as_deref().filter(|v| !v.is_empty()) {
        let field = r.search_field.as_deref().unwrap_or("email");
        let column = match field {
            "email" => "email",
            "name" => "name",
            other => {
                return Err(invalid(format!(
                    "[query.searchField] Unknown field: {other}"
                )));
            }
        };
        let operator = r.search_operator.as_deref().unwrap_or("contains");
        let how = matcher(operator).ok_or_else(|| {
            invalid(format!(
                "[query.searchOperator] Unknown operator: {operator}"
            ))
        })?;
        filters.push(Filter::Like(column, value.to_string(), how));
    }
    if let Some(raw) = r.filter_value_json.as_deref() {
        let field = r.filter_field.as_deref().unwrap_or("email");
        let (column, kind) = column(field)
            .ok_or_else(|| invalid(format!("[query.filterField] Unknown field: {field}")))?;
        let value: Value = serde_json::from_str(raw)
            .map_err(|_| invalid("[query.filterValue] Invalid input".into()))?;
        let operator = r.filter_operator.as_deref().unwrap_or("eq");
        let compare =
            |op| Ok::<_, Failure>(Filter::Compare(column, op, scalar(kind, &value, field)?));
        filters.push(match operator {
            "eq" => compare(CompareOp::Eq)?,
            "ne" => compare(CompareOp::Ne)?,
            "lt" => compare(CompareOp::Lt)?,
            "lte" => compare(CompareOp::Lte)?,
            "gt" => compare(CompareOp::Gt)?,
            "gte" => compare(CompareOp::Gte)?,
            "in" | "not_in" => {
                let values = match &value {
                    Value::Array(values) => values.clone(),
                    Value::String(list) => list
                        .split(',')
                        .map(|v| Value::String(v.trim().into()))
                        .collect(),
                    other => vec![other.clone()],
                };
                let values = values
                    .iter()
                    .map(|v| scalar(kind, v, field))
                    .collect::<Result<_, _>>()?;
                Filter::In(column, values, operator == "not_in")
            }
            other => match (matcher(other), kind) {
                (Some(how), Kind::Text) => {
                    let Scalar::Text(text) = scalar(kind, &value, field)? else {
                        unreachable!("a text column reads text")
                    };
                    Filter::Like(column, text, how)
                }
                _ => {
                    return Err(invalid(format!(
                        "[query.filterOperator] Unknown operator for {field}: {other}"
                    )));
                }
            },
        });
    }
    let sort = match r.sort_by.as_deref() {
        None | Some("") => None,
        Some(field) => {
            let (column, _) = column(field)
                .ok_or_else(|| invalid(format!("[query.sortBy] Unknown field: {field}")))?;
            let descending = match r.sort_direction.as_deref() {
                None | Some("asc") => false,
                Some("desc") => true,
                Some(other) => {
                    return Err(invalid(format!(
                        "[query.sortDirection] Unknown direction: {other}"
                    )));
                }
            };
            Some((column, descending))
        }
    };
    Ok(ListQuery {
        filters,
        sort,
        limit: r.limit.map(u64::from),
        offset: r.offset.map(u64::from),
    })
}
