//! The scheduler's clocks (monotonic, the one clock of nerve, or simulated) and absolute-time
//! sleeping that an e-stop can interrupt.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nerve_transport::sys::futex;
use nerve_transport::time::now_ns;

/// A simulated clock for deterministic mode: time only moves when the scheduler (or a node,
/// through [`SimClock::advance`], to model work that takes time) moves it.
///
/// Cloning gives another handle on the same clock.
#[derive(Clone, Debug, Default)]
pub struct SimClock {
    ns: Arc<AtomicU64>,
}

impl SimClock {
    /// A simulated clock at time zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// The simulated time since the clock was created.
    pub fn now(&self) -> Duration {
        Duration::from_nanos(self.now_ns())
    }

    pub(crate) fn now_ns(&self) -> u64 {
        self.ns.load(Ordering::Relaxed)
    }

    /// Moves the clock forward by `d`; a node calls this inside `tick` to model a tick that
    /// takes `d` of (simulated) time, e.g. to test a miss policy deterministically.
    pub fn advance(&self, d: Duration) {
        self.ns
            .fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }

    /// Moves the clock to `t_ns` if that is later than now.
    pub(crate) fn advance_to(&self, t_ns: u64) {
        self.ns.fetch_max(t_ns, Ordering::Relaxed);
    }
}

/// Which clock a scheduler runs on.
#[derive(Clone, Debug)]
pub(crate) enum Clock {
    Mono,
    Sim(SimClock),
}

impl Clock {
    pub(crate) fn now_ns(&self) -> u64 {
        match self {
            Clock::Mono => now_ns(),
            Clock::Sim(c) => c.now_ns(),
        }
    }
}

/// Sleeps until `deadline_ns` (monotonic): kernel sleep until `deadline - spin`, then a busy
/// spin for the rest. Returns `false` early if `word` moved away from `expected` (someone
/// asked every lane to look up: e-stop, stop, safe state).
pub(crate) fn sleep_until(word: &AtomicU32, expected: u32, deadline_ns: u64, spin_ns: u64) -> bool {
    loop {
        // pairs with the Release increment in EStop::kick()
        if word.load(Ordering::Acquire) != expected {
            return false;
        }
        let now = now_ns();
        if now >= deadline_ns {
            return true;
        }
        if deadline_ns - now > spin_ns {
            futex::wait_until_private(word, expected, deadline_ns - spin_ns);
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Shortens this thread's timer slack to 1 ns so that timed sleeps of a normal (non-RT)
/// thread are not rounded up by the default 50 µs slack. Best effort.
pub(crate) fn set_min_timer_slack() -> bool {
    // SAFETY: PR_SET_TIMERSLACK takes an integer and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) == 0 }
}
