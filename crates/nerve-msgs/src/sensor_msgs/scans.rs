//! Joint states and laser scans.

use super::*;

// ---------------------------------------------------------------------------------------------
// Joint states

/// One joint of a [`JointState`]: 24 bytes. Unknown values are NaN.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", default = "zeroed")]
#[repr(C)]
pub struct JointSample {
    /// Position, rad (revolute) or m (prismatic).
    #[field(unit = "rad or m")]
    pub position: f64,
    /// Velocity, rad/s or m/s.
    #[field(unit = "rad/s or m/s")]
    pub velocity: f64,
    /// Effort, N·m or N.
    #[field(unit = "N·m or N")]
    pub effort: f64,
}

/// Fixed part of a [`JointState`]: 56 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/JointState", ros2 = "sensor_msgs/msg/JointState", chunked(elem = JointSample, message = JointState, doc = "Positions, velocities and efforts of any number of joints (chunked; header 56 bytes, one 24-byte [`JointSample`] per joint).  Joint names are not carried inline (they would make every message variable-length text): the publisher documents its joint order once (parameter, URDF, or a latched names topic) and stamps each message with [`JointStateHeader::names_hash`] = [`JointStateHeader::hash_names`] of that list, so a subscriber with a different list detects it instead of misassigning joints."), default = "zeroed")]
#[repr(C)]
pub struct JointStateHeader {
    /// Stamp and frame.
    pub header: Header,
    /// [`JointStateHeader::hash_names`] of the joint names, in payload order.
    pub names_hash: u64,
}

impl JointStateHeader {
    /// Hash of an ordered list of joint names (FNV-1a of the names joined by NUL).
    pub fn hash_names<S: AsRef<str>>(names: &[S]) -> u64 {
        let joined: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
        crate::fnv1a(&joined.join("\0"))
    }
}

// ---------------------------------------------------------------------------------------------
// Laser scans

/// Fixed part of a [`LaserScan`]: 80 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/LaserScan", ros2 = "sensor_msgs/msg/LaserScan", chunked(elem = f32, message = LaserScan, doc = "A planar laser scan with any number of ranges (chunked; header 80 bytes, one `f32` range in metres per beam). A range outside `[range_min, range_max]` (or NaN / inf) is not a valid return."), default = "zeroed")]
#[repr(C)]
pub struct LaserScanHeader {
    /// Stamp of the first beam, and the scanner frame.
    pub header: Header,
    /// Angle of the first beam, rad (0 = +x, counter-clockwise positive).
    #[field(unit = "rad")]
    pub angle_min: f32,
    /// Angle of the last beam, rad.
    #[field(unit = "rad")]
    pub angle_max: f32,
    /// Angle between beams, rad.
    #[field(unit = "rad")]
    pub angle_increment: f32,
    /// Time between beams, s.
    #[field(unit = "s")]
    pub time_increment: f32,
    /// Time between scans, s.
    #[field(unit = "s")]
    pub scan_time: f32,
    /// Shortest valid range, m.
    #[field(unit = "m")]
    pub range_min: f32,
    /// Longest valid range, m.
    #[field(unit = "m")]
    pub range_max: f32,
    /// Explicit padding; write zero.
    pub _pad: u32,
}

impl LaserScan {
    /// Ranges in the benchmark's seed scan (1° resolution): header + 360 × 4 B = 1520 B. Not a
    /// limit: a scan has any number of ranges.
    pub const SEED_RANGES: usize = 360;
}

impl LaserScanHeader {
    /// Number of ranges the angles describe: `round((angle_max - angle_min) /
    /// angle_increment) + 1`; `None` if that is not finite (increment 0, NaN angles) or
    /// negative (increment of the wrong sign).
    pub fn expected_ranges(&self) -> Option<usize> {
        let n = ((self.angle_max - self.angle_min) / self.angle_increment).round();
        (n.is_finite() && n >= 0.0).then(|| n as usize + 1)
    }

    /// Angle of beam `i`, rad.
    pub fn angle(&self, i: usize) -> f32 {
        self.angle_min + self.angle_increment * i as f32
    }

    /// Payload bytes for `ranges` beams.
    pub fn data_len(ranges: usize) -> usize {
        ranges.saturating_mul(core::mem::size_of::<f32>())
    }
}
