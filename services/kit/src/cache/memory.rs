//! The in-process cache and rate-limit store (standalone mode, and the gateway's fallback when
//! Redis is down). Anyone who can send requests decides how many keys it holds (one window per
//! client address and path), so it is built to stay small and fast whatever they send:
//!
//! - [`SHARDS`] independently locked shards, so one busy key does not serialise the rest;
//! - at most `capacity` entries: a full shard drops what has expired (at most once per
//!   [`PRUNE_AT_MOST_EVERY`], so a flood does not scan on every insert), then evicts an arbitrary
//!   live entry (losing one client's window is better than growing without bound);
//! - a background sweep every [`SWEEP_EVERY`] removes expired entries one shard at a time, so no
//!   request ever pays for a scan of the whole map.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

pub const SHARDS: usize = 64;
/// Entries kept at most, across all shards, unless told otherwise.
pub const DEFAULT_CAPACITY: usize = 131_072;
pub const SWEEP_EVERY: Duration = Duration::from_secs(10);
pub const PRUNE_AT_MOST_EVERY: Duration = Duration::from_secs(1);

enum Value {
    Bytes(Arc<[u8]>),
    /// A fixed rate-limit window: hits so far.
    Window(u64),
}

struct Entry {
    value: Value,
    expires: Instant,
}

struct Shard {
    entries: HashMap<Box<str>, Entry>,
    pruned_at: Option<Instant>,
}

impl Shard {
    fn prune(&mut self, now: Instant) -> usize {
        let before = self.entries.len();
        self.entries.retain(|_, entry| entry.expires > now);
        self.pruned_at = Some(now);
        before - self.entries.len()
    }
}

pub struct MemoryCache {
    shards: Box<[Mutex<Shard>]>,
    hasher: RandomState,
    per_shard: usize,
}

impl Default for MemoryCache {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }
}

impl MemoryCache {
    pub fn with_capacity(capacity: usize) -> Self {
        let per_shard = capacity.div_ceil(SHARDS).max(1);
        Self {
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        entries: HashMap::new(),
                        pruned_at: None,
                    })
                })
                .collect(),
            // Seeded per process: a client cannot aim its keys at one shard.
            hasher: RandomState::new(),
            per_shard,
        }
    }

    /// A new cache with its background sweep (when called inside a Tokio runtime). The sweep
    /// stops when the cache is dropped.
    pub fn spawn(capacity: usize) -> Arc<Self> {
        let cache = Arc::new(Self::with_capacity(capacity));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let weak = Arc::downgrade(&cache);
            runtime.spawn(sweep_forever(weak));
        }
        cache
    }

    fn shard(&self, key: &str) -> MutexGuard<'_, Shard> {
        let index = (self.hasher.hash_one(key) as usize) % self.shards.len();
        // A poisoned shard only means another thread panicked mid-insert; the map is intact.
        self.shards[index]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Live entries right now (expired ones not yet swept included).
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|p| p.into_inner()).entries.len())
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most entries this cache will hold.
    pub fn capacity(&self) -> usize {
        self.per_shard * self.shards.len()
    }

    /// Removes expired entries, one shard at a time; returns how many.
    pub fn sweep(&self) -> usize {
        let now = Instant::now();
        let mut removed = 0;
        for shard in self.shards.iter() {
            removed += shard.lock().unwrap_or_else(|p| p.into_inner()).prune(now);
        }
        removed
    }

    pub fn get(&self, key: &str) -> Option<Vec<u8>> {
        let mut shard = self.shard(key);
        let now = Instant::now();
        match shard.entries.get(key) {
            Some(Entry {
                value: Value::Bytes(bytes),
                expires,
            }) if *expires > now => Some(bytes.to_vec()),
            Some(entry) if entry.expires <= now => {
                shard.entries.remove(key);
                None
            }
            _ => None,
        }
    }

    pub fn set(&self, key: &str, value: &[u8], ttl: Duration) {
        let mut shard = self.shard(key);
        self.insert(&mut shard, key, Value::Bytes(value.into()), ttl);
    }

    pub fn set_if_absent(&self, key: &str, value: &[u8], ttl: Duration) -> bool {
        let mut shard = self.shard(key);
        if shard
            .entries
            .get(key)
            .is_some_and(|e| e.expires > Instant::now())
        {
            return false;
        }
        self.insert(&mut shard, key, Value::Bytes(value.into()), ttl);
        true
    }

    pub fn set_unless(&self, key: &str, guard: &[u8], value: &[u8], ttl: Duration) -> bool {
        let mut shard = self.shard(key);
        let guarded = shard.entries.get(key).is_some_and(|e| {
            e.expires > Instant::now()
                && matches!(&e.value, Value::Bytes(b) if b.starts_with(guard))
        });
        if guarded {
            return false;
        }
        self.insert(&mut shard, key, Value::Bytes(value.into()), ttl);
        true
    }

    pub fn delete(&self, key: &str) {
        self.shard(key).entries.remove(key);
    }

    /// Counts a hit in the fixed window `key`; returns the count and the time the window has
    /// left.
    pub fn hit_window(&self, key: &str, window: Duration) -> (u64, Duration) {
        let now = Instant::now();
        let mut shard = self.shard(key);
        if let Some(entry) = shard.entries.get_mut(key)
            && entry.expires > now
            && let Value::Window(count) = &mut entry.value
        {
            *count += 1;
            return (*count, entry.expires - now);
        }
        self.insert(&mut shard, key, Value::Window(1), window);
        (1, window)
    }

    fn insert(&self, shard: &mut Shard, key: &str, value: Value, ttl: Duration) {
        let now = Instant::now();
        if shard.entries.len() >= self.per_shard && !shard.entries.contains_key(key) {
            if shard
                .pruned_at
                .is_none_or(|at| now.duration_since(at) >= PRUNE_AT_MOST_EVERY)
            {
                shard.prune(now);
            }
            if shard.entries.len() >= self.per_shard {
                // Prefer a rate-limit window among the first few: values include markers
                // (a revoked session's) that are worth more than one client's count.
                let victim = shard
                    .entries
                    .iter()
                    .take(8)
                    .find(|(_, entry)| matches!(entry.value, Value::Window(_)))
                    .or_else(|| shard.entries.iter().next())
                    .map(|(key, _)| key.clone());
                if let Some(victim) = victim {
                    shard.entries.remove(&victim);
                    metrics::counter!("memory_cache_evictions_total").increment(1);
                }
            }
        }
        shard.entries.insert(
            key.into(),
            Entry {
                value,
                expires: now + ttl,
            },
        );
    }
}

async fn sweep_forever(cache: Weak<MemoryCache>) {
    loop {
        tokio::time::sleep(SWEEP_EVERY).await;
        let Some(cache) = cache.upgrade() else {
            return;
        };
        // Off the async runtime: with a full cache this is milliseconds of work.
        let swept = tokio::task::spawn_blocking(move || cache.sweep()).await;
        if let Ok(count) = swept
            && count > 0
        {
            tracing::debug!(count, "swept expired in-memory cache entries");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_distinct_keys_stays_within_capacity() {
        let cache = MemoryCache::with_capacity(10_000);
        let window = Duration::from_secs(60);
        for n in 0..200_000 {
            cache.hit_window(&format!("rate:198.51.{n}|/sign-in/email"), window);
        }
        assert!(cache.len() <= cache.capacity(), "{}", cache.len());
        assert!(cache.capacity() < 10_100);
        // The store still counts: a key used now is counted from 1 and then 2.
        assert_eq!(cache.hit_window("rate:me", window).0, 1);
        assert_eq!(cache.hit_window("rate:me", window).0, 2);
    }

    #[test]
    fn expired_entries_are_swept_and_never_served() {
        let cache = MemoryCache::with_capacity(100_000);
        for n in 0..500 {
            cache.set(&format!("k{n}"), b"v", Duration::from_millis(20));
        }
        cache.set("live", b"v", Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(cache.get("k1"), None);
        assert_eq!(cache.sweep(), 499, "k1 went on read");
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get("live").as_deref(), Some(&b"v"[..]));
    }

    #[test]
    fn windows_and_values_do_not_mix() {
        let cache = MemoryCache::with_capacity(100);
        cache.set("k", b"bytes", Duration::from_secs(5));
        assert_eq!(cache.hit_window("k", Duration::from_secs(5)).0, 1);
        assert_eq!(cache.get("k"), None, "a window is not a value");
    }
}
