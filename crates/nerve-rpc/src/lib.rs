//! Services, actions and parameters over nerve's shared-memory topics (internal crate; users
//! reach it through the `nerve` facade).
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
//! - The server publishes a liveness record on `S/server` (pid, process start time, up/down).
//!   A caller checks it before sending ([`CallError::NoServer`] at once) and every 20 ms while
//!   it waits ([`CallError::ServerDied`] within ~20 ms of a `kill -9`), so no call outlives its
//!   timeout. One server per service ([`ServeError::AlreadyServed`]).
//! - Frames carry a call number and the caller's deadline: the server skips requests whose
//!   caller has given up, and a late response is discarded by the client, never handed to
//!   another call.
//!
//! # Actions and parameters
//! See [`action`] (goals with feedback, result, cancel, reject, several goals at once) and
//! [`param`] (declared, validated, remotely settable parameters; YAML files).
//!
//! # For bindings
//! [`RawClient::call_bytes`] and [`Server::start`] with a bytes handler carry MessagePack
//! bytes, so a binding encodes and decodes on its side (a Python dict with the field names of a
//! Rust struct interoperates: requests are encoded with named fields).
#![warn(missing_docs)]

pub mod action;
pub mod error;
pub mod param;
pub mod service;
pub mod wire;

pub use action::{ActionClient, ActionServer, GoalHandle, GoalOutcome, GoalResult, GoalStatus};
pub use error::{ActionError, CallError, ParamError, ServeError};
pub use param::{ParamClient, ParamDescriptor, ParamValue, Parameters};
pub use service::{
    Client, Failure, RawClient, RawResult, Server, ServerStats, Service, ServiceConfig,
};
