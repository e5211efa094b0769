//! Standard robotics message types for nerve, and the traits every message implements.
//!
//! Internal crate: users reach these through `nerve::msgs` and `nerve::prelude`.
//!
//! Three kinds of message cross a topic:
//! - [`FixedMessage`]: `#[repr(C)]` + [`bytemuck::Pod`]; copied into a ring slot with one memcpy.
//! - [`ChunkedMessage`]: a fixed [`ChunkedMessage::Header`] followed by any number of
//!   [`ChunkedMessage::Elem`]s, written in place into a shared chunk (loan → fill → send) and
//!   read without a copy.
//! - serde types, sent as MessagePack through the chunk path (see `nerve::Msgpack`).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod fingerprint;
pub mod layout;
#[macro_use]
mod macros;
pub mod geometry_msgs;
pub mod nav_msgs;
pub mod sensor_msgs;
pub mod std_msgs;

pub use fingerprint::{fnv1a, Fingerprint, MessageKind};
pub use geometry_msgs::*;
pub use layout::LayoutHash;
pub use nav_msgs::*;
pub use sensor_msgs::*;
pub use std_msgs::*;

#[doc(hidden)]
pub use bytemuck as __bytemuck;

/// Every message type: a stable name and a layout fingerprint checked when a topic is opened.
pub trait Message: Send + Sync + 'static {
    /// Fully qualified type name, e.g. `nerve/CmdVel`. Shown in errors and `nerve topic list`.
    const TYPE_NAME: &'static str;
    /// Name + size + alignment + field layout hash. Two processes that disagree on any of these
    /// get `TypeMismatch` when opening the same topic.
    const FINGERPRINT: Fingerprint;
}

/// A fixed-size message that is copied into the ring with one memcpy.
pub trait FixedMessage: Message + bytemuck::Pod {}

/// A variable-size message: a fixed header followed by `len` elements, carried in a shared
/// chunk so that publishing costs O(1) in the payload size.
pub trait ChunkedMessage: Message {
    /// The fixed part (dimensions, encoding, stamp, ...).
    type Header: bytemuck::Pod + Send + Sync;
    /// One element of the payload (`u8` for images, `f32` for laser ranges, ...).
    type Elem: bytemuck::Pod + Send + Sync;
}
