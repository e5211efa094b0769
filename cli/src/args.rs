//! Value parsers for the numeric arguments of every verb: a value out of range is refused
//! while the command line is parsed, and clap's error names the argument, the value and the
//! range it accepts (`invalid value 'nan' for '--duration <SECONDS>': not a finite number;
//! expected seconds greater than 0 and at most 604800 (7 days)`).
//!
//! The arguments that take these let a value start with a hyphen (`allow_hyphen_values` for
//! seconds, `allow_negative_numbers` for the domain), so `--duration -1` or `-inf` reaches
//! the parser and its message, not clap's "unexpected argument '-1'".

use std::time::Duration;

/// A parser of seconds in `(min, nerve::time::MAX_SECONDS]` (a week, the one limit of every
/// typed span: without `--duration` a verb runs until Ctrl-C, so nothing longer is needed) (`min` itself included when `inclusive`):
/// finite, in range, as a `Duration` (`nerve::time::checked_seconds`).
fn seconds(
    min: f64,
    inclusive: bool,
) -> impl Fn(&str) -> Result<Duration, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let check = |v| nerve::time::checked_seconds(v, min, !inclusive);
        check(number(s, check)?).map_err(|e| format!("{e} (7 days)"))
    }
}

/// `s` as a number (`nan` and `inf` parse; the range checks refuse them); what is no number
/// is refused with the range `check` gives.
fn number<T>(s: &str, check: impl Fn(f64) -> Result<T, String>) -> Result<f64, String> {
    s.trim().parse().map_err(|_| {
        let range = check(f64::NAN).err().unwrap_or_default();
        let expected = range.split_once("; ").map_or("", |(_, e)| e);
        format!("{s:?} is not a number; {expected}")
    })
}

/// Seconds from 0 to a week (`--grace`, `play --start`).
pub fn any_seconds(s: &str) -> Result<Duration, String> {
    seconds(0.0, true)(s)
}

/// A rate in Hz (`topic pub -r`, `play --clock`): from one a week to 1 MHz.
pub fn hz(s: &str) -> Result<f64, String> {
    nerve::time::checked_hz(number(s, nerve::time::checked_hz)?)
}

/// A playback speed (`play --rate`): from 0.001 to 10 000 times real time.
pub fn speed(s: &str) -> Result<f64, String> {
    let check = |v| nerve::time::checked(v, 0.001, false, 10_000.0, "a factor");
    check(number(s, check)?)
}

/// How long a run lasts (`nerve demo --duration`): seconds, more than 0, at most a week.
pub fn run_seconds(s: &str) -> Result<Duration, String> {
    seconds(0.0, false)(s)
}

/// How long a measurement made in one-second windows lasts (`nerve topic hz --duration`): at
/// least one window, at most a week.
pub fn window_seconds(s: &str) -> Result<Duration, String> {
    seconds(1.0, true)(s)
}

/// A domain (`--domain`, `$NERVE_DOMAIN`): any whole number from 0 to `u32::MAX`.
pub fn domain(s: &str) -> Result<u32, String> {
    s.trim().parse().map_err(|_| {
        format!(
            "expected a whole number from 0 to {} (from --domain or $NERVE_DOMAIN)",
            u32::MAX
        )
    })
}

/// A process id (`__demo-role --parent`): a whole number from 1 to `i32::MAX` (`pid_t`).
pub fn pid(s: &str) -> Result<u32, String> {
    let expected = format!("expected a process id from 1 to {}", i32::MAX);
    match s.trim().parse::<u32>() {
        Ok(p) if p >= 1 && i32::try_from(p).is_ok() => Ok(p),
        _ => Err(expected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_seconds_refuses_what_is_not_a_sane_duration() {
        for bad in [
            "nan", "NaN", "inf", "-inf", "infinity", "-1", "0", "-0", "1e30", "604801",
        ] {
            let e = run_seconds(bad).expect_err(bad);
            assert!(e.contains("expected seconds greater than 0"), "{bad}: {e}");
        }
        for bad in ["", "x"] {
            let e = run_seconds(bad).expect_err(bad);
            assert!(
                e.contains("is not a number; expected seconds greater than 0"),
                "{e}"
            );
        }
        for bad in ["1e-300", "0", "1e300", "nan", "-1"] {
            assert!(hz(bad).is_err() && speed(bad).is_err(), "{bad}");
        }
        assert!(any_seconds("1e300").is_err() && any_seconds("0").is_ok());
        assert_eq!(run_seconds("2").unwrap(), Duration::from_secs(2));
        assert_eq!(run_seconds("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(run_seconds("604800").unwrap(), Duration::from_secs(604_800));
    }

    #[test]
    fn window_seconds_needs_one_window() {
        assert!(window_seconds("0.5").is_err());
        assert!(window_seconds("nan").is_err());
        assert_eq!(window_seconds("1").unwrap(), Duration::from_secs(1));
    }

    #[test]
    fn domain_and_pid_ranges() {
        assert_eq!(domain("0").unwrap(), 0);
        assert_eq!(domain("4294967295").unwrap(), u32::MAX);
        for bad in ["-1", "4294967296", "1.5", "abc", ""] {
            assert!(
                domain(bad).unwrap_err().contains("0 to 4294967295"),
                "{bad}"
            );
        }
        assert_eq!(pid("42").unwrap(), 42);
        for bad in ["0", "-5", "2147483648", "x"] {
            assert!(pid(bad).is_err(), "{bad}");
        }
    }
}
