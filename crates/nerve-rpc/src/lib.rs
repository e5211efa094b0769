//! Services, actions and parameters over nerve's shared-memory topics (internal crate; users
//! reach it through the `nerve` facade).
//!
//! - [`Service`]: typed request/response, blocking [`Client::call`] with a timeout or
//!   [`Client::call_async`]; a [`Server`] with a worker pool. A dead or absent server is an
//!   error within the caller's timeout, never a hang.
//! - [`action`]: long-running goals with feedback, result, cancel and reject.
//! - [`param`]: typed, declared, validated node parameters, remote get/set/list, YAML files.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod action;
#[cfg(feature = "bench")]
pub mod bench;
pub mod error;
pub mod param;
pub mod service;
pub mod wire;

pub use action::{ActionClient, ActionServer, GoalHandle, GoalOutcome, GoalResult, GoalStatus};
pub use error::{ActionError, CallError, ParamError, ServeError};
pub use param::{ParamClient, ParamDescriptor, ParamValue, Parameters};
pub use service::{Client, RawClient, Server, ServerStats, Service, ServiceConfig};
