//! `nerve-bench sched`: the scheduler suite (issue 4), measured by `nerve_exec::bench` and
//! turned into report rows here.
//!
//! To wire it (left to whoever merges): `mod sched;` in main.rs, a `Sched { quick }`
//! subcommand calling `sched::rows(quick)`, and in Cargo.toml
//! `nerve-exec = { workspace = true, features = ["bench"] }`.

use crate::report::Row;
use crate::stats::Summary;

/// Runs every scheduler scenario (`quick`: about 20 s; full: a few minutes).
pub fn rows(quick: bool) -> Vec<Row> {
    nerve_exec::bench::run(quick).into_iter().map(row).collect()
}

fn row(b: nerve_exec::bench::BenchRow) -> Row {
    let mut r = Row::new(
        &b.suite,
        &b.system,
        &b.api,
        &b.transport,
        &b.topology,
        &b.mode,
        &b.message,
        b.payload_bytes as usize,
        &b.metric,
    );
    r = match b.error {
        Some(e) => r.error(e),
        None => r.summary(Summary {
            min: b.min,
            p50: b.p50,
            p90: b.p90,
            p99: b.p99,
            p999: b.p999,
            max: b.max,
            n: b.n as usize,
        }),
    };
    for (k, v) in [("rate_hz", b.rate_hz), ("achieved_hz", b.achieved_hz)] {
        if let Some(v) = v {
            r = r.field(k, v);
        }
    }
    for (k, v) in [
        ("misses", b.misses),
        ("nodes", b.nodes),
        ("tasks", b.tasks),
        ("sleep_ms", b.sleep_ms),
        ("repeats", b.repeats),
    ] {
        if let Some(v) = v {
            r = r.field(k, v);
        }
    }
    if let Some(n) = b.note {
        r = r.field("note", n);
    }
    r
}
