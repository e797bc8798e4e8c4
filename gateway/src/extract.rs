//! The extractors every route uses. [`Input`] runs better-auth's pipeline in its order (§1.3):
//! parse the body → origin/CSRF → redirect targets → validation → the session requirement.
//! [`Session`], [`FreshSession`] and [`BareSession`] read the credential in one place (the
//! signed session cookie) and hand refreshed cookies to the [`response_cookies`] layer, which
//! adds them to whatever the handler answers. [`organization::Permitted`] adds a permission in
//! the organization the input names.

pub mod api_key;
pub mod organization;
pub mod refusals;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as identity_pb;
use gatehouse_proto::session::v1 as session_pb;
use serde::de::DeserializeOwned;

use crate::body;
use crate::client_ip::ClientIp;
use crate::error::ApiError;
use crate::origin;
pub use crate::request::{RequestMeta, ResponseCookies};
use crate::session_cookies;
use crate::state::AppState;
pub use refusals::Refusals;

/// The one middleware in front of every `/api/auth` route (one layer rather than three: each
/// layer costs allocations on every request). It gives the request the shared state (for the
/// policy guard), its [`ClientIp`] (decided once, see [`crate::client_ip`]) and a
/// [`ResponseCookies`], whose cookies it adds to whatever the handler answers.
pub async fn request_context(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0);
    let client =
        crate::client_ip::client_ip(request.headers(), peer, &state.config.trusted_proxies);
    let cookies = ResponseCookies::default();
    let extensions = request.extensions_mut();
    extensions.insert(ClientIp(client));
    extensions.insert(cookies.clone());
    extensions.insert(api_key::Memo::default());
    extensions.insert(state);
    let mut response = next.run(request).await;
    for cookie in cookies.take() {
        match HeaderValue::from_str(&cookie) {
            Ok(value) => {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
            Err(error) => tracing::error!(%error, "unencodable Set-Cookie value dropped"),
        }
    }
    response
}

/// A route's validated input (the JSON or form body; the query on GET) and its caller, read in
/// better-auth's order. `A` is what the route requires of its caller: a session requirement
/// ([`Anonymous`], [`Session`], [`FreshSession`], …) or a permission
/// ([`organization::Permitted`]).
pub struct Input<T, A = Anonymous> {
    pub body: T,
    pub auth: A,
    pub meta: RequestMeta,
}

/// An input type with no fields.
#[derive(Debug, Default, serde::Deserialize, utoipa::ToSchema)]
pub struct NoInput {}

impl<T, A> FromRequest<AppState> for Input<T, A>
where
    T: utoipa::PartialSchema + DeserializeOwned + Send + Sync,
    A: Admit<T>,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let (parts, body_stream) = request.into_parts();
        let mut meta = RequestMeta::from_parts(&parts);
        let schema = body::object_schema::<T>();
        let (location, mut raw) = if meta.reads_query() {
            ("query", Some(body::strings(meta.query.clone())))
        } else {
            let bytes = Bytes::from_request(Request::from_parts(parts, body_stream), state)
                .await
                .map_err(|_| ApiError::from(base::BAD_REQUEST))?;
            (
                "body",
                body::parse(&meta.headers, &bytes, meta.policy.accepts_form())?,
            )
        };
        meta.body_absent = location == "body" && raw.is_none();
        if let Some(raw) = raw.as_mut()
            && (location == "query" || body::is_form(&meta.headers))
        {
            body::coerce_strings(raw, schema.as_ref());
        }
        if !meta.reads_query() {
            origin::check_request(
                &meta.headers,
                &state.trusted,
                meta.policy.origin == crate::policy::OriginMode::FormLogin,
            )?;
            body::check_redirect_fields(raw.as_ref(), meta.query("callbackURL"), &state.trusted)?;
        } else if body::REDIRECT_FIELDS
            .iter()
            .any(|(field, _)| body::declares(schema.as_ref(), field))
        {
            // A GET route that takes a redirect target checks it like a POST would.
            body::check_redirect_fields(raw.as_ref(), None, &state.trusted)?;
        }
        let body = body::validate::<T>(location, raw.as_ref())?;
        let auth = A::admit(state, &meta, &body).await?;
        Ok(Input { body, auth, meta })
    }
}

/// What a route requires of its caller, checked after the input is valid; it may read the
/// input (the organization it names).
pub trait Admit<T>: Sized + Send {
    /// What it refuses before the handler runs: the route's documented 401 and 403.
    const REFUSALS: Refusals;

    fn admit(
        state: &AppState,
        meta: &RequestMeta,
        input: &T,
    ) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

impl<T: Sync, A: Authenticate> Admit<T> for A {
    const REFUSALS: Refusals = A::REFUSALS;

    async fn admit(state: &AppState, meta: &RequestMeta, _: &T) -> Result<Self, ApiError> {
        A::authenticate(state, meta).await
    }
}

/// A session requirement, checked after the input is valid.
pub trait Authenticate: Sized + Send {
    const REFUSALS: Refusals;

    fn authenticate(
        state: &AppState,
        meta: &RequestMeta,
    ) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

/// No session needed.
pub struct Anonymous;

impl Authenticate for Anonymous {
    const REFUSALS: Refusals = Refusals::NONE;

    async fn authenticate(_: &AppState, _: &RequestMeta) -> Result<Self, ApiError> {
        Ok(Anonymous)
    }
}

/// A signed-in caller (401 `UNAUTHORIZED` otherwise), read from the session service, so a
/// revoked session is refused at once.
#[derive(Clone, Debug)]
pub struct Session {
    pub session: session_pb::Session,
    pub user: identity_pb::User,
    /// Signed in less than `SESSION_FRESH_AGE` ago.
    pub fresh: bool,
}

impl Authenticate for Session {
    const REFUSALS: Refusals = Refusals::SIGNED_IN;

    async fn authenticate(state: &AppState, meta: &RequestMeta) -> Result<Self, ApiError> {
        // A key wins over a cookie, as in better-auth.
        if let Some(key) = api_key::presented(state, meta) {
            return api_key::session(state, meta, key).await;
        }
        let Some(token) = session_cookies::token(state, meta) else {
            return Err(base::UNAUTHORIZED.into());
        };
        let dont_remember = session_cookies::dont_remember(state, meta);
        let found = state
            .sessions
            .clone()
            .get_session(session_pb::GetSessionRequest {
                token,
                disable_refresh: dont_remember,
            })
            .await?
            .into_inner();
        let (Some(session), Some(user)) = (found.session, found.user) else {
            // A cookie we signed whose session is gone: clear it, as get-session does.
            meta.response_cookies.add(state.cookies.expire_session());
            return Err(base::UNAUTHORIZED.into());
        };
        if found.refreshed {
            let remember = session.remember_me && !dont_remember;
            let data = crate::wire::SessionWithUser {
                session: session.clone().into(),
                user: user.clone().into(),
            };
            meta.response_cookies
                .add(session_cookies::issue(state, meta, &data, remember));
        }
        Ok(Session {
            session,
            user,
            fresh: found.fresh,
        })
    }
}

/// A session when there is one: routes that answer both signed-in and signed-out callers.
#[derive(Clone, Debug)]
pub struct MaybeSession(pub Option<Session>);

impl Authenticate for MaybeSession {
    const REFUSALS: Refusals = Refusals::NONE;

    async fn authenticate(state: &AppState, meta: &RequestMeta) -> Result<Self, ApiError> {
        match Session::authenticate(state, meta).await {
            Ok(session) => Ok(MaybeSession(Some(session))),
            Err(ApiError::Failure(failure)) if failure.is(base::UNAUTHORIZED) => {
                Ok(MaybeSession(None))
            }
            Err(other) => Err(other),
        }
    }
}

/// A caller who signed in recently (`SESSION_FRESH_AGE`): 403 `SESSION_NOT_FRESH` otherwise.
#[derive(Clone, Debug)]
pub struct FreshSession(pub Session);

impl Authenticate for FreshSession {
    const REFUSALS: Refusals = Refusals::SIGNED_IN.forbidding(
        base::SESSION_NOT_FRESH,
        "signed in too long ago for this action",
    );

    async fn authenticate(state: &AppState, meta: &RequestMeta) -> Result<Self, ApiError> {
        let session = Session::authenticate(state, meta).await?;
        if !session.fresh {
            return Err(base::SESSION_NOT_FRESH.into());
        }
        Ok(FreshSession(session))
    }
}

/// A session read from the session service, else 401 with an empty body: what every admin
/// route requires (§10.5), and organization create and delete (§11.5). Whether the caller may
/// do the route's action is a rule of the service behind it, answered there with its own code.
#[derive(Clone, Debug)]
pub struct BareSession(pub Session);

impl Authenticate for BareSession {
    const REFUSALS: Refusals = Refusals::SIGNED_IN.empty_unauthorized();

    async fn authenticate(state: &AppState, meta: &RequestMeta) -> Result<Self, ApiError> {
        match Session::authenticate(state, meta).await {
            Ok(session) => Ok(BareSession(session)),
            Err(ApiError::Failure(failure)) if failure.is(base::UNAUTHORIZED) => {
                Err(ApiError::Bare(axum::http::StatusCode::UNAUTHORIZED))
            }
            Err(other) => Err(other),
        }
    }
}

/// A requirement the handler checks itself, once its own checks have passed (better-auth's
/// order on a few routes): documented as `A`'s, and `A` is had only through [`Later::check`].
pub struct Later<A>(std::marker::PhantomData<A>);

impl<A: Authenticate> Later<A> {
    pub async fn check(self, state: &AppState, meta: &RequestMeta) -> Result<A, ApiError> {
        A::authenticate(state, meta).await
    }
}

impl<A: Authenticate> Authenticate for Later<A> {
    const REFUSALS: Refusals = A::REFUSALS;

    async fn authenticate(_: &AppState, _: &RequestMeta) -> Result<Self, ApiError> {
        Ok(Later(std::marker::PhantomData))
    }
}

impl<A: Authenticate> axum::extract::FromRequestParts<AppState> for Later<A> {
    type Rejection = ApiError;

    async fn from_request_parts(
        _: &mut axum::http::request::Parts,
        _: &AppState,
    ) -> Result<Self, ApiError> {
        Ok(Later(std::marker::PhantomData))
    }
}

impl<A: Authenticate> refusals::Requirement for Later<A> {
    const REFUSALS: Refusals = A::REFUSALS;
}
