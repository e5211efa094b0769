//! Real-time behaviour on the monotonic clock. The test machine has 2 shared, noisy cores:
//! tolerances are wide enough not to flake and narrow enough to catch a broken scheduler.
//! Tests in this file run one at a time (they measure time).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nerve_exec::prelude::*;
use nerve_exec::{RunError, WakeSource};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Default)]
struct Probe {
    ticks: AtomicU64,
    safe: AtomicU32,
    shutdowns: AtomicU32,
    inits: AtomicU32,
    bad_plan: AtomicU32,
}

struct Counter {
    name: String,
    period: Duration,
    probe: Arc<Probe>,
    sleep_in_tick: Option<Duration>,
}

impl Counter {
    fn new(name: &str, hz: f64) -> (Self, Arc<Probe>) {
        let probe = Arc::new(Probe::default());
        let c = Self {
            name: name.into(),
            period: Duration::from_secs_f64(1.0 / hz),
            probe: probe.clone(),
            sleep_in_tick: None,
        };
        (c, probe)
    }
}

impl Node for Counter {
    fn name(&self) -> &str {
        &self.name
    }
    fn init(&mut self, _ctx: &mut Context<'_>) -> Result<(), NodeError> {
        self.probe.inits.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        // The absolute timeline: planned start of tick k is exactly k periods.
        let want = self.period.as_nanos() as u64 * ctx.tick();
        if (ctx.planned().as_nanos() as u64).abs_diff(want) > 1 {
            self.probe.bad_plan.fetch_add(1, Ordering::SeqCst);
        }
        self.probe.ticks.fetch_add(1, Ordering::SeqCst);
        if let Some(d) = self.sleep_in_tick {
            std::thread::sleep(d);
        }
    }
    fn shutdown(&mut self, _ctx: &mut Context<'_>) {
        self.probe.shutdowns.fetch_add(1, Ordering::SeqCst);
    }
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        self.probe.safe.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn real_time_rate_within_tolerance() {
    let _g = serial();
    let (a, pa) = Counter::new("r200", 200.0);
    let (b, pb) = Counter::new("r50", 50.0);
    let mut s = Scheduler::builder()
        .print_stats(false)
        .node(a)
        .rate(200.0)
        .node(b)
        .rate(50.0)
        .build()
        .unwrap();
    let t = Instant::now();
    assert_eq!(
        s.run_for(Duration::from_secs(1)).unwrap(),
        StopReason::Elapsed
    );
    let wall = t.elapsed();
    assert!(wall < Duration::from_millis(1500), "{wall:?}");
    let st = s.stats();
    // Ticks at 0, 5, …, 1000 ms: 201 at most. A drifting or sleeping-too-long loop loses
    // many more than 10 %; a noisy machine loses a few.
    let n200 = pa.ticks.load(Ordering::SeqCst);
    let n50 = pb.ticks.load(Ordering::SeqCst);
    assert!(
        (180..=201).contains(&n200),
        "200 Hz node ticked {n200} times in 1 s"
    );
    assert!(
        (45..=51).contains(&n50),
        "50 Hz node ticked {n50} times in 1 s"
    );
    assert!((st[0].achieved_hz - 200.0).abs() < 20.0, "{:?}", st[0]);
    assert_eq!(pa.bad_plan.load(Ordering::SeqCst), 0);
    // Median start lateness on a sleeping (non-RT) thread: well under a period.
    assert!(st[0].lateness_ns.p50 < 2_000_000, "{:?}", st[0].lateness_ns);
    assert_eq!(pa.shutdowns.load(Ordering::SeqCst), 1);
    assert_eq!(pb.shutdowns.load(Ordering::SeqCst), 1);
    assert!(s.stats_table().contains("r200"));
}

/// A wake source that ignores the scheduler's wait timeout and blocks for 10 s: only its
/// interrupter can get its node into safe state (or stopped) in time.
struct Deaf(Notify);

impl WakeSource for Deaf {
    fn wait(&mut self, _timeout: Duration) -> bool {
        self.0.wait(Duration::from_secs(10))
    }
    fn interrupter(&self) -> Option<Box<dyn Fn() + Send + Sync>> {
        self.0.interrupter()
    }
}

#[test]
fn estop_wakes_sleeping_nodes_on_every_lane() {
    let _g = serial();
    // 1 Hz nodes sleep ~1 s between ticks: only a wake-up (not the next tick) gets them into
    // safe state within the bound below.
    let mut b = Scheduler::builder().print_stats(false).lock_memory(false);
    let mut probes = Vec::new();
    for i in 0..4 {
        let (c, p) = Counter::new(&format!("slow{i}"), 1.0);
        probes.push(p);
        b = b.node(c).rate(1.0).order(i).done();
    }
    let (rt, prt) = Counter::new("rt", 1.0);
    probes.push(prt);
    b = b
        .node(rt)
        .rate(1.0)
        .class(ExecClass::Rt {
            priority: 10,
            cpu: None,
        })
        .done();
    let (ev, pev) = Counter::new("event", 1.0);
    probes.push(pev);
    let mut s = b.node(ev).wake_on(Deaf(Notify::new())).build().unwrap();
    let estop = s.estop();
    let h = s.handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        estop.trigger("test e-stop");
        std::thread::sleep(Duration::from_millis(200));
        h.stop();
    });
    let t0 = Instant::now();
    assert_eq!(s.run().unwrap(), StopReason::Requested);
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "stop did not interrupt the event lane"
    );
    t.join().unwrap();
    for (p, st) in probes.iter().zip(s.stats()) {
        assert_eq!(p.safe.load(Ordering::SeqCst), 1, "{}", st.name);
        let lat = st.safe_state_latency.expect("latency recorded");
        // Typically tens of µs. The bound only has to be far below the 1 s period of the
        // periodic nodes and the 10 s wait of the event node.
        assert!(lat < Duration::from_millis(300), "{}: {lat:?}", st.name);
    }
}

#[test]
fn watchdog_catches_a_hung_node_and_estops_the_rest() {
    let _g = serial();
    let (mut hung, ph) = Counter::new("hung", 10.0);
    hung.sleep_in_tick = Some(Duration::from_millis(400));
    let notify = Notify::new();
    let (other, po) = Counter::new("other", 1.0);
    let mut s = Scheduler::builder()
        .print_stats(false)
        .node(hung)
        .rate(10.0)
        .watchdog(Duration::from_millis(50))
        .on_hang(HangPolicy::EStop)
        .node(other)
        .wake_on(notify)
        .build()
        .unwrap();
    s.run_for(Duration::from_millis(300)).unwrap();
    let st = s.stats();
    assert_eq!(st[0].hangs, 1, "{:?}", st[0]);
    assert!(
        s.estop().reason().unwrap().contains("hung"),
        "{:?}",
        s.estop().reason()
    );
    assert_eq!(
        po.safe.load(Ordering::SeqCst),
        1,
        "the other node reached safe state"
    );
    assert_eq!(ph.shutdowns.load(Ordering::SeqCst), 1);
}

#[test]
fn watchdog_stop_policy_abandons_a_hung_lane() {
    let _g = serial();
    let (mut hung, _ph) = Counter::new("stuck", 10.0);
    hung.sleep_in_tick = Some(Duration::from_millis(1500));
    let mut s = Scheduler::builder()
        .print_stats(false)
        .shutdown_timeout(Duration::from_millis(100))
        .node(hung)
        .rate(10.0)
        .watchdog(Duration::from_millis(50))
        .on_hang(HangPolicy::Stop)
        .build()
        .unwrap();
    let t = Instant::now();
    match s.run() {
        Err(RunError::NodeHung { node, stuck, .. }) => {
            assert_eq!(node, "stuck");
            assert_eq!(stuck, ["stuck"]);
        }
        other => panic!("expected NodeHung, got {other:?}"),
    }
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "{:?}",
        t.elapsed()
    );
}

struct Flaky {
    probe: Arc<Probe>,
    init_times: Arc<Mutex<Vec<Instant>>>,
}

impl Node for Flaky {
    fn name(&self) -> &str {
        "flaky"
    }
    fn init(&mut self, _ctx: &mut Context<'_>) -> Result<(), NodeError> {
        self.init_times.lock().unwrap().push(Instant::now());
        Ok(())
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let n = self.probe.ticks.fetch_add(1, Ordering::SeqCst);
        if n < 2 {
            panic!("deliberate panic {n}");
        }
    }
}

#[test]
fn panicking_node_restarts_after_its_backoff() {
    let _g = serial();
    let f = Flaky {
        probe: Default::default(),
        init_times: Default::default(),
    };
    let (probe, times) = (f.probe.clone(), f.init_times.clone());
    let mut s = Scheduler::builder()
        .print_stats(false)
        .node(f)
        .rate(100.0)
        .on_panic(FailurePolicy::Restart {
            max: 5,
            backoff: Duration::from_millis(100),
        })
        .build()
        .unwrap();
    // Run until the second restart has ticked a while (a panic hook printing a backtrace can
    // take long in debug builds, so no fixed duration), at most 5 s.
    let (h, p2, t2) = (s.handle(), probe.clone(), times.clone());
    let w = std::thread::spawn(move || {
        let t0 = Instant::now();
        while (t2.lock().unwrap().len() < 3 || p2.ticks.load(Ordering::SeqCst) < 12)
            && t0.elapsed() < Duration::from_secs(5)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        h.stop();
    });
    s.run().unwrap();
    w.join().unwrap();
    let t = times.lock().unwrap();
    assert_eq!(t.len(), 3, "init, restart, restart");
    // Backoff 100 ms, then doubled to 200 ms.
    assert!(
        t[1] - t[0] >= Duration::from_millis(100),
        "{:?}",
        t[1] - t[0]
    );
    assert!(
        t[2] - t[1] >= Duration::from_millis(200),
        "{:?}",
        t[2] - t[1]
    );
    let st = &s.stats()[0];
    assert_eq!((st.panics, st.restarts), (2, 2));
    assert!(probe.ticks.load(Ordering::SeqCst) > 10);
}

#[test]
fn rt_request_that_cannot_be_met_runs_anyway_and_is_reported() {
    let _g = serial();
    let (c, p) = Counter::new("pinned", 100.0);
    let mut s = Scheduler::builder()
        .print_stats(false)
        .lock_memory(false)
        .node(c)
        .rate(100.0)
        .class(ExecClass::Rt {
            priority: 20,
            cpu: Some(1000),
        })
        .build()
        .unwrap();
    s.run_for(Duration::from_millis(200)).unwrap();
    let rep = s.rt_report();
    let failed: Vec<_> = rep.failures().map(|a| a.what.clone()).collect();
    assert!(failed.iter().any(|w| w.contains("cpu 1000")), "{rep}");
    assert!(!rep.all_ok());
    assert!(p.ticks.load(Ordering::SeqCst) >= 10, "node ran anyway");
    // No RT asked → nothing attempted, nothing reported.
    let (c, _) = Counter::new("plain", 100.0);
    let mut s = Scheduler::builder()
        .print_stats(false)
        .node(c)
        .rate(100.0)
        .build()
        .unwrap();
    s.run_for(Duration::from_millis(50)).unwrap();
    assert!(s.rt_report().actions.is_empty());
}

#[test]
fn event_node_ticks_once_per_notification() {
    let _g = serial();
    let notify = Notify::new();
    let (c, p) = Counter::new("ev", 1.0);
    let mut s = Scheduler::builder()
        .print_stats(false)
        .node(c)
        .wake_on(notify.clone())
        .build()
        .unwrap();
    let h = s.handle();
    let t = std::thread::spawn(move || {
        for _ in 0..5 {
            std::thread::sleep(Duration::from_millis(30));
            notify.notify();
        }
        std::thread::sleep(Duration::from_millis(50));
        h.stop();
    });
    s.run().unwrap();
    t.join().unwrap();
    assert_eq!(p.ticks.load(Ordering::SeqCst), 5);
}

/// Records the calling thread's scheduling policy in `tick` and `on_safe_state`.
struct PolicyProbe {
    in_tick: Arc<AtomicU32>,
    in_safe: Arc<AtomicU32>,
}

fn policy() -> u32 {
    // SAFETY: sched_getscheduler(0) queries the calling thread and touches no memory.
    unsafe { libc::sched_getscheduler(0) as u32 }
}

impl Node for PolicyProbe {
    fn name(&self) -> &str {
        "probe"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        self.in_tick.fetch_max(policy(), Ordering::SeqCst);
    }
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        self.in_safe.store(policy() + 100, Ordering::SeqCst);
    }
}

#[test]
fn estop_priority_boosts_the_wait_and_safe_state_but_never_ticks() {
    let _g = serial();
    assert!(matches!(
        Scheduler::builder()
            .estop_priority(0)
            .node(Quiet)
            .rate(1.0)
            .build(),
        Err(nerve_exec::BuildError::InvalidEStopPriority(0))
    ));
    let (in_tick, in_safe) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let mut s = Scheduler::builder()
        .print_stats(false)
        .estop_priority(1)
        .node(PolicyProbe {
            in_tick: in_tick.clone(),
            in_safe: in_safe.clone(),
        })
        .rate(200.0)
        .build()
        .unwrap();
    let (estop, h) = (s.estop(), s.handle());
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        estop.trigger("test");
        std::thread::sleep(Duration::from_millis(50));
        h.stop();
    });
    s.run().unwrap();
    t.join().unwrap();
    let rep = s.rt_report();
    assert_eq!(rep.actions.len(), 1, "{rep}");
    // Ticks run at normal priority whether or not the boost was granted.
    assert_eq!(in_tick.load(Ordering::SeqCst), libc::SCHED_OTHER as u32);
    let want = if rep.all_ok() {
        libc::SCHED_FIFO
    } else {
        libc::SCHED_OTHER
    };
    assert_eq!(in_safe.load(Ordering::SeqCst), want as u32 + 100, "{rep}");
}

struct Quiet;
impl Node for Quiet {
    fn name(&self) -> &str {
        "quiet"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
}

/// (node, tick, start, end) of every tick.
type SpanLog = Vec<(String, u64, Instant, Instant)>;

/// Records each tick's start and end into a shared log.
struct Span {
    name: String,
    work: Duration,
    log: Arc<Mutex<SpanLog>>,
}

impl Node for Span {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        let a = Instant::now();
        std::thread::sleep(self.work);
        let b = Instant::now();
        self.log
            .lock()
            .unwrap()
            .push((self.name.clone(), ctx.tick(), a, b));
    }
}

fn run_spans(threads: usize, orders: &[i64]) -> SpanLog {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut b = Scheduler::builder()
        .print_stats(false)
        .compute_threads(threads);
    for (i, &o) in orders.iter().enumerate() {
        b = b
            .node(Span {
                name: format!("n{i}"),
                work: Duration::from_millis(15),
                log: log.clone(),
            })
            .rate(10.0)
            .order(o)
            .done();
    }
    let mut s = b.build().unwrap();
    s.run_for(Duration::from_millis(250)).unwrap();
    let v = std::mem::take(&mut *log.lock().unwrap());
    v
}

fn overlaps(log: &SpanLog, x: &str, y: &str) -> (u32, u32) {
    let (mut both, mut overlapping) = (0, 0);
    for (_, k1, a1, b1) in log.iter().filter(|e| e.0 == x) {
        for (_, _, a2, b2) in log.iter().filter(|e| e.0 == y && e.1 == *k1) {
            both += 1;
            if a1 < b2 && a2 < b1 {
                overlapping += 1;
            }
        }
    }
    (both, overlapping)
}

#[test]
fn compute_pool_runs_a_group_in_parallel_and_keeps_order_between_groups() {
    let _g = serial();
    // Two nodes with equal order on a pool of 2: their ticks overlap in time.
    let log = run_spans(2, &[0, 0]);
    let (both, ov) = overlaps(&log, "n0", "n1");
    assert!(both >= 2, "{log:?}");
    assert_eq!(ov, both, "equal-order nodes did not run in parallel");
    // One thread: never overlap.
    let log = run_spans(1, &[0, 0]);
    let (both, ov) = overlaps(&log, "n0", "n1");
    assert!(both >= 2);
    assert_eq!(ov, 0);
    // Orders 0,0,1 on a pool of 3: n2 starts after both order-0 ticks of that instant ended.
    let log = run_spans(3, &[0, 0, 1]);
    let mut checked = 0;
    for (_, k, a2, _) in log.iter().filter(|e| e.0 == "n2") {
        for (_, _, _, b) in log.iter().filter(|e| e.0 != "n2" && e.1 == *k) {
            assert!(b <= a2, "order 1 started before an order-0 tick ended");
            checked += 1;
        }
    }
    assert!(checked >= 4, "{log:?}");
    let (_, ov) = overlaps(&log, "n0", "n1");
    assert!(ov >= 2, "n0/n1 should still run in parallel");
}

/// An async-class node: each tick spawns a task on the scheduler's runtime.
struct Spawner {
    name: String,
    probe: Arc<Probe>,
    spawned_done: Arc<AtomicU64>,
    threads: Arc<Mutex<std::collections::HashSet<String>>>,
}

impl Node for Spawner {
    fn name(&self) -> &str {
        &self.name
    }
    fn init(&mut self, _ctx: &mut Context<'_>) -> Result<(), NodeError> {
        // The runtime already exists in init.
        let _ = tokio::runtime::Handle::try_current()?;
        self.probe.inits.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        self.probe.ticks.fetch_add(1, Ordering::SeqCst);
        let t = std::thread::current().name().unwrap_or("?").to_owned();
        self.threads.lock().unwrap().insert(t);
        let done = self.spawned_done.clone();
        nerve_exec::aio::spawn(async move {
            nerve_exec::aio::sleep(Duration::from_micros(100)).await;
            done.fetch_add(1, Ordering::SeqCst);
        });
    }
    fn shutdown(&mut self, _ctx: &mut Context<'_>) {
        self.probe.shutdowns.fetch_add(1, Ordering::SeqCst);
    }
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        self.probe.safe.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn async_nodes_run_as_tasks_on_the_scheduler_runtime() {
    let _g = serial();
    let threads = Arc::new(Mutex::new(std::collections::HashSet::new()));
    let mut probes = Vec::new();
    let done = Arc::new(AtomicU64::new(0));
    let mut b = Scheduler::builder().print_stats(false);
    // 50 async nodes at 100 Hz, one thread for all of them.
    for i in 0..50 {
        let probe = Arc::new(Probe::default());
        probes.push(probe.clone());
        b = b
            .node(Spawner {
                name: format!("a{i}"),
                probe,
                spawned_done: done.clone(),
                threads: threads.clone(),
            })
            .rate(100.0)
            .class(ExecClass::Async)
            .done();
    }
    let mut s = b.build().unwrap();
    let (estop, h) = (s.estop(), s.handle());
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        estop.trigger("test");
        std::thread::sleep(Duration::from_millis(100));
        h.stop();
    });
    s.run().unwrap();
    t.join().unwrap();
    let stats = s.stats();
    let mut total = 0;
    for (p, st) in probes.iter().zip(&stats) {
        let ticks = p.ticks.load(Ordering::SeqCst);
        total += ticks;
        // ~40 ticks in 400 ms at 100 Hz.
        assert!((30..=45).contains(&ticks), "{}: {ticks}", st.name);
        assert_eq!(p.inits.load(Ordering::SeqCst), 1);
        assert_eq!(p.shutdowns.load(Ordering::SeqCst), 1, "{}", st.name);
        assert_eq!(p.safe.load(Ordering::SeqCst), 1, "{}", st.name);
        let lat = st.safe_state_latency.expect("safe-state latency");
        assert!(lat < Duration::from_millis(50), "{}: {lat:?}", st.name);
        // The precise timer: starts are not rounded to milliseconds.
        assert!(
            st.lateness_ns.p50 < 1_000_000,
            "{}: {:?}",
            st.name,
            st.lateness_ns
        );
    }
    // Every tick's spawned task ran (nearly all: the last ones may be cut by the stop).
    assert!(done.load(Ordering::SeqCst) + 50 >= total);
    let threads = threads.lock().unwrap();
    assert_eq!(threads.len(), 1, "one runtime thread: {threads:?}");
    assert!(threads.contains("async"), "{threads:?}");
}

fn vm_locked_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let l = s.lines().find(|l| l.starts_with("VmLck:")).unwrap();
    l.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn memory_is_locked_for_the_run_only() {
    let _g = serial();
    assert_eq!(vm_locked_kb(), 0, "something else locked memory");
    let locked_during = Arc::new(AtomicU64::new(0));
    struct Look(Arc<AtomicU64>);
    impl Node for Look {
        fn name(&self) -> &str {
            "look"
        }
        fn tick(&mut self, _ctx: &mut Context<'_>) {
            self.0.fetch_max(vm_locked_kb(), Ordering::SeqCst);
        }
    }
    let mut s = Scheduler::builder()
        .print_stats(false)
        .lock_memory(true)
        .node(Look(locked_during.clone()))
        .rate(100.0)
        .build()
        .unwrap();
    s.run_for(Duration::from_millis(50)).unwrap();
    if s.rt_report().all_ok() {
        assert!(locked_during.load(Ordering::SeqCst) > 0);
    }
    // Left locked, every later allocation of the process would be faulted in and locked.
    assert_eq!(vm_locked_kb(), 0);
}

/// The scheduling policy and CPU of this process's threads named `name` (from /proc).
fn threads_named(name: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        if comm.trim() != name {
            continue;
        }
        let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
        // Fields after the ")" that closes comm: 3 is the first; 39 = processor, 41 = policy.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<&str> = rest.split_whitespace().collect();
        let at = |n: usize| {
            f.get(n - 3)
                .and_then(|v| v.parse().ok())
                .unwrap_or(u32::MAX)
        };
        out.push((at(41), at(39)));
    }
    out
}

/// Looks for the idle poller of cpu 0 from inside a tick.
struct PollerProbe {
    seen: Arc<Mutex<Vec<(u32, u32)>>>,
}

impl Node for PollerProbe {
    fn name(&self) -> &str {
        "poller-probe"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let mut seen = self.seen.lock().unwrap();
        if seen.is_empty() {
            *seen = threads_named("nerve-poll-c0");
        }
    }
}

#[test]
fn idle_poll_runs_one_sched_idle_poller_on_each_pinned_rt_cpu_for_the_run_only() {
    let _g = serial();
    let run = |idle_poll: bool| {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut s = Scheduler::builder()
            .print_stats(false)
            .lock_memory(false)
            .idle_poll(idle_poll)
            .node(PollerProbe { seen: seen.clone() })
            .rate(100.0)
            .class(ExecClass::Rt {
                priority: 10,
                cpu: Some(0),
            })
            .node(Quiet)
            .rate(100.0)
            .build()
            .unwrap();
        s.run_for(Duration::from_millis(100)).unwrap();
        let seen = seen.lock().unwrap().clone();
        (seen, s.rt_report())
    };
    let (seen, rep) = run(true);
    let poller: Vec<_> = rep
        .actions
        .iter()
        .filter(|a| a.what.contains("idle poller on cpu 0"))
        .collect();
    assert_eq!(poller.len(), 1, "{rep}");
    // Pinning and SCHED_IDLE need no privilege.
    assert_eq!(poller[0].error, None, "{rep}");
    assert_eq!(seen, vec![(libc::SCHED_IDLE as u32, 0)], "{rep}");
    assert!(
        threads_named("nerve-poll-c0").is_empty(),
        "stopped with the run"
    );
    // Off by default; the unpinned compute lane never gets one.
    let (seen, rep) = run(false);
    assert!(seen.is_empty());
    assert!(!rep.actions.iter().any(|a| a.what.contains("idle poller")));
}
