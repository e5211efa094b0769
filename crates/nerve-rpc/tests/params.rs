//! Parameters: declaration, validation messages, callbacks, remote get/set/list, YAML.

use std::time::Duration;

use nerve_rpc::{ParamClient, ParamDescriptor, ParamError, ParamValue, Parameters};
use nerve_testing::domain;

const T: Duration = Duration::from_secs(2);

fn camera(domain: u32) -> Parameters {
    let p = Parameters::with_domain("camera", domain);
    p.declare(
        ParamDescriptor::new("fps", 30)
            .int_range(1, 120)
            .description("frames per second"),
    )
    .unwrap();
    p.declare(ParamDescriptor::new("exposure.gain", 1.5).float_range(0.0, 16.0))
        .unwrap();
    p.declare(ParamDescriptor::new("enabled", true)).unwrap();
    p.declare(ParamDescriptor::new("frame_id", "camera_link"))
        .unwrap();
    p.declare(ParamDescriptor::new("weights", vec![0.5, 0.25]).float_range(0.0, 1.0))
        .unwrap();
    p.declare(ParamDescriptor::new("lut", vec![1u8, 2, 3]))
        .unwrap();
    // A default outside its own range is refused at declaration.
    let err = p
        .declare(ParamDescriptor::new("ids", vec![1i64, 2]).int_step_range(0, 100, 2))
        .unwrap_err();
    assert!(err.to_string().contains("steps of 2"), "{err}");
    p
}

#[test]
fn bad_values_are_rejected_with_a_clear_message() {
    let (d, _g) = domain();
    let p = camera(d);
    let err = p.set("fps", 500).unwrap_err();
    assert!(matches!(err, ParamError::OutOfRange { .. }), "{err}");
    let msg = err.to_string();
    for part in ["camera", "fps", "500", "[1, 120]"] {
        assert!(msg.contains(part), "{msg:?} lacks {part:?}");
    }
    let err = p.set("fps", "fast").unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ParamError::WrongType { .. }), "{msg}");
    assert!(
        msg.contains("int") && msg.contains("\"fast\"") && msg.contains("fps"),
        "{msg}"
    );
    let err = p.set("weights", vec![0.5, 2.0]).unwrap_err();
    assert!(err.to_string().contains("weights"), "{err}");
    let err = p.set("nope", 1).unwrap_err();
    assert!(matches!(err, ParamError::Undeclared { .. }), "{err}");
    // Ints are accepted for floats; the value is unchanged after every refusal.
    p.set("exposure.gain", 2).unwrap();
    assert_eq!(p.get("exposure.gain"), Some(ParamValue::Float(2.0)));
    assert_eq!(p.get("fps"), Some(ParamValue::Int(30)));
    // Steps and read-only.
    p.declare(
        ParamDescriptor::new("binning", 2)
            .int_step_range(2, 8, 2)
            .read_only(),
    )
    .unwrap();
    assert!(p
        .set("binning", 4)
        .unwrap_err()
        .to_string()
        .contains("read-only"));
}

#[test]
fn change_callbacks_can_reject_with_a_reason() {
    let (d, _g) = domain();
    let p = camera(d);
    p.on_change(|name, v| match (name, v.as_int()) {
        ("fps", Some(x)) if x % 5 != 0 => Err("fps must be a multiple of 5".into()),
        _ => Ok(()),
    });
    p.set("fps", 60).unwrap();
    let err = p.set("fps", 61).unwrap_err();
    assert!(matches!(err, ParamError::Rejected { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("camera") && msg.contains("fps") && msg.contains("61"));
    assert!(msg.contains("multiple of 5"), "{msg}");
    assert_eq!(p.get("fps").unwrap().as_int(), Some(60));
}

#[test]
fn another_process_view_gets_sets_and_lists() {
    let (d, _g) = domain();
    let p = camera(d);
    let _served = p.serve().unwrap();
    let remote = ParamClient::with_domain("camera", d).unwrap();
    assert_eq!(remote.get("fps", T).unwrap(), ParamValue::Int(30));
    remote.set("fps", ParamValue::Int(90), T).unwrap();
    assert_eq!(p.get("fps"), Some(ParamValue::Int(90)));
    let err = remote.set("fps", ParamValue::Int(0), T).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("camera") && msg.contains("fps") && msg.contains("[1, 120]"),
        "{msg}"
    );
    assert!(matches!(
        remote.get("nope", T).unwrap_err(),
        ParamError::Undeclared { .. }
    ));
    let list = remote.list(T).unwrap();
    let fps = list.iter().find(|i| i.descriptor.name == "fps").unwrap();
    assert_eq!(fps.descriptor.description, "frames per second");
    assert_eq!(fps.value, ParamValue::Int(90));
    // A node that is not running: a clear error, fast.
    let ghost = ParamClient::with_domain("ghost", d).unwrap();
    let err = ghost.get("fps", T).unwrap_err();
    assert!(err.to_string().contains("ghost/param/get"), "{err}");
}

#[test]
fn yaml_round_trip_and_both_shapes() {
    let (d, _g) = domain();
    let p = camera(d);
    p.set("fps", 60).unwrap();
    p.set("frame_id", "cam0").unwrap();
    p.set("lut", vec![9u8, 8, 7]).unwrap();
    p.set("enabled", false).unwrap();
    let yaml = p.dump_yaml();
    assert!(yaml.contains("ros__parameters"), "{yaml}");
    assert!(yaml.contains("exposure:"), "dotted names nest: {yaml}");

    let q = camera(d);
    assert_eq!(q.load_yaml_str(&yaml).unwrap(), 6);
    assert_eq!(q.list(), p.list());

    // The plain shape, before declaration (launch files), with a leading slash.
    let r = Parameters::with_domain("camera", d);
    r.load_yaml_str("/camera:\n  fps: 15\n  exposure:\n    gain: 3\nother_node:\n  fps: 1\n")
        .unwrap();
    assert_eq!(
        r.declare(ParamDescriptor::new("fps", 30).int_range(1, 120))
            .unwrap(),
        ParamValue::Int(15)
    );
    assert_eq!(
        r.declare(ParamDescriptor::new("exposure.gain", 1.0))
            .unwrap(),
        ParamValue::Float(3.0)
    );
    // Loading an invalid value into a declared parameter fails with the usual message.
    let err = r
        .load_yaml_str("camera:\n  ros__parameters:\n    fps: 1000\n")
        .unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
    let err = r.load_yaml_str("camera: [1, 2").unwrap_err();
    assert!(matches!(err, ParamError::Yaml { .. }), "{err}");
}
