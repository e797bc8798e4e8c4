//! What a route's caller requirement refuses before its handler runs, read from the handler's
//! argument types when the route is registered ([`of`]) and written into the route's OpenAPI
//! entry ([`Refusals::document`]), so a route's documented 401 and 403 cannot drift from
//! what its types enforce.

use gatehouse_kit::errors::ErrorCode;
use utoipa::openapi::path::Operation;
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};

use super::{Admit, Input, RequestMeta};

/// How a requirement answers a caller with no valid session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignedOut {
    /// Let through (the handler decides, or needs no session).
    #[default]
    Admitted,
    /// 401 `UNAUTHORIZED`.
    Unauthorized,
    /// 401 with an empty body (better-auth's admin routes).
    EmptyUnauthorized,
}

/// The answers a requirement gives before the handler runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refusals {
    pub signed_out: SignedOut,
    /// A 403 it answers a signed-in caller, and why.
    pub forbidden: Option<(ErrorCode, &'static str)>,
}

/// The 401 of [`SignedOut::Unauthorized`], as documented.
pub const UNAUTHORIZED_DOC: &str = "`UNAUTHORIZED`: no valid session";
/// The 401 of [`SignedOut::EmptyUnauthorized`], as documented.
pub const EMPTY_UNAUTHORIZED_DOC: &str = "No session: an empty body";

impl Refusals {
    /// No session needed.
    pub const NONE: Refusals = Refusals {
        signed_out: SignedOut::Admitted,
        forbidden: None,
    };
    /// A signed-in caller, else 401 `UNAUTHORIZED`.
    pub const SIGNED_IN: Refusals = Refusals {
        signed_out: SignedOut::Unauthorized,
        forbidden: None,
    };

    pub const fn empty_unauthorized(self) -> Self {
        Refusals {
            signed_out: SignedOut::EmptyUnauthorized,
            ..self
        }
    }

    pub const fn forbidding(self, code: ErrorCode, why: &'static str) -> Self {
        Refusals {
            forbidden: Some((code, why)),
            ..self
        }
    }

    /// What the 401 answer says, if the requirement gives one.
    pub fn unauthorized_doc(self) -> Option<&'static str> {
        match self.signed_out {
            SignedOut::Admitted => None,
            SignedOut::Unauthorized => Some(UNAUTHORIZED_DOC),
            SignedOut::EmptyUnauthorized => Some(EMPTY_UNAUTHORIZED_DOC),
        }
    }

    /// What the 403 answer says, if the requirement gives one.
    pub fn forbidden_doc(self) -> Option<String> {
        self.forbidden
            .map(|(code, why)| format!("`{}`: {why}", code.code()))
    }

    /// Adds these answers to the operation's, beside the route's own under the same status.
    pub fn document(self, operation: &mut Operation) {
        if let Some(text) = self.unauthorized_doc() {
            let body = self.signed_out == SignedOut::Unauthorized;
            add(operation, "401", text, body);
        }
        if let Some(text) = self.forbidden_doc() {
            add(operation, "403", &text, true);
        }
    }
}

fn add(operation: &mut Operation, status: &str, text: &str, body: bool) {
    let responses = &mut operation.responses.responses;
    if let Some(RefOr::T(existing)) = responses.get_mut(status) {
        let mut theirs = existing.description.chars();
        let theirs: String = match theirs.next() {
            Some(first) => first.to_lowercase().chain(theirs).collect(),
            None => String::new(),
        };
        existing.description = format!("{text}; or {theirs}");
        return;
    }
    let mut response = ResponseBuilder::new().description(format!("{text}."));
    if body {
        response = response.content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        );
    }
    responses.insert(status.to_string(), RefOr::T(response.build()));
}

/// A type a handler takes last, which says what the route requires of its caller.
pub trait Requirement {
    const REFUSALS: Refusals;
}

impl<T, A: Admit<T>> Requirement for Input<T, A> {
    const REFUSALS: Refusals = A::REFUSALS;
}

/// A handler that reads the request itself requires nothing of its caller before it runs.
impl Requirement for RequestMeta {
    const REFUSALS: Refusals = Refusals::NONE;
}

/// A handler that takes nothing of the request but the state requires nothing of its caller.
impl<T> Requirement for axum::extract::State<T> {
    const REFUSALS: Refusals = Refusals::NONE;
}

/// A handler that reads its body itself (a provider's `form_post` callback) requires nothing
/// of its caller.
impl Requirement for String {
    const REFUSALS: Refusals = Refusals::NONE;
}

/// A handler, by the [`Requirement`] of its last argument; `M` tells the arities apart, as
/// axum's `Handler` does.
pub trait Requires<M> {
    const REFUSALS: Refusals;
}

impl<F, Fut> Requires<()> for F
where
    F: FnOnce() -> Fut,
{
    const REFUSALS: Refusals = Refusals::NONE;
}

impl<F, Fut, L: Requirement> Requires<(L,)> for F
where
    F: FnOnce(L) -> Fut,
{
    const REFUSALS: Refusals = L::REFUSALS;
}

impl<F, Fut, A1, L: Requirement> Requires<(A1, L)> for F
where
    F: FnOnce(A1, L) -> Fut,
{
    const REFUSALS: Refusals = L::REFUSALS;
}

impl<F, Fut, A1, A2, L: Requirement> Requires<(A1, A2, L)> for F
where
    F: FnOnce(A1, A2, L) -> Fut,
{
    const REFUSALS: Refusals = L::REFUSALS;
}

/// What `handler` refuses before it runs.
pub fn of<M, H: Requires<M>>(_handler: &H) -> Refusals {
    H::REFUSALS
}
