//! list-users' parameters (better-auth §10.6) turned into a [`ListQuery`]: field names checked
//! against the user's fields, filter values read as the column's kind.

use gatehouse_kit::errors::{Failure, base};
use gatehouse_proto::identity::v1 as pb;
use serde_json::Value;

use gatehouse_kit::listing::{self, Filter, matcher};

use super::store::{ListQuery, column};

fn invalid(message: String) -> Failure {
    base::VALIDATION_ERROR.with_message(message)
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
        filters.push(listing::filter(
            "query",
            field,
            (column, kind),
            &value,
            r.filter_operator.as_deref(),
        )?);
    }
    let sort = match r.sort_by.as_deref() {
        None | Some("") => None,
        Some(field) => {
            let (column, _) = column(field)
                .ok_or_else(|| invalid(format!("[query.sortBy] Unknown field: {field}")))?;
            let descending = listing::descending("query", r.sort_direction.as_deref())?;
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
