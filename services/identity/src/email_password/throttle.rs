//! Brute force slowed per account, whatever addresses it comes from. After `after` failed
//! sign-ins for one identifier within `window`, each further failure makes the next attempt wait
//! 1 s, then 2 s, 4 s … up to `max_delay`; until then attempts are refused with 429 and
//! `X-Retry-After` before any password is hashed. A successful sign-in clears the count.
//!
//! Refusing, rather than holding the request open for the delay (a tarpit), costs the server
//! nothing while it waits, so waiting attackers cannot use it to tie up connections. Unknown
//! identifiers are counted exactly like known ones, so the delay reveals nothing. Counters live
//! in the shared cache (Redis when distributed) under a hash of the identifier; if the cache is
//! unreachable the check lets attempts through (the gateway's per-IP limits still apply).

use std::time::Duration;

use gatehouse_kit::cache::Cache;
use gatehouse_kit::ids::sha256_hex;

#[derive(Clone, Copy, Debug)]
pub struct ThrottleRules {
    /// Failures allowed without delay.
    pub after: u64,
    /// How long failures are remembered.
    pub window: Duration,
    pub max_delay: Duration,
}

#[derive(Clone)]
pub struct SignInThrottle {
    cache: Cache,
    rules: ThrottleRules,
}

fn keys(identifier: &str) -> (String, String) {
    let hashed = sha256_hex(identifier);
    (
        format!("sign-in:failures:{hashed}"),
        format!("sign-in:wait:{hashed}"),
    )
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl SignInThrottle {
    pub fn new(cache: Cache, rules: ThrottleRules) -> Self {
        Self { cache, rules }
    }

    /// How long `identifier` must still wait, if it must.
    pub async fn wait_left(&self, identifier: &str) -> Option<Duration> {
        let (_, wait) = keys(identifier);
        let until = self.cache.get(&wait).await.ok()??;
        let until = u64::from_le_bytes(until.as_slice().try_into().ok()?);
        let now = now_ms();
        (until > now).then(|| Duration::from_millis(until - now))
    }

    /// Counts a failure; from the `after`-th on, starts the next wait.
    pub async fn failed(&self, identifier: &str) {
        let (failures, wait) = keys(identifier);
        let Ok((count, _)) = self.cache.hit_window(&failures, self.rules.window).await else {
            return;
        };
        if count < self.rules.after {
            return;
        }
        let doublings = (count - self.rules.after).min(16) as u32;
        let delay = Duration::from_secs(1)
            .saturating_mul(2u32.pow(doublings))
            .min(self.rules.max_delay);
        if delay.is_zero() {
            return;
        }
        metrics::counter!("sign_in_throttled_accounts_total").increment(1);
        let until = now_ms() + delay.as_millis() as u64;
        if let Err(error) = self.cache.set(&wait, &until.to_le_bytes(), delay).await {
            tracing::debug!(%error, "sign-in delay not stored");
        }
    }

    /// A successful sign-in: the account starts afresh.
    pub async fn succeeded(&self, identifier: &str) {
        let (failures, wait) = keys(identifier);
        let _ = self.cache.delete(&failures).await;
        let _ = self.cache.delete(&wait).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throttle(max_delay: u64) -> SignInThrottle {
        let cache = Cache::from_url("memory://", Duration::from_millis(50)).unwrap();
        SignInThrottle::new(
            cache,
            ThrottleRules {
                after: 3,
                window: Duration::from_secs(900),
                max_delay: Duration::from_secs(max_delay),
            },
        )
    }

    #[tokio::test]
    async fn delays_start_after_the_allowance_double_and_are_capped() {
        let throttle = throttle(4);
        for _ in 0..2 {
            throttle.failed("a@example.com").await;
            assert_eq!(throttle.wait_left("a@example.com").await, None);
        }
        let mut waits = Vec::new();
        for _ in 0..4 {
            throttle.failed("a@example.com").await;
            let left = throttle.wait_left("a@example.com").await.unwrap();
            waits.push(left.as_secs_f64().round() as u64);
        }
        assert_eq!(waits, [1, 2, 4, 4], "1 s doubling, capped");
        assert_eq!(
            throttle.wait_left("b@example.com").await,
            None,
            "another account is not slowed"
        );
        throttle.succeeded("a@example.com").await;
        assert_eq!(throttle.wait_left("a@example.com").await, None);
        throttle.failed("a@example.com").await;
        assert_eq!(
            throttle.wait_left("a@example.com").await,
            None,
            "counting starts again"
        );
    }
}
