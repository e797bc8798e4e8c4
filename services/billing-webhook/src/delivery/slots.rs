//! How many attempts each endpoint has in flight in this process. An endpoint at its limit
//! gets no more until one ends: its attempt is put off (its delivery left due in the database)
//! rather than holding one of the work queue's slots, and the scheduler claims for it only
//! the room it has, so one slow endpoint cannot take the queue (billing-webhooks reference §7:
//! per-endpoint throttling is ours to build).
//!
//! An endpoint that had to turn work away is *waiting*: when one of its attempts ends, the
//! scheduler is woken to claim its next due delivery at once ([`Slots::freed`]). So an
//! endpoint's throughput is its limit ÷ its answer time, not what a scheduler tick claims.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// A claim the scheduler made for an endpoint counts against its room until its attempt
/// starts here, or this long (another replica's worker may have taken the message).
const RESERVATION: Duration = Duration::from_secs(30);

#[derive(Default)]
struct Load {
    in_flight: usize,
    /// Claims whose attempt has not started yet.
    reserved: Vec<Instant>,
    /// Work was turned away for lack of room: an ending attempt wakes the scheduler.
    waiting: bool,
}

impl Load {
    fn expire_reservations(&mut self, now: Instant) {
        self.reserved
            .retain(|at| now.duration_since(*at) < RESERVATION);
    }

    fn idle(&self) -> bool {
        self.in_flight == 0 && self.reserved.is_empty() && !self.waiting
    }
}

#[derive(Default)]
struct Inner {
    endpoints: HashMap<String, Load>,
    /// Waiting endpoints with an attempt ended since the scheduler last looked.
    freed: HashSet<String>,
}

pub struct Slots {
    per_endpoint: usize,
    inner: Mutex<Inner>,
    /// Notified when a waiting endpoint's attempt ends.
    room: Notify,
}

/// An endpoint's slot, given back when dropped.
pub struct Slot<'a> {
    slots: &'a Slots,
    endpoint_id: String,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut inner = self.slots.lock();
        let Some(load) = inner.endpoints.get_mut(&self.endpoint_id) else {
            return;
        };
        load.in_flight = load.in_flight.saturating_sub(1);
        if load.waiting {
            inner.freed.insert(self.endpoint_id.clone());
            self.slots.room.notify_one();
        } else if load.idle() {
            inner.endpoints.remove(&self.endpoint_id);
        }
    }
}

impl Slots {
    pub fn new(per_endpoint: usize) -> Self {
        Self {
            per_endpoint: per_endpoint.max(1),
            inner: Mutex::default(),
            room: Notify::new(),
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

    /// A slot for `endpoint_id` (its attempt takes one of the scheduler's claims for it, if
    /// any), or `None` when it has none free: the endpoint is then waiting.
    pub fn acquire(&self, endpoint_id: &str) -> Option<Slot<'_>> {
        let now = Instant::now();
        let mut inner = self.lock();
        let load = inner.endpoints.entry(endpoint_id.to_string()).or_default();
        load.expire_reservations(now);
        if !load.reserved.is_empty() {
            load.reserved.remove(0);
        }
        if load.in_flight >= self.per_endpoint {
            load.waiting = true;
            return None;
        }
        load.in_flight += 1;
        Some(Slot {
            slots: self,
            endpoint_id: endpoint_id.to_string(),
        })
    }

    /// Takes one claim of `endpoint_id`'s room for the scheduler (`true`), or marks it
    /// waiting when it has none: its room less what is in flight and already claimed.
    pub fn reserve(&self, endpoint_id: &str) -> bool {
        let now = Instant::now();
        let mut inner = self.lock();
        let load = inner.endpoints.entry(endpoint_id.to_string()).or_default();
        load.expire_reservations(now);
        if load.in_flight + load.reserved.len() >= self.per_endpoint {
            load.waiting = true;
            return false;
        }
        load.reserved.push(now);
        true
    }

    /// Gives back a claim [`Self::reserve`] took that was not made after all.
    pub fn unreserve(&self, endpoint_id: &str) {
        let mut inner = self.lock();
        if let Some(load) = inner.endpoints.get_mut(endpoint_id) {
            load.reserved.pop();
        }
    }

    /// How many more claims `endpoint_id` has room for now.
    pub fn room(&self, endpoint_id: &str) -> usize {
        let now = Instant::now();
        let mut inner = self.lock();
        let Some(load) = inner.endpoints.get_mut(endpoint_id) else {
            return self.per_endpoint;
        };
        load.expire_reservations(now);
        self.per_endpoint
            .saturating_sub(load.in_flight + load.reserved.len())
    }

    /// `endpoint_id` has nothing more due: it is no longer waiting.
    pub fn drained(&self, endpoint_id: &str) {
        let mut inner = self.lock();
        if let Some(load) = inner.endpoints.get_mut(endpoint_id) {
            load.waiting = false;
            if load.idle() {
                inner.endpoints.remove(endpoint_id);
            }
        }
    }

    /// Waits until a waiting endpoint's attempt ended (at once if one did since the last
    /// call), then takes the endpoints that have room again.
    pub async fn freed(&self) -> Vec<String> {
        self.room.notified().await;
        self.lock().freed.drain().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_at_its_limit_gets_no_more_and_others_do() {
        let slots = Slots::new(2);
        let first = slots.acquire("slow").unwrap();
        let _second = slots.acquire("slow").unwrap();
        assert!(slots.acquire("slow").is_none());
        assert!(
            slots.acquire("fast").is_some(),
            "another endpoint has its own"
        );
        drop(first);
        assert!(slots.acquire("slow").is_some());
    }

    #[test]
    fn the_scheduler_claims_only_the_room_an_endpoint_has() {
        let slots = Slots::new(2);
        assert!(slots.reserve("a") && slots.reserve("a"));
        assert!(!slots.reserve("a"), "two claimed, none started");
        assert_eq!(slots.room("a"), 0);
        assert!(slots.reserve("b"));
        // The claimed attempts start: the claims become attempts in flight.
        let (one, _two) = (slots.acquire("a").unwrap(), slots.acquire("a").unwrap());
        assert!(!slots.reserve("a"));
        drop(one);
        assert_eq!(slots.room("a"), 1);
        assert!(slots.reserve("a"));
        slots.unreserve("a");
        assert_eq!(slots.room("a"), 1, "a claim not made is given back");
    }

    #[tokio::test]
    async fn an_ending_attempt_of_a_waiting_endpoint_wakes_the_scheduler() {
        let slots = Slots::new(1);
        let busy = slots.acquire("a").unwrap();
        let quiet = slots.acquire("b").unwrap();
        drop(quiet);
        assert!(slots.acquire("a").is_none(), "a turns work away: it waits");
        drop(busy);
        let freed = tokio::time::timeout(Duration::from_secs(1), slots.freed())
            .await
            .expect("woken");
        assert_eq!(freed, ["a"], "b turned nothing away");
        slots.drained("a");
        let again = slots.acquire("a").unwrap();
        drop(again);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), slots.freed())
                .await
                .is_err(),
            "drained: its attempts end unnoticed"
        );
        assert!(
            slots.lock().endpoints.is_empty(),
            "nothing kept for idle endpoints"
        );
    }
}
