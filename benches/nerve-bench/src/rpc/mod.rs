//! `nerve-bench rpc`: service round trip (`rtt_ns`) and throughput (`qps`), nerve against ROS 2
//! (rclpy services) and Zenoh (queryables), in one run (issue 5).
//!
//! - **nerve, Rust, cross-thread**: [`echo::run_cross_thread`], server and clients
//!   threads of this process, the clients pinned to the first core and the server to the
//!   second (512 B, 2 KB, 8 KB × parallelism 1, 4, 8).
//! - **nerve, Rust, cross-process**: the echo servers run in a child (`__rpc-echo`, this binary
//!   re-executed, pinned to the second core); the client threads here, pinned to the first.
//!   Same sizes and parallelism.
//! - **Python, cross-process**: `benches/python/rpc_pingpong.py --serve` per system, each in its
//!   own interpreter (nerve from the repository's `.venv`, the peers from
//!   `benches/python/.venvs/<peer>`, set up like `nerve-bench python` does); the client on the
//!   first core starts its server on the second. Systems: `ros2` (rclpy
//!   `rcl_interfaces/srv/GetParameters` carrying N-character strings both ways, Fast DDS), `zenoh` (queryable + `Session.get`, loopback TCP), `nerve`
//!   (the Python `nerve.Service` client against a Python `nerve.Service` server, and against the
//!   Rust echo server: rows' `variant`). Parallelism 1 in the rounds below, then 4 and 8
//!   (rclpy: that many calls in flight on its executor; the others: caller threads, each with
//!   its own client).
//!
//! Parallelism 1 runs in alternating short rounds (nerve Rust, nerve Python, rclpy, Zenoh, then
//! the next round starting one system later), as BENCHMARKS.md asks. rclpy runs twice, with
//! its `EventsExecutor` and its default `SingleThreadedExecutor` (rows' `variant`);
//! `ratio_p50_vs_ros2` rows are the median over rounds of nerve p50 / rclpy p50 of the same
//! round (rclpy's better executor that round), and the same ratios go to stderr next to the
//! issue's targets (Rust ≤ 0.01, Python ≤ 0.05). A system that cannot be
//! set up, started or run becomes rows with `error`, never a gap.
//!
//! Files: [`echo`] (nerve's echo service and client threads, through nerve-rpc's public API),
//! [`measured`] (samples and call counts, their `rtt_ns` / `qps` rows), [`peers`] (the Python
//! systems' processes and rows), this one (the plan of the run, the ratio rows).

mod echo;
mod measured;
mod peers;

pub use self::echo::echo_child_main;

use self::echo::{PARALLELISM, PAYLOADS};
use self::peers::{python_rows, round_ratio, PyRunner, Series};
use crate::child::SelfChild;
use crate::machine::Machine;
use crate::pin;
use crate::python;
use crate::report::{self, Row, SuiteArgs};
use anyhow::{bail, Result};
use std::time::{Duration, Instant};

/// Options of `nerve-bench rpc`.
#[derive(clap::Args, Debug)]
pub struct RpcArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Python systems to compare (the Rust nerve rows always run).
    #[arg(long, value_delimiter = ',', default_value = "nerve,ros2,zenoh")]
    pub systems: Vec<String>,
    /// Alternating rounds at parallelism 1 (default: 3 with --quick, 10 otherwise).
    #[arg(long)]
    pub rounds: Option<usize>,
    /// Do not run `benches/python/setup_peers.sh` for missing peer venvs; just report them.
    #[arg(long)]
    pub no_setup: bool,
}

/// How long each piece measures.
struct Budget {
    rounds: usize,
    warmup: Duration,
    /// Per case of the non-alternated runs (cross-thread, parallelism 4 and 8).
    case: Duration,
    /// Per system and payload in one round.
    round: Duration,
}

impl Budget {
    fn new(quick: bool, rounds: Option<usize>) -> Self {
        let b = if quick {
            Budget {
                rounds: 3,
                warmup: Duration::from_millis(100),
                case: Duration::from_millis(400),
                round: Duration::from_millis(250),
            }
        } else {
            Budget {
                rounds: 10,
                warmup: Duration::from_millis(500),
                case: Duration::from_secs(3),
                round: Duration::from_secs(1),
            }
        };
        Budget {
            rounds: rounds.unwrap_or(b.rounds).max(1),
            ..b
        }
    }
}

/// A domain of its own for this run's services.
fn bench_domain() -> u32 {
    3_900_000 + std::process::id() % 90_000
}

/// `nerve-bench rpc`.
pub fn run_suite(args: &RpcArgs) -> Result<()> {
    let quick = args.suite.quick;
    let budget = Budget::new(quick, args.rounds);
    let machine = Machine::detect();
    eprintln!("machine: {}", machine.summary());
    let load_start = python::loadavg();
    let mut rows: Vec<Row> = Vec::new();

    // 1. Cross-thread, every case: clients pinned to the first core, the server's threads to
    // the second (unpinned, a loaded machine may put both on one core: then every hand-over
    // waits for a yield and the round trip says nothing about nerve).
    let (client_core, server_core) = pin::bench_cores();
    if let Err(e) = pin::pin_current_thread(client_core) {
        eprintln!("rpc: {e:#} (clients unpinned)");
    }
    let t = Instant::now();
    let pin_server = move || {
        let _ = pin::pin_current_thread(server_core);
    };
    rows.extend(echo::run_cross_thread(
        budget.warmup,
        budget.case,
        &pin_server,
    ));
    eprintln!(
        "rpc: nerve rust cross-thread ({:.1} s)",
        t.elapsed().as_secs_f64()
    );

    // 2. Cross-process: the echo servers in a child on the second core, clients here.
    let domain = bench_domain();
    let mut echo = SelfChild::spawn(&[
        "__rpc-echo".into(),
        "--domain".into(),
        domain.to_string(),
        "--core".into(),
        server_core.to_string(),
    ])
    .and_then(|mut c| {
        let line = c.read_line(Duration::from_secs(20))?;
        if line != "ready" {
            bail!("rpc echo child: {line}");
        }
        Ok(c)
    });
    if let Err(e) = &echo {
        eprintln!("rpc: nerve rust cross-process unavailable: {e:#}");
    }

    // 3. The Python systems.
    let (dir, root) = python::repo_dirs(None);
    let script = dir.join("rpc_pingpong.py");
    let mut runners: Vec<PyRunner> = Vec::new();
    for s in &args.systems {
        // nerve's Python client against a Python and against the Rust server; rclpy with its
        // EventsExecutor (the default here) and its default SingleThreadedExecutor.
        let variants: Vec<String> = match s.as_str() {
            "nerve" => vec![String::new(), format!("rust-server:{domain}")],
            "ros2" => vec![String::new(), "single".into()],
            _ => vec![String::new()],
        };
        for variant in variants {
            runners.push(PyRunner {
                system: s.clone(),
                variant,
                proc: None,
                dead: None,
                version: String::new(),
            });
        }
    }
    let t = Instant::now();
    for r in runners.iter_mut() {
        if r.variant.starts_with("rust-server") {
            if let Err(e) = &echo {
                r.dead = Some(format!("no Rust echo server: {e:#}"));
            }
        }
        if r.dead.is_none() {
            match python::interpreter(&r.system, &dir, &root, !args.no_setup) {
                Ok(py) => r.start(&py, &script),
                Err(e) => r.dead = Some(e),
            }
        }
        match &r.dead {
            Some(e) => eprintln!("rpc: python {} unavailable: {e}", r.label()),
            None => eprintln!("rpc: python {} ready (version {})", r.label(), r.version),
        }
    }
    eprintln!("rpc: python set-up {:.1} s", t.elapsed().as_secs_f64());

    // 4. Parallelism 1 in alternating rounds: nerve rust, then each Python runner.
    let t = Instant::now();
    let n = 1 + runners.len();
    let mut series: Vec<Vec<Series>> = PAYLOADS
        .iter()
        .map(|_| (0..n).map(|_| Series::default()).collect())
        .collect();
    for round in 0..budget.rounds {
        for (pi, &payload) in PAYLOADS.iter().enumerate() {
            for k in 0..n {
                let idx = (round + k) % n;
                let s = &mut series[pi][idx];
                if idx == 0 {
                    match &echo {
                        Ok(_) => {
                            let m = echo::measure(
                                domain,
                                &echo::echo_name(payload),
                                payload,
                                1,
                                if round == 0 {
                                    budget.warmup
                                } else {
                                    budget.warmup / 4
                                },
                                budget.round,
                            );
                            s.add(Ok((m, String::new())));
                        }
                        Err(e) => s.add(Err(anyhow::anyhow!("{e:#}"))),
                    }
                } else {
                    let warmup = if round == 0 { 200 } else { 20 };
                    s.add(runners[idx - 1].round(payload, 1, budget.round, warmup));
                }
            }
        }
    }
    eprintln!(
        "rpc: {} alternating rounds at parallelism 1 ({:.1} s)",
        budget.rounds,
        t.elapsed().as_secs_f64()
    );

    // 5. Cross-process rows: parallelism 1 from the rounds, then 4 and 8.
    let t = Instant::now();
    for (pi, &payload) in PAYLOADS.iter().enumerate() {
        for parallelism in PARALLELISM {
            let m = match (&echo, parallelism) {
                (Err(e), _) => {
                    let r = Row::new(
                        "rpc",
                        "nerve",
                        "rust",
                        "cross-process",
                        &format!("{parallelism}:1"),
                        "blocking",
                        "bytes",
                        payload,
                        "rtt_ns",
                    )
                    .field("parallelism", parallelism)
                    .error(format!("echo child: {e:#}"));
                    rows.push(r);
                    continue;
                }
                (Ok(_), 1) => series[pi][0].measured.clone(),
                (Ok(_), p) => echo::measure(
                    domain,
                    &echo::echo_name(payload),
                    payload,
                    p,
                    budget.warmup,
                    budget.case,
                ),
            };
            rows.extend(echo::rows(&m, "cross-process", payload, parallelism));
        }
    }
    eprintln!(
        "rpc: nerve rust cross-process parallelism 4, 8 ({:.1} s)",
        t.elapsed().as_secs_f64()
    );

    // 6. The Python systems at parallelism 4 and 8 (rclpy: calls in flight on its executor;
    // the others: caller threads, each with its own client).
    let t = Instant::now();
    let mut parallel_rows = Vec::new();
    for &payload in &PAYLOADS {
        for parallelism in PARALLELISM.into_iter().filter(|&p| p > 1) {
            for (ri, r) in runners.iter_mut().enumerate() {
                let mut s = Series::default();
                s.add(r.round(payload, parallelism, budget.case, 50));
                parallel_rows.push((ri, payload, parallelism, s));
            }
        }
    }
    eprintln!(
        "rpc: python parallelism 4, 8 ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    if let Ok(c) = &mut echo {
        let _ = c.send_line("quit");
    }
    drop(echo);

    // 7. Python rows and the ratios against rclpy.
    for (pi, &payload) in PAYLOADS.iter().enumerate() {
        for (ri, r) in runners.iter().enumerate() {
            rows.extend(python_rows(r, payload, 1, &series[pi][ri + 1]));
        }
    }
    for (ri, payload, parallelism, s) in &parallel_rows {
        rows.extend(python_rows(&runners[*ri], *payload, *parallelism, s));
    }
    let ros: Vec<usize> = (0..runners.len())
        .filter(|&i| runners[i].system == "ros2")
        .collect();
    let mut summary = Vec::new();
    for (pi, &payload) in PAYLOADS.iter().enumerate() {
        if ros.is_empty() {
            break;
        }
        // Per round, rclpy's better executor.
        let rclpy = Series {
            round_p50: (0..budget.rounds)
                .map(|k| {
                    ros.iter()
                        .filter_map(|&i| series[pi][i + 1].round_p50.get(k).copied().flatten())
                        .reduce(f64::min)
                })
                .collect(),
            ..Series::default()
        };
        let rclpy = &rclpy;
        // (system, api, label, series) of everything compared with rclpy.
        let mut compared = vec![("nerve", "rust", "nerve rust".to_string(), &series[pi][0])];
        for (ri, r) in runners.iter().enumerate() {
            let label = match (r.system.as_str(), r.variant.is_empty()) {
                ("ros2", _) => continue,
                ("nerve", true) => "nerve python (python server)".to_string(),
                ("nerve", false) => "nerve python (rust server)".to_string(),
                (other, _) => format!("{other} python"),
            };
            compared.push((r.system.as_str(), "python", label, &series[pi][ri + 1]));
        }
        for (system, api, label, s) in compared {
            let base = Row::new(
                "rpc",
                system,
                api,
                "cross-process",
                "1:1",
                "blocking",
                "bytes",
                payload,
                "ratio_p50_vs_ros2",
            )
            .field("parallelism", 1)
            .field("what", label.clone());
            // Issue 5's targets: Rust ≤ 0.01 × rclpy, Python ≤ 0.05 × rclpy.
            let target = match (system, api) {
                ("nerve", "rust") => Some(0.01),
                ("nerve", _) => Some(0.05),
                _ => None,
            };
            match round_ratio(s, rclpy) {
                Some((ratio, k)) => {
                    let verdict = target.map_or(String::new(), |t| {
                        let pass = if ratio <= t { "pass" } else { "FAIL" };
                        format!("  target ≤ {t}: {pass}")
                    });
                    summary.push(format!(
                        "  {payload:>5} B  {label:<30} {ratio:.4}  ({k} rounds){verdict}"
                    ));
                    let mut row = base
                        .summary(report::summary_of(
                            ratio, ratio, ratio, ratio, ratio, ratio, k as u64,
                        ))
                        .field(
                            "note",
                            "per round: p50 / rclpy p50 of the same round (its better executor); p50 = median over rounds",
                        );
                    if let Some(t) = target {
                        row = row.field("threshold", t).field("pass", ratio <= t);
                    }
                    rows.push(row);
                }
                None => {
                    summary.push(format!("  {payload:>5} B  {label:<30} not measured"));
                    rows.push(base.error("no round with both measured"));
                }
            }
        }
    }
    drop(runners);
    eprintln!(
        "load average: {load_start} at the start, {} at the end",
        python::loadavg()
    );
    if !ros.is_empty() {
        eprintln!("ratio of p50 round trips, parallelism 1, cross-process (median over rounds of per-round ratios):");
        eprintln!("  targets: nerve rust / rclpy ≤ 0.01, nerve python / rclpy ≤ 0.05");
        for l in summary {
            eprintln!("{l}");
        }
    }
    report::emit("rpc", &args.suite, &machine, &rows)
}
