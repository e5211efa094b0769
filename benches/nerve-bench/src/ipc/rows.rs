//! What one scenario's rounds become in the report: a row per system (latency or throughput
//! summaries, the per-round ratios to nerve, each system's own fields).

use super::payload::Check;
use super::plan::{batch_blocks, Scenario};
use super::{Mode, SystemKind};
use crate::report::Row;
use crate::stats::{self, Summary};

/// Results of one system over all rounds of a scenario.
pub(super) struct SystemRun {
    pub(super) system: SystemKind,
    pub(super) label: String,
    pub(super) variant: Option<String>,
    pub(super) error: Option<String>,
    pub(super) samples: Vec<f64>,
    pub(super) round_p50: Vec<f64>,
    pub(super) batch_means: Vec<f64>,
    pub(super) rates: Vec<f64>,
    pub(super) steps: u64,
    pub(super) setup_s: f64,
}

pub(super) fn rows_for(sc: &Scenario, runs: &mut [SystemRun]) -> Vec<Row> {
    let mut rows = Vec::new();
    let metric = if sc.throughput.is_some() {
        "msgs_per_s"
    } else {
        "one_way_ns"
    };
    let base_row = |run: &SystemRun, metric: &str| {
        let mut row = Row::new(
            "ipc",
            run.system.name(),
            "rust",
            sc.transport.name(),
            &format!("{}:{}", sc.publishers, sc.subscribers),
            sc.mode.name(),
            &run.label,
            sc.payload,
            metric,
        )
        .field(
            "check",
            if sc.check == Check::ReadAll {
                "all-bytes"
            } else {
                "seq+first/last-64B"
            },
        );
        if let Some(v) = &run.variant {
            row = row.field("variant", v.as_str());
        }
        if sc.scaling {
            // Opening both sides, the one-time warm-up and the calibration.
            row = row.field("setup_s", (run.setup_s * 1000.0).round() / 1000.0);
            row = row.field("topics", sc.topics);
        }
        if let Some(w) = sc.throughput {
            row = row.field("window", w);
        }
        row
    };
    for run in runs.iter_mut() {
        let row = base_row(run, metric);
        if let Some(e) = &run.error {
            rows.push(row.error(e.clone()));
            continue;
        }
        let rounds = run.round_p50.len();
        let mut row = row.field("rounds", rounds);
        if run.system == SystemKind::Nerve && sc.mode == Mode::Blocking {
            row = row.field(
                "note",
                "nerve's default recv_timeout spins 20 us before its futex wait; peers sleep at once (see the futex-only variant)",
            );
        }
        if run.system == SystemKind::NerveFutex {
            row = row.field(
                "note",
                "every nerve subscriber set_spin(0): recv_timeout sleeps on the futex at once, like the peers",
            );
        }
        if sc.throughput.is_some() {
            if let Some(mut s) = Summary::of(&mut run.rates.clone()) {
                s.p50 = stats::median(&run.rates).unwrap_or(s.p50);
                let mb_per_s = s.p50 * sc.payload as f64 / 1e6;
                rows.push(
                    row.summary(s)
                        .field("mb_per_s", (mb_per_s * 10.0).round() / 10.0)
                        .field("note", "p50 = median per-round rate; n = rounds"),
                );
            }
            continue;
        }
        if let Some(s) = Summary::of(&mut run.samples) {
            rows.push(row.clone().summary(s).field("steps_per_round", run.steps));
        }
        if let Some(s) = Summary::of(&mut run.batch_means.clone()) {
            rows.push(
                row.with_metric("one_way_batch_mean_ns")
                    .summary(s)
                    .field("round_trips_per_block", batch_blocks(sc.mode, run.steps).1)
                    .field(
                        "note",
                        "one value per block: block time / (2 x round trips); n = blocks",
                    ),
            );
        }
    }
    // Per-round ratios of each nerve variant against each peer (rows told apart by `variant`).
    for nerve in runs
        .iter()
        .filter(|r| r.system.is_nerve() && r.error.is_none())
    {
        for peer in runs
            .iter()
            .filter(|r| !r.system.is_nerve() && r.error.is_none())
        {
            let ratios: Vec<f64> = nerve
                .round_p50
                .iter()
                .zip(&peer.round_p50)
                .map(|(a, b)| a / b)
                .collect();
            if let Some(s) = Summary::of_rounds(&ratios) {
                let name = if sc.throughput.is_some() {
                    "ratio_msgs_per_s_vs_"
                } else {
                    "ratio_p50_vs_"
                };
                rows.push(
                    base_row(nerve, &format!("{name}{}", peer.system.name()))
                        .summary(s)
                        .field("rounds", ratios.len())
                        .field(
                            "note",
                            "per round: nerve p50 / peer p50; p50 = median over rounds",
                        ),
                );
            }
        }
    }
    rows
}
