//! The documents as the registrations make them, checked where the types cannot be.

use std::collections::HashMap;

use utoipa::openapi::OpenApi;

fn documents() -> [(&'static str, OpenApi); 2] {
    [
        ("/api/auth", super::routes().1),
        ("/api/billing", super::billing_routes().1),
    ]
}

#[test]
fn operation_ids_are_unique_in_each_document() {
    for (api, document) in documents() {
        let mut seen: HashMap<String, String> = HashMap::new();
        for (path, method, operation) in crate::openapi::operations(&document) {
            let id = operation
                .operation_id
                .clone()
                .unwrap_or_else(|| panic!("{api}: {method} {path} has no operationId"));
            let here = format!("{method} {path}");
            if let Some(first) = seen.insert(id.clone(), here.clone()) {
                panic!("{api}: operationId `{id}` names both {first} and {here}");
            }
        }
    }
}
