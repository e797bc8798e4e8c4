//! The documents as the registrations make them, checked where the types cannot be.

use std::collections::HashMap;

use utoipa::openapi::path::Operation;
use utoipa::openapi::{OpenApi, RefOr};

use super::Assembled;
use crate::extract::organization::{ManageBilling, OrganizationInput, Permitted};
use crate::extract::refusals::{self, EMPTY_UNAUTHORIZED_DOC, SignedOut, UNAUTHORIZED_DOC};
use crate::extract::{
    Admit, Authenticate, BareSession, FreshSession, Input, Later, MaybeSession, NoInput,
    RequestMeta, Session,
};

fn assembled() -> [(&'static str, Assembled); 2] {
    [
        ("/api/auth", super::routes()),
        ("/api/billing", super::billing_routes()),
    ]
}

fn documents() -> [(&'static str, OpenApi); 2] {
    assembled().map(|(api, assembled)| (api, assembled.document))
}

fn described(operation: &Operation, status: &str) -> String {
    match operation.responses.responses.get(status) {
        Some(RefOr::T(response)) => response.description.clone(),
        Some(RefOr::Ref(reference)) => reference.ref_location.clone(),
        None => String::new(),
    }
}

/// A route's 401 and 403 say what its requirement type refuses, and no route claims a
/// refusal its type does not give (a hand-picked error set that says `UNAUTHORIZED` on a
/// route that lets signed-out callers through fails here).
#[test]
fn documented_refusals_follow_the_requirement_types() {
    // Permission refusals are the requirement's alone; `SESSION_NOT_FRESH` may also be a
    // route's own answer (delete-user decides by its input), so it is checked one way only.
    let permission_codes =
        [<Permitted<ManageBilling> as Admit<OrganizationInput>>::REFUSALS.forbidden]
            .map(|forbidden| forbidden.map(|(code, _)| code.code()));
    let mut checked = 0;
    for (api, assembled) in assembled() {
        for (path, method, operation) in crate::openapi::operations(&assembled.document) {
            let here = format!("{api}: {method} {path}");
            let refusals = assembled.refusals.get(&path).copied().unwrap_or_else(|| {
                panic!("{here} is in the document but was not registered with `route!`")
            });
            let unauthorized = described(operation, "401");
            assert_eq!(
                unauthorized.contains("`UNAUTHORIZED`"),
                refusals.signed_out == SignedOut::Unauthorized,
                "{here}: its 401 ({unauthorized:?}) disagrees with {refusals:?}"
            );
            assert_eq!(
                unauthorized.contains(EMPTY_UNAUTHORIZED_DOC),
                refusals.signed_out == SignedOut::EmptyUnauthorized,
                "{here}: its 401 ({unauthorized:?}) disagrees with {refusals:?}"
            );
            let forbidden = described(operation, "403");
            if let Some((code, _)) = refusals.forbidden {
                assert!(
                    forbidden.contains(code.code()),
                    "{here}: its 403 ({forbidden:?}) does not say `{}`",
                    code.code()
                );
            }
            for code in permission_codes.iter().flatten() {
                let given = refusals.forbidden.map(|(given, _)| given.code()) == Some(*code);
                assert_eq!(
                    forbidden.contains(code),
                    given,
                    "{here}: its 403 ({forbidden:?}) disagrees with {refusals:?} about `{code}`"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 80, "only {checked} operations were checked");
}

/// The registration reads the requirement from the handler's last argument, whatever its
/// arity.
#[test]
fn a_handler_s_requirement_is_read_from_its_types() {
    use axum::extract::{Path, State};
    use refusals::of;

    use crate::state::AppState;

    async fn anonymous(_: Input<NoInput>) {}
    async fn signed_in(_: State<AppState>, _: Input<NoInput, Session>) {}
    async fn maybe(_: State<AppState>, _: Input<NoInput, MaybeSession>) {}
    async fn fresh(_: State<AppState>, _: Path<String>, _: Input<NoInput, FreshSession>) {}
    async fn bare(_: State<AppState>, _: Input<NoInput, BareSession>) {}
    async fn later(_: State<AppState>, _: RequestMeta, _: Later<BareSession>) {}
    async fn by_hand(_: State<AppState>, _: RequestMeta) {}
    async fn permitted(_: Input<OrganizationInput, Permitted<ManageBilling>>) {}
    async fn nothing() {}

    assert_eq!(of(&anonymous), refusals::Refusals::NONE);
    assert_eq!(of(&signed_in).signed_out, SignedOut::Unauthorized);
    assert_eq!(of(&maybe), refusals::Refusals::NONE);
    assert_eq!(of(&fresh), <FreshSession as Authenticate>::REFUSALS);
    assert!(of(&fresh).forbidden.is_some());
    assert_eq!(of(&bare).signed_out, SignedOut::EmptyUnauthorized);
    assert_eq!(of(&later), of(&bare));
    assert_eq!(of(&by_hand), refusals::Refusals::NONE);
    assert_eq!(
        of(&permitted).forbidden.map(|(code, _)| code.code()),
        Some("YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_BILLING")
    );
    assert_eq!(of(&nothing), refusals::Refusals::NONE);
    assert!(UNAUTHORIZED_DOC.contains("`UNAUTHORIZED`"));
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
