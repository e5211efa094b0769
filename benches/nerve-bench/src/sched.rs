//! `nerve-bench sched`: the scheduler benchmark of `nerve-exec` (feature `bench`, issue 4),
//! its rows converted to the shared [`Row`] and reported with the machine block.
//!
//! What runs and how long is `nerve_exec::bench::run`'s business (mixed-rate RT nodes, tick
//! overhead per node, e-stop latency, budget-monitoring overhead, concurrent async sleeps);
//! this module only carries its rows into the BENCHMARKS.md contract, keeping every extra field
//! (`rate_hz`, `misses`, `achieved_hz`, `nodes`, `tasks`, `sleep_ms`, `repeats`, `note`).

use crate::machine::Machine;
use crate::report::{self, Row, SuiteArgs};
use anyhow::Result;
use nerve_exec::bench::BenchRow;

/// Converts one `nerve-exec` row; an `error` row keeps no numbers.
fn convert(r: BenchRow) -> Row {
    let mut row = Row::new(
        &r.suite,
        &r.system,
        &r.api,
        &r.transport,
        &r.topology,
        &r.mode,
        &r.message,
        usize::try_from(r.payload_bytes).unwrap_or(usize::MAX),
        &r.metric,
    );
    row = match r.error {
        Some(e) => row.error(e),
        None => row.summary(report::summary_of(
            r.min, r.p50, r.p90, r.p99, r.p999, r.max, r.n,
        )),
    };
    if let Some(v) = r.rate_hz {
        row = row.field("rate_hz", v);
    }
    if let Some(v) = r.misses {
        row = row.field("misses", v);
    }
    if let Some(v) = r.achieved_hz {
        row = row.field("achieved_hz", v);
    }
    if let Some(v) = r.nodes {
        row = row.field("nodes", v);
    }
    if let Some(v) = r.tasks {
        row = row.field("tasks", v);
    }
    if let Some(v) = r.sleep_ms {
        row = row.field("sleep_ms", v);
    }
    if let Some(v) = r.repeats {
        row = row.field("repeats", v);
    }
    if let Some(v) = r.duration_s {
        row = row.field("duration_s", v);
    }
    if let Some(v) = r.steal_ms {
        row = row.field("steal_ms", v);
    }
    if let Some(v) = r.load {
        row = row.field("load", v);
    }
    if let Some(v) = r.note {
        row = row.field("note", v);
    }
    row
}

/// `nerve-bench sched`.
pub fn run_suite(args: &SuiteArgs) -> Result<()> {
    let machine = Machine::detect();
    eprintln!("machine: {}", machine.summary());
    let rows: Vec<Row> = nerve_exec::bench::run(args.quick)
        .into_iter()
        .map(convert)
        .collect();
    report::emit("sched", args, &machine, &rows)
}
