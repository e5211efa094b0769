//! Value parsers for the numeric arguments of every verb: a value out of range is refused
//! while the command line is parsed, and clap's error names the argument, the value and the
//! range it accepts (`invalid value 'nan' for '--duration <SECONDS>': not a finite number;
//! expected seconds greater than 0 and at most 604800 (7 days)`).
//!
//! The arguments that take these let a value start with a hyphen (`allow_hyphen_values` for
//! seconds, `allow_negative_numbers` for the domain), so `--duration -1` or `-inf` reaches
//! the parser and its message, not clap's "unexpected argument '-1'".

use std::time::Duration;

/// The longest duration any verb accepts: a week. Without `--duration` a verb runs until
/// Ctrl-C, so nothing longer is ever needed, and every accepted value converts to a
/// `Duration` without overflow.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// A parser of seconds in `(min, MAX_SECONDS]` (`min` itself included when `inclusive`):
/// finite, in range, as a `Duration`.
fn seconds(
    min: f64,
    inclusive: bool,
) -> impl Fn(&str) -> Result<Duration, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let low = if inclusive {
            format!("at least {min}")
        } else {
            format!("greater than {min}")
        };
        let expected = format!("expected seconds {low} and at most {MAX_SECONDS} (7 days)");
        let v: f64 = s
            .trim()
            .parse()
            .map_err(|_| format!("not a number; {expected}"))?;
        if !v.is_finite() {
            return Err(format!("not a finite number; {expected}"));
        }
        let above_min = if inclusive { v >= min } else { v > min };
        if !above_min || v > MAX_SECONDS {
            return Err(format!("out of range; {expected}"));
        }
        Ok(Duration::from_secs_f64(v))
    }
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
            "nan", "NaN", "inf", "-inf", "infinity", "-1", "0", "-0", "1e30", "604801", "", "x",
        ] {
            let e = run_seconds(bad).expect_err(bad);
            assert!(e.contains("expected seconds greater than 0"), "{bad}: {e}");
        }
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
