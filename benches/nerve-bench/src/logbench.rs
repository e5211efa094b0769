//! `nerve-bench log`: the AimRT seed's logger table — the average time of one log call for
//! messages of 32 B to 8 KB — for nerve's logger (`nerve::log::Logger`, a record on the
//! domain's log topic) beside `tracing-subscriber`'s formatter writing to a file and Python's
//! `logging` with a `FileHandler`, in alternating rounds; and a 1 kHz node's lateness with and
//! without a 100 000 records/s log flood beside it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use nerve::exec::{Context, Node, Scheduler};
use nerve::log::{Level, Logger};

use crate::ipc::nerve::BENCH_DOMAIN;
use crate::machine::Machine;
use crate::report::{self, Row, SuiteArgs};
use crate::stats::Summary;

const SIZES: [usize; 9] = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192];
/// nerve's target: its log call at most this many times tracing's file writer's.
const TARGET: f64 = 0.5;

fn message(size: usize) -> String {
    "x".repeat(size)
}

/// Mean ns of one `call` over `n` calls.
fn mean_ns(n: usize, mut call: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    for _ in 0..n {
        call();
    }
    t0.elapsed().as_nanos() as f64 / n as f64
}

fn nerve_call(logger: &Logger, size: usize, n: usize) -> f64 {
    let msg = message(size);
    mean_ns(n, || {
        logger.log(Level::Info, "logbench.rs", 42, &msg, Vec::new())
    })
}

fn tracing_call(size: usize, n: usize, dir: &Path) -> Result<f64> {
    let file = std::fs::File::create(dir.join(format!("tracing-{size}.log")))?;
    let subscriber = tracing_subscriber::fmt()
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .finish();
    let msg = message(size);
    Ok(tracing::subscriber::with_default(subscriber, || {
        mean_ns(n, || tracing::info!(target: "bench", "{msg}"))
    }))
}

/// Python's `logging` to a file: one interpreter per round, every size; ns per call by size.
fn python_calls(n: usize, dir: &Path) -> Result<Vec<f64>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let py = root.join(".venv/bin/python");
    if !py.exists() {
        bail!(
            "{} is missing: `make` (bindings/python/dev.sh) creates it",
            py.display()
        );
    }
    let code = r#"
import logging, sys, time
n, path = int(sys.argv[1]), sys.argv[2]
log = logging.getLogger("bench")
log.propagate = False
log.setLevel(logging.INFO)
h = logging.FileHandler(path)
h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(filename)s:%(lineno)d %(message)s"))
log.addHandler(h)
out = []
for size in map(int, sys.argv[3:]):
    msg = "x" * size
    log.info("warm-up")
    t0 = time.perf_counter_ns()
    for _ in range(n):
        log.info(msg)
    out.append((time.perf_counter_ns() - t0) / n)
print(" ".join(f"{v:.1f}" for v in out))
"#;
    let sizes: Vec<String> = SIZES.iter().map(usize::to_string).collect();
    let out = std::process::Command::new(&py)
        .args(["-c", code, &n.to_string()])
        .arg(dir.join("python.log"))
        .args(&sizes)
        .output()
        .context("running Python")?;
    if !out.status.success() {
        bail!("Python logging: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?)
}

/// A node doing nothing but being on time.
struct Tick;

impl Node for Tick {
    fn name(&self) -> &str {
        "tick"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
}

/// A 1 kHz node's lateness (p50, p99, max ns) and misses over `secs`, with a thread logging
/// `flood` records/s beside it (0: none).
fn lateness(secs: f64, flood: u64) -> Result<(Summary, u64, u64)> {
    let stop = Arc::new(AtomicBool::new(false));
    let flooder = (flood > 0).then(|| {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let logger = Logger::with_domain("bench/flood", BENCH_DOMAIN);
            let per_ms = flood / 1000;
            let mut sent = 0u64;
            // Relaxed: a stop flag, no data handed over.
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                for i in 0..per_ms {
                    logger.log(
                        Level::Info,
                        "flood.rs",
                        i as u32,
                        "a flood record of some 60 bytes, sent at 100k/s",
                        Vec::new(),
                    );
                }
                sent += per_ms;
                if let Some(rest) = Duration::from_millis(1).checked_sub(t.elapsed()) {
                    std::thread::sleep(rest);
                }
            }
            (sent, logger.dropped())
        })
    });
    let mut s = Scheduler::builder()
        .handle_signals(false)
        .print_stats(false)
        .node(Tick)
        .rate(1000.0)
        .done()
        .build()?;
    s.run_for(Duration::from_secs_f64(secs))?;
    // Relaxed: see above.
    stop.store(true, Ordering::Relaxed);
    let (_sent, dropped) = flooder.map_or((0, 0), |h| h.join().unwrap_or((0, 0)));
    let st = &s.stats()[0];
    let l = &st.lateness_ns;
    let summary = report::summary_of(
        l.min as f64,
        l.p50 as f64,
        l.p90 as f64,
        l.p99 as f64,
        l.p999 as f64,
        l.max as f64,
        l.n,
    );
    Ok((summary, st.misses, dropped))
}

/// `nerve-bench log`.
pub fn run_suite(args: &SuiteArgs) -> Result<()> {
    let machine = Machine::detect();
    let (rounds, n) = if args.quick { (3, 2_000) } else { (10, 20_000) };
    let dir = std::env::temp_dir().join(format!("nerve-bench-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let _ = crate::pin::pin_current_thread(crate::pin::bench_cores().0);
    let mut nerve: Vec<Vec<f64>> = vec![Vec::new(); SIZES.len()];
    let mut tracing_: Vec<Vec<f64>> = vec![Vec::new(); SIZES.len()];
    let mut python: Vec<Vec<f64>> = vec![Vec::new(); SIZES.len()];
    let mut python_error = None;
    // One logger for the run, as a process has; warmed through every chunk of the topic's
    // pool first (a process that has logged for a while has touched them all).
    let logger = Logger::with_domain("bench/logger", BENCH_DOMAIN);
    let big = message(8192);
    for _ in 0..3 * nerve::log::LOG_DEPTH {
        logger.log(Level::Info, "warm-up", 0, &big, Vec::new());
    }
    for _ in 0..rounds {
        for (i, &size) in SIZES.iter().enumerate() {
            nerve[i].push(nerve_call(&logger, size, n));
            tracing_[i].push(tracing_call(size, n, &dir)?);
        }
        match python_calls(n, &dir) {
            Ok(v) => v.iter().enumerate().for_each(|(i, ns)| python[i].push(*ns)),
            Err(e) => python_error = Some(format!("{e:#}")),
        }
    }
    let mut rows = Vec::new();
    for (i, &size) in SIZES.iter().enumerate() {
        let row = |system: &str, api: &str| {
            Row::new(
                "log",
                system,
                api,
                "same-thread",
                "-",
                "call",
                "text",
                size,
                "log_call_ns",
            )
        };
        rows.push(
            row("nerve", "rust")
                .summary_opt(Summary::of(&mut nerve[i].clone()))
                .field("rounds", rounds)
                .field("dropped", logger.dropped()),
        );
        rows.push(
            row("tracing-subscriber", "rust")
                .summary_opt(Summary::of(&mut tracing_[i].clone()))
                .field("writer", "fmt to a file"),
        );
        rows.push(match &python_error {
            Some(e) => row("python-logging", "python").error(e.clone()),
            None => row("python-logging", "python")
                .summary_opt(Summary::of(&mut python[i].clone()))
                .field("writer", "FileHandler"),
        });
        let ratios: Vec<f64> = nerve[i]
            .iter()
            .zip(&tracing_[i])
            .map(|(a, b)| a / b)
            .collect();
        if let Some(s) = Summary::of_rounds(&ratios) {
            rows.push(
                row("nerve", "rust")
                    .with_metric("ratio_vs_tracing_file")
                    .summary(s)
                    .field("threshold", TARGET)
                    .field("pass", s.p50 <= TARGET),
            );
        }
    }
    let secs = if args.quick { 1.0 } else { 5.0 };
    for (variant, flood) in [
        ("quiet", 0),
        ("100k records/s log flood", 100_000),
        ("quiet", 0),
    ] {
        let (s, misses, d) = lateness(secs, flood)?;
        rows.push(
            Row::new(
                "log",
                "nerve",
                "rust",
                "scheduler",
                "-",
                "1 kHz node",
                "lateness",
                0,
                "lateness_ns",
            )
            .summary(s)
            .field("variant", variant)
            .field("misses", misses)
            .field("flood_dropped", d),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    report::emit("log", args, &machine, &rows)
}
