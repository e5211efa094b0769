//! Every standard type with a ROS 2 form survives nerve → CDR → nerve → CDR unchanged (what
//! ROS 2 carries comes back), and CDR read from another program is checked, never trusted.

use nerve::msgs::described::{KindDoc, TypeDoc};
use nerve::msgs::dynamic::{decode, encode, Value, DATA};
use nerve::msgs::STANDARD;
use nerve_ros2::Ros2Type;

/// `v` with every number made distinct and non-zero (codes and text kept).
fn vary(v: &mut Value, n: &mut u64) {
    match v {
        Value::Struct(fields) => fields.iter_mut().for_each(|(_, x)| vary(x, n)),
        Value::List(items) => items.iter_mut().for_each(|x| vary(x, n)),
        Value::Float(x) => {
            *n += 1;
            *x = *n as f64 * 0.5;
        }
        Value::UInt(x) => {
            *n += 1;
            *x = *n % 100 + 1;
        }
        Value::Int(x) => {
            *n += 1;
            *x = -((*n % 100) as i64) - 1;
        }
        _ => {}
    }
}

#[test]
fn every_standard_type_round_trips_through_cdr() {
    let mut checked = Vec::new();
    for schema in STANDARD {
        let Some(r) = Ros2Type::of(schema.name) else {
            continue;
        };
        let doc = TypeDoc::of(schema);
        let zero = vec![0u8; schema.size as usize];
        let mut value = decode(&doc, &zero, &[], 0).unwrap();
        let mut n = 0;
        vary(&mut value, &mut n);
        if let (KindDoc::Chunked(elem), Value::Struct(f)) = (&doc.root().kind, &mut value) {
            // Three elements: their zero value, varied.
            f.retain(|(k, _)| k != DATA);
            let size = doc.size_of(elem, 0).unwrap() as usize;
            let elem_doc = decode(&doc, &zero, &vec![0u8; 3 * size], 3).unwrap();
            let mut data = elem_doc.get(DATA).cloned().unwrap();
            vary(&mut data, &mut n);
            f.push((DATA.to_owned(), data));
        }
        // Values nerve itself can carry (a varied code may not exist: skip what encode refuses).
        let Ok((fixed, payload)) = encode(&doc, &value) else {
            continue;
        };
        let value = decode(&doc, &fixed, &payload, usize::MAX).unwrap();
        let cdr = r
            .encode(&value)
            .unwrap_or_else(|e| panic!("{}: {e}", schema.name));
        let (fixed2, payload2) = r
            .to_nerve(&doc, &cdr)
            .unwrap_or_else(|e| panic!("{}: {e}", schema.name));
        let back = decode(&doc, &fixed2, &payload2, usize::MAX).unwrap();
        let cdr2 = r.encode(&back).unwrap();
        assert_eq!(
            cdr, cdr2,
            "{}: {value:?} came back as {back:?}",
            schema.name
        );
        checked.push(schema.name);
    }
    assert!(
        checked.len() >= 80,
        "{} types checked: {checked:?}",
        checked.len()
    );
    for shaped in [
        "nerve/JointState",
        "nerve/BatteryState",
        "nerve/PointCloud",
        "nerve/DiagnosticArray",
        "nerve/Marker",
        "nerve/CameraInfo",
    ] {
        assert!(checked.contains(&shaped), "{shaped} not checked");
    }
}

#[test]
fn hostile_cdr_is_an_error_never_a_panic() {
    let r = Ros2Type::of("nerve/LaserScan").unwrap();
    let doc = TypeDoc::of(
        STANDARD
            .iter()
            .find(|s| s.name == "nerve/LaserScan")
            .unwrap(),
    );
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for len in 0..400 {
        let bytes: Vec<u8> = (0..len)
            .map(|i| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if i == 1 {
                    1
                } else {
                    seed as u8
                }
            })
            .collect();
        let _ = r.to_nerve(&doc, &bytes);
    }
    // A count far beyond the message.
    let mut lie = vec![0, 1, 0, 0];
    lie.extend_from_slice(&[0u8; 40]);
    lie.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(r.to_nerve(&doc, &lie).is_err());
}

/// A frame coming from ROS 2 is not copied on its way to the publisher: its payload is the
/// slice of the CDR bytes that holds it, and it is the frame's bytes.
#[test]
fn a_frame_from_ros2_is_lent_not_copied() {
    for name in ["nerve/Image", "nerve/CompressedImage", "nerve/PointCloud2"] {
        let schema = nerve::msgs::standard_named(name).unwrap();
        let r = Ros2Type::of(name).unwrap();
        let doc = TypeDoc::of(schema);
        let zero = vec![0u8; schema.size as usize];
        let frame: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut value = decode(&doc, &zero, &frame, frame.len()).unwrap();
        if let Value::Struct(fields) = &mut value {
            for (_, v) in fields.iter_mut().filter(|(k, _)| k == "encoding") {
                *v = Value::Text("mono8".into());
            }
        }
        let cdr = r.encode(&value).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (_, payload) = r.to_nerve(&doc, &cdr).unwrap();
        let std::borrow::Cow::Borrowed(lent) = payload else {
            panic!("{name}: the frame was copied");
        };
        assert_eq!(lent, &frame[..], "{name}");
        let inside = cdr.as_ptr_range();
        assert!(
            inside.contains(&lent.as_ptr()),
            "{name}: not a slice of the CDR bytes"
        );
    }
    // An element type other than bytes (laser ranges) is decoded as before.
    let r = Ros2Type::of("nerve/LaserScan").unwrap();
    let schema = nerve::msgs::standard_named("nerve/LaserScan").unwrap();
    let doc = TypeDoc::of(schema);
    let value = decode(&doc, &vec![0u8; schema.size as usize], &[0u8; 8], 2).unwrap();
    let cdr = r.encode(&value).unwrap();
    let (_, payload) = r.to_nerve(&doc, &cdr).unwrap();
    assert!(matches!(payload, std::borrow::Cow::Owned(ref p) if p.len() == 8));
}
