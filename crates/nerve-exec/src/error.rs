//! How a run ends ([`StopReason`], [`RunError`]) and why a scheduler refused to build
//! ([`BuildError`]).

use std::time::Duration;

/// Why a scheduler stopped normally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The duration given to [`Scheduler::run_for`](crate::Scheduler::run_for) is over.
    Elapsed,
    /// [`SchedulerHandle::stop`](crate::SchedulerHandle::stop) or
    /// [`Context::request_stop`](crate::Context::request_stop) was called.
    Requested,
    /// SIGINT or SIGTERM arrived (the signal number).
    Signal(i32),
}

/// Why a scheduler's options were refused by
/// [`SchedulerBuilder::build`](crate::SchedulerBuilder::build).
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
    /// A rate outside `nerve_transport::time::checked_hz`'s range.
    #[error("node {node:?} has rate {hz} Hz: a rate must be finite, from one a week to 1 MHz")]
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

/// Why [`Scheduler::run`](crate::Scheduler::run) ended abnormally. Every node's `shutdown`
/// still ran, except where stated.
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
    /// A node whose budget policy is `Stop` ran a tick longer than its budget.
    #[error("node {node:?} used {used:?} in one tick, over its budget of {budget:?} (budget policy: stop)")]
    BudgetOverrun {
        /// The node.
        node: String,
        /// How long the tick ran.
        used: Duration,
        /// Its budget.
        budget: Duration,
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
