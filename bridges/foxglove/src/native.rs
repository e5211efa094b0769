//! Standard types as Foxglove's own schemas (`foxglove.RawImage`, `foxglove.PointCloud`, …,
//! protobuf), made from the ROS 2 value of a message ([`TopicForm::ros_value`]): a camera
//! frame's or a cloud's bytes go from the chunk into the message with one copy.
//!
//! [`TopicForm::ros_value`]: nerve_ros2::TopicForm::ros_value

use foxglove::bytes::Bytes;
use foxglove::messages::packed_element_field::NumericType;
use foxglove::messages::{
    CompressedImage, FrameTransform, FrameTransforms, LaserScan, PackedElementField, PointCloud,
    Pose, Quaternion, RawImage, Timestamp, Vector3,
};
use foxglove::{Encode, Schema};
use nerve::msgs::dynamic::Value;

/// A Foxglove schema a standard type is shown as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Native {
    RawImage,
    CompressedImage,
    PointCloud,
    LaserScan,
    FrameTransforms,
    FrameTransform,
}

impl Native {
    /// The Foxglove schema for messages of the ROS 2 type `ros2`, if there is one.
    pub fn of(ros2: &str) -> Option<Native> {
        Some(match ros2 {
            "sensor_msgs/msg/Image" => Native::RawImage,
            "sensor_msgs/msg/CompressedImage" => Native::CompressedImage,
            "sensor_msgs/msg/PointCloud2" => Native::PointCloud,
            "sensor_msgs/msg/LaserScan" => Native::LaserScan,
            "tf2_msgs/msg/TFMessage" => Native::FrameTransforms,
            "geometry_msgs/msg/TransformStamped" => Native::FrameTransform,
            _ => return None,
        })
    }

    /// Its schema (a protobuf `FileDescriptorSet`).
    pub fn schema(self) -> Option<Schema> {
        match self {
            Native::RawImage => RawImage::get_schema(),
            Native::CompressedImage => CompressedImage::get_schema(),
            Native::PointCloud => PointCloud::get_schema(),
            Native::LaserScan => LaserScan::get_schema(),
            Native::FrameTransforms => FrameTransforms::get_schema(),
            Native::FrameTransform => FrameTransform::get_schema(),
        }
    }

    /// The message of ROS 2 value `ros` (its bytes apart in `payload`, when they end it),
    /// encoded.
    pub fn encode(self, ros: &Value, payload: Option<&[u8]>) -> Result<Vec<u8>, String> {
        let bytes = |key: &str| -> Bytes {
            match payload {
                Some(p) => Bytes::copy_from_slice(p),
                None => Bytes::from(byte_list(ros.get(key))),
            }
        };
        let mut out = Vec::new();
        let done = match self {
            Native::RawImage => RawImage {
                timestamp: stamp(ros),
                frame_id: frame(ros),
                width: uint(ros, "width"),
                height: uint(ros, "height"),
                encoding: text(ros.get("encoding")),
                step: uint(ros, "step"),
                data: bytes("data"),
            }
            .encode(&mut out),
            Native::CompressedImage => CompressedImage {
                timestamp: stamp(ros),
                frame_id: frame(ros),
                data: bytes("data"),
                format: text(ros.get("format")),
            }
            .encode(&mut out),
            Native::PointCloud => cloud(ros, &bytes("data"))?.encode(&mut out),
            Native::LaserScan => LaserScan {
                timestamp: stamp(ros),
                frame_id: frame(ros),
                pose: Some(identity()),
                start_angle: num(ros.get("angle_min")),
                end_angle: num(ros.get("angle_max")),
                ranges: floats(ros.get("ranges")),
                intensities: floats(ros.get("intensities")),
            }
            .encode(&mut out),
            Native::FrameTransforms => FrameTransforms {
                transforms: list(ros.get("transforms")).iter().map(transform).collect(),
            }
            .encode(&mut out),
            Native::FrameTransform => transform(ros).encode(&mut out),
        };
        done.map_err(|e| e.to_string())?;
        Ok(out)
    }
}

/// A `PointCloud2` as a packed `foxglove.PointCloud` (rows with padding are packed).
fn cloud(ros: &Value, data: &Bytes) -> Result<PointCloud, String> {
    let (width, height) = (uint(ros, "width") as usize, uint(ros, "height") as usize);
    let (step, row) = (
        uint(ros, "point_step") as usize,
        uint(ros, "row_step") as usize,
    );
    let packed = width * step;
    let data = if row == packed || height <= 1 {
        data.slice(..(packed * height.max(1)).min(data.len()))
    } else {
        let mut d = Vec::with_capacity(packed * height);
        for r in 0..height {
            let start = r * row;
            let chunk = data.get(start..start + packed).ok_or_else(|| {
                format!(
                    "a cloud of {height} rows of {row} bytes in {} bytes",
                    data.len()
                )
            })?;
            d.extend_from_slice(chunk);
        }
        Bytes::from(d)
    };
    let fields = list(ros.get("fields"))
        .iter()
        .map(|f| PackedElementField {
            name: text(f.get("name")),
            offset: uint(f, "offset"),
            // ROS 2's datatype codes (INT8 = 1 … FLOAT64 = 8) as Foxglove's.
            r#type: match uint(f, "datatype") {
                1 => NumericType::Int8,
                2 => NumericType::Uint8,
                3 => NumericType::Int16,
                4 => NumericType::Uint16,
                5 => NumericType::Int32,
                6 => NumericType::Uint32,
                7 => NumericType::Float32,
                8 => NumericType::Float64,
                _ => NumericType::Unknown,
            } as i32,
        })
        .collect();
    Ok(PointCloud {
        timestamp: stamp(ros),
        frame_id: frame(ros),
        pose: Some(identity()),
        point_stride: step as u32,
        fields,
        data,
    })
}

fn transform(t: &Value) -> FrameTransform {
    let tr = t.get("transform");
    let at = |path: &str| num(tr.and_then(|v| v.path(path)));
    FrameTransform {
        timestamp: stamp(t),
        parent_frame_id: frame(t),
        child_frame_id: text(t.get("child_frame_id")),
        translation: Some(Vector3 {
            x: at("translation.x"),
            y: at("translation.y"),
            z: at("translation.z"),
        }),
        rotation: Some(Quaternion {
            x: at("rotation.x"),
            y: at("rotation.y"),
            z: at("rotation.z"),
            w: at("rotation.w"),
        }),
    }
}

fn identity() -> Pose {
    Pose {
        position: Some(Vector3::default()),
        orientation: Some(Quaternion {
            w: 1.0,
            ..Default::default()
        }),
    }
}

fn stamp(v: &Value) -> Option<Timestamp> {
    let sec = num(v.path("header.stamp.sec"));
    let nsec = num(v.path("header.stamp.nanosec"));
    Some(Timestamp::new(
        sec.clamp(0.0, u32::MAX as f64) as u32,
        nsec.clamp(0.0, 999_999_999.0) as u32,
    ))
}

fn frame(v: &Value) -> String {
    text(v.path("header.frame_id"))
}

fn num(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

fn uint(v: &Value, key: &str) -> u32 {
    num(v.get(key)).clamp(0.0, u32::MAX as f64) as u32
}

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Text(t)) => t.clone(),
        _ => String::new(),
    }
}

fn list(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::List(items)) => items.clone(),
        _ => Vec::new(),
    }
}

fn floats(v: Option<&Value>) -> Vec<f64> {
    list(v)
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect()
}

fn byte_list(v: Option<&Value>) -> Vec<u8> {
    match v {
        Some(Value::Bytes(b)) => b.clone(),
        Some(Value::List(items)) => items
            .iter()
            .map(|x| x.as_f64().unwrap_or(0.0) as u8)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxglove::Decode;

    fn s(fields: Vec<(&str, Value)>) -> Value {
        Value::Struct(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    fn header(sec: u64, frame: &str) -> Value {
        s(vec![
            (
                "stamp",
                s(vec![("sec", Value::UInt(sec)), ("nanosec", Value::UInt(5))]),
            ),
            ("frame_id", Value::Text(frame.into())),
        ])
    }

    fn xyz(x: f64, w: Option<f64>) -> Value {
        let mut f = vec![
            ("x", Value::Float(x)),
            ("y", Value::Float(0.0)),
            ("z", Value::Float(0.0)),
        ];
        f.extend(w.map(|w| ("w", Value::Float(w))));
        s(f)
    }

    #[test]
    fn transforms_keep_their_frames_and_poses() {
        let t = |child: &str, x: f64| {
            s(vec![
                ("header", header(7, "odom")),
                ("child_frame_id", Value::Text(child.into())),
                (
                    "transform",
                    s(vec![
                        ("translation", xyz(x, None)),
                        ("rotation", xyz(0.0, Some(1.0))),
                    ]),
                ),
            ])
        };
        let ros = s(vec![(
            "transforms",
            Value::List(vec![t("base", 1.5), t("camera", 0.25)]),
        )]);
        let b = Native::FrameTransforms.encode(&ros, None).unwrap();
        let m = FrameTransforms::decode(&b[..]).unwrap();
        assert_eq!(m.transforms.len(), 2);
        let base = &m.transforms[0];
        assert_eq!(
            (base.parent_frame_id.as_str(), base.child_frame_id.as_str()),
            ("odom", "base")
        );
        assert_eq!(base.translation.as_ref().unwrap().x, 1.5);
        assert_eq!(base.rotation.as_ref().unwrap().w, 1.0);
        assert_eq!(base.timestamp, Some(Timestamp::new(7, 5)));
    }

    #[test]
    fn scans_and_padded_clouds() {
        let ros = s(vec![
            ("header", header(1, "laser")),
            ("angle_min", Value::Float(-1.0)),
            ("angle_max", Value::Float(1.0)),
            (
                "ranges",
                Value::List(vec![Value::Float(2.0), Value::Float(3.0)]),
            ),
            ("intensities", Value::List(vec![])),
        ]);
        let m = LaserScan::decode(&Native::LaserScan.encode(&ros, None).unwrap()[..]).unwrap();
        assert_eq!(
            (m.start_angle, m.end_angle, m.ranges),
            (-1.0, 1.0, vec![2.0, 3.0])
        );
        // Two rows of one 4-byte point, each row padded to 8 bytes: packed to 8 bytes.
        let field = s(vec![
            ("name", Value::Text("x".into())),
            ("offset", Value::UInt(0)),
            ("datatype", Value::UInt(7)),
            ("count", Value::UInt(1)),
        ]);
        let ros = s(vec![
            ("header", header(1, "lidar")),
            ("width", Value::UInt(1)),
            ("height", Value::UInt(2)),
            ("fields", Value::List(vec![field])),
            ("point_step", Value::UInt(4)),
            ("row_step", Value::UInt(8)),
        ]);
        let payload = [1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0];
        let b = Native::PointCloud.encode(&ros, Some(&payload)).unwrap();
        let m = PointCloud::decode(&b[..]).unwrap();
        assert_eq!(&m.data[..], &[1, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(m.fields[0].r#type, NumericType::Float32 as i32);
        // A cloud whose rows do not fit its bytes is refused, not read past.
        assert!(Native::PointCloud
            .encode(&ros, Some(&payload[..10]))
            .is_err());
    }
}
