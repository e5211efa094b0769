//! Percentiles over samples, and the timer's own overhead.

use serde::Serialize;
use std::time::Instant;

/// min, p50, p90, p99, p99.9, max, the mean (when the samples were at hand) and the sample count.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Smallest sample.
    pub min: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean (the seeds' "avg" columns); absent for figures computed elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    /// Number of samples.
    pub n: usize,
}

impl Summary {
    /// Summarises `samples` (sorted in place). `None` when there are none.
    pub fn of(samples: &mut [f64]) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_unstable_by(f64::total_cmp);
        Some(Self {
            min: samples[0],
            p50: percentile_sorted(samples, 50.0),
            p90: percentile_sorted(samples, 90.0),
            p99: percentile_sorted(samples, 99.0),
            p999: percentile_sorted(samples, 99.9),
            max: samples[samples.len() - 1],
            mean: Some(samples.iter().sum::<f64>() / samples.len() as f64),
            n: samples.len(),
        })
    }

    /// Summarises one value per round (a per-round ratio): the percentiles of `of`, with `p50`
    /// the true median of the rounds (an even count averages the middle two).
    pub fn of_rounds(per_round: &[f64]) -> Option<Self> {
        let mut s = Self::of(&mut per_round.to_vec())?;
        s.p50 = median(per_round).unwrap_or(s.p50);
        Some(s)
    }
}

/// Nearest-rank percentile of sorted, non-empty samples.
pub fn percentile_sorted(sorted: &[f64], pct: f64) -> f64 {
    // The epsilon keeps 99.9 % of 1000 at rank 999 despite binary floating point.
    let rank = (pct * sorted.len() as f64 / 100.0 - 1e-9).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Median of unsorted samples (the mean of the two middle ones for an even count).
pub fn median(samples: &[f64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    })
}

/// The cost of one `Instant::now()` as seen by the per-sample timing: `n` back-to-back pairs,
/// each sample is `t1 - t0` in nanoseconds.
pub fn timer_overhead(n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        let t1 = Instant::now();
        out.push(t1.duration_since(t0).as_nanos() as f64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let mut v: Vec<f64> = (1..=1000).map(f64::from).collect();
        let s = Summary::of(&mut v).unwrap();
        assert_eq!(
            (s.min, s.p50, s.p90, s.p99, s.p999, s.max),
            (1.0, 500.0, 900.0, 990.0, 999.0, 1000.0)
        );
        assert_eq!(s.mean, Some(500.5));
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), Some(2.5));
        assert!(Summary::of(&mut []).is_none());
    }
}
