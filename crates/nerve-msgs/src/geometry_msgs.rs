//! Geometry: vectors, rotations, poses, velocities, transforms. All `f64`, SI units (metres,
//! radians, seconds); right-handed frames (x forward, y left, z up for a body frame).

use crate::std_msgs::{read_name, write_name, FrameIdError, Header, FRAME_ID_LEN};

/// A 3D vector (a position in metres, a velocity in m/s, ...): 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Vector3", default = "zeroed")]
#[repr(C)]
pub struct Vector3 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
}

impl Vector3 {
    /// A vector from its components.
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Self { x, y, z }
    }
}

/// A rotation as a unit quaternion (x, y, z, w): 32 bytes. `Default` is the identity
/// (w = 1), not all zeroes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Quaternion")]
#[repr(C)]
pub struct Quaternion {
    /// x (i) component.
    pub x: f64,
    /// y (j) component.
    pub y: f64,
    /// z (k) component.
    pub z: f64,
    /// w (real) component.
    pub w: f64,
}

impl Quaternion {
    /// The identity rotation.
    pub const IDENTITY: Self = Self {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 1.0,
    };

    /// A rotation of `yaw` radians about +z.
    pub fn from_yaw(yaw: f64) -> Self {
        let (s, c) = (yaw * 0.5).sin_cos();
        Self {
            x: 0.0,
            y: 0.0,
            z: s,
            w: c,
        }
    }
}

impl Default for Quaternion {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// Linear and angular velocity: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Twist", default = "zeroed")]
#[repr(C)]
pub struct Twist {
    /// Linear velocity, m/s.
    #[field(unit = "m/s")]
    pub linear: Vector3,
    /// Angular velocity (axis × rate), rad/s.
    #[field(unit = "rad/s")]
    pub angular: Vector3,
}

/// A pose in the plane: 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Pose2D", default = "zeroed")]
#[repr(C)]
pub struct Pose2D {
    /// x, metres.
    pub x: f64,
    /// y, metres.
    pub y: f64,
    /// Heading about +z, radians.
    pub theta: f64,
}

/// A position and orientation: 56 bytes. `Default` has the identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Pose")]
#[repr(C)]
pub struct Pose {
    /// Position, metres.
    pub position: Vector3,
    /// Orientation.
    pub orientation: Quaternion,
}

impl Default for Pose {
    fn default() -> Self {
        Self {
            position: Vector3::default(),
            orientation: Quaternion::IDENTITY,
        }
    }
}

/// A rigid transform (child frame expressed in the parent frame): 56 bytes. `Default` is
/// the identity transform.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Transform")]
#[repr(C)]
pub struct Transform {
    /// Translation, metres.
    pub translation: Vector3,
    /// Rotation.
    pub rotation: Quaternion,
}

impl Default for Transform {
    fn default() -> Self {
        Self {
            translation: Vector3::default(),
            rotation: Quaternion::IDENTITY,
        }
    }
}

/// A transform from `header.frame_id` (parent) to `child_frame_id`, at `header.stamp_ns`:
/// 136 bytes. `Default` is the identity transform with empty frame names.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/TransformStamped")]
#[repr(C)]
pub struct TransformStamped {
    /// Stamp and parent frame.
    pub header: Header,
    /// Child frame, NUL-padded UTF-8; see [`TransformStamped::set_child_frame_id`].
    #[field(text)]
    pub child_frame_id: [u8; FRAME_ID_LEN],
    /// Pose of the child frame in the parent frame.
    pub transform: Transform,
}

impl Default for TransformStamped {
    fn default() -> Self {
        Self {
            header: Header::default(),
            child_frame_id: [0; FRAME_ID_LEN],
            transform: Transform::default(),
        }
    }
}

impl TransformStamped {
    /// The child frame name.
    pub fn child_frame_id(&self) -> &str {
        read_name(&self.child_frame_id)
    }

    /// Sets the child frame name; too long or containing NUL: an error, nothing changed.
    pub fn set_child_frame_id(&mut self, name: &str) -> Result<(), FrameIdError> {
        write_name(&mut self.child_frame_id, "child_frame_id", name)
    }
}
