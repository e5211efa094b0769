//! Every fixed capacity of the standard set refuses what does not fit and leaves the field as
//! it was: nothing is truncated.

use nerve_msgs::*;

fn text(n: usize) -> String {
    "x".repeat(n)
}

/// `set` accepts `max` bytes, refuses `max + 1` and a NUL, and leaves `get` unchanged after a
/// refusal.
fn check_text<T>(
    value: &mut T,
    max: usize,
    set: impl Fn(&mut T, &str) -> Result<(), TextError>,
    get: impl Fn(&T) -> String,
) {
    set(value, &text(max)).unwrap();
    assert_eq!(get(value), text(max));
    let e = set(value, &text(max + 1)).unwrap_err();
    assert!(
        matches!(e, TextError::TooLong { len, max: m, .. } if len == max + 1 && m == max),
        "{e:?}"
    );
    assert!(e.to_string().contains(&format!("{max} bytes")), "{e}");
    assert!(matches!(
        set(value, "a\0b").unwrap_err(),
        TextError::ContainsNul { .. }
    ));
    assert_eq!(get(value), text(max), "a refused text changed the field");
}

/// `set` accepts `max` items, refuses `max + 1`, and leaves the list unchanged after a
/// refusal.
fn check_list<T, I: Copy + Default + PartialEq + core::fmt::Debug>(
    value: &mut T,
    max: usize,
    set: impl Fn(&mut T, &[I]) -> Result<(), TooMany>,
    get: impl Fn(&T) -> Vec<I>,
) {
    let full = vec![I::default(); max];
    set(value, &full).unwrap();
    assert_eq!(get(value).len(), max);
    let e = set(value, &vec![I::default(); max + 1]).unwrap_err();
    assert_eq!((e.len, e.max), (max + 1, max));
    assert!(e.to_string().contains(&format!("at most {max}")), "{e}");
    assert_eq!(get(value), full, "a refused list changed the field");
}

#[test]
fn multi_array_labels_and_dimensions() {
    let d = MultiArrayDimension::new(&text(DIM_LABEL_LEN - 1), 3, 3).unwrap();
    assert_eq!(d.label(), text(31));
    assert!(MultiArrayDimension::new(&text(DIM_LABEL_LEN), 3, 3).is_err());
    let mut layout = MultiArrayLayout::default();
    check_list(
        &mut layout,
        MultiArrayLayout::DIMS_MAX,
        MultiArrayLayout::set_dims,
        |l| l.dims().unwrap().to_vec(),
    );
    assert!(MultiArrayLayout::new(&[d; 9], 0).is_err());
}

#[test]
fn joy_axes_and_buttons() {
    let mut joy = Joy::default();
    check_list(&mut joy, Joy::AXES_MAX, Joy::set_axes, |j| {
        j.axes().unwrap().to_vec()
    });
    check_list(&mut joy, Joy::BUTTONS_MAX, Joy::set_buttons, |j| {
        j.buttons().unwrap().to_vec()
    });
    joy.set_axes(&[0.5, -1.0]).unwrap();
    assert_eq!(joy.axes(), Some(&[0.5, -1.0][..]));
    assert_eq!(joy.axes[2], 0.0, "unused entries are zeroed");
    joy.axes_len = 99;
    assert_eq!(
        joy.axes(),
        None,
        "a corrupt count is reported, not followed"
    );
}

#[test]
fn compressed_image_format() {
    let mut h = CompressedImageHeader::default();
    check_text(
        &mut h,
        IMAGE_FORMAT_LEN - 1,
        CompressedImageHeader::set_format,
        |h| h.format().to_owned(),
    );
    h.set_format("jpeg").unwrap();
    assert_eq!(h.format(), "jpeg");
}

#[test]
fn point_cloud2_fields_and_names() {
    assert!(PointField::new(&text(POINT_FIELD_NAME_LEN), 0, PointFieldType::Float32, 1).is_err());
    let x = PointField::new("x", 0, PointFieldType::Float32, 1).unwrap();
    assert_eq!(
        (x.name(), x.datatype()),
        ("x", Some(PointFieldType::Float32))
    );
    let mut h = PointCloud2Header::default();
    check_list(
        &mut h,
        PointCloud2Header::FIELDS_MAX,
        PointCloud2Header::set_fields,
        |h| h.fields().unwrap().to_vec(),
    );
    h.set_fields(&[x]).unwrap();
    assert_eq!(h.field("x"), Some(&x));
    assert_eq!(h.field("y"), None);
}

#[test]
fn diagnostic_texts() {
    assert!(KeyValue::new(&text(KEY_LEN - 1), &text(VALUE_LEN - 1)).is_ok());
    assert!(KeyValue::new(&text(KEY_LEN), "v").is_err());
    assert!(KeyValue::new("k", &text(VALUE_LEN)).is_err());
    let ok = DiagnosticStatusHeader::new(DiagnosticLevel::Warn, "motor", "hot", "m1").unwrap();
    assert_eq!(ok.level(), Some(DiagnosticLevel::Warn));
    assert_eq!(
        (ok.name(), ok.message(), ok.hardware_id()),
        ("motor", "hot", "m1")
    );
    for (name, message, hw) in [
        (text(DIAG_NAME_LEN), String::new(), String::new()),
        (String::new(), text(DIAG_MESSAGE_LEN), String::new()),
        (String::new(), String::new(), text(DIAG_HARDWARE_ID_LEN)),
    ] {
        let e = DiagnosticStatusHeader::new(DiagnosticLevel::Ok, &name, &message, &hw);
        assert!(matches!(e, Err(TextError::TooLong { .. })), "{e:?}");
    }
}

#[test]
fn diagnostic_entries_group_back_into_statuses() {
    let a = DiagnosticStatusHeader::new(DiagnosticLevel::Ok, "a", "fine", "").unwrap();
    let b = DiagnosticStatusHeader::new(DiagnosticLevel::Error, "b", "broken", "hw").unwrap();
    let kv = KeyValue::new("temperature", "80").unwrap();
    let entries = [
        DiagnosticEntry::status(&a),
        DiagnosticEntry::status(&b),
        DiagnosticEntry::value(&kv),
        DiagnosticEntry::value(&kv),
    ];
    let groups = DiagnosticEntry::group(&entries).unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!((groups[0].0, groups[0].1.len()), (a, 0));
    assert_eq!((groups[1].0, groups[1].1.clone()), (b, vec![kv, kv]));
    // A value before any status fits nowhere.
    assert_eq!(DiagnosticEntry::group(&entries[2..]), Err(0));
}

#[test]
fn detection_results_and_ids() {
    let h = ObjectHypothesisWithPose {
        hypothesis: ObjectHypothesis::new("person", 0.9).unwrap(),
        ..Default::default()
    };
    assert_eq!(h.hypothesis.class_id(), "person");
    assert!(ObjectHypothesis::new(&text(CLASS_ID_LEN), 0.5).is_err());
    let mut d2 = Detection2D::default();
    check_list(
        &mut d2,
        Detection2D::RESULTS_MAX,
        Detection2D::set_results,
        |d| d.results().unwrap().to_vec(),
    );
    check_text(&mut d2, DETECTION_ID_LEN - 1, Detection2D::set_id, |d| {
        d.id().to_owned()
    });
    let mut d3 = Detection3D::default();
    assert_eq!(d3.bbox.center.orientation.w, 1.0);
    check_list(
        &mut d3,
        Detection3D::RESULTS_MAX,
        Detection3D::set_results,
        |d| d.results().unwrap().to_vec(),
    );
    check_text(&mut d3, DETECTION_ID_LEN - 1, Detection3D::set_id, |d| {
        d.id().to_owned()
    });
    d3.set_results(&[h]).unwrap();
    assert_eq!(d3.results(), Some(&[h][..]));
}

#[test]
fn marker_texts() {
    let mut m = MarkerHeader::default();
    assert_eq!(m.marker_type(), Some(MarkerType::Arrow));
    assert_eq!(m.action(), Some(MarkerAction::Add));
    check_text(&mut m, MARKER_NS_LEN - 1, MarkerHeader::set_ns, |m| {
        m.ns().to_owned()
    });
    check_text(&mut m, MARKER_TEXT_LEN - 1, MarkerHeader::set_text, |m| {
        m.text().to_owned()
    });
    check_text(
        &mut m,
        MARKER_MESH_RESOURCE_LEN - 1,
        MarkerHeader::set_mesh_resource,
        |m| m.mesh_resource().to_owned(),
    );
}

#[test]
fn codes_decode_and_unknown_codes_are_none() {
    assert_eq!(NavSatFixStatus::from_raw(-1), Some(NavSatFixStatus::NoFix));
    assert_eq!(NavSatFixStatus::from_raw(3), None);
    assert_eq!(
        CovarianceType::from_raw(2),
        Some(CovarianceType::DiagonalKnown)
    );
    assert_eq!(RadiationType::from_raw(1), Some(RadiationType::Infrared));
    assert_eq!(
        PointFieldType::from_raw(8).map(PointFieldType::size),
        Some(8)
    );
    assert_eq!(MarkerType::from_raw(13), None);
    assert_eq!(MarkerAction::from_raw(1), None, "ROS has no action 1");
    assert!(Bool::new(true).get());
    assert!(Bool { data: 7 }.get(), "any non-zero byte is true");
}

#[test]
fn a_tensor_refuses_more_dimensions_than_it_holds() {
    use nerve_msgs::{DType, Header, TensorHeader};
    let mut t = TensorHeader::new(Header::default(), DType::F32, &[4096, 4096]).unwrap();
    assert_eq!(t.shape(), Some(&[4096u64, 4096][..]));
    assert_eq!(t.data_len(), Some(4096 * 4096 * 4));
    let e = t.set_shape(&[1; 9]).unwrap_err();
    assert_eq!(t.shape(), Some(&[4096u64, 4096][..]), "unchanged");
    assert!(e.to_string().contains("tensor dimensions"), "{e}");
    // A corrupt header reads as None, never a panic.
    t.ndim = 99;
    assert_eq!(t.shape(), None);
    t.ndim = 2;
    t.dtype = 77;
    assert_eq!((t.dtype(), t.data_len()), (None, None));
    t.dtype = DType::C128 as u32;
    t.shape = [u64::MAX; 8];
    assert_eq!(t.data_len(), None);
    assert_eq!(DType::BF16.name(), "bfloat16");
}
