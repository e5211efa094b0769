//! Navigation: [`Odometry`], maps ([`OccupancyGrid`], [`MapMetaData`]) and [`Path`].

use crate::geometry_msgs::{Pose, PoseStamped, Twist};
use crate::std_msgs::{read_name, write_name, FrameIdError, Header, FRAME_ID_LEN};

/// Estimated pose and velocity of a body: 760 bytes.
///
/// The pose is in `header.frame_id` (e.g. `odom`); the twist is in `child_frame_id` (the
/// body, e.g. `base_link`). Covariances are row-major 6×6 over (x, y, z, rot x, rot y,
/// rot z), in m², rad² and their products (pose) and (m/s)², (rad/s)² (twist). `Default`
/// has the identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Odometry",
    ros2 = "nav_msgs/msg/Odometry"
)]
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
    #[field(unit = "m², m·rad, rad²")]
    pub pose_covariance: [f64; 36],
    /// Velocity of the body, in `child_frame_id`.
    pub twist: Twist,
    /// Twist covariance, 6×6 row-major.
    #[field(unit = "(m/s)², m·rad/s², (rad/s)²")]
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

/// Size, resolution and placement of an [`OccupancyGrid`]: 80 bytes. `Default` has the
/// identity origin orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/MapMetaData",
    ros2 = "nav_msgs/msg/MapMetaData"
)]
#[repr(C)]
pub struct MapMetaData {
    /// When the map was loaded, nanoseconds.
    pub map_load_time_ns: u64,
    /// Edge length of one cell, m.
    #[field(unit = "m")]
    pub resolution: f32,
    /// Cells per row (along the origin's x axis).
    pub width: u32,
    /// Rows (along the origin's y axis).
    pub height: u32,
    /// Explicit padding; write zero.
    pub _pad: u32,
    /// Pose of cell (0, 0)'s outer corner in the map frame.
    pub origin: Pose,
}

impl Default for MapMetaData {
    fn default() -> Self {
        Self {
            map_load_time_ns: 0,
            resolution: 0.0,
            width: 0,
            height: 0,
            _pad: 0,
            origin: Pose::default(),
        }
    }
}

/// Fixed part of an [`OccupancyGrid`]: 128 bytes. `Default` has the identity origin
/// orientation.
#[derive(Clone, Copy, Debug, Default, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/OccupancyGrid", ros2 = "nav_msgs/msg/OccupancyGrid", chunked(elem = i8, message = OccupancyGrid, doc = "A 2D occupancy map (chunked; header 128 bytes, one `i8` per cell, row-major starting at cell (0, 0), `info.width × info.height` cells): 0 free to 100 occupied, −1 unknown."))]
#[repr(C)]
pub struct OccupancyGridHeader {
    /// Stamp and map frame.
    pub header: Header,
    /// Size, resolution and origin.
    pub info: MapMetaData,
}

impl OccupancyGridHeader {
    /// Number of cells the header describes: `width × height`.
    pub fn cell_count(&self) -> usize {
        (self.info.width as usize).saturating_mul(self.info.height as usize)
    }
}

/// Fixed part of a [`Path`]: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Path", ros2 = "nav_msgs/msg/Path", chunked(elem = PoseStamped, message = Path, doc = "A path of any number of poses (chunked; header 48 bytes, one 104-byte [`PoseStamped`] per waypoint, in order)."), default = "zeroed")]
#[repr(C)]
pub struct PathHeader {
    /// Stamp and frame of the path.
    pub header: Header,
}
