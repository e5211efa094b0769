//! The scheduler benchmark behind `nerve-bench sched` (feature `bench`): issue 4's scenarios,
//! as rows of the BENCHMARKS.md JSON contract with `suite: "sched"`.
//!
//! (a) mixed rates 1 kHz (RT) + 500 Hz (RT) + 100 Hz + 10 Hz with the other core busy:
//!     start lateness, misses, achieved rate; (b) tick overhead per node with 1…200 nodes;
//! (c) e-stop latency to every node; (d) budget/watchdog monitoring overhead per node;
//! (e) rclcpp_async's table: N concurrent tasks sleeping 1/10/100 ms, single and repeated fire.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::aio::{self, Executor};
use nerve_transport::time::now_ns;

use crate::{Context, ExecClass, Histogram, Node, Scheduler, Summary};

/// One result row (BENCHMARKS.md output contract plus issue 4's fields). Optional fields are
/// `None` where they do not apply and are left out of the JSON.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchRow {
    /// Always `sched`.
    pub suite: String,
    /// Always `nerve` (no peer scheduler is run yet).
    pub system: String,
    /// `rust`.
    pub api: String,
    /// `same-thread` (one lane) or `cross-thread`.
    pub transport: String,
    /// `P:S`; here `1:N` = one trigger, N nodes (or tasks).
    pub topology: String,
    /// `blocking` (lanes sleep between ticks) or `poll`.
    pub mode: String,
    /// The scenario, e.g. `mixed-rates`, `empty-nodes`, `estop`, `async-sleep`.
    pub message: String,
    /// 0: no payload.
    pub payload_bytes: u64,
    /// `start_lateness_ns`, `tick_overhead_ns_per_node`, `budget_overhead_ns_per_node`,
    /// `estop_ns`, `tasks_wall_ns`.
    pub metric: String,
    /// Smallest value.
    pub min: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest value.
    pub max: f64,
    /// Samples.
    pub n: u64,
    /// Why the scenario could not run (then the numbers are 0).
    pub error: Option<String>,
    /// `start_lateness_ns`: requested rate.
    pub rate_hz: Option<f64>,
    /// `start_lateness_ns`: deadline misses.
    pub misses: Option<u64>,
    /// `start_lateness_ns`: achieved rate.
    pub achieved_hz: Option<f64>,
    /// `tick_overhead_ns_per_node`: nodes in the lane.
    pub nodes: Option<u64>,
    /// `tasks_wall_ns`: concurrent tasks.
    pub tasks: Option<u64>,
    /// `tasks_wall_ns`: each sleep.
    pub sleep_ms: Option<u64>,
    /// `tasks_wall_ns`: sleeps per task (1 = single fire).
    pub repeats: Option<u64>,
    /// `start_lateness_ns`: what else ran during the measurement: `other-core-busy` (a
    /// spinning thread pinned to the core the RT lanes are not on) or `idle`.
    pub load: Option<String>,
    /// `start_lateness_ns`: length of the run in seconds.
    pub duration_s: Option<f64>,
    /// `start_lateness_ns`: time the hypervisor took the vCPUs away during the run (all CPUs,
    /// ms, from `/proc/stat`): stalls no scheduler inside the guest can prevent.
    pub steal_ms: Option<u64>,
    /// Free text: conditions (RT granted or not, busy core, duration).
    pub note: Option<String>,
}

impl BenchRow {
    fn new(message: &str, metric: &str, transport: &str, topology: String) -> Self {
        Self {
            suite: "sched".into(),
            system: "nerve".into(),
            api: "rust".into(),
            transport: transport.into(),
            topology,
            mode: "blocking".into(),
            message: message.into(),
            metric: metric.into(),
            ..Default::default()
        }
    }

    fn with(mut self, s: &Summary) -> Self {
        self.min = s.min as f64;
        self.p50 = s.p50 as f64;
        self.p90 = s.p90 as f64;
        self.p99 = s.p99 as f64;
        self.p999 = s.p999 as f64;
        self.max = s.max as f64;
        self.n = s.n;
        self
    }

    /// The row as one JSON object (the contract's field names).
    pub fn to_json(&self) -> String {
        fn s(v: &str) -> String {
            let mut o = String::from("\"");
            for c in v.chars() {
                match c {
                    '"' => o.push_str("\\\""),
                    '\\' => o.push_str("\\\\"),
                    c if (c as u32) < 0x20 => {
                        let _ = write!(o, "\\u{:04x}", c as u32);
                    }
                    c => o.push(c),
                }
            }
            o.push('"');
            o
        }
        fn f(v: f64) -> String {
            if v.is_finite() {
                format!("{v}")
            } else {
                "null".into()
            }
        }
        let mut o = format!(
            "{{\"suite\":{},\"system\":{},\"api\":{},\"transport\":{},\"topology\":{},\"mode\":{},\
             \"message\":{},\"payload_bytes\":{},\"metric\":{}",
            s(&self.suite),
            s(&self.system),
            s(&self.api),
            s(&self.transport),
            s(&self.topology),
            s(&self.mode),
            s(&self.message),
            self.payload_bytes,
            s(&self.metric)
        );
        if let Some(e) = &self.error {
            let _ = write!(o, ",\"error\":{}", s(e));
        } else {
            let _ = write!(
                o,
                ",\"min\":{},\"p50\":{},\"p90\":{},\"p99\":{},\"p999\":{},\"max\":{},\"n\":{}",
                f(self.min),
                f(self.p50),
                f(self.p90),
                f(self.p99),
                f(self.p999),
                f(self.max),
                self.n
            );
        }
        let opt_f = [
            ("rate_hz", self.rate_hz),
            ("achieved_hz", self.achieved_hz),
            ("duration_s", self.duration_s),
        ];
        for (k, v) in opt_f {
            if let Some(v) = v {
                let _ = write!(o, ",\"{k}\":{}", f(v));
            }
        }
        let opt_u = [
            ("misses", self.misses),
            ("nodes", self.nodes),
            ("tasks", self.tasks),
            ("sleep_ms", self.sleep_ms),
            ("repeats", self.repeats),
            ("steal_ms", self.steal_ms),
        ];
        for (k, v) in opt_u {
            if let Some(v) = v {
                let _ = write!(o, ",\"{k}\":{v}");
            }
        }
        if let Some(l) = &self.load {
            let _ = write!(o, ",\"load\":{}", s(l));
        }
        if let Some(n) = &self.note {
            let _ = write!(o, ",\"note\":{}", s(n));
        }
        o.push('}');
        o
    }
}

/// The scenarios, by the names [`run_only`] and `$NERVE_SCHED_ONLY` take.
pub const SCENARIOS: [&str; 5] = ["mixed", "overhead", "budget", "estop", "tasks"];

/// Runs every scenario (or those named in `$NERVE_SCHED_ONLY`, comma-separated, see
/// [`SCENARIOS`]); `quick` keeps the whole run within about a minute.
pub fn run(quick: bool) -> Vec<BenchRow> {
    let only = std::env::var("NERVE_SCHED_ONLY").unwrap_or_default();
    let only: Vec<&str> = only.split(',').filter(|s| !s.is_empty()).collect();
    run_only(quick, &only)
}

/// Runs the scenarios named in `only` (all when empty).
pub fn run_only(quick: bool, only: &[&str]) -> Vec<BenchRow> {
    let want = |s: &str| only.is_empty() || only.contains(&s);
    let mut rows = Vec::new();
    if want("mixed") {
        rows.extend(mixed_rates(if quick { 5 } else { 60 }));
    }
    if want("overhead") {
        rows.extend(tick_overhead(quick));
    }
    if want("budget") {
        rows.push(budget_overhead(quick));
    }
    if want("estop") {
        rows.push(estop(if quick { 100 } else { 500 }));
    }
    if want("tasks") {
        rows.extend(tasks(quick));
    }
    rows
}

/// A node that spins for `work` in each tick, standing in for a control law.
struct Work {
    name: String,
    work: Duration,
}

impl Node for Work {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let end = now_ns() + self.work.as_nanos() as u64;
        while now_ns() < end {
            std::hint::spin_loop();
        }
    }
}

/// Keeps one core busy (pinned to cpu 0 where allowed) until dropped.
struct Busy {
    stop: Arc<AtomicBool>,
    t: Option<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let t = std::thread::spawn(move || {
            let _ = crate::rt::pin_to(0);
            let mut x = 0u64;
            while !s.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        });
        Self { stop, t: Some(t) }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.t.take() {
            let _ = t.join();
        }
    }
}

fn error_row(message: &str, metric: &str, e: impl std::fmt::Display) -> BenchRow {
    let mut r = BenchRow::new(message, metric, "cross-thread", "1:1".into());
    r.error = Some(e.to_string());
    r
}

/// (a) 1 kHz and 500 Hz on SCHED_FIFO lanes pinned to cpu 1, 100 Hz and 10 Hz on the compute
/// pool, and (unless `$NERVE_SCHED_LOAD` is `idle`) a spinning thread pinned to cpu 0 for the
/// whole run. The RT lanes spin 200 µs before each planned start (the scheduler's `spin`; its
/// default is 50 µs): on a VM whose idle vCPU halts, the timer interrupt that ends the kernel
/// sleep arrives p99 ~400 µs late, and only a spin longer than that tail keeps the p99 start
/// within 50 µs (docs/design/scheduler.md). `$NERVE_SCHED_SPIN_US` sets another spin (recorded
/// in the rows' note); `$NERVE_SCHED_IDLE_POLL=1` turns on
/// the scheduler's `idle_poll` (cpu 1 busy-polls at SCHED_IDLE between ticks; in the note).
fn mixed_rates(secs: u64) -> Vec<BenchRow> {
    let busy_wanted = std::env::var("NERVE_SCHED_LOAD").map_or(true, |v| v != "idle");
    let cpu = if num_cpus() > 1 { Some(1) } else { None };
    let spec = [
        (1000.0, ExecClass::Rt { priority: 80, cpu }, 20),
        (500.0, ExecClass::Rt { priority: 70, cpu }, 50),
        (100.0, ExecClass::Compute, 200),
        (10.0, ExecClass::Compute, 1000),
    ];
    let mut b = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false);
    // How long RT lanes spin before a planned start.
    let spin_us = std::env::var("NERVE_SCHED_SPIN_US")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(200);
    b = b.spin(Duration::from_micros(spin_us));
    let idle_poll = std::env::var("NERVE_SCHED_IDLE_POLL").is_ok_and(|v| v == "1");
    b = b.idle_poll(idle_poll);
    for (hz, class, work_us) in spec {
        b = b
            .node(Work {
                name: format!("n{hz}"),
                work: Duration::from_micros(work_us),
            })
            .rate(hz)
            .class(class)
            .done();
    }
    let mut s = match b.build() {
        Ok(s) => s,
        Err(e) => return vec![error_row("mixed-rates", "start_lateness_ns", e)],
    };
    let busy = busy_wanted.then(Busy::start);
    let load = if busy_wanted {
        "other-core-busy"
    } else {
        "idle"
    };
    let steal0 = steal_ms();
    let r = s.run_for(Duration::from_secs(secs));
    let steal = steal0.zip(steal_ms()).map(|(a, b)| b.saturating_sub(a));
    drop(busy);
    if let Err(e) = r {
        return vec![error_row("mixed-rates", "start_lateness_ns", e)];
    }
    let rep = s.rt_report();
    let rt_note = if rep.all_ok() {
        "SCHED_FIFO, pinned, mlockall: all granted".to_owned()
    } else {
        let f: Vec<String> = rep.failures().map(|a| a.what.clone()).collect();
        format!("RT not granted: {}", f.join("; "))
    };
    let rt_note = format!("{rt_note}; RT spin before start {spin_us} us");
    let rt_note = if idle_poll {
        format!("{rt_note}; idle_poll on (cpu 1 polls at SCHED_IDLE between ticks)")
    } else {
        rt_note
    };
    s.stats()
        .iter()
        .zip(spec)
        .map(|(st, (hz, class, work_us))| {
            let mut r = BenchRow::new(
                "mixed-rates",
                "start_lateness_ns",
                "cross-thread",
                "1:4".into(),
            )
            .with(&st.lateness_ns);
            r.rate_hz = Some(hz);
            r.misses = Some(st.misses);
            r.achieved_hz = Some(st.achieved_hz);
            r.load = Some(load.to_owned());
            r.duration_s = Some(secs as f64);
            r.steal_ms = steal;
            r.note = Some(format!(
                "{}, work {work_us} us/tick, {secs} s, load {load} (spinning thread pinned to cpu 0); \
                 {rt_note}; tick p99 {} ns; \
                 worst start at {:?}; host steal during the run: {}",
                match class {
                    ExecClass::Rt { priority, .. } => format!("RT prio {priority}"),
                    _ => "compute lane".to_owned(),
                },
                st.tick_ns.p99,
                st.worst_lateness_at,
                steal.map_or("unknown".to_owned(), |ms| format!("{ms} ms"))
            ));
            r
        })
        .collect()
}

/// Time the hypervisor took the vCPUs away (all CPUs, `steal` in /proc/stat), in ms.
fn steal_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: u64 = line.split_whitespace().nth(8)?.parse().ok()?;
    // SAFETY: sysconf takes a constant and touches no memory.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(ticks * 1000 / hz)
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Node for (b)/(d): the first node stamps the round start, the last one records the spread.
struct Stamp {
    name: String,
    first: bool,
    last: bool,
    shared: Arc<(AtomicU64, Mutex<Histogram>)>,
    nodes: u64,
}

impl Node for Stamp {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        if self.first {
            self.shared.0.store(now_ns(), Ordering::Relaxed);
        }
        if self.last && ctx.tick() > 10 {
            let spread = now_ns().saturating_sub(self.shared.0.load(Ordering::Relaxed));
            if let Ok(mut h) = self.shared.1.lock() {
                h.record(spread / self.nodes);
            }
        }
    }
}

/// Per-node cost of one round: (last node's end − first node's start) / N, empty ticks, all
/// nodes due at the same time on one lane at 1 kHz.
fn overhead(nodes: u64, secs: f64) -> Result<Summary, String> {
    let shared = Arc::new((AtomicU64::new(0), Mutex::new(Histogram::new())));
    let mut b = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false);
    for i in 0..nodes {
        b = b
            .node(Stamp {
                name: format!("n{i}"),
                first: i == 0,
                last: i == nodes - 1,
                shared: shared.clone(),
                nodes,
            })
            .rate(1000.0)
            .order(i as i64)
            .done();
    }
    let mut s = b.build().map_err(|e| e.to_string())?;
    s.run_for(Duration::from_secs_f64(secs))
        .map_err(|e| e.to_string())?;
    let h = shared.1.lock().map_err(|e| e.to_string())?;
    Ok(h.summary())
}

/// (b).
fn tick_overhead(quick: bool) -> Vec<BenchRow> {
    let secs = if quick { 1.0 } else { 5.0 };
    let mut rows = Vec::new();
    for n in [1u64, 10, 50, 100, 200] {
        let mut r = match overhead(n, secs) {
            Ok(s) => BenchRow::new(
                "empty-nodes",
                "tick_overhead_ns_per_node",
                "same-thread",
                format!("1:{n}"),
            )
            .with(&s),
            Err(e) => error_row("empty-nodes", "tick_overhead_ns_per_node", e),
        };
        r.nodes = Some(n);
        r.note = Some(
            "per 1 kHz round: (last node end - first node start) / nodes; empty ticks; \
             for 1 node: the cost of one empty tick incl. its stats"
                .into(),
        );
        rows.push(r);
    }
    rows
}

/// Node for (d): stamps its tick's start (the scheduler's own clock read) into `stamps`; the
/// last node of the round turns the stamps into per-node gaps.
struct Gap {
    name: String,
    i: usize,
    flip: bool,
    stamps: Arc<Vec<AtomicU64>>,
    out: Option<Arc<Mutex<GapOut>>>,
}

#[derive(Default)]
struct GapOut {
    /// Per round: median on→on gap − median off→off gap (ns).
    diffs: Vec<i64>,
    on: Vec<u64>,
    off: Vec<u64>,
}

/// Nodes are monitored in blocks of four: on,on,on,on,off,off,off,off,… (`flip`: off first).
fn gap_monitored(i: usize, flip: bool) -> bool {
    (i / 4).is_multiple_of(2) != flip
}

fn median(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

impl Node for Gap {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        self.stamps[self.i].store(ctx.now().as_nanos() as u64, Ordering::Relaxed);
        let Some(out) = &self.out else { return };
        if ctx.tick() < 20 {
            return; // warm-up
        }
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for k in 0..self.i {
            let a = self.stamps[k].load(Ordering::Relaxed);
            let b = self.stamps[k + 1].load(Ordering::Relaxed);
            let gap = b.saturating_sub(a);
            match (gap_monitored(k, self.flip), gap_monitored(k + 1, self.flip)) {
                (true, true) => on.push(gap),
                (false, false) => off.push(gap),
                _ => {}
            }
        }
        if let Ok(mut o) = out.lock() {
            o.on.extend_from_slice(&on);
            o.off.extend_from_slice(&off);
            o.diffs
                .push(median(&mut on) as i64 - median(&mut off) as i64);
        }
    }
}

/// (d) What budget + watchdog monitoring adds per node and tick: 200 empty nodes at 1 kHz on
/// one lane, monitored (budget, deadline and watchdog set) and unmonitored in alternating
/// blocks of four, so both kinds run in the same rounds, at the same moments, with the same
/// cache state. The cost of a node is the gap from its tick's start to the next node's (the
/// scheduler's own clock reads); per round, median on→on gap − median off→off gap.
fn budget_overhead(quick: bool) -> BenchRow {
    let n = 200usize;
    let secs = if quick { 0.5 } else { 2.5 };
    let metric = "budget_overhead_ns_per_node";
    let out = Arc::new(Mutex::new(GapOut::default()));
    // Four runs, the pattern flipped every other run, so a node's position in the lane
    // (cache, branch history) favours neither side.
    for run in 0..4 {
        let flip = run % 2 == 1;
        let stamps: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
        let mut b = Scheduler::builder()
            .print_stats(false)
            .handle_signals(false);
        for i in 0..n {
            let mut e = b
                .node(Gap {
                    name: format!("n{i}"),
                    i,
                    flip,
                    stamps: stamps.clone(),
                    out: (i == n - 1).then(|| out.clone()),
                })
                .rate(1000.0)
                .order(i as i64);
            if gap_monitored(i, flip) {
                e = e
                    .budget(Duration::from_micros(100))
                    .deadline(Duration::from_micros(900))
                    .watchdog(Duration::from_millis(500));
            }
            b = e.done();
        }
        let mut s = match b.build() {
            Ok(s) => s,
            Err(e) => return error_row("empty-nodes", metric, e),
        };
        if let Err(e) = s.run_for(Duration::from_secs_f64(secs)) {
            return error_row("empty-nodes", metric, e);
        }
    }
    let mut o = match out.lock() {
        Ok(mut o) => std::mem::take(&mut *o),
        Err(e) => return error_row("empty-nodes", metric, e),
    };
    o.diffs.sort_unstable();
    let q = |p: f64| -> f64 {
        let v = &o.diffs;
        if v.is_empty() {
            return 0.0;
        }
        v[((v.len() - 1) as f64 * p).round() as usize] as f64
    };
    let mut r = BenchRow::new("empty-nodes", metric, "same-thread", format!("1:{n}"));
    r.min = q(0.0);
    r.p50 = q(0.5);
    r.p90 = q(0.9);
    r.p99 = q(0.99);
    r.p999 = q(0.999);
    r.max = q(1.0);
    r.n = o.diffs.len() as u64;
    r.nodes = Some(n as u64);
    let (on, off) = (median(&mut o.on), median(&mut o.off));
    r.note = Some(format!(
        "paired A/B in the same rounds: {n} empty nodes at 1 kHz on one lane, budget+deadline+\
         watchdog set on alternating blocks of 4 (which blocks flipped every other run, 4 runs); \
         per round median gap after a monitored node minus after an unmonitored one \
         (percentiles over {} rounds; a value within a few ns of 0, either sign, is no \
         measurable cost); pooled medians: monitored {on} ns, unmonitored {off} ns per node",
        o.diffs.len()
    ));
    r
}

struct Quiet(String);

impl Node for Quiet {
    fn name(&self) -> &str {
        &self.0
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
}

/// (c) trigger → last node's `on_safe_state`, nodes on an RT lane (1 kHz), the compute lane
/// (100 Hz ×8) and a 1 Hz lane that is asleep when the trigger comes.
fn estop(reps: u32) -> BenchRow {
    let mut h = Histogram::new();
    let mut per_lane = [Histogram::new(), Histogram::new(), Histogram::new()];
    let mut last_err = None;
    for i in 0..reps {
        let mut b = Scheduler::builder()
            .print_stats(false)
            .handle_signals(false)
            .lock_memory(false)
            .estop_priority(1)
            .node(Quiet("rt".into()))
            .rate(1000.0)
            .class(ExecClass::Rt {
                priority: 80,
                cpu: None,
            })
            .node(Quiet("slow".into()))
            .rate(1.0)
            .class(ExecClass::Rt {
                priority: 10,
                cpu: None,
            })
            .done();
        for k in 0..8 {
            b = b.node(Quiet(format!("c{k}"))).rate(100.0).done();
        }
        let mut s = match b.build() {
            Ok(s) => s,
            Err(e) => return error_row("estop", "estop_ns", e),
        };
        let (handle, e) = (s.handle(), s.estop());
        let delay = Duration::from_micros(20_000 + (i as u64 * 3_137) % 10_000);
        let t = std::thread::spawn(move || {
            std::thread::sleep(delay);
            e.trigger("bench");
            std::thread::sleep(Duration::from_millis(5));
            handle.stop();
        });
        if let Err(e) = s.run() {
            last_err = Some(e.to_string());
        }
        let _ = t.join();
        let st = s.stats();
        let worst = st
            .iter()
            .filter_map(|st| st.safe_state_latency)
            .max()
            .unwrap_or_default();
        h.record(worst.as_nanos() as u64);
        for (k, st) in st.iter().enumerate() {
            let lane = match k {
                0 => 0,
                1 => 1,
                _ => 2,
            };
            if let Some(l) = st.safe_state_latency {
                per_lane[lane].record(l.as_nanos() as u64);
            }
        }
    }
    if let Some(e) = last_err {
        return error_row("estop", "estop_ns", e);
    }
    let mut r =
        BenchRow::new("estop", "estop_ns", "cross-thread", "1:10".into()).with(&h.summary());
    r.nodes = Some(10);
    r.note = Some(format!(
        "per trigger: the latest of 10 nodes' on_safe_state (3 lanes, one asleep for up to 1 s; \
         compute lane waits at SCHED_FIFO 1: estop_priority(1)); \
         {reps} triggers; p50/p99/max by lane: rt 1 kHz {}, rt 1 Hz {}, compute 8x100 Hz {}",
        lane_summary(&per_lane[0]),
        lane_summary(&per_lane[1]),
        lane_summary(&per_lane[2]),
    ));
    r
}

fn lane_summary(h: &Histogram) -> String {
    let s = h.summary();
    format!("{}/{}/{} us", s.p50 / 1000, s.p99 / 1000, s.max / 1000)
}

/// (e) rclcpp_async's table, with nerve's timer ([`aio::sleep`]) and tokio's
/// (`tokio::time::sleep`, 1 ms wheel) in alternating iterations. The clock starts before the
/// first task is spawned and stops when the last one has been joined, as in rclcpp_async's
/// `bench_concurrent`.
fn tasks(quick: bool) -> Vec<BenchRow> {
    let iters = if quick { 5 } else { 10 };
    let mut rows = Vec::new();
    let ex = match Executor::builder().build() {
        Ok(e) => e,
        Err(e) => return vec![error_row("async-sleep", "tasks_wall_ns", e)],
    };
    for &n in &[100u64, 500, 1000, 5000] {
        for &ms in &[1u64, 10, 100] {
            for &repeats in &[1u64, 3] {
                if quick && ms == 100 && n != 5000 {
                    continue;
                }
                let mut h = [Histogram::new(), Histogram::new()];
                for _ in 0..iters {
                    for (v, h) in h.iter_mut().enumerate() {
                        let tokio_timer = v == 1;
                        let t = Instant::now();
                        ex.block_on(async {
                            let hs: Vec<_> = (0..n)
                                .map(|_| {
                                    aio::spawn(async move {
                                        for _ in 0..repeats {
                                            let d = Duration::from_millis(ms);
                                            if tokio_timer {
                                                tokio::time::sleep(d).await;
                                            } else {
                                                aio::sleep(d).await;
                                            }
                                        }
                                    })
                                })
                                .collect();
                            for h in hs {
                                let _ = h.await;
                            }
                        });
                        h.record(t.elapsed().as_nanos() as u64);
                    }
                }
                for (v, h) in h.iter().enumerate() {
                    let (message, timer) = if v == 0 {
                        ("async-sleep", "nerve timer (aio::sleep, ns deadlines)")
                    } else {
                        ("async-sleep-tokio-timer", "tokio::time::sleep (1 ms wheel)")
                    };
                    let mut r =
                        BenchRow::new(message, "tasks_wall_ns", "same-thread", format!("1:{n}"))
                            .with(&h.summary());
                    r.tasks = Some(n);
                    r.sleep_ms = Some(ms);
                    r.repeats = Some(repeats);
                    r.note = Some(format!(
                        "wall time from before spawning N tasks to the last one joined, \
                         current-thread tokio executor, {timer}; repeats > 1: each task sleeps \
                         that many times in sequence; {iters} iterations, alternating timers"
                    ));
                    rows.push(r);
                }
            }
        }
    }
    rows
}
