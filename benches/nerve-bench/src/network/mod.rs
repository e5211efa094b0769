//! `nerve-bench network`: AimRT's multi-machine tables, between two hosts that are network
//! namespaces on this machine (a veth each into a switch; one clock, so one-way latency is
//! receive time − send stamp). Systems, in interleaved rounds per case:
//!
//! - `nerve`: nerve publishers and subscribers on each host's shared memory, a Zenoh bridge
//!   per host (`nerve_zenoh`, peer mode, TCP, both listening), the publishing process sending
//!   into Zenoh itself (`nerve_zenoh::direct`, issue 35);
//! - `nerve-bridge`: the same without `direct`: every message through both bridges (what a
//!   process that may not open sockets keeps);
//! - `zenoh`: raw Zenoh, the same payloads, publishers `express` with blocking congestion
//!   control as the bridge sends reliable topics, TCP, the subscriber a callback on Zenoh's
//!   thread;
//! - `zenoh-recv`: the same, the subscriber Zenoh's default (its FIFO channel) with a thread
//!   asleep in `recv`: the same wait as nerve's subscriber, so the like-for-like peer of the
//!   issue-35 targets (channels only; a query's reply is received the same way in `zenoh`);
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
mod rows;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use nerve_testing::netns::{Net, Proc};

use crate::machine::Machine;
use crate::report::{emit, SuiteArgs};

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

pub use roles::run as role_main;
use roles::{Outcome, Spec};
use rows::{labels, like_rows, ratio_rows, rows_of, target_rows};

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
        &[16, 512, 1024, 2048, 4096, 8192]
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
    // Issue 35's grid: 16 B, 1 KB and 8 KB on 4 and 8 topics (1 KB only in a quick run or on
    // one host).
    let multi: &[usize] = if quick || one_host {
        &[1024]
    } else {
        &[16, 1024, 8192]
    };
    for topics in [4, 8] {
        for &size in multi {
            c.push(Case {
                name: "channel",
                kind: Kind::Channel { topics, hz: 1000.0 },
                size,
            });
        }
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
        Kind::Channel { .. } if case.size <= 8192 && quick => {
            &["nerve", "zenoh", "zenoh-recv", "udp", "ros2"]
        }
        Kind::Channel { .. } if case.size <= 8192 => &[
            "nerve",
            "zenoh",
            "zenoh-recv",
            "udp",
            "ros2",
            "nerve-bridge",
            "nerve-local",
        ],
        Kind::Rpc { .. } => &["nerve", "zenoh", "ros2"],
        _ if quick => &["nerve", "zenoh", "zenoh-recv"],
        _ => &[
            "nerve",
            "zenoh",
            "zenoh-recv",
            "nerve-bridge",
            "nerve-local",
        ],
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
    let raw_zenoh = system.starts_with("zenoh");
    let bridged = system == "nerve" || system == "nerve-bridge";
    let zenoh_port = if bridged { 7447 } else { 7448 };
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
    // Both bridges listen (a process's own session reaches the other host's bridge that way);
    // the receiving host's connects to the sending host's.
    let b_listen = vec![format!("tcp/{}:{zenoh_port}", net.hosts[hb].ip)];
    if bridged && !one_host {
        for (host, (l, c)) in [(listen.clone(), vec![]), (b_listen, connect.clone())]
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
    let (a_listen, b_connect) = if raw_zenoh {
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
                    // `nerve`: its own session beside the host bridge.
                    direct: system == "nerve" && !one_host,
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
        // Issue 35: against the peer of the same wait (channels: `zenoh-recv`; calls: `zenoh`,
        // whose client receives its reply through the same channel).
        let peer = if matches!(case.kind, Kind::Rpc { .. }) {
            find("zenoh")
        } else {
            find("zenoh-recv")
        };
        if let (Some(n), Some(z)) = (find("nerve"), peer) {
            if n.len() == z.len() && !n.is_empty() {
                rows.extend(like_rows(&case, n, z));
            }
        }
    }
    emit(suite, args, &machine, &rows)
}
