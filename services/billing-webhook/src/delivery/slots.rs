//! How many attempts each endpoint has in flight in this process. An endpoint at its limit
//! gets no more until one ends: its attempt is put off (its delivery due again about when one
//! of its attempts should have ended) rather than holding one of the work queue's slots, and
//! the scheduler claims for it only what it has room for, so one slow endpoint cannot take
//! the queue (billing-webhooks reference §7: per-endpoint throttling is ours to build).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an attempt is put off when nothing is known of its endpoint's pace yet.
const FIRST_GUESS: Duration = Duration::from_secs(1);
/// The shortest a put-off attempt waits.
const SHORTEST_WAIT: Duration = Duration::from_millis(200);
/// A claim the scheduler made for an endpoint counts against its room until its attempt
/// starts here, or this long (another replica's worker may have taken the message).
const RESERVATION: Duration = Duration::from_secs(30);

#[derive(Default)]
struct Load {
    /// When each attempt in flight started, by its slot's token.
    in_flight: Vec<(u64, Instant)>,
    /// Claims whose attempt has not started yet.
    reserved: Vec<Instant>,
    /// How long its last attempt took.
    last_duration: Option<Duration>,
}

impl Load {
    fn expire_reservations(&mut self, now: Instant) {
        self.reserved
            .retain(|at| now.duration_since(*at) < RESERVATION);
    }
}

#[derive(Default)]
struct Inner {
    endpoints: HashMap<String, Load>,
    next_token: u64,
}

pub struct Slots {
    per_endpoint: usize,
    longest_wait: Duration,
    inner: Mutex<Inner>,
}

/// An endpoint's slot, given back when dropped.
pub struct Slot<'a> {
    slots: &'a Slots,
    endpoint_id: String,
    token: u64,
    duration: Option<Duration>,
}

impl Slot<'_> {
    /// How long the attempt took: what the endpoint's next put-off waits.
    pub fn took(&mut self, duration: Duration) {
        self.duration = Some(duration);
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut inner = self.slots.lock();
        if let Some(load) = inner.endpoints.get_mut(&self.endpoint_id) {
            load.in_flight.retain(|(token, _)| *token != self.token);
            if self.duration.is_some() {
                load.last_duration = self.duration;
            }
        }
    }
}

impl Slots {
    /// `longest_wait`: what a put-off attempt waits at most (the attempt timeout).
    pub fn new(per_endpoint: usize, longest_wait: Duration) -> Self {
        Self {
            per_endpoint: per_endpoint.max(1),
            longest_wait: longest_wait.max(SHORTEST_WAIT),
            inner: Mutex::default(),
        }
    }

    pub fn per_endpoint(&self) -> usize {
        self.per_endpoint
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn slot(&self, inner: &mut Inner, endpoint_id: &str, now: Instant) -> Slot<'_> {
        inner.next_token += 1;
        let token = inner.next_token;
        inner
            .endpoints
            .entry(endpoint_id.to_string())
            .or_default()
            .in_flight
            .push((token, now));
        Slot {
            slots: self,
            endpoint_id: endpoint_id.to_string(),
            token,
            duration: None,
        }
    }

    /// A slot for `endpoint_id` (its attempt takes one of the scheduler's claims for it, if
    /// any), or how long to put the attempt off when it has none free: as long as its
    /// attempts have been taking, or its oldest one in flight has taken so far.
    pub fn acquire(&self, endpoint_id: &str) -> Result<Slot<'_>, Duration> {
        let now = Instant::now();
        let mut inner = self.lock();
        let load = inner.endpoints.entry(endpoint_id.to_string()).or_default();
        load.expire_reservations(now);
        if !load.reserved.is_empty() {
            load.reserved.remove(0);
        }
        if load.in_flight.len() >= self.per_endpoint {
            let oldest = load
                .in_flight
                .iter()
                .map(|(_, started)| now.duration_since(*started))
                .max()
                .unwrap_or_default();
            let pace = load.last_duration.unwrap_or(FIRST_GUESS).max(oldest);
            return Err(pace.clamp(SHORTEST_WAIT, self.longest_wait));
        }
        Ok(self.slot(&mut inner, endpoint_id, now))
    }

    /// A slot whether or not one is free (a replay someone asked for is not put off).
    pub fn force(&self, endpoint_id: &str) -> Slot<'_> {
        let mut inner = self.lock();
        self.slot(&mut inner, endpoint_id, Instant::now())
    }

    /// Claims the scheduler may still make for `endpoint_id`: its room less what is in flight
    /// and already claimed. Takes one when there is room (`true`).
    pub fn reserve(&self, endpoint_id: &str) -> bool {
        let now = Instant::now();
        let mut inner = self.lock();
        let load = inner.endpoints.entry(endpoint_id.to_string()).or_default();
        load.expire_reservations(now);
        if load.in_flight.len() + load.reserved.len() >= self.per_endpoint {
            return false;
        }
        load.reserved.push(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_at_its_limit_waits_as_long_as_it_answers_and_others_do_not() {
        let slots = Slots::new(2, Duration::from_secs(15));
        let mut first = slots.acquire("slow").unwrap();
        let _second = slots.acquire("slow").unwrap();
        assert_eq!(slots.acquire("slow").err(), Some(FIRST_GUESS));
        assert!(
            slots.acquire("fast").is_ok(),
            "another endpoint has its own"
        );
        first.took(Duration::from_secs(10));
        drop(first);
        let _third = slots.acquire("slow").unwrap();
        assert_eq!(slots.acquire("slow").err(), Some(Duration::from_secs(10)));
        let _forced = slots.force("slow");
        let mut quick = slots.acquire("fast").unwrap();
        quick.took(Duration::from_millis(3));
        drop(quick);
        let (_a, _b) = (
            slots.acquire("fast").unwrap(),
            slots.acquire("fast").unwrap(),
        );
        assert_eq!(slots.acquire("fast").err(), Some(SHORTEST_WAIT));
    }

    #[test]
    fn the_scheduler_claims_only_the_room_an_endpoint_has() {
        let slots = Slots::new(2, Duration::from_secs(15));
        assert!(slots.reserve("a") && slots.reserve("a"));
        assert!(!slots.reserve("a"), "two claimed, none started");
        assert!(slots.reserve("b"));
        // The claimed attempts start: the claims become attempts in flight.
        let (one, _two) = (slots.acquire("a").unwrap(), slots.acquire("a").unwrap());
        assert!(!slots.reserve("a"));
        drop(one);
        assert!(slots.reserve("a"));
    }
}
