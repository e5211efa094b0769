//! `#[derive(Message)]`: layout, schema and fingerprint from one definition.

use nerve_msgs::schema::{Codes, Describe, FieldType, SchemaKind};
use nerve_msgs::{ChunkedMessage, Message, MessageKind};

/// A point in the plane.
#[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
#[message(crate = "nerve_msgs", default = "zeroed")]
#[repr(C)]
pub struct P2 {
    /// East.
    #[field(unit = "m")]
    pub x: f64,
    /// North.
    #[field(unit = "m")]
    pub y: f64,
}

/// A mode.
pub struct Mode;
impl Codes for Mode {
    const VALUES: &'static [(&'static str, i64)] = &[("idle", 0), ("run", 1)];
}

/// A sample message.
#[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
#[message(
    crate = "nerve_msgs",
    name = "test/Sample",
    ros2 = "test_msgs/msg/Sample",
    default = "zeroed"
)]
#[repr(C)]
pub struct Sample {
    /// Where.
    pub at: P2,
    /// Covariance, row-major.
    pub cov: [f64; 4],
    /// Frame.
    #[field(text)]
    pub frame: [u8; 16],
    /// Mode.
    #[field(codes = Mode)]
    pub mode: u32,
    /// Padding.
    pub _pad: u32,
}

/// Header of a list.
#[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
#[message(crate = "nerve_msgs", name = "test/List", chunked(elem = P2, message = List))]
#[repr(C)]
pub struct ListHeader {
    /// Stamp.
    #[field(unit = "ns")]
    pub stamp_ns: u64,
}

#[test]
fn the_schema_describes_every_field_as_laid_out() {
    let s = Sample::SCHEMA;
    assert_eq!(
        (s.name, s.size, s.align, s.ros2),
        ("test/Sample", 72, 8, "test_msgs/msg/Sample")
    );
    assert!(matches!(s.kind, SchemaKind::Fixed));
    let names: Vec<_> = s.fields.iter().map(|f| (f.name, f.offset)).collect();
    assert_eq!(
        names,
        [
            ("at", 0),
            ("cov", 16),
            ("frame", 48),
            ("mode", 64),
            ("_pad", 68)
        ]
    );
    assert!(
        matches!(s.fields[0].ty, FieldType::Struct(p) if p.name == "P2" && p.fields[1].unit == "m")
    );
    assert!(matches!(
        s.fields[1].ty,
        FieldType::Array {
            elem: FieldType::F64,
            len: 4
        }
    ));
    assert!(matches!(s.fields[2].ty, FieldType::Text { len: 16 }));
    assert!(matches!(s.fields[3].ty, FieldType::Enum { values, .. } if values[1] == ("run", 1)));
    assert!(s.fields[4].padding && !s.fields[3].padding);
    assert_eq!(s.fields[1].doc, "Covariance, row-major.");
    assert_eq!(s.doc, "A sample message.");
}

#[test]
fn the_fingerprint_is_the_schema_hash() {
    assert_eq!(Sample::FINGERPRINT.layout_hash, Sample::SCHEMA.hash());
    assert_eq!(Sample::FINGERPRINT.kind, MessageKind::Fixed);
    assert_eq!(Sample::FINGERPRINT.size, 72);
    assert_eq!(Sample::DESCRIPTION.unwrap().hash(), Sample::SCHEMA.hash());
    assert_eq!(
        Sample::from_bytes(Sample::default().as_bytes()),
        Some(Sample::default())
    );
}

#[test]
fn a_chunked_message_is_its_header_and_element() {
    assert_eq!(List::FINGERPRINT.kind, MessageKind::Chunked);
    assert_eq!(
        (List::FINGERPRINT.size, List::FINGERPRINT.elem_size),
        (8, 16)
    );
    let s = List::DESCRIPTION.unwrap();
    assert!(matches!(s.kind, SchemaKind::Chunked { elem: FieldType::Struct(p) } if p.name == "P2"));
    let _h: <List as ChunkedMessage>::Header = ListHeader { stamp_ns: 1 };
}

#[test]
fn differences_name_the_first_field_that_differs() {
    /// The same sample with a renamed field.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Sample")]
    #[repr(C)]
    pub struct Renamed {
        pub at: P2,
        pub cov: [f64; 4],
        #[field(text)]
        pub frame_id: [u8; 16],
        #[field(codes = Mode)]
        pub mode: u32,
        pub _pad: u32,
    }
    /// The same sample with a narrower nested field.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs")]
    #[repr(C)]
    pub struct P2f {
        pub x: f32,
        pub y: f32,
    }
    assert_ne!(Renamed::SCHEMA.hash(), Sample::SCHEMA.hash());
    assert_eq!(
        Sample::SCHEMA.first_difference(&Renamed::SCHEMA).unwrap(),
        "field 2: `frame` here, `frame_id` there"
    );
    assert_eq!(Sample::SCHEMA.first_difference(&Sample::SCHEMA), None);
    assert!(P2::SCHEMA
        .first_difference(&P2f::SCHEMA)
        .unwrap()
        .contains("type name"));
    // Docs and units are not part of the contract.
    /// Other words.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs")]
    #[repr(C)]
    pub struct P2 {
        /// Easting, in metres.
        pub x: f64,
        #[field(unit = "ft")]
        pub y: f64,
    }
    assert_eq!(P2::SCHEMA.hash(), super_p2_hash());
}

fn super_p2_hash() -> u64 {
    P2::SCHEMA.hash()
}

#[test]
fn standard_codes_name_what_the_types_name() {
    use nerve_msgs::{DistortionModel, Encoding, NodeState, PointFormat};
    for (name, v) in <Encoding as Codes>::VALUES {
        assert_eq!(
            Encoding::from_raw(*v as u32).map(Encoding::name),
            Some(*name)
        );
    }
    for (name, v) in <DistortionModel as Codes>::VALUES {
        assert_eq!(
            DistortionModel::from_raw(*v as u32).map(DistortionModel::name),
            Some(*name)
        );
    }
    for (name, v) in <PointFormat as Codes>::VALUES {
        assert_eq!(
            PointFormat::from_raw(*v as u32).map(PointFormat::name),
            Some(*name)
        );
    }
    for (name, v) in <NodeState as Codes>::VALUES {
        assert_eq!(
            NodeState::from_raw(*v as u32).map(NodeState::name),
            Some(*name)
        );
    }
}

#[test]
fn every_standard_message_has_a_schema_matching_its_layout() {
    use nerve_msgs::*;
    fn check<M: Message>() {
        let s = M::DESCRIPTION.expect("a schema");
        assert_eq!(s.name, M::TYPE_NAME);
        assert_eq!(s.size, M::FINGERPRINT.size);
        assert_eq!(s.hash(), M::FINGERPRINT.layout_hash);
        let mut end = 0;
        for f in s.fields {
            assert_eq!(
                f.offset, end,
                "{}: `{}` does not follow the previous field",
                s.name, f.name
            );
            end = f.offset + f.ty.size();
            if f.name.ends_with("_ns") {
                assert_eq!(f.unit, "ns");
            }
        }
        assert_eq!(
            end, s.size,
            "{}: the fields do not cover the struct",
            s.name
        );
    }
    check::<Time>();
    check::<Header>();
    check::<CmdVel>();
    check::<Clock>();
    check::<Heartbeat>();
    check::<Vector3>();
    check::<Quaternion>();
    check::<Twist>();
    check::<Pose2D>();
    check::<Pose>();
    check::<Transform>();
    check::<TransformStamped>();
    check::<Imu>();
    check::<BatteryState>();
    check::<CameraInfo>();
    check::<Odometry>();
    check::<JointState>();
    check::<LaserScan>();
    check::<Image>();
    check::<DepthImage>();
    check::<PointCloud>();
    let image = Image::DESCRIPTION.unwrap();
    assert!(matches!(
        image.field("encoding").unwrap().ty,
        FieldType::Enum { .. }
    ));
    assert!(matches!(
        Header::SCHEMA.field("frame_id").unwrap().ty,
        FieldType::Text { len: 32 }
    ));
}
