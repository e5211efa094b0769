//! `nerve-bench`: nerve measured against its peers by one harness, in one run, on one machine.
//!
//! Subcommands are suites, `all` runs them in turn and `check` the targets of the hot paths: `ipc`, `ros2` (the ROS 2 bridge), `sched` (on `nerve-exec`'s public API), `rpc` (on
//! `nerve-rpc`'s public API, with its peers), `python`, and `soak` (endurance under `kill -9`). Shared pieces live in
//! their own modules so every suite reports the same way: [`machine`] (what it ran on),
//! [`stats`] (percentiles, timer overhead), [`report`] (the row, JSON/CSV/table), [`pin`]
//! (core pinning), [`child`] (re-executing this binary for the other side of a benchmark).

mod all;
mod check;
mod child;
mod ffi;
mod hopcount;
mod ipc;
mod logbench;
mod machine;
mod network;
mod open;
mod pin;
mod pyenv;
mod pyinproc;
mod python;
mod record;
mod report;
mod ros2;
mod rpc;
mod sched;
mod soak;
mod stats;

/// What a row of a peer that this binary was built without says (the test build leaves the peers
/// out; `make bench-build` puts them in).
#[cfg_attr(feature = "peers", allow(dead_code))]
pub(crate) const NO_PEERS: &str =
    "iceoryx2 is not in this build of nerve-bench: build it with `--features peers` (make bench-build does)";

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "nerve-bench",
    version,
    about = "nerve against its peers: same harness, same run, same machine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Every suite in turn (each its own process), JSON + CSV per suite in one folder, then
    /// benchmarks.md from them (`--docs`: docs/benchmarks.md too). `--quick`: short runs.
    All(all::AllArgs),
    /// The targets that guard the hot paths (`check = true` in targets.toml) in a few minutes:
    /// only the scenarios they read, interleaved, then their table; exits non-zero on a miss.
    Check(check::CheckArgs),
    /// Inter-process communication: one-way latency (RTT/2) and throughput, nerve vs iceoryx2,
    /// a raw shared-memory floor and loopback UDP, in alternating rounds.
    Ipc(ipc::IpcArgs),
    /// The scheduler (nerve-exec): RT start lateness at mixed rates, tick overhead per node,
    /// e-stop latency, budget-monitoring overhead, concurrent async sleeps.
    Sched(report::SuiteArgs),
    /// Services (nerve-rpc): round trip and QPS at 512 B / 2 KB / 8 KB, parallelism 1, 4, 8,
    /// cross-thread and cross-process, against rclpy services and Zenoh queryables.
    Rpc(rpc::RpcArgs),
    /// Python bindings: Python-to-Python cross-process one-way latency (RTT/2), nerve vs HORUS,
    /// iceoryx2, Zenoh and ROS 2 (rclpy), each in its own venv, in alternating rounds.
    Python(python::PythonArgs),
    /// Endurance: 1:1, 3:3 and chunked workloads across processes while a killer `kill -9`s
    /// publishers and subscribers at random; fails if a corrupt message is delivered or a
    /// message is unaccounted for.
    Soak(soak::SoakArgs),
    /// Recording: nerve's recorder against ROS 2's (rclpy + the mcap writer): loss, recorder
    /// CPU, MB/s, for 1 kHz Imu + 10 Hz LaserScan + 30 Hz 1080p images and for 1000 topics.
    Record(report::SuiteArgs),
    /// The ROS 2 bridge: the latency it adds (nerve → ROS 2 → nerve and ROS 2 → nerve → ROS 2
    /// round trips) beside a direct rclpy → rclpy round trip, for 16 B, 1 KB and a 640×480
    /// image, in interleaved rounds (the ros2 peer venv: benches/python/setup_peers.sh ros2).
    Ros2(report::SuiteArgs),
    /// Logging: one log call (32 B to 8 KB) of nerve's logger against tracing-subscriber's
    /// file writer and Python's logging to a file, and a 1 kHz node's lateness under a
    /// 100k records/s log flood.
    Log(report::SuiteArgs),
    /// Across machines (two network namespaces here): AimRT's tables of channels (512 B to
    /// 8 KB, 1/4/8 topics at 1 kHz, 6 MB images) and services (stress and 1 kHz with 1/4/8
    /// callers), nerve over its Zenoh bridge against raw Zenoh and UDP.
    Network(network::NetworkArgs),
    /// One machine: AimRT's single-machine tables — channels (512 B to 8 KB, 1/4/8 topics at
    /// 1 kHz: average and max latency, loss, CPU % per side) and services (stress and 1 kHz
    /// with 1/4/8 callers) — with every process on one host: nerve on shared memory against
    /// iceoryx2, Zenoh (loopback TCP), UDP and ROS 2 (rclpy).
    Local(network::NetworkArgs),
    /// Topic open time while another process uses the topic (p50/p90/mean of open +
    /// subscribe + close, per round).
    Open(open::OpenArgs),
    /// Internal: the process holding the topic of an `open` run.
    #[command(name = "__open-hold", hide = true)]
    OpenHold,
    /// Internal: one process of a `network` run.
    #[command(name = "__net-role", hide = true)]
    NetRole {
        /// What to do, as JSON.
        #[arg(long)]
        spec: String,
    },
    /// Internal: the recorder of a `record` run.
    #[command(name = "__record-rec", hide = true)]
    RecordRec {
        #[arg(long)]
        domain: u32,
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Internal: the publisher of a `record` run.
    #[command(name = "__record-pub", hide = true)]
    RecordPub {
        #[arg(long)]
        domain: u32,
        #[arg(long)]
        case: String,
        #[arg(long)]
        secs: u64,
    },
    /// Internal: one publisher or subscriber of a `soak` workload.
    #[command(name = "__soak-child", hide = true)]
    SoakChild {
        /// What to do, as JSON.
        #[arg(long)]
        spec: String,
    },
    /// Internal: the echo servers of a cross-process `rpc` benchmark.
    #[command(name = "__rpc-echo", hide = true)]
    RpcEcho {
        /// The services' domain.
        #[arg(long)]
        domain: u32,
        /// The core to pin to.
        #[arg(long)]
        core: usize,
    },
    /// Internal: one side of the FFI ping-pong in Rust (the same arguments as
    /// benches/c/pingpong.c).
    #[command(name = "__ffi-pingpong", hide = true)]
    FfiPingpong {
        /// ping|echo <prefix> <bytes> poll|blocking <samples> <warmup> <core>
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Internal: one send + receive at a time in one thread, for `instructions.py`.
    #[command(name = "__hop-count", hide = true)]
    HopCount {
        /// <case> <hops> [<core>]
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Internal: the echo side of a cross-process `ipc` benchmark.
    #[command(name = "__ipc-echo", hide = true)]
    IpcEcho {
        /// The scenario, as JSON.
        #[arg(long)]
        spec: String,
        /// The core to pin to.
        #[arg(long)]
        core: usize,
    },
}

fn main() -> Result<()> {
    // nerve and the peers log through `tracing`; RUST_LOG selects what reaches stderr.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let started = std::time::Instant::now();
    let (suite, result) = match cli.command {
        Command::All(args) => ("all", all::run(&args)),
        Command::Check(args) => ("check", check::run(&args)),
        Command::Ipc(args) => ("ipc", ipc::run_suite(&args)),
        Command::Sched(args) => ("sched", sched::run_suite(&args)),
        Command::Rpc(args) => ("rpc", rpc::run_suite(&args)),
        Command::Python(args) => ("python", python::run_suite(&args)),
        Command::Soak(args) => ("soak", soak::run_suite(&args)),
        Command::Record(args) => ("record", record::run_suite(&args)),
        Command::Log(args) => ("log", logbench::run_suite(&args)),
        Command::Ros2(args) => ("ros2", ros2::run_suite(&args)),
        Command::Network(args) => ("network", network::run_suite(&args, false)),
        Command::Local(args) => ("local", network::run_suite(&args, true)),
        Command::Open(args) => ("open", open::run(&args)),
        Command::OpenHold => return open::hold_child_main(),
        Command::NetRole { spec } => return network::role_main(&spec),
        Command::RecordRec { domain, out } => return record::rec_child(domain, &out),
        Command::RecordPub { domain, case, secs } => return record::pub_child(domain, &case, secs),
        Command::SoakChild { spec } => return soak::child_main(&spec),
        Command::IpcEcho { spec, core } => return ipc::echo_child_main(&spec, core),
        Command::FfiPingpong { args } => return ffi::role_main(&args),
        Command::HopCount { args } => return hopcount::role_main(&args),
        Command::RpcEcho { domain, core } => return rpc::echo_child_main(domain, core),
    };
    // Every suite says how long it took, end to end (set-up, rounds, writing the files).
    eprintln!(
        "nerve-bench {suite}: total wall time {:.1} s",
        started.elapsed().as_secs_f64()
    );
    result
}
