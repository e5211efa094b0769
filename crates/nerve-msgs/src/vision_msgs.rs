//! Object detection (ROS 2 `vision_msgs`): bounding boxes, class hypotheses and detections.
//!
//! A detection holds at most [`Detection2D::RESULTS_MAX`] hypotheses (the best ones, as the
//! publisher ranks them); [`Detection2D::set_results`] and [`Detection3D::set_results`]
//! refuse more. Class and tracking ids are fixed text ([`CLASS_ID_LEN`], [`DETECTION_ID_LEN`]
//! bytes, one byte less usable) whose setters refuse longer text.

use crate::geometry_msgs::{Pose, PoseWithCovariance, Vector3};
use crate::limits::{read_list, read_text, write_list, write_text, TextError, TooMany};
use crate::std_msgs::Header;

/// Bytes of [`ObjectHypothesis::class_id`].
pub const CLASS_ID_LEN: usize = 32;
/// Bytes of a detection's tracking `id`.
pub const DETECTION_ID_LEN: usize = 32;

/// A rectangle in an image, possibly rotated: 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/BoundingBox2D",
    ros2 = "vision_msgs/msg/BoundingBox2D",
    default = "zeroed"
)]
#[repr(C)]
pub struct BoundingBox2D {
    /// Column of the centre, pixels (sub-pixel).
    #[field(unit = "px")]
    pub center_x: f64,
    /// Row of the centre, pixels.
    #[field(unit = "px")]
    pub center_y: f64,
    /// Rotation of the box about its centre, rad (0 = edges along the image axes).
    #[field(unit = "rad")]
    pub theta: f64,
    /// Width (along the rotated x axis), pixels.
    #[field(unit = "px")]
    pub size_x: f64,
    /// Height (along the rotated y axis), pixels.
    #[field(unit = "px")]
    pub size_y: f64,
}

/// An oriented box in space: 80 bytes. `Default` has the identity orientation.
#[derive(Clone, Copy, Debug, Default, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/BoundingBox3D",
    ros2 = "vision_msgs/msg/BoundingBox3D"
)]
#[repr(C)]
pub struct BoundingBox3D {
    /// Pose of the box's centre.
    pub center: Pose,
    /// Edge lengths along the box's x, y, z axes, m.
    #[field(unit = "m")]
    pub size: Vector3,
}

/// A class and its score: 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    ros2 = "vision_msgs/msg/ObjectHypothesis",
    default = "zeroed"
)]
#[repr(C)]
pub struct ObjectHypothesis {
    /// Class name or id, NUL-padded UTF-8 of at most [`CLASS_ID_LEN`] − 1 bytes.
    #[field(text)]
    pub class_id: [u8; CLASS_ID_LEN],
    /// Confidence, usually a probability from 0.0 to 1.0.
    #[field(unit = "1")]
    pub score: f64,
}

impl ObjectHypothesis {
    /// A hypothesis; a class id that does not fit (or contains NUL) is refused.
    pub fn new(class_id: &str, score: f64) -> Result<Self, TextError> {
        let mut h = Self {
            score,
            ..Self::default()
        };
        write_text(&mut h.class_id, "class_id", class_id)?;
        Ok(h)
    }

    /// The class id.
    pub fn class_id(&self) -> &str {
        read_text(&self.class_id)
    }
}

/// A class hypothesis with the object's pose: 384 bytes. `Default` has the identity
/// orientation.
#[derive(Clone, Copy, Debug, Default, PartialEq, crate::Message)]
#[message(crate = "crate", ros2 = "vision_msgs/msg/ObjectHypothesisWithPose")]
#[repr(C)]
pub struct ObjectHypothesisWithPose {
    /// Class and score.
    pub hypothesis: ObjectHypothesis,
    /// Pose of the object, with its covariance.
    pub pose: PoseWithCovariance,
}

/// An object found in an image: 1664 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Detection2D",
    ros2 = "vision_msgs/msg/Detection2D",
    default = "zeroed"
)]
#[repr(C)]
pub struct Detection2D {
    /// Stamp and frame of the image.
    pub header: Header,
    /// Number of valid entries in `results`.
    pub results_len: u32,
    /// Explicit padding; write zero.
    pub _pad: u32,
    /// Class hypotheses; the first `results_len` are valid, the rest zero.
    pub results: [ObjectHypothesisWithPose; Detection2D::RESULTS_MAX],
    /// Where the object is in the image.
    pub bbox: BoundingBox2D,
    /// Tracking id, NUL-padded UTF-8 of at most [`DETECTION_ID_LEN`] − 1 bytes (empty when
    /// not tracked).
    #[field(text)]
    pub id: [u8; DETECTION_ID_LEN],
}

/// An object found in space: 1704 bytes. `Default` has the box's identity orientation.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(
    crate = "crate",
    name = "nerve/Detection3D",
    ros2 = "vision_msgs/msg/Detection3D"
)]
#[repr(C)]
pub struct Detection3D {
    /// Stamp and frame of the sensor data.
    pub header: Header,
    /// Number of valid entries in `results`.
    pub results_len: u32,
    /// Explicit padding; write zero.
    pub _pad: u32,
    /// Class hypotheses; the first `results_len` are valid, the rest zero.
    pub results: [ObjectHypothesisWithPose; Detection3D::RESULTS_MAX],
    /// Where the object is.
    pub bbox: BoundingBox3D,
    /// Tracking id, NUL-padded UTF-8 of at most [`DETECTION_ID_LEN`] − 1 bytes (empty when
    /// not tracked).
    #[field(text)]
    pub id: [u8; DETECTION_ID_LEN],
}

impl Default for Detection3D {
    fn default() -> Self {
        // Unused results are all zero, as `set_results` leaves them.
        Self {
            header: Header::default(),
            results_len: 0,
            _pad: 0,
            results: [bytemuck::Zeroable::zeroed(); Self::RESULTS_MAX],
            bbox: BoundingBox3D::default(),
            id: [0; DETECTION_ID_LEN],
        }
    }
}

macro_rules! detection_accessors {
    ($($t:ident),*) => {
        $(
            impl $t {
                /// Capacity of `results`.
                pub const RESULTS_MAX: usize = 4;

                /// The valid hypotheses; `None` if `results_len` exceeds
                /// [`Self::RESULTS_MAX`] (a corrupt message).
                pub fn results(&self) -> Option<&[ObjectHypothesisWithPose]> {
                    read_list(&self.results, self.results_len)
                }

                /// Sets the hypotheses and `results_len`; unused entries are zeroed. More than
                /// [`Self::RESULTS_MAX`]: an error, nothing changed.
                pub fn set_results(
                    &mut self,
                    results: &[ObjectHypothesisWithPose],
                ) -> Result<(), TooMany> {
                    self.results_len = write_list(&mut self.results, "results", results)?;
                    Ok(())
                }

                /// The tracking id.
                pub fn id(&self) -> &str {
                    read_text(&self.id)
                }

                /// Sets the tracking id; too long or containing NUL: an error, nothing
                /// changed.
                pub fn set_id(&mut self, id: &str) -> Result<(), TextError> {
                    write_text(&mut self.id, "id", id)
                }
            }
        )*
    };
}

detection_accessors!(Detection2D, Detection3D);

/// Fixed part of a [`Detection2DArray`]: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Detection2DArray", ros2 = "vision_msgs/msg/Detection2DArray", chunked(elem = Detection2D, message = Detection2DArray, doc = "The objects found in one image (chunked; header 48 bytes, one 1664-byte [`Detection2D`] per object)."), default = "zeroed")]
#[repr(C)]
pub struct Detection2DArrayHeader {
    /// Stamp and frame of the image.
    pub header: Header,
}

/// Fixed part of a [`Detection3DArray`]: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Detection3DArray", ros2 = "vision_msgs/msg/Detection3DArray", chunked(elem = Detection3D, message = Detection3DArray, doc = "The objects found in one scan or frame (chunked; header 48 bytes, one 1704-byte [`Detection3D`] per object)."), default = "zeroed")]
#[repr(C)]
pub struct Detection3DArrayHeader {
    /// Stamp and frame of the sensor data.
    pub header: Header,
}
