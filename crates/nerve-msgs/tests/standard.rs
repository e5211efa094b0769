//! The standard set's tables agree with the types they list.

use nerve_msgs::schema::{FieldType, SchemaKind};
use nerve_msgs::{standard, standard_struct, STANDARD, STANDARD_STRUCTS};

#[test]
fn every_standard_struct_has_its_default_and_every_nested_struct_is_standard() {
    let mut classes = std::collections::HashSet::new();
    for s in STANDARD_STRUCTS {
        assert!(classes.insert(s.class), "{} listed twice", s.class);
        assert_eq!((s.default)().len(), s.schema.size as usize, "{}", s.class);
        for f in s.schema.fields {
            let mut ty = &f.ty;
            while let FieldType::Array { elem, .. } = ty {
                ty = elem;
            }
            if let FieldType::Struct(inner) = ty {
                assert!(
                    standard_struct(inner).is_some(),
                    "{}.{}: {} is not in the standard set",
                    s.class,
                    f.name,
                    inner.name
                );
            }
        }
        if let SchemaKind::Chunked { elem } = s.schema.kind {
            assert!(s.chunked.is_some(), "{}", s.class);
            if let FieldType::Struct(e) = elem {
                assert!(standard_struct(e).is_some(), "{}'s element", s.class);
            }
        }
    }
    // Every message is a struct of the set, found by its name and fingerprint.
    for m in STANDARD {
        assert!(standard_struct(m).is_some(), "{}", m.name);
        assert!(standard(m.name, m.hash()).is_some(), "{}", m.name);
    }
    assert!(standard("nerve/Imu", 0).is_none());
    // A schema's fingerprint is the compiled type's.
    use nerve_msgs::Message;
    assert_eq!(
        nerve_msgs::Imu::DESCRIPTION.unwrap().fingerprint(),
        Some(nerve_msgs::Imu::FINGERPRINT)
    );
    assert_eq!(
        nerve_msgs::LaserScan::DESCRIPTION.unwrap().fingerprint(),
        Some(nerve_msgs::LaserScan::FINGERPRINT)
    );
    assert_eq!(
        <nerve_msgs::PointXYZ as nerve_msgs::schema::Describe>::SCHEMA.fingerprint(),
        None
    );
}
