//! The cached key set of one JWKS URL: fetched once, refreshed in the background when old,
//! refetched on demand at most once per interval, one fetch at a time.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;
use tokio::time::Instant;

use crate::Settings;
use crate::jwk::{self, Key};

/// A JWKS body larger than this is refused: a real one is a few kilobytes.
const MAX_BODY_BYTES: usize = 512 * 1024;

/// One successful fetch.
pub(crate) struct Snapshot {
    pub(crate) keys: Vec<Key>,
    pub(crate) generation: u64,
    fetched_at: Instant,
}

/// The outcome of one fetch, as its waiters see it: `None` until it is over.
type Outcome = Option<Result<Arc<Snapshot>, String>>;

pub(crate) struct Cache {
    url: url::Url,
    http: reqwest::Client,
    settings: Settings,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    current: Option<Arc<Snapshot>>,
    generation: u64,
    last_attempt: Option<Instant>,
    last_error: Option<String>,
    /// The fetch under way, if any: every caller that needs it waits on this one.
    in_flight: Option<watch::Receiver<Outcome>>,
}

/// What a caller asking for fresher keys gets.
pub(crate) enum Fresh {
    /// A set newer than the one the caller saw.
    Keys(Arc<Snapshot>),
    /// No newer set may be fetched yet (`min_refetch_interval`); carries the last fetch error
    /// if the last attempt failed.
    TooSoon(Option<String>),
    /// The fetch failed or timed out.
    Unavailable(String),
}

enum Start {
    Ready(Arc<Snapshot>),
    Wait(watch::Receiver<Outcome>),
    TooSoon(Option<String>),
}

impl Cache {
    pub(crate) fn new(url: url::Url, http: reqwest::Client, settings: Settings) -> Self {
        Self {
            url,
            http,
            settings,
            state: Mutex::new(State::default()),
        }
    }

    pub(crate) fn url(&self) -> &url::Url {
        &self.url
    }

    /// Never held across an await; a panic elsewhere while holding it leaves the state
    /// consistent enough (plain fields), so poisoning is ignored.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cached set, without waiting. An old set starts a background refresh and is still
    /// returned: a hung JWKS endpoint must not delay tokens whose key is known.
    pub(crate) fn cached(self: &Arc<Self>) -> Option<Arc<Snapshot>> {
        let current = self.lock().current.clone()?;
        if current.fetched_at.elapsed() >= self.settings.max_age {
            // The result is not awaited: waiters, if any, are the callers that need new keys.
            let _ = self.start(Some(current.generation));
        }
        Some(current)
    }

    /// A set newer than generation `seen` (`None`: the caller has none), fetching it if
    /// allowed, waiting at most `fetch_timeout`.
    pub(crate) async fn fresher(self: &Arc<Self>, seen: Option<u64>) -> Fresh {
        let mut receiver = match self.start(seen) {
            Start::Ready(snapshot) => return Fresh::Keys(snapshot),
            Start::TooSoon(error) => return Fresh::TooSoon(error),
            Start::Wait(receiver) => receiver,
        };
        let waited = tokio::time::timeout(
            self.settings.fetch_timeout,
            receiver.wait_for(Option::is_some),
        )
        .await;
        match waited {
            Ok(Ok(outcome)) => match outcome.as_ref() {
                Some(Ok(snapshot)) => Fresh::Keys(snapshot.clone()),
                Some(Err(error)) => Fresh::Unavailable(error.clone()),
                None => Fresh::Unavailable("the JWKS fetch ended without an outcome".into()),
            },
            Ok(Err(_)) => Fresh::Unavailable("the JWKS fetch was abandoned".into()),
            Err(_) => {
                Fresh::Unavailable(format!("no JWKS within {:?}", self.settings.fetch_timeout))
            }
        }
    }

    /// Joins the fetch under way, or starts one if the interval allows. The fetch runs in its
    /// own task so that a caller giving up (a dropped request) does not cancel it for the others.
    fn start(self: &Arc<Self>, seen: Option<u64>) -> Start {
        let mut state = self.lock();
        if let Some(current) = &state.current
            && Some(current.generation) != seen
        {
            return Start::Ready(current.clone());
        }
        // A receiver whose sender is gone belongs to a fetch task that died: start anew.
        if let Some(receiver) = &state.in_flight
            && receiver.has_changed().is_ok()
        {
            return Start::Wait(receiver.clone());
        }
        let now = Instant::now();
        if let Some(last) = state.last_attempt
            && now.duration_since(last) < self.settings.min_refetch_interval
        {
            return Start::TooSoon(state.last_error.clone());
        }
        state.last_attempt = Some(now);
        let (sender, receiver) = watch::channel(None);
        state.in_flight = Some(receiver.clone());
        drop(state);

        let cache = Arc::clone(self);
        tokio::spawn(async move {
            let fetched =
                match tokio::time::timeout(cache.settings.fetch_timeout, cache.fetch()).await {
                    Ok(fetched) => fetched,
                    Err(_) => Err(format!("no JWKS within {:?}", cache.settings.fetch_timeout)),
                };
            let outcome = cache.store(fetched);
            // Nobody waiting is fine: the state already holds the outcome.
            let _ = sender.send(Some(outcome));
        });
        Start::Wait(receiver)
    }

    fn store(&self, fetched: Result<Vec<Key>, String>) -> Result<Arc<Snapshot>, String> {
        let mut state = self.lock();
        state.in_flight = None;
        match fetched {
            Ok(keys) => {
                state.generation += 1;
                tracing::debug!(url = %self.url, keys = keys.len(), "JWKS fetched");
                let snapshot = Arc::new(Snapshot {
                    keys,
                    generation: state.generation,
                    fetched_at: Instant::now(),
                });
                state.current = Some(snapshot.clone());
                state.last_error = None;
                Ok(snapshot)
            }
            Err(error) => {
                // The old keys (if any) stay in use: a provider outage must not become ours.
                tracing::warn!(url = %self.url, %error, "JWKS fetch failed");
                state.last_error = Some(error.clone());
                Err(error)
            }
        }
    }

    async fn fetch(&self) -> Result<Vec<Key>, String> {
        let mut response = self
            .http
            .get(self.url.clone())
            .header(
                reqwest::header::ACCEPT,
                "application/jwk-set+json, application/json",
            )
            .timeout(self.settings.fetch_timeout)
            .send()
            .await
            .map_err(|e| format!("JWKS request failed: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("JWKS endpoint answered {status}"));
        }
        if response
            .content_length()
            .is_some_and(|len| len > MAX_BODY_BYTES as u64)
        {
            return Err("JWKS body too large".into());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("JWKS body unreadable: {e}"))?
        {
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err("JWKS body too large".into());
            }
            body.extend_from_slice(&chunk);
        }
        jwk::parse_set(&body)
    }
}
