//! The session's cookies as better-auth issues and reads them: the signed token (a
//! browser-session cookie when not remembered), the `dont_remember` marker, and the
//! `session_data` cookie cache when it is on.

use crate::cookie_cache;
use crate::cookies;
use crate::request::RequestMeta;
use crate::state::AppState;
use crate::wire::SessionWithUser;

/// The verified session token from the request's cookie.
pub fn token(state: &AppState, meta: &RequestMeta) -> Option<String> {
    let raw = meta.cookie(&state.cookies.names.session_token)?;
    cookies::verify_any(&state.config.secrets, &raw)
}

/// Whether the caller signed in with `rememberMe: false` (a signed `dont_remember` marker).
pub fn dont_remember(state: &AppState, meta: &RequestMeta) -> bool {
    meta.cookie(&state.cookies.names.dont_remember)
        .and_then(|raw| cookies::verify_any(&state.config.secrets, &raw))
        .is_some_and(|v| v == "true")
}

/// The cookies of a new (or slid) session.
pub fn issue(
    state: &AppState,
    meta: &RequestMeta,
    data: &SessionWithUser,
    remember: bool,
) -> Vec<String> {
    let names = &state.cookies.names;
    let secret = state.config.secret();
    let max_age = remember.then_some(state.config.cookies.session_max_age.as_secs());
    let mut out = vec![state.cookies.set(
        &names.session_token,
        &cookies::sign(secret, &data.session.token),
        max_age,
    )];
    if !remember {
        out.push(
            state
                .cookies
                .set(&names.dont_remember, &cookies::sign(secret, "true"), None),
        );
    } else if meta.cookie(&names.dont_remember).is_some() {
        out.push(state.cookies.expire(&names.dont_remember));
    }
    out.extend(cache(state, data, remember));
    out
}

static REFUSAL_LOGGED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `session_data` when the cookie cache is on; refused (and logged) rather than sent when it
/// is larger than browsers keep.
pub fn cache(state: &AppState, data: &SessionWithUser, remember: bool) -> Option<String> {
    let settings = &state.config.cookies;
    if !settings.cache_enabled {
        return None;
    }
    let max_age = settings.cache_max_age;
    let value = cookie_cache::encode(
        state.config.secret(),
        data,
        gatehouse_kit::ids::now().timestamp_millis(),
        max_age.as_millis() as i64,
    );
    let cookie = state.cookies.set(
        &state.cookies.names.session_data,
        &value,
        remember.then_some(max_age.as_secs()),
    );
    if cookie.len() > cookie_cache::MAX_SET_COOKIE_LENGTH {
        metrics::counter!("session_data_cookie_refused_total").increment(1);
        // Once per process: the same user's every request would hit this again, and an error
        // per request would drown the log (and cost a write each time).
        if !REFUSAL_LOGGED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::error!(
                length = cookie.len(),
                limit = cookie_cache::MAX_SET_COOKIE_LENGTH,
                "session_data cookie refused: it is larger than browsers keep. Disable cookie caching (COOKIE_CACHE_ENABLED=false) or reduce the session data; further refusals are counted in session_data_cookie_refused_total"
            );
        }
        return None;
    }
    Some(cookie)
}
