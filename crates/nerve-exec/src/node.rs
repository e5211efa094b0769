//! The `Node` trait and the `Context` a node sees while it runs.

use std::time::Duration;

use crate::error::StopReason;
use crate::estop::EStop;
use crate::shared::Shared;

/// Error a node returns from [`Node::init`]: anything that can say what went wrong.
pub type NodeError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A unit of work the [`Scheduler`](crate::Scheduler) runs: initialised once, ticked on its
/// timeline (or when its wake source has data), shut down once.
///
/// Every method runs on the node's own lane thread, so a node needs `Send` but not `Sync`.
/// A panic in any method is caught and handled by the node's
/// [`FailurePolicy`](crate::FailurePolicy).
pub trait Node: Send + 'static {
    /// The node's name, unique within a scheduler; used in statistics, logs and errors.
    fn name(&self) -> &str;

    /// Called once before the first tick (and again after a restart). An error stops the
    /// scheduler before any node ticks.
    fn init(&mut self, ctx: &mut Context<'_>) -> Result<(), NodeError> {
        let _ = ctx;
        Ok(())
    }

    /// One period's (or one event's) work.
    fn tick(&mut self, ctx: &mut Context<'_>);

    /// Called once when the scheduler stops (duration over, stop requested, SIGINT/SIGTERM).
    fn shutdown(&mut self, ctx: &mut Context<'_>) {
        let _ = ctx;
    }

    /// Called once when the node enters its safe state (e-stop, or its miss policy is
    /// [`MissPolicy::SafeState`](crate::MissPolicy::SafeState)). Ticks continue afterwards with
    /// [`Context::in_safe_state`] returning `true`, so a node can keep holding its safe output.
    fn on_safe_state(&mut self, ctx: &mut Context<'_>) {
        let _ = ctx;
    }
}

/// What a node sees of the scheduler while one of its methods runs.
pub struct Context<'a> {
    pub(crate) now: Duration,
    pub(crate) planned: Duration,
    pub(crate) tick: u64,
    pub(crate) safe: bool,
    pub(crate) shared: &'a Shared,
}

impl Context<'_> {
    /// Time since the scheduler started, on its clock (monotonic, or simulated in
    /// deterministic mode), read when this call began.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// The planned start of this tick on the scheduler's timeline (`k · period`); for event
    /// nodes the time of the wake-up.
    pub fn planned(&self) -> Duration {
        self.planned
    }

    /// The tick index `k` on the node's timeline: planned start = start + `k` · period.
    /// Skipped ticks leave gaps; event nodes count wake-ups.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The scheduler's e-stop, to trigger it or check it.
    pub fn estop(&self) -> &EStop {
        &self.shared.estop
    }

    /// Triggers the e-stop: every node of the scheduler enters its safe state.
    pub fn trigger_estop(&self, reason: &str) {
        self.shared.estop.trigger(reason);
    }

    /// Whether this node is in its safe state ([`Node::on_safe_state`] has run).
    pub fn in_safe_state(&self) -> bool {
        self.safe
    }

    /// Asks the scheduler to stop after the current ticks; every node's `shutdown` runs.
    pub fn request_stop(&self) {
        self.shared.request_stop(StopReason::Requested);
    }

    /// Whether the scheduler is stopping.
    pub fn stopping(&self) -> bool {
        self.shared.stopping()
    }
}
