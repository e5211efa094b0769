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

/// The longest span any setting a user types may hold (`--duration`, `--grace`, a launch
/// file's `respawn_delay` or `wait_for` timeout, a parameter file's seconds): a week. Every
/// value accepted converts to a `Duration`, and a period times a count stays far from overflow.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// The highest rate a user may type (`--rate`, `--clock`, a node's rate): 1 MHz.
pub const MAX_HZ: f64 = 1_000_000.0;

/// A number a user typed, checked where it is parsed: finite, at least `min` (more than `min`
/// when `min_open`), at most `max`. The error says what was expected, in `unit`; callers put
/// the setting's name in front of it. nerve's one range check for seconds, rates and
/// factors: the CLI, launch and parameter files, Python and C all go through it (or through
/// [`checked_seconds`] / [`checked_hz`]), so no conversion further on can panic.
pub fn checked(v: f64, min: f64, min_open: bool, max: f64, unit: &str) -> Result<f64, String> {
    let low = if min_open {
        format!("greater than {min}")
    } else {
        format!("at least {min}")
    };
    let expected = format!("expected {unit} {low} and at most {max}");
    // 1e300, not three hundred digits.
    let shown = if v.is_finite() && v != 0.0 && !(1e-4..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    };
    if !v.is_finite() {
        return Err(format!("{shown} is not a finite number; {expected}"));
    }
    let above = if min_open { v > min } else { v >= min };
    if !above || v > max {
        return Err(format!("{shown} is out of range; {expected}"));
    }
    Ok(v)
}

/// Seconds a user typed as a `Duration`: [`checked`] within `min` and [`MAX_SECONDS`].
pub fn checked_seconds(v: f64, min: f64, min_open: bool) -> Result<Duration, String> {
    checked(v, min, min_open, MAX_SECONDS, "seconds").map(Duration::from_secs_f64)
}

/// A rate a user typed, in Hz: [`checked`] from one per [`MAX_SECONDS`] to [`MAX_HZ`], so its
/// period is a `Duration` too.
pub fn checked_hz(v: f64) -> Result<f64, String> {
    checked(v, 1.0 / MAX_SECONDS, false, MAX_HZ, "Hz")
}

/// The period of a rate [`checked_hz`] accepted.
pub fn period(hz: f64) -> Duration {
    Duration::from_secs_f64((1.0 / hz).clamp(0.0, MAX_SECONDS))
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

#[cfg(test)]
mod range_tests {
    use super::*;

    #[test]
    fn typed_numbers_are_refused_outside_their_range_and_never_panic() {
        for bad in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1.0,
            1e300,
            604_801.0,
        ] {
            let e = checked_seconds(bad, 0.0, false).unwrap_err();
            assert!(
                e.contains("expected seconds at least 0 and at most 604800"),
                "{e}"
            );
        }
        assert!(checked_seconds(0.0, 0.0, true).is_err());
        assert_eq!(
            checked_seconds(0.5, 0.0, true),
            Ok(Duration::from_millis(500))
        );
        for bad in [1e-300, 0.0, -5.0, 1e300, f64::NAN, 1e7] {
            assert!(checked_hz(bad).is_err(), "{bad}");
        }
        assert_eq!(checked_hz(1000.0), Ok(1000.0));
        assert_eq!(
            period(checked_hz(1.0 / MAX_SECONDS).unwrap()),
            Duration::from_secs(604_800)
        );
        assert_eq!(period(1000.0), Duration::from_millis(1));
    }
}
