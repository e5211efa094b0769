//! Actions (described, with an example, in the crate docs): goals with feedback, a result,
//! cancel and reject, built from three services and one topic named after the action.
//!
//! Files: `types.rs` (the value types), `builder.rs` ([`ActionBuilder`]), `protocol.rs` (what
//! crosses the services and the events topic), `server.rs` ([`ActionServer`], [`GoalContext`]),
//! `client.rs` ([`ActionClient`], [`GoalHandle`]).

mod builder;
mod client;
mod protocol;
mod server;
mod types;

pub use self::builder::{ActionBuilder, ClientSide, ServerSide};
pub use self::client::{ActionClient, GoalHandle};
pub use self::server::{ActionServer, GoalContext};
pub use self::types::{GoalOutcome, GoalResult, GoalStatus, Payload};
