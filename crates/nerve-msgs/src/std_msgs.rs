//! Basic messages: time, the common [`Header`], the sim [`Clock`], node [`Heartbeat`]s and
//! [`CmdVel`]. Sizes are part of the contract and checked by tests.
//!
//! **Time convention, used by every message in this crate:** a `u64` count of nanoseconds,
//! named `*_ns`. Wall-clock stamps count from the Unix epoch (UTC); under simulation they count
//! from the start of the simulation, as published on the [`Clock`] topic.

use core::fmt;

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
#[message(crate = "crate", name = "nerve/Time", default = "zeroed")]
#[repr(C)]
pub struct Time {
    /// Nanoseconds since the epoch.
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
#[message(crate = "crate", name = "nerve/Header", default = "zeroed")]
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
#[message(crate = "crate", name = "nerve/CmdVel", default = "zeroed")]
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
#[message(crate = "crate", name = "nerve/Clock", default = "zeroed")]
#[repr(C)]
pub struct Clock {
    /// Simulated time, nanoseconds since the start of the simulation.
    pub sim_ns: u64,
    /// Simulated seconds per wall-clock second (1.0 = real time, 0.0 = paused,
    /// NaN = unknown).
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
