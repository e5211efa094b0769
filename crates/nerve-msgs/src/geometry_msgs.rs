//! Geometry: vectors, rotations, poses, velocities, transforms. All `f64`, SI units (metres,
//! radians, seconds); right-handed frames (x forward, y left, z up for a body frame).

use crate::std_msgs::{read_name, write_name, FrameIdError, Header, FRAME_ID_LEN};

/// A 3D vector (a position in metres, a velocity in m/s, ...): 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Vector3",
    ros2 = "geometry_msgs/msg/Vector3",
    default = "zeroed"
)]
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
#[message(
    crate = "crate",
    name = "nerve/Quaternion",
    ros2 = "geometry_msgs/msg/Quaternion"
)]
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
#[message(
    crate = "crate",
    name = "nerve/Twist",
    ros2 = "geometry_msgs/msg/Twist",
    default = "zeroed"
)]
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
#[message(
    crate = "crate",
    name = "nerve/Pose2D",
    ros2 = "geometry_msgs/msg/Pose2D",
    default = "zeroed"
)]
#[repr(C)]
pub struct Pose2D {
    /// x, metres.
    #[field(unit = "m")]
    pub x: f64,
    /// y, metres.
    #[field(unit = "m")]
    pub y: f64,
    /// Heading about +z, radians.
    #[field(unit = "rad")]
    pub theta: f64,
}

/// A position and orientation: 56 bytes. `Default` has the identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Pose", ros2 = "geometry_msgs/msg/Pose")]
#[repr(C)]
pub struct Pose {
    /// Position, metres.
    #[field(unit = "m")]
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
#[message(
    crate = "crate",
    name = "nerve/Transform",
    ros2 = "geometry_msgs/msg/Transform"
)]
#[repr(C)]
pub struct Transform {
    /// Translation, metres.
    #[field(unit = "m")]
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
#[message(
    crate = "crate",
    name = "nerve/TransformStamped",
    ros2 = "geometry_msgs/msg/TransformStamped"
)]
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

// ---------------------------------------------------------------------------------------------
// Points, stamped geometry, covariances, wrenches, accelerations, polygons

/// A position in metres: 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Point",
    ros2 = "geometry_msgs/msg/Point",
    default = "zeroed"
)]
#[repr(C)]
pub struct Point {
    /// x, m.
    #[field(unit = "m")]
    pub x: f64,
    /// y, m.
    #[field(unit = "m")]
    pub y: f64,
    /// z, m.
    #[field(unit = "m")]
    pub z: f64,
}

impl Point {
    /// A point from its coordinates, metres.
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Self { x, y, z }
    }
}

/// A position in metres, single precision (the vertices of a [`Polygon`]): 12 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Point32",
    ros2 = "geometry_msgs/msg/Point32",
    default = "zeroed"
)]
#[repr(C)]
pub struct Point32 {
    /// x, m.
    #[field(unit = "m")]
    pub x: f32,
    /// y, m.
    #[field(unit = "m")]
    pub y: f32,
    /// z, m.
    #[field(unit = "m")]
    pub z: f32,
}

/// A [`Point`] with a stamp and a frame: 72 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/PointStamped",
    ros2 = "geometry_msgs/msg/PointStamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct PointStamped {
    /// Stamp and frame of the point.
    pub header: Header,
    /// The point, m.
    #[field(unit = "m")]
    pub point: Point,
}

/// A [`Vector3`] with a stamp and a frame: 72 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Vector3Stamped",
    ros2 = "geometry_msgs/msg/Vector3Stamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct Vector3Stamped {
    /// Stamp and frame of the vector.
    pub header: Header,
    /// The vector (its unit is the topic's).
    pub vector: Vector3,
}

/// A [`Quaternion`] with a stamp and a frame: 80 bytes. `Default` is the identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/QuaternionStamped",
    ros2 = "geometry_msgs/msg/QuaternionStamped"
)]
#[repr(C)]
pub struct QuaternionStamped {
    /// Stamp and frame of the rotation.
    pub header: Header,
    /// The rotation (unit quaternion).
    pub quaternion: Quaternion,
}

/// A [`Pose`] with a stamp and a frame: 104 bytes. `Default` has the identity orientation.
#[derive(Clone, Copy, Debug, Default, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/PoseStamped",
    ros2 = "geometry_msgs/msg/PoseStamped"
)]
#[repr(C)]
pub struct PoseStamped {
    /// Stamp and frame the pose is expressed in.
    pub header: Header,
    /// The pose.
    pub pose: Pose,
}

/// A [`Pose`] with its uncertainty: 344 bytes. `Default` has the identity orientation and a
/// zero covariance.
///
/// The covariance is row-major 6×6 over (x, y, z, rotation about x, about y, about z), the
/// rotations being a fixed-axis (roll, pitch, yaw) perturbation as in ROS: units m², m·rad
/// and rad² by block.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/PoseWithCovariance",
    ros2 = "geometry_msgs/msg/PoseWithCovariance"
)]
#[repr(C)]
pub struct PoseWithCovariance {
    /// The pose.
    pub pose: Pose,
    /// Covariance, 6×6 row-major over (x, y, z, rot x, rot y, rot z).
    #[field(unit = "m², m·rad, rad²")]
    pub covariance: [f64; 36],
}

impl Default for PoseWithCovariance {
    fn default() -> Self {
        Self {
            pose: Pose::default(),
            covariance: [0.0; 36],
        }
    }
}

/// A [`PoseWithCovariance`] with a stamp and a frame: 392 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/PoseWithCovarianceStamped",
    ros2 = "geometry_msgs/msg/PoseWithCovarianceStamped"
)]
#[repr(C)]
pub struct PoseWithCovarianceStamped {
    /// Stamp and frame the pose is expressed in.
    pub header: Header,
    /// The pose and its covariance.
    pub pose: PoseWithCovariance,
}

/// A [`Twist`] with a stamp and a frame: 96 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/TwistStamped",
    ros2 = "geometry_msgs/msg/TwistStamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct TwistStamped {
    /// Stamp and frame the velocity is expressed in.
    pub header: Header,
    /// The velocity.
    pub twist: Twist,
}

/// A [`Twist`] with its uncertainty: 336 bytes. The covariance is row-major 6×6 over
/// (vx, vy, vz, ωx, ωy, ωz): (m/s)², m·rad/s² and (rad/s)² by block.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/TwistWithCovariance",
    ros2 = "geometry_msgs/msg/TwistWithCovariance",
    default = "zeroed"
)]
#[repr(C)]
pub struct TwistWithCovariance {
    /// The velocity.
    pub twist: Twist,
    /// Covariance, 6×6 row-major over (vx, vy, vz, ωx, ωy, ωz).
    #[field(unit = "(m/s)², m·rad/s², (rad/s)²")]
    pub covariance: [f64; 36],
}

/// A [`TwistWithCovariance`] with a stamp and a frame: 384 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/TwistWithCovarianceStamped",
    ros2 = "geometry_msgs/msg/TwistWithCovarianceStamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct TwistWithCovarianceStamped {
    /// Stamp and frame the velocity is expressed in.
    pub header: Header,
    /// The velocity and its covariance.
    pub twist: TwistWithCovariance,
}

/// Force and torque: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Wrench",
    ros2 = "geometry_msgs/msg/Wrench",
    default = "zeroed"
)]
#[repr(C)]
pub struct Wrench {
    /// Force, N.
    #[field(unit = "N")]
    pub force: Vector3,
    /// Torque, N·m.
    #[field(unit = "N·m")]
    pub torque: Vector3,
}

/// A [`Wrench`] with a stamp and a frame: 96 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/WrenchStamped",
    ros2 = "geometry_msgs/msg/WrenchStamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct WrenchStamped {
    /// Stamp and frame the wrench is expressed in.
    pub header: Header,
    /// The wrench.
    pub wrench: Wrench,
}

/// Linear and angular acceleration: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Accel",
    ros2 = "geometry_msgs/msg/Accel",
    default = "zeroed"
)]
#[repr(C)]
pub struct Accel {
    /// Linear acceleration, m/s².
    #[field(unit = "m/s²")]
    pub linear: Vector3,
    /// Angular acceleration, rad/s².
    #[field(unit = "rad/s²")]
    pub angular: Vector3,
}

/// An [`Accel`] with a stamp and a frame: 96 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/AccelStamped",
    ros2 = "geometry_msgs/msg/AccelStamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct AccelStamped {
    /// Stamp and frame the acceleration is expressed in.
    pub header: Header,
    /// The acceleration.
    pub accel: Accel,
}

/// An [`Accel`] with its uncertainty: 336 bytes. The covariance is row-major 6×6 over
/// (ax, ay, az, αx, αy, αz): (m/s²)², m·rad/s⁴ and (rad/s²)² by block.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/AccelWithCovariance",
    ros2 = "geometry_msgs/msg/AccelWithCovariance",
    default = "zeroed"
)]
#[repr(C)]
pub struct AccelWithCovariance {
    /// The acceleration.
    pub accel: Accel,
    /// Covariance, 6×6 row-major over (ax, ay, az, αx, αy, αz).
    #[field(unit = "(m/s²)², m·rad/s⁴, (rad/s²)²")]
    pub covariance: [f64; 36],
}

/// An [`AccelWithCovariance`] with a stamp and a frame: 384 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/AccelWithCovarianceStamped",
    ros2 = "geometry_msgs/msg/AccelWithCovarianceStamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct AccelWithCovarianceStamped {
    /// Stamp and frame the acceleration is expressed in.
    pub header: Header,
    /// The acceleration and its covariance.
    pub accel: AccelWithCovariance,
}

/// The mass properties of a rigid body: 80 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Inertia",
    ros2 = "geometry_msgs/msg/Inertia",
    default = "zeroed"
)]
#[repr(C)]
pub struct Inertia {
    /// Mass, kg.
    #[field(unit = "kg")]
    pub m: f64,
    /// Centre of mass in the body frame, m.
    pub com: Vector3,
    /// Inertia tensor element xx about the centre of mass, kg·m².
    #[field(unit = "kg·m²")]
    pub ixx: f64,
    /// Element xy, kg·m².
    #[field(unit = "kg·m²")]
    pub ixy: f64,
    /// Element xz, kg·m².
    #[field(unit = "kg·m²")]
    pub ixz: f64,
    /// Element yy, kg·m².
    #[field(unit = "kg·m²")]
    pub iyy: f64,
    /// Element yz, kg·m².
    #[field(unit = "kg·m²")]
    pub iyz: f64,
    /// Element zz, kg·m².
    #[field(unit = "kg·m²")]
    pub izz: f64,
}

/// An [`Inertia`] with a stamp and a frame: 128 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/InertiaStamped",
    ros2 = "geometry_msgs/msg/InertiaStamped",
    default = "zeroed"
)]
#[repr(C)]
pub struct InertiaStamped {
    /// Stamp and the body frame.
    pub header: Header,
    /// The mass properties.
    pub inertia: Inertia,
}

/// Fixed part of a [`Polygon`]: 4 bytes, reserved (ROS 2's `Polygon` has nothing besides its
/// points, and a C struct cannot be empty).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Polygon", ros2 = "geometry_msgs/msg/Polygon", chunked(elem = Point32, message = Polygon, doc = "A polygon of any number of vertices (chunked; header 4 reserved bytes, one 12-byte [`Point32`] per vertex, in order; the last vertex connects to the first)."), default = "zeroed")]
#[repr(C)]
pub struct PolygonHeader {
    /// Reserved; write zero.
    pub _pad: u32,
}

/// Fixed part of a [`PolygonStamped`]: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/PolygonStamped", ros2 = "geometry_msgs/msg/PolygonStamped", chunked(elem = Point32, message = PolygonStamped, doc = "A polygon with a stamp and a frame (chunked; header 48 bytes, one 12-byte [`Point32`] per vertex, in order; the last vertex connects to the first)."), default = "zeroed")]
#[repr(C)]
pub struct PolygonStampedHeader {
    /// Stamp and frame of the vertices.
    pub header: Header,
}
