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
//! the next round starting one system later), as docs/benchmarking.md asks. rclpy runs twice, with
//! its `EventsExecutor` and its default `SingleThreadedExecutor` (rows' `variant`);
//! `ratio_p50_vs_ros2` rows are the median over rounds of nerve p50 / rclpy p50 of the same
//! round (rclpy's better executor that round), and the same ratios go to stderr next to the
//! issue's targets (Rust ≤ 0.01, Python ≤ 0.05). A system that cannot be
//! set up, started or run becomes rows with `error`, never a gap.
//!
//! A topic ping-pong of the same payload runs beside nerve's Rust service at parallelism 1, in
//! the same rounds, cross-thread and cross-process ([`versus`]): `ratio_service_vs_topic_rtt`
//! rows are the median over rounds of the service's p50 round trip / the topic's.
//!
//! Files: [`echo`] (nerve's echo service and client threads, through nerve-rpc's public API),
//! [`measured`] (samples and call counts, their `rtt_ns` / `qps` rows), [`peers`] (the Python
//! systems' processes and rows), [`versus`] (the topic ping-pong), this one (the plan of the
//! run, the ratio rows).

mod echo;
mod measured;
mod peers;
mod versus;

pub use self::echo::echo_child_main;

use self::echo::{PARALLELISM, PAYLOADS};
use self::peers::{python_rows, round_ratio, PyRunner, Series};
use crate::child::SelfChild;
use crate::machine::Machine;
use crate::pin;
use crate::report::{self, Row, SuiteArgs};
use crate::{pyenv, python};
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
    let t = Instant::now();
    rows.extend(service_vs_topic_cross_thread(&budget, &pin_server));
    eprintln!(
        "rpc: service and topic round trips, cross-thread, alternating ({:.1} s)",
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
    let (dir, root) = pyenv::repo_dirs(None);
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
            match pyenv::interpreter(&r.system, &dir, &root, !args.no_setup) {
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
    // The topic ping-pong beside nerve's service, against the child's topic echoes.
    let mut topic: Vec<TopicSide> = PAYLOADS
        .iter()
        .map(|&p| TopicSide::open(domain, p, false))
        .collect();
    for round in 0..budget.rounds {
        for (pi, &payload) in PAYLOADS.iter().enumerate() {
            for k in 0..n {
                let idx = (round + k) % n;
                let s = &mut series[pi][idx];
                if idx == 0 {
                    let warmup = if round == 0 {
                        budget.warmup
                    } else {
                        budget.warmup / 4
                    };
                    match &echo {
                        // The topic first in odd rounds: neither always follows the other.
                        Ok(_) => topic[pi].round_beside(
                            s,
                            domain,
                            payload,
                            warmup,
                            budget.round,
                            round % 2 == 1,
                        ),
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

    // The pings' topics closed before the child (and its echoes) goes.
    for t in &mut topic {
        t.ping = Err(anyhow::anyhow!("closed"));
    }
    for (pi, &payload) in PAYLOADS.iter().enumerate() {
        rows.extend(versus_rows(
            "cross-process",
            payload,
            &series[pi][0],
            &topic[pi].series,
        ));
    }

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

/// Service and topic round trips, server and echoes threads of this process (on the server's
/// core), in alternating rounds at each payload: their `rtt_ns` rows and ratio rows.
fn service_vs_topic_cross_thread(budget: &Budget, pin_server: &echo::ServerSetup) -> Vec<Row> {
    let domain = 3_500_000 + std::process::id() % 90_000;
    let started = std::thread::scope(|s| {
        s.spawn(|| -> Result<_> {
            pin_server();
            let servers = PAYLOADS
                .iter()
                .map(|&p| echo::serve_echo(domain, &echo::echo_name(p), p))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((
                servers,
                versus::TopicEchoes::start(domain, &PAYLOADS, true)?,
            ))
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    let mut rows = Vec::new();
    let _servers = match started {
        Ok(s) => s,
        Err(e) => {
            for p in PAYLOADS {
                rows.push(
                    versus_row("cross-thread", p, "ratio_service_vs_topic_rtt")
                        .error(format!("{e:#}")),
                );
            }
            return rows;
        }
    };
    for (k, &payload) in PAYLOADS.iter().enumerate() {
        let mut service = Series::default();
        let mut topic = TopicSide::open(domain, payload, true);
        for round in 0..budget.rounds {
            let warmup = if round == 0 {
                budget.warmup
            } else {
                budget.warmup / 4
            };
            let topic_first = (round + k) % 2 == 1;
            topic.round_beside(
                &mut service,
                domain,
                payload,
                warmup,
                budget.round,
                topic_first,
            );
        }
        rows.extend(versus_rows(
            "cross-thread",
            payload,
            &service,
            &topic.series,
        ));
    }
    drop(_servers);
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(domain));
    rows
}

/// The topic ping-pong beside a service at one payload: its pinger and its series.
struct TopicSide {
    ping: Result<versus::TopicPing>,
    series: Series,
}

impl TopicSide {
    fn open(domain: u32, payload: usize, in_process: bool) -> Self {
        TopicSide {
            ping: versus::TopicPing::open(domain, payload, in_process),
            series: Series::default(),
        }
    }

    /// One round of the service's echo at `payload` (into `service`) and one of the topic
    /// ping-pong beside it, the topic first when `topic_first`.
    fn round_beside(
        &mut self,
        service: &mut Series,
        domain: u32,
        payload: usize,
        warmup: Duration,
        round: Duration,
        topic_first: bool,
    ) {
        for topic_now in [topic_first, !topic_first] {
            if topic_now {
                match &mut self.ping {
                    Ok(p) => self
                        .series
                        .add(Ok((p.measure(warmup, round), String::new()))),
                    Err(e) => self.series.add(Err(anyhow::anyhow!("{e:#}"))),
                }
            } else {
                let name = echo::echo_name(payload);
                let m = echo::measure(domain, &name, payload, 1, warmup, round);
                service.add(Ok((m, String::new())));
            }
        }
    }
}

/// A row of the service-versus-topic comparison.
fn versus_row(transport: &str, payload: usize, metric: &str) -> Row {
    Row::new(
        "rpc", "nerve", "rust", transport, "1:1", "blocking", "bytes", payload, metric,
    )
    .field("parallelism", 1)
}

/// The topic's `rtt_ns` row and the ratio row (service p50 / topic p50 per round, median over
/// rounds) of one payload.
fn versus_rows(transport: &str, payload: usize, service: &Series, topic: &Series) -> Vec<Row> {
    let what = "topic ping-pong beside the service, same rounds (fixed message ≤ 2 KB, loaned \
                chunk at 8 KB; recv_timeout as the service waits)";
    let mut rows = Vec::new();
    let base = |metric: &str| versus_row(transport, payload, metric).field("what", what);
    match topic.measured.rows(base) {
        Some(r) => rows.extend(r.into_iter().filter(|r| r.metric == "rtt_ns")),
        None => rows.push(
            base("rtt_ns").error(
                topic
                    .error
                    .clone()
                    .unwrap_or_else(|| topic.measured.no_success()),
            ),
        ),
    }
    let ratio = versus_row(transport, payload, "ratio_service_vs_topic_rtt")
        .field("threshold", 3.0)
        .field(
            "note",
            "per round: the service's p50 round trip / the topic's of the same round; p50 = \
             median over rounds",
        );
    rows.push(match round_ratio(service, topic) {
        Some((r, k)) => ratio
            .summary(report::summary_of(r, r, r, r, r, r, k as u64))
            .field("pass", r <= 3.0),
        None => ratio.error("no round with both measured"),
    });
    rows
}
