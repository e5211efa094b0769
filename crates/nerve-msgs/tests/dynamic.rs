//! Messages as values: every standard type decodes and encodes back byte for byte, JSON
//! carries values (NaN included), and wrong input is an error that names the field.

use nerve_msgs::described::{KindDoc, StructDoc, TypeDoc, TypeRef};
use nerve_msgs::dynamic::{decode, encode, Value, DATA, DATA_LEN};
use nerve_msgs::*;
use proptest::prelude::*;

/// A small deterministic generator (no dependency).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A value of type `t` that survives the round trip exactly (floats representable in f32).
fn sample(doc: &TypeDoc, t: &TypeRef, rng: &mut Rng) -> Value {
    match t {
        TypeRef::Bool => Value::Bool(rng.below(2) == 1),
        TypeRef::U8 => Value::UInt(rng.below(256)),
        TypeRef::I8 => Value::Int(rng.below(256) as i64 - 128),
        TypeRef::U16 => Value::UInt(rng.below(1 << 16)),
        TypeRef::I16 => Value::Int(rng.below(1 << 16) as i64 - (1 << 15)),
        TypeRef::U32 => Value::UInt(rng.below(1 << 32)),
        TypeRef::I32 => Value::Int(rng.below(1 << 32) as i64 - (1 << 31)),
        TypeRef::U64 => Value::UInt(rng.next() << 11 | rng.below(2048)),
        TypeRef::I64 => Value::Int((rng.next() << 11) as i64),
        TypeRef::F32 | TypeRef::F64 => Value::Float((rng.below(1 << 20) as f64 - 524288.0) / 64.0),
        TypeRef::Text { len } => {
            let n = rng.below(u64::from(*len)) as usize;
            Value::Text("abcdefghij/_-".chars().cycle().take(n).collect())
        }
        TypeRef::Enum { values, .. } => {
            Value::Text(values[rng.below(values.len() as u64) as usize].0.clone())
        }
        TypeRef::Array { elem, len } => {
            Value::List((0..*len).map(|_| sample(doc, elem, rng)).collect())
        }
        TypeRef::Struct(i) => sample_struct(doc, &doc.structs[*i as usize], rng),
    }
}

fn sample_struct(doc: &TypeDoc, s: &StructDoc, rng: &mut Rng) -> Value {
    Value::Struct(
        s.fields
            .iter()
            .filter(|f| !f.padding)
            .map(|f| (f.name.clone(), sample(doc, &f.ty, rng)))
            .collect(),
    )
}

fn sample_message(doc: &TypeDoc, rng: &mut Rng, elements: usize) -> Value {
    let mut v = sample_struct(doc, doc.root(), rng);
    if let KindDoc::Chunked(elem) = &doc.root().kind {
        let data = if matches!(elem, TypeRef::U8) {
            Value::Bytes((0..elements).map(|i| i as u8).collect())
        } else {
            Value::List((0..elements).map(|_| sample(doc, elem, rng)).collect())
        };
        if let Value::Struct(f) = &mut v {
            f.push((DATA.into(), data));
        }
    }
    v
}

#[test]
fn every_standard_type_round_trips_through_values_and_json() {
    let mut rng = Rng(7);
    for schema in STANDARD {
        let doc = TypeDoc::of(schema);
        for round in 0..20 {
            let value = sample_message(&doc, &mut rng, round);
            let (fixed, payload) =
                encode(&doc, &value).unwrap_or_else(|e| panic!("{}: {e}", schema.name));
            assert_eq!(fixed.len(), schema.size as usize);
            let back = decode(&doc, &fixed, &payload, usize::MAX).unwrap();
            // f32s come back as the f64 that prints the same (3007.6719, not 3007.671875):
            // the same f32 again, so the same bytes.
            assert_eq!(
                encode(&doc, &back).unwrap(),
                (fixed.clone(), payload.clone()),
                "{}: {back:?} from {value:?}",
                schema.name
            );
            // Through JSON and back to the same bytes.
            let json = serde_json::to_string(&back).unwrap();
            let parsed: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(
                encode(&doc, &parsed).unwrap(),
                (fixed, payload),
                "{} via {json}",
                schema.name
            );
        }
    }
}

#[test]
fn typed_messages_decode_to_their_fields() {
    let mut imu = Imu {
        header: Header::new(42, 3, "imu_link").unwrap(),
        ..Imu::default()
    };
    imu.angular_velocity.z = 0.5;
    imu.orientation_covariance[4] = f64::NAN;
    let doc = TypeDoc::of(Imu::DESCRIPTION.unwrap());
    let v = decode(&doc, bytemuck::bytes_of(&imu), &[], usize::MAX).unwrap();
    assert_eq!(v.path("header.stamp_ns").unwrap(), &Value::UInt(42));
    assert_eq!(
        v.path("header.frame_id").unwrap(),
        &Value::Text("imu_link".into())
    );
    assert_eq!(v.path("angular_velocity.z").unwrap().as_f64(), Some(0.5));
    assert_eq!(v.path("orientation.w").unwrap().as_f64(), Some(1.0));
    assert!(v
        .path("orientation_covariance.4")
        .unwrap()
        .as_f64()
        .unwrap()
        .is_nan());
    // NaN travels through JSON as null and comes back as NaN, bit for bit the same message.
    let json = serde_json::to_string(&v).unwrap();
    assert!(json.contains("null"), "{json}");
    let (fixed, _) = encode(&doc, &serde_json::from_str(&json).unwrap()).unwrap();
    let back: Imu = bytemuck::pod_read_unaligned(&fixed);
    assert!(back.orientation_covariance[4].is_nan());
    assert_eq!(back.header, imu.header);
    // Padding is not shown.
    assert!(!json.contains("_pad"), "{json}");
}

#[test]
fn chunked_messages_carry_their_elements_as_data() {
    let doc = TypeDoc::of(LaserScan::DESCRIPTION.unwrap());
    let header = bytemuck::bytes_of(&LaserScanHeader::default()).to_vec();
    let ranges: Vec<f32> = (0..360).map(|i| i as f32 * 0.25).collect();
    let payload = bytemuck::cast_slice::<f32, u8>(&ranges);
    let v = decode(&doc, &header, payload, usize::MAX).unwrap();
    assert_eq!(v.path("data.359").unwrap().as_f64(), Some(89.75));
    assert_eq!(v.get(DATA_LEN), None);
    // A tool showing a few: the first ones, and how many there are.
    let v = decode(&doc, &header, payload, 3).unwrap();
    assert!(matches!(v.get(DATA), Some(Value::List(l)) if l.len() == 3));
    assert_eq!(v.get(DATA_LEN), Some(&Value::UInt(360)));
    // Images carry bytes; an encoding is named.
    let doc = TypeDoc::of(Image::DESCRIPTION.unwrap());
    let h = ImageHeader::new(Header::default(), 2, 2, Encoding::Mono8);
    let v = decode(&doc, bytemuck::bytes_of(&h), &[1, 2, 3, 4], usize::MAX).unwrap();
    assert_eq!(v.get(DATA), Some(&Value::Bytes(vec![1, 2, 3, 4])));
    assert_eq!(v.get("encoding"), Some(&Value::Text("mono8".into())));
    let (fixed, payload) = encode(&doc, &v).unwrap();
    assert_eq!(
        (fixed.as_slice(), payload.as_slice()),
        (bytemuck::bytes_of(&h), &[1u8, 2, 3, 4][..])
    );
    // A payload that is not whole elements.
    let doc = TypeDoc::of(LaserScan::DESCRIPTION.unwrap());
    let e = decode(&doc, &header, &[0; 7], usize::MAX).unwrap_err();
    assert!(e.to_string().contains("7 bytes"), "{e}");
}

fn err(doc: &TypeDoc, json: &str) -> String {
    let v: Value = serde_json::from_str(json).unwrap();
    encode(doc, &v).unwrap_err().to_string()
}

#[test]
fn wrong_values_are_errors_that_name_the_field() {
    let cmd = TypeDoc::of(CmdVel::DESCRIPTION.unwrap());
    // Fields left out are zero.
    let (fixed, _) = encode(&cmd, &serde_json::from_str(r#"{"linear": 1}"#).unwrap()).unwrap();
    let c: CmdVel = bytemuck::pod_read_unaligned(&fixed);
    assert_eq!((c.stamp_ns, c.linear, c.angular), (0, 1.0, 0.0));
    let e = err(&cmd, r#"{"linaer": 1}"#);
    assert!(
        e.contains("no field `linaer`") && e.contains("linear, angular"),
        "{e}"
    );
    let e = err(&cmd, r#"{"linear": "fast"}"#);
    assert!(e.contains("field `linear`: a number expected"), "{e}");
    let e = err(&cmd, r#"{"stamp_ns": -1}"#);
    assert!(
        e.contains("field `stamp_ns`: -1 is out of range for u64"),
        "{e}"
    );
    let e = err(&cmd, r#"{"stamp_ns": 1.5}"#);
    assert!(e.contains("field `stamp_ns`: u64 expected"), "{e}");
    let e = err(&cmd, r#"[1, 2]"#);
    assert!(
        e.contains("nerve/CmdVel: a struct of fields expected"),
        "{e}"
    );
    assert!(serde_json::from_str::<Value>(r#"{"linear": 1, "linear": 2}"#).is_err());

    let imu = TypeDoc::of(Imu::DESCRIPTION.unwrap());
    let e = err(
        &imu,
        r#"{"header": {"frame_id": "0123456789012345678901234567890123"}}"#,
    );
    assert!(
        e.contains("field `header.frame_id`: text of 34 bytes, at most 31"),
        "{e}"
    );
    let e = err(&imu, r#"{"orientation_covariance": [1, 2, 3]}"#);
    assert!(
        e.contains("field `orientation_covariance`: a list of 9 expected, got a list of 3"),
        "{e}"
    );
    let e = err(&imu, r#"{"orientation": {"w": 1, "q": 1}}"#);
    assert!(e.contains("no field `orientation.q`"), "{e}");

    let image = TypeDoc::of(Image::DESCRIPTION.unwrap());
    let e = err(&image, r#"{"encoding": "mono9"}"#);
    assert!(
        e.contains("field `encoding`: no code named \"mono9\"") && e.contains("mono8"),
        "{e}"
    );
    let e = err(&image, r#"{"data": 5}"#);
    assert!(
        e.contains("field `data`: a list of elements expected"),
        "{e}"
    );
    // Too few bytes for the type.
    let e = decode(&imu, &[0; 10], &[], usize::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nerve/Imu: 10 bytes, the type has 344"), "{e}");
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<u64>().prop_map(Value::UInt),
        any::<f64>().prop_map(Value::Float),
        "[a-z_]{0,40}".prop_map(Value::Text),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes),
    ];
    leaf.prop_recursive(4, 64, 10, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..12).prop_map(Value::List),
            proptest::collection::vec(
                (
                    prop_oneof![
                        Just("header".to_owned()),
                        Just("data".to_owned()),
                        "[a-z_]{1,12}"
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(Value::Struct),
        ]
    })
}

proptest! {
    // Any bytes decode or fail cleanly; any value encodes or fails cleanly, for every type.
    #[test]
    fn hostile_bytes_and_values_never_panic(
        which in 0..STANDARD.len(),
        bytes in proptest::collection::vec(any::<u8>(), 0..2048),
        split in 0usize..2048,
        value in any_value(),
    ) {
        let doc = TypeDoc::of(STANDARD[which]);
        let split = split.min(bytes.len());
        let _ = decode(&doc, &bytes[..split], &bytes[split..], 64);
        let _ = encode(&doc, &value);
        if let Ok((fixed, payload)) = encode(&doc, &value) {
            prop_assert_eq!(fixed.len(), STANDARD[which].size as usize);
            prop_assert!(decode(&doc, &fixed, &payload, usize::MAX).is_ok());
        }
    }
}

#[test]
fn an_f32_decodes_as_the_number_it_prints() {
    let doc = TypeDoc::of(STANDARD.iter().find(|s| s.name == "nerve/CmdVel").unwrap());
    let value: Value =
        serde_json::from_str(r#"{"stamp_ns": 1, "linear": 0.3, "angular": -1e-3}"#).unwrap();
    let (fixed, payload) = encode(&doc, &value).unwrap();
    let back = decode(&doc, &fixed, &payload, 0).unwrap();
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        r#"{"stamp_ns":1,"linear":0.3,"angular":-0.001}"#
    );
}
