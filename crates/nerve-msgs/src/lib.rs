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
//!
//! # Conventions
//! - Instants are `u64` nanoseconds named `*_ns` (Unix epoch, or simulation start under a
//!   [`Clock`]); SI units everywhere else, stated on every field.
//! - Every layout is `#[repr(C)]` with explicit `_pad` fields (write zero): no implicit padding,
//!   so the bytes are fully defined and the same struct can be declared in C and numpy.
//! - Frame names are fixed `[u8; 32]` NUL-padded UTF-8, at most 31 bytes, set through
//!   `set_frame_id` / `set_child_frame_id`, which reject (never truncate) a longer name.
//! - Codes (`Encoding`, `PointFormat`, `DistortionModel`, `NodeState`) are stored as raw `u32`
//!   and decoded with `from_raw`, which returns `None` for a value another process made up.
//!
//! # The standard set (sizes are checked by `tests/sizes.rs`)
//! | message | kind | bytes |
//! |---|---|---|
//! | [`Time`] | fixed | 8 |
//! | [`CmdVel`], [`Clock`] | fixed | 16 |
//! | [`Vector3`], [`Pose2D`] | fixed | 24 |
//! | [`Quaternion`], [`Heartbeat`] | fixed | 32 |
//! | [`Header`], [`Twist`] | fixed | 48 |
//! | [`Pose`], [`Transform`] | fixed | 56 |
//! | [`BatteryState`] | fixed | 104 |
//! | [`TransformStamped`] | fixed | 136 |
//! | [`Imu`] | fixed | 344 |
//! | [`CameraInfo`] | fixed | 368 |
//! | [`Odometry`] | fixed | 760 |
//! | [`JointState`] | chunked | 56 header + 24 per joint ([`JointSample`]) |
//! | [`LaserScan`] | chunked | 80 header + 4 per range (`f32`); 1520 with 360 ranges |
//! | [`Image`] | chunked | 64 header + `step × height` bytes |
//! | [`DepthImage`] | chunked | 72 header + `step × height` bytes |
//! | [`PointCloud`] | chunked | 72 header + `width × height × point_step` bytes |
//!
//! Declare your own with `#[derive(Message)]` (see [`schema`]): one definition gives the
//! layout checks, the runtime schema and the fingerprint.
#![warn(missing_docs)]

pub mod described;
pub mod dynamic;
mod fingerprint;
pub mod geometry_msgs;
pub mod nav_msgs;
pub mod point_cloud;
pub mod schema;
pub mod sensor_msgs;
mod standard;
pub mod std_msgs;

pub use fingerprint::{fnv1a, mix, Fingerprint, MessageKind};
pub use geometry_msgs::*;
pub use nav_msgs::*;
pub use point_cloud::*;
pub use sensor_msgs::*;
pub use standard::{standard, standard_struct, StandardStruct, STANDARD, STANDARD_STRUCTS};
pub use std_msgs::*;

#[doc(hidden)]
pub use bytemuck as __bytemuck;

/// `#[derive(Message)]`: the one definition of a message type (see [`schema`]).
pub use nerve_derive::Message;

/// Every message type: a stable name and a layout fingerprint checked when a topic is opened.
pub trait Message: Send + Sync + 'static {
    /// Fully qualified type name, e.g. `nerve/CmdVel`. Shown in errors and `nerve topic list`.
    const TYPE_NAME: &'static str;
    /// Name + size + alignment + field layout hash. Two processes that disagree on any of these
    /// get `TypeMismatch` when opening the same topic.
    const FINGERPRINT: Fingerprint;
    /// How the message crosses a topic: [`Fixed`], [`Chunked`] or [`Serialized`].
    type Kind: kind::Kind;
    /// The type's runtime description, for types that have one (every `#[derive(Message)]`
    /// type).
    const DESCRIPTION: Option<&'static schema::Schema> = None;
}

/// Marker types naming how a message crosses a topic (the facade implements its codecs on them).
pub mod kind {
    /// Implemented by the three markers below.
    pub trait Kind: Send + Sync + 'static {}
    /// Copied into a ring slot.
    pub struct Fixed;
    /// Header + elements in a shared chunk.
    pub struct Chunked;
    /// MessagePack bytes in a shared chunk.
    pub struct Serialized;
    impl Kind for Fixed {}
    impl Kind for Chunked {}
    impl Kind for Serialized {}
}
pub use kind::{Chunked, Fixed, Serialized};

/// A fixed-size message that is copied into the ring with one memcpy.
pub trait FixedMessage: Message<Kind = Fixed> + bytemuck::Pod {}

/// A variable-size message: a fixed header followed by `len` elements, carried in a shared
/// chunk so that publishing costs O(1) in the payload size.
pub trait ChunkedMessage: Message<Kind = Chunked> {
    /// The fixed part (dimensions, encoding, stamp, ...).
    type Header: bytemuck::Pod + Send + Sync;
    /// One element of the payload (`u8` for images, `f32` for laser ranges, ...).
    type Elem: bytemuck::Pod + Send + Sync;
}
