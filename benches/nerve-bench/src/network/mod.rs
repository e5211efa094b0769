//! `nerve-bench network`: AimRT's multi-machine tables, between two hosts that are network
//! namespaces on this machine (a veth each into a switch; one clock, so one-way latency is
//! receive time − send stamp). Systems, in interleaved rounds per case:
//!
//! - `nerve`: nerve publishers and subscribers on each host's shared memory, a Zenoh bridge
//!   per host (`nerve_zenoh`, peer mode, TCP);
//! - `zenoh`: raw Zenoh, the same payloads, publishers `express` with blocking congestion
//!   control as the bridge sends reliable topics, TCP;
//! - `udp`: a datagram per message (channels up to 8 KB; no RPC, no 6 MB images);
//! - `ros2`: rclpy over Fast DDS, UDP only, static peers (`benches/python/net_ros2.py`;
//!   channels up to 8 KB and services; one executor thread, so its "callers" pace the calls
//!   but do not add threads);
//! - `nerve-local`: the publisher on the subscriber's host, no bridge: the one shared-memory
//!   hop (a sleeping subscriber woken through its futex) that nerve's path adds at each end
//!   of raw Zenoh's (channels only).
//!
//! Cases: channels of 512 B … 8 KB on one topic and 1 KB on 1/4/8 topics, each topic at
//! 1 kHz (average and max latency, loss, CPU % of each side's processes: the publisher plus
//! its bridge, the bridge plus the subscriber); 6 MB images at 10 Hz; services of 512 B /
//! 2 KB / 8 KB in stress (closed loop) and at a fixed 1 kHz with 1/4/8 callers (round trip,
//! QPS). Targets: nerve's average latency ≤ 1.2 × raw Zenoh's, delivered rate ≥ 0.9 ×, no
//! loss at 1 kHz, a service round trip ≤ 1.2 × a raw Zenoh query.

mod roles;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use nerve_testing::netns::{Net, Proc};

use crate::machine::Machine;
use crate::report::{emit, Row, SuiteArgs};

/// `nerve-bench network`'s options.
#[derive(clap::Args, Debug)]
pub struct NetworkArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Only cases whose label contains this text (`channel 1 topics 1024`, `rpc-stress`,
    /// `image`; a label reads `<case> <topology> <message> <bytes>`).
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,
    /// Systems to run, comma separated, in round order (default: every system of each case).
    #[arg(long, value_delimiter = ',')]
    pub systems: Vec<String>,
    /// Seconds per case and system (default: 1.5 with --quick, 10 otherwise).
    #[arg(long)]
    pub secs: Option<f64>,
    /// Interleaved rounds per case (default: 1 with --quick, 2 otherwise).
    #[arg(long)]
    pub rounds: Option<usize>,
}
use crate::stats::Summary;

pub use roles::run as role_main;
use roles::{Outcome, Spec};

/// One started role.
struct Role {
    proc: Proc,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Role {
    fn start(net: &Net, host: usize, spec: &Spec) -> Result<Role> {
        let spec_json = serde_json::to_string(spec)?;
        let mut command = if spec.system == "ros2" {
            // The ROS 2 peer: rclpy in its own venv (benches/python/setup_peers.sh ros2).
            let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
            let py = here.join(".venvs/ros2/bin/python");
            if !py.exists() {
                bail!("the ros2 peer is not installed: run benches/python/setup_peers.sh ros2");
            }
            let mut c = net.command(host, &py.to_string_lossy());
            c.arg(here.join("net_ros2.py"));
            c
        } else {
            let mut c = net.command(host, &std::env::current_exe()?.to_string_lossy());
            c.arg("__net-role");
            c
        };
        let mut child = command
            .args(["--spec", &spec_json])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting a network role")?;
        let stdin = child.stdin.take().ok_or_else(|| anyhow!("stdin"))?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| anyhow!("stdout"))?);
        let mut r = Role {
            proc: Proc(child),
            stdin,
            stdout,
        };
        r.line("READY")?;
        Ok(r)
    }

    /// Reads lines until one starts with `prefix`; returns the rest.
    fn line(&mut self, prefix: &str) -> Result<String> {
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                bail!("a {} role ended before {prefix}", self.proc.id());
            }
            if let Some(rest) = line.trim().strip_prefix(prefix) {
                return Ok(rest.trim().to_owned());
            }
        }
    }

    fn say(&mut self, word: &str) -> Result<()> {
        writeln!(self.stdin, "{word}")?;
        Ok(())
    }

    fn result(mut self) -> Result<Outcome> {
        let r = self.line("RESULT")?;
        Ok(serde_json::from_str(&r)?)
    }
}

/// What a case measures.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// `topics` topics of `size` bytes at `hz` each.
    Channel { topics: usize, hz: f64 },
    /// Calls of `size` bytes by `callers`, at `hz` in all (0: closed loop).
    Rpc { callers: usize, hz: f64 },
}

#[derive(Clone, Copy, Debug)]
struct Case {
    name: &'static str,
    kind: Kind,
    size: usize,
}

/// The cases of a run; `quick` keeps three of the five one-topic channel sizes (512 B, 1 KB,
/// 8 KB: the ends and the size of the multi-topic cases).
fn cases(one_host: bool, quick: bool) -> Vec<Case> {
    let mut c = Vec::new();
    let sizes: &[usize] = if quick {
        &[512, 1024, 8192]
    } else {
        &[512, 1024, 2048, 4096, 8192]
    };
    for &size in sizes {
        c.push(Case {
            name: "channel",
            kind: Kind::Channel {
                topics: 1,
                hz: 1000.0,
            },
            size,
        });
    }
    for topics in [4, 8] {
        c.push(Case {
            name: "channel",
            kind: Kind::Channel { topics, hz: 1000.0 },
            size: 1024,
        });
    }
    if one_host {
        // HORUS's mixed workload: CmdVel and Imu at 100 Hz, BatteryState at 1 Hz (MIXED).
        c.push(Case {
            name: "mixed",
            kind: Kind::Channel {
                topics: MIXED.len(),
                hz: 100.0,
            },
            size: 304,
        });
    }
    if !one_host {
        c.push(Case {
            name: "image",
            kind: Kind::Channel {
                topics: 1,
                hz: 10.0,
            },
            size: 1920 * 1080 * 3,
        });
    }
    // AimRT's RPC tables: closed-loop stress at 512 B, 2 KB and 8 KB; fixed 1 kHz per caller
    // at 1 KB with 1, 4 and 8 callers.
    for size in [512, 2048, 8192] {
        c.push(Case {
            name: "rpc-stress",
            kind: Kind::Rpc {
                callers: 1,
                hz: 0.0,
            },
            size,
        });
    }
    for callers in [1, 4, 8] {
        c.push(Case {
            name: "rpc-1khz",
            kind: Kind::Rpc {
                callers,
                hz: 1000.0,
            },
            size: 1024,
        });
    }
    c
}

/// HORUS's mixed workload, (bytes, Hz) per topic: CmdVel, Imu and BatteryState at their
/// sizes in the seed.
const MIXED: [(usize, f64); 3] = [(16, 100.0), (304, 100.0), (104, 1.0)];

/// The systems that take part in `case`. `quick` leaves out `nerve-local` between the two hosts
/// (nerve on one host's shared memory: the `local` suite measures it in every run).
fn systems(case: &Case, one_host: bool, quick: bool) -> &'static [&'static str] {
    if one_host {
        return match case.kind {
            // The ROS 2 role has no per-topic sizes and rates.
            Kind::Channel { .. } if case.name == "mixed" => &["nerve", "iceoryx2", "zenoh", "udp"],
            Kind::Channel { .. } => &["nerve", "iceoryx2", "zenoh", "udp", "ros2"],
            Kind::Rpc { .. } => &["nerve", "zenoh", "ros2"],
        };
    }
    match case.kind {
        Kind::Channel { .. } if case.size <= 8192 && quick => &["nerve", "zenoh", "udp", "ros2"],
        Kind::Channel { .. } if case.size <= 8192 => {
            &["nerve", "zenoh", "udp", "ros2", "nerve-local"]
        }
        Kind::Rpc { .. } => &["nerve", "zenoh", "ros2"],
        _ if quick => &["nerve", "zenoh"],
        _ => &["nerve", "zenoh", "nerve-local"],
    }
}

/// What one system did in one case.
struct Run {
    /// The measuring side (subscriber or client).
    measured: Outcome,
    /// CPU seconds of the sending host's processes (publisher + bridge; server + bridge).
    cpu_a: f64,
    /// CPU seconds of the receiving host's (bridge + subscriber; bridge + client).
    cpu_b: f64,
}

/// Messages per topic sent before a channel case's measured ones: `secs` worth (a second; half
/// of one in a quick run), and at least 48 (more than the 40 chunks of a 6 MB image topic's
/// pool at depth 16, so that every chunk has been used once: the first use of a chunk's pages
/// costs page faults, about 3 ms for 6 MB here, that no later message pays).
fn warm_up(hz: f64, secs: f64) -> u64 {
    ((hz * secs) as u64).max(48)
}

/// One system in one case. `one_host`: every process on the second host (the first is idle),
/// no bridge: nerve's processes meet in shared memory.
fn run_one(
    net: &Net,
    system: &str,
    case: &Case,
    (secs, warm_secs): (f64, f64),
    one_host: bool,
) -> Result<Run> {
    // The sending side's host and the receiving side's.
    let (ha, hb) = if one_host { (1, 1) } else { (0, 1) };
    let a = &net.hosts[ha].ip;
    let zenoh_port = if system == "nerve" { 7447 } else { 7448 };
    let listen = vec![format!("tcp/{a}:{zenoh_port}")];
    let connect = listen.clone();
    let base = Spec {
        system: system.to_owned(),
        size: case.size,
        secs,
        peer: net.hosts[hb].ip.clone(),
        port: 9000,
        ..Spec::default()
    };
    let mut bridges = Vec::new();
    if system == "nerve" && !one_host {
        for (host, (l, c)) in [(listen.clone(), vec![]), (vec![], connect.clone())]
            .into_iter()
            .enumerate()
        {
            // A channel case's rate and warm-up: the bridge's CPU is counted after it too.
            let (hz, warm) = match case.kind {
                Kind::Channel { hz, .. } => (hz, warm_up(hz, warm_secs)),
                Kind::Rpc { .. } => (0.0, 0),
            };
            let spec = Spec {
                role: "bridge".into(),
                listen: l,
                connect: c,
                hz,
                warm,
                ..base.clone()
            };
            bridges.push(Role::start(net, host, &spec)?);
        }
    }
    // Raw Zenoh: the sending host listens, the receiving one connects (as the bridges do).
    let (a_listen, b_connect) = if system == "zenoh" {
        (listen, connect)
    } else {
        (vec![], vec![])
    };
    let (sender, receiver) = match case.kind {
        Kind::Channel { topics, hz } => {
            let mixed = case.name == "mixed";
            let spec = |role: &str| Spec {
                role: role.into(),
                count: topics,
                hz,
                // The mixed workload's 1 Hz topic has no second to spare for a warm-up.
                warm: if mixed { 0 } else { warm_up(hz, warm_secs) },
                mix: if mixed { MIXED.to_vec() } else { Vec::new() },
                ..base.clone()
            };
            // ROS 2's discovery: each side names the other (static peers).
            let sub = Role::start(
                net,
                hb,
                &Spec {
                    connect: b_connect,
                    peer: net.hosts[ha].ip.clone(),
                    ..spec("sub")
                },
            );
            // nerve-local: the publisher on the subscriber's host, one shared-memory hop.
            let publisher = Role::start(
                net,
                if system == "nerve-local" { hb } else { ha },
                &Spec {
                    listen: a_listen,
                    ..spec("pub")
                },
            )?;
            let mut sub = sub?;
            sub.line("CONNECTED")?;
            (publisher, sub)
        }
        Kind::Rpc { callers, hz } => {
            let server = Role::start(
                net,
                ha,
                &Spec {
                    role: "server".into(),
                    listen: a_listen,
                    ..base.clone()
                },
            )?;
            let client = Role::start(
                net,
                hb,
                &Spec {
                    role: "client".into(),
                    count: callers,
                    hz,
                    connect: b_connect,
                    peer: net.hosts[ha].ip.clone(),
                    ..base.clone()
                },
            )?;
            (server, client)
        }
    };
    // Declarations settle (a subscriber here reaches the publisher there).
    std::thread::sleep(std::time::Duration::from_millis(500));
    let (mut sender, mut receiver) = (sender, receiver);
    for r in bridges.iter_mut().chain([&mut sender, &mut receiver]) {
        r.say("GO")?;
    }
    let (measured, sent) = match case.kind {
        Kind::Channel { .. } => {
            let sent = sender.result()?;
            (receiver.result()?, sent)
        }
        Kind::Rpc { .. } => {
            let measured = receiver.result()?;
            sender.say("STOP")?;
            (measured, sender.result()?)
        }
    };
    let mut bridge_cpu = [0.0; 2];
    for (i, mut b) in bridges.into_iter().enumerate() {
        b.say("STOP")?;
        bridge_cpu[i] = b.result()?.cpu_s;
    }
    Ok(Run {
        cpu_a: sent.cpu_s + bridge_cpu[0],
        cpu_b: measured.cpu_s + bridge_cpu[1],
        measured,
    })
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// A case's topology and message columns.
fn labels(case: &Case) -> (String, String) {
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

fn rows_of(suite: &str, system: &str, case: &Case, round: usize, run: &Result<Run>) -> Vec<Row> {
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
fn target_rows(case: &Case, nerve: &[Run], zenoh: &[Run]) -> Vec<Row> {
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

/// nerve / each peer per round (mean latency, or mean round trip): the one-host comparison.
fn ratio_rows(case: &Case, by_system: &[(&str, Vec<Run>)]) -> Vec<Row> {
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

/// Runs every case, systems interleaved per round, and emits the rows and targets.
/// `one_host`: the `local` suite (every process on one host, no bridges).
pub fn run_suite(opts: &NetworkArgs, one_host: bool) -> Result<()> {
    let args = &opts.suite;
    let machine = Machine::detect();
    // Quick: 1.5 s per case and system after half a second of warm-up, so that `all --quick`
    // stays within its 15 minutes (the full run's 10 s and 1 s are the figures that count).
    let (secs, rounds) = if args.quick { (1.5, 1) } else { (3.0, 2) };
    let warm_secs = 0.5;
    let (secs, rounds) = (opts.secs.unwrap_or(secs), opts.rounds.unwrap_or(rounds));
    let net = Net::new(2, 'n').map_err(|why| {
        anyhow!("the network benchmark needs two network namespaces and cannot make them: {why}")
    })?;
    let suite = if one_host { "local" } else { "network" };
    let mut rows = Vec::new();
    for case in cases(one_host, args.quick) {
        let (topology, message) = labels(&case);
        let label = format!("{} {topology} {message} {}", case.name, case.size);
        if opts
            .only
            .as_ref()
            .is_some_and(|o| !label.contains(o.as_str()))
        {
            continue;
        }
        let mut by_system: Vec<(&str, Vec<Run>)> = systems(&case, one_host, args.quick)
            .iter()
            .filter(|s| opts.systems.is_empty() || opts.systems.iter().any(|o| o == *s))
            .map(|s| (*s, Vec::new()))
            .collect();
        for round in 0..rounds {
            for (system, runs) in by_system.iter_mut() {
                eprintln!(
                    "{suite}: {} {:?} {} B, {system}, round {}",
                    case.name,
                    case.kind,
                    case.size,
                    round + 1
                );
                let run = run_one(&net, system, &case, (secs, warm_secs), one_host);
                rows.extend(rows_of(suite, system, &case, round, &run));
                if let Ok(r) = run {
                    runs.push(r);
                }
            }
        }
        if one_host {
            rows.extend(ratio_rows(&case, &by_system));
            continue;
        }
        let find = |name: &str| by_system.iter().find(|(s, _)| *s == name).map(|(_, r)| r);
        if let (Some(n), Some(z)) = (find("nerve"), find("zenoh")) {
            if n.len() == z.len() && !n.is_empty() {
                rows.extend(target_rows(&case, n, z));
            }
        }
    }
    emit(suite, args, &machine, &rows)
}
