//! `/api/auth`: one module per route group, each with a `router()` that registers its routes
//! together with their [`Policy`] (rate-limit rule, origin mode); the OpenAPI document comes
//! from the same registrations. Unknown paths and wrong methods answer 404 with an empty
//! body, as better-auth's router does, after counting against the default rate limit.

mod email_password;
mod meta;
mod session;

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Router};
use utoipa::openapi::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

use crate::error::ApiError;
use crate::policy::{self, Policy, RateRule};
use crate::state::AppState;

/// A route group under construction: every route is one [`Group::route`] line.
pub struct Group(OpenApiRouter<AppState>);

impl Group {
    pub fn new() -> Self {
        Group(OpenApiRouter::new())
    }

    /// Registers `route` (made by `utoipa_axum::routes!`, so it is documented) under `policy`.
    pub fn route(self, route: UtoipaMethodRouter<AppState>, policy: Policy) -> Self {
        let guarded = OpenApiRouter::new()
            .routes(route)
            .route_layer(axum::middleware::from_fn(
                move |request: Request, next: axum::middleware::Next| {
                    policy::guard(policy, request, next)
                },
            ));
        Group(self.0.merge(guarded))
    }
}

impl Default for Group {
    fn default() -> Self {
        Self::new()
    }
}

/// Every route group, before the state is attached: the router and its OpenAPI document.
pub fn routes() -> (Router<AppState>, OpenApi) {
    let groups = [email_password::router(), session::router(), meta::router()];
    let all = groups
        .into_iter()
        .fold(OpenApiRouter::new(), |all, group| all.merge(group.0));
    all.split_for_parts()
}

/// The whole HTTP surface: `/api/auth` (the routes and their document) and 404 elsewhere.
pub fn router(state: AppState) -> Router {
    let (auth, document) = routes();
    let document = crate::openapi::finish(document, &state.config.base_url);
    let auth = auth
        .merge(crate::openapi::router(document))
        .fallback(unmatched)
        .method_not_allowed_fallback(unmatched)
        .layer(axum::middleware::from_fn(crate::extract::response_cookies))
        .layer(Extension(state.clone()))
        .with_state(state);
    Router::new()
        .nest(crate::BASE_PATH, auth)
        .merge(gatehouse_kit::server::metrics_router())
        .fallback(not_found)
        .layer(axum::middleware::from_fn(
            gatehouse_kit::server::trace_request,
        ))
}

/// An unknown path or method under `/api/auth`: counted (one shared bucket), then 404.
async fn unmatched(State(state): State<AppState>, request: Request) -> Response {
    // Only the head: a body is not `Sync`, and nothing here reads it.
    let (parts, _) = request.into_parts();
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    match policy::check(
        &state,
        &parts.headers,
        peer,
        "/(unmatched)",
        RateRule::Default,
    )
    .await
    {
        Ok(()) => ApiError::NotFound.into_response(),
        Err(rejection) => rejection.into_response(),
    }
}

async fn not_found() -> ApiError {
    ApiError::NotFound
}
