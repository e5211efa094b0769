//! `nerve-bench rpc`: the service benchmark of `nerve-rpc` (feature `bench`, issue 5), its
//! rows converted to the shared [`Row`] and reported with the machine block.
//!
//! `nerve_rpc::bench::run` measures nerve services (round trip `rtt_ns` and `qps` at 512 B,
//! 2 KB, 8 KB × parallelism 1, 4, 8); the rows keep `parallelism` and `errors`. The peers of
//! issue 5 (rclpy services, Zenoh queryables) and the Python client are not measured yet: this
//! suite adds one `error` row per missing peer so the gap is visible in the report.

use crate::machine::Machine;
use crate::report::{self, Row, SuiteArgs};
use anyhow::Result;

/// Converts one `nerve-rpc` row; an `error` row keeps no numbers.
fn convert(r: nerve_rpc::bench::Row) -> Row {
    let row = Row::new(
        r.suite,
        r.system,
        r.api,
        r.transport,
        &r.topology,
        r.mode,
        r.message,
        r.payload_bytes,
        r.metric,
    )
    .field("parallelism", r.parallelism)
    .field("errors", r.errors);
    match r.error {
        Some(e) => row.error(e),
        None => row.summary(report::summary_of(
            r.min, r.p50, r.p90, r.p99, r.p999, r.max, r.n,
        )),
    }
}

/// Rows saying which of issue 5's comparisons this suite does not run yet.
fn missing_peers() -> Vec<Row> {
    [
        (
            "ros2",
            "python",
            "rclpy service client/server: peer not wired into nerve-bench yet",
        ),
        (
            "zenoh",
            "rust",
            "zenoh queryable: peer not wired into nerve-bench yet",
        ),
        (
            "nerve",
            "python",
            "Python service client: not wired into nerve-bench yet",
        ),
    ]
    .into_iter()
    .map(|(system, api, why)| {
        Row::new(
            "rpc",
            system,
            api,
            "cross-process",
            "1:1",
            "blocking",
            "bytes",
            512,
            "rtt_ns",
        )
        .error(why)
    })
    .collect()
}

/// `nerve-bench rpc`.
pub fn run_suite(args: &SuiteArgs) -> Result<()> {
    let machine = Machine::detect();
    eprintln!("machine: {}", machine.summary());
    let mut rows: Vec<Row> = nerve_rpc::bench::run(args.quick)
        .into_iter()
        .map(convert)
        .collect();
    rows.extend(missing_peers());
    report::emit("rpc", args, &machine, &rows)
}
