//! What a node asks of the scheduler: execution class and the policies for misses, panics and
//! hangs.

use std::time::Duration;

/// Where and how a node's ticks run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ExecClass {
    /// A real-time lane: its own thread with `SCHED_FIFO` at `priority` (1–99), pinned to
    /// `cpu` when given, and `mlockall` for the process. Asked for explicitly, never implied;
    /// if not permitted the node runs anyway and [`Scheduler::rt_report`](crate::Scheduler::rt_report)
    /// says what could not be done. Nodes with the same `priority` and `cpu` share one thread.
    Rt {
        /// `SCHED_FIFO` priority, 1 (lowest) to 99.
        priority: u8,
        /// CPU to pin the lane's thread to.
        cpu: Option<usize>,
    },
    /// The compute pool: normal (`SCHED_OTHER`) threads, as many as
    /// [`SchedulerBuilder::compute_threads`](crate::SchedulerBuilder::compute_threads) (default:
    /// the CPUs available). Nodes due at the same instant with the same
    /// [`order`](crate::NodeEntry::order) run in parallel. The default.
    #[default]
    Compute,
    /// A task on the scheduler's tokio runtime (one lane thread; more with
    /// [`SchedulerBuilder::async_threads`](crate::SchedulerBuilder::async_threads)), woken
    /// for each planned tick by nerve's precise timer. Inside `tick`, `init` and `shutdown`,
    /// `tokio::spawn` / [`aio::spawn`](crate::aio::spawn) put async work (I/O, requests,
    /// subscriptions as streams) on the same runtime. Ticks share the runtime's threads, so
    /// they must not block: hand slow work to a spawned task. Thousands of such nodes cost
    /// no thread each.
    Async,
    /// Runs only when its wake source ([`NodeEntry::wake_on`](crate::NodeEntry::wake_on)) has
    /// data; one thread per event node, blocked in the source's wait (no polling loop).
    Event,
}

/// What happens when a tick misses its deadline (end − planned start > deadline).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MissPolicy {
    /// Count it and log a warning (the 1st, 2nd, 4th, 8th … miss, so logs do not flood).
    #[default]
    Warn,
    /// Count it and skip the node's next tick to shed load.
    Skip,
    /// Count it and put this node into its safe state (`on_safe_state` runs).
    SafeState,
    /// Count it and stop the scheduler: `run` returns [`RunError::DeadlineMissed`](crate::RunError::DeadlineMissed).
    Stop,
}

/// What happens when a node's `tick` (or `init` after a restart) panics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FailurePolicy {
    /// Re-run `init` and resume ticking after `backoff`, doubled after every restart; after
    /// `max` restarts the next panic is fatal.
    Restart {
        /// Restarts allowed.
        max: u32,
        /// Wait before the first restart (doubles each time).
        backoff: Duration,
    },
    /// Count the panic and carry on with the next tick.
    Skip,
    /// Stop the scheduler: `run` returns [`RunError::NodePanicked`](crate::RunError::NodePanicked).
    #[default]
    Fatal,
}

/// What the watchdog does when a node stays inside one tick longer than its watchdog timeout.
///
/// A hung thread cannot be killed safely; the watchdog reports it and protects the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HangPolicy {
    /// Count it and log an error.
    Warn,
    /// Count it and trigger the e-stop: every other node enters its safe state.
    #[default]
    EStop,
    /// Count it and stop the scheduler: `run` returns [`RunError::NodeHung`](crate::RunError::NodeHung)
    /// (nodes sharing the hung node's thread cannot run `shutdown`; the error lists them).
    Stop,
}
