//! Navigation: [`Odometry`].

use crate::geometry_msgs::{Pose, Twist};
use crate::std_msgs::{read_name, write_name, FrameIdError, Header, FRAME_ID_LEN};

/// Estimated pose and velocity of a body: 760 bytes.
///
/// The pose is in `header.frame_id` (e.g. `odom`); the twist is in `child_frame_id` (the
/// body, e.g. `base_link`). Covariances are row-major 6×6 over (x, y, z, rot x, rot y,
/// rot z), in m², rad² and their products (pose) and (m/s)², (rad/s)² (twist). `Default`
/// has the identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Odometry")]
#[repr(C)]
pub struct Odometry {
    /// Stamp and parent frame of the pose.
    pub header: Header,
    /// Body frame, NUL-padded UTF-8; see [`Odometry::set_child_frame_id`].
    #[field(text)]
    pub child_frame_id: [u8; FRAME_ID_LEN],
    /// Pose of the body in `header.frame_id`.
    pub pose: Pose,
    /// Pose covariance, 6×6 row-major.
    pub pose_covariance: [f64; 36],
    /// Velocity of the body, in `child_frame_id`.
    pub twist: Twist,
    /// Twist covariance, 6×6 row-major.
    pub twist_covariance: [f64; 36],
}

impl Default for Odometry {
    fn default() -> Self {
        Self {
            header: Header::default(),
            child_frame_id: [0; FRAME_ID_LEN],
            pose: Pose::default(),
            pose_covariance: [0.0; 36],
            twist: Twist::default(),
            twist_covariance: [0.0; 36],
        }
    }
}

impl Odometry {
    /// The body frame name.
    pub fn child_frame_id(&self) -> &str {
        read_name(&self.child_frame_id)
    }

    /// Sets the body frame name; too long or containing NUL: an error, nothing changed.
    pub fn set_child_frame_id(&mut self, name: &str) -> Result<(), FrameIdError> {
        write_name(&mut self.child_frame_id, "child_frame_id", name)
    }
}
