//! Per-node statistics: tick time, start lateness, jitter, misses, restarts, achieved rate.

use std::fmt::Write as _;
use std::time::Duration;

const SUB_BITS: u32 = 5;
const SUB: usize = 1 << SUB_BITS;
const MAX_EXP: u32 = 40; // values are clamped below 2^40 ns (~18 min)
const BUCKETS: usize = (MAX_EXP - SUB_BITS) as usize * SUB + 2 * SUB;

/// A log-linear histogram of nanosecond values: 32 buckets per power of two, so a percentile is
/// within ~3 % of the true value; min, max and mean are exact. Fixed size, no allocation after
/// creation, O(1) record.
#[derive(Clone)]
pub struct Histogram {
    counts: Box<[u64]>,
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
    sumsq: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Histogram {{ n: {}, min: {}, max: {} }}",
            self.n, self.min, self.max
        )
    }
}

fn index(v: u64) -> usize {
    let v = v.min((1u64 << MAX_EXP) - 1);
    if v < 2 * SUB as u64 {
        v as usize
    } else {
        let exp = 63 - v.leading_zeros();
        let shift = exp - SUB_BITS;
        shift as usize * SUB + (v >> shift) as usize
    }
}

/// Lower and upper (exclusive) bound of the values that land in bucket `i`.
fn bounds(i: usize) -> (u64, u64) {
    if i < 2 * SUB {
        (i as u64, i as u64 + 1)
    } else {
        let shift = (i / SUB - 1) as u32;
        let sub = (i % SUB + SUB) as u64;
        (sub << shift, (sub + 1) << shift)
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self {
            counts: vec![0; BUCKETS].into_boxed_slice(),
            n: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sumsq: 0,
        }
    }

    /// Adds one value (ns).
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
        self.n += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += v as u128;
        self.sumsq += (v as u128) * (v as u128);
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether no value was recorded.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The value at quantile `q` in `[0, 1]` (bucket midpoint, clamped to [min, max]); 0 if empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(i);
                return (lo + (hi - lo - 1) / 2).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Smallest value; 0 if empty.
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }

    /// Largest value; 0 if empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Mean; 0 if empty.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// Population standard deviation; 0 if empty.
    pub fn stddev(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let mean = self.mean();
        let var = self.sumsq as f64 / self.n as f64 - mean * mean;
        var.max(0.0).sqrt()
    }

    /// Summary of this histogram.
    pub fn summary(&self) -> Summary {
        Summary {
            n: self.n,
            min: self.min(),
            p50: self.quantile(0.50),
            p90: self.quantile(0.90),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
            max: self.max(),
            mean: self.mean(),
        }
    }
}

/// Percentiles of a set of nanosecond values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Number of values.
    pub n: u64,
    /// Smallest value (ns).
    pub min: u64,
    /// Median (ns).
    pub p50: u64,
    /// 90th percentile (ns).
    pub p90: u64,
    /// 99th percentile (ns).
    pub p99: u64,
    /// 99.9th percentile (ns).
    pub p999: u64,
    /// Largest value (ns).
    pub max: u64,
    /// Mean (ns).
    pub mean: f64,
}

/// What the scheduler records for one node while it runs (lives behind a mutex per node).
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    pub(crate) tick: Histogram,
    pub(crate) lateness: Histogram,
    pub(crate) misses: u64,
    pub(crate) budget_overruns: u64,
    pub(crate) skipped: u64,
    pub(crate) panics: u64,
    pub(crate) restarts: u64,
    pub(crate) hangs: u64,
    pub(crate) first_start: Option<u64>,
    pub(crate) last_start: u64,
    pub(crate) safe_state_latency: Option<Duration>,
    pub(crate) worst_late_at: u64,
}

impl Recorder {
    /// `start`: actual start (clock ns); `since`: the same, from the scheduler's start.
    pub(crate) fn record_tick(&mut self, start: u64, since: u64, dur: u64, late: u64) {
        if late > self.lateness.max() || self.lateness.is_empty() {
            self.worst_late_at = since;
        }
        self.tick.record(dur);
        self.lateness.record(late);
        if self.first_start.is_none() {
            self.first_start = Some(start);
        }
        self.last_start = start;
    }
}

/// A snapshot of one node's statistics ([`Scheduler::stats`](crate::Scheduler::stats)).
#[derive(Clone, Debug, Default)]
pub struct NodeStats {
    /// Node name.
    pub name: String,
    /// Requested rate (Hz); 0 for event nodes.
    pub rate_hz: f64,
    /// Tick duration, actual start to end (ns).
    pub tick_ns: Summary,
    /// Start lateness: actual start − planned start (ns).
    pub lateness_ns: Summary,
    /// Jitter: standard deviation of the start lateness (ns).
    pub jitter_ns: f64,
    /// Deadline misses: ticks whose end − *planned* start exceeded the deadline.
    pub misses: u64,
    /// Ticks whose duration (end − actual start) exceeded the budget (WCET).
    pub budget_overruns: u64,
    /// Ticks not run: skipped by a miss policy, a failure policy, or because the node fell
    /// more than a period behind.
    pub skipped: u64,
    /// Panics caught.
    pub panics: u64,
    /// Restarts after a panic.
    pub restarts: u64,
    /// Times the watchdog found the node stuck in one tick.
    pub hangs: u64,
    /// Ticks per second between the first and the last tick.
    pub achieved_hz: f64,
    /// Time from the e-stop trigger to this node's `on_safe_state`, if it was e-stopped.
    pub safe_state_latency: Option<Duration>,
    /// When (since the scheduler's start) the latest start happened: tells a start-up
    /// hiccup from a periodic disturbance.
    pub worst_lateness_at: Duration,
}

impl NodeStats {
    pub(crate) fn from_recorder(name: &str, rate_hz: f64, r: &Recorder) -> Self {
        let n = r.tick.len();
        let achieved_hz = match r.first_start {
            Some(first) if n > 1 && r.last_start > first => {
                (n - 1) as f64 * 1e9 / (r.last_start - first) as f64
            }
            _ => 0.0,
        };
        Self {
            name: name.to_owned(),
            rate_hz,
            tick_ns: r.tick.summary(),
            lateness_ns: r.lateness.summary(),
            jitter_ns: r.lateness.stddev(),
            misses: r.misses,
            budget_overruns: r.budget_overruns,
            skipped: r.skipped,
            panics: r.panics,
            restarts: r.restarts,
            hangs: r.hangs,
            achieved_hz,
            safe_state_latency: r.safe_state_latency,
            worst_lateness_at: Duration::from_nanos(r.worst_late_at),
        }
    }

    /// Number of ticks run.
    pub fn ticks(&self) -> u64 {
        self.tick_ns.n
    }
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

/// The shutdown table: one line per node, times in microseconds.
pub fn format_table(stats: &[NodeStats]) -> String {
    let w = stats.iter().map(|s| s.name.len()).max().unwrap_or(4).max(4);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<w$} {:>9} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>6} {:>6} {:>5}",
        "node",
        "rate_hz",
        "achieved",
        "ticks",
        "tick_p50",
        "tick_p99",
        "tick_max",
        "late_p50",
        "late_p99",
        "late_max",
        "jitter",
        "misses",
        "restrt",
        "hangs"
    );
    for s in stats {
        let _ = writeln!(
            out,
            "{:<w$} {:>9.1} {:>9.1} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8.1} {:>6} {:>6} {:>5}",
            s.name,
            s.rate_hz,
            s.achieved_hz,
            s.ticks(),
            us(s.tick_ns.p50),
            us(s.tick_ns.p99),
            us(s.tick_ns.max),
            us(s.lateness_ns.p50),
            us(s.lateness_ns.p99),
            us(s.lateness_ns.max),
            s.jitter_ns / 1e3,
            s.misses,
            s.restarts,
            s.hangs
        );
    }
    out.push_str(
        "(times in µs; lateness = actual start − planned start; jitter = stddev of lateness)\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous() {
        for v in 0..100_000u64 {
            let (lo, hi) = bounds(index(v));
            assert!(lo <= v && v < hi, "v={v} lo={lo} hi={hi}");
        }
        assert!(index(u64::MAX) < BUCKETS);
    }

    #[test]
    fn quantiles_within_3_percent() {
        let mut h = Histogram::new();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        let p50 = h.quantile(0.5) as f64;
        assert!((p50 - 5_000_000.0).abs() / 5_000_000.0 < 0.03, "{p50}");
        assert_eq!(h.max(), 10_000_000);
        assert_eq!(h.min(), 1000);
    }
}
