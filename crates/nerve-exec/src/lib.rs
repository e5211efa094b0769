//! Internal: nodes and the scheduler for nerve (users reach it as `nerve::exec`).
//!
//! A [`Node`] is initialised once, ticked on an absolute timeline (tick `k` planned at
//! start + `k`·period, so lateness never accumulates), and shut down once. The [`Scheduler`]
//! runs nodes on lanes: one thread per real-time class asked for, the compute pool, one
//! thread per event node, and a tokio runtime for async nodes. It measures every tick against
//! its *planned* start, applies miss, failure and hang policies, runs a watchdog, carries an
//! [`EStop`] that puts every node into its safe state, and stops cleanly on SIGINT/SIGTERM.
//!
//! ```
//! use nerve_exec::prelude::*;
//! use std::time::Duration;
//!
//! struct Controller { cmd: f64 }
//! impl Node for Controller {
//!     fn name(&self) -> &str { "controller" }
//!     fn tick(&mut self, ctx: &mut Context<'_>) {
//!         self.cmd = if ctx.in_safe_state() { 0.0 } else { 1.0 };
//!     }
//!     fn on_safe_state(&mut self, _ctx: &mut Context<'_>) { self.cmd = 0.0; }
//! }
//!
//! let mut sched = Scheduler::builder()
//!     .print_stats(false)
//!     .node(Controller { cmd: 0.0 })
//!         .rate(1000.0)
//!         .deadline(Duration::from_micros(500))
//!         .on_miss(MissPolicy::Warn)
//!         .on_panic(FailurePolicy::Restart { max: 3, backoff: Duration::from_millis(10) })
//!     .build()?;
//! sched.run_for(Duration::from_millis(50))?;
//! assert!(sched.stats()[0].ticks() > 10);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # How it runs
//! - **Lanes.** Nodes with `ExecClass::Rt { priority, cpu }` share one thread per
//!   `(priority, cpu)`; `SCHED_FIFO`, pinning and `mlockall` happen only for them, and what the
//!   OS refused is in [`Scheduler::rt_report`] (and a `tracing` warning) while the node runs
//!   anyway. `Compute` nodes run on the compute pool
//!   ([`SchedulerBuilder::compute_threads`], default: the CPUs available): nodes due at the
//!   same instant with the same `order` run in parallel, a larger `order` after the smaller
//!   ones have finished. `Event` nodes get a thread each, blocked in their [`WakeSource`]
//!   (e.g. a [`TopicSource`] over a subscriber's `recv_timeout`). `Async` nodes are tasks on
//!   a tokio runtime the scheduler owns ([`SchedulerBuilder::async_threads`]), woken for each
//!   tick by the timer of [`aio`]; their methods can spawn async work onto that runtime and
//!   must not block.
//! - **Timeline.** Tick `k` is planned at start + ⌈k·10⁹/hz⌉ ns; lateness = actual start −
//!   planned start; a miss is end − *planned* start > deadline (default one period), so a tick
//!   that starts late and runs short still counts. A node that falls more than a period behind
//!   skips to the latest planned tick (counted in `skipped`) instead of bunching up.
//! - **Sleeping.** Lanes sleep with `FUTEX_WAIT_BITSET` on an absolute `CLOCK_MONOTONIC`
//!   deadline: the same kernel hrtimer as `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`,
//!   chosen because a futex wake ends it at once, which is what lets an e-stop reach a node that
//!   is asleep for a whole period. RT lanes then spin the last 50 µs
//!   ([`SchedulerBuilder::spin`]); every lane sets its timer slack to 1 ns.
//! - **Safe state.** The [`EStop`] latches; a trigger first wakes every lane (one futex wake
//!   on a word only the lanes sleep on), then records its reason and logs. Each node's
//!   `on_safe_state` runs once on its own lane, and ticks continue with
//!   [`Context::in_safe_state`] true so a node can hold its safe output. Non-RT lanes are
//!   normal threads and can wait behind other work for their wake-up;
//!   [`SchedulerBuilder::estop_priority`] (explicit, like all RT) lets them wait at
//!   `SCHED_FIFO` and drop to normal priority before ticking, so the safe state reaches them
//!   as fast as RT lanes. [`SchedulerBuilder::estop_topic`] connects the e-stop to
//!   `nerve/estop` so any process can trigger it ([`trigger_remote_estop`]) and local triggers
//!   reach the others.
//! - **Failures.** Panics are caught per call (`catch_unwind`) and handled by the node's
//!   [`FailurePolicy`]; a watchdog thread reports a node stuck in one tick per its
//!   [`HangPolicy`] (a stuck thread cannot be killed: `Stop` abandons its lane after
//!   [`SchedulerBuilder::shutdown_timeout`] and says whose `shutdown` did not run).
//! - **Shutdown.** `run` installs SIGINT/SIGTERM handlers (an atomic flag and a futex wake;
//!   previous handlers restored afterwards); every node's `shutdown` runs, then the
//!   statistics table ([`Scheduler::stats_table`]) is printed.
//! - **Deterministic mode** ([`SchedulerBuilder::deterministic`]) runs every node on the
//!   caller's thread on a [`SimClock`] in a fixed order: 10 simulated seconds in milliseconds,
//!   identical results run after run.
#![warn(missing_docs)]

// The files, each depending only on files above it in this list (no import circles):
// - the vocabulary, depending on no other file: `error` (how runs end), `policy`, `rt` (OS
//   real-time calls and their report), `stats`, `time` (clocks, interruptible sleep), `wake`,
//   `estop`, `signal` (SIGINT/SIGTERM);
// - `shared`: what a run's threads share (stop flag, outcome, per-node statistics);
// - `node`: the `Node` trait and the `Context` a node sees (on `shared`);
// - `timer` (the async API's precise timer), `remote` (the e-stop topic, topic wake
//   sources), `aio` (the async API);
// - `scheduler/`: builder → slot (one node on its lane) → pool (the compute pool) → lane →
//   plan (options to lanes), watchdog, idle (pollers), run (the phases of a run) → `mod.rs`
//   (`Scheduler`), see its module doc.
pub mod aio;
pub mod announce;
mod error;
mod estop;
mod node;
mod policy;
mod remote;
mod rt;
mod scheduler;
mod shared;
mod signal;
mod stats;
mod time;
mod timer;
mod wake;

pub use error::{BuildError, RunError, StopReason};
pub use estop::EStop;
pub use node::{Context, Node, NodeError};
pub use policy::{ExecClass, FailurePolicy, HangPolicy, MissPolicy};
pub use remote::{
    trigger_remote_estop, EStopMsg, Inbox, TopicSource, ESTOP_REASON_LEN, ESTOP_TOPIC,
};
pub use rt::{RtAction, RtReport};
pub use scheduler::{NodeEntry, Scheduler, SchedulerBuilder, SchedulerHandle};
pub use stats::{format_table, Histogram, NodeStats, Summary};
pub use time::SimClock;
pub use wake::{Notify, WakeSource};

/// The types most programs need: `use nerve_exec::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Context, EStop, ExecClass, FailurePolicy, HangPolicy, MissPolicy, Node, NodeError, Notify,
        Scheduler, SimClock, StopReason,
    };
}
