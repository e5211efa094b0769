//! Deterministic mode: simulated clock, fixed order, exact results.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve_exec::prelude::*;
use nerve_exec::RunError;

type Trace = Arc<Mutex<Vec<(u64, String, u64)>>>;

/// Records (time ns, name, tick) on every tick; optionally works for `work` simulated time.
struct Rec {
    name: String,
    trace: Trace,
    work: Option<(SimClock, Duration)>,
    safe_calls: Arc<Mutex<Vec<String>>>,
}

impl Rec {
    fn new(name: &str, trace: &Trace) -> Self {
        Self {
            name: name.into(),
            trace: trace.clone(),
            work: None,
            safe_calls: Default::default(),
        }
    }
}

impl Node for Rec {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        self.trace.lock().unwrap().push((
            ctx.now().as_nanos() as u64,
            self.name.clone(),
            ctx.tick(),
        ));
        if let Some((clock, d)) = &self.work {
            clock.advance(*d);
        }
    }
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        self.safe_calls.lock().unwrap().push(self.name.clone());
    }
}

#[test]
fn rates_are_exact_over_ten_simulated_seconds() {
    let trace: Trace = Default::default();
    let rates = [
        ("a1000", 1000.0),
        ("b500", 500.0),
        ("c100", 100.0),
        ("d10", 10.0),
        ("e3", 3.0),
    ];
    let mut b = Scheduler::builder().deterministic(SimClock::new());
    for (name, hz) in rates {
        b = b.node(Rec::new(name, &trace)).rate(hz).done();
    }
    let mut s = b.build().unwrap();
    let t = Instant::now();
    assert_eq!(
        s.run_for(Duration::from_secs(10)).unwrap(),
        StopReason::Elapsed
    );
    let wall = t.elapsed();
    let stats = s.stats();
    assert_eq!(stats[0].ticks(), 10_000);
    assert_eq!(stats[1].ticks(), 5_000);
    assert_eq!(stats[2].ticks(), 1_000);
    assert_eq!(stats[3].ticks(), 100);
    assert_eq!(stats[4].ticks(), 30); // 0, 333.33 ms, …, 9.667 s
    for st in &stats {
        assert_eq!(st.misses, 0);
        assert_eq!(
            st.lateness_ns.max, 0,
            "{}: simulated ticks start exactly on plan",
            st.name
        );
        assert!(
            (st.achieved_hz - st.rate_hz).abs() < 1e-6 * st.rate_hz,
            "{st:?}"
        );
    }
    // Absolute timeline: tick k of the 1 kHz node is at exactly k ms.
    for (t, name, k) in trace.lock().unwrap().iter() {
        if name == "a1000" {
            assert_eq!(*t, k * 1_000_000);
        }
    }
    assert!(
        wall < Duration::from_secs(5),
        "10 simulated seconds took {wall:?}"
    );
}

#[test]
fn order_within_a_tick_is_respected() {
    let trace: Trace = Default::default();
    // Added out of order; `order` decides. Different rates that coincide every 10 ms.
    let mut s = Scheduler::builder()
        .deterministic(SimClock::new())
        .node(Rec::new("third", &trace))
        .rate(100.0)
        .order(2)
        .node(Rec::new("first", &trace))
        .rate(1000.0)
        .order(0)
        .node(Rec::new("second", &trace))
        .rate(200.0)
        .order(1)
        .build()
        .unwrap();
    s.run_for(Duration::from_millis(100)).unwrap();
    let tr = trace.lock().unwrap();
    let rank = |n: &str| match n {
        "first" => 0,
        "second" => 1,
        _ => 2,
    };
    for w in tr.windows(2) {
        assert!(
            w[0].0 < w[1].0 || (w[0].0 == w[1].0 && rank(&w[0].1) < rank(&w[1].1)),
            "{w:?}"
        );
    }
    // At t = 0 all three run, in order.
    let at0: Vec<_> = tr
        .iter()
        .filter(|e| e.0 == 0)
        .map(|e| e.1.as_str())
        .collect();
    assert_eq!(at0, ["first", "second", "third"]);
}

/// A small controller chain with state, so the hash covers outputs too.
struct Integrator {
    name: String,
    input: Arc<Mutex<u64>>,
    output: Arc<Mutex<u64>>,
    trace: Trace,
}

impl Node for Integrator {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        let i = *self.input.lock().unwrap();
        let mut o = self.output.lock().unwrap();
        *o = o
            .wrapping_mul(6364136223846793005)
            .wrapping_add(i ^ ctx.now().as_nanos() as u64);
        self.trace
            .lock()
            .unwrap()
            .push((ctx.now().as_nanos() as u64, self.name.clone(), *o));
    }
}

fn chain_run() -> (u64, usize) {
    let trace: Trace = Default::default();
    let a = Arc::new(Mutex::new(1u64));
    let b = Arc::new(Mutex::new(2u64));
    let c = Arc::new(Mutex::new(3u64));
    let clock = SimClock::new();
    let mut s = Scheduler::builder()
        .deterministic(clock.clone())
        .node(Integrator {
            name: "sense".into(),
            input: c.clone(),
            output: a.clone(),
            trace: trace.clone(),
        })
        .rate(1000.0)
        .order(0)
        .node(Integrator {
            name: "plan".into(),
            input: a.clone(),
            output: b.clone(),
            trace: trace.clone(),
        })
        .rate(100.0)
        .order(1)
        .node(Integrator {
            name: "act".into(),
            input: b.clone(),
            output: c.clone(),
            trace: trace.clone(),
        })
        .rate(500.0)
        .order(2)
        .node(Rec::new("tick-trace", &trace))
        .rate(250.0)
        .order(3)
        .build()
        .unwrap();
    s.run_for(Duration::from_secs(10)).unwrap();
    assert_eq!(clock.now(), Duration::from_secs(10));
    let tr = trace.lock().unwrap();
    let mut h = DefaultHasher::new();
    tr.hash(&mut h);
    (*a.lock().unwrap(), *b.lock().unwrap(), *c.lock().unwrap()).hash(&mut h);
    (h.finish(), tr.len())
}

#[test]
fn two_runs_give_identical_hashes() {
    let (h1, n1) = chain_run();
    let (h2, n2) = chain_run();
    assert_eq!(n1, 10_000 + 1_000 + 5_000 + 2_500);
    assert_eq!(n1, n2);
    assert_eq!(h1, h2);
}

#[test]
fn deadline_is_measured_from_the_planned_start() {
    // "slow" works 3 ms in a 1 kHz loop; "victim" runs right after it in the same tick and
    // takes no time itself, yet ends 3 ms after its planned start: a miss.
    let trace: Trace = Default::default();
    let clock = SimClock::new();
    let mut slow = Rec::new("slow", &trace);
    slow.work = Some((clock.clone(), Duration::from_millis(3)));
    let mut s = Scheduler::builder()
        .deterministic(clock.clone())
        .node(slow)
        .rate(100.0)
        .order(0)
        .node(Rec::new("victim", &trace))
        .rate(100.0)
        .order(1)
        .deadline(Duration::from_millis(2))
        .build()
        .unwrap();
    s.run_for(Duration::from_millis(100)).unwrap();
    let st = s.stats();
    assert_eq!(
        st[0].misses, 0,
        "3 ms fits in slow's default deadline (one 10 ms period)"
    );
    assert_eq!(
        st[1].misses, 10,
        "victim ended 3 ms after its planned start every tick"
    );
    assert_eq!(st[1].tick_ns.max, 0, "victim's own tick took no time");
    assert_eq!(st[1].lateness_ns.p50, 3_000_000);
}

/// A node whose every tick takes 2 ms (simulated) at 100 Hz, with `options` applied to it.
fn slow_sched(
    options: impl FnOnce(nerve_exec::NodeEntry) -> nerve_exec::NodeEntry,
) -> (nerve_exec::Scheduler, Trace, Arc<Mutex<Vec<String>>>) {
    let trace: Trace = Default::default();
    let clock = SimClock::new();
    let mut slow = Rec::new("slow", &trace);
    slow.work = Some((clock.clone(), Duration::from_millis(2)));
    let safe = slow.safe_calls.clone();
    let s = options(
        Scheduler::builder()
            .deterministic(clock)
            .node(slow)
            .rate(100.0),
    )
    .build()
    .unwrap();
    (s, trace, safe)
}

fn slow_node_sched(policy: MissPolicy) -> (nerve_exec::Scheduler, Trace, Arc<Mutex<Vec<String>>>) {
    slow_sched(|n| n.deadline(Duration::from_millis(1)).on_miss(policy))
}

#[test]
fn slow_node_triggers_each_miss_policy() {
    // Warn: every tick misses and runs.
    let (mut s, trace, _) = slow_node_sched(MissPolicy::Warn);
    s.run_for(Duration::from_millis(100)).unwrap();
    assert_eq!(s.stats()[0].misses, 10);
    assert_eq!(trace.lock().unwrap().len(), 10);

    // Skip: a miss skips the next tick → ticks 0, 2, 4, 6, 8 run.
    let (mut s, trace, _) = slow_node_sched(MissPolicy::Skip);
    s.run_for(Duration::from_millis(100)).unwrap();
    let ticks: Vec<u64> = trace.lock().unwrap().iter().map(|e| e.2).collect();
    assert_eq!(ticks, [0, 2, 4, 6, 8]);
    assert_eq!(s.stats()[0].skipped, 5);

    // SafeState: on_safe_state runs once, ticks go on.
    let (mut s, trace, safe) = slow_node_sched(MissPolicy::SafeState);
    s.run_for(Duration::from_millis(100)).unwrap();
    assert_eq!(*safe.lock().unwrap(), ["slow"]);
    assert_eq!(trace.lock().unwrap().len(), 10);

    // Stop: the first miss ends the run with an error.
    let (mut s, trace, _) = slow_node_sched(MissPolicy::Stop);
    match s.run_for(Duration::from_millis(100)) {
        Err(RunError::DeadlineMissed { node, late_by }) => {
            assert_eq!(node, "slow");
            assert_eq!(late_by, Duration::from_millis(1));
        }
        other => panic!("expected DeadlineMissed, got {other:?}"),
    }
    assert_eq!(trace.lock().unwrap().len(), 1);
}

fn over_budget_sched(
    policy: MissPolicy,
) -> (nerve_exec::Scheduler, Trace, Arc<Mutex<Vec<String>>>) {
    slow_sched(|n| n.budget(Duration::from_millis(1)).on_budget(policy))
}

#[test]
fn a_budget_overrun_follows_the_budget_policy() {
    // 2 ms ticks against a 1 ms budget, well within the 10 ms deadline: overruns, no misses.
    let (mut s, trace, _) = over_budget_sched(MissPolicy::Warn);
    s.run_for(Duration::from_millis(100)).unwrap();
    assert_eq!((s.stats()[0].budget_overruns, s.stats()[0].misses), (10, 0));
    assert_eq!(trace.lock().unwrap().len(), 10);

    let (mut s, trace, _) = over_budget_sched(MissPolicy::Skip);
    s.run_for(Duration::from_millis(100)).unwrap();
    let ticks: Vec<u64> = trace.lock().unwrap().iter().map(|e| e.2).collect();
    assert_eq!(ticks, [0, 2, 4, 6, 8], "each overrun sheds the next tick");

    let (mut s, _, safe) = over_budget_sched(MissPolicy::SafeState);
    s.run_for(Duration::from_millis(100)).unwrap();
    assert_eq!(*safe.lock().unwrap(), ["slow"]);

    let (mut s, trace, _) = over_budget_sched(MissPolicy::Stop);
    match s.run_for(Duration::from_millis(100)) {
        Err(RunError::BudgetOverrun { node, used, budget }) => {
            assert_eq!(
                (node.as_str(), used, budget),
                ("slow", Duration::from_millis(2), Duration::from_millis(1))
            );
        }
        other => panic!("expected BudgetOverrun, got {other:?}"),
    }
    assert_eq!(trace.lock().unwrap().len(), 1);
}

struct Panicker {
    at: Vec<u64>,
    inits: Arc<Mutex<Vec<u64>>>,
    ticks: Arc<Mutex<Vec<u64>>>,
    shutdowns: Arc<Mutex<u32>>,
}

impl Node for Panicker {
    fn name(&self) -> &str {
        "panicker"
    }
    fn init(&mut self, ctx: &mut Context<'_>) -> Result<(), NodeError> {
        self.inits
            .lock()
            .unwrap()
            .push(ctx.now().as_millis() as u64);
        Ok(())
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        self.ticks.lock().unwrap().push(ctx.tick());
        if self.at.contains(&ctx.tick()) {
            panic!("deliberate panic at tick {}", ctx.tick());
        }
    }
    fn shutdown(&mut self, _ctx: &mut Context<'_>) {
        *self.shutdowns.lock().unwrap() += 1;
    }
}

#[test]
fn panicking_node_is_restarted_with_backoff_then_fatal() {
    let p = Panicker {
        at: vec![5, 20, 40],
        inits: Default::default(),
        ticks: Default::default(),
        shutdowns: Default::default(),
    };
    let (inits, ticks, shutdowns) = (p.inits.clone(), p.ticks.clone(), p.shutdowns.clone());
    let mut s = Scheduler::builder()
        .deterministic(SimClock::new())
        .node(p)
        .rate(1000.0)
        .on_panic(FailurePolicy::Restart {
            max: 2,
            backoff: Duration::from_millis(3),
        })
        .build()
        .unwrap();
    let r = s.run_for(Duration::from_millis(100));
    match r {
        Err(RunError::NodePanicked { node, message }) => {
            assert_eq!(node, "panicker");
            assert!(message.contains("tick 40"), "{message}");
        }
        other => panic!("expected NodePanicked, got {other:?}"),
    }
    // init at 0, then after the panic at 5 ms a 3 ms backoff (resume at 8 ms), then after
    // the panic at 20 ms a doubled 6 ms backoff (resume at 26 ms).
    assert_eq!(*inits.lock().unwrap(), [0, 8, 26]);
    let t = ticks.lock().unwrap();
    assert!(!t.contains(&6) && !t.contains(&7) && t.contains(&8));
    assert!(!t.contains(&25) && t.contains(&26));
    assert_eq!(*t.last().unwrap(), 40);
    let st = &s.stats()[0];
    assert_eq!((st.panics, st.restarts), (3, 2));
    assert_eq!(
        *shutdowns.lock().unwrap(),
        1,
        "shutdown still runs after a fatal panic"
    );
}

#[test]
fn panicking_node_with_skip_policy_keeps_ticking() {
    let p = Panicker {
        at: vec![1, 2, 3],
        inits: Default::default(),
        ticks: Default::default(),
        shutdowns: Default::default(),
    };
    let ticks = p.ticks.clone();
    let mut s = Scheduler::builder()
        .deterministic(SimClock::new())
        .node(p)
        .rate(100.0)
        .on_panic(FailurePolicy::Skip)
        .build()
        .unwrap();
    assert_eq!(
        s.run_for(Duration::from_millis(100)).unwrap(),
        StopReason::Elapsed
    );
    assert_eq!(ticks.lock().unwrap().len(), 10);
    assert_eq!(s.stats()[0].panics, 3);
}

struct Trigger;
impl Node for Trigger {
    fn name(&self) -> &str {
        "trigger"
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        if ctx.now() == Duration::from_secs(1) {
            ctx.trigger_estop("test");
        }
    }
}

#[test]
fn estop_from_a_node_reaches_every_node() {
    let trace: Trace = Default::default();
    let safe: Arc<Mutex<Vec<String>>> = Default::default();
    let mut b = Scheduler::builder()
        .deterministic(SimClock::new())
        .node(Trigger)
        .rate(10.0)
        .done();
    for i in 0..5 {
        let mut r = Rec::new(&format!("n{i}"), &trace);
        r.safe_calls = safe.clone();
        b = b.node(r).rate(50.0 * (i + 1) as f64).order(i).done();
    }
    let mut s = b.build().unwrap();
    s.run_for(Duration::from_secs(2)).unwrap();
    let mut got = safe.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, ["n0", "n1", "n2", "n3", "n4"]);
    assert!(s.estop().is_triggered());
    assert_eq!(s.estop().reason().as_deref(), Some("test"));
    for st in s.stats().iter().skip(1) {
        assert!(st.safe_state_latency.is_some(), "{}", st.name);
    }
}

#[test]
fn build_errors_name_the_node() {
    let trace: Trace = Default::default();
    let e = Scheduler::builder()
        .node(Rec::new("x", &trace))
        .build()
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("\"x\"") && e.to_string().contains(".rate(hz)"),
        "{e}"
    );
    let e = Scheduler::builder()
        .node(Rec::new("x", &trace))
        .rate(1.0)
        .node(Rec::new("x", &trace))
        .rate(1.0)
        .build()
        .err()
        .unwrap();
    assert!(e.to_string().contains("two nodes are named \"x\""), "{e}");
    assert!(Scheduler::builder()
        .node(Rec::new("y", &trace))
        .rate(-1.0)
        .build()
        .is_err());
    assert!(Scheduler::builder().build().is_err());
}
