//! `/api/auth` and `/api/billing`: one module per route group, each with a `router()` that registers its routes
//! together with their [`Policy`] (rate-limit rule, origin mode); the OpenAPI document comes
//! from the same registrations. Unknown paths and wrong methods answer 404 with an empty
//! body, as better-auth's router does, after counting against the default rate limit.

/// One route for [`Group::route`]: its handlers (documented by `#[utoipa::path]`) and what
/// their caller requirement refuses, read from the handler's types.
macro_rules! route {
    ($first:ident $(:: $rest:ident)* $(, $($more:tt)+)?) => {
        $crate::routes::Route {
            refusals: $crate::extract::refusals::of(&$first $(:: $rest)*),
            handlers: utoipa_axum::routes!($first $(:: $rest)* $(, $($more)+)?),
        }
    };
}

mod account;
mod admin;
mod api_key;
mod captcha;
mod customer;
mod delivery;
mod email_password;
mod email_verification;
mod endpoint;
mod intake;
mod invitation;
pub mod mailbox;
mod member;
mod meta;
mod organization;
mod password_reset;
mod provider_tokens;
mod session;
mod shared;
mod social;
mod team;
pub mod token;
mod two_factor;
mod username;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use utoipa::openapi::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

use crate::error::ApiError;
use crate::extract::Refusals;
use crate::policy::{self, Policy, RateRule};
use crate::state::AppState;

/// What `route!` makes: a path's handlers and what their requirement refuses. Handlers
/// registered together share one requirement (the first handler's is documented for all).
pub struct Route {
    pub refusals: Refusals,
    pub handlers: UtoipaMethodRouter<AppState>,
}

/// A route group under construction: every route is one [`Group::route`] line.
pub struct Group {
    router: OpenApiRouter<AppState>,
    /// Each path's rate-limit rule, also for the methods it does not answer.
    rules: Vec<(String, RateRule)>,
    /// Each path's requirement, as documented.
    refusals: Vec<(String, Refusals)>,
}

impl Group {
    pub fn new() -> Self {
        Group {
            router: OpenApiRouter::new(),
            rules: Vec::new(),
            refusals: Vec::new(),
        }
    }

    /// Registers `route` (made by `route!`) under `policy`; its document gains the 401 and
    /// 403 answers its requirement gives.
    pub fn route(mut self, route: Route, policy: Policy) -> Self {
        let Route {
            refusals,
            handlers: mut route,
        } = route;
        for (path, item) in route.1.paths.iter_mut() {
            self.rules.push((path.clone(), policy.rate));
            self.refusals.push((path.clone(), refusals));
            for operation in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
            ]
            .into_iter()
            .chain([&mut item.delete])
            .flatten()
            {
                refusals.document(operation);
            }
        }
        let guarded = OpenApiRouter::new()
            .routes(route)
            .route_layer(axum::middleware::from_fn(
                move |request: Request, next: axum::middleware::Next| {
                    policy::guard(policy, request, next)
                },
            ));
        self.router = self.router.merge(guarded);
        self
    }
}

impl Default for Group {
    fn default() -> Self {
        Self::new()
    }
}

/// Route groups put together, before the state is attached.
pub struct Assembled {
    pub router: Router<AppState>,
    pub document: OpenApi,
    /// Each path's rate-limit rule.
    pub rules: HashMap<String, RateRule>,
    /// Each path's requirement, as its document states it.
    pub refusals: HashMap<String, Refusals>,
}

/// Every `/api/auth` route group.
pub fn routes() -> Assembled {
    assemble([
        email_password::router(),
        username::router(),
        social::router(),
        provider_tokens::router(),
        api_key::router(),
        two_factor::router(),
        captcha::router(),
        session::router(),
        token::router(),
        account::router(),
        admin::router(),
        email_verification::router(),
        password_reset::router(),
        organization::router(),
        member::router(),
        invitation::router(),
        team::router(),
        meta::router(),
    ])
}

/// The `/api/billing` route groups: what an organization's owners and admins manage, and a
/// user's own billing state (the intake, for the payments platform, is apart: [`intake`]).
pub fn billing_routes() -> Assembled {
    assemble([endpoint::router(), delivery::router(), customer::router()])
}

fn assemble<const N: usize>(groups: [Group; N]) -> Assembled {
    let mut rules = HashMap::new();
    let mut refusals = HashMap::new();
    let mut all = OpenApiRouter::new();
    for group in groups {
        rules.extend(group.rules);
        refusals.extend(group.refusals);
        all = all.merge(group.router);
    }
    let (router, document) = all.split_for_parts();
    Assembled {
        router,
        document,
        rules,
        refusals,
    }
}

/// The whole HTTP surface: `/api/auth` and `/api/billing` (the routes and their documents),
/// 404 elsewhere under `/api`, and the web app (`WEB_DIR`) everywhere else.
pub fn router(state: AppState) -> Router {
    let dev_mailbox = mailbox::router().with_state(state.clone());
    let Assembled {
        router: billing,
        document: billing_document,
        ..
    } = billing_routes();
    let billing_document = crate::openapi::finish(
        billing_document,
        &state.config.base_url,
        crate::openapi::BILLING,
    );
    let billing = billing
        .merge(crate::openapi::router(
            billing_document,
            crate::openapi::BILLING,
            &crate::openapi::DocumentSettings::from(&state.config),
        ))
        .merge(intake::router())
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::extract::request_context,
        ))
        .with_state(state.clone());
    let web = state.config.web_dir.as_deref().and_then(|dir| {
        let widget = state.config.captcha.as_ref();
        let app = crate::web::router(
            dir,
            widget.map_or(&[], |c| c.provider.script_sources()),
            &state.config.brand,
        );
        if app.is_none() {
            tracing::warn!(
                web_dir = %dir.display(),
                "no web app build here (run `npm run build` in web/); / answers 404"
            );
        }
        app
    });
    let Assembled {
        router: auth,
        document,
        rules,
        ..
    } = routes();
    let document = crate::openapi::finish(document, &state.config.base_url, crate::openapi::AUTH);
    let rules = Arc::new(rules);
    let auth = auth
        .merge(crate::openapi::router(
            document,
            crate::openapi::AUTH,
            &crate::openapi::DocumentSettings::from(&state.config),
        ))
        .fallback(unmatched)
        .method_not_allowed_fallback(move |state: State<AppState>, request: Request| {
            wrong_method(state, rules.clone(), request)
        })
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::extract::request_context,
        ))
        .with_state(state);
    let api = Router::new()
        .nest(crate::BASE_PATH, auth)
        .nest(crate::BILLING_PATH, billing)
        .merge(dev_mailbox)
        .route("/api/{*rest}", axum::routing::any(not_found));
    let all = match web {
        Some(web) => api.fallback_service(web),
        None => api.fallback(not_found),
    };
    all.layer(axum::middleware::from_fn(
        gatehouse_kit::server::trace_request,
    ))
}

/// An unknown path or method under `/api/auth`: counted (one shared bucket), then 404.
async fn unmatched(State(state): State<AppState>, request: Request) -> Response {
    let client = policy::client_of(&request);
    match policy::check(&state, client, "/(unmatched)", RateRule::Default).await {
        Ok(()) => ApiError::NotFound.into_response(),
        Err(rejection) => rejection.into_response(),
    }
}

/// A known path with a method it does not answer: counted in that path's bucket under its
/// rule (better-auth keys limits by path, before routing), then 404.
async fn wrong_method(
    State(state): State<AppState>,
    rules: Arc<HashMap<String, RateRule>>,
    request: Request,
) -> Response {
    let client = policy::client_of(&request);
    let path = request
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "/(unmatched)".into());
    let relative = path.strip_prefix(crate::BASE_PATH).unwrap_or(&path);
    let rule = rules.get(relative).copied().unwrap_or_default();
    match policy::check(&state, client, &path, rule).await {
        Ok(()) => ApiError::NotFound.into_response(),
        Err(rejection) => rejection.into_response(),
    }
}

async fn not_found() -> ApiError {
    ApiError::NotFound
}
#[cfg(test)]
mod documents;
