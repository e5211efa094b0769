//! `nerve-bench sched`: the scheduler of `nerve-exec` measured through its public API (issue
//! 4's scenarios), as rows of the docs/benchmarking.md contract with `suite: "sched"`.
//!
//! - [`mixed`]: 1 kHz (RT) + 500 Hz (RT) + 100 Hz + 10 Hz with the other core busy: start
//!   lateness, misses, achieved rate;
//! - [`overhead`]: tick overhead per node with 1…200 nodes, and what budget/watchdog monitoring
//!   adds per node;
//! - [`estop`]: e-stop latency to every node;
//! - [`tasks`]: rclcpp_async's table, N concurrent tasks sleeping 1/10/100 ms, single and
//!   repeated fire, nerve's timer against tokio's;
//! - [`asyncs`]: rclcpp_async's other tables: sleep overhead (thread, scheduler callback,
//!   coroutine, tokio), publish-to-receive (callback, coroutine, blocking) and a service round
//!   trip (blocking, coroutine) in one process;
//! - [`workloads`]: the RT floor (a 1 kHz RT node against a cyclictest-style loop on the same
//!   core), watchdog resolution, and HORUS's five workload classes.
//!
//! Besides the contract's fields, rows carry `rate_hz`, `misses`, `achieved_hz`, `nodes`,
//! `tasks`, `sleep_ms`, `repeats`, `duration_s`, `steal_ms`, `load` and `note` where they
//! apply. `$NERVE_SCHED_ONLY` (comma-separated, see [`SCENARIOS`]) runs a subset.

mod asyncs;
mod estop;
mod mixed;
mod overhead;
mod tasks;
mod workloads;

// Locks recover from a node's panic (nerve's policy: recover, never unwrap).
use crate::machine::Machine;
use crate::report::{self, Row, SuiteArgs};
use crate::stats::Summary;
use anyhow::Result;
use nerve::sys::lock;

/// The scenarios, by the names `$NERVE_SCHED_ONLY` takes.
pub const SCENARIOS: [&str; 10] = [
    "mixed",
    "overhead",
    "budget",
    "estop",
    "tasks",
    "async",
    "floor",
    "watchdog",
    "workloads",
    "compute-spin",
];

/// `nerve-bench sched`.
pub fn run_suite(args: &SuiteArgs) -> Result<()> {
    let machine = Machine::detect();
    eprintln!("machine: {}", machine.summary());
    let only = std::env::var("NERVE_SCHED_ONLY").unwrap_or_default();
    let only: Vec<&str> = only.split(',').filter(|s| !s.is_empty()).collect();
    if let Some(x) = only.iter().find(|x| !SCENARIOS.contains(x)) {
        anyhow::bail!("NERVE_SCHED_ONLY names {x:?}, which is no scenario: use {SCENARIOS:?}");
    }
    let rows = run_only(args.quick, &only);
    report::emit("sched", args, &machine, &rows)
}

/// Runs the scenarios named in `only` (all when empty); `quick` keeps the whole run within
/// about a minute.
fn run_only(quick: bool, only: &[&str]) -> Vec<Row> {
    let want = |s: &str| only.is_empty() || only.contains(&s);
    let mut rows = Vec::new();
    if want("mixed") {
        rows.extend(mixed::mixed_rates(if quick { 5 } else { 30 }));
    }
    if want("overhead") {
        rows.extend(overhead::tick_overhead(quick));
    }
    if want("budget") {
        for m in overhead::Monitors::EACH {
            rows.push(overhead::budget_overhead(quick, m));
        }
        rows.push(overhead::mlockall_time());
    }
    if want("estop") {
        rows.push(estop::estop(if quick { 100 } else { 500 }));
    }
    if want("tasks") {
        rows.extend(tasks::tasks(quick));
    }
    if want("async") {
        rows.extend(asyncs::asyncs(quick));
    }
    if want("floor") {
        rows.extend(workloads::rt_floor(quick));
    }
    if want("watchdog") {
        rows.push(workloads::watchdog_resolution(quick));
    }
    if want("workloads") {
        rows.extend(workloads::workload_classes(quick));
    }
    if want("compute-spin") {
        rows.extend(workloads::compute_spin(quick));
    }
    rows
}

/// A node that records how late each tick starts (the scheduler's `now - planned`, ns), then
/// spins for `work` (a control law or a filter stand-in).
struct Timed {
    name: String,
    late: std::sync::Arc<std::sync::Mutex<Vec<f64>>>,
    work: std::time::Duration,
}

impl nerve_exec::Node for Timed {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut nerve_exec::Context<'_>) {
        let late = ctx.now().saturating_sub(ctx.planned());
        lock(&self.late).push(late.as_nanos() as f64);
        let end = nerve::time::now_ns() + self.work.as_nanos() as u64;
        while nerve::time::now_ns() < end {
            std::hint::spin_loop();
        }
    }
}

/// A row of this suite: `nerve`, `rust`, `blocking`, no payload; `transport` is `same-thread`
/// (one lane) or `cross-thread`, `topology` `1:N` (one trigger, N nodes or tasks).
fn row(message: &str, metric: &str, transport: &str, topology: &str) -> Row {
    Row::new(
        "sched", "nerve", "rust", transport, topology, "blocking", message, 0, metric,
    )
}

/// A scenario that could not run: no numbers, the reason.
fn error_row(message: &str, metric: &str, e: impl std::fmt::Display) -> Row {
    row(message, metric, "cross-thread", "1:1").error(e.to_string())
}

/// A row's numbers from samples measured here; an error row when there are none.
fn with_samples(r: Row, samples: &mut [f64]) -> Row {
    match Summary::of(samples) {
        Some(s) => r.summary(s),
        None => r.error("no samples"),
    }
}

/// A row's numbers from a statistic the scheduler measured itself ([`nerve_exec::NodeStats`]).
fn with_node_stat(r: Row, s: &nerve_exec::Summary) -> Row {
    r.summary(report::summary_of(
        s.min as f64,
        s.p50 as f64,
        s.p90 as f64,
        s.p99 as f64,
        s.p999 as f64,
        s.max as f64,
        s.n,
    ))
}
