//! The scheduler: builder, lanes (threads) that run nodes on an absolute timeline, the watchdog,
//! and the run loop.

use std::collections::{BTreeMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::time::Duration;

use nerve_transport::sys::{futex, lock};
use nerve_transport::time::now_ns;

use crate::estop::EStop;
use crate::node::{Context, Node};
use crate::policy::{ExecClass, FailurePolicy, HangPolicy, MissPolicy};
use crate::pool::{Batch, Pool, SlotPtr};
use crate::remote::EStopBridge;
use crate::rt::{self, RtReport};
use crate::signal::{self, SignalGuard};
use crate::stats::{self, NodeStats, Recorder};
use crate::time::{set_min_timer_slack, sleep_until, Clock, SimClock};
use crate::wake::WakeSource;

/// Why a scheduler stopped normally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The duration given to [`Scheduler::run_for`] is over.
    Elapsed,
    /// [`SchedulerHandle::stop`] or [`Context::request_stop`] was called.
    Requested,
    /// SIGINT or SIGTERM arrived (the signal number).
    Signal(i32),
}

/// Why a scheduler's options were refused by [`SchedulerBuilder::build`].
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// No node was added.
    #[error("scheduler has no nodes: add one with .node(n)")]
    NoNodes,
    /// Two nodes share a name.
    #[error("two nodes are named {0:?}: node names must be unique within a scheduler")]
    DuplicateName(String),
    /// A periodic node has no rate.
    #[error(
        "node {node:?} has no rate: call .rate(hz) after .node(..), or make it ExecClass::Event"
    )]
    MissingRate {
        /// The node.
        node: String,
    },
    /// A rate that is not a positive finite number.
    #[error("node {node:?} has rate {hz} Hz: a rate must be positive and finite (≤ 1 GHz)")]
    InvalidRate {
        /// The node.
        node: String,
        /// The rate given.
        hz: f64,
    },
    /// A SCHED_FIFO priority outside 1..=99.
    #[error("node {node:?} asks for SCHED_FIFO priority {priority}: use 1..=99")]
    InvalidPriority {
        /// The node.
        node: String,
        /// The priority given.
        priority: u8,
    },
    /// An e-stop priority outside 1..=99.
    #[error("estop_priority({0}) is out of range: use a SCHED_FIFO priority in 1..=99")]
    InvalidEStopPriority(u8),
    /// An event node without a wake source.
    #[error("event node {node:?} has no wake source: call .wake_on(source)")]
    MissingWakeSource {
        /// The node.
        node: String,
    },
    /// Event nodes need real time.
    #[error("event node {node:?} cannot run in deterministic mode: give it a rate instead")]
    EventInDeterministic {
        /// The node.
        node: String,
    },
}

/// Why [`Scheduler::run`] ended abnormally. Every node's `shutdown` still ran, except where
/// stated.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// `run` was already called on this scheduler.
    #[error("this scheduler already ran: build a new one")]
    AlreadyRan,
    /// A node's `init` failed or panicked; no node ticked.
    #[error("node {node:?} failed to initialise: {error}")]
    InitFailed {
        /// The node.
        node: String,
        /// What it said.
        error: String,
    },
    /// A node panicked and its policy was (or became, after `max` restarts) fatal.
    #[error("node {node:?} panicked: {message} (failure policy made it fatal)")]
    NodePanicked {
        /// The node.
        node: String,
        /// The panic message.
        message: String,
    },
    /// A node with `MissPolicy::Stop` missed its deadline.
    #[error("node {node:?} missed its deadline by {late_by:?} (miss policy: stop)")]
    DeadlineMissed {
        /// The node.
        node: String,
        /// How far past the deadline the tick ended.
        late_by: Duration,
    },
    /// The watchdog found a node with `HangPolicy::Stop` stuck in one tick.
    #[error("node {node:?} hung for more than {timeout:?} in one tick; nodes whose shutdown could not run: {stuck:?}")]
    NodeHung {
        /// The node.
        node: String,
        /// Its watchdog timeout.
        timeout: Duration,
        /// Nodes whose lane did not finish within the shutdown timeout (their `shutdown` did
        /// not run).
        stuck: Vec<String>,
    },
    /// The e-stop topic could not be opened.
    #[error("could not open the e-stop topic nerve/estop: {0}")]
    EStopTopic(nerve_transport::OpenError),
    /// A lane thread could not be started.
    #[error("could not start thread for lane {lane}: {error}")]
    Spawn {
        /// The lane.
        lane: String,
        /// The OS error.
        error: std::io::Error,
    },
}

// ---------------------------------------------------------------------------------------------
// Builder

struct NodeSpec {
    node: Box<dyn Node>,
    rate: Option<f64>,
    order: i64,
    budget: Option<Duration>,
    deadline: Option<Duration>,
    on_miss: MissPolicy,
    on_panic: FailurePolicy,
    on_hang: HangPolicy,
    watchdog: Option<Duration>,
    class: ExecClass,
    wake: Option<Box<dyn WakeSource>>,
}

/// Builds a [`Scheduler`]. Scheduler-wide options first, then `.node(n)` followed by that
/// node's options, then `.build()`.
///
/// ```
/// use nerve_exec::prelude::*;
/// use std::time::Duration;
///
/// struct Blink(u64);
/// impl Node for Blink {
///     fn name(&self) -> &str { "blink" }
///     fn tick(&mut self, _ctx: &mut Context<'_>) { self.0 += 1; }
/// }
///
/// let mut sched = Scheduler::builder()
///     .deterministic(SimClock::new())
///     .node(Blink(0)).rate(100.0).order(0)
///     .build()?;
/// sched.run_for(Duration::from_secs(1))?;
/// assert_eq!(sched.stats()[0].ticks(), 100);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a builder does nothing until .build()"]
pub struct SchedulerBuilder {
    specs: Vec<NodeSpec>,
    sim: Option<SimClock>,
    spin: Duration,
    watchdog: Option<Duration>,
    handle_signals: bool,
    print_stats: bool,
    lock_memory: Option<bool>,
    estop: Option<EStop>,
    estop_topic: Option<Option<u32>>,
    estop_priority: Option<u8>,
    idle_poll: bool,
    compute_threads: Option<usize>,
    async_threads: usize,
    shutdown_timeout: Duration,
}

impl Default for SchedulerBuilder {
    fn default() -> Self {
        Self {
            specs: Vec::new(),
            sim: None,
            spin: Duration::from_micros(50),
            watchdog: None,
            handle_signals: true,
            print_stats: true,
            lock_memory: None,
            estop: None,
            estop_topic: None,
            estop_priority: None,
            idle_poll: false,
            compute_threads: None,
            async_threads: 0,
            shutdown_timeout: Duration::from_secs(2),
        }
    }
}

impl SchedulerBuilder {
    /// Deterministic mode: the scheduler runs every node on the caller's thread on `clock`,
    /// in a fixed order, jumping the clock from one planned tick to the next (no sleeping).
    /// Ten simulated seconds take milliseconds, and two runs give identical results.
    /// RT options and the watchdog are ignored; signals are not handled.
    pub fn deterministic(mut self, clock: SimClock) -> Self {
        self.sim = Some(clock);
        self
    }

    /// How long RT lanes busy-spin before a planned start after the kernel sleep (default
    /// 50 µs; zero disables). Non-RT lanes never spin.
    pub fn spin(mut self, d: Duration) -> Self {
        self.spin = d;
        self
    }

    /// Default watchdog timeout for nodes that set none (default: no watchdog).
    pub fn watchdog(mut self, timeout: Duration) -> Self {
        self.watchdog = Some(timeout);
        self
    }

    /// Whether `run` installs SIGINT/SIGTERM handlers that stop the scheduler cleanly
    /// (default: yes; the previous handlers are restored when `run` returns).
    pub fn handle_signals(mut self, yes: bool) -> Self {
        self.handle_signals = yes;
        self
    }

    /// Whether the statistics table is printed to stderr when a run ends (default: yes). It is always available from [`Scheduler::stats`] and logged at `info`.
    pub fn print_stats(mut self, yes: bool) -> Self {
        self.print_stats = yes;
        self
    }

    /// Overrides `mlockall`: by default it is done only when a node is `ExecClass::Rt`. It
    /// lasts for the run (`munlockall` when `run` returns, unless memory was locked before).
    pub fn lock_memory(mut self, yes: bool) -> Self {
        self.lock_memory = Some(yes);
        self
    }

    /// Uses `estop` instead of a fresh e-stop (to share one between schedulers or threads
    /// created before the scheduler).
    pub fn estop(mut self, estop: &EStop) -> Self {
        self.estop = Some(estop.clone());
        self
    }

    /// Connects the e-stop to the topic `nerve/estop` while running: an
    /// [`EStopMsg`](crate::EStopMsg) from any process (see
    /// [`trigger_remote_estop`](crate::trigger_remote_estop)) triggers it, and a local
    /// trigger is published for the others. `domain`: `None` for `$NERVE_DOMAIN`.
    pub fn estop_topic(mut self, domain: Option<u32>) -> Self {
        self.estop_topic = Some(domain);
        self
    }

    /// Threads of the compute pool, the compute lane's own thread included (default: the CPUs
    /// this process may use; values below 1 count as 1). Compute nodes due at the same
    /// instant with the same [`order`](NodeEntry::order) run in parallel on the pool; a
    /// larger `order` starts only after every smaller one of that instant has finished.
    /// `compute_threads(1)` runs them one after another on one thread.
    pub fn compute_threads(mut self, n: usize) -> Self {
        self.compute_threads = Some(n);
        self
    }

    /// Worker threads of the tokio runtime that runs [`ExecClass::Async`] nodes: 0 (default)
    /// runs them all on the async lane's own thread (a current-thread runtime).
    pub fn async_threads(mut self, n: usize) -> Self {
        self.async_threads = n;
        self
    }

    /// Lets an e-stop reach nodes on non-RT lanes (compute, event) as fast as RT ones: those
    /// lanes *wait* at `SCHED_FIFO priority` (1–99; 1 is enough to pass every normal thread)
    /// and drop back to normal scheduling before they run ticks. An e-stop then wakes them
    /// ahead of every normal thread (a busy build, a browser), and `on_safe_state` runs at
    /// that priority; ticks never do. Off by default (RT only when asked); what the OS refused
    /// is in [`Scheduler::rt_report`], and the lanes run unboosted then.
    ///
    /// Costs two `sched_setscheduler` calls per wake-up of each such lane.
    pub fn estop_priority(mut self, priority: u8) -> Self {
        self.estop_priority = Some(priority);
        self
    }

    /// Keeps the CPUs that RT lanes are pinned to from going idle between ticks: one thread
    /// per such CPU, pinned there at `SCHED_IDLE` (below every normal thread), busy-polls
    /// for the length of the run. A CPU that halts when idle is woken by its timer interrupt
    /// late when it runs as a virtual machine's vCPU (the host must first run the halted
    /// vCPU again: measured 14 µs median and 410 µs p99 on a 2-vCPU VM, against 1-3 µs for a
    /// vCPU that is running), and late by its idle state's exit latency on bare metal.
    ///
    /// Off by default. It costs those CPUs' whole idle time (power, and on a VM the host's
    /// CPU quota), and helps only RT lanes pinned with [`ExecClass::Rt`]'s `cpu`. What the OS
    /// refused is in [`Scheduler::rt_report`]; a poller that could not go to `SCHED_IDLE`
    /// does not poll.
    pub fn idle_poll(mut self, yes: bool) -> Self {
        self.idle_poll = yes;
        self
    }

    /// How long `run` waits for lanes to finish their shutdown after a stop (default 2 s);
    /// a lane stuck in a hung node is abandoned after this.
    pub fn shutdown_timeout(mut self, d: Duration) -> Self {
        self.shutdown_timeout = d;
        self
    }

    /// Adds a node; the options that follow apply to it.
    pub fn node<N: Node>(mut self, node: N) -> NodeEntry {
        self.specs.push(NodeSpec {
            node: Box::new(node),
            rate: None,
            order: 0,
            budget: None,
            deadline: None,
            on_miss: MissPolicy::default(),
            on_panic: FailurePolicy::default(),
            on_hang: HangPolicy::default(),
            watchdog: None,
            class: ExecClass::default(),
            wake: None,
        });
        NodeEntry { b: self }
    }

    /// Checks the options and builds the scheduler (no thread starts before `run`).
    pub fn build(self) -> Result<Scheduler, BuildError> {
        Scheduler::from_builder(self)
    }
}

/// Options of the node just added with [`SchedulerBuilder::node`].
#[must_use = "a builder does nothing until .build()"]
pub struct NodeEntry {
    b: SchedulerBuilder,
}

impl NodeEntry {
    fn spec(&mut self) -> &mut NodeSpec {
        // A NodeEntry only exists after a push in SchedulerBuilder::node.
        self.b.specs.last_mut().expect("NodeEntry without a node")
    }

    /// Ticks per second. The timeline is absolute: tick `k` is planned at start + `k`·period.
    pub fn rate(mut self, hz: f64) -> Self {
        self.spec().rate = Some(hz);
        self
    }

    /// Position within a tick: nodes due at the same time on the same lane run in ascending
    /// `order`. On an RT lane, and in deterministic mode, equal orders run in the order the
    /// nodes were added; on the compute pool they may run in parallel (see
    /// [`SchedulerBuilder::compute_threads`]), so give nodes that depend on each other
    /// different orders. Default 0.
    pub fn order(mut self, k: i64) -> Self {
        self.spec().order = k;
        self
    }

    /// Budget (WCET): a tick longer than this (end − actual start) counts as a budget overrun.
    pub fn budget(mut self, d: Duration) -> Self {
        self.spec().budget = Some(d);
        self
    }

    /// Deadline, measured from the tick's *planned* start: end − planned start > deadline is a
    /// miss. Default: one period.
    pub fn deadline(mut self, d: Duration) -> Self {
        self.spec().deadline = Some(d);
        self
    }

    /// What a deadline miss does. Default [`MissPolicy::Warn`].
    pub fn on_miss(mut self, p: MissPolicy) -> Self {
        self.spec().on_miss = p;
        self
    }

    /// What a panic does. Default [`FailurePolicy::Fatal`].
    pub fn on_panic(mut self, p: FailurePolicy) -> Self {
        self.spec().on_panic = p;
        self
    }

    /// Watchdog timeout: a tick running longer than this is reported as hung.
    pub fn watchdog(mut self, timeout: Duration) -> Self {
        self.spec().watchdog = Some(timeout);
        self
    }

    /// What the watchdog does with a hung node. Default [`HangPolicy::EStop`].
    pub fn on_hang(mut self, p: HangPolicy) -> Self {
        self.spec().on_hang = p;
        self
    }

    /// Execution class. Default [`ExecClass::Compute`].
    pub fn class(mut self, c: ExecClass) -> Self {
        self.spec().class = c;
        self
    }

    /// For [`ExecClass::Event`] nodes: what wakes the node (it ticks once per wake-up).
    /// Setting a source makes the node an event node.
    pub fn wake_on<W: WakeSource>(mut self, source: W) -> Self {
        let s = self.spec();
        s.wake = Some(Box::new(source));
        s.class = ExecClass::Event;
        self
    }

    /// Adds the next node.
    pub fn node<N: Node>(self, node: N) -> NodeEntry {
        self.b.node(node)
    }

    /// Back to scheduler-wide options.
    pub fn done(self) -> SchedulerBuilder {
        self.b
    }

    /// Checks the options and builds the scheduler.
    pub fn build(self) -> Result<Scheduler, BuildError> {
        self.b.build()
    }
}

// ---------------------------------------------------------------------------------------------
// Shared state

/// How a run ended; the first reason recorded wins.
#[derive(Debug)]
enum Outcome {
    Stop(StopReason),
    Fail(RunError),
}

/// State shared by the lanes, the watchdog, the handles and the nodes' contexts.
pub(crate) struct Shared {
    pub(crate) estop: EStop,
    pub(crate) stop: AtomicBool,
    /// The futex word `run`'s wait loop and the watchdog sleep on (stop, signals, the end of
    /// the run). Kept apart from the e-stop word so an e-stop wakes only the lanes, which
    /// then have the CPUs to themselves.
    ctl: AtomicU32,
    outcome: Mutex<Option<Outcome>>,
    nodes: Vec<Arc<NodeShared>>,
    rt_report: Mutex<RtReport>,
}

impl Shared {
    pub(crate) fn request_stop(&self, reason: StopReason) {
        self.finish(Outcome::Stop(reason));
    }

    fn fail(&self, err: RunError) {
        self.finish(Outcome::Fail(err));
    }

    fn finish(&self, o: Outcome) {
        {
            let mut g = lock(&self.outcome);
            if g.is_none() {
                *g = Some(o);
            }
        }
        // pairs with the Acquire loads of `stop` in the lanes (after their wake-up)
        self.stop.store(true, Ordering::Release);
        self.estop.kick();
        self.kick_ctl();
    }

    /// Wakes `run`'s wait loop and the watchdog.
    fn kick_ctl(&self) {
        // pairs with the Acquire loads of `ctl` before their futex waits
        self.ctl.fetch_add(1, Ordering::Release);
        futex::wake_all_private(&self.ctl);
    }
}

/// Per node, visible outside its lane: statistics and the watchdog's view.
struct NodeShared {
    name: String,
    rate_hz: f64,
    rec: Mutex<Recorder>,
    /// Monotonic ns when the running tick started; 0 when not in a tick.
    tick_started: AtomicU64,
    /// The `tick_started` value the watchdog already reported.
    hang_flagged: AtomicU64,
    watchdog_ns: u64,
    on_hang: HangPolicy,
}

impl NodeShared {
    fn rec(&self) -> std::sync::MutexGuard<'_, Recorder> {
        // A poisoned recorder only means a panic while recording; the data is still counts.
        lock(&self.rec)
    }
}

// ---------------------------------------------------------------------------------------------
// Lanes

pub(crate) struct Slot {
    node: Box<dyn Node>,
    /// Position within a tick ([`NodeEntry::order`]).
    order: i64,
    sh: Arc<NodeShared>,
    /// Nominal period; 0 for event nodes.
    period_ns: u64,
    /// The timeline: tick `k` is planned at start + `timeline.offset(k)`.
    timeline: Timeline,
    deadline_ns: u64,
    budget_ns: Option<u64>,
    on_miss: MissPolicy,
    on_panic: FailurePolicy,
    wake: Option<Box<dyn WakeSource>>,
    k: u64,
    /// `timeline.offset(k)`, kept with `k` by [`Slot::set_k`] (the lane loop asks for it
    /// several times per tick; computing it takes a 128-bit division).
    offset: u64,
    skip_next: u32,
    needs_init: bool,
    inited: bool,
    safe: bool,
    dead: bool,
    restarts: u32,
}

impl Slot {
    fn set_k(&mut self, k: u64) {
        self.k = k;
        self.offset = self.timeline.offset(k);
    }
}

/// Planned tick offsets from the start, never accumulated: offset(k) = ⌈k · 10⁹ / hz⌉ ns,
/// exact integer arithmetic for integer rates (so 3 Hz puts tick 30 at exactly 10 s).
#[derive(Clone, Copy, Debug)]
struct Timeline {
    hz: f64,
}

impl Timeline {
    fn offset(&self, k: u64) -> u64 {
        if self.hz.fract() == 0.0 {
            (k as u128 * 1_000_000_000u128).div_ceil(self.hz as u128) as u64
        } else {
            (k as f64 * 1e9 / self.hz).ceil() as u64
        }
    }

    /// The largest k with offset(k) ≤ t.
    fn last_at_or_before(&self, t: u64) -> u64 {
        let mut k = (t as f64 * self.hz / 1e9) as u64;
        while k > 0 && self.offset(k) > t {
            k -= 1;
        }
        while self.offset(k + 1) <= t {
            k += 1;
        }
        k
    }

    /// The smallest k with offset(k) ≥ t.
    fn first_at_or_after(&self, t: u64) -> u64 {
        let k = self.last_at_or_before(t);
        if self.offset(k) >= t {
            k
        } else {
            k + 1
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum LaneKind {
    Rt { priority: u8, cpu: Option<usize> },
    Compute,
    Async,
    Event,
}

struct Lane {
    name: String,
    kind: LaneKind,
    slots: Vec<Slot>,
    spin_ns: u64,
    /// Non-RT lanes: SCHED_FIFO priority to wait at ([`SchedulerBuilder::estop_priority`]).
    boost: Option<u8>,
    /// Whether the thread is at the boost priority now.
    boosted: bool,
    /// Threads running this lane's ticks (the compute pool; 1 for every other lane).
    pool_threads: usize,
}

/// The compute pool's default size: the CPUs this process may use.
fn default_compute_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs one tick of `s` (for the compute pool's helper threads).
pub(crate) fn run_tick_on(s: &mut Slot, shared: &Shared, clock: &Clock, start: u64) {
    Lane::run_tick(s, shared, clock, start);
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

impl Lane {
    /// Before waiting: back to the boost priority, so an e-stop wakes this lane at once.
    fn raise(&mut self) {
        if let (Some(p), false) = (self.boost, self.boosted) {
            self.boosted = rt::set_fifo(p).is_ok();
        }
    }

    /// Before ticks: back to normal scheduling (ticks never run boosted).
    fn lower(&mut self) {
        if self.boosted {
            self.boosted = false;
            if let Err(e) = rt::set_other() {
                tracing::warn!(lane = %self.name, error = %e, "could not leave the e-stop priority; waiting unboosted from now on");
                self.boost = None;
            }
        }
    }

    /// Calls `init` on every node, in order. Returns the first failure.
    fn init_all(&mut self, shared: &Shared) -> Result<(), RunError> {
        for s in &mut self.slots {
            let mut ctx = Context {
                now: Duration::ZERO,
                planned: Duration::ZERO,
                tick: 0,
                safe: false,
                shared,
            };
            let r = catch_unwind(AssertUnwindSafe(|| s.node.init(&mut ctx)));
            let err = match r {
                Ok(Ok(())) => {
                    s.inited = true;
                    continue;
                }
                Ok(Err(e)) => e.to_string(),
                Err(p) => format!("panic: {}", panic_message(&*p)),
            };
            return Err(RunError::InitFailed {
                node: s.sh.name.clone(),
                error: err,
            });
        }
        Ok(())
    }

    fn shutdown_all(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        for s in &mut self.slots {
            if !s.inited {
                continue;
            }
            let now = Duration::from_nanos(clock.now_ns().saturating_sub(start));
            let mut ctx = Context {
                now,
                planned: now,
                tick: s.k,
                safe: s.safe,
                shared,
            };
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| s.node.shutdown(&mut ctx))) {
                tracing::error!(node = %s.sh.name, panic = %panic_message(&*p), "shutdown panicked");
            }
        }
    }

    /// Puts `slot` into safe state (once).
    fn enter_safe(s: &mut Slot, shared: &Shared, clock: &Clock, start: u64) {
        if s.safe || !s.inited {
            return;
        }
        let entered = now_ns();
        let t = shared.estop.inner.triggered_at.load(Ordering::Acquire);
        s.safe = true;
        if t != 0 {
            s.sh.rec().safe_state_latency = Some(Duration::from_nanos(entered.saturating_sub(t)));
        }
        let now = Duration::from_nanos(clock.now_ns().saturating_sub(start));
        let mut ctx = Context {
            now,
            planned: now,
            tick: s.k,
            safe: true,
            shared,
        };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| s.node.on_safe_state(&mut ctx))) {
            tracing::error!(node = %s.sh.name, panic = %panic_message(&*p), "on_safe_state panicked");
        }
    }

    fn check_estop(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        if shared.estop.is_triggered() {
            for s in &mut self.slots {
                Self::enter_safe(s, shared, clock, start);
            }
        }
    }

    fn planned(s: &Slot, start: u64) -> u64 {
        start + s.offset
    }

    /// The periodic lane loop, for real and simulated clocks. `end` bounds simulated runs.
    fn run_periodic(
        &mut self,
        shared: &Shared,
        clock: &Clock,
        start: u64,
        end: Option<u64>,
        pool: Option<&Pool>,
    ) {
        let word = shared.estop.word();
        loop {
            // Read the wake word before checking the flags, so a kick after the check still
            // ends the sleep below. pairs with the Release increment in EStop::kick()
            let gen = word.load(Ordering::Acquire);
            if shared.stop.load(Ordering::Acquire) {
                break;
            }
            self.check_estop(shared, clock, start);
            let next = self
                .slots
                .iter()
                .filter(|s| !s.dead)
                .map(|s| Self::planned(s, start))
                .min();
            let Some(next) = next else {
                // Every node is dead: wait for the stop.
                if let Clock::Sim(_) = clock {
                    break;
                }
                futex::wait_until_private(word, gen, now_ns() + 100_000_000);
                continue;
            };
            match clock {
                Clock::Mono => {
                    self.raise();
                    if !sleep_until(word, gen, next, self.spin_ns) {
                        continue;
                    }
                    self.lower();
                }
                Clock::Sim(c) => {
                    if end.is_some_and(|e| next >= e) {
                        break;
                    }
                    c.advance_to(next);
                }
            }
            let now = clock.now_ns();
            let due = |s: &Slot| !s.dead && Self::planned(s, start) <= now;
            let mut i = 0;
            while i < self.slots.len() {
                // The group: slots i..j share one order.
                let order = self.slots[i].order;
                let mut j = i + 1;
                while j < self.slots.len() && self.slots[j].order == order {
                    j += 1;
                }
                let n_due = self.slots[i..j].iter().filter(|s| due(s)).count();
                match pool {
                    Some(pool) if n_due > 1 && pool.width() > 1 => {
                        let idx: Vec<usize> = (i..j).filter(|&k| due(&self.slots[k])).collect();
                        // One base pointer for every item (no reborrow of the Vec between).
                        let base = self.slots.as_mut_ptr();
                        let items = idx
                            .into_iter()
                            .map(|k| SlotPtr(base.wrapping_add(k)))
                            .collect();
                        // The slots i..j are distinct and this thread does not touch them
                        // until `run` returns (Batch::new's contract).
                        pool.run(Batch::new(items, clock.clone(), start));
                    }
                    _ => {
                        for k in i..j {
                            let s = &mut self.slots[k];
                            if !due(s) {
                                continue;
                            }
                            Self::run_tick(s, shared, clock, start);
                            if shared.estop.is_triggered() {
                                self.check_estop(shared, clock, start);
                            }
                            if shared.stop.load(Ordering::Acquire) {
                                break;
                            }
                        }
                    }
                }
                if shared.estop.is_triggered() {
                    self.check_estop(shared, clock, start);
                }
                if shared.stop.load(Ordering::Acquire) {
                    break;
                }
                i = j;
            }
        }
    }

    /// The async lane: one task per node on `rt`; returns when every task ended (stop),
    /// with the slots back in place for `shutdown_all`.
    fn run_async(&mut self, shared: &Arc<Shared>, start: u64, rt: &tokio::runtime::Runtime) {
        // E-stop and stop wake every task (Notified futures are enabled before the flags are
        // checked, so a kick in between is not lost).
        let notify = Arc::new(tokio::sync::Notify::new());
        let n = notify.clone();
        let waker = shared.estop.add_waker(Box::new(move || n.notify_waiters()));
        let names: Vec<String> = self.slots.iter().map(|s| s.sh.name.clone()).collect();
        let tasks: Vec<_> = std::mem::take(&mut self.slots)
            .into_iter()
            .map(|slot| rt.spawn(async_node(slot, shared.clone(), notify.clone(), start)))
            .collect();
        self.slots = rt.block_on(async {
            let mut back = Vec::new();
            for (t, name) in tasks.into_iter().zip(names) {
                match t.await {
                    Ok(slot) => back.push(slot),
                    Err(e) => {
                        tracing::error!(node = %name, error = %e, "async node task ended abnormally; its shutdown will not run")
                    }
                }
            }
            back
        });
        shared.estop.remove_waker(waker);
    }

    /// The event lane loop: one node, ticked once per wake-up of its source.
    fn run_event(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        loop {
            if shared.stop.load(Ordering::Acquire) {
                break;
            }
            self.check_estop(shared, clock, start);
            let s = &mut self.slots[0];
            if s.dead {
                futex::wait_until_private(
                    shared.estop.word(),
                    shared.estop.word().load(Ordering::Acquire),
                    now_ns() + 100_000_000,
                );
                continue;
            }
            self.raise();
            let s = &mut self.slots[0];
            let woke = match s.wake.as_mut() {
                Some(w) => w.wait(Duration::from_millis(20)),
                None => false,
            };
            if woke && !shared.stop.load(Ordering::Acquire) {
                if shared.estop.is_triggered() {
                    self.check_estop(shared, clock, start);
                }
                self.lower();
                Self::run_tick(&mut self.slots[0], shared, clock, start);
            }
        }
    }

    fn run_tick(s: &mut Slot, shared: &Shared, clock: &Clock, start: u64) {
        let event = s.period_ns == 0;
        let t_enter = clock.now_ns();
        let planned = if event {
            t_enter
        } else {
            Self::planned(s, start)
        };
        if s.skip_next > 0 {
            s.skip_next -= 1;
            s.sh.rec().skipped += 1;
            s.set_k(s.k + 1);
            return;
        }
        if s.needs_init {
            s.needs_init = false;
            let mut ctx = Context {
                now: Duration::from_nanos(t_enter.saturating_sub(start)),
                planned: Duration::from_nanos(planned.saturating_sub(start)),
                tick: s.k,
                safe: s.safe,
                shared,
            };
            let r = catch_unwind(AssertUnwindSafe(|| s.node.init(&mut ctx)));
            let msg = match r {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(format!("init after restart failed: {e}")),
                Err(p) => Some(format!(
                    "init after restart panicked: {}",
                    panic_message(&*p)
                )),
            };
            if let Some(msg) = msg {
                Self::on_failure(s, shared, msg, clock.now_ns(), start);
                return;
            }
        }
        let t0 = clock.now_ns();
        let watched = s.sh.watchdog_ns != 0;
        if watched {
            // pairs with the Acquire load in watchdog_loop()
            s.sh.tick_started.store(t0.max(1), Ordering::Release);
        }
        let mut ctx = Context {
            now: Duration::from_nanos(t0.saturating_sub(start)),
            planned: Duration::from_nanos(planned.saturating_sub(start)),
            tick: s.k,
            safe: s.safe,
            shared,
        };
        let r = catch_unwind(AssertUnwindSafe(|| s.node.tick(&mut ctx)));
        let t1 = clock.now_ns();
        if watched {
            s.sh.tick_started.store(0, Ordering::Release);
        }
        let late = t0.saturating_sub(planned);
        let dur = t1.saturating_sub(t0);
        let missed_by = (t1.saturating_sub(planned))
            .checked_sub(s.deadline_ns)
            .filter(|d| *d > 0 && !event);
        {
            let mut rec = s.sh.rec();
            rec.record_tick(t0, t0.saturating_sub(start), dur, late);
            if missed_by.is_some() {
                rec.misses += 1;
            }
            if s.budget_ns.is_some_and(|b| dur > b) {
                rec.budget_overruns += 1;
            }
        }
        // Next tick: the next planned start, or, if the node fell a whole period behind, the
        // latest planned start not after now (earlier ones are skipped, never bunched up).
        s.set_k(s.k + 1);
        let now = t1.saturating_sub(start);
        // offset(k+1) ≥ offset(k) + period − 1, so only a node at least that far along can be
        // a whole period behind: skip the search (128-bit divisions) otherwise.
        if !event && now + 1 >= s.offset + s.period_ns {
            let behind = s.timeline.last_at_or_before(now);
            if behind > s.k {
                s.sh.rec().skipped += behind - s.k;
                s.set_k(behind);
            }
        }
        if let Err(p) = r {
            Self::on_failure(s, shared, panic_message(&*p), t1, start);
            return;
        }
        if let Some(by) = missed_by {
            let misses = s.sh.rec().misses;
            match s.on_miss {
                MissPolicy::Warn => {
                    if misses.is_power_of_two() {
                        tracing::warn!(node = %s.sh.name, late_by_ns = by, misses, "deadline miss");
                    }
                }
                MissPolicy::Skip => s.skip_next = 1,
                MissPolicy::SafeState => {
                    tracing::warn!(node = %s.sh.name, late_by_ns = by, "deadline miss: entering safe state");
                    Self::enter_safe(s, shared, clock, start);
                }
                MissPolicy::Stop => {
                    tracing::error!(node = %s.sh.name, late_by_ns = by, "deadline miss: stopping");
                    shared.fail(RunError::DeadlineMissed {
                        node: s.sh.name.clone(),
                        late_by: Duration::from_nanos(by),
                    });
                }
            }
        }
    }

    fn on_failure(s: &mut Slot, shared: &Shared, message: String, now: u64, start: u64) {
        s.sh.rec().panics += 1;
        match s.on_panic {
            FailurePolicy::Skip => {
                tracing::warn!(node = %s.sh.name, %message, "node panicked; skipping this tick");
            }
            FailurePolicy::Restart { max, backoff } if s.restarts < max => {
                s.restarts += 1;
                s.sh.rec().restarts += 1;
                let delay = backoff.saturating_mul(1u32 << (s.restarts - 1).min(20));
                tracing::warn!(node = %s.sh.name, %message, restart = s.restarts, ?delay, "node panicked; restarting");
                s.needs_init = true;
                if s.period_ns > 0 {
                    let resume = now + delay.as_nanos() as u64;
                    let k = s.timeline.first_at_or_after(resume.saturating_sub(start));
                    if k > s.k {
                        s.sh.rec().skipped += k - s.k;
                        s.set_k(k);
                    }
                } else {
                    std::thread::sleep(delay);
                }
            }
            _ => {
                tracing::error!(node = %s.sh.name, %message, "node panicked; fatal");
                s.dead = true;
                shared.fail(RunError::NodePanicked {
                    node: s.sh.name.clone(),
                    message,
                });
            }
        }
    }

    /// Real-time setup for this lane's thread, recorded in the report.
    fn setup_thread(&mut self, shared: &Shared) {
        set_min_timer_slack();
        if let Some(p) = self.boost {
            // Try it once now (init runs unboosted); the lane raises itself before each wait.
            let r = rt::set_fifo(p).and_then(|()| rt::set_other());
            if r.is_err() {
                self.boost = None;
            }
            let mut rep = lock(&shared.rt_report);
            rep.push(
                format!(
                    "SCHED_FIFO priority {p} while lane {} waits (estop_priority)",
                    self.name
                ),
                r,
            );
        }
        if let LaneKind::Rt { priority, cpu } = self.kind {
            let mut rep = lock(&shared.rt_report);
            if let Some(cpu) = cpu {
                rep.push(
                    format!("pin lane {} to cpu {cpu}", self.name),
                    rt::pin_to(cpu),
                );
            }
            rep.push(
                format!("SCHED_FIFO priority {priority} on lane {}", self.name),
                rt::set_fifo(priority),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scheduler

/// Runs nodes on time and says when they are not. Build with [`Scheduler::builder`].
pub struct Scheduler {
    lanes: Option<Vec<Lane>>,
    shared: Arc<Shared>,
    sim: Option<SimClock>,
    wants_rt: bool,
    lock_memory: Option<bool>,
    handle_signals: bool,
    print_stats: bool,
    shutdown_timeout: Duration,
    watchdog_tick: Option<Duration>,
    estop_topic: Option<Option<u32>>,
    async_threads: usize,
    /// CPUs an idle poller keeps awake during `run` ([`SchedulerBuilder::idle_poll`]).
    poll_cpus: Vec<usize>,
}

/// A handle on a scheduler usable from other threads, also while it runs: stop it, read its
/// statistics, reach its e-stop.
#[derive(Clone)]
pub struct SchedulerHandle {
    shared: Arc<Shared>,
}

impl SchedulerHandle {
    /// Asks the scheduler to stop; every node's `shutdown` runs. `run` returns
    /// `Ok(StopReason::Requested)`.
    pub fn stop(&self) {
        self.shared.request_stop(StopReason::Requested);
    }

    /// Statistics so far, one entry per node in the order they were added.
    pub fn stats(&self) -> Vec<NodeStats> {
        snapshot(&self.shared)
    }

    /// The scheduler's e-stop.
    pub fn estop(&self) -> EStop {
        self.shared.estop.clone()
    }

    /// The real-time setup report so far.
    pub fn rt_report(&self) -> RtReport {
        lock(&self.shared.rt_report).clone()
    }
}

fn snapshot(shared: &Shared) -> Vec<NodeStats> {
    shared
        .nodes
        .iter()
        .map(|n| NodeStats::from_recorder(&n.name, n.rate_hz, &n.rec()))
        .collect()
}

impl Scheduler {
    /// Starts building a scheduler.
    pub fn builder() -> SchedulerBuilder {
        SchedulerBuilder::default()
    }

    fn from_builder(b: SchedulerBuilder) -> Result<Self, BuildError> {
        if b.specs.is_empty() {
            return Err(BuildError::NoNodes);
        }
        if let Some(p) = b.estop_priority.filter(|p| !(1..=99).contains(p)) {
            return Err(BuildError::InvalidEStopPriority(p));
        }
        let mut names = HashSet::new();
        let deterministic = b.sim.is_some();
        let mut lanes: BTreeMap<(LaneKind, usize), Lane> = BTreeMap::new();
        let mut wants_rt = false;
        let mut watchdog_tick: Option<Duration> = None;
        let mut specs: Vec<(usize, NodeSpec)> = b.specs.into_iter().enumerate().collect();
        specs.sort_by_key(|(seq, s)| (s.order, *seq));
        let mut shareds: Vec<(usize, Arc<NodeShared>)> = Vec::new();
        let mut n_event = 0;
        for (seq, spec) in specs {
            let name = spec.node.name().to_owned();
            if !names.insert(name.clone()) {
                return Err(BuildError::DuplicateName(name));
            }
            let event = spec.class == ExecClass::Event;
            if event && deterministic {
                return Err(BuildError::EventInDeterministic { node: name });
            }
            if event && spec.wake.is_none() {
                return Err(BuildError::MissingWakeSource { node: name });
            }
            let period_ns = if event {
                0
            } else {
                let hz = spec
                    .rate
                    .ok_or(BuildError::MissingRate { node: name.clone() })?;
                if !(hz.is_finite() && hz > 0.0 && hz <= 1e9) {
                    return Err(BuildError::InvalidRate { node: name, hz });
                }
                ((1e9 / hz).round() as u64).max(1)
            };
            let kind = match spec.class {
                _ if deterministic => LaneKind::Compute,
                ExecClass::Rt { priority, cpu } => {
                    if !(1..=99).contains(&priority) {
                        return Err(BuildError::InvalidPriority {
                            node: name,
                            priority,
                        });
                    }
                    wants_rt = true;
                    LaneKind::Rt { priority, cpu }
                }
                ExecClass::Compute => LaneKind::Compute,
                ExecClass::Async => LaneKind::Async,
                ExecClass::Event => LaneKind::Event,
            };
            // Event nodes get a lane each; others share the lane of their kind.
            let lane_key = (kind, if kind == LaneKind::Event { n_event } else { 0 });
            if kind == LaneKind::Event {
                n_event += 1;
            }
            let lane = lanes.entry(lane_key).or_insert_with(|| Lane {
                name: match kind {
                    LaneKind::Rt {
                        priority,
                        cpu: Some(c),
                    } => format!("rt-p{priority}-c{c}"),
                    LaneKind::Rt {
                        priority,
                        cpu: None,
                    } => format!("rt-p{priority}"),
                    LaneKind::Compute => "compute".to_owned(),
                    LaneKind::Async => "async".to_owned(),
                    LaneKind::Event => format!("ev-{name}"),
                },
                kind,
                slots: Vec::new(),
                spin_ns: match kind {
                    LaneKind::Rt { .. } => b.spin.as_nanos() as u64,
                    _ => 0,
                },
                boost: match kind {
                    LaneKind::Rt { .. } | LaneKind::Async => None,
                    _ => b.estop_priority.filter(|_| !deterministic),
                },
                boosted: false,
                pool_threads: if kind == LaneKind::Compute && !deterministic {
                    b.compute_threads
                        .unwrap_or_else(default_compute_threads)
                        .max(1)
                } else {
                    1
                },
            });
            let watchdog = spec.watchdog.or(b.watchdog).filter(|_| !deterministic);
            if let Some(w) = watchdog {
                let t = (w / 4).clamp(Duration::from_millis(1), Duration::from_millis(100));
                watchdog_tick = Some(watchdog_tick.map_or(t, |x| x.min(t)));
            }
            let sh = Arc::new(NodeShared {
                name: name.clone(),
                rate_hz: spec.rate.filter(|_| !event).unwrap_or(0.0),
                rec: Mutex::new(Recorder::default()),
                tick_started: AtomicU64::new(0),
                hang_flagged: AtomicU64::new(0),
                watchdog_ns: watchdog.map_or(0, |w| w.as_nanos() as u64),
                on_hang: spec.on_hang,
            });
            shareds.push((seq, sh.clone()));
            lane.slots.push(Slot {
                node: spec.node,
                order: spec.order,
                sh,
                period_ns,
                timeline: Timeline {
                    hz: spec.rate.unwrap_or(1.0),
                },
                deadline_ns: spec.deadline.map_or(period_ns, |d| d.as_nanos() as u64),
                budget_ns: spec.budget.map(|d| d.as_nanos() as u64),
                on_miss: spec.on_miss,
                on_panic: spec.on_panic,
                wake: spec.wake,
                k: 0,
                offset: 0,
                skip_next: 0,
                needs_init: false,
                inited: false,
                safe: false,
                dead: false,
                restarts: 0,
            });
        }
        let lanes: Vec<Lane> = lanes.into_values().collect();
        let mut poll_cpus: Vec<usize> = lanes
            .iter()
            .filter_map(|l| match l.kind {
                LaneKind::Rt { cpu, .. } if b.idle_poll && !deterministic => cpu,
                _ => None,
            })
            .collect();
        poll_cpus.sort_unstable();
        poll_cpus.dedup();
        shareds.sort_by_key(|(seq, _)| *seq);
        let nodes: Vec<Arc<NodeShared>> = shareds.into_iter().map(|(_, sh)| sh).collect();
        let shared = Arc::new(Shared {
            estop: b.estop.unwrap_or_default(),
            stop: AtomicBool::new(false),
            ctl: AtomicU32::new(0),
            outcome: Mutex::new(None),
            nodes,
            rt_report: Mutex::new(RtReport::default()),
        });
        Ok(Self {
            lanes: Some(lanes),
            shared,
            sim: b.sim,
            wants_rt,
            lock_memory: b.lock_memory,
            handle_signals: b.handle_signals,
            print_stats: b.print_stats,
            shutdown_timeout: b.shutdown_timeout,
            watchdog_tick,
            estop_topic: b.estop_topic,
            async_threads: b.async_threads,
            poll_cpus,
        })
    }

    /// A handle to stop the scheduler, read statistics or reach the e-stop from other threads.
    pub fn handle(&self) -> SchedulerHandle {
        SchedulerHandle {
            shared: self.shared.clone(),
        }
    }

    /// The scheduler's e-stop.
    pub fn estop(&self) -> EStop {
        self.shared.estop.clone()
    }

    /// Statistics, one entry per node in the order they were added.
    pub fn stats(&self) -> Vec<NodeStats> {
        snapshot(&self.shared)
    }

    /// The statistics table printed at shutdown.
    pub fn stats_table(&self) -> String {
        stats::format_table(&self.stats())
    }

    /// What real-time setup was asked for and what the OS refused. Filled by `run`.
    pub fn rt_report(&self) -> RtReport {
        self.handle().rt_report()
    }

    /// Runs until stopped (handle, node, SIGINT/SIGTERM, or a policy). An error opening the
    /// e-stop topic (when asked for) ends the run before any node starts.
    pub fn run(&mut self) -> Result<StopReason, RunError> {
        self.run_inner(None)
    }

    /// Runs for `d` (simulated time in deterministic mode), or until stopped earlier.
    pub fn run_for(&mut self, d: Duration) -> Result<StopReason, RunError> {
        self.run_inner(Some(d))
    }

    fn outcome(&self, default: StopReason) -> Result<StopReason, RunError> {
        let o = lock(&self.shared.outcome).take();
        match o {
            None => Ok(default),
            Some(Outcome::Stop(r)) => Ok(r),
            Some(Outcome::Fail(e)) => Err(e),
        }
    }

    fn run_inner(&mut self, limit: Option<Duration>) -> Result<StopReason, RunError> {
        let mut lanes = self.lanes.take().ok_or(RunError::AlreadyRan)?;
        if let Some(sim) = self.sim.clone() {
            return self.run_sim(lanes, sim, limit);
        }
        // Held for the run: undone when `run` returns, unless memory was already locked
        // before (then it is not ours to undo).
        let _mlock = if self.lock_memory.unwrap_or(self.wants_rt) {
            let (r, guard) = rt::MemoryLock::acquire();
            lock(&self.shared.rt_report).push("mlockall(MCL_CURRENT | MCL_FUTURE)".to_owned(), r);
            guard
        } else {
            None
        };
        let _signals = if self.handle_signals {
            match SignalGuard::install(&self.shared.ctl) {
                Ok(g) => Some(g),
                Err(e) => {
                    tracing::warn!(error = %e, "could not install SIGINT/SIGTERM handlers");
                    None
                }
            }
        } else {
            None
        };

        let _bridge = match self.estop_topic {
            Some(domain) => match EStopBridge::start(&self.shared.estop, domain) {
                Ok(b) => Some(b),
                Err(e) => {
                    self.lanes = Some(lanes);
                    return Err(RunError::EStopTopic(e));
                }
            },
            None => None,
        };

        // Event lanes block in their wake source: let e-stop and stop interrupt them.
        let waker_ids: Vec<u64> = lanes
            .iter()
            .flat_map(|l| l.slots.iter())
            .filter_map(|s| s.wake.as_ref().and_then(|w| w.interrupter()))
            .map(|w| self.shared.estop.add_waker(w))
            .collect();

        let n = lanes.len();
        let barrier = Arc::new(Barrier::new(n + 1));
        let start_at = Arc::new(AtomicU64::new(0));
        let (done_tx, done_rx) = mpsc::channel::<(usize, Lane)>();
        let mut lane_nodes: Vec<Vec<String>> = Vec::new();
        let mut spawned = 0;
        let mut spawn_err = None;
        for (i, mut lane) in lanes.drain(..).enumerate() {
            lane_nodes.push(lane.slots.iter().map(|s| s.sh.name.clone()).collect());
            let shared = self.shared.clone();
            let barrier = barrier.clone();
            let start_at = start_at.clone();
            let tx = done_tx.clone();
            let name = lane.name.clone();
            let async_threads = self.async_threads;
            let r = std::thread::Builder::new()
                .name(name.clone())
                .spawn(move || {
                    lane.setup_thread(&shared);
                    let clock = Clock::Mono;
                    // The async lane's runtime exists before init and lives past shutdown, so
                    // a node can spawn onto it from all three.
                    let rt = match (lane.kind == LaneKind::Async)
                        .then(|| async_runtime(&lane.name, async_threads))
                    {
                        Some(Ok(rt)) => Some(rt),
                        Some(Err(error)) => {
                            shared.fail(RunError::Spawn {
                                lane: format!("{} (tokio runtime)", lane.name),
                                error,
                            });
                            None
                        }
                        None => None,
                    };
                    let ctx = rt.as_ref().map(|rt| rt.enter());
                    if let Err(e) = lane.init_all(&shared) {
                        shared.fail(e);
                    }
                    barrier.wait(); // every lane initialised
                    barrier.wait(); // start time published
                                    // pairs with the Release store by the main thread before the second wait
                    let start = start_at.load(Ordering::Acquire);
                    if !shared.stop.load(Ordering::Acquire) {
                        if lane.kind == LaneKind::Event {
                            lane.run_event(&shared, &clock, start);
                        } else if let Some(rt) = &rt {
                            lane.run_async(&shared, start, rt);
                        } else {
                            let pool = (lane.pool_threads > 1).then(|| {
                                Pool::start(lane.pool_threads - 1, shared.clone(), &lane.name)
                            });
                            lane.run_periodic(&shared, &clock, start, None, pool.as_ref());
                        }
                    }
                    lane.lower();
                    lane.shutdown_all(&shared, &clock, start);
                    drop(ctx);
                    if let Some(rt) = rt {
                        // Tasks the nodes spawned get a moment to finish.
                        rt.shutdown_timeout(Duration::from_millis(100));
                    }
                    let _ = tx.send((i, lane));
                });
            match r {
                Ok(_) => spawned += 1,
                Err(error) => {
                    spawn_err = Some(RunError::Spawn { lane: name, error });
                    break;
                }
            }
        }
        drop(done_tx);
        if let Some(e) = spawn_err {
            // Release the lanes that did start: they see `stop` and shut down.
            self.shared.fail(e);
            // The barrier counts every lane: stand in for the ones that did not start.
            for _ in spawned..n {
                let b = barrier.clone();
                std::thread::spawn(move || {
                    b.wait();
                    b.wait();
                });
            }
        }
        let pollers_done = Arc::new(AtomicBool::new(false));
        let pollers: Vec<_> = self
            .poll_cpus
            .iter()
            .map(|&cpu| IdlePoller::start(cpu, &self.shared, &pollers_done))
            .collect();
        barrier.wait();
        let start = now_ns() + 1_000_000;
        start_at.store(start, Ordering::Release);
        barrier.wait();

        let watchdog_done = Arc::new(AtomicBool::new(false));
        let watchdog = self.watchdog_tick.map(|tick| {
            let shared = self.shared.clone();
            let done = watchdog_done.clone();
            std::thread::Builder::new()
                .name("nerve-watchdog".to_owned())
                .spawn(move || watchdog_loop(&shared, &done, tick))
        });

        // Wait for the end: limit, stop request, signal.
        let end = limit.map(|d| start + d.as_nanos() as u64);
        let word = &self.shared.ctl;
        loop {
            let gen = word.load(Ordering::Acquire);
            if let Some(sig) = signal::take_signal() {
                tracing::info!(signal = sig, "signal received; stopping");
                self.shared.request_stop(StopReason::Signal(sig));
            }
            if self.shared.stop.load(Ordering::Acquire) {
                break;
            }
            let now = now_ns();
            if end.is_some_and(|e| now >= e) {
                self.shared.request_stop(StopReason::Elapsed);
                break;
            }
            let wake = end.map_or(now + 100_000_000, |e| e.min(now + 100_000_000));
            futex::wait_until_private(word, gen, wake);
        }

        // Collect the lanes; abandon those stuck in a hung node after the timeout.
        let give_up = now_ns() + self.shutdown_timeout.as_nanos() as u64;
        let mut back = vec![false; n];
        let mut returned = 0;
        while returned < spawned {
            let left = give_up.saturating_sub(now_ns());
            match done_rx.recv_timeout(Duration::from_nanos(left)) {
                Ok((i, lane)) => {
                    back[i] = true;
                    returned += 1;
                    drop(lane);
                }
                Err(_) => break,
            }
        }
        pollers_done.store(true, Ordering::Relaxed);
        for p in pollers.into_iter().flatten() {
            let _ = p.join();
        }
        watchdog_done.store(true, Ordering::Release);
        self.shared.kick_ctl();
        if let Some(Ok(w)) = watchdog {
            let _ = w.join();
        }
        let stuck: Vec<String> = back
            .iter()
            .enumerate()
            .filter(|(_, b)| !**b)
            .flat_map(|(i, _)| lane_nodes.get(i).cloned().unwrap_or_default())
            .collect();
        if !stuck.is_empty() {
            tracing::error!(
                ?stuck,
                "lanes did not finish shutdown in time; their nodes' shutdown did not run"
            );
        }
        self.report();
        self.shared.estop.clear_publisher();
        for id in waker_ids {
            self.shared.estop.remove_waker(id);
        }
        match self.outcome(StopReason::Elapsed) {
            Err(RunError::NodeHung { node, timeout, .. }) => Err(RunError::NodeHung {
                node,
                timeout,
                stuck,
            }),
            other => other,
        }
    }

    fn run_sim(
        &mut self,
        mut lanes: Vec<Lane>,
        sim: SimClock,
        limit: Option<Duration>,
    ) -> Result<StopReason, RunError> {
        let clock = Clock::Sim(sim.clone());
        let start = sim.now_ns();
        let end = limit.map(|d| start + d.as_nanos() as u64);
        // Deterministic mode builds exactly one (compute) lane.
        for lane in &mut lanes {
            if let Err(e) = lane.init_all(&self.shared) {
                self.shared.fail(e);
            }
            if !self.shared.stop.load(Ordering::Acquire) {
                lane.run_periodic(&self.shared, &clock, start, end, None);
            }
            if let Some(e) = end {
                sim.advance_to(e);
            }
            lane.shutdown_all(&self.shared, &clock, start);
        }
        self.report();
        self.outcome(StopReason::Elapsed)
    }

    fn report(&self) {
        let table = self.stats_table();
        tracing::info!("scheduler statistics\n{table}");
        if self.print_stats {
            eprintln!("{table}");
            let rep = self.rt_report();
            if !rep.all_ok() {
                eprint!("real-time setup:\n{rep}");
            }
        }
    }
}

/// The async lane's runtime: current-thread on the lane's own thread (`workers` = 0) or
/// multi-thread.
fn async_runtime(lane: &str, workers: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if workers == 0 {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name(format!("{lane}-w"))
            .on_thread_start(|| {
                set_min_timer_slack();
            })
            .enable_time()
            .build()
    }
}

/// One async node: sleep (precise timer) until the next planned tick, or until an e-stop or
/// stop wakes it; tick; repeat.
async fn async_node(
    mut s: Slot,
    shared: Arc<Shared>,
    notify: Arc<tokio::sync::Notify>,
    start: u64,
) -> Slot {
    let clock = Clock::Mono;
    loop {
        let notified = notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if shared.stop.load(Ordering::Acquire) {
            break;
        }
        if shared.estop.is_triggered() {
            Lane::enter_safe(&mut s, &shared, &clock, start);
        }
        if s.dead {
            notified.await;
            continue;
        }
        let next = Lane::planned(&s, start);
        if now_ns() < next {
            tokio::select! {
                _ = crate::aio::Sleep::at_ns(next) => {}
                _ = &mut notified => continue,
            }
        }
        Lane::run_tick(&mut s, &shared, &clock, start);
    }
    s
}

/// The busy-polling thread of [`SchedulerBuilder::idle_poll`] on one CPU.
struct IdlePoller;

impl IdlePoller {
    /// Starts the poller for `cpu`; it spins until `done` is set, and only once it is pinned
    /// and at `SCHED_IDLE` (each step recorded in the RT report). Returns once the thread has
    /// tried both, so no lane runs beside a poller still at normal priority.
    fn start(
        cpu: usize,
        shared: &Arc<Shared>,
        done: &Arc<AtomicBool>,
    ) -> Option<std::thread::JoinHandle<()>> {
        let (sh, done) = (shared.clone(), done.clone());
        let what = format!("idle poller on cpu {cpu} at SCHED_IDLE (idle_poll)");
        let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel::<()>(1);
        let r = std::thread::Builder::new()
            .name(format!("nerve-poll-c{cpu}"))
            .spawn(move || {
                let r = rt::pin_to(cpu).and_then(|()| rt::set_idle());
                let ok = r.is_ok();
                lock(&sh.rt_report).push(what, r);
                let _ = ready_tx.send(());
                // Relaxed: the flag carries no data, and a late look only polls a little longer.
                while ok && !done.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        match r {
            Ok(h) => {
                // An Err only means the thread died before it could say so; it is joined later.
                let _ = ready_rx.recv();
                Some(h)
            }
            Err(e) => {
                lock(&shared.rt_report).push(
                    format!("idle poller on cpu {cpu} (idle_poll)"),
                    Err(format!("could not start the thread: {e}")),
                );
                None
            }
        }
    }
}

fn watchdog_loop(shared: &Shared, done: &AtomicBool, tick: Duration) {
    let word = &shared.ctl;
    while !done.load(Ordering::Acquire) {
        let now = now_ns();
        for n in &shared.nodes {
            if n.watchdog_ns == 0 {
                continue;
            }
            // pairs with the Release stores of tick_started in Lane::run_tick()
            let started = n.tick_started.load(Ordering::Acquire);
            if started == 0 || now.saturating_sub(started) <= n.watchdog_ns {
                continue;
            }
            if n.hang_flagged.swap(started, Ordering::AcqRel) == started {
                continue; // already reported this tick
            }
            n.rec().hangs += 1;
            let timeout = Duration::from_nanos(n.watchdog_ns);
            tracing::error!(node = %n.name, ?timeout, policy = ?n.on_hang, "watchdog: node hung in tick");
            match n.on_hang {
                HangPolicy::Warn => {}
                HangPolicy::EStop => shared
                    .estop
                    .trigger(&format!("watchdog: node {} hung", n.name)),
                HangPolicy::Stop => shared.fail(RunError::NodeHung {
                    node: n.name.clone(),
                    timeout,
                    stuck: Vec::new(),
                }),
            }
        }
        // Sleep a watchdog tick; the control word only makes us check `done` sooner.
        let gen = word.load(Ordering::Acquire);
        futex::wait_until_private(word, gen, now_ns() + tick.as_nanos() as u64);
    }
}
