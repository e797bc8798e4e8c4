//! A byte cache with expiry: Redis in distributed mode, process memory in standalone mode.
//! Callers treat it as an optimisation: every error means "read the database instead", so an
//! unreachable Redis slows requests down and never fails them. Deletes that could not reach
//! Redis are remembered and replayed before the cache is trusted again, so an entry removed
//! during an outage (a revoked session) is never served once Redis is back.

mod memory;
mod redis;

pub use self::memory::MemoryCache;
pub use self::redis::RedisCache;

use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("unsupported cache URL {0:?}: expected memory://, redis:// or rediss://")]
    UnsupportedUrl(String),
    #[error("CACHE_TLS_CA_FILE {path}: {source}")]
    TlsCa {
        path: String,
        source: std::io::Error,
    },
    #[error("redis: {0}")]
    Redis(#[from] ::redis::RedisError),
    #[error("redis did not answer within {0:?}")]
    Timeout(Duration),
    #[error("redis is unreachable; retrying")]
    Unavailable,
}

#[derive(Clone)]
pub enum Cache {
    Memory(Arc<MemoryCache>),
    Redis(Arc<RedisCache>),
}

impl Cache {
    /// `memory://` or `redis://host:port/db`. Redis connects lazily and reconnects by itself.
    pub fn from_url(url: &str, timeout: Duration) -> Result<Self, CacheError> {
        Self::connect(url, timeout, None)
    }

    /// [`from_url`](Self::from_url), with the PEM roots that verify a `rediss://` server
    /// (`None`: the system's).
    pub fn connect(
        url: &str,
        timeout: Duration,
        tls_ca: Option<Vec<u8>>,
    ) -> Result<Self, CacheError> {
        if url.starts_with("memory://") {
            Ok(Cache::Memory(MemoryCache::spawn(memory::DEFAULT_CAPACITY)))
        } else if url.starts_with("redis://") || url.starts_with("rediss://") {
            Ok(Cache::Redis(Arc::new(RedisCache::new(
                url, timeout, tls_ca,
            )?)))
        } else {
            Err(CacheError::UnsupportedUrl(crate::redact::redact_url(url)))
        }
    }

    /// For the start-up log: the kind of cache and where, without credentials.
    pub fn describe(&self) -> String {
        match self {
            Cache::Memory(_) => "memory://".into(),
            Cache::Redis(redis) => redis.describe(),
        }
    }

    pub async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, CacheError> {
        let result = match self {
            Cache::Memory(memory) => Ok(memory.get(key)),
            Cache::Redis(redis) => redis.get(key).await,
        };
        let outcome = match &result {
            Ok(Some(_)) => "hit",
            Ok(None) => "miss",
            Err(_) => "error",
        };
        metrics::counter!("cache_lookups_total", "result" => outcome).increment(1);
        result
    }

    pub async fn set(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), CacheError> {
        match self {
            Cache::Memory(memory) => {
                memory.set(key, value, ttl);
                Ok(())
            }
            Cache::Redis(redis) => redis.set(key, value, ttl).await,
        }
    }

    /// Stores `value` only if the key holds nothing live; `Ok(false)` when it did. Readers fill
    /// the cache this way, so they can never overwrite a newer write (a revocation marker).
    pub async fn set_if_absent(
        &self,
        key: &str,
        value: &[u8],
        ttl: Duration,
    ) -> Result<bool, CacheError> {
        match self {
            Cache::Memory(memory) => Ok(memory.set_if_absent(key, value, ttl)),
            Cache::Redis(redis) => redis.set_if_absent(key, value, ttl).await,
        }
    }

    /// Stores `value` unless the key currently holds a value starting with `guard` (a marker
    /// such as a revocation, which a refresh racing it must not overwrite); `Ok(false)` when it
    /// did.
    pub async fn set_unless(
        &self,
        key: &str,
        guard: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> Result<bool, CacheError> {
        match self {
            Cache::Memory(memory) => Ok(memory.set_unless(key, guard, value, ttl)),
            Cache::Redis(redis) => redis.set_unless(key, guard, value, ttl).await,
        }
    }

    /// Removes a key. A delete that cannot reach Redis is kept and retried before any later
    /// read is answered from the cache.
    pub async fn delete(&self, key: &str) -> Result<(), CacheError> {
        match self {
            Cache::Memory(memory) => {
                memory.delete(key);
                Ok(())
            }
            Cache::Redis(redis) => redis.delete(key).await,
        }
    }

    /// Removes a key if the cache can be reached now; nothing is remembered for later (for
    /// keys whose survival through an outage is harmless, unlike a revoked session's).
    pub async fn delete_soon(&self, key: &str) -> Result<(), CacheError> {
        match self {
            Cache::Memory(memory) => {
                memory.delete(key);
                Ok(())
            }
            Cache::Redis(redis) => redis.delete_soon(key).await,
        }
    }

    /// Counts a hit in the fixed window `key` lasting `window` from its first hit; returns the
    /// count so far and how long the window has left (rate limiting).
    pub async fn hit_window(
        &self,
        key: &str,
        window: Duration,
    ) -> Result<(u64, Duration), CacheError> {
        match self {
            Cache::Memory(memory) => Ok(memory.hit_window(key, window)),
            Cache::Redis(redis) => redis.hit_window(key, window).await,
        }
    }
}

/// The shared cache, with this process's memory standing in while it cannot be reached: for
/// counters that must keep counting through an outage (rate limits, sign-in attempts), where
/// counting per process beats not counting at all.
#[derive(Clone)]
pub struct WithFallback {
    shared: Cache,
    local: Cache,
}

impl WithFallback {
    pub fn new(shared: Cache) -> Self {
        Self {
            shared,
            local: Cache::Memory(MemoryCache::spawn(memory::DEFAULT_CAPACITY)),
        }
    }

    /// `op` on the shared cache, or on local memory when the shared one fails.
    pub async fn run<T, F, Fut>(&self, op: F) -> Result<T, CacheError>
    where
        F: Fn(Cache) -> Fut,
        Fut: Future<Output = Result<T, CacheError>>,
    {
        match op(self.shared.clone()).await {
            Ok(value) => Ok(value),
            Err(error) => {
                tracing::debug!(%error, "shared cache unavailable; counting in process memory");
                op(self.local.clone()).await
            }
        }
    }

    /// Removes `key` from both (the local one may have counted during an outage).
    pub async fn delete_soon(&self, key: &str) {
        let _ = self.shared.delete_soon(key).await;
        let _ = self.local.delete_soon(key).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn memory_entries_expire() {
        let cache = Cache::from_url("memory://", Duration::from_millis(50)).unwrap();
        cache
            .set("a", b"1", Duration::from_millis(30))
            .await
            .unwrap();
        assert_eq!(cache.get("a").await.unwrap().as_deref(), Some(&b"1"[..]));
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert_eq!(cache.get("a").await.unwrap(), None);
        cache.set("b", b"2", Duration::from_secs(5)).await.unwrap();
        cache.delete("b").await.unwrap();
        assert_eq!(cache.get("b").await.unwrap(), None);
    }

    #[test]
    fn bad_urls_are_reported_without_their_password() {
        let Err(error) =
            Cache::from_url("rediz://user:hunter2@cache:6379", Duration::from_millis(50))
        else {
            panic!("accepted a bad scheme");
        };
        let error = error.to_string();
        assert!(
            error.contains("rediz://user:***@cache:6379") && !error.contains("hunter2"),
            "{error}"
        );
        let Err(bus) = crate::bus::Bus::from_url("amqq://guest:hunter2@mq/%2f") else {
            panic!("accepted a bad scheme");
        };
        assert!(!bus.to_string().contains("hunter2"));
    }

    #[tokio::test]
    async fn set_if_absent_never_overwrites_a_live_entry() {
        let cache = Cache::from_url("memory://", Duration::from_millis(50)).unwrap();
        assert!(
            cache
                .set_if_absent("k", b"first", Duration::from_millis(30))
                .await
                .unwrap()
        );
        assert!(
            !cache
                .set_if_absent("k", b"second", Duration::from_secs(5))
                .await
                .unwrap()
        );
        assert_eq!(
            cache.get("k").await.unwrap().as_deref(),
            Some(&b"first"[..])
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert!(
            cache
                .set_if_absent("k", b"third", Duration::from_secs(5))
                .await
                .unwrap(),
            "expired entries do not count"
        );
    }

    #[tokio::test]
    async fn memory_windows_count_and_restart() {
        let cache = Cache::from_url("memory://", Duration::from_millis(50)).unwrap();
        let window = Duration::from_millis(40);
        assert_eq!(cache.hit_window("w", window).await.unwrap().0, 1);
        assert_eq!(cache.hit_window("w", window).await.unwrap().0, 2);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(cache.hit_window("w", window).await.unwrap().0, 1);
    }
}
