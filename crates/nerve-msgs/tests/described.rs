//! `TypeDoc`: a schema as bytes that travel, decoded from hostile input.

use nerve_msgs::described::{TypeDoc, TypeRef, MAX_DOC_BYTES};
use nerve_msgs::schema::Schema;
use nerve_msgs::*;

fn standard() -> Vec<&'static Schema> {
    STANDARD.to_vec()
}

#[test]
fn a_description_hashes_like_its_schema_and_survives_bytes() {
    for s in standard() {
        let doc = TypeDoc::of(s);
        assert_eq!(doc.hash(), s.hash(), "{}", s.name);
        assert_eq!(doc.root().name, s.name);
        let bytes = doc.to_bytes();
        assert!(bytes.len() < MAX_DOC_BYTES);
        let back = TypeDoc::from_bytes(&bytes).unwrap();
        assert_eq!(back, doc, "{}", s.name);
        assert_eq!(back.hash(), s.hash());
        assert_eq!(back.first_difference(&doc), None);
    }
}

#[test]
fn nested_structs_appear_once() {
    let doc = TypeDoc::of(Odometry::DESCRIPTION.unwrap());
    let mut names: Vec<_> = doc.structs.iter().map(|s| s.name.clone()).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "{names:?}");
    assert!(names.iter().any(|n| n.contains("Header")));
}

#[test]
fn differences_name_the_field_even_when_nested() {
    let a = TypeDoc::of(Odometry::DESCRIPTION.unwrap());
    let mut b = a.clone();
    // Change the type of a field inside the nested header.
    let header = b
        .structs
        .iter_mut()
        .find(|s| s.name.ends_with("Header"))
        .unwrap();
    let stamp = header
        .fields
        .iter_mut()
        .find(|f| f.name == "stamp_ns")
        .unwrap();
    stamp.ty = TypeRef::I64;
    assert_ne!(a.hash(), b.hash());
    let d = a.first_difference(&b).unwrap();
    assert!(d.contains("header.stamp_ns"), "{d}");
    assert!(d.contains("u64 here, i64 there"), "{d}");
}

#[test]
fn hostile_descriptions_are_refused_not_followed() {
    let good = TypeDoc::of(Imu::DESCRIPTION.unwrap());
    // A struct that nests itself.
    let mut cycle = good.clone();
    cycle.structs[cycle.root as usize].fields[0].ty = TypeRef::Struct(cycle.root);
    assert!(TypeDoc::from_bytes(&cycle.to_bytes()).is_err());
    // A field past the end of its struct.
    let mut past = good.clone();
    past.structs[0].fields[0].offset = past.structs[0].size;
    let e = TypeDoc::from_bytes(&past.to_bytes()).unwrap_err();
    assert!(e.to_string().contains("past the struct"), "{e}");
    // A missing struct, a missing root, an array whose size overflows.
    let mut missing = good.clone();
    missing.structs[0].fields[0].ty = TypeRef::Struct(999);
    assert!(TypeDoc::from_bytes(&missing.to_bytes()).is_err());
    let mut root = good.clone();
    root.root = 77;
    assert!(TypeDoc::from_bytes(&root.to_bytes()).is_err());
    let mut huge = good.clone();
    huge.structs[0].fields[0].ty = TypeRef::Array {
        elem: Box::new(TypeRef::Array {
            elem: Box::new(TypeRef::U64),
            len: u32::MAX,
        }),
        len: u32::MAX,
    };
    assert!(TypeDoc::from_bytes(&huge.to_bytes()).is_err());
    // Too many bytes, and garbage.
    assert!(TypeDoc::from_bytes(&vec![0x90; MAX_DOC_BYTES + 1]).is_err());
    assert!(TypeDoc::from_bytes(&[0xc1, 0xff, 0x00]).is_err());
    // Every single-byte change and every truncation of a real description: an error or a
    // valid description, never a panic.
    let bytes = good.to_bytes();
    for i in 0..bytes.len() {
        for v in [0u8, 0x7f, 0x80, 0xcc, 0xdc, 0xff] {
            let mut m = bytes.clone();
            m[i] = v;
            let _ = TypeDoc::from_bytes(&m);
        }
        let _ = TypeDoc::from_bytes(&bytes[..i]);
    }
}
