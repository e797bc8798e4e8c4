//! The in-memory rate-limit store under a flood of distinct keys (issue: a client minting
//! buckets must not make every request slow or the process large). Inserts 200,000 distinct
//! windows, then times single checks of known and of new keys, and reports the entries kept
//! and the process's RSS. Run by `bash bench/run-rate-limit-store.sh`.

use std::time::{Duration, Instant};

use gatehouse_kit::cache::MemoryCache;

const FLOOD: usize = 200_000;
const SAMPLES: usize = 100_000;

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmRSS:"))
                .and_then(|line| line.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1e6
}

fn time(label: &str, cache: &MemoryCache, keys: impl Iterator<Item = String>) {
    let window = Duration::from_secs(60);
    let mut samples: Vec<Duration> = keys
        .map(|key| {
            let started = Instant::now();
            std::hint::black_box(cache.hit_window(&key, window));
            started.elapsed()
        })
        .collect();
    samples.sort();
    println!(
        "{label}: p50={:.2}us p99={:.2}us max={:.2}us",
        percentile(&samples, 0.5),
        percentile(&samples, 0.99),
        percentile(&samples, 1.0)
    );
}

/// The foundation's store, for comparison: one lock, and past 10,000 windows every hit scanned
/// the whole map for expired ones.
struct FoundationStore(std::sync::Mutex<std::collections::HashMap<String, (u64, Instant)>>);

impl FoundationStore {
    fn hit_window(&self, key: &str, window: Duration) -> u64 {
        let now = Instant::now();
        let mut windows = self.0.lock().unwrap();
        if windows.len() >= 10_000 {
            windows.retain(|_, (_, ends)| *ends > now);
        }
        let slot = windows.entry(key.to_string()).or_insert((0, now + window));
        slot.0 += 1;
        slot.0
    }
}

fn foundation_for_comparison() {
    const FLOOD: usize = 20_000;
    let store = FoundationStore(Default::default());
    let window = Duration::from_secs(60);
    for n in 0..FLOOD {
        store.hit_window(&format!("rate:10.0.{}.{}|/x", n >> 8, n & 255), window);
    }
    let mut samples: Vec<Duration> = (0..2_000)
        .map(|n| {
            let key = format!("rate:10.0.{}.{}|/x", n >> 8, n & 255);
            let started = Instant::now();
            std::hint::black_box(store.hit_window(&key, window));
            started.elapsed()
        })
        .collect();
    samples.sort();
    println!(
        "foundation's store after {FLOOD} keys, check: p50={:.2}us p99={:.2}us (and growing with every key)",
        percentile(&samples, 0.5),
        percentile(&samples, 0.99)
    );
}

fn main() {
    foundation_for_comparison();
    let before = rss_mib();
    let cache = MemoryCache::default();
    let started = Instant::now();
    for n in 0..FLOOD {
        cache.hit_window(
            &format!(
                "rate:10.{}.{}.{}|/sign-in/email",
                n >> 16,
                (n >> 8) & 255,
                n & 255
            ),
            Duration::from_secs(60),
        );
    }
    let flood = started.elapsed();
    println!(
        "flood: {FLOOD} distinct keys in {:.0} ms ({:.2}us each); kept {} of capacity {}",
        flood.as_secs_f64() * 1000.0,
        flood.as_secs_f64() * 1e6 / FLOOD as f64,
        cache.len(),
        cache.capacity()
    );
    time(
        "check, known key",
        &cache,
        (0..SAMPLES).map(|n| {
            format!(
                "rate:10.{}.{}.{}|/sign-in/email",
                2,
                (n >> 8) & 255,
                n & 255
            )
        }),
    );
    time(
        "check, new key (evicts)",
        &cache,
        (0..SAMPLES).map(|n| format!("rate:172.16.{}.{}|/sign-in/email", (n >> 8) & 255, n & 255)),
    );
    let swept = Instant::now();
    let removed = cache.sweep();
    println!(
        "sweep of the full store: {:.1} ms ({removed} expired)",
        swept.elapsed().as_secs_f64() * 1000.0
    );
    println!(
        "entries={} capacity={} rss_before={before:.1}MiB rss_after={:.1}MiB",
        cache.len(),
        cache.capacity(),
        rss_mib()
    );
}
