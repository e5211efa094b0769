//! Sizes and fingerprints of the standard messages: part of the wire contract.
//!
//! `cargo test -p nerve-msgs --test sizes -- --nocapture` prints the benchmark payload sizes.

use core::mem::{align_of, size_of};

use nerve_msgs::schema::Describe;
use nerve_msgs::*;

#[test]
fn fixed_message_sizes_are_the_documented_ones() {
    assert_eq!(size_of::<Time>(), 8);
    assert_eq!(size_of::<Header>(), 48);
    assert_eq!(size_of::<CmdVel>(), 16);
    assert_eq!(size_of::<Clock>(), 16);
    assert_eq!(size_of::<Heartbeat>(), 32);
    assert_eq!(size_of::<Vector3>(), 24);
    assert_eq!(size_of::<Quaternion>(), 32);
    assert_eq!(size_of::<Twist>(), 48);
    assert_eq!(size_of::<Pose2D>(), 24);
    assert_eq!(size_of::<Pose>(), 56);
    assert_eq!(size_of::<Transform>(), 56);
    assert_eq!(size_of::<TransformStamped>(), 136);
    assert_eq!(size_of::<Imu>(), 344);
    assert_eq!(size_of::<Odometry>(), 760);
    assert_eq!(size_of::<BatteryState>(), 104);
    assert_eq!(size_of::<CameraInfo>(), 368);
    // std_msgs
    assert_eq!(size_of::<Bool>(), 1);
    assert_eq!(size_of::<Int8>(), 1);
    assert_eq!(size_of::<Int16>(), 2);
    assert_eq!(size_of::<Int32>(), 4);
    assert_eq!(size_of::<Int64>(), 8);
    assert_eq!(size_of::<UInt8>(), 1);
    assert_eq!(size_of::<UInt16>(), 2);
    assert_eq!(size_of::<UInt32>(), 4);
    assert_eq!(size_of::<UInt64>(), 8);
    assert_eq!(size_of::<Float32>(), 4);
    assert_eq!(size_of::<Float64>(), 8);
    assert_eq!(size_of::<ColorRGBA>(), 16);
    // geometry_msgs
    assert_eq!(size_of::<Point>(), 24);
    assert_eq!(size_of::<Point32>(), 12);
    assert_eq!(size_of::<PointStamped>(), 72);
    assert_eq!(size_of::<Vector3Stamped>(), 72);
    assert_eq!(size_of::<QuaternionStamped>(), 80);
    assert_eq!(size_of::<PoseStamped>(), 104);
    assert_eq!(size_of::<PoseWithCovariance>(), 344);
    assert_eq!(size_of::<PoseWithCovarianceStamped>(), 392);
    assert_eq!(size_of::<TwistStamped>(), 96);
    assert_eq!(size_of::<TwistWithCovariance>(), 336);
    assert_eq!(size_of::<TwistWithCovarianceStamped>(), 384);
    assert_eq!(size_of::<Wrench>(), 48);
    assert_eq!(size_of::<WrenchStamped>(), 96);
    assert_eq!(size_of::<Accel>(), 48);
    assert_eq!(size_of::<AccelStamped>(), 96);
    assert_eq!(size_of::<AccelWithCovariance>(), 336);
    assert_eq!(size_of::<AccelWithCovarianceStamped>(), 384);
    assert_eq!(size_of::<Inertia>(), 80);
    assert_eq!(size_of::<InertiaStamped>(), 128);
    // sensor_msgs
    assert_eq!(size_of::<NavSatFix>(), 152);
    assert_eq!(size_of::<Range>(), 72);
    assert_eq!(size_of::<Temperature>(), 64);
    assert_eq!(size_of::<FluidPressure>(), 64);
    assert_eq!(size_of::<RelativeHumidity>(), 64);
    assert_eq!(size_of::<Illuminance>(), 64);
    assert_eq!(size_of::<MagneticField>(), 144);
    assert_eq!(size_of::<Joy>(), 440);
    assert_eq!(size_of::<RegionOfInterest>(), 20);
    // nav_msgs, vision_msgs
    assert_eq!(size_of::<MapMetaData>(), 80);
    assert_eq!(size_of::<BoundingBox2D>(), 40);
    assert_eq!(size_of::<BoundingBox3D>(), 80);
    assert_eq!(size_of::<Detection2D>(), 1664);
    assert_eq!(size_of::<Detection3D>(), 1704);
    // SIZE and the fingerprint agree with size_of.
    assert_eq!(Imu::SIZE, 344);
    assert_eq!(Imu::FINGERPRINT.size, 344);
    assert_eq!(Imu::FINGERPRINT.align, 8);
    assert_eq!(CmdVel::FINGERPRINT.elem_size, 0);
}

#[test]
fn chunked_header_and_element_sizes_are_the_documented_ones() {
    fn check<M: ChunkedMessage>(header: usize, elem: usize) {
        assert_eq!(size_of::<M::Header>(), header, "{} header", M::TYPE_NAME);
        assert_eq!(size_of::<M::Elem>(), elem, "{} elem", M::TYPE_NAME);
        assert_eq!(M::FINGERPRINT.size as usize, header);
        assert_eq!(M::FINGERPRINT.align as usize, align_of::<M::Header>());
        assert_eq!(M::FINGERPRINT.elem_size as usize, elem);
        assert_eq!(M::FINGERPRINT.kind, MessageKind::Chunked);
    }
    check::<JointState>(56, 24);
    check::<LaserScan>(80, 4);
    check::<Image>(64, 1);
    check::<DepthImage>(72, 1);
    check::<PointCloud>(72, 1);
    check::<Text>(4, 1);
    check::<Float32MultiArray>(328, 4);
    check::<Float64MultiArray>(328, 8);
    check::<Int8MultiArray>(328, 1);
    check::<Int16MultiArray>(328, 2);
    check::<Int32MultiArray>(328, 4);
    check::<Int64MultiArray>(328, 8);
    check::<UInt8MultiArray>(328, 1);
    check::<UInt16MultiArray>(328, 2);
    check::<UInt32MultiArray>(328, 4);
    check::<UInt64MultiArray>(328, 8);
    check::<ByteMultiArray>(328, 1);
    check::<Polygon>(4, 12);
    check::<PolygonStamped>(48, 12);
    check::<CompressedImage>(80, 1);
    check::<PointCloud2>(776, 1);
    check::<OccupancyGrid>(128, 1);
    check::<Path>(48, 104);
    check::<TFMessage>(4, 136);
    check::<DiagnosticStatus>(260, 192);
    check::<DiagnosticArray>(48, 260);
    check::<Detection2DArray>(48, 1664);
    check::<Detection3DArray>(48, 1704);
    check::<Marker>(456, 40);
    check::<Tensor>(192, 1);
    assert_eq!(size_of::<MultiArrayDimension>(), 40);
    assert_eq!(size_of::<MultiArrayLayout>(), 328);
    assert_eq!(size_of::<NavSatStatus>(), 4);
    assert_eq!(size_of::<PointField>(), 44);
    assert_eq!(size_of::<KeyValue>(), 192);
    assert_eq!(size_of::<DiagnosticEntry>(), 260);
    assert_eq!(size_of::<ObjectHypothesis>(), 40);
    assert_eq!(size_of::<ObjectHypothesisWithPose>(), 384);
    assert_eq!(size_of::<MarkerPoint>(), 40);
    assert_eq!(size_of::<PointXYZ>(), 12);
    assert_eq!(size_of::<PointXYZI>(), 16);
    assert_eq!(size_of::<PointXYZRGB>(), 16);
}

#[test]
fn benchmark_payload_sizes() {
    let laser = size_of::<LaserScanHeader>() + LaserScan::SEED_RANGES * size_of::<f32>();
    println!("benchmark payloads (bytes):");
    println!(
        "  CmdVel                         {:>5}",
        size_of::<CmdVel>()
    );
    println!(
        "  BatteryState                   {:>5}",
        size_of::<BatteryState>()
    );
    println!("  Imu                            {:>5}", size_of::<Imu>());
    println!(
        "  Odometry                       {:>5}",
        size_of::<Odometry>()
    );
    println!(
        "  LaserScan (header + {} ranges) {:>5}",
        LaserScan::SEED_RANGES,
        laser
    );
    assert_eq!(laser, 1520);
}

#[test]
fn fingerprints_differ_between_types() {
    let all: Vec<_> = STANDARD.iter().map(|s| (s.name, s.hash())).collect();
    assert!(all.len() >= 80, "{}", all.len());
    for (i, a) in all.iter().enumerate() {
        assert!(a.0.starts_with("nerve/"), "{}", a.0);
        for b in &all[i + 1..] {
            assert_ne!(a.0, b.0);
            assert_ne!(a.1, b.1, "{} vs {}", a.0, b.0);
        }
    }
    // The typed fingerprints agree with the table.
    assert_eq!(Imu::FINGERPRINT.layout_hash, Imu::SCHEMA.hash());
    assert_eq!(Marker::FINGERPRINT.layout_hash, MarkerHeader::SCHEMA.hash());
    // Same field list, different name (Pose and Transform differ in field names too).
    assert_eq!(Pose::FINGERPRINT.size, Transform::FINGERPRINT.size);
}

#[test]
fn every_standard_message_names_its_ros2_counterpart() {
    // Heartbeat and Tensor are nerve's own; every other standard message has a ROS 2
    // counterpart.
    for s in STANDARD {
        if matches!(s.name, "nerve/Heartbeat" | "nerve/Tensor") {
            assert_eq!(s.ros2, "");
            continue;
        }
        assert!(s.ros2.contains("/msg/"), "{} has no ros2 name", s.name);
        assert!(!s.doc.is_empty(), "{} has no doc", s.name);
    }
}

/// Two versions of the "same" messages, as two processes built from different sources would
/// declare them.
mod v1 {
    /// v1.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Sample", default = "zeroed")]
    #[repr(C)]
    pub struct Sample {
        pub a: u32,
        pub b: f32,
    }
    /// v1.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", default = "zeroed")]
    #[repr(C)]
    pub struct Inner {
        pub a: u32,
    }
    /// v1.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Outer", default = "zeroed")]
    #[repr(C)]
    pub struct Outer {
        pub inner: Inner,
    }
    /// v1.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Scan", chunked(elem = f32, message = Scan, doc = "v1."), default = "zeroed")]
    #[repr(C)]
    pub struct ScanHeader {
        pub n: u32,
    }
}

mod v2 {
    /// v2: field renamed.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Sample", default = "zeroed")]
    #[repr(C)]
    pub struct Sample {
        pub a: u32,
        pub c: f32,
    }
    /// v3: field type changed, same size.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Sample", default = "zeroed")]
    #[repr(C)]
    pub struct SampleTy {
        pub a: u32,
        pub b: i32,
    }
    /// v4: fields swapped.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Sample", default = "zeroed")]
    #[repr(C)]
    pub struct SampleSwap {
        pub b: f32,
        pub a: u32,
    }
    /// v2: the nested struct changed, the outer field list did not.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", default = "zeroed")]
    #[repr(C)]
    pub struct Inner {
        pub a: f32,
    }
    /// v2.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Outer", default = "zeroed")]
    #[repr(C)]
    pub struct Outer {
        pub inner: Inner,
    }
    /// v2.
    #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
    #[message(crate = "nerve_msgs", name = "test/Scan", chunked(elem = u32, message = Scan, doc = "v2: element type changed, same size."), default = "zeroed")]
    #[repr(C)]
    pub struct ScanHeader {
        pub n: u32,
    }
}

#[test]
fn changing_a_field_changes_the_layout_hash() {
    let base = v1::Sample::FINGERPRINT;
    for other in [
        v2::Sample::FINGERPRINT,
        v2::SampleTy::FINGERPRINT,
        v2::SampleSwap::FINGERPRINT,
    ] {
        assert_eq!(base.name, other.name);
        assert_eq!(base.size, other.size);
        assert_ne!(base.layout_hash, other.layout_hash);
        assert_ne!(base, other);
    }
}

#[test]
fn changing_a_nested_struct_changes_the_outer_hash() {
    assert_eq!(v1::Outer::FINGERPRINT.size, v2::Outer::FINGERPRINT.size);
    assert_ne!(
        v1::Outer::FINGERPRINT.layout_hash,
        v2::Outer::FINGERPRINT.layout_hash
    );
}

#[test]
fn changing_the_element_type_changes_a_chunked_hash() {
    let (a, b) = (v1::Scan::FINGERPRINT, v2::Scan::FINGERPRINT);
    assert_eq!((a.size, a.elem_size), (b.size, b.elem_size));
    assert_ne!(a.layout_hash, b.layout_hash);
}

#[test]
fn layout_hash_is_deterministic() {
    // Declared identically in a second place, the hash is the same: it depends on the
    // source, not on the crate or the build.
    mod again {
        /// Same as v1::Sample.
        #[derive(Clone, Copy, Debug, PartialEq, nerve_msgs::Message)]
        #[message(crate = "nerve_msgs", name = "test/Sample", default = "zeroed")]
        #[repr(C)]
        pub struct Sample {
            pub a: u32,
            pub b: f32,
        }
    }
    assert_eq!(v1::Sample::FINGERPRINT, again::Sample::FINGERPRINT);
}
