//! Foreground work, counted so that background work of the same service can make room for it.
//!
//! A sender waiting on a request is foreground; the outbox relay and a consumer working
//! through a queue are background. Under a burst they compete for the same cores and the same
//! database, but only the sender is waiting: a request that times out is sent again (and the
//! billing intake's sender disables an endpoint that keeps failing), while held-back events
//! only wait a little longer, durable where they are.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Requests in flight at once from which they are a burst, not a trickle.
pub const BURST: usize = 8;

/// One service's requests in flight (each service part has its own: [`crate::service::Context`]).
/// Clones count the same requests. Only the requests a service counts ([`Foreground::enter`])
/// make its background work yield; a service that counts none is never busy.
#[derive(Clone, Debug, Default)]
pub struct Foreground {
    in_flight: Arc<AtomicUsize>,
}

impl Foreground {
    /// Counts a request until the guard is dropped.
    pub fn enter(&self) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight {
            in_flight: self.in_flight.clone(),
        }
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// A burst is in flight ([`BURST`] requests or more).
    pub fn busy(&self) -> bool {
        self.in_flight() >= BURST
    }
}

/// One request of a [`Foreground`], counted while it lives.
#[derive(Debug)]
pub struct InFlight {
    in_flight: Arc<AtomicUsize>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How a consumer makes room: while its service's foreground is busy, it handles at most
/// `concurrency` deliveries at once.
#[derive(Clone, Debug)]
pub struct Yield {
    pub to: Foreground,
    /// At least 1: background work slows down, it never stops.
    pub concurrency: u16,
}

impl Yield {
    /// How many things may run at once now, for background work that runs `full` when the
    /// foreground is quiet.
    pub fn limit(yielding: Option<&Yield>, full: u16) -> usize {
        let full = full.max(1);
        let now = match yielding {
            Some(yielding) if yielding.to.busy() => yielding.concurrency.clamp(1, full),
            _ => full,
        };
        usize::from(now)
    }
}

#[cfg(test)]
mod tests {
    use super::{BURST, Foreground, Yield};

    #[test]
    fn background_work_narrows_while_a_burst_is_in_flight_and_widens_after() {
        let foreground = Foreground::default();
        let yielding = Yield {
            to: foreground.clone(),
            concurrency: 2,
        };
        assert_eq!(Yield::limit(Some(&yielding), 8), 8);
        let mut requests: Vec<_> = (1..BURST).map(|_| foreground.enter()).collect();
        assert_eq!(Yield::limit(Some(&yielding), 8), 8, "a trickle");
        requests.push(foreground.clone().enter());
        assert_eq!(foreground.in_flight(), BURST);
        assert_eq!(Yield::limit(Some(&yielding), 8), 2);
        // Never wider than its own width, never stopped.
        assert_eq!(Yield::limit(Some(&yielding), 1), 1);
        let stopped = Yield {
            concurrency: 0,
            ..yielding.clone()
        };
        assert_eq!(Yield::limit(Some(&stopped), 8), 1);
        requests.pop();
        assert_eq!(Yield::limit(Some(&yielding), 8), 8);
        drop(requests);
        assert_eq!(foreground.in_flight(), 0);
        assert_eq!(Yield::limit(None, 0), 1);
    }
}
