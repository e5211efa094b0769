//! nerve's C ABI: `libnerve_c` and its header `include/nerve.h` (generated from this crate by
//! `cbindgen`; `tests/header.rs` fails when the committed header is stale).
//!
//! Conventions (`docs/design/c-api.md`):
//! - every call returns a status (`NERVE_OK`, `NERVE_EMPTY`, or a negative `NERVE_E_*`), and
//!   `nerve_last_error()` gives the failed call's text, the same as nerve's Rust errors;
//! - handles are opaque pointers; closing one twice or using it after close is
//!   `NERVE_E_CLOSED`, a NULL handle or argument `NERVE_E_INVALID_ARGUMENT`;
//! - buffers are the caller's; no Rust panic crosses into C (`NERVE_E_PANIC`).

#![warn(missing_docs)]

pub mod chunk;
pub mod declare;
mod handle;
pub mod log;
pub mod params;
pub mod service;
mod slots;
pub mod standard;
pub mod status;
pub mod topic;
pub mod watch;

pub use chunk::*;
pub use declare::*;
pub use log::*;
pub use params::*;
pub use service::*;
pub use standard::*;
pub use status::*;
pub use topic::*;
pub use watch::*;
