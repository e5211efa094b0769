//! The standard set as data: every standard message's schema ([`STANDARD`]) and every struct
//! they are made of with its default bytes ([`STANDARD_STRUCTS`]), from one list.
//!
//! Adding a standard type is its definition (`#[derive(Message)]`) and one entry in the
//! `standard_set!` list below; the Python classes, their stubs, the generic decoders and the
//! lookup of topics created without a description all follow from these two tables.

use crate::schema::{Describe, Schema};
use crate::*;

/// A struct of the standard set: a message, a chunked message's header or a chunk element.
#[derive(Clone, Copy, Debug)]
pub struct StandardStruct {
    /// The name classes take in other languages (`Imu`, `LaserScanHeader`, `PointXYZ`): the
    /// Rust type's name.
    pub class: &'static str,
    /// Its schema (for a chunk header, the chunked message's schema, whose fields are the
    /// header's).
    pub schema: &'static Schema,
    /// The bytes of its `Default`.
    pub default: fn() -> Vec<u8>,
    /// For a chunk header: the chunked message's name in other languages (`LaserScan`).
    pub chunked: Option<&'static str>,
}

fn default_bytes<T: bytemuck::Pod + Default>() -> Vec<u8> {
    bytemuck::bytes_of(&T::default()).to_vec()
}

const fn described<M: Message>() -> &'static Schema {
    match M::DESCRIPTION {
        Some(s) => s,
        None => panic!("a standard message without a schema"),
    }
}

/// `messages`: fixed messages; `chunked`: chunked messages with their header type;
/// `structs`: chunk elements and other plain structs.
macro_rules! standard_set {
    (
        messages: [$($m:ident),* $(,)?],
        chunked: [$($c:ident($h:ident)),* $(,)?],
        structs: [$($s:ident),* $(,)?] $(,)?
    ) => {
        /// The schema of every standard message, for tools that look a type up by name or
        /// fingerprint (`nerve interface show`, decoders of topics created without a
        /// description).
        pub const STANDARD: &[&Schema] = &[$(described::<$m>(),)* $(described::<$c>(),)*];

        /// Every struct of the standard set with its default bytes, in no particular order
        /// (nested structs may come after the structs holding them).
        pub const STANDARD_STRUCTS: &[StandardStruct] = &[
            $(StandardStruct {
                class: stringify!($m),
                schema: &<$m as Describe>::SCHEMA,
                default: default_bytes::<$m>,
                chunked: None,
            },)*
            $(StandardStruct {
                class: stringify!($h),
                schema: &<$h as Describe>::SCHEMA,
                default: default_bytes::<$h>,
                chunked: Some(stringify!($c)),
            },)*
            $(StandardStruct {
                class: stringify!($s),
                schema: &<$s as Describe>::SCHEMA,
                default: default_bytes::<$s>,
                chunked: None,
            },)*
        ];
    };
}

standard_set! {
    messages: [
        Time, Header, CmdVel, Clock, Heartbeat, Vector3, Quaternion, Twist, Pose2D, Pose,
        Transform, TransformStamped, Imu, BatteryState, CameraInfo, Odometry,
        // std_msgs
        Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float32, Float64,
        ColorRGBA,
        // geometry_msgs
        Point, Point32, PointStamped, Vector3Stamped, QuaternionStamped, PoseStamped,
        PoseWithCovariance, PoseWithCovarianceStamped, TwistStamped, TwistWithCovariance,
        TwistWithCovarianceStamped, Wrench, WrenchStamped, Accel, AccelStamped,
        AccelWithCovariance, AccelWithCovarianceStamped, Inertia, InertiaStamped,
        // sensor_msgs
        NavSatFix, Range, Temperature, FluidPressure, RelativeHumidity, Illuminance,
        MagneticField, Joy, RegionOfInterest,
        // nav_msgs
        MapMetaData,
        // vision_msgs
        BoundingBox2D, BoundingBox3D, Detection2D, Detection3D,
    ],
    chunked: [
        JointState(JointStateHeader), LaserScan(LaserScanHeader), Image(ImageHeader),
        DepthImage(DepthImageHeader), PointCloud(PointCloudHeader),
        Text(TextHeader), Float32MultiArray(Float32MultiArrayHeader),
        Float64MultiArray(Float64MultiArrayHeader), Int8MultiArray(Int8MultiArrayHeader),
        Int16MultiArray(Int16MultiArrayHeader), Int32MultiArray(Int32MultiArrayHeader),
        Int64MultiArray(Int64MultiArrayHeader), UInt8MultiArray(UInt8MultiArrayHeader),
        UInt16MultiArray(UInt16MultiArrayHeader), UInt32MultiArray(UInt32MultiArrayHeader),
        UInt64MultiArray(UInt64MultiArrayHeader), ByteMultiArray(ByteMultiArrayHeader),
        Polygon(PolygonHeader),
        PolygonStamped(PolygonStampedHeader), CompressedImage(CompressedImageHeader),
        PointCloud2(PointCloud2Header), OccupancyGrid(OccupancyGridHeader), Path(PathHeader),
        TFMessage(TFMessageHeader), DiagnosticStatus(DiagnosticStatusHeader),
        DiagnosticArray(DiagnosticArrayHeader), Detection2DArray(Detection2DArrayHeader),
        Detection3DArray(Detection3DArrayHeader), Marker(MarkerHeader), Tensor(TensorHeader),
    ],
    structs: [
        JointSample, PointXYZ, PointXYZI, PointXYZRGB, MultiArrayDimension, MultiArrayLayout,
        NavSatStatus, PointField, KeyValue, DiagnosticEntry, ObjectHypothesis,
        ObjectHypothesisWithPose, MarkerPoint,
    ],
}

/// The standard message called `ty`: its nerve name (`nerve/Imu`), its short name (`Imu`) or
/// its ROS 2 name (`sensor_msgs/msg/Imu`; for a ROS 2 type several share, the first).
pub fn standard_named(ty: &str) -> Option<&'static Schema> {
    STANDARD.iter().copied().find(|s| {
        s.name == ty
            || s.name.rsplit('/').next() == Some(ty)
            || (!s.ros2.is_empty() && s.ros2 == ty)
    })
}

/// The standard message whose schema has this name and fingerprint.
pub fn standard(name: &str, layout_hash: u64) -> Option<&'static Schema> {
    STANDARD
        .iter()
        .copied()
        .find(|s| s.name == name && s.hash() == layout_hash)
}

/// The standard struct with this schema (by name and fingerprint): the class a nested field
/// of a standard type is shown as.
pub fn standard_struct(schema: &Schema) -> Option<&'static StandardStruct> {
    STANDARD_STRUCTS
        .iter()
        .find(|s| s.schema.name == schema.name && s.schema.hash() == schema.hash())
}
