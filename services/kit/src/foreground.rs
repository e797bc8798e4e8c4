//! Foreground work, counted so that background work of the same process can make room for it.
//!
//! A sender waiting on a request is foreground; a consumer working through a queue is
//! background. Under a burst both compete for the same cores and the same database; the
//! queue only grows longer while the consumer makes room, but a request that times out is
//! sent again (and the billing intake's sender disables an endpoint that keeps failing).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Requests in flight. Clones count the same requests.
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

/// How background work makes room: while at least `busy_at` foreground requests are in flight
/// (a burst, not a trickle), it runs at most `concurrency` things at once.
#[derive(Clone, Debug)]
pub struct Yield {
    pub to: Foreground,
    pub busy_at: usize,
    /// At least 1: background work slows down, it never stops.
    pub concurrency: u16,
}

impl Yield {
    /// How many things may run at once now, for background work that runs `full` when the
    /// foreground is quiet.
    pub fn limit(yielding: Option<&Yield>, full: u16) -> usize {
        let full = full.max(1);
        let now = match yielding {
            Some(yielding) if yielding.to.in_flight() >= yielding.busy_at => {
                yielding.concurrency.clamp(1, full)
            }
            _ => full,
        };
        usize::from(now)
    }
}

#[cfg(test)]
mod tests {
    use super::{Foreground, Yield};

    #[test]
    fn background_work_narrows_while_a_burst_is_in_flight_and_widens_after() {
        let foreground = Foreground::default();
        let yielding = Yield {
            to: foreground.clone(),
            busy_at: 2,
            concurrency: 2,
        };
        assert_eq!(Yield::limit(Some(&yielding), 8), 8);
        let first = foreground.enter();
        assert_eq!(
            Yield::limit(Some(&yielding), 8),
            8,
            "one request is a trickle"
        );
        let second = foreground.clone().enter();
        assert_eq!(foreground.in_flight(), 2);
        assert_eq!(Yield::limit(Some(&yielding), 8), 2);
        // Never wider than its own width, never stopped.
        assert_eq!(Yield::limit(Some(&yielding), 1), 1);
        let stopped = Yield {
            concurrency: 0,
            ..yielding.clone()
        };
        assert_eq!(Yield::limit(Some(&stopped), 8), 1);
        drop((first, second));
        assert_eq!(foreground.in_flight(), 0);
        assert_eq!(Yield::limit(Some(&yielding), 8), 8);
        assert_eq!(Yield::limit(None, 0), 1);
    }
}
