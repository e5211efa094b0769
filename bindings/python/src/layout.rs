//! The layout of every standard message, generated from the Rust types: the native message
//! classes (`structs/`) are built from this, so a field added, removed, reordered or retyped in
//! Rust changes the Python class too.

use std::mem::{offset_of, size_of};

use nerve::msgs::*;
use nerve::raw;
use pyo3::prelude::*;

use crate::errors::guard;

/// The Python-side name of a field's type: `u8`, `u32`, `u64`, `f32`, `f64`, `T[N]`, or the
/// name of a described struct.
trait FieldKind {
    fn kind() -> String;
}

macro_rules! prim {
    ($($t:ty),*) => { $(impl FieldKind for $t { fn kind() -> String { stringify!($t).into() } })* };
}
prim!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

impl<T: FieldKind, const N: usize> FieldKind for [T; N] {
    fn kind() -> String {
        format!("{}[{}]", T::kind(), N)
    }
}

fn kind_of<S, T: FieldKind>(_: fn(&S) -> &T) -> String {
    T::kind()
}

/// (name, size, align, [(field, offset, kind)], the bytes of Rust's `Default`)
pub(crate) type StructDesc = (
    &'static str,
    usize,
    usize,
    Vec<(&'static str, usize, String)>,
    Vec<u8>,
);

/// Describes Pod structs from their field names only: the destructuring pattern fails to
/// compile if a field is missing, and each field's offset and type come from the compiler.
macro_rules! described {
    ($($ty:ident { $($f:ident),* $(,)? })*) => {
        $(
            impl FieldKind for $ty {
                fn kind() -> String {
                    stringify!($ty).into()
                }
            }
            const _: fn($ty) = |v: $ty| {
                let $ty { $($f: _),* } = v;
            };
        )*
        pub(crate) fn all_structs() -> Vec<StructDesc> {
            vec![$((
                stringify!($ty),
                size_of::<$ty>(),
                std::mem::align_of::<$ty>(),
                vec![$((stringify!($f), offset_of!($ty, $f), kind_of(|v: &$ty| &v.$f))),*],
                bytemuck::bytes_of(&<$ty>::default()).to_vec(),
            )),*]
        }
    };
}

// Dependencies first: Python builds them in order.
described! {
    Time { ns }
    Header { stamp_ns, seq, frame_id }
    CmdVel { stamp_ns, linear, angular }
    Clock { sim_ns, real_time_factor }
    Heartbeat { node_id_hash, seq, stamp_ns, pid, state }
    Vector3 { x, y, z }
    Quaternion { x, y, z, w }
    Twist { linear, angular }
    Pose2D { x, y, theta }
    Pose { position, orientation }
    Transform { translation, rotation }
    TransformStamped { header, child_frame_id, transform }
    Odometry { header, child_frame_id, pose, pose_covariance, twist, twist_covariance }
    Imu {
        header, orientation, orientation_covariance, angular_velocity,
        angular_velocity_covariance, linear_acceleration, linear_acceleration_covariance,
    }
    BatteryState {
        header, voltage, current, charge, capacity, design_capacity, percentage, temperature,
        cell_voltage_min, cell_voltage_max, time_to_empty_s, time_to_full_s, cell_count,
        power_supply_status, power_supply_health, power_supply_technology, present, _pad,
    }
    CameraInfo { header, width, height, distortion_model, d_len, k, d, r, p }
    JointSample { position, velocity, effort }
    PointXYZ { x, y, z }
    PointXYZI { x, y, z, intensity }
    PointXYZRGB { x, y, z, r, g, b, a }
    JointStateHeader { header, names_hash }
    LaserScanHeader {
        header, angle_min, angle_max, angle_increment, time_increment, scan_time, range_min,
        range_max, _pad,
    }
    ImageHeader { header, width, height, step, encoding }
    DepthImageHeader { header, width, height, step, encoding, depth_scale, _pad }
    PointCloudHeader { header, width, height, format, point_step, is_dense, _pad }
}

type Stored = (String, u32, u32, u32, u32, u64);

/// `(class name, stored type, header struct, element kind)`.
type MessageType = (&'static str, Stored, Option<&'static str>, Option<String>);

fn stored<T: Message>() -> Stored {
    let t = raw::stored_type::<T>();
    (t.name, t.kind, t.size, t.align, t.elem_size, t.layout_hash)
}

/// Every message type: `(class name, stored type, header struct, element kind)`; fixed
/// messages have their own struct as header and no element kind. Plus `"Msgpack"`.
#[pyfunction]
pub fn message_types() -> PyResult<Vec<MessageType>> {
    guard("message_types", || Ok(all_message_types()))
}

/// `message_types()`'s list.
fn all_message_types() -> Vec<MessageType> {
    macro_rules! fixed {
        ($($t:ident),*) => { vec![$((stringify!($t), stored::<$t>(), Some(stringify!($t)), None)),*] };
    }
    macro_rules! chunked {
        ($($t:ident),*) => {
            vec![$((
                stringify!($t),
                stored::<$t>(),
                Some(stringify!($t)).map(|_| header_name::<$t>()),
                Some(<<$t as ChunkedMessage>::Elem as FieldKind>::kind()),
            )),*]
        };
    }
    let mut v = fixed!(
        Time,
        Header,
        CmdVel,
        Clock,
        Heartbeat,
        Vector3,
        Quaternion,
        Twist,
        Pose2D,
        Pose,
        Transform,
        TransformStamped,
        Odometry,
        Imu,
        BatteryState,
        CameraInfo
    );
    v.extend(chunked!(
        JointState, LaserScan, Image, DepthImage, PointCloud
    ));
    v.push(("Msgpack", stored::<nerve::Msgpack<()>>(), None, None));
    v
}

fn header_name<T: ChunkedMessage>() -> &'static str
where
    T::Header: FieldKind,
{
    // Struct names are 'static literals in `all_structs`; find ours by the kind string.
    let name = <T::Header as FieldKind>::kind();
    all_structs()
        .into_iter()
        .map(|(n, ..)| n)
        .find(|n| *n == name)
        .expect("every chunk header is described")
}
