//! Services, actions and parameters over nerve's shared-memory topics (internal crate; users
//! reach it through the `nerve` facade, as `nerve::rpc`). The items re-exported here are the
//! whole API; the modules are the crate's own.
//!
//! # Services
//! ```no_run
//! use nerve_rpc::{CallError, Service};
//! use std::time::Duration;
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Plan { goal: [f64; 2] }
//! let plan = Service::<Plan, Vec<[f64; 2]>>::builder("arm/plan").domain(7).build();
//! let _server = plan.server().workers(4).serve(|req: Plan| Ok(vec![[0.0, 0.0], req.goal]))?;
//! let client = plan.client()?;
//! match client.call(&Plan { goal: [1.0, 2.0] }, Duration::from_millis(50)) {
//!     Ok(path) => assert_eq!(path.len(), 2),
//!     Err(CallError::NoServer { .. } | CallError::ServerDied { .. }) => { /* restart it */ }
//!     Err(e) => return Err(e.into()),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! - Requests go to `S/request`, a **reliable** topic: a caller waits for room at most its
//!   timeout, so a request is never dropped silently.
//! - Each client has its own best-effort response topic `S/response/<client id>`: a response
//!   wakes only its caller (a shared response topic would wake every waiting client on each
//!   response), and a dead client's topic can never block the server.
//! - The server publishes a liveness record on `S/server` (pid, life token, up/down).
//!   A caller checks it before sending ([`CallError::NoServer`] at once) and every 20 ms while
//!   it waits ([`CallError::ServerDied`] within ~20 ms of a `kill -9`), so no call outlives its
//!   timeout. One server per service ([`ServeError::AlreadyServed`]).
//! - Frames carry a call number and the caller's deadline: the server skips requests whose
//!   caller has given up, and a late response is discarded by the client, never handed to
//!   another call.
//!
//! # Actions
//! Long-running goals with feedback, a result, cancel and reject.
//!
//! Built from three services and one topic, all named after the action `A`:
//! - `A/goal` (send a goal: accepted or rejected with a reason),
//! - `A/cancel` (ask to cancel a goal),
//! - `A/status` (status and result of a goal; what a client polls if it missed an event),
//! - `A/events`: every status change, feedback and result, broadcast to the action's clients,
//!   each keeping the events of its own goals.
//!
//! ```no_run
//! use nerve_rpc::{ActionClient, ActionServer, GoalOutcome};
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
//!
//! # Parameters
//! Node parameters: typed, declared with a default, a range and a description; validated on
//! every change; readable and settable from other processes through the services
//! `<node>/param/get`, `<node>/param/set` and `<node>/param/list`; loaded from and dumped to
//! YAML (`node: {ros__parameters: {name: value}}` or `node: {name: value}`).
//!
//! ```no_run
//! use nerve_rpc::{ParamClient, ParamDescriptor, Parameters};
//! use std::time::Duration;
//! let params = Parameters::new("camera");
//! params.declare(ParamDescriptor::new("fps", 30).int_range(1, 120).description("frame rate"))?;
//! params.on_change(|name, value| match (name, value.as_int()) {
//!     ("fps", Some(v)) if v % 5 != 0 => Err("fps must be a multiple of 5".into()),
//!     _ => Ok(()),
//! });
//! let _served = params.serve()?;
//! let remote = ParamClient::new("camera")?;
//! remote.set("fps", 60.into(), Duration::from_secs(1))?;
//! assert_eq!(params.get("fps").unwrap().as_int(), Some(60));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # For bindings
//! [`RawClient::call_bytes`] and [`Server::start`] with a [`RawHandler`] carry MessagePack
//! bytes, so a binding encodes and decodes on its side (a Python dict with the field names of a
//! Rust struct interoperates: requests are encoded with named fields); a handler's
//! [`Failure`] reaches the caller as [`CallError::Handler`] or [`CallError::BadRequest`].
//! [`ServiceConfig`] (from [`Service::config`]) carries a service's settings to both. Actions
//! and parameters are generic over serde types, so a binding uses them with a dynamic value
//! type of its own.
#![warn(missing_docs)]

mod action;
pub mod discovery;
mod error;
mod interface;
mod param;
mod service;
mod wire;

pub use action::{
    ActionBuilder, ActionClient, ActionServer, ClientSide, GoalContext, GoalHandle, GoalOutcome,
    GoalResult, GoalStatus, Payload, ServerSide,
};
pub use error::{ActionError, CallError, ParamError, ServeError};
pub use param::{
    ParamClient, ParamDescriptor, ParamInfo, ParamRange, ParamServer, ParamType, ParamValue,
    Parameters,
};
pub use service::{
    Client, DeferredHandler, Failure, RawClient, RawHandler, RawResult, Responder, Server,
    ServerBuilder, ServerStats, Service, ServiceBuilder, ServiceConfig, MAX_WORKERS,
};
