//! Transforms: [`TFMessage`], the message of the `/tf` and `/tf_static` topics.

use crate::geometry_msgs::TransformStamped;

/// Fixed part of a [`TFMessage`]: 4 bytes, reserved (ROS 2's `TFMessage` has nothing besides
/// its transforms, and a C struct cannot be empty).
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/TFMessage", ros2 = "tf2_msgs/msg/TFMessage", chunked(elem = TransformStamped, message = TFMessage, doc = "Any number of transforms, each between two frames at its own stamp (chunked; header 4 reserved bytes, one 136-byte [`TransformStamped`] per transform)."), default = "zeroed")]
#[repr(C)]
pub struct TFMessageHeader {
    /// Reserved; write zero.
    pub _pad: u32,
}
