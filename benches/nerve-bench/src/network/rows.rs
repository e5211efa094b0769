//! The rows of a `network` or `local` run: each system's figures per round, and the ratios the
//! targets read (nerve against raw Zenoh per round, against each peer on one host).

use anyhow::Result;

use super::{Case, Kind, Run};
use crate::report::Row;
use crate::stats::Summary;

pub(super) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// A case's topology and message columns.
pub(super) fn labels(case: &Case) -> (String, String) {
    match case.kind {
        Kind::Channel { topics, .. } if case.name == "mixed" => (
            format!("{topics} topics"),
            "CmdVel+Imu 100 Hz, BatteryState 1 Hz".into(),
        ),
        Kind::Channel { topics, hz } => (format!("{topics} topics"), format!("{hz} Hz")),
        Kind::Rpc { callers, hz } if hz > 0.0 => (format!("{callers} callers"), format!("{hz} Hz")),
        Kind::Rpc { callers, .. } => (format!("{callers} callers"), "stress".into()),
    }
}

pub(super) fn rows_of(
    suite: &str,
    system: &str,
    case: &Case,
    round: usize,
    run: &Result<Run>,
) -> Vec<Row> {
    let (topology, message) = labels(case);
    let one_host = suite == "local";
    let base = Row::new(
        suite,
        system,
        if system == "ros2" { "python" } else { "rust" },
        match system {
            "udp" => "udp",
            "ros2" if one_host => "dds",
            "ros2" => "dds-udp",
            "nerve-local" | "iceoryx2" => "shm",
            "nerve" if one_host => "shm",
            _ => "tcp",
        },
        &topology,
        case.name,
        &message,
        case.size,
        "",
    )
    .field("round", round as u64);
    let lat_metric = if matches!(case.kind, Kind::Rpc { .. }) {
        "rtt_us"
    } else {
        "latency_us"
    };
    let r = match run {
        Err(e) => return vec![base.with_metric(lat_metric).error(format!("{e:#}"))],
        Ok(r) => r,
    };
    let o = &r.measured;
    // An rclpy role says how it ran (Fast DDS profile, executor): every row of the run carries it.
    let mut base = base;
    for (k, v) in [("dds_profile", &o.dds_profile), ("executor", &o.executor)] {
        if let Some(v) = v {
            base = base.field(k, v.clone());
        }
    }
    let wall = o.wall_s.max(1e-9);
    let mut lat = o.latencies_us.clone();
    let mut rows = Vec::new();
    if let Some(s) = Summary::of(&mut lat) {
        rows.push(base.with_metric(lat_metric).summary(s));
    }
    let one = |v: f64| Summary::of(&mut [v]).expect("one value");
    let rate = o.count as f64 / wall;
    rows.push(
        base.with_metric(if lat_metric == "rtt_us" {
            "qps"
        } else {
            "msgs_per_s"
        })
        .summary(one(rate)),
    );
    if o.expected > 0 {
        let loss = 1.0 - o.count as f64 / o.expected as f64;
        rows.push(
            base.with_metric("loss_rate")
                .summary(one(loss.max(0.0)))
                .field("received", o.count)
                .field("expected", o.expected),
        );
    }
    rows.push(
        base.with_metric("cpu_pct_sender")
            .summary(one(r.cpu_a / wall * 100.0)),
    );
    rows.push(
        base.with_metric("cpu_pct_receiver")
            .summary(one(r.cpu_b / wall * 100.0)),
    );
    rows
}

/// nerve / raw Zenoh per round: latency (mean), rate, and loss.
pub(super) fn target_rows(case: &Case, nerve: &[Run], zenoh: &[Run]) -> Vec<Row> {
    let rpc = matches!(case.kind, Kind::Rpc { .. });
    let (topology, message) = labels(case);
    let base = Row::new(
        "network", "nerve", "rust", "tcp", &topology, case.name, &message, case.size, "",
    );
    let ratios = |f: &dyn Fn(&Run) -> f64| -> Vec<f64> {
        nerve.iter().zip(zenoh).map(|(n, z)| f(n) / f(z)).collect()
    };
    let lat = ratios(&|r| mean(&r.measured.latencies_us));
    let rate = ratios(&|r| r.measured.count as f64 / r.measured.wall_s.max(1e-9));
    let mut rows = Vec::new();
    let limit = 1.2;
    if let Some(s) = Summary::of(&mut lat.clone()) {
        let pass = lat.iter().all(|r| *r <= limit);
        let (metric, how) = if rpc {
            (
                "target_rtt_vs_zenoh",
                "nerve service round trip (mean) / raw Zenoh query's ≤ 1.2, every round",
            )
        } else {
            (
                "target_latency_vs_zenoh",
                "nerve mean one-way latency / raw Zenoh's ≤ 1.2, every round",
            )
        };
        rows.push(
            base.with_metric(metric)
                .summary(s)
                .field("per_round", lat.clone())
                .field("pass", pass)
                .field("threshold", limit)
                .field("how", how),
        );
    }
    if let Some(s) = Summary::of(&mut rate.clone()) {
        let zero_loss = rpc
            || nerve
                .iter()
                .all(|r| r.measured.count >= r.measured.expected);
        rows.push(
            base.with_metric("target_rate_vs_zenoh")
                .summary(s)
                .field("per_round", rate.clone())
                .field("pass", rate.iter().all(|r| *r >= 0.9) && zero_loss)
                .field("threshold", 0.9)
                .field(
                    "how",
                    "nerve messages (or calls) per second / raw Zenoh's ≥ 0.9, every round, and no message lost",
                ),
        );
    }
    rows
}

fn p50(v: &[f64]) -> f64 {
    crate::stats::median(v).unwrap_or(f64::NAN)
}

/// Issue 35's targets, nerve / the raw-Zenoh peer of the same wait, per round: p50 latency
/// (≤ 1.05; a 6 MB frame ≤ 1.1) with nothing lost, CPU of each side (≤ 1.1: the worse side
/// per round), a call's p50 round trip (≤ 1.1) and stress calls per second (≥ 0.95).
pub(super) fn like_rows(case: &Case, nerve: &[Run], peer: &[Run]) -> Vec<Row> {
    let rpc = matches!(case.kind, Kind::Rpc { .. });
    let (topology, message) = labels(case);
    let base = Row::new(
        "network", "nerve", "rust", "tcp", &topology, case.name, &message, case.size, "",
    );
    let peer_name = if rpc { "zenoh" } else { "zenoh-recv" };
    let ratios = |f: &dyn Fn(&Run) -> f64| -> Vec<f64> {
        nerve.iter().zip(peer).map(|(n, z)| f(n) / f(z)).collect()
    };
    // Channels: nothing lost by nerve in any round (`pass` says so; the ratio does not).
    let lost = !rpc && nerve.iter().any(|r| r.measured.count < r.measured.expected);
    let row = |metric: &str, per_round: Vec<f64>, limit: f64, at_most: bool, how: &str| {
        let pass = !lost
            && per_round
                .iter()
                .all(|r| if at_most { *r <= limit } else { *r >= limit });
        Summary::of_rounds(&per_round).map(|s| {
            base.with_metric(metric)
                .summary(s)
                .field("per_round", per_round.clone())
                .field("pass", pass)
                .field("threshold", limit)
                .field("peer", peer_name)
                .field("how", how)
        })
    };
    let mut rows = Vec::new();
    let lat = ratios(&|r| p50(&r.measured.latencies_us));
    if rpc {
        rows.extend(row(
            "target_p50_rtt_vs_zenoh",
            lat,
            1.1,
            true,
            "nerve service round trip (p50) / a raw Zenoh query's, every round",
        ));
        if matches!(case.kind, Kind::Rpc { hz, .. } if hz == 0.0) {
            let qps = ratios(&|r| r.measured.count as f64 / r.measured.wall_s.max(1e-9));
            rows.extend(row(
                "target_qps_vs_zenoh",
                qps,
                0.95,
                false,
                "nerve calls per second in stress / raw Zenoh queries', every round",
            ));
        }
        return rows;
    }
    let limit = if case.size > 1 << 20 { 1.1 } else { 1.05 };
    rows.extend(row(
        "target_p50_vs_zenoh_recv",
        lat,
        limit,
        true,
        "nerve p50 one-way latency / raw Zenoh's (its subscriber asleep in recv), every round, nothing lost",
    ));
    let cpu = ratios(&|r| r.cpu_a.max(1e-9))
        .into_iter()
        .zip(ratios(&|r| r.cpu_b.max(1e-9)))
        .map(|(a, b)| a.max(b))
        .collect();
    rows.extend(row(
        "target_cpu_vs_zenoh_recv",
        cpu,
        1.1,
        true,
        "CPU seconds of each side's processes (bridges included) / raw Zenoh's; the worse side, every round",
    ));
    rows
}

/// nerve / each peer per round (mean latency, or mean round trip): the one-host comparison.
pub(super) fn ratio_rows(case: &Case, by_system: &[(&str, Vec<Run>)]) -> Vec<Row> {
    let (topology, message) = labels(case);
    let Some((_, nerve)) = by_system.iter().find(|(s, _)| *s == "nerve") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (peer, runs) in by_system.iter().filter(|(s, _)| *s != "nerve") {
        let mut r: Vec<f64> = nerve
            .iter()
            .zip(runs)
            .map(|(n, p)| mean(&n.measured.latencies_us) / mean(&p.measured.latencies_us))
            .collect();
        if let Some(mut s) = Summary::of(&mut r.clone()) {
            s.p50 = crate::stats::median(&r).unwrap_or(s.p50);
            r.clear();
            out.push(
                Row::new(
                    "local",
                    "nerve",
                    "rust",
                    "shm",
                    &topology,
                    case.name,
                    &message,
                    case.size,
                    &format!("ratio_mean_vs_{peer}"),
                )
                .summary(s)
                .field("note", "nerve mean / peer mean per round; p50 = median"),
            );
        }
    }
    out
}
