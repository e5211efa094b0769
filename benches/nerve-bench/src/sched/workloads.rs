//! (g) The HORUS seed's scheduler tables: the RT floor (a 1 kHz RT node against a bare
//! SCHED_FIFO `clock_nanosleep` loop on the same core, cyclictest-style, in alternating
//! rounds), watchdog resolution, and five workload classes defined by what they run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nerve::time::now_ns;
use nerve_exec::{Context, ExecClass, FailurePolicy, HangPolicy, Node, Scheduler};

use super::{error_row, row, with_node_stat, with_samples, Timed};
use crate::report::Row;
use crate::stats::Summary;

/// The RT core: cpu 1 where there are two.
fn rt_cpu() -> Option<usize> {
    (std::thread::available_parallelism().map_or(1, |n| n.get()) > 1).then_some(1)
}

/// One round of the cyclictest-style loop: SCHED_FIFO 80 on `cpu`, `clock_nanosleep` to
/// absolute 1 ms deadlines for `ticks` ticks; each tick's lateness (wake − planned) in ns.
/// `spin_ns` > 0: sleep until `spin_ns` before, then spin, as nerve's RT lanes do.
fn bare_loop(ticks: usize, cpu: Option<usize>, spin_ns: u64) -> Result<Vec<f64>, String> {
    std::thread::spawn(move || {
        if let Some(c) = cpu {
            crate::pin::pin_current_thread(c).map_err(|e| e.to_string())?;
        }
        let param = libc::sched_param { sched_priority: 80 };
        // SAFETY: sched_setscheduler reads `param` only; 0 = this thread.
        let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
        if rc != 0 {
            return Err(format!(
                "SCHED_FIFO not granted: {}",
                std::io::Error::last_os_error()
            ));
        }
        let period = 1_000_000u64;
        let start = now_ns() + period;
        let mut out = Vec::with_capacity(ticks);
        for k in 0..ticks as u64 {
            let planned = start + k * period;
            let wake = planned.saturating_sub(spin_ns);
            let ts = libc::timespec {
                tv_sec: (wake / 1_000_000_000) as libc::time_t,
                tv_nsec: (wake % 1_000_000_000) as libc::c_long,
            };
            // SAFETY: `ts` is a valid timespec that outlives the call; the remainder pointer
            // may be null with TIMER_ABSTIME.
            unsafe {
                libc::clock_nanosleep(
                    libc::CLOCK_MONOTONIC,
                    libc::TIMER_ABSTIME,
                    &ts,
                    std::ptr::null_mut(),
                );
            }
            while now_ns() < planned {
                std::hint::spin_loop();
            }
            out.push(now_ns().saturating_sub(planned) as f64);
        }
        Ok(out)
    })
    .join()
    .map_err(|_| "the loop thread panicked".to_owned())?
}

/// One round of nerve's 1 kHz RT node on `cpu` (SCHED_FIFO 80), `ticks` ticks, spin `spin`.
fn nerve_round(ticks: usize, cpu: Option<usize>, spin: Duration) -> Result<Vec<f64>, String> {
    let got = Arc::new(Mutex::new(Vec::with_capacity(ticks)));
    let mut s = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .announce(false)
        .spin(spin)
        .node(Timed {
            name: "rt-1khz".into(),
            late: got.clone(),
            work: Duration::ZERO,
        })
        .rate(1000.0)
        .class(ExecClass::Rt { priority: 80, cpu })
        .done()
        .build()
        .map_err(|e| e.to_string())?;
    s.run_for(Duration::from_millis(ticks as u64) + Duration::from_micros(500))
        .map_err(|e| e.to_string())?;
    let mut v = nerve::sys::lock(&got).clone();
    // The first tick is planned at the start itself: it measures the start-up.
    if !v.is_empty() {
        v.remove(0);
    }
    Ok(v)
}

/// The RT floor: per round, the bare loop without spin (cyclictest), the bare loop with
/// nerve's spin, and nerve's RT node; p99 ratios per round.
pub(super) fn rt_floor(quick: bool) -> Vec<Row> {
    let metric = "start_lateness_ns";
    let (rounds, ticks) = if quick { (3, 1000) } else { (6, 3000) };
    let spin = Duration::from_micros(200);
    let cpu = rt_cpu();
    let names = ["rt-floor-cyclictest", "rt-floor-spin", "rt-floor-nerve"];
    let mut pooled: [Vec<f64>; 3] = Default::default();
    let mut p99s: [Vec<f64>; 3] = Default::default();
    let mut errors: [Option<String>; 3] = Default::default();
    for _ in 0..rounds {
        for (k, err) in errors.iter_mut().enumerate() {
            let got = match k {
                0 => bare_loop(ticks, cpu, 0),
                1 => bare_loop(ticks, cpu, spin.as_nanos() as u64),
                _ => nerve_round(ticks, cpu, spin),
            };
            match got {
                Ok(mut v) => {
                    if let Some(s) = Summary::of(&mut v.clone()) {
                        p99s[k].push(s.p99);
                    }
                    pooled[k].append(&mut v);
                }
                Err(e) => *err = Some(e),
            }
        }
    }
    let what = [
        "bare SCHED_FIFO 80 thread, clock_nanosleep(TIMER_ABSTIME) to each 1 ms deadline (cyclictest-style)",
        "the same loop sleeping until 200 us before each deadline, then spinning (nerve's RT lane method)",
        "nerve RT node (ExecClass::Rt priority 80), spin 200 us",
    ];
    let mut out = Vec::new();
    for k in 0..3 {
        let r = row(names[k], metric, "same-thread", "1:1")
            .field("rate_hz", 1000.0)
            .field(
                "note",
                format!("{}; cpu {cpu:?}; other core idle; {rounds} rounds of {ticks} ticks, alternating", what[k]),
            );
        out.push(match &errors[k] {
            Some(e) => r.error(e.clone()),
            None => with_samples(r, &mut pooled[k]),
        });
    }
    // nerve p99 / floor p99, per round.
    for (k, floor) in [(0, "cyclictest"), (1, "spin")] {
        let mut ratios: Vec<f64> = p99s[2]
            .iter()
            .zip(&p99s[k])
            .map(|(n, f)| n / f.max(1.0))
            .collect();
        if let Some(s) = Summary::of_rounds(&ratios) {
            ratios.clear();
            let mut r = row(
                "rt-floor-nerve",
                &format!("ratio_p99_vs_{floor}"),
                "same-thread",
                "1:1",
            )
            .summary(s)
            .field("note", "nerve p99 / loop p99 per round; p50 = median");
            // Like for like: nerve's RT lane spins before each start, so its floor is the
            // loop that spins too; the bare clock_nanosleep loop is shown beside it.
            if floor == "spin" {
                r = r
                    .field("threshold", 1.2)
                    .field("pass", s.p50 <= 1.2)
                    .field("target", "the 1 kHz RT node's p99 start lateness ≤ 1.2 × a SCHED_FIFO loop's that spins the same 200 µs before each deadline, same core, same run");
            }
            out.push(r);
        }
    }
    out
}

/// A node that hangs in its `hang_at`-th tick for `hang`, recording when that tick started.
struct Hangs {
    tick: u64,
    hang_at: u64,
    hang: Duration,
    started: Arc<AtomicU64>,
}

impl Node for Hangs {
    fn name(&self) -> &str {
        "hangs"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        self.tick += 1;
        if self.tick == self.hang_at {
            // Relaxed: read after the run, joined.
            self.started.store(now_ns(), Ordering::Relaxed);
            std::thread::sleep(self.hang);
        }
    }
}

/// Records when it entered its safe state.
struct Witness(Arc<AtomicU64>);

impl Node for Witness {
    fn name(&self) -> &str {
        "witness"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        // Relaxed: read after the run, joined.
        self.0.store(now_ns(), Ordering::Relaxed);
    }
}

/// Watchdog resolution: a 100 Hz node hangs in one tick; with a 10 ms watchdog timeout, the
/// time from (hang start + timeout) to another lane's `on_safe_state` (HangPolicy::EStop).
pub(super) fn watchdog_resolution(quick: bool) -> Row {
    let metric = "watchdog_detect_ns";
    let reps = if quick { 10 } else { 50 };
    let timeout = Duration::from_millis(10);
    let mut late = Vec::new();
    for i in 0..reps {
        let started = Arc::new(AtomicU64::new(0));
        let safe = Arc::new(AtomicU64::new(0));
        let b = Scheduler::builder()
            .print_stats(false)
            .handle_signals(false)
            .announce(false)
            .lock_memory(false)
            .node(Hangs {
                tick: 0,
                hang_at: 5 + i % 3,
                hang: Duration::from_millis(40),
                started: started.clone(),
            })
            .rate(100.0)
            .watchdog(timeout)
            .on_hang(HangPolicy::EStop)
            .node(Witness(safe.clone()))
            .rate(1000.0)
            .class(ExecClass::Rt {
                priority: 70,
                cpu: rt_cpu(),
            })
            .done();
        let mut s = match b.build() {
            Ok(s) => s,
            Err(e) => return error_row("watchdog", metric, e),
        };
        if let Err(e) = s.run_for(Duration::from_millis(150)) {
            return error_row("watchdog", metric, e);
        }
        let (t0, t1) = (
            started.load(Ordering::Relaxed),
            safe.load(Ordering::Relaxed),
        );
        if t0 == 0 || t1 == 0 {
            return error_row(
                "watchdog",
                metric,
                format!("round {i}: the hang was not detected (started {t0}, safe state {t1})"),
            );
        }
        let due = t0 + timeout.as_nanos() as u64;
        late.push(t1.saturating_sub(due) as f64);
    }
    with_samples(row("watchdog", metric, "cross-thread", "1:2"), &mut late)
        .field("watchdog_timeout_ms", 10u64)
        .field(
            "note",
            format!("a 100 Hz compute node sleeps 40 ms in one tick; watchdog timeout 10 ms, HangPolicy::EStop; value = another (RT) lane's on_safe_state - (hang start + timeout): the watchdog thread's look period plus the e-stop's reach; {reps} hangs"),
        )
}

/// Spins for `work` per tick; hands a `block`-long blocking call to tokio's blocking pool (async
/// nodes only); panics every `panic_every`-th tick when set.
struct Load {
    name: String,
    work: Duration,
    block: Option<Duration>,
    panic_every: Option<u64>,
    ticks: u64,
}

impl Node for Load {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        self.ticks += 1;
        if let Some(n) = self.panic_every {
            if self.ticks.is_multiple_of(n) {
                panic!("simulated failure in {}", self.name);
            }
        }
        if let Some(b) = self.block {
            // What nerve's async nodes are for: the tick hands the blocking call to the
            // runtime's blocking pool and returns (a tick must not block the runtime).
            drop(tokio::task::spawn_blocking(move || std::thread::sleep(b)));
        }
        let end = now_ns() + self.work.as_nanos() as u64;
        while now_ns() < end {
            std::hint::spin_loop();
        }
    }
}

/// (name, rate Hz, class, work µs, blocking ms, panic every N ticks, count).
type Spec = (&'static str, f64, ExecClass, u64, u64, Option<u64>, usize);

/// HORUS's five workload classes, defined by what they run. Each runs `secs`; rows per node
/// group: start lateness, misses, achieved rate, panics and restarts.
pub(super) fn workload_classes(quick: bool) -> Vec<Row> {
    let secs = if quick { 2 } else { 5 };
    let rt = ExecClass::Rt {
        priority: 80,
        cpu: rt_cpu(),
    };
    let classes: [(&str, &str, Vec<Spec>); 5] = [
        (
            "UltraFastControl",
            "4 control loops at 1 kHz on one RT lane, 20 us of work each",
            vec![("control", 1000.0, rt, 20, 0, None, 4)],
        ),
        (
            "FastSensor",
            "8 sensor-fusion nodes at 200 Hz on the compute pool, 100 us each",
            vec![("fusion", 200.0, ExecClass::Compute, 100, 0, None, 8)],
        ),
        (
            "HeavyIO",
            "4 async nodes at 50 Hz, each tick handing a 5 ms blocking call (file or network I/O stand-in) to tokio's blocking pool, beside a 1 kHz RT loop",
            vec![
                ("io", 50.0, ExecClass::Async, 0, 5, None, 4),
                ("control", 1000.0, rt, 20, 0, None, 1),
            ],
        ),
        (
            "MixedRealistic",
            "1 kHz RT control, 4 × 100 Hz compute (500 us each), 2 × 20 Hz async I/O (2 ms blocking calls on the blocking pool)",
            vec![
                ("control", 1000.0, rt, 20, 0, None, 1),
                ("perception", 100.0, ExecClass::Compute, 500, 0, None, 4),
                ("io", 20.0, ExecClass::Async, 0, 2, None, 2),
            ],
        ),
        (
            "FaultTolerance",
            "a 100 Hz compute node panicking every 50th tick (FailurePolicy::Restart, 1 ms backoff) beside a 1 kHz RT loop",
            vec![
                ("flaky", 100.0, ExecClass::Compute, 50, 0, Some(50), 1),
                ("control", 1000.0, rt, 20, 0, None, 1),
            ],
        ),
    ];
    let metric = "start_lateness_ns";
    let mut out = Vec::new();
    for (class, what, specs) in classes {
        let mut b = Scheduler::builder()
            .print_stats(false)
            .handle_signals(false)
            .announce(false)
            .spin(Duration::from_micros(200));
        let mut groups = Vec::new();
        for (name, hz, ec, work, block_ms, panic_every, count) in &specs {
            for i in 0..*count {
                let mut e = b
                    .node(Load {
                        name: format!("{name}{i}"),
                        work: Duration::from_micros(*work),
                        block: (*block_ms > 0).then(|| Duration::from_millis(*block_ms)),
                        panic_every: *panic_every,
                        ticks: 0,
                    })
                    .rate(*hz)
                    .class(*ec);
                if panic_every.is_some() {
                    e = e.on_panic(FailurePolicy::Restart {
                        max: 1000,
                        backoff: Duration::from_millis(1),
                    });
                }
                b = e.done();
                groups.push(*name);
            }
        }
        let mut s = match b.build() {
            Ok(s) => s,
            Err(e) => {
                out.push(error_row(class, metric, e));
                continue;
            }
        };
        if let Err(e) = s.run_for(Duration::from_secs(secs)) {
            out.push(error_row(class, metric, e));
            continue;
        }
        let stats = s.stats();
        for (name, hz, ..) in &specs {
            // The group's worst node (highest p99 lateness) stands for it.
            let members: Vec<_> = stats
                .iter()
                .zip(&groups)
                .filter(|(_, g)| *g == name)
                .map(|(st, _)| st)
                .collect();
            let Some(worst) = members.iter().max_by_key(|st| st.lateness_ns.p99) else {
                continue;
            };
            let sum = |f: &dyn Fn(&nerve_exec::NodeStats) -> u64| -> u64 {
                members.iter().map(|st| f(st)).sum()
            };
            let min_hz = members
                .iter()
                .map(|st| st.achieved_hz)
                .fold(f64::INFINITY, f64::min);
            let r = row(
                class,
                metric,
                "cross-thread",
                &format!("1:{}", members.len()),
            )
            .field("group", *name)
            .field("nodes", members.len())
            .field("rate_hz", *hz);
            out.push(
                with_node_stat(r, &worst.lateness_ns)
                    .field("misses", sum(&|st| st.misses))
                    .field("panics", sum(&|st| st.panics))
                    .field("restarts", sum(&|st| st.restarts))
                    .field("achieved_hz_min", min_hz)
                    .field("duration_s", secs as f64)
                    .field(
                        "note",
                        format!("{what}; the group's worst node's start lateness; {secs} s"),
                    ),
            );
        }
    }
    out
}

/// The compute pool's start lateness with and without `compute_spin`: a 100 Hz node (200 µs
/// of work) and a 10 Hz node (1 ms) on the compute lane, the other core busy, rounds
/// alternating spin 0 (the default) and 100 µs.
pub(super) fn compute_spin(quick: bool) -> Vec<Row> {
    let metric = "start_lateness_ns";
    let (rounds, secs) = if quick { (2, 2) } else { (3, 5) };
    let spins = [Duration::ZERO, Duration::from_micros(100)];
    // [spin][node]: pooled start lateness from the scheduler's per-tick record.
    let mut got: [[Vec<f64>; 2]; 2] = Default::default();
    let nodes = [(100.0, 200u64), (10.0, 1000u64)];
    for _ in 0..rounds {
        for (k, spin) in spins.iter().enumerate() {
            let lat: [Arc<Mutex<Vec<f64>>>; 2] = Default::default();
            let mut b = Scheduler::builder()
                .print_stats(false)
                .handle_signals(false)
                .announce(false)
                .compute_spin(*spin);
            for (i, (hz, work)) in nodes.iter().enumerate() {
                b = b
                    .node(Timed {
                        name: format!("n{hz}"),
                        late: lat[i].clone(),
                        work: Duration::from_micros(*work),
                    })
                    .rate(*hz)
                    .done();
            }
            let mut s = match b.build() {
                Ok(s) => s,
                Err(e) => return vec![error_row("compute-spin", metric, e)],
            };
            let busy = super::mixed::Busy::start();
            if let Err(e) = s.run_for(Duration::from_secs(secs)) {
                return vec![error_row("compute-spin", metric, e)];
            }
            drop(busy);
            for (i, l) in lat.iter().enumerate() {
                let mut v = nerve::sys::lock(l).clone();
                if !v.is_empty() {
                    v.remove(0);
                }
                got[k][i].append(&mut v);
            }
        }
    }
    let mut out = Vec::new();
    for (k, spin) in spins.iter().enumerate() {
        for (i, (hz, work)) in nodes.iter().enumerate() {
            let r = row("compute-spin", metric, "cross-thread", "1:2")
                .field("rate_hz", *hz)
                .field("compute_spin_us", spin.as_micros() as u64)
                .field(
                    "note",
                    format!("compute lane, {work} us of work per tick, beside the other node; other core busy; compute_spin {} us; {rounds} rounds of {secs} s alternating", spin.as_micros()),
                );
            out.push(with_samples(r, &mut got[k][i]));
        }
    }
    out
}
