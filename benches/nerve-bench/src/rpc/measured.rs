//! What one measurement of round trips gives, and its `rtt_ns` / `qps` rows (numbers through
//! [`stats::Summary`], like every suite's).

use std::time::Duration;

use crate::report::{self, Row};
use crate::stats;

/// Raw results of one measurement: round-trip samples (ns) and call counts.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// Round trips of the successful calls, in nanoseconds.
    pub samples: Vec<u64>,
    /// Calls made.
    pub calls: u64,
    /// Calls that failed (timeouts, errors, wrong echoes).
    pub errors: u64,
    /// Time the measuring took (the longest client).
    pub elapsed: Duration,
}

impl Measured {
    /// Pools another round into this one.
    pub fn merge(&mut self, other: Measured) {
        self.samples.extend(other.samples);
        self.calls += other.calls;
        self.errors += other.errors;
        self.elapsed += other.elapsed;
    }

    /// The median round trip, if any call succeeded.
    pub fn p50(&self) -> Option<f64> {
        self.summary().map(|s| s.p50)
    }

    fn summary(&self) -> Option<stats::Summary> {
        let mut v: Vec<f64> = self.samples.iter().map(|&x| x as f64).collect();
        stats::Summary::of(&mut v)
    }

    /// The `rtt_ns` and `qps` rows (`base` makes a row for a metric): the round trips of the
    /// successful calls, and their rate over the measuring time (every figure of the `qps` row
    /// is that rate; its `n` is the calls made). `None` when no call succeeded.
    pub fn rows(&self, base: impl Fn(&str) -> Row) -> Option<Vec<Row>> {
        let s = self.summary()?;
        let rate =
            self.calls.saturating_sub(self.errors) as f64 / self.elapsed.as_secs_f64().max(1e-9);
        Some(vec![
            base("rtt_ns").summary(s),
            base("qps").summary(report::summary_of(
                rate, rate, rate, rate, rate, rate, self.calls,
            )),
        ])
    }

    /// Why [`rows`](Self::rows) has nothing to show.
    pub fn no_success(&self) -> String {
        format!("no successful call ({} errors)", self.errors)
    }
}
