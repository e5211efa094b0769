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
    ],
    chunked: [
        JointState(JointStateHeader), LaserScan(LaserScanHeader), Image(ImageHeader),
        DepthImage(DepthImageHeader), PointCloud(PointCloudHeader),
    ],
    structs: [JointSample, PointXYZ, PointXYZI, PointXYZRGB],
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
