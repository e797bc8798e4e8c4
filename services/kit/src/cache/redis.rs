//! The Redis side of [`super::Cache`], with a circuit breaker: when Redis fails to answer, the
//! breaker opens and every call fails at once (callers fall back to the database) instead of
//! each waiting `CACHE_TIMEOUT_MS`. A background probe pings Redis at a growing interval
//! ([`FIRST_PROBE`] doubling to [`LAST_PROBE`]); when it answers, the deletes that could not be
//! sent during the outage are replayed, and only then is the breaker closed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::CacheError;

const KEY_PREFIX: &str = "gatehouse:";
/// Deferred deletes are replayed this many keys per command, each within the timeout.
const REPLAY_CHUNK: usize = 500;
/// Deferred deletes kept at most; past it, the oldest outage's work would exceed what a probe
/// can replay, so later deletes are counted as lost (`cache_deletes_lost_total`) and logged.
const MAX_PENDING_DELETES: usize = 200_000;
pub const FIRST_PROBE: Duration = Duration::from_millis(200);
pub const LAST_PROBE: Duration = Duration::from_secs(5);

pub struct RedisCache {
    client: redis::Client,
    connection: RwLock<Option<ConnectionManager>>,
    /// Keys whose delete could not reach Redis (this process only; see the README).
    pending_deletes: tokio::sync::Mutex<std::collections::HashSet<String>>,
    has_pending: AtomicBool,
    timeout: Duration,
    /// Open: Redis failed and the probe has not seen it answer since.
    open: AtomicBool,
    probing: Mutex<bool>,
}

impl RedisCache {
    pub fn new(url: &str, timeout: Duration, tls_ca: Option<Vec<u8>>) -> Result<Self, CacheError> {
        let client = match tls_ca {
            Some(root_cert) => redis::Client::build_with_tls(
                url,
                redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(root_cert),
                },
            )?,
            None => redis::Client::open(url)?,
        };
        Ok(Self {
            client,
            connection: RwLock::new(None),
            pending_deletes: tokio::sync::Mutex::new(std::collections::HashSet::new()),
            has_pending: AtomicBool::new(false),
            timeout,
            open: AtomicBool::new(false),
            probing: Mutex::new(false),
        })
    }

    pub fn describe(&self) -> String {
        let addr = self.client.get_connection_info().addr();
        match addr {
            redis::ConnectionAddr::TcpTls { .. } => format!("rediss://{addr}"),
            _ => format!("redis://{addr}"),
        }
    }

    /// Whether calls are currently refused without trying Redis.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
    }

    /// Runs `op` unless the breaker is open; an outage-like failure opens it.
    async fn guarded<T>(
        self: &Arc<Self>,
        op: impl Future<Output = Result<T, CacheError>>,
    ) -> Result<T, CacheError> {
        if self.is_open() {
            return Err(CacheError::Unavailable);
        }
        let result = op.await;
        if let Err(error) = &result
            && is_outage(error)
        {
            self.trip(error);
        }
        result
    }

    fn trip(self: &Arc<Self>, error: &CacheError) {
        if !self.open.swap(true, Ordering::AcqRel) {
            tracing::warn!(%error, "redis failed: serving without the cache until it answers");
            metrics::gauge!("cache_circuit_open").set(1.0);
        }
        let mut probing = self.probing.lock().unwrap_or_else(|p| p.into_inner());
        if !*probing {
            *probing = true;
            tokio::spawn(self.clone().probe());
        }
    }

    /// Pings at a growing interval until Redis answers and the deferred deletes are replayed.
    async fn probe(self: Arc<Self>) {
        let mut wait = FIRST_PROBE;
        loop {
            tokio::time::sleep(wait).await;
            match self.ping_and_replay().await {
                Ok(()) => break,
                Err(error) => {
                    tracing::debug!(%error, ?wait, "redis probe failed");
                    wait = (wait * 2).min(LAST_PROBE);
                }
            }
        }
        {
            // Closed under the lock: a trip in between starts a new probe rather than being
            // closed over by this one.
            let mut probing = self.probing.lock().unwrap_or_else(|p| p.into_inner());
            self.open.store(false, Ordering::Release);
            *probing = false;
        }
        metrics::gauge!("cache_circuit_open").set(0.0);
        tracing::info!("redis answers again: cache back in use");
    }

    async fn ping_and_replay(&self) -> Result<(), CacheError> {
        let mut conn = self.connection().await?;
        let _: String = self
            .bounded(redis::cmd("PING").query_async(&mut conn))
            .await?;
        self.replay(&mut conn).await
    }

    async fn connection(&self) -> Result<ConnectionManager, CacheError> {
        if let Some(conn) = self
            .connection
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
        {
            return Ok(conn);
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

    /// Sends the deletes that failed earlier. Holds the queue while it does: a reader that
    /// came in meanwhile waits rather than reads a key about to be deleted.
    async fn replay(&self, conn: &mut ConnectionManager) -> Result<(), CacheError> {
        if !self.has_pending.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut pending = self.pending_deletes.lock().await;
        let total = pending.len();
        while !pending.is_empty() {
            let chunk: Vec<String> = pending.iter().take(REPLAY_CHUNK).cloned().collect();
            self.bounded(conn.del::<_, ()>(chunk.as_slice())).await?;
            for key in &chunk {
                pending.remove(key);
            }
        }
        if total > 0 {
            tracing::info!(count = total, "replayed cache deletes after an outage");
        }
        self.has_pending.store(false, Ordering::Release);
        Ok(())
    }

    /// A ready connection, after replaying deletes that failed earlier.
    async fn ready(&self) -> Result<ConnectionManager, CacheError> {
        let mut conn = self.connection().await?;
        self.replay(&mut conn).await?;
        Ok(conn)
    }

    async fn remember_delete(&self, key: String) {
        let mut pending = self.pending_deletes.lock().await;
        if pending.len() >= MAX_PENDING_DELETES && !pending.contains(&key) {
            metrics::counter!("cache_deletes_lost_total").increment(1);
            tracing::error!("too many cache deletes deferred during this outage; one was dropped");
            return;
        }
        pending.insert(key);
        self.has_pending.store(true, Ordering::Release);
    }

    async fn bounded<T>(
        &self,
        fut: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, CacheError> {
        tokio::time::timeout(self.timeout, fut)
            .await
            .map_err(|_| CacheError::Timeout(self.timeout))?
            .map_err(CacheError::from)
    }

    pub async fn get(self: &Arc<Self>, key: &str) -> Result<Option<Vec<u8>>, CacheError> {
        self.guarded(async {
            let mut conn = self.ready().await?;
            self.bounded(conn.get(prefixed(key))).await
        })
        .await
    }

    pub async fn set(
        self: &Arc<Self>,
        key: &str,
        value: &[u8],
        ttl: Duration,
    ) -> Result<(), CacheError> {
        self.guarded(async {
            let mut conn = self.ready().await?;
            let millis = ttl.as_millis().max(1) as u64;
            self.bounded(conn.pset_ex(prefixed(key), value, millis))
                .await
        })
        .await
    }

    pub async fn set_if_absent(
        self: &Arc<Self>,
        key: &str,
        value: &[u8],
        ttl: Duration,
    ) -> Result<bool, CacheError> {
        self.guarded(async {
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
        })
        .await
    }

    pub async fn set_unless(
        self: &Arc<Self>,
        key: &str,
        guard: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> Result<bool, CacheError> {
        self.guarded(async {
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
        })
        .await
    }

    /// A delete that cannot be sent (breaker open included) is remembered and replayed
    /// before the cache is used again.
    pub async fn delete(self: &Arc<Self>, key: &str) -> Result<(), CacheError> {
        let result = self.delete_soon(key).await;
        if result.is_err() {
            self.remember_delete(prefixed(key)).await;
        }
        result
    }

    /// A delete that is simply skipped when Redis cannot take it now.
    pub async fn delete_soon(self: &Arc<Self>, key: &str) -> Result<(), CacheError> {
        let full = prefixed(key);
        self.guarded(async {
            let mut conn = self.ready().await?;
            self.bounded(conn.del::<_, ()>(&full)).await
        })
        .await
    }

    pub async fn hit_window(
        self: &Arc<Self>,
        key: &str,
        window: Duration,
    ) -> Result<(u64, Duration), CacheError> {
        self.guarded(async {
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
        })
        .await
    }
}

/// Failures that say Redis is not there (rather than that one command was wrong).
fn is_outage(error: &CacheError) -> bool {
    match error {
        CacheError::Timeout(_) | CacheError::Unavailable => true,
        CacheError::Redis(error) => {
            error.is_io_error()
                || error.is_connection_refusal()
                || error.is_connection_dropped()
                || error.is_timeout()
                || error.is_unrecoverable_error()
        }
        CacheError::UnsupportedUrl(_) | CacheError::TlsCa { .. } => false,
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
