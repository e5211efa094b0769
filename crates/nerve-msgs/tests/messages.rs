//! Behaviour of the message helpers: frame names, encodings, defaults, byte views.

use nerve_msgs::*;

#[test]
fn set_frame_id_round_trips() {
    let mut h = Header::default();
    h.set_frame_id("base_link").unwrap();
    assert_eq!(h.frame_id(), "base_link");
    h.set_frame_id("map").unwrap();
    assert_eq!(h.frame_id(), "map", "a shorter name clears the old tail");
    assert_eq!(&h.frame_id[3..], &[0u8; 29]);
    let max = "x".repeat(FRAME_ID_MAX);
    h.set_frame_id(&max).unwrap();
    assert_eq!(h.frame_id(), max);
    assert_eq!(h.frame_id[FRAME_ID_MAX], 0, "always NUL-terminated");
}

#[test]
fn set_frame_id_rejects_too_long_names() {
    let mut h = Header::new(1, 2, "camera").unwrap();
    let long = "a_very_long_frame_name_that_does_not_fit";
    let err = h.set_frame_id(long).unwrap_err();
    assert_eq!(
        err,
        FrameIdError::TooLong {
            field: "frame_id",
            name: long.to_owned(),
            len: long.len()
        }
    );
    let msg = err.to_string();
    assert!(msg.contains(long), "{msg}");
    assert!(msg.contains("31 bytes"), "{msg}");
    assert!(msg.contains("shorter"), "{msg}");
    assert_eq!(h.frame_id(), "camera", "unchanged, not truncated");
    // Exactly the buffer size is one byte too many (the NUL terminator).
    assert!(h.set_frame_id(&"y".repeat(FRAME_ID_LEN)).is_err());
    assert!(Header::new(0, 0, long).is_err());
}

#[test]
fn set_frame_id_rejects_nul() {
    let mut h = Header::default();
    let err = h.set_frame_id("a\0b").unwrap_err();
    assert!(matches!(err, FrameIdError::ContainsNul { .. }));
    assert!(err.to_string().contains("NUL"));
}

#[test]
fn child_frame_ids() {
    let mut t = TransformStamped::default();
    t.set_child_frame_id("laser").unwrap();
    assert_eq!(t.child_frame_id(), "laser");
    let err = t.set_child_frame_id(&"z".repeat(40)).unwrap_err();
    assert!(err.to_string().starts_with("child_frame_id"));
    let mut o = Odometry::default();
    o.set_child_frame_id("base_link").unwrap();
    assert_eq!(o.child_frame_id(), "base_link");
}

#[test]
fn frame_id_from_garbage_is_a_valid_prefix() {
    let mut h = Header::default();
    h.frame_id[..4].copy_from_slice(b"ab\xffc");
    assert_eq!(h.frame_id(), "ab");
    h.frame_id = [b'q'; FRAME_ID_LEN];
    assert_eq!(
        h.frame_id().len(),
        FRAME_ID_LEN,
        "no terminator: whole buffer"
    );
}

#[test]
fn encoding_round_trips() {
    for e in Encoding::ALL {
        assert_eq!(Encoding::from_name(e.name()), Some(e));
        assert_eq!(Encoding::from_raw(e.raw()), Some(e));
        assert_eq!(e.to_string(), e.name());
        assert_eq!(e.bytes_per_pixel() % e.channels(), 0);
    }
    assert_eq!(Encoding::from_name("rgb8"), Some(Encoding::Rgb8));
    assert_eq!(Encoding::from_name("16UC1"), Some(Encoding::U16C1));
    assert_eq!(Encoding::from_name("32FC1"), Some(Encoding::F32C1));
    assert_eq!(Encoding::from_name("RGB8"), None);
    assert_eq!(Encoding::from_name("yuv422"), None);
    assert_eq!(Encoding::from_raw(0), None);
    assert_eq!(Encoding::from_raw(99), None);
    let bpp: Vec<usize> = Encoding::ALL.iter().map(|e| e.bytes_per_pixel()).collect();
    assert_eq!(bpp, [3, 3, 4, 4, 1, 2, 2, 4]);
}

#[test]
fn other_codes_round_trip() {
    for m in [
        DistortionModel::None,
        DistortionModel::PlumbBob,
        DistortionModel::RationalPolynomial,
        DistortionModel::Equidistant,
    ] {
        assert_eq!(DistortionModel::from_raw(m as u32), Some(m));
        assert_eq!(DistortionModel::from_name(m.name()), Some(m));
    }
    for f in [PointFormat::Xyz, PointFormat::Xyzi, PointFormat::Xyzrgb] {
        assert_eq!(PointFormat::from_raw(f as u32), Some(f));
    }
    for s in 1..=5 {
        assert_eq!(NodeState::from_raw(s).unwrap() as u32, s);
    }
    assert_eq!(NodeState::from_raw(0), None);
}

#[test]
fn rotations_default_to_identity() {
    assert_eq!(Quaternion::default(), Quaternion::IDENTITY);
    assert_eq!(Quaternion::default().w, 1.0);
    assert_eq!(Pose::default().orientation.w, 1.0);
    assert_eq!(Transform::default().rotation.w, 1.0);
    assert_eq!(TransformStamped::default().transform.rotation.w, 1.0);
    assert_eq!(Imu::default().orientation.w, 1.0);
    assert_eq!(Odometry::default().pose.orientation.w, 1.0);
    let q = Quaternion::from_yaw(core::f64::consts::PI);
    assert!((q.z - 1.0).abs() < 1e-12 && q.w.abs() < 1e-12);
}

#[test]
fn as_bytes_round_trips() {
    let imu = Imu {
        header: Header::new(123, 4, "imu_link").unwrap(),
        angular_velocity: Vector3::new(0.1, 0.2, 0.3),
        ..Default::default()
    };
    let bytes = imu.as_bytes();
    assert_eq!(bytes.len(), Imu::SIZE);
    assert_eq!(Imu::from_bytes(bytes), Some(imu));
    assert_eq!(Imu::from_bytes(&bytes[1..]), None, "wrong length");
    // Unaligned input is fine.
    let mut shifted = vec![0u8; Imu::SIZE + 1];
    shifted[1..].copy_from_slice(bytes);
    assert_eq!(Imu::from_bytes(&shifted[1..]), Some(imu));
    let cmd = CmdVel {
        stamp_ns: 1,
        linear: 0.5,
        angular: -0.25,
    };
    assert_eq!(bytemuck::bytes_of(&cmd), cmd.as_bytes());
}

#[test]
fn image_header_lengths() {
    let h = ImageHeader::new(Header::default(), 640, 480, Encoding::Rgb8);
    assert_eq!(h.step, 1920);
    assert_eq!(h.data_len(), 640 * 480 * 3);
    assert_eq!(h.encoding(), Some(Encoding::Rgb8));
    let odd = ImageHeader { step: 2000, ..h };
    assert_eq!(odd.data_len(), 2000 * 480, "row padding counts");
}

#[test]
fn depth_image_reads_metres() {
    assert_eq!(
        DepthImageHeader::new(Header::default(), 2, 1, Encoding::Rgb8, 1.0),
        Err(NotADepthEncoding(Encoding::Rgb8))
    );
    let h = DepthImageHeader::new(Header::default(), 2, 2, Encoding::U16C1, 0.001).unwrap();
    assert_eq!(h.data_len(), 8);
    let data: Vec<u8> = [1500u16, 0, 2000, 1]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let close = |v: Option<f32>, want: f32| v.is_some_and(|v| (v - want).abs() < 1e-6);
    assert!(close(h.depth_m(&data, 0, 0), 1.5));
    assert_eq!(h.depth_m(&data, 1, 0), None, "0 = no measurement");
    assert!(close(h.depth_m(&data, 0, 1), 2.0));
    assert_eq!(h.depth_m(&data, 2, 0), None, "out of bounds");
    assert_eq!(h.depth_m(&data[..6], 1, 1), None, "short payload");
    let f = DepthImageHeader::new(Header::default(), 1, 1, Encoding::F32C1, 1.0).unwrap();
    assert_eq!(f.depth_m(&2.25f32.to_le_bytes(), 0, 0), Some(2.25));
}

#[test]
fn point_cloud_cast() {
    let h = PointCloudHeader::new(Header::default(), PointFormat::Xyzi, 3);
    assert_eq!(h.point_step, 16);
    assert_eq!(h.point_count(), 3);
    assert_eq!(h.data_len(), 48);
    let points = [PointXYZI {
        x: 1.0,
        y: 2.0,
        z: 3.0,
        intensity: 4.0,
    }; 3];
    let bytes: &[u8] = bytemuck::cast_slice(&points);
    assert_eq!(bytes.len(), h.data_len());
    let back: &[PointXYZI] = bytemuck::cast_slice(bytes);
    assert_eq!(back, points);
}

#[test]
fn laser_scan_geometry() {
    let h = LaserScanHeader {
        angle_min: -core::f32::consts::PI,
        angle_max: core::f32::consts::PI - 1f32.to_radians(),
        angle_increment: 1f32.to_radians(),
        ..Default::default()
    };
    assert_eq!(h.expected_ranges(), Some(LaserScan::SEED_RANGES));
    assert_eq!(LaserScanHeader::data_len(LaserScan::SEED_RANGES), 1440);
    assert_eq!(
        LaserScanHeader {
            angle_increment: 0.0,
            ..h
        }
        .expected_ranges(),
        None
    );
}

#[test]
fn camera_info_distortion() {
    let mut c = CameraInfo {
        distortion_model: DistortionModel::PlumbBob as u32,
        ..Default::default()
    };
    c.set_d(&[0.1, -0.2, 0.0, 0.0, 0.05]).unwrap();
    assert_eq!(c.d(), Some(&[0.1, -0.2, 0.0, 0.0, 0.05][..]));
    assert_eq!(c.model(), Some(DistortionModel::PlumbBob));
    assert_eq!(c.set_d(&[0.0; 9]), Err(TooManyCoefficients { len: 9 }));
    assert_eq!(c.d_len, 5, "unchanged");
    c.d_len = 100;
    assert_eq!(c.d(), None, "corrupt d_len is reported, not clamped");
}

#[test]
fn joint_names_hash_depends_on_order() {
    let a = JointStateHeader::hash_names(&["hip", "knee"]);
    assert_eq!(
        a,
        JointStateHeader::hash_names(&["hip".to_string(), "knee".to_string()])
    );
    assert_ne!(a, JointStateHeader::hash_names(&["knee", "hip"]));
    assert_ne!(a, JointStateHeader::hash_names(&["hipk", "nee"]));
}
