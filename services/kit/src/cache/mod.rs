//! A byte cache with expiry: Redis in distributed mode, process memory in standalone mode.
//! Callers treat it as an optimisation: every error means "read the database instead", so an
//! unreachable Redis slows requests down and never fails them. Deletes that could not reach
//! Redis are remembered and replayed before the cache is trusted again, so an entry removed
//! during an outage (a revoked session) is never served once Redis is back.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

const KEY_PREFIX: &str = "gatehouse:";
const SHARDS: usize = 16;
const MAX_ENTRIES_PER_SHARD: usize = 20_000;
const RECONNECT_INTERVAL: Duration = Duration::from_secs(1);
const WINDOW_PRUNE_AT: usize = 10_000;

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("unsupported cache URL {0:?}: expected memory:// or redis://")]
    UnsupportedUrl(String),
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
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
        if url.starts_with("memory://") {
            Ok(Cache::Memory(Arc::new(MemoryCache::default())))
        } else if url.starts_with("redis://") || url.starts_with("rediss://") {
            Ok(Cache::Redis(Arc::new(RedisCache {
                client: redis::Client::open(url)?,
                connection: RwLock::new(None),
                last_attempt: Mutex::new(None),
                pending_deletes: tokio::sync::Mutex::new(Vec::new()),
                has_pending: AtomicBool::new(false),
                timeout,
            })))
        } else {
            Err(CacheError::UnsupportedUrl(crate::config::redact_url(url)))
        }
    }

    /// For the start-up log: the kind of cache and where, without credentials.
    pub fn describe(&self) -> String {
        match self {
            Cache::Memory(_) => "memory://".into(),
            Cache::Redis(redis) => {
                let info = redis.client.get_connection_info();
                format!("redis://{}", info.addr())
            }
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

struct Entry {
    value: Arc<[u8]>,
    expires: Instant,
}

/// Sharded in-process map with per-entry expiry and a size bound.
#[derive(Default)]
pub struct MemoryCache {
    shards: [Mutex<HashMap<String, Entry>>; SHARDS],
    windows: Mutex<HashMap<String, (u64, Instant)>>,
}

impl MemoryCache {
    fn shard(&self, key: &str) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let index = (hasher.finish() as usize) % SHARDS;
        // A poisoned shard only means another thread panicked mid-insert; the map is intact.
        self.shards[index]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn get(&self, key: &str) -> Option<Vec<u8>> {
        let mut shard = self.shard(key);
        match shard.get(key) {
            Some(entry) if entry.expires > Instant::now() => Some(entry.value.to_vec()),
            Some(_) => {
                shard.remove(key);
                None
            }
            None => None,
        }
    }

    fn set(&self, key: &str, value: &[u8], ttl: Duration) {
        let mut shard = self.shard(key);
        Self::insert(&mut shard, key, value, ttl);
    }

    fn set_if_absent(&self, key: &str, value: &[u8], ttl: Duration) -> bool {
        let mut shard = self.shard(key);
        if shard.get(key).is_some_and(|e| e.expires > Instant::now()) {
            return false;
        }
        Self::insert(&mut shard, key, value, ttl);
        true
    }

    fn set_unless(&self, key: &str, guard: &[u8], value: &[u8], ttl: Duration) -> bool {
        let mut shard = self.shard(key);
        if shard
            .get(key)
            .is_some_and(|e| e.expires > Instant::now() && e.value.starts_with(guard))
        {
            return false;
        }
        Self::insert(&mut shard, key, value, ttl);
        true
    }

    fn insert(shard: &mut HashMap<String, Entry>, key: &str, value: &[u8], ttl: Duration) {
        let now = Instant::now();
        if shard.len() >= MAX_ENTRIES_PER_SHARD {
            shard.retain(|_, e| e.expires > now);
            if shard.len() >= MAX_ENTRIES_PER_SHARD {
                let victim = shard.keys().next().cloned();
                if let Some(victim) = victim {
                    shard.remove(&victim);
                }
            }
        }
        shard.insert(
            key.to_string(),
            Entry {
                value: value.into(),
                expires: now + ttl,
            },
        );
    }

    fn delete(&self, key: &str) {
        self.shard(key).remove(key);
    }

    fn hit_window(&self, key: &str, window: Duration) -> (u64, Duration) {
        let now = Instant::now();
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // Windows are short-lived: prune the expired ones whenever the map has grown.
        if windows.len() >= WINDOW_PRUNE_AT {
            windows.retain(|_, (_, ends)| *ends > now);
        }
        let slot = windows.entry(key.to_string()).or_insert((0, now + window));
        if slot.1 <= now {
            *slot = (0, now + window);
        }
        slot.0 += 1;
        (slot.0, slot.1 - now)
    }
}

pub struct RedisCache {
    client: redis::Client,
    connection: RwLock<Option<ConnectionManager>>,
    last_attempt: Mutex<Option<Instant>>,
    /// Keys whose delete could not reach Redis (this process only; see the README).
    pending_deletes: tokio::sync::Mutex<Vec<String>>,
    has_pending: AtomicBool,
    timeout: Duration,
}

impl RedisCache {
    async fn connection(&self) -> Result<ConnectionManager, CacheError> {
        if let Some(conn) = self.read_connection() {
            return Ok(conn);
        }
        {
            let mut last = self
                .last_attempt
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if last.is_some_and(|at| at.elapsed() < RECONNECT_INTERVAL) {
                return Err(CacheError::Unavailable);
            }
            *last = Some(Instant::now());
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let conn = tokio::time::timeout(
            self.timeout * 2,
            ConnectionManager::new_with_config(self.client.clone(), config),
        )
        .await
        .map_err(|_| CacheError::Timeout(self.timeout))??;
        *self
            .connection
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(conn.clone());
        tracing::info!("connected to redis");
        Ok(conn)
    }

    fn read_connection(&self) -> Option<ConnectionManager> {
        self.connection
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// A ready connection, after replaying deletes that failed earlier.
    async fn ready(&self) -> Result<ConnectionManager, CacheError> {
        let mut conn = self.connection().await?;
        if self.has_pending.load(Ordering::Acquire) {
            // Held across the replay: a concurrent reader waits for it instead of reading a
            // key that is about to be deleted, and new deletes queue behind it.
            let mut pending = self.pending_deletes.lock().await;
            if !pending.is_empty() {
                self.bounded(conn.del::<_, ()>(pending.as_slice())).await?;
                tracing::info!(
                    count = pending.len(),
                    "replayed cache deletes after an outage"
                );
                pending.clear();
            }
            self.has_pending.store(false, Ordering::Release);
        }
        Ok(conn)
    }

    async fn remember_deletes(&self, keys: Vec<String>) {
        let mut pending = self.pending_deletes.lock().await;
        pending.extend(keys);
        self.has_pending.store(true, Ordering::Release);
    }

    async fn bounded<T>(
        &self,
        fut: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, CacheError> {
        tokio::time::timeout(self.timeout, fut)
            .await
            .map_err(|_| CacheError::Timeout(self.timeout))?
            .map_err(CacheError::from)
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, CacheError> {
        let mut conn = self.ready().await?;
        self.bounded(conn.get(prefixed(key))).await
    }

    async fn set(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), CacheError> {
        let mut conn = self.ready().await?;
        let millis = ttl.as_millis().max(1) as u64;
        self.bounded(conn.pset_ex(prefixed(key), value, millis))
            .await
    }

    async fn set_if_absent(
        &self,
        key: &str,
        value: &[u8],
        ttl: Duration,
    ) -> Result<bool, CacheError> {
        let mut conn = self.ready().await?;
        let millis = ttl.as_millis().max(1) as u64;
        let stored: Option<String> = self
            .bounded(
                redis::cmd("SET")
                    .arg(prefixed(key))
                    .arg(value)
                    .arg("PX")
                    .arg(millis)
                    .arg("NX")
                    .query_async(&mut conn),
            )
            .await?;
        Ok(stored.is_some())
    }

    async fn set_unless(
        &self,
        key: &str,
        guard: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> Result<bool, CacheError> {
        let mut conn = self.ready().await?;
        let millis = ttl.as_millis().max(1) as u64;
        let stored: i64 = self
            .bounded(
                redis::cmd("EVAL")
                    .arg(SET_UNLESS_SCRIPT)
                    .arg(1)
                    .arg(prefixed(key))
                    .arg(guard)
                    .arg(value)
                    .arg(millis)
                    .query_async(&mut conn),
            )
            .await?;
        Ok(stored == 1)
    }

    async fn delete(&self, key: &str) -> Result<(), CacheError> {
        let full = prefixed(key);
        let result = match self.ready().await {
            Ok(mut conn) => self.bounded(conn.del::<_, ()>(&full)).await,
            Err(error) => Err(error),
        };
        if result.is_err() {
            self.remember_deletes(vec![full]).await;
        }
        result
    }

    async fn hit_window(&self, key: &str, window: Duration) -> Result<(u64, Duration), CacheError> {
        let mut conn = self.ready().await?;
        let millis = window.as_millis().max(1) as u64;
        let (count, ttl): (u64, i64) = self
            .bounded(
                redis::cmd("EVAL")
                    .arg(HIT_WINDOW_SCRIPT)
                    .arg(1)
                    .arg(prefixed(key))
                    .arg(millis)
                    .query_async(&mut conn),
            )
            .await?;
        Ok((count, Duration::from_millis(ttl.max(0) as u64)))
    }
}

/// Counts a hit and starts the window's expiry on the first one; atomic, and valid on every
/// Redis version (`PEXPIRE … NX` needs Redis 7).
const HIT_WINDOW_SCRIPT: &str = r"
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
";

/// `SET key value PX ms` unless the key holds a value starting with `guard`, atomically.
const SET_UNLESS_SCRIPT: &str = r"
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[1])) == ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
";

fn prefixed(key: &str) -> String {
    if key.starts_with(KEY_PREFIX) {
        key.to_string()
    } else {
        format!("{KEY_PREFIX}{key}")
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
