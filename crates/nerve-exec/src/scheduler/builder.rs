//! [`SchedulerBuilder`] and [`NodeEntry`]: the options of a scheduler and of each node, as
//! given. Checking them and laying the nodes out on lanes is `plan.rs`'s work; `build` itself
//! is next to the [`Scheduler`](crate::Scheduler) it makes (`mod.rs`).

use std::time::Duration;

use crate::estop::EStop;
use crate::node::Node;
use crate::policy::{ExecClass, FailurePolicy, HangPolicy, MissPolicy};
use crate::time::SimClock;
use crate::wake::WakeSource;

/// One node and its options, as given to the builder.
pub(super) struct NodeSpec {
    pub(super) node: Box<dyn Node>,
    pub(super) rate: Option<f64>,
    pub(super) order: i64,
    pub(super) budget: Option<Duration>,
    pub(super) deadline: Option<Duration>,
    pub(super) on_miss: MissPolicy,
    pub(super) on_budget: MissPolicy,
    pub(super) on_panic: FailurePolicy,
    pub(super) on_hang: HangPolicy,
    pub(super) watchdog: Option<Duration>,
    pub(super) class: ExecClass,
    pub(super) wake: Option<Box<dyn WakeSource>>,
}

/// Builds a [`Scheduler`](crate::Scheduler). Scheduler-wide options first, then `.node(n)`
/// followed by that node's options, then `.build()`.
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
#[derive(Default)]
pub struct SchedulerBuilder {
    pub(super) specs: Vec<NodeSpec>,
    pub(super) opts: Options,
}

/// The scheduler-wide options.
pub(super) struct Options {
    pub(super) sim: Option<SimClock>,
    pub(super) spin: Duration,
    pub(super) compute_spin: Duration,
    pub(super) watchdog: Option<Duration>,
    pub(super) handle_signals: bool,
    pub(super) print_stats: bool,
    pub(super) lock_memory: Option<bool>,
    pub(super) estop: Option<EStop>,
    pub(super) estop_topic: Option<Option<u32>>,
    pub(super) estop_priority: Option<u8>,
    pub(super) idle_poll: bool,
    pub(super) compute_threads: Option<usize>,
    pub(super) async_threads: usize,
    pub(super) shutdown_timeout: Duration,
    /// Whether the nodes are announced, and in which domain (`None`: the default).
    pub(super) announce: bool,
    pub(super) domain: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            sim: None,
            spin: Duration::from_micros(50),
            compute_spin: Duration::ZERO,
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
            announce: true,
            domain: None,
        }
    }
}

impl SchedulerBuilder {
    /// Deterministic mode: the scheduler runs every node on the caller's thread on `clock`,
    /// in a fixed order, jumping the clock from one planned tick to the next (no sleeping).
    /// Ten simulated seconds take milliseconds, and two runs give identical results.
    /// RT options and the watchdog are ignored; signals are not handled.
    pub fn deterministic(mut self, clock: SimClock) -> Self {
        self.opts.sim = Some(clock);
        self
    }

    /// Announce the nodes (default: yes, in `$NERVE_DOMAIN` or 0): while the scheduler runs,
    /// each node publishes its statistics once a second on `nerve/node/<name>`, what
    /// `nerve node list` and `node info` show (see [`crate::announce`]).
    pub fn announce(mut self, yes: bool) -> Self {
        self.opts.announce = yes;
        self
    }

    /// The domain the nodes are announced in (default `$NERVE_DOMAIN` or 0).
    pub fn domain(mut self, domain: u32) -> Self {
        self.opts.domain = Some(domain);
        self
    }

    /// How long RT lanes busy-spin before a planned start after the kernel sleep (default
    /// 50 µs; zero disables). Other lanes spin only as [`compute_spin`](Self::compute_spin) says.
    pub fn spin(mut self, d: Duration) -> Self {
        self.opts.spin = d;
        self
    }

    /// How long the compute lane busy-spins before a planned start (default: zero, no spin).
    /// Without it a compute node starts when the kernel wakes its thread: tens of µs after
    /// the planned time on bare metal, 50–100 µs on a VM whose idle vCPU halts. A spin of
    /// `d` brings the start within a few µs of the plan for as long as the spin covers the
    /// wake-up's tail, at the cost of up to `d` of CPU time per planned start (100 µs at
    /// 100 Hz: 1 % of a core).
    pub fn compute_spin(mut self, d: Duration) -> Self {
        self.opts.compute_spin = d;
        self
    }

    /// Default watchdog timeout for nodes that set none (default: no watchdog).
    pub fn watchdog(mut self, timeout: Duration) -> Self {
        self.opts.watchdog = Some(timeout);
        self
    }

    /// Whether `run` installs SIGINT/SIGTERM handlers that stop the scheduler cleanly
    /// (default: yes; the previous handlers are restored when `run` returns).
    pub fn handle_signals(mut self, yes: bool) -> Self {
        self.opts.handle_signals = yes;
        self
    }

    /// Whether the statistics table is printed to stderr when a run ends (default: yes). It is
    /// always available from [`Scheduler::stats`](crate::Scheduler::stats) and logged at
    /// `info`.
    pub fn print_stats(mut self, yes: bool) -> Self {
        self.opts.print_stats = yes;
        self
    }

    /// Overrides `mlockall`: by default it is done only when a node is `ExecClass::Rt`. It
    /// lasts for the run (`munlockall` when `run` returns, unless memory was locked before).
    pub fn lock_memory(mut self, yes: bool) -> Self {
        self.opts.lock_memory = Some(yes);
        self
    }

    /// Uses `estop` instead of a fresh e-stop (to share one between schedulers or threads
    /// created before the scheduler).
    pub fn estop(mut self, estop: &EStop) -> Self {
        self.opts.estop = Some(estop.clone());
        self
    }

    /// Connects the e-stop to the topic `nerve/estop` while running: an
    /// [`EStopMsg`](crate::EStopMsg) from any process (see
    /// [`trigger_remote_estop`](crate::trigger_remote_estop)) triggers it, and a local
    /// trigger is published for the others. `domain`: `None` for `$NERVE_DOMAIN`.
    pub fn estop_topic(mut self, domain: Option<u32>) -> Self {
        self.opts.estop_topic = Some(domain);
        self
    }

    /// Threads of the compute pool, the compute lane's own thread included (default: the CPUs
    /// this process may use; values below 1 count as 1). Compute nodes due at the same
    /// instant with the same [`order`](NodeEntry::order) run in parallel on the pool; a
    /// larger `order` starts only after every smaller one of that instant has finished.
    /// `compute_threads(1)` runs them one after another on one thread.
    pub fn compute_threads(mut self, n: usize) -> Self {
        self.opts.compute_threads = Some(n);
        self
    }

    /// Worker threads of the tokio runtime that runs [`ExecClass::Async`] nodes: 0 (default)
    /// runs them all on the async lane's own thread (a current-thread runtime).
    pub fn async_threads(mut self, n: usize) -> Self {
        self.opts.async_threads = n;
        self
    }

    /// Lets an e-stop reach nodes on non-RT lanes (compute, event) as fast as RT ones: those
    /// lanes *wait* at `SCHED_FIFO priority` (1–99; 1 is enough to pass every normal thread)
    /// and drop back to normal scheduling before they run ticks. An e-stop then wakes them
    /// ahead of every normal thread (a busy build, a browser), and `on_safe_state` runs at
    /// that priority; ticks never do. Off by default (RT only when asked); what the OS refused
    /// is in [`Scheduler::rt_report`](crate::Scheduler::rt_report), and the lanes run
    /// unboosted then.
    ///
    /// Costs two `sched_setscheduler` calls per wake-up of each such lane.
    pub fn estop_priority(mut self, priority: u8) -> Self {
        self.opts.estop_priority = Some(priority);
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
    /// refused is in [`Scheduler::rt_report`](crate::Scheduler::rt_report); a poller that could
    /// not go to `SCHED_IDLE` does not poll.
    pub fn idle_poll(mut self, yes: bool) -> Self {
        self.opts.idle_poll = yes;
        self
    }

    /// How long `run` waits for lanes to finish their shutdown after a stop (default 2 s);
    /// a lane stuck in a hung node is abandoned after this.
    pub fn shutdown_timeout(mut self, d: Duration) -> Self {
        self.opts.shutdown_timeout = d;
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
            on_budget: MissPolicy::default(),
            on_panic: FailurePolicy::default(),
            on_hang: HangPolicy::default(),
            watchdog: None,
            class: ExecClass::default(),
            wake: None,
        });
        NodeEntry { b: self }
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

    /// Budget (WCET): a tick longer than this (end − actual start) is a budget overrun,
    /// counted and handled by [`on_budget`](Self::on_budget).
    pub fn budget(mut self, d: Duration) -> Self {
        self.spec().budget = Some(d);
        self
    }

    /// What a budget overrun does: [`MissPolicy::Warn`] (the default: count it, log the 1st,
    /// 2nd, 4th … one), `Skip` (skip the node's next tick to shed load), `SafeState` (the
    /// node's `on_safe_state`), `Stop` (`run` returns
    /// [`RunError::BudgetOverrun`](crate::RunError::BudgetOverrun)).
    pub fn on_budget(mut self, p: MissPolicy) -> Self {
        self.spec().on_budget = p;
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
}
