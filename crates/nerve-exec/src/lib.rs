//! Internal: nodes and the scheduler for nerve (users reach it as `nerve::exec`).
//!
//! A [`Node`] is initialised once, ticked on an absolute timeline (tick `k` planned at
//! start + `k`·period, so lateness never accumulates), and shut down once. The [`Scheduler`]
//! runs nodes on lanes (threads): one per real-time class asked for, one compute lane, one per
//! event node. It measures every tick against its *planned* start, applies miss, failure and
//! hang policies, runs a watchdog, carries an [`EStop`] that puts every node into its safe
//! state, and stops cleanly on SIGINT/SIGTERM.
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
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod aio;
#[cfg(feature = "bench")]
pub mod bench;
mod estop;
mod node;
mod policy;
mod remote;
mod rt;
mod scheduler;
mod signal;
mod stats;
mod time;
mod wake;

pub use estop::EStop;
pub use node::{Context, Node, NodeError};
pub use policy::{ExecClass, FailurePolicy, HangPolicy, MissPolicy};
pub use remote::{
    trigger_remote_estop, EStopMsg, Inbox, Received, TopicSource, ESTOP_REASON_LEN, ESTOP_TOPIC,
};
pub use rt::{RtAction, RtReport};
pub use scheduler::{
    BuildError, NodeEntry, RunError, Scheduler, SchedulerBuilder, SchedulerHandle, StopReason,
};
pub use stats::{format_table, Histogram, NodeStats, Summary};
pub use time::{mono_ns, SimClock};
pub use wake::{Notify, WakeSource};

/// The types most programs need: `use nerve_exec::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Context, EStop, ExecClass, FailurePolicy, HangPolicy, MissPolicy, Node, NodeError, Notify,
        Scheduler, SimClock, StopReason,
    };
}
