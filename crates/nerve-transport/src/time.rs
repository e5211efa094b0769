//! Time stamps comparable across processes on one machine, and deadlines that never overflow.

use std::time::{Duration, Instant};

/// Nanoseconds of `CLOCK_MONOTONIC`: the same clock in every process of the machine, so a
/// subscriber can compute latency from a publisher's stamp.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we pass; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A duration in nanoseconds, saturating at `u64::MAX` (585 years: "never") instead of
/// truncating.
pub fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// `start + d`, or None when that lies beyond what the clock can represent: a timeout that
/// large means "no deadline" (an `Instant + Duration` would panic).
pub fn deadline(start: Instant, d: Duration) -> Option<Instant> {
    start.checked_add(d)
}

/// A hundred years: the longest wait nerve distinguishes from "forever".
pub const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// `d`, at most [`FOREVER`], so that `Instant::now() + clamp(d)` cannot overflow.
pub fn clamp(d: Duration) -> Duration {
    d.min(FOREVER)
}

/// The time left until `deadline` (None: forever, returned as `Duration::MAX`).
pub fn left(deadline: Option<Instant>) -> Duration {
    deadline.map_or(Duration::MAX, |d| {
        d.saturating_duration_since(Instant::now())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_durations_mean_never_instead_of_a_panic() {
        assert_eq!(duration_ns(Duration::MAX), u64::MAX);
        assert_eq!(duration_ns(Duration::from_secs(2)), 2_000_000_000);
        let now = Instant::now();
        assert_eq!(deadline(now, Duration::MAX), None);
        assert_eq!(left(None), Duration::MAX);
        assert!(left(deadline(now, Duration::from_secs(1))) <= Duration::from_secs(1));
        let _ = now + clamp(Duration::MAX);
    }
}
