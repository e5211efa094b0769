//! Actions: long-running goals with feedback, a result, cancel and reject.
//!
//! Built from three services and one topic, all named after the action `A`:
//! - `A/goal` (send a goal: accepted or rejected with a reason),
//! - `A/cancel` (ask to cancel a goal),
//! - `A/status` (status and result of a goal; what a client polls if it missed an event),
//! - `A/events`: every status change, feedback and result, broadcast to the action's clients,
//!   each keeping the events of its own goals.
//!
//! ```no_run
//! use nerve_rpc::action::{ActionClient, ActionServer, GoalOutcome};
//! use std::time::Duration;
//! let _server = ActionServer::<u32, u32, u64>::builder("fib")
//!     .serve(
//!         |n: &u32| if *n > 90 { Err("n must be at most 90".into()) } else { Ok(()) },
//!         |ctx, n| {
//!             let (mut a, mut b) = (0u64, 1u64);
//!             for i in 0..n {
//!                 if ctx.cancel_requested() {
//!                     return GoalOutcome::Canceled(Some(a));
//!                 }
//!                 (a, b) = (b, a + b);
//!                 ctx.feedback(i);
//!             }
//!             GoalOutcome::Succeeded(a)
//!         },
//!     )?;
//! let client = ActionClient::<u32, u32, u64>::builder("fib").open()?;
//! let goal = client.send_goal(10, Duration::from_secs(1))?;
//! let result = goal.wait(Duration::from_secs(5))?;
//! assert_eq!(result.result, Some(55));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod builder;
mod client;
mod protocol;
mod server;
mod types;

pub use self::builder::{ActionBuilder, ClientSide, ServerSide};
pub use self::client::{ActionClient, GoalHandle};
pub use self::server::{ActionServer, GoalContext};
pub use self::types::{GoalOutcome, GoalResult, GoalStatus, Payload};
