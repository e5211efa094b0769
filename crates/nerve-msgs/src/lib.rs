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
//! - Codes (`Encoding`, `PointFormat`, `DistortionModel`, `NodeState`, `MarkerType`, ...) are
//!   stored as raw integers (the width ROS uses where there is a ROS counterpart) and decoded
//!   with `from_raw`, which returns `None` for a value another process made up.
//! - Booleans are `u8` (0 or 1): `bool` is not Pod.
//!
//! # The standard set (sizes are checked by `tests/sizes.rs`)
//! Every message names its ROS 2 counterpart in its schema (`Schema::ros2`); `docs/messages.md`
//! maps each one field by field. Fixed capacities (text, bounded lists) are constants on the
//! types, and their setters refuse ([`TextError`], [`TooMany`]) rather than truncate.
//!
//! | message | kind | bytes |
//! |---|---|---|
//! | [`Bool`], [`Int8`], [`UInt8`] | fixed | 1 |
//! | [`Int16`], [`UInt16`] | fixed | 2 |
//! | [`Int32`], [`UInt32`], [`Float32`] | fixed | 4 |
//! | [`Time`], [`Int64`], [`UInt64`], [`Float64`] | fixed | 8 |
//! | [`Point32`] | fixed | 12 |
//! | [`CmdVel`], [`Clock`], [`ColorRGBA`] | fixed | 16 |
//! | [`RegionOfInterest`] | fixed | 20 |
//! | [`Vector3`], [`Point`], [`Pose2D`] | fixed | 24 |
//! | [`Quaternion`], [`Heartbeat`] | fixed | 32 |
//! | [`BoundingBox2D`] | fixed | 40 |
//! | [`Header`], [`Twist`], [`Wrench`], [`Accel`] | fixed | 48 |
//! | [`Pose`], [`Transform`] | fixed | 56 |
//! | [`Inertia`] | fixed | 80 |
//! | [`Temperature`], [`FluidPressure`], [`RelativeHumidity`], [`Illuminance`] | fixed | 64 |
//! | [`PointStamped`], [`Vector3Stamped`], [`Range`] | fixed | 72 |
//! | [`QuaternionStamped`], [`MapMetaData`], [`BoundingBox3D`] | fixed | 80 |
//! | [`TwistStamped`], [`WrenchStamped`], [`AccelStamped`] | fixed | 96 |
//! | [`BatteryState`] | fixed | 104 |
//! | [`PoseStamped`] | fixed | 104 |
//! | [`InertiaStamped`] | fixed | 128 |
//! | [`TransformStamped`] | fixed | 136 |
//! | [`MagneticField`] | fixed | 144 |
//! | [`NavSatFix`] | fixed | 152 |
//! | [`TwistWithCovariance`], [`AccelWithCovariance`] | fixed | 336 |
//! | [`Imu`], [`PoseWithCovariance`] | fixed | 344 |
//! | [`CameraInfo`] | fixed | 368 |
//! | [`TwistWithCovarianceStamped`], [`AccelWithCovarianceStamped`] | fixed | 384 |
//! | [`PoseWithCovarianceStamped`] | fixed | 392 |
//! | [`Joy`] | fixed | 440 (≤ 32 axes, ≤ 64 buttons) |
//! | [`Odometry`] | fixed | 760 |
//! | [`Detection2D`] | fixed | 1664 (≤ 4 hypotheses) |
//! | [`Detection3D`] | fixed | 1704 (≤ 4 hypotheses) |
//! | [`Text`] (ROS `String`) | chunked | 4 header + 1 per UTF-8 byte |
//! | [`Float32MultiArray`] … [`UInt64MultiArray`], [`ByteMultiArray`] (11 types) | chunked | 328 header (≤ 8 dimensions) + the element type's size per element |
//! | [`Polygon`] | chunked | 4 header + 12 per vertex ([`Point32`]) |
//! | [`PolygonStamped`] | chunked | 48 header + 12 per vertex ([`Point32`]) |
//! | [`JointState`] | chunked | 56 header + 24 per joint ([`JointSample`]) |
//! | [`LaserScan`] | chunked | 80 header + 4 per range (`f32`); 1520 with 360 ranges |
//! | [`Image`] | chunked | 64 header + `step × height` bytes |
//! | [`DepthImage`] | chunked | 72 header + `step × height` bytes |
//! | [`CompressedImage`] | chunked | 80 header + the encoded bytes |
//! | [`PointCloud`] | chunked | 72 header + `width × height × point_step` bytes |
//! | [`PointCloud2`] | chunked | 776 header (≤ 16 [`PointField`]s) + `row_step × height` bytes |
//! | [`OccupancyGrid`] | chunked | 128 header + 1 per cell (`i8`) |
//! | [`Path`] | chunked | 48 header + 104 per pose ([`PoseStamped`]) |
//! | [`TFMessage`] | chunked | 4 header + 136 per transform ([`TransformStamped`]) |
//! | [`DiagnosticStatus`] | chunked | 260 header + 192 per value ([`KeyValue`]) |
//! | [`DiagnosticArray`] | chunked | 48 header + 260 per status or value ([`DiagnosticEntry`]) |
//! | [`Detection2DArray`] | chunked | 48 header + 1664 per detection ([`Detection2D`]) |
//! | [`Detection3DArray`] | chunked | 48 header + 1704 per detection ([`Detection3D`]) |
//! | [`Marker`] | chunked | 456 header + 40 per point ([`MarkerPoint`]) |
//! | [`Tensor`] | chunked | 192 header (≤ 8 dimensions) + the elements' bytes |
//!
//! Declare your own with `#[derive(Message)]` (see [`schema`]): one definition gives the
//! layout checks, the runtime schema and the fingerprint.
#![warn(missing_docs)]

pub mod declare;
pub mod described;
mod diagnostic_msgs;
pub mod dynamic;
mod fingerprint;
mod geometry_msgs;
mod limits;
mod nav_msgs;
mod point_cloud;
pub mod schema;
mod sensor_msgs;
pub mod serde_doc;
mod standard;
mod std_msgs;
mod tensor;
mod tf2_msgs;
mod vision_msgs;
mod visualization_msgs;

pub use diagnostic_msgs::*;
pub use fingerprint::{fnv1a, mix, Fingerprint, MessageKind};
pub use geometry_msgs::*;
pub use limits::{TextError, TooMany};
pub use nav_msgs::*;
pub use point_cloud::*;
pub use sensor_msgs::*;
pub use standard::{
    standard, standard_named, standard_struct, StandardStruct, STANDARD, STANDARD_STRUCTS,
};
pub use std_msgs::*;
pub use tensor::{DType, Device, Tensor, TensorHeader};
pub use tf2_msgs::*;
pub use vision_msgs::*;
pub use visualization_msgs::*;

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

    /// The description a topic of this type carries, encoded: a described type's layout
    /// ([`described::TypeDoc`]), a MessagePack type's fields ([`serde_doc::SerdeDoc`]); empty
    /// for a type without one.
    fn description_bytes() -> Vec<u8> {
        Self::DESCRIPTION
            .map(|s| described::TypeDoc::of(s).to_bytes())
            .unwrap_or_default()
    }
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
