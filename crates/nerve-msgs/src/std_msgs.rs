//! Basic messages: time, the common [`Header`], the sim [`Clock`], node [`Heartbeat`]s and
//! [`CmdVel`]. Sizes are part of the contract and checked by tests.
//!
//! **Time convention, used by every message in this crate:** a `u64` count of nanoseconds,
//! named `*_ns`. Wall-clock stamps count from the Unix epoch (UTC); under simulation they count
//! from the start of the simulation, as published on the [`Clock`] topic.

use core::fmt;

use crate::limits::{read_list, read_text, write_list, write_text, TextError, TooMany};

/// Bytes of a frame name field (`frame_id`, `child_frame_id`): NUL-padded UTF-8.
pub const FRAME_ID_LEN: usize = 32;
/// Longest frame name accepted, in bytes: one less than [`FRAME_ID_LEN`], so a name is always
/// NUL-terminated and can be read as a C string.
pub const FRAME_ID_MAX: usize = FRAME_ID_LEN - 1;

/// A frame name that does not fit a fixed `[u8; 32]` frame field. Nothing is truncated: the
/// field is left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameIdError {
    /// The name is longer than [`FRAME_ID_MAX`] bytes.
    TooLong {
        /// The field being set (`frame_id`, `child_frame_id`).
        field: &'static str,
        /// The rejected name.
        name: String,
        /// Its length in bytes.
        len: usize,
    },
    /// The name contains a NUL byte, which would end it early.
    ContainsNul {
        /// The field being set.
        field: &'static str,
        /// The rejected name.
        name: String,
    },
}

impl fmt::Display for FrameIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong { field, name, len } => write!(
                f,
                "{field} {name:?} is {len} bytes, longer than the {FRAME_ID_MAX} bytes a \
                 [u8; {FRAME_ID_LEN}] frame field holds; use a shorter frame name"
            ),
            Self::ContainsNul { field, name } => write!(
                f,
                "{field} {name:?} contains a NUL byte, which would end the name early; \
                 remove it"
            ),
        }
    }
}

impl std::error::Error for FrameIdError {}

/// Reads a NUL-padded name: the bytes before the first NUL. Bytes that are not UTF-8 (another
/// process wrote garbage) end the name at the first invalid byte.
pub(crate) fn read_name(buf: &[u8; FRAME_ID_LEN]) -> &str {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(FRAME_ID_LEN);
    match core::str::from_utf8(&buf[..end]) {
        Ok(s) => s,
        // The first `valid_up_to` bytes are valid UTF-8 by definition.
        Err(e) => core::str::from_utf8(&buf[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Writes a name NUL-padded, or rejects it without touching `buf`.
pub(crate) fn write_name(
    buf: &mut [u8; FRAME_ID_LEN],
    field: &'static str,
    name: &str,
) -> Result<(), FrameIdError> {
    let bytes = name.as_bytes();
    if bytes.len() > FRAME_ID_MAX {
        return Err(FrameIdError::TooLong {
            field,
            name: name.to_owned(),
            len: bytes.len(),
        });
    }
    if bytes.contains(&0) {
        return Err(FrameIdError::ContainsNul {
            field,
            name: name.to_owned(),
        });
    }
    *buf = [0; FRAME_ID_LEN];
    buf[..bytes.len()].copy_from_slice(bytes);
    Ok(())
}

/// A point in time: 8 bytes. Nanoseconds, see the [module docs](self) for the epoch.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Time",
    ros2 = "builtin_interfaces/msg/Time",
    default = "zeroed"
)]
#[repr(C)]
pub struct Time {
    /// Nanoseconds since the epoch.
    #[field(unit = "ns")]
    pub ns: u64,
}

impl Time {
    /// A time from nanoseconds.
    pub const fn from_ns(ns: u64) -> Self {
        Self { ns }
    }

    /// Seconds as `f64` (loses precision below ~1 µs after year 2255; fine for display).
    pub fn as_secs_f64(&self) -> f64 {
        self.ns as f64 * 1e-9
    }

    /// The current wall-clock time (`SystemTime`, Unix epoch). A clock before 1970 reads 0.
    pub fn now() -> Self {
        let ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Self { ns }
    }
}

/// Common header of stamped messages: 48 bytes.
///
/// `frame_id` is a fixed `[u8; 32]`, NUL-padded UTF-8 of at most [`FRAME_ID_MAX`] (31)
/// bytes; use [`Header::frame_id`] / [`Header::set_frame_id`] rather than the raw bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Header",
    ros2 = "std_msgs/msg/Header",
    default = "zeroed"
)]
#[repr(C)]
pub struct Header {
    /// When the data was measured (not when it was sent), nanoseconds.
    pub stamp_ns: u64,
    /// Sequence number set by the publisher, +1 per message.
    pub seq: u64,
    /// Coordinate frame of the data, NUL-padded UTF-8.
    #[field(text)]
    pub frame_id: [u8; FRAME_ID_LEN],
}

impl Header {
    /// A header with a stamp, a sequence number and a frame name.
    pub fn new(stamp_ns: u64, seq: u64, frame_id: &str) -> Result<Self, FrameIdError> {
        let mut header = Self {
            stamp_ns,
            seq,
            ..Self::default()
        };
        header.set_frame_id(frame_id)?;
        Ok(header)
    }

    /// The frame name (the bytes before the first NUL; ends early at invalid UTF-8).
    pub fn frame_id(&self) -> &str {
        read_name(&self.frame_id)
    }

    /// Sets the frame name. Longer than [`FRAME_ID_MAX`] bytes or containing NUL: an error, and
    /// the header is unchanged (never silently truncated).
    pub fn set_frame_id(&mut self, frame_id: &str) -> Result<(), FrameIdError> {
        write_name(&mut self.frame_id, "frame_id", frame_id)
    }
}

/// Velocity command for a planar base: 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/CmdVel",
    ros2 = "geometry_msgs/msg/Twist",
    default = "zeroed"
)]
#[repr(C)]
pub struct CmdVel {
    /// Publisher's timestamp, nanoseconds.
    pub stamp_ns: u64,
    /// Forward velocity, m/s.
    #[field(unit = "m/s")]
    pub linear: f32,
    /// Yaw rate, rad/s.
    #[field(unit = "rad/s")]
    pub angular: f32,
}

/// Simulation time, published by a simulator on the clock topic: 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Clock",
    ros2 = "rosgraph_msgs/msg/Clock",
    default = "zeroed"
)]
#[repr(C)]
pub struct Clock {
    /// Simulated time, nanoseconds since the start of the simulation.
    pub sim_ns: u64,
    /// Simulated seconds per wall-clock second (1.0 = real time, 0.0 = paused,
    /// NaN = unknown).
    #[field(unit = "1")]
    pub real_time_factor: f64,
}

/// Life-cycle state carried by a [`Heartbeat`] (`Heartbeat::state` holds the raw `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum NodeState {
    /// Initialising; not yet publishing.
    Starting = 1,
    /// Running normally.
    Running = 2,
    /// Running, but something is wrong (missed deadlines, a stale input).
    Degraded = 3,
    /// Shutting down cleanly.
    Stopping = 4,
    /// Failed; needs attention.
    Error = 5,
}

impl NodeState {
    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            1 => Some(Self::Starting),
            2 => Some(Self::Running),
            3 => Some(Self::Degraded),
            4 => Some(Self::Stopping),
            5 => Some(Self::Error),
            _ => None,
        }
    }

    /// Lower-case name, as shown by the tools.
    pub fn name(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Running => "running",
            Self::Degraded => "degraded",
            Self::Stopping => "stopping",
            Self::Error => "error",
        }
    }
}

/// Liveness beacon of a node: 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Heartbeat", default = "zeroed")]
#[repr(C)]
pub struct Heartbeat {
    /// [`fnv1a`](crate::fnv1a) of the node's fully qualified name.
    pub node_id_hash: u64,
    /// Sequence number, +1 per heartbeat; a gap means lost heartbeats.
    pub seq: u64,
    /// When the heartbeat was sent, nanoseconds.
    pub stamp_ns: u64,
    /// OS process id of the node.
    pub pid: u32,
    /// A [`NodeState`] code.
    #[field(codes = NodeState)]
    pub state: u32,
}

impl Heartbeat {
    /// The decoded state; `None` for an unknown code.
    pub fn node_state(&self) -> Option<NodeState> {
        NodeState::from_raw(self.state)
    }
}

impl crate::schema::Codes for NodeState {
    const VALUES: &'static [(&'static str, i64)] = &[
        ("starting", 1),
        ("running", 2),
        ("degraded", 3),
        ("stopping", 4),
        ("error", 5),
    ];
}

// ---------------------------------------------------------------------------------------------
// Scalars, colour and text (ROS 2 `std_msgs`)

/// A boolean: 1 byte. Stored as a `u8` (0 = false, 1 = true) because `bool` is not Pod: a
/// byte other than 0 or 1 written by another process would be undefined behaviour to read as
/// `bool`. [`Bool::get`] reads any non-zero byte as true.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Bool",
    ros2 = "std_msgs/msg/Bool",
    default = "zeroed"
)]
#[repr(C)]
pub struct Bool {
    /// 0 = false, 1 = true (any non-zero byte reads as true).
    pub data: u8,
}

impl Bool {
    /// A boolean message.
    pub const fn new(value: bool) -> Self {
        Self { data: value as u8 }
    }

    /// The value: true for any non-zero byte.
    pub const fn get(&self) -> bool {
        self.data != 0
    }
}

/// One number per message, as ROS 2's `std_msgs` scalar wrappers (`Int8` … `Float64`).
macro_rules! scalar_messages {
    ($($name:ident($t:ty) = $nerve:literal, $ros2:literal, $doc:literal;)*) => {
        $(
            // A literal, not `concat!`: the derive reads the doc text as written.
            #[doc = $doc]
            #[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
            #[message(crate = "crate", name = $nerve, ros2 = $ros2, default = "zeroed")]
            #[repr(C)]
            pub struct $name {
                /// The value (no unit: the topic says what it is).
                pub data: $t,
            }
        )*
    };
}

scalar_messages! {
    Int8(i8) = "nerve/Int8", "std_msgs/msg/Int8", "A single `i8`: 1 byte.";
    Int16(i16) = "nerve/Int16", "std_msgs/msg/Int16", "A single `i16`: 2 bytes.";
    Int32(i32) = "nerve/Int32", "std_msgs/msg/Int32", "A single `i32`: 4 bytes.";
    Int64(i64) = "nerve/Int64", "std_msgs/msg/Int64", "A single `i64`: 8 bytes.";
    UInt8(u8) = "nerve/UInt8", "std_msgs/msg/UInt8", "A single `u8`: 1 byte.";
    UInt16(u16) = "nerve/UInt16", "std_msgs/msg/UInt16", "A single `u16`: 2 bytes.";
    UInt32(u32) = "nerve/UInt32", "std_msgs/msg/UInt32", "A single `u32`: 4 bytes.";
    UInt64(u64) = "nerve/UInt64", "std_msgs/msg/UInt64", "A single `u64`: 8 bytes.";
    Float32(f32) = "nerve/Float32", "std_msgs/msg/Float32", "A single `f32`: 4 bytes.";
    Float64(f64) = "nerve/Float64", "std_msgs/msg/Float64", "A single `f64`: 8 bytes.";
}

/// A colour, red, green, blue and alpha from 0.0 to 1.0 (alpha 1.0 = opaque): 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/ColorRGBA",
    ros2 = "std_msgs/msg/ColorRGBA",
    default = "zeroed"
)]
#[repr(C)]
pub struct ColorRGBA {
    /// Red, 0.0 to 1.0.
    pub r: f32,
    /// Green, 0.0 to 1.0.
    pub g: f32,
    /// Blue, 0.0 to 1.0.
    pub b: f32,
    /// Alpha, 0.0 (transparent) to 1.0 (opaque).
    pub a: f32,
}

impl ColorRGBA {
    /// A colour from its components.
    pub const fn new(r: f32, g: f32, b: f32, a: f32) -> Self {
        Self { r, g, b, a }
    }
}

/// Fixed part of a [`Text`]: 4 bytes, reserved (ROS 2's `String` has nothing besides its
/// text, and a C struct cannot be empty).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Text", ros2 = "std_msgs/msg/String", chunked(elem = u8, message = Text, doc = "Text of any length (chunked; header 4 reserved bytes, payload `u8`: the UTF-8 bytes, no NUL terminator). ROS 2's `std_msgs/msg/String`; named `Text` in Rust because a type named `String` would shadow the standard `String` wherever `nerve::prelude::*` is imported."), default = "zeroed")]
#[repr(C)]
pub struct TextHeader {
    /// Reserved; write zero.
    pub _pad: u32,
}

// ---------------------------------------------------------------------------------------------
// Multi-dimensional arrays

/// Bytes of a [`MultiArrayDimension::label`]: NUL-padded UTF-8, at most 31 bytes.
pub const DIM_LABEL_LEN: usize = 32;

/// One dimension of a multi-dimensional array: 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    ros2 = "std_msgs/msg/MultiArrayDimension",
    default = "zeroed"
)]
#[repr(C)]
pub struct MultiArrayDimension {
    /// Name of the dimension (`"height"`, `"channel"`), NUL-padded UTF-8 of at most
    /// [`DIM_LABEL_LEN`] − 1 bytes; see [`MultiArrayDimension::new`].
    #[field(text)]
    pub label: [u8; DIM_LABEL_LEN],
    /// Number of elements along this dimension.
    pub size: u32,
    /// Elements spanned by one step of the previous (outer) dimension: the product of this
    /// and every inner dimension's size, as in ROS.
    pub stride: u32,
}

impl MultiArrayDimension {
    /// A dimension; a label longer than [`DIM_LABEL_LEN`] − 1 bytes or containing NUL is
    /// refused.
    pub fn new(label: &str, size: u32, stride: u32) -> Result<Self, TextError> {
        let mut d = Self {
            size,
            stride,
            ..Self::default()
        };
        write_text(&mut d.label, "label", label)?;
        Ok(d)
    }

    /// The label.
    pub fn label(&self) -> &str {
        read_text(&self.label)
    }
}

/// The shape of a multi-dimensional array: 328 bytes. At most [`MultiArrayLayout::DIMS_MAX`]
/// dimensions; [`MultiArrayLayout::set_dims`] refuses more.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    ros2 = "std_msgs/msg/MultiArrayLayout",
    default = "zeroed"
)]
#[repr(C)]
pub struct MultiArrayLayout {
    /// Dimensions, outermost first; the first `dim_count` are valid, the rest zero.
    pub dim: [MultiArrayDimension; MultiArrayLayout::DIMS_MAX],
    /// Number of valid entries in `dim` (at most [`MultiArrayLayout::DIMS_MAX`]).
    pub dim_count: u32,
    /// Elements at the start of the data before the array's first element.
    pub data_offset: u32,
}

impl MultiArrayLayout {
    /// Capacity of `dim`.
    pub const DIMS_MAX: usize = 8;

    /// A layout from its dimensions; more than [`Self::DIMS_MAX`] are refused.
    pub fn new(dims: &[MultiArrayDimension], data_offset: u32) -> Result<Self, TooMany> {
        let mut layout = Self {
            data_offset,
            ..Self::default()
        };
        layout.set_dims(dims)?;
        Ok(layout)
    }

    /// The valid dimensions; `None` if `dim_count` exceeds [`Self::DIMS_MAX`] (a corrupt
    /// message).
    pub fn dims(&self) -> Option<&[MultiArrayDimension]> {
        read_list(&self.dim, self.dim_count)
    }

    /// Sets the dimensions and `dim_count`; unused entries are zeroed. More than
    /// [`Self::DIMS_MAX`]: an error, nothing changed.
    pub fn set_dims(&mut self, dims: &[MultiArrayDimension]) -> Result<(), TooMany> {
        self.dim_count = write_list(&mut self.dim, "dimensions", dims)?;
        Ok(())
    }
}

/// The multi-array messages: a [`MultiArrayLayout`] header and the data as chunk elements.
macro_rules! multi_arrays {
    ($($marker:ident($header:ident, $t:ty) = $nerve:literal, $ros2:literal, $doc:literal;)*) => {
        $(
            /// Fixed part of a multi-array message: 328 bytes, the layout.
            #[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
            #[message(crate = "crate", name = $nerve, ros2 = $ros2, chunked(elem = $t, message = $marker, doc = $doc), default = "zeroed")]
            #[repr(C)]
            pub struct $header {
                /// Shape of the data.
                pub layout: MultiArrayLayout,
            }
        )*
    };
}

multi_arrays! {
    Float32MultiArray(Float32MultiArrayHeader, f32) = "nerve/Float32MultiArray", "std_msgs/msg/Float32MultiArray", "An array of `f32` of any shape (chunked; header 328 bytes holding the layout, one `f32` per element).";
    Float64MultiArray(Float64MultiArrayHeader, f64) = "nerve/Float64MultiArray", "std_msgs/msg/Float64MultiArray", "An array of `f64` of any shape (chunked; header 328 bytes holding the layout, one `f64` per element).";
    Int8MultiArray(Int8MultiArrayHeader, i8) = "nerve/Int8MultiArray", "std_msgs/msg/Int8MultiArray", "An array of `i8` of any shape (chunked; header 328 bytes holding the layout, one `i8` per element).";
    Int16MultiArray(Int16MultiArrayHeader, i16) = "nerve/Int16MultiArray", "std_msgs/msg/Int16MultiArray", "An array of `i16` of any shape (chunked; header 328 bytes holding the layout, one `i16` per element).";
    Int32MultiArray(Int32MultiArrayHeader, i32) = "nerve/Int32MultiArray", "std_msgs/msg/Int32MultiArray", "An array of `i32` of any shape (chunked; header 328 bytes holding the layout, one `i32` per element).";
    Int64MultiArray(Int64MultiArrayHeader, i64) = "nerve/Int64MultiArray", "std_msgs/msg/Int64MultiArray", "An array of `i64` of any shape (chunked; header 328 bytes holding the layout, one `i64` per element).";
    UInt8MultiArray(UInt8MultiArrayHeader, u8) = "nerve/UInt8MultiArray", "std_msgs/msg/UInt8MultiArray", "An array of `u8` of any shape (chunked; header 328 bytes holding the layout, one `u8` per element).";
    UInt16MultiArray(UInt16MultiArrayHeader, u16) = "nerve/UInt16MultiArray", "std_msgs/msg/UInt16MultiArray", "An array of `u16` of any shape (chunked; header 328 bytes holding the layout, one `u16` per element).";
    UInt32MultiArray(UInt32MultiArrayHeader, u32) = "nerve/UInt32MultiArray", "std_msgs/msg/UInt32MultiArray", "An array of `u32` of any shape (chunked; header 328 bytes holding the layout, one `u32` per element).";
    UInt64MultiArray(UInt64MultiArrayHeader, u64) = "nerve/UInt64MultiArray", "std_msgs/msg/UInt64MultiArray", "An array of `u64` of any shape (chunked; header 328 bytes holding the layout, one `u64` per element).";
    ByteMultiArray(ByteMultiArrayHeader, u8) = "nerve/ByteMultiArray", "std_msgs/msg/ByteMultiArray", "An array of bytes of any shape (chunked; header 328 bytes holding the layout, one byte per element; ROS 2's `byte` is an octet).";
}
