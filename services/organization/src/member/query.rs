//! list-members' parameters (§11.7, with §10.6's operators) turned into a [`ListQuery`]: field
//! names checked against the member's fields, filter values read as the column's kind.

use gatehouse_kit::errors::{Failure, base};
use gatehouse_kit::listing::{self, Filter, Kind};
use gatehouse_proto::organization::v1 as pb;
use serde_json::Value;

/// One page of members, and what decides it.
#[derive(Clone, Debug, PartialEq)]
pub struct ListQuery {
    pub filters: Vec<Filter>,
    /// The column sorted by (then `id`), descending when true.
    pub sort: &'static str,
    pub descending: bool,
    pub limit: u64,
    pub offset: Option<u64>,
}

/// better-auth's member field names and their columns.
fn column(field: &str) -> Option<(&'static str, Kind)> {
    Some(match field {
        "id" => ("id", Kind::Text),
        "organizationId" => ("organization_id", Kind::Text),
        "userId" => ("user_id", Kind::Text),
        "role" => ("role", Kind::Text),
        "createdAt" => ("created_at", Kind::Time),
        _ => return None,
    })
}

fn invalid(message: String) -> Failure {
    base::VALIDATION_ERROR.with_message(message)
}

/// `default_limit`: the membership limit, better-auth's page size when none is asked.
pub fn list_query(r: &pb::ListMembersRequest, default_limit: u32) -> Result<ListQuery, Failure> {
    let mut filters = Vec::new();
    if let Some(value) = r.filter_value.as_deref() {
        let field = r.filter_field.as_deref().unwrap_or("userId");
        let found = column(field)
            .ok_or_else(|| invalid(format!("[query.filterField] Unknown field: {field}")))?;
        filters.push(listing::filter(
            "query",
            field,
            found,
            &Value::String(value.to_string()),
            r.filter_operator.as_deref(),
        )?);
    }
    let sort = match r.sort_by.as_deref() {
        None | Some("") => "created_at",
        Some(field) => {
            column(field)
                .ok_or_else(|| invalid(format!("[query.sortBy] Unknown field: {field}")))?
                .0
        }
    };
    Ok(ListQuery {
        filters,
        sort,
        descending: r.descending,
        limit: u64::from(r.limit.unwrap_or(default_limit)),
        offset: r.offset.map(u64::from),
    })
}
