//! Runs the `ipc` suite: builds both sides of every system for a scenario, then alternates
//! short rounds between the systems and pools what they measured.

use super::plan::{batch_blocks, plan, Scenario, SIZES};
use super::rows::{rows_for, SystemRun};
use super::{
    echo_side, message_label, ping_side, supports, variant, EchoSide, PingSide, Spec, SystemKind,
    Transport, TIMEOUT,
};
use crate::child::{Parent, SelfChild};
use crate::machine::Machine;
use crate::pin;
use crate::report::{self, Row};
use crate::stats::{self, Summary};
use anyhow::{anyhow, bail, Context, Result};
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Options of `nerve-bench ipc`.
#[derive(clap::Args, Debug, Clone)]
pub struct IpcArgs {
    /// The whole suite in about 90 s: fewer rounds and samples (each row's `n` says how many).
    #[arg(long)]
    pub quick: bool,
    /// Write `{"machine": .., "results": [..]}` here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the same rows flat here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Systems to run, comma separated, in round order. `nerve-futex` is nerve with its
    /// subscribers' spin set to zero (blocking scenarios only; rows say `system: nerve`).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "nerve,nerve-futex,iceoryx2,raw-shm,udp"
    )]
    pub systems: Vec<String>,
    /// Alternating rounds per scenario (default: 3 with --quick, 10 otherwise).
    #[arg(long, value_name = "N")]
    pub rounds: Option<usize>,
    /// Only scenarios whose description contains one of these texts, comma separated (e.g.
    /// `cross-process poll 1:1`).
    #[arg(long, value_name = "TEXT", value_delimiter = ',')]
    pub only: Vec<String>,
}

/// Sample counts for one kind of run.
#[derive(Clone, Copy, Debug)]
struct Budget {
    rounds: usize,
    round_time: Duration,
    min_steps: u64,
    max_steps: u64,
    calibrate_steps: u64,
    timer_samples: usize,
}

impl Budget {
    fn new(quick: bool, rounds: Option<usize>) -> Self {
        let b = if quick {
            Budget {
                rounds: 3,
                round_time: Duration::from_millis(12),
                min_steps: 5,
                max_steps: 2_000,
                calibrate_steps: 50,
                timer_samples: 10_000,
            }
        } else {
            // Sized so two full `all` runs fit a working session on a 2-core machine
            // (docs/benchmarking.md, "Quick and full runs"); `--rounds` asks for more.
            Budget {
                rounds: 10,
                round_time: Duration::from_millis(200),
                min_steps: 50,
                max_steps: 10_000,
                calibrate_steps: 1_000,
                timer_samples: 100_000,
            }
        };
        Budget {
            rounds: rounds.unwrap_or(b.rounds).max(1),
            ..b
        }
    }
}

/// Commands from the ping side to an echo side running elsewhere.
enum Ctl {
    Run { first: u64, count: u64, window: u32 },
    Quit,
}

/// Runs `count` windows of `window` steps starting at `first` on the echo side.
fn echo_run(echo: &mut dyn EchoSide, first: u64, count: u64, window: u32) -> Result<()> {
    let mut seq = first;
    for _ in 0..count {
        for i in 0..u64::from(window) {
            echo.recv(seq + i)?;
        }
        echo.echo(seq + u64::from(window) - 1)?;
        for i in 0..u64::from(window) {
            echo.drain_others(seq + i)?;
        }
        seq += u64::from(window);
    }
    Ok(())
}

/// The echo side, from the ping side's point of view.
enum EchoHandle {
    Local(Box<dyn EchoSide>),
    Thread {
        tx: mpsc::Sender<Ctl>,
        rx: mpsc::Receiver<Result<(), String>>,
        handle: Option<JoinHandle<()>>,
    },
    Process(SelfChild),
}

/// Both sides of one system for one scenario.
struct Pair {
    // Field order matters: the ping side closes before the echo side is told to quit.
    ping: Box<dyn PingSide>,
    echo: EchoHandle,
    next_seq: u64,
}

impl Pair {
    fn open(spec: &Spec, echo_core: usize) -> Result<Self> {
        let (echo, rendezvous) = match spec.transport {
            Transport::SameThread => {
                let (e, r) = echo_side(spec)?;
                (EchoHandle::Local(e), r)
            }
            Transport::CrossThread => {
                let (ready_tx, ready_rx) = mpsc::channel::<Result<String, String>>();
                let (tx, ctl_rx) = mpsc::channel::<Ctl>();
                let (done_tx, rx) = mpsc::channel::<Result<(), String>>();
                let spec2 = spec.clone();
                let handle = std::thread::Builder::new()
                    .name("echo".into())
                    .spawn(move || {
                        let setup =
                            pin::pin_current_thread(echo_core).and_then(|_| echo_side(&spec2));
                        let mut echo = match setup {
                            Ok((e, r)) => {
                                let _ = ready_tx.send(Ok(r));
                                e
                            }
                            Err(e) => {
                                let _ = ready_tx.send(Err(format!("{e:#}")));
                                return;
                            }
                        };
                        while let Ok(Ctl::Run {
                            first,
                            count,
                            window,
                        }) = ctl_rx.recv()
                        {
                            let r = echo_run(echo.as_mut(), first, count, window)
                                .map_err(|e| format!("{e:#}"));
                            if done_tx.send(r).is_err() {
                                break;
                            }
                        }
                    })
                    .context("spawning the echo thread")?;
                let rendezvous = ready_rx
                    .recv_timeout(TIMEOUT * 6)
                    .map_err(|_| anyhow!("echo thread did not start"))?
                    .map_err(anyhow::Error::msg)?;
                (
                    EchoHandle::Thread {
                        tx,
                        rx,
                        handle: Some(handle),
                    },
                    rendezvous,
                )
            }
            Transport::CrossProcess => {
                let args = vec![
                    "__ipc-echo".to_string(),
                    "--core".into(),
                    echo_core.to_string(),
                    "--spec".into(),
                    serde_json::to_string(spec)?,
                ];
                let mut child = SelfChild::spawn(&args)?;
                let line = child.read_line(TIMEOUT * 6)?;
                let rendezvous = match line.split_once(' ') {
                    Some(("ready", r)) => r.to_string(),
                    _ if line == "ready" => String::new(),
                    _ => bail!(
                        "echo process: {}",
                        line.strip_prefix("err ").unwrap_or(&line)
                    ),
                };
                (EchoHandle::Process(child), rendezvous)
            }
        };
        let ping = ping_side(spec, &rendezvous)?;
        Ok(Self {
            ping,
            echo,
            next_seq: 1,
        })
    }

    /// Tells a remote echo side what is coming.
    fn start(&mut self, first: u64, count: u64, window: u32) -> Result<()> {
        match &mut self.echo {
            EchoHandle::Local(_) => Ok(()),
            EchoHandle::Thread { tx, .. } => tx
                .send(Ctl::Run {
                    first,
                    count,
                    window,
                })
                .map_err(|_| anyhow!("echo thread is gone")),
            EchoHandle::Process(child) => child.send_line(&format!("run {first} {count} {window}")),
        }
    }

    /// Waits until a remote echo side has finished the run.
    fn finish(&mut self) -> Result<()> {
        let wait = TIMEOUT * 4;
        match &mut self.echo {
            EchoHandle::Local(_) => Ok(()),
            EchoHandle::Thread { rx, .. } => rx
                .recv_timeout(wait)
                .map_err(|_| anyhow!("echo thread did not finish within {wait:?}"))?
                .map_err(|e| anyhow!("echo side: {e}")),
            EchoHandle::Process(child) => {
                let line = child.read_line(wait)?;
                match line.as_str() {
                    "done" => Ok(()),
                    other => bail!("echo side: {}", other.strip_prefix("err ").unwrap_or(other)),
                }
            }
        }
    }

    /// One window: the ping side sends `window` steps and waits for the echo of the last.
    #[inline]
    fn window(&mut self, seq: u64, window: u32) -> Result<()> {
        let w = u64::from(window);
        for i in 0..w {
            self.ping.send(seq + i)?;
        }
        if let EchoHandle::Local(echo) = &mut self.echo {
            echo_run(echo.as_mut(), seq, 1, window)?;
        }
        self.ping.recv_echo(seq + w - 1)
    }

    /// Runs `f` with the echo side told to expect `count` windows, and always collects the
    /// echo side's answer.
    fn run<T>(
        &mut self,
        count: u64,
        window: u32,
        f: impl FnOnce(&mut Self, u64) -> Result<T>,
    ) -> Result<T> {
        let first = self.next_seq;
        self.next_seq += count * u64::from(window);
        self.start(first, count, window)?;
        let out = f(self, first);
        let fin = self.finish();
        match (out, fin) {
            (Ok(v), Ok(())) => Ok(v),
            (Err(e), Ok(())) | (Ok(_), Err(e)) => Err(e),
            (Err(ping), Err(echo)) => Err(anyhow!("{ping:#}; {echo:#}")),
        }
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        if let EchoHandle::Thread { tx, handle, .. } = &mut self.echo {
            let _ = tx.send(Ctl::Quit);
            if let Some(h) = handle.take() {
                let _ = h.join();
            }
        }
    }
}

/// What one round of one system measured.
#[derive(Default)]
struct RoundOut {
    samples: Vec<f64>,
    batch_means: Vec<f64>,
    rate: Option<f64>,
}

/// Per-system sample counts, from a timed warm-up.
#[derive(Clone, Copy, Debug)]
struct Counts {
    warm: u64,
    steps: u64,
}

/// Untimed windows run once after set-up: enough to cycle every pool slot and chunk once
/// (first-touch page faults), so no round pays for them. From 1 MiB on, 32: still more than
/// nerve's 24 chunks at depth 8 (2 x depth + 8) and iceoryx2's few samples, without paying
/// 64 x 4 passes over 6 MB per system.
fn setup_warm_windows(payload: usize) -> u64 {
    if payload >= 1 << 20 {
        32
    } else {
        64
    }
}

fn calibrate(pair: &mut Pair, sc: &Scenario, budget: &Budget) -> Result<Counts> {
    let window = sc.throughput.unwrap_or(1);
    let warm = setup_warm_windows(sc.payload);
    pair.run(warm, window, |p, first| {
        for i in 0..warm {
            p.window(first + i * u64::from(window), window)?;
        }
        Ok(())
    })?;
    let n = if sc.payload >= 1 << 20 {
        5
    } else {
        budget.calibrate_steps
    };
    let t = pair.run(n, window, |p, first| {
        let t0 = Instant::now();
        for i in 0..n {
            p.window(first + i * u64::from(window), window)?;
        }
        Ok(t0.elapsed())
    })?;
    let per = t.as_secs_f64() / n as f64;
    let steps = ((budget.round_time.as_secs_f64() / per.max(1e-9)) as u64)
        .clamp(budget.min_steps, budget.max_steps);
    Ok(Counts {
        warm: (steps / 10).max(2),
        steps,
    })
}

fn round(pair: &mut Pair, sc: &Scenario, c: Counts) -> Result<RoundOut> {
    match sc.throughput {
        Some(w) => pair.run(c.warm + c.steps, w, |p, first| {
            let mut seq = first;
            for _ in 0..c.warm {
                p.window(seq, w)?;
                seq += u64::from(w);
            }
            let t0 = Instant::now();
            for _ in 0..c.steps {
                p.window(seq, w)?;
                seq += u64::from(w);
            }
            let secs = t0.elapsed().as_secs_f64();
            Ok(RoundOut {
                rate: Some((c.steps * u64::from(w)) as f64 / secs),
                ..RoundOut::default()
            })
        }),
        None => {
            let (blocks, per_block) = batch_blocks(sc.mode, c.steps);
            pair.run(c.warm + c.steps + blocks * per_block, 1, |p, first| {
                let mut seq = first;
                for _ in 0..c.warm {
                    p.window(seq, 1)?;
                    seq += 1;
                }
                let mut samples = Vec::with_capacity(c.steps as usize);
                for _ in 0..c.steps {
                    let t0 = Instant::now();
                    p.window(seq, 1)?;
                    let dt = t0.elapsed();
                    samples.push(dt.as_nanos() as f64 / 2.0);
                    seq += 1;
                }
                let mut batch_means = Vec::with_capacity(blocks as usize);
                for _ in 0..blocks {
                    let t0 = Instant::now();
                    for _ in 0..per_block {
                        p.window(seq, 1)?;
                        seq += 1;
                    }
                    batch_means.push(t0.elapsed().as_nanos() as f64 / (2.0 * per_block as f64));
                }
                Ok(RoundOut {
                    samples,
                    batch_means,
                    rate: None,
                })
            })
        }
    }
}

fn run_scenario(
    sc: &Scenario,
    systems: &[SystemKind],
    budget: &Budget,
    echo_core: usize,
) -> Vec<Row> {
    let mut runs: Vec<SystemRun> = Vec::new();
    let mut pairs: Vec<Option<(Pair, Counts)>> = Vec::new();
    for &system in systems.iter().filter(|k| k.runs_in(sc.mode)) {
        let spec = sc.spec(system);
        let mut run = SystemRun {
            system,
            label: message_label(&spec),
            variant: variant(&spec),
            error: None,
            samples: Vec::new(),
            round_p50: Vec::new(),
            batch_means: Vec::new(),
            rates: Vec::new(),
            steps: 0,
            setup_s: 0.0,
        };
        let t0 = Instant::now();
        let pair = supports(&spec).map_err(anyhow::Error::msg).and_then(|_| {
            let mut pair = Pair::open(&spec, echo_core)?;
            let counts = calibrate(&mut pair, sc, budget)?;
            Ok((pair, counts))
        });
        run.setup_s = t0.elapsed().as_secs_f64();
        match pair {
            Ok((p, c)) => {
                run.steps = c.steps;
                pairs.push(Some((p, c)));
            }
            Err(e) => {
                run.error = Some(format!("{e:#}"));
                pairs.push(None);
            }
        }
        runs.push(run);
    }
    // Alternate: round r starts with system r mod n, so no system always runs first.
    for r in 0..budget.rounds {
        for k in 0..runs.len() {
            let i = (r + k) % runs.len();
            let Some((pair, counts)) = pairs[i].as_mut() else {
                continue;
            };
            match round(pair, sc, *counts) {
                Ok(out) => {
                    let run = &mut runs[i];
                    if !out.samples.is_empty() {
                        run.round_p50
                            .push(stats::median(&out.samples).unwrap_or(f64::NAN));
                        run.samples.extend_from_slice(&out.samples);
                    }
                    run.batch_means.extend(out.batch_means);
                    if let Some(rate) = out.rate {
                        run.round_p50.push(rate);
                        run.rates.push(rate);
                    }
                }
                Err(e) => {
                    runs[i].error = Some(format!("round {r}: {e:#}"));
                    pairs[i] = None;
                }
            }
        }
    }
    drop(pairs);
    rows_for(sc, &mut runs)
}

/// The copy floor of HORUS's overhead attribution: one `copy_from_slice` of each sweep size
/// in one thread, timed over batches (one value per batch: batch time / copies). The source
/// and destination stay in cache below the cache size: this is the cheapest a copy gets.
fn memcpy_floor(budget: &Budget) -> Vec<Row> {
    let mut rows = Vec::new();
    for payload in SIZES {
        let src = vec![0x5au8; payload];
        let mut dst = vec![0u8; payload];
        let copies = (budget.max_steps as usize * 64 / payload.max(64)).clamp(4, 10_000);
        let mut means = Vec::new();
        let started = Instant::now();
        while means.len() < 10 * budget.rounds
            || (started.elapsed() < budget.round_time && means.len() < 1000)
        {
            let t0 = Instant::now();
            for _ in 0..copies {
                dst.copy_from_slice(std::hint::black_box(&src));
                std::hint::black_box(&mut dst);
            }
            means.push(t0.elapsed().as_nanos() as f64 / copies as f64);
        }
        rows.push(
            Row::new(
                "ipc",
                "memcpy",
                "rust",
                "same-thread",
                "-",
                "-",
                "bytes",
                payload,
                "copy_ns",
            )
            .summary_opt(Summary::of(&mut means))
            .field("copies_per_batch", copies)
            .field("note", "one copy_from_slice, batch-timed; n = batches"),
        );
    }
    rows
}

/// `nerve-bench ipc`.
pub fn run_suite(args: &IpcArgs) -> Result<()> {
    let systems: Vec<SystemKind> = args
        .systems
        .iter()
        .map(|s| SystemKind::parse(s))
        .collect::<Result<_>>()?;
    let budget = Budget::new(args.quick, args.rounds);
    let machine = Machine::detect();
    let (ping_core, echo_core) = pin::bench_cores();
    pin::pin_current_thread(ping_core)?;
    eprintln!("machine: {}", machine.summary());
    eprintln!(
        "ping side on core {ping_core}, echo side on core {echo_core}; {} rounds per scenario",
        budget.rounds
    );
    #[cfg(feature = "peers")]
    ::iceoryx2::prelude::set_log_level(::iceoryx2::prelude::LogLevel::Error);

    remove_stale_files();
    let mut rows = Vec::new();
    let mut timer = stats::timer_overhead(budget.timer_samples);
    if let Some(s) = Summary::of(&mut timer) {
        rows.push(
            Row::new(
                "ipc",
                "harness",
                "rust",
                "same-thread",
                "-",
                "-",
                "Instant::now",
                0,
                "timer_overhead_ns",
            )
            .summary(s)
            .field(
                "note",
                "two back-to-back Instant::now(); each per-sample round trip includes one such pair (half of it in one_way_ns)",
            ),
        );
    }
    rows.extend(memcpy_floor(&budget));
    let scenarios: Vec<Scenario> = plan()
        .into_iter()
        .filter(|s| {
            args.only.is_empty() || args.only.iter().any(|o| s.describe().contains(o.as_str()))
        })
        .collect();
    let started = Instant::now();
    for (i, sc) in scenarios.iter().enumerate() {
        let t0 = Instant::now();
        let new_rows = run_scenario(sc, &systems, &budget, echo_core);
        eprintln!(
            "[{}/{}] {} ({:.2} s)",
            i + 1,
            scenarios.len(),
            sc.describe(),
            t0.elapsed().as_secs_f64()
        );
        rows.extend(new_rows);
    }
    rows.extend(super::shape::rows(args, &systems, (ping_core, echo_core)));
    if systems.contains(&SystemKind::Nerve) {
        rows.extend(crate::ffi::rows(
            args.quick,
            budget.rounds,
            &args.only,
            (ping_core, echo_core),
        ));
    }
    eprintln!(
        "ipc suite: {} scenarios in {:.1} s",
        scenarios.len(),
        started.elapsed().as_secs_f64()
    );
    println!(
        "# nerve-bench ipc{} | {}",
        if args.quick { " --quick" } else { "" },
        machine.summary()
    );
    println!("# one_way_ns = round trip / 2, per-sample Instant timing; see timer_overhead_ns");
    report::print_table(&rows);
    crate::ffi::print_table(&rows);
    if let Some(p) = &args.json {
        report::write_json(p, &machine, &rows)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &args.csv {
        report::write_csv(p, &rows)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// The hidden `__ipc-echo` subcommand: the echo side of a cross-process run.
pub fn echo_child_main(spec_json: &str, core: usize) -> Result<()> {
    #[cfg(feature = "peers")]
    ::iceoryx2::prelude::set_log_level(::iceoryx2::prelude::LogLevel::Error);
    let mut parent = Parent::attach();
    let setup = serde_json::from_str::<Spec>(spec_json)
        .context("parsing --spec")
        .and_then(|spec| {
            pin::pin_current_thread(core)?;
            echo_side(&spec)
        });
    let mut echo = match setup {
        Ok((e, rendezvous)) => {
            parent.reply(&format!("ready {rendezvous}"))?;
            e
        }
        Err(e) => {
            parent.reply(&format!("err {}", one_line(&format!("{e:#}"))))?;
            return Ok(());
        }
    };
    while let Some(line) = parent.next_line() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        match parts.as_slice() {
            ["run", first, count, window] => {
                let r = (|| -> Result<()> {
                    let (first, count, window) = (first.parse()?, count.parse()?, window.parse()?);
                    echo_run(echo.as_mut(), first, count, window)
                })();
                match r {
                    Ok(()) => parent.reply("done")?,
                    Err(e) => parent.reply(&format!("err {}", one_line(&format!("{e:#}"))))?,
                }
            }
            ["quit"] => break,
            _ => parent.reply(&format!("err unknown command `{line}`"))?,
        }
    }
    Ok(())
}

/// Removes `/dev/shm` files that earlier runs left behind when they were killed: raw-shm
/// mappings (`/dev/shm/nb-<pid>-…`) and nerve topic files in the bench domain, whose creating
/// process no longer exists. Names carry the pid, so live runs are never touched.
fn remove_stale_files() {
    let dead = |name: &str| -> bool {
        let Some(pid) = name.strip_prefix("nb-").and_then(|r| r.split('-').next()) else {
            return false;
        };
        let Ok(pid) = pid.parse::<i32>() else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        let rc = unsafe { libc::kill(pid, 0) };
        rc != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    };
    for dir in [
        std::path::PathBuf::from("/dev/shm"),
        nerve::registry::domain_dir(super::nerve::BENCH_DOMAIN),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_ok_and(|t| t.is_file()) && dead(&name) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

fn one_line(s: &str) -> String {
    s.replace('\n', " | ")
}
