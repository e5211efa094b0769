//! `nerve-bench ros2`: the latency nerve's ROS 2 bridge (`nerve.ros2_bridge`, on rclpy) adds,
//! beside a direct rclpy → rclpy hop, in the same run, in interleaved rounds.
//!
//! Three round trips per message (16 B and 1 KB as `UInt8MultiArray`, a 640×480 rgb8 `Image`):
//! - `direct`: an rclpy node publishes, another rclpy node takes the message and publishes it
//!   back (`benches/python/ros2_bridge_bench.py`, `ping` and `echo`): two rclpy hops.
//! - `nerve-ros2-nerve`: this process publishes on nerve; the bridge carries it to ROS 2, where
//!   the same rclpy echo answers; the bridge carries the answer back into nerve: two rclpy
//!   hops, two bridge crossings.
//! - `ros2-nerve-ros2`: the rclpy pinger publishes; the bridge carries it into nerve, where an
//!   echo thread of this process answers; the bridge carries the answer back: the same.
//!
//! So a bridged round trip minus the direct one is what two crossings add, and the target
//! (the bridge adds ≤ 0.5 × a direct rclpy hop) reads `(bridged − direct) / direct ≤ 0.5`,
//! computed per round from the two medians. Nothing is pinned: the bridge, the rclpy nodes
//! and Fast DDS's threads share the two cores. Every ROS 2 process gets the same Fast DDS
//! profile (`benches/python/fastdds_large_messages.xml`: shared memory big enough for a
//! frame).

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use nerve::msgs::{Encoding, Header, Image, ImageHeader, UInt8MultiArray};
use nerve::{ChunkedMessage, Topic};

use crate::child::line_after;
use crate::machine::Machine;
use crate::report::{emit, Row, SuiteArgs};
use crate::stats::{median, Summary};

/// The messages: (name in the topics, nerve/ROS 2 message, bytes).
const KINDS: [(&str, &str, usize); 3] = [
    ("b16", "UInt8MultiArray", 16),
    ("b1k", "UInt8MultiArray", 1024),
    ("image", "Image", 640 * 480 * 3),
];

const PATHS: [&str; 3] = ["direct", "nerve-ros2-nerve", "ros2-nerve-ros2"];

/// The children of one run, stopped (SIGINT, then kill) when dropped.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(c.id() as i32, libc::SIGINT) };
        }
        let end = Instant::now() + Duration::from_secs(5);
        for c in &mut self.0 {
            while matches!(c.try_wait(), Ok(None)) && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

struct RosSide {
    py: PathBuf,
    script: PathBuf,
    env: Vec<(String, String)>,
}

impl RosSide {
    fn spawn(&self, args: &[&str], stdin: bool) -> Result<Child> {
        let mut c = Command::new(&self.py);
        c.args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if stdin {
            c.stdin(Stdio::piped());
        }
        c.spawn()
            .with_context(|| format!("starting {} {args:?}", self.py.display()))
    }
}

/// The rclpy pinger, driven line by line.
struct Pinger {
    stdin: ChildStdin,
    out: BufReader<std::process::ChildStdout>,
}

impl Pinger {
    fn ping(&mut self, path: &str, kind: &str, n: usize) -> Result<Vec<f64>> {
        writeln!(self.stdin, "PING {path} {kind} {n}")?;
        self.stdin.flush()?;
        let rest = line_after(&mut self.out, &format!("RESULT {path} {kind}"))?;
        let v: Vec<f64> = serde_json::from_str(&rest)?;
        if v.len() < n {
            bail!(
                "{path} {kind}: {} of {n} round trips came back in 60 s",
                v.len()
            );
        }
        Ok(v)
    }
}

/// A topic of this run: opened (created if the bridge has not yet, with its settings adopted
/// if it has), so either side may come first.
fn topic<M: ChunkedMessage>(name: &str, domain: u32) -> Result<Topic<M>> {
    Topic::<M>::builder(name)
        .domain(domain)
        .open()
        .map_err(|e| anyhow!("nerve topic {name}: {e}"))
}

/// nerve → ROS 2 → nerve round trips from this process.
struct NervePing {
    domain: u32,
}

impl NervePing {
    fn ping(&self, kind: &str, n: usize) -> Result<Vec<f64>> {
        match kind {
            "image" => self.run::<Image>(
                kind,
                n,
                |l, seq| {
                    let stamp = Header::new(seq * 1_000_000_000, seq, "cam").expect("frame id");
                    *l.header_mut() = ImageHeader::new(stamp, 640, 480, Encoding::Rgb8);
                },
                |s| s.header().header.stamp_ns / 1_000_000_000,
            ),
            _ => self.run::<UInt8MultiArray>(
                kind,
                n,
                |l, seq| {
                    l.data_mut()[..4].copy_from_slice(&(seq as u32).to_le_bytes());
                },
                |s| {
                    u64::from(u32::from_le_bytes(
                        s.data()[..4].try_into().expect("4 bytes"),
                    ))
                },
            ),
        }
    }

    fn run<M: ChunkedMessage<Elem = u8>>(
        &self,
        kind: &str,
        n: usize,
        mark: impl Fn(&mut nerve::Loan<'_, M>, u64),
        seq_of: impl Fn(&nerve::Sample<M>) -> u64,
    ) -> Result<Vec<f64>> {
        let bytes = KINDS.iter().find(|k| k.0 == kind).map_or(16, |k| k.2);
        let out = topic::<M>(&format!("nrn/{kind}/a"), self.domain)?.publisher()?;
        let mut back = topic::<M>(&format!("nrn/{kind}/b"), self.domain)?.subscriber()?;
        let mut rtts = Vec::with_capacity(n);
        let end = Instant::now() + Duration::from_secs(60);
        let mut seq = 1u64;
        while rtts.len() < n && Instant::now() < end {
            seq += 1;
            let mut loan = out.loan(bytes)?;
            mark(&mut loan, seq);
            let t0 = Instant::now();
            loan.send()?;
            let wait = t0 + Duration::from_secs(2);
            while let Some(s) = back.recv_timeout(wait.saturating_duration_since(Instant::now()))? {
                if seq_of(&s) == seq {
                    rtts.push(t0.elapsed().as_nanos() as f64);
                    break;
                }
            }
        }
        if rtts.len() < n {
            bail!(
                "nerve-ros2-nerve {kind}: {} of {n} round trips came back in 60 s",
                rtts.len()
            );
        }
        Ok(rtts)
    }
}

/// The nerve end of ros2-nerve-ros2: answers rnr/<kind>/a on rnr/<kind>/b until `stop`.
fn nerve_echo<M: ChunkedMessage<Elem = u8>>(
    kind: &str,
    domain: u32,
    stop: Arc<AtomicBool>,
) -> Result<()>
where
    M::Header: Copy,
{
    let out = topic::<M>(&format!("rnr/{kind}/b"), domain)?.publisher()?;
    let mut sub = topic::<M>(&format!("rnr/{kind}/a"), domain)?.subscriber()?;
    // Relaxed: a flag with nothing behind it (its store in `measure`); seen within 100 ms.
    while !stop.load(Relaxed) {
        if let Some(s) = sub.recv_timeout(Duration::from_millis(100))? {
            let mut l = out.loan(s.data().len())?;
            *l.header_mut() = *s.header();
            l.data_mut().copy_from_slice(s.data());
            l.send()?;
        }
    }
    Ok(())
}

pub fn run_suite(args: &SuiteArgs) -> Result<()> {
    let machine = Machine::detect();
    let rows = match measure(args.quick) {
        Ok(rows) => rows,
        Err(e) => KINDS
            .iter()
            .flat_map(|(_, m, b)| PATHS.map(|p| row(p, m, *b, "rtt_ns").error(format!("{e:#}"))))
            .collect(),
    };
    emit("ros2", args, &machine, &rows)
}

fn row(path: &str, message: &str, bytes: usize, metric: &str) -> Row {
    let system = if path == "direct" {
        "ros2"
    } else {
        "nerve-ros2-bridge"
    };
    Row::new(
        "ros2",
        system,
        "python",
        "cross-process",
        "1:1",
        "blocking",
        message,
        bytes,
        metric,
    )
    .field("path", path)
}

fn measure(quick: bool) -> Result<Vec<Row>> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let py = here.join(".venvs/ros2/bin/python");
    if !py.exists() {
        bail!("the ros2 peer is not installed: run benches/python/setup_peers.sh ros2");
    }
    let domain = nerve_testing::unique_domain();
    let ros_domain = (1 + std::process::id() % 200).to_string();
    let side = RosSide {
        py,
        script: here.join("ros2_bridge_bench.py"),
        env: vec![
            (
                "PYTHONPATH".into(),
                root.join("bindings/python/python").display().to_string(),
            ),
            ("NERVE_DOMAIN".into(), domain.to_string()),
            ("ROS_DOMAIN_ID".into(), ros_domain),
            ("ROS_AUTOMATIC_DISCOVERY_RANGE".into(), "LOCALHOST".into()),
            ("RMW_IMPLEMENTATION".into(), "rmw_fastrtps_cpp".into()),
            // Shared memory big enough for a frame, for every ROS 2 process alike (without
            // it a 921 KB image goes over UDP: ~12 ms a hop instead of ~2).
            (
                "FASTDDS_DEFAULT_PROFILES_FILE".into(),
                here.join("fastdds_large_messages.xml")
                    .display()
                    .to_string(),
            ),
        ],
    };
    let script = side.script.display().to_string();
    let mut kids = Children(Vec::new());
    let mut bridge = side.spawn(
        &[
            "-m",
            "nerve.ros2_bridge",
            "--export",
            "nrn/**",
            "--export",
            "rnr/**",
            "--import",
            "/nrn/**",
            "--import",
            "/rnr/**",
            "--no-import-services",
        ],
        false,
    )?;
    let mut bout = BufReader::new(
        bridge
            .stdout
            .take()
            .ok_or_else(|| anyhow!("bridge stdout"))?,
    );
    kids.0.push(bridge);
    line_after(&mut bout, "nerve ros2 bridge up")?;
    let mut echo = side.spawn(&[&script, "echo"], false)?;
    let mut eout = BufReader::new(echo.stdout.take().ok_or_else(|| anyhow!("echo stdout"))?);
    kids.0.push(echo);
    line_after(&mut eout, "READY")?;
    let mut ping = side.spawn(&[&script, "ping"], true)?;
    let mut pinger = Pinger {
        stdin: ping.stdin.take().ok_or_else(|| anyhow!("pinger stdin"))?,
        out: BufReader::new(ping.stdout.take().ok_or_else(|| anyhow!("pinger stdout"))?),
    };
    kids.0.push(ping);
    line_after(&mut pinger.out, "READY")?;

    let stop = Arc::new(AtomicBool::new(false));
    let echoes: Vec<_> = KINDS
        .iter()
        .map(|(k, m, _)| {
            let (k, stop) = (k.to_string(), stop.clone());
            let image = *m == "Image";
            std::thread::spawn(move || {
                let r = if image {
                    nerve_echo::<Image>(&k, domain, stop)
                } else {
                    nerve_echo::<UInt8MultiArray>(&k, domain, stop)
                };
                if let Err(e) = &r {
                    eprintln!("ros2: the nerve echo of {k} stopped: {e:#}");
                }
            })
        })
        .collect();
    let nerve_ping = NervePing { domain };

    let (rounds, n_small, n_image) = if quick { (3, 100, 20) } else { (5, 400, 60) };
    // Warm-up: discovery on every path (the first round trips wait for it), then samples.
    let mut samples: Vec<Vec<Vec<Vec<f64>>>> = vec![vec![Vec::new(); PATHS.len()]; KINDS.len()];
    for round in 0..=rounds {
        for (ki, (k, _, _)) in KINDS.iter().enumerate() {
            let n = if round == 0 {
                5
            } else if *k == "image" {
                n_image
            } else {
                n_small
            };
            eprintln!("ros2: round {round}/{rounds}, {k}, {n} round trips per path");
            let got = [
                pinger.ping("direct", k, n)?,
                nerve_ping.ping(k, n)?,
                pinger.ping("rnr", k, n)?,
            ];
            if round > 0 {
                for (pi, v) in got.into_iter().enumerate() {
                    samples[ki][pi].push(v);
                }
            }
        }
    }
    stop.store(true, Relaxed); // Relaxed: see nerve_echo; the joins order the rest

    for e in echoes {
        let _ = e.join();
    }
    drop(kids);
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(domain));
    Ok(rows_of(&samples))
}

fn rows_of(samples: &[Vec<Vec<Vec<f64>>>]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (ki, (_, m, bytes)) in KINDS.iter().enumerate() {
        for (pi, path) in PATHS.iter().enumerate() {
            let mut all: Vec<f64> = samples[ki][pi].iter().flatten().copied().collect();
            rows.push(row(path, m, *bytes, "rtt_ns").summary_opt(Summary::of(&mut all)));
        }
        for (pi, path) in PATHS.iter().enumerate().skip(1) {
            let mut ratios: Vec<f64> = samples[ki][0]
                .iter()
                .zip(&samples[ki][pi])
                .filter_map(|(d, b)| Some((median(b)? - median(d)?) / median(d)?))
                .collect();
            let worst = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let per_round = ratios.clone();
            let summary = Summary::of(&mut ratios);
            let pass = summary.as_ref().is_some_and(|s| s.p50 <= 0.5);
            rows.push(
                row(path, m, *bytes, "target_bridge_added_vs_direct_hop")
                    .summary_opt(summary)
                    .field("pass", pass)
                    .field("threshold", 0.5)
                    .field("worst_round", worst)
                    .field("per_round", per_round)
                    .field("how", "per round: (bridged round trip − direct rclpy round trip) / direct round trip, medians; both have two rclpy hops, the bridged one two bridge crossings too; pass if the median round ≤ 0.5 (as the other suites' targets), the worst round shown beside it"),
            );
        }
    }
    rows
}
