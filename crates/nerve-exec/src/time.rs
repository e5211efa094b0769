//! Clocks (monotonic and simulated) and absolute-time sleeping that an e-stop can interrupt.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Nanoseconds on `CLOCK_MONOTONIC`, the clock every real-time deadline in nerve is set on.
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

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
            Clock::Mono => mono_ns(),
            Clock::Sim(c) => c.now_ns(),
        }
    }
}

/// Waits on `word` while it still holds `expected`, until `deadline_ns` on `CLOCK_MONOTONIC`
/// (absolute, so a late wake-up never shifts the next deadline).
///
/// `FUTEX_WAIT_BITSET` without `FUTEX_CLOCK_REALTIME` takes an absolute `CLOCK_MONOTONIC`
/// deadline: the same hrtimer as `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, with the
/// difference that a `futex_wake` on `word` (e-stop, stop) ends the sleep at once.
pub(crate) fn futex_wait_until(word: &AtomicU32, expected: u32, deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `word` is a live, aligned u32 for the duration of the call; `ts` outlives it.
    // The kernel only reads both. EINTR/ETIMEDOUT/EAGAIN are all fine: callers re-check.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG,
            expected,
            &ts as *const libc::timespec,
            std::ptr::null::<u32>(),
            libc::FUTEX_BITSET_MATCH_ANY,
        );
    }
}

/// Wakes every thread waiting in [`futex_wait_until`] on `word`. Async-signal-safe.
pub(crate) fn futex_wake_all(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE only uses the address as a key; it never dereferences user memory.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}

/// Sleeps until `deadline_ns` (monotonic): kernel sleep until `deadline - spin`, then a busy
/// spin for the rest. Returns `false` early if `word` moved away from `expected` (someone
/// asked every lane to look up: e-stop, stop, safe state).
pub(crate) fn sleep_until(word: &AtomicU32, expected: u32, deadline_ns: u64, spin_ns: u64) -> bool {
    loop {
        if word.load(Ordering::Acquire) != expected {
            // pairs with the Release increment in Shared::kick()
            return false;
        }
        let now = mono_ns();
        if now >= deadline_ns {
            return true;
        }
        if deadline_ns - now > spin_ns {
            futex_wait_until(word, expected, deadline_ns - spin_ns);
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
