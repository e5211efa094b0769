//! What a scheduler's threads share while it runs: the stop flag and the run's outcome, the
//! e-stop, the control word, the real-time report, and each node's statistics and watchdog
//! view. The lanes, the watchdog, [`SchedulerHandle`](crate::SchedulerHandle)s and the nodes'
//! [`Context`](crate::Context)s all hold it; it knows nothing of them.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use nerve_transport::sys::{futex, lock};

use crate::error::{RunError, StopReason};
use crate::estop::EStop;
use crate::policy::HangPolicy;
use crate::rt::RtReport;
use crate::stats::{NodeStats, Recorder};

/// How a run ended; the first reason recorded wins.
#[derive(Debug)]
pub(crate) enum Outcome {
    Stop(StopReason),
    Fail(RunError),
}

/// State shared by the lanes, the watchdog, the handles and the nodes' contexts.
pub(crate) struct Shared {
    pub(crate) estop: EStop,
    /// Set once when the run ends (see [`Shared::stopping`]).
    stop: AtomicBool,
    /// The futex word `run`'s wait loop and the watchdog sleep on (stop, signals, the end of
    /// the run). Kept apart from the e-stop word so an e-stop wakes only the lanes, which
    /// then have the CPUs to themselves.
    pub(crate) ctl: AtomicU32,
    outcome: Mutex<Option<Outcome>>,
    /// Every node, in the order they were added.
    pub(crate) nodes: Vec<Arc<NodeShared>>,
    rt_report: Mutex<RtReport>,
}

impl Shared {
    pub(crate) fn new(estop: EStop, nodes: Vec<Arc<NodeShared>>) -> Self {
        Self {
            estop,
            stop: AtomicBool::new(false),
            ctl: AtomicU32::new(0),
            outcome: Mutex::new(None),
            nodes,
            rt_report: Mutex::new(RtReport::default()),
        }
    }

    /// Ends the run normally (the first reason recorded wins).
    pub(crate) fn request_stop(&self, reason: StopReason) {
        self.finish(Outcome::Stop(reason));
    }

    /// Ends the run with an error (the first reason recorded wins).
    pub(crate) fn fail(&self, err: RunError) {
        self.finish(Outcome::Fail(err));
    }

    fn finish(&self, o: Outcome) {
        {
            let mut g = lock(&self.outcome);
            if g.is_none() {
                *g = Some(o);
            }
        }
        // pairs with the Acquire load in Shared::stopping()
        self.stop.store(true, Ordering::Release);
        self.estop.kick();
        self.kick_ctl();
    }

    /// Whether the run is ending. Lanes look after every wake-up and between ticks.
    pub(crate) fn stopping(&self) -> bool {
        // pairs with the Release store in Shared::finish(): a thread that sees the flag also
        // sees the outcome recorded before it.
        self.stop.load(Ordering::Acquire)
    }

    /// The outcome recorded so far, taken (the run reads it once, at its end).
    pub(crate) fn take_outcome(&self) -> Option<Outcome> {
        lock(&self.outcome).take()
    }

    /// Wakes `run`'s wait loop and the watchdog.
    pub(crate) fn kick_ctl(&self) {
        // pairs with the Acquire loads of `ctl` before the futex waits in run::wait_for_end()
        // and watchdog::watch()
        self.ctl.fetch_add(1, Ordering::Release);
        futex::wake_all_private(&self.ctl);
    }

    /// Records one real-time action and what became of it.
    pub(crate) fn report_rt(&self, what: String, result: Result<(), String>) {
        lock(&self.rt_report).push(what, result);
    }

    /// The real-time report so far.
    pub(crate) fn rt_report(&self) -> RtReport {
        lock(&self.rt_report).clone()
    }

    /// Statistics so far, one entry per node in the order they were added.
    pub(crate) fn stats(&self) -> Vec<NodeStats> {
        self.nodes
            .iter()
            .map(|n| NodeStats::from_recorder(&n.name, n.rate_hz, &n.rec()))
            .collect()
    }
}

/// Per node, visible outside its lane: statistics and the watchdog's view.
pub(crate) struct NodeShared {
    pub(crate) name: String,
    rate_hz: f64,
    rec: Mutex<Recorder>,
    /// Monotonic ns when the running tick started; 0 when not in a tick.
    pub(crate) tick_started: AtomicU64,
    /// The `tick_started` value the watchdog already reported.
    pub(crate) hang_flagged: AtomicU64,
    /// Watchdog timeout; 0: not watched.
    pub(crate) watchdog_ns: u64,
    pub(crate) on_hang: HangPolicy,
}

impl NodeShared {
    pub(crate) fn new(name: String, rate_hz: f64, watchdog_ns: u64, on_hang: HangPolicy) -> Self {
        Self {
            name,
            rate_hz,
            rec: Mutex::new(Recorder::default()),
            tick_started: AtomicU64::new(0),
            hang_flagged: AtomicU64::new(0),
            watchdog_ns,
            on_hang,
        }
    }

    /// The node's statistics, locked.
    pub(crate) fn rec(&self) -> MutexGuard<'_, Recorder> {
        // A poisoned recorder only means a panic while recording; the data is still counts.
        lock(&self.rec)
    }
}
