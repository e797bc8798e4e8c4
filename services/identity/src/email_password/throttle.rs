//! Brute force slowed per account, whatever addresses it comes from. Every attempt that gets
//! to hash a password is counted *before* it hashes, and a success clears the count. The first
//! `after` attempts within `window` are free; after that an attempt must wait until the wait
//! set by the previous one is over (1 s after the `after`-th failure, doubling with each further
//! one up to `max_delay`), and only one attempt at a time can take that turn, so concurrent
//! guesses gain nothing. Attempts that must wait are refused with 429 and `X-Retry-After`
//! before any password is hashed, and are not counted.
//!
//! Refusing, rather than holding the request open for the delay (a tarpit), costs the server
//! nothing while the client waits, so waiting attackers cannot tie up connections with it.
//! Unknown identifiers are counted exactly like known ones, so the delay reveals nothing.
//! Counters live in the shared cache (Redis when distributed) under a hash of the identifier;
//! while it is unreachable they are kept in this process's memory instead.

use std::time::Duration;

use gatehouse_kit::cache::{Cache, WithFallback};
use gatehouse_kit::ids::sha256_hex;

#[derive(Clone, Copy, Debug)]
pub struct ThrottleRules {
    /// Attempts allowed without delay.
    pub after: u64,
    /// How long attempts are remembered.
    pub window: Duration,
    pub max_delay: Duration,
}

#[derive(Clone)]
pub struct SignInThrottle {
    store: WithFallback,
    rules: ThrottleRules,
}

/// An attempt let through: the `count`-th within the window.
#[derive(Clone, Copy, Debug)]
pub struct Attempt {
    count: u64,
}

fn keys(identifier: &str) -> (String, String) {
    let hashed = sha256_hex(identifier);
    (
        format!("sign-in:attempts:{hashed}"),
        format!("sign-in:wait:{hashed}"),
    )
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// How long the wait lasts once `count` attempts have failed.
fn delay(rules: &ThrottleRules, count: u64) -> Duration {
    if count < rules.after {
        return Duration::ZERO;
    }
    let doublings = (count - rules.after).min(16) as u32;
    Duration::from_secs(1)
        .saturating_mul(2u32.pow(doublings))
        .min(rules.max_delay)
}

impl SignInThrottle {
    pub fn new(shared: Cache, rules: ThrottleRules) -> Self {
        Self {
            store: WithFallback::new(shared),
            rules,
        }
    }

    /// How long the caller must still wait (`Err`), or the attempt it may make (`Ok`).
    pub async fn admit(&self, identifier: &str) -> Result<Attempt, Duration> {
        let (attempts, wait) = keys(identifier);
        if let Some(left) = self.wait_left(&wait).await {
            return Err(left);
        }
        let counted = self
            .store
            .run(|cache| {
                let attempts = attempts.clone();
                async move { cache.hit_window(&attempts, self.rules.window).await }
            })
            .await;
        let Ok((count, _)) = counted else {
            return Ok(Attempt { count: 0 });
        };
        if count <= self.rules.after {
            return Ok(Attempt { count });
        }
        // Past the allowance: take the turn, so concurrent attempts cannot all slip through
        // between one's failure and the wait it sets.
        let hold = delay(&self.rules, count - 1).max(Duration::from_secs(1));
        let until = (now_ms() + hold.as_millis() as u64).to_le_bytes();
        let took = self
            .store
            .run(|cache| {
                let wait = wait.clone();
                async move { cache.set_if_absent(&wait, &until, hold).await }
            })
            .await;
        match took {
            Ok(true) | Err(_) => Ok(Attempt { count }),
            Ok(false) => Err(self.wait_left(&wait).await.unwrap_or(hold)),
        }
    }

    async fn wait_left(&self, wait: &str) -> Option<Duration> {
        let stored = self
            .store
            .run(|cache| async move { cache.get(wait).await })
            .await
            .ok()??;
        let until = u64::from_le_bytes(stored.as_slice().try_into().ok()?);
        let now = now_ms();
        (until > now).then(|| Duration::from_millis(until - now))
    }

    /// The attempt failed: from the `after`-th on, the next one waits.
    pub async fn failed(&self, identifier: &str, attempt: Attempt) {
        let delay = delay(&self.rules, attempt.count);
        if delay.is_zero() {
            return;
        }
        metrics::counter!("sign_in_throttled_accounts_total").increment(1);
        let (_, wait) = keys(identifier);
        let until = (now_ms() + delay.as_millis() as u64).to_le_bytes();
        let stored = self
            .store
            .run(|cache| {
                let wait = wait.clone();
                async move { cache.set(&wait, &until, delay).await }
            })
            .await;
        if let Err(error) = stored {
            tracing::debug!(%error, "sign-in delay not stored");
        }
    }

    /// A successful sign-in: the account starts afresh (in both stores: the memory one may
    /// have counted during a cache outage).
    pub async fn succeeded(&self, identifier: &str) {
        let (attempts, wait) = keys(identifier);
        self.store.delete_soon(&attempts).await;
        self.store.delete_soon(&wait).await;
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

    /// One attempt that fails; the wait it leaves, in whole seconds.
    async fn fail(throttle: &SignInThrottle, who: &str) -> Option<u64> {
        let attempt = throttle.admit(who).await.expect("admitted");
        throttle.failed(who, attempt).await;
        let (_, wait) = keys(who);
        throttle
            .wait_left(&wait)
            .await
            .map(|left| left.as_secs_f64().round() as u64)
    }

    #[tokio::test]
    async fn delays_start_after_the_allowance_double_and_are_capped() {
        let throttle = throttle(4);
        assert_eq!(fail(&throttle, "a@example.com").await, None);
        assert_eq!(fail(&throttle, "a@example.com").await, None);
        let mut waits = vec![fail(&throttle, "a@example.com").await];
        for _ in 0..3 {
            // Each later attempt first waits out the previous one's delay.
            let (_, wait) = keys("a@example.com");
            let left = throttle.wait_left(&wait).await.unwrap();
            assert!(throttle.admit("a@example.com").await.is_err());
            tokio::time::sleep(left + Duration::from_millis(20)).await;
            waits.push(fail(&throttle, "a@example.com").await);
        }
        assert_eq!(
            waits,
            [Some(1), Some(2), Some(4), Some(4)],
            "doubling, capped"
        );
        assert!(
            throttle.admit("b@example.com").await.is_ok(),
            "another account is not slowed"
        );
        throttle.succeeded("a@example.com").await;
        assert_eq!(
            fail(&throttle, "a@example.com").await,
            None,
            "counting starts again"
        );
    }

    #[tokio::test]
    async fn past_the_allowance_only_one_concurrent_attempt_gets_a_turn() {
        let throttle = throttle(30);
        for _ in 0..3 {
            let attempt = throttle.admit("c@example.com").await.unwrap();
            throttle.failed("c@example.com", attempt).await;
        }
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let racing =
            futures_util::future::join_all((0..10).map(|_| throttle.admit("c@example.com"))).await;
        assert_eq!(
            racing.iter().filter(|r| r.is_ok()).count(),
            1,
            "one turn for ten concurrent attempts"
        );
    }

    #[tokio::test]
    async fn an_unreachable_cache_still_slows_guessing_in_memory() {
        let down = Cache::from_url("redis://127.0.0.1:1", Duration::from_millis(50)).unwrap();
        let throttle = SignInThrottle::new(
            down,
            ThrottleRules {
                after: 2,
                window: Duration::from_secs(900),
                max_delay: Duration::from_secs(30),
            },
        );
        for _ in 0..2 {
            let attempt = throttle.admit("d@example.com").await.unwrap();
            throttle.failed("d@example.com", attempt).await;
        }
        assert!(throttle.admit("d@example.com").await.is_err());
    }
}
