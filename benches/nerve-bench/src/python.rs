//! `nerve-bench python`: Python-to-Python cross-process one-way latency (RTT/2), nerve against
//! HORUS, iceoryx2, Zenoh and ROS 2 (rclpy), each from its own interpreter, in alternating
//! rounds.
//!
//! The measuring is done by `benches/python/pingpong.py` (ping pinned to core 0, echo to core
//! 1, `perf_counter_ns` around each round trip); this module sets the peers up (or checks
//! them), starts one `pingpong.py --serve` per system, sends it one command per round, pools
//! the samples and computes per-round ratios. A system that cannot be installed, started or
//! run becomes rows with `error`, never a silent gap.

mod targets;

use crate::machine::Machine;
use crate::pyenv::{interpreter, repo_dirs};
use crate::report::{self, Row};
use crate::stats::{self, Summary};
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Options of `nerve-bench python`.
#[derive(clap::Args, Debug)]
pub struct PythonArgs {
    /// The whole suite in about 5 minutes: 3 rounds of ≤ 0.15 s per system and scenario.
    #[arg(long)]
    pub quick: bool,
    /// Write `{"machine": .., "results": [..]}` here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the same rows flat here.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Draw latency vs payload (PNG) from the JSON (needs --json; uses benches/python/plot.py).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Systems, in round order.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "nerve,horus,iceoryx2,zenoh,ros2"
    )]
    pub systems: Vec<String>,
    /// Alternating rounds per scenario (default: 3 with --quick, 10 otherwise).
    #[arg(long)]
    pub rounds: Option<usize>,
    /// Only scenarios whose description (e.g. `CmdVel poll`) contains one of these texts
    /// (comma-separated); the in-process tables (`inproc`, `async`, `wrapyfi`) by name.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Do not run `benches/python/setup_peers.sh` for missing peer venvs; just report them.
    #[arg(long)]
    pub no_setup: bool,
    /// Where `pingpong.py`, the adapters and `.venvs/` live (default: the source tree's
    /// `benches/python`).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// (scenario, budget kind). The `Custom` and `Tensor-*` scenarios are nerve's own (the peers
/// answer them with an `error` row saying so).
const SCENARIOS: [(&str, &str); 17] = [
    ("CmdVel", "small"),
    ("Pose2D", "small"),
    ("Imu", "small"),
    ("dict-v", "small"),
    ("dict-xyz", "small"),
    ("dict-small", "small"),
    ("dict-1k", "small"),
    ("Image-640x480", "image"),
    ("Image-1920x1080", "image"),
    ("Custom", "small"),
    ("Tensor-200x200", "small"),
    ("Tensor-200x200-loan", "small"),
    ("Tensor-200x200-msgpack", "small"),
    ("Tensor-200x200-torch", "small"),
    ("Tensor-4096x4096", "image"),
    ("Tensor-4096x4096-loan", "image"),
    ("Tensor-4096x4096-torch", "image"),
];
const MODES: [&str; 2] = ["poll", "blocking"];

/// How much each round measures.
struct Budget {
    rounds: usize,
    /// Per round: at most this many samples ...
    small_samples: usize,
    image_samples: usize,
    /// ... or this long (then at least `min_samples`).
    max_s: f64,
    warmup: usize,
}

impl Budget {
    fn new(quick: bool, rounds: Option<usize>) -> Self {
        let b = if quick {
            Budget {
                rounds: 3,
                small_samples: 2_000,
                image_samples: 200,
                // rclpy's and Zenoh's rounds reach the time limit (a few hundred samples).
                max_s: 0.15,
                warmup: 100,
            }
        } else {
            // Sized so two full `all` runs fit a working session on a 2-core machine
            // (docs/benchmarking.md, "Quick and full runs"); `--rounds` asks for more.
            Budget {
                rounds: 10,
                small_samples: 10_000,
                image_samples: 500,
                max_s: 0.25,
                warmup: 1_000,
            }
        };
        Budget {
            rounds: rounds.unwrap_or(b.rounds).max(1),
            ..b
        }
    }
}

/// One interpreter running `pingpong.py --serve` for one system (and variant).
struct Runner {
    system: String,
    variant: String,
    proc: Option<PyProc>,
    /// Why this runner cannot measure anything (set up, start or a crash).
    dead: Option<String>,
    version: String,
    python: String,
    timer: Option<Vec<f64>>,
}

/// A Python process driven by one JSON line per command (`pingpong.py --serve`, and
/// `rpc_pingpong.py --serve` for the `rpc` suite). Killed and reaped when dropped.
pub(crate) struct PyProc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl PyProc {
    /// Starts `python script --system S --serve [--variant V]`.
    pub(crate) fn spawn(python: &Path, script: &Path, system: &str, variant: &str) -> Result<Self> {
        let mut cmd = Command::new(python);
        cmd.arg(script).args(["--system", system, "--serve"]);
        if !variant.is_empty() {
            cmd.args(["--variant", variant]);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {} {}", python.display(), script.display()))?;
        let stdin = child.stdin.take().context("child stdin")?;
        let stdout = child.stdout.take().context("child stdout")?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Self {
            child,
            stdin,
            lines,
        })
    }

    /// Sends one command.
    pub(crate) fn send(&mut self, v: &Value) -> Result<()> {
        writeln!(self.stdin, "{v}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// The next JSON line (other lines, e.g. a library's chatter on stdout, are skipped).
    pub(crate) fn recv(&mut self, timeout: Duration) -> Result<Value> {
        let end = Instant::now() + timeout;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    if let Ok(v) = serde_json::from_str::<Value>(l.trim()) {
                        if v.is_object() {
                            return Ok(v);
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => bail!("no answer within {timeout:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    let st = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
                    bail!("the Python process exited ({st}); its stderr is above")
                }
            }
        }
    }
}

impl Drop for PyProc {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", json!({"quit": true}));
        let _ = self.stdin.flush();
        for _ in 0..200 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Runner {
    fn label(&self) -> String {
        if self.variant.is_empty() {
            self.system.clone()
        } else {
            format!("{}[{}]", self.system, self.variant)
        }
    }

    fn start(&mut self, python: &Path, script: &Path) {
        let r = (|| -> Result<()> {
            let mut p = PyProc::spawn(python, script, &self.system, &self.variant)?;
            let hello = p.recv(Duration::from_secs(120))?;
            if let Some(f) = hello.get("fatal") {
                bail!("{}", f.as_str().unwrap_or("start-up failed"));
            }
            self.version = hello["version"].as_str().unwrap_or("").to_string();
            self.python = hello["python"].as_str().unwrap_or("").to_string();
            self.timer = hello["timer_overhead_ns"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).collect());
            self.proc = Some(p);
            Ok(())
        })();
        if let Err(e) = r {
            self.dead = Some(format!("could not start: {e:#}"));
        }
    }
}

/// One system's results for one scenario, over the rounds.
#[derive(Default)]
struct Run {
    samples: Vec<f64>,
    round_p50: Vec<Option<f64>>,
    error: Option<String>,
    message: String,
    payload_bytes: usize,
    variant: String,
    check: String,
    /// Row fields the adapter reports (ROS 2: `dds_profile`, `executor`; nerve: `wait`).
    fields: serde_json::Map<String, Value>,
}

fn new_row(system: &str, mode: &str, message: &str, payload: usize, metric: &str) -> Row {
    Row::new(
        "python",
        system,
        "python",
        "cross-process",
        "1:1",
        mode,
        message,
        payload,
        metric,
    )
}

/// `nerve-bench python`.
pub fn run_suite(args: &PythonArgs) -> Result<()> {
    let budget = Budget::new(args.quick, args.rounds);
    let machine = Machine::detect();
    let (dir, root) = repo_dirs(args.dir.as_deref());
    let script = dir.join("pingpong.py");
    if !script.exists() {
        bail!("{} not found (use --dir)", script.display());
    }
    eprintln!("machine: {}", machine.summary());
    eprintln!(
        "python suite: ping on core 0, echo on core 1, {} rounds per scenario, ≤ {} s per round",
        budget.rounds, budget.max_s
    );

    // Runners: ros2 twice (EventsExecutor and the default SingleThreadedExecutor).
    let mut runners: Vec<Runner> = Vec::new();
    for s in &args.systems {
        let variants: &[&str] = if s == "ros2" {
            &["events", "single"]
        } else {
            &[""]
        };
        for v in variants {
            runners.push(Runner {
                system: s.clone(),
                variant: v.to_string(),
                proc: None,
                dead: None,
                version: String::new(),
                python: String::new(),
                timer: None,
            });
        }
    }
    let t_setup = Instant::now();
    for r in runners.iter_mut() {
        match interpreter(&r.system, &dir, &root, !args.no_setup) {
            Ok(py) => r.start(&py, &script),
            Err(e) => r.dead = Some(e),
        }
        match &r.dead {
            Some(e) => eprintln!("python: {} unavailable: {e}", r.label()),
            None => eprintln!("python: {} ready (version {})", r.label(), r.version),
        }
    }
    eprintln!("python: set-up {:.1} s", t_setup.elapsed().as_secs_f64());

    let load_start = loadavg();
    let mut rows: Vec<Row> = Vec::new();
    if let Some(r) = runners.iter().find(|r| r.timer.is_some()) {
        if let Some(s) = Summary::of(&mut r.timer.clone().unwrap_or_default()) {
            rows.push(
                Row::new(
                    "python",
                    "harness",
                    "python",
                    "same-thread",
                    "-",
                    "-",
                    "perf_counter_ns",
                    0,
                    "timer_overhead_ns",
                )
                .summary(s)
                .field("python", r.python.clone())
                .field("loadavg_at_start", load_start.clone())
                .field(
                    "note",
                    "two back-to-back time.perf_counter_ns(); each round trip includes one pair (half of it in one_way_ns)",
                ),
            );
        }
    }

    let started = Instant::now();
    let plan: Vec<(&str, &str, &str)> = SCENARIOS
        .iter()
        .flat_map(|(s, k)| MODES.iter().map(move |m| (*s, *m, *k)))
        .filter(|(s, m, _)| {
            let what = format!("{s} {m}");
            args.only.is_empty() || args.only.iter().any(|o| what.contains(o.as_str()))
        })
        .collect();
    for (i, (scenario, mode, kind)) in plan.iter().enumerate() {
        let t0 = Instant::now();
        let samples = if *kind == "image" {
            budget.image_samples
        } else {
            budget.small_samples
        };
        let warmup = if *kind == "image" {
            (budget.warmup / 10).max(3)
        } else {
            budget.warmup
        };
        let mut runs: Vec<Run> = runners.iter().map(|_| Run::default()).collect();
        for round in 0..budget.rounds {
            // Alternate: each round starts with the next system.
            let n = runners.len();
            for k in 0..n {
                let idx = (round + k) % n;
                let (r, run) = (&mut runners[idx], &mut runs[idx]);
                if run.error.is_some() {
                    run.round_p50.push(None);
                    continue;
                }
                if let Some(e) = &r.dead {
                    run.error = Some(e.clone());
                    run.round_p50.push(None);
                    continue;
                }
                let cmd = json!({"scenario": scenario, "mode": mode, "samples": samples,
                    "warmup": if round == 0 { warmup } else { warmup / 4 },
                    "max_s": budget.max_s, "min_samples": 3, "timeout_s": 10.0});
                let proc = r.proc.as_mut().expect("live runner has a process");
                let res = proc
                    .send(&cmd)
                    .and_then(|_| proc.recv(Duration::from_secs(120)));
                match res {
                    Err(e) => {
                        let why = format!("{e:#}");
                        r.dead = Some(format!("died in {scenario} {mode}: {why}"));
                        r.proc = None; // killed and reaped by Drop
                        run.error = Some(why);
                        run.round_p50.push(None);
                    }
                    Ok(v) => {
                        if let Some(f) = v.get("fatal") {
                            r.dead = Some(f.as_str().unwrap_or("fatal").to_string());
                            r.proc = None;
                        }
                        if let Some(e) = v.get("error").or(v.get("fatal")) {
                            run.error = Some(e.as_str().unwrap_or("error").to_string());
                            run.round_p50.push(None);
                            continue;
                        }
                        let mut s: Vec<f64> = v["samples_ns"]
                            .as_array()
                            .map(|a| a.iter().filter_map(Value::as_f64).collect())
                            .unwrap_or_default();
                        run.round_p50.push(stats::median(&s));
                        run.samples.append(&mut s);
                        run.message = v["message"].as_str().unwrap_or("").to_string();
                        run.payload_bytes = v["payload_bytes"].as_u64().unwrap_or(0) as usize;
                        run.variant = v["variant"].as_str().unwrap_or("").to_string();
                        run.check = v["check"].as_str().unwrap_or("").to_string();
                        if let Some(f) = v["fields"].as_object() {
                            run.fields = f.clone();
                        }
                    }
                }
            }
        }
        rows.extend(scenario_rows(scenario, mode, &runners, &mut runs, &budget));
        eprintln!(
            "[{}/{}] {scenario} {mode} ({:.1} s)",
            i + 1,
            plan.len(),
            t0.elapsed().as_secs_f64()
        );
    }
    eprintln!(
        "python suite: {} scenarios in {:.1} s",
        plan.len(),
        started.elapsed().as_secs_f64()
    );
    drop(runners);
    for (name, tables, what) in [
        (
            "inproc",
            &crate::pyinproc::HORUS,
            "zero-copy views, node ticks, generic sizes",
        ),
        (
            "async",
            &crate::pyinproc::ASYNC,
            "sleeps, pub/sub, services, tasks",
        ),
        (
            "wrapyfi",
            &crate::pyinproc::WRAPYFI,
            "200x200 tensors of every framework over nerve, Zenoh, ZeroMQ",
        ),
    ] {
        if !args.only.is_empty()
            && !args
                .only
                .iter()
                .any(|o| name.contains(o.as_str()) || o.contains(name))
        {
            continue;
        }
        let t0 = Instant::now();
        rows.extend(crate::pyinproc::rows(
            tables,
            &dir,
            &root,
            !args.no_setup,
            budget.rounds,
            args.quick,
        ));
        eprintln!("[{name}] {what} ({:.1} s)", t0.elapsed().as_secs_f64());
    }
    eprintln!(
        "load average: {load_start} at the start, {} at the end (other work on the cores \
         inflates busy-poll figures: a spinning receiver loses its core for a whole time slice)",
        loadavg()
    );

    let targets = targets::target_rows(&rows);
    rows.extend(targets);
    println!("machine: {}", machine.summary());
    println!("busy-poll and blocking receive; one_way_ns = RTT/2 (ns); ratios: nerve p50 / peer p50 per round, median");
    report::print_table(&rows);
    if let Some(p) = &args.json {
        report::write_json(p, &machine, &rows)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &args.csv {
        report::write_csv(p, &rows)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(png) = &args.plot {
        match &args.json {
            None => eprintln!("--plot needs --json (the plot is drawn from the JSON)"),
            Some(j) => plot(&dir, j, png),
        }
    }
    Ok(())
}

fn plot(dir: &Path, json: &Path, png: &Path) {
    let mut py = dir.join(".venvs/plot/bin/python");
    if !py.exists() {
        let _ = Command::new("bash")
            .arg(dir.join("setup_peers.sh"))
            .arg("plot")
            .status();
    }
    if !py.exists() {
        py = PathBuf::from("python3");
    }
    match Command::new(&py)
        .arg(dir.join("plot.py"))
        .arg(json)
        .arg(png)
        .status()
    {
        Ok(s) if s.success() => eprintln!("wrote {}", png.display()),
        Ok(s) => eprintln!("plot.py failed ({s})"),
        Err(e) => eprintln!("plot.py could not start: {e}"),
    }
}

fn scenario_rows(
    scenario: &str,
    mode: &str,
    runners: &[Runner],
    runs: &mut [Run],
    budget: &Budget,
) -> Vec<Row> {
    let mut rows = Vec::new();
    let default_msg = if scenario.starts_with("dict") {
        "dict"
    } else if scenario.starts_with("Image") {
        "Image"
    } else {
        scenario
    };
    for (r, run) in runners.iter().zip(runs.iter_mut()) {
        let msg = if run.message.is_empty() {
            default_msg.to_string()
        } else {
            run.message.clone()
        };
        let mut row = new_row(&r.system, mode, &msg, run.payload_bytes, "one_way_ns")
            .field("scenario", scenario);
        if !r.variant.is_empty() || !run.variant.is_empty() {
            row = row.field("variant", run.variant.clone());
        }
        if !r.version.is_empty() {
            row = row.field("version", r.version.clone());
        }
        for (k, v) in &run.fields {
            row = row.field(k, v.clone());
        }
        match (&run.error, Summary::of(&mut run.samples)) {
            (Some(e), _) => rows.push(row.error(e.clone())),
            (None, None) => rows.push(row.error("no samples")),
            (None, Some(s)) => rows.push(
                row.summary(s)
                    .field("rounds", run.round_p50.iter().flatten().count())
                    .field("check", run.check.clone()),
            ),
        }
    }
    // Per-round ratios, nerve against each peer system (ros2: the better executor per round).
    let Some(ni) = runners.iter().position(|r| r.system == "nerve") else {
        return rows;
    };
    if runs[ni].error.is_some() {
        return rows;
    }
    let mut peers: Vec<&str> = runners
        .iter()
        .filter(|r| r.system != "nerve")
        .map(|r| r.system.as_str())
        .collect();
    peers.dedup();
    for peer in peers {
        let idx: Vec<usize> = runners
            .iter()
            .enumerate()
            .filter(|(i, r)| r.system == peer && runs[*i].error.is_none())
            .map(|(i, _)| i)
            .collect();
        let metric = format!("ratio_p50_vs_{peer}");
        let base = new_row(
            "nerve",
            mode,
            &runs[ni].message,
            runs[ni].payload_bytes,
            &metric,
        )
        .field("scenario", scenario);
        if idx.is_empty() {
            let why = runners
                .iter()
                .zip(runs.iter())
                .filter(|(r, _)| r.system == peer)
                .filter_map(|(_, run)| run.error.clone())
                .next()
                .unwrap_or_else(|| "peer not measured".into());
            rows.push(base.error(format!("{peer}: {why}")));
            continue;
        }
        let mut ratios = Vec::new();
        for round in 0..budget.rounds {
            let n = runs[ni].round_p50.get(round).copied().flatten();
            let p = idx
                .iter()
                .filter_map(|&i| runs[i].round_p50.get(round).copied().flatten())
                .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.min(b))));
            if let (Some(n), Some(p)) = (n, p) {
                if p > 0.0 {
                    ratios.push(n / p);
                }
            }
        }
        match Summary::of_rounds(&ratios) {
            Some(s) => {
                rows.push(
                    base.summary(s)
                        .field("rounds", ratios.len())
                        .field("note", "per round: nerve p50 / peer p50 (ros2: its better executor that round); p50 = median over rounds"),
                );
            }
            None => rows.push(base.error("no round with both measured")),
        }
    }
    rows
}

/// `/proc/loadavg`'s first three fields.
pub(crate) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
