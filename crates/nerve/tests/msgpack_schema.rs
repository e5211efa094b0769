//! A MessagePack topic carries its Rust type's fields: tools read them, and a Rust endpoint
//! whose type disagrees gets `TypeMismatch` naming the field; untyped (Python dict) endpoints
//! and untraceable types are not checked, as before.

use nerve::msgs::serde_doc::SerdeDoc;
use nerve::prelude::*;
use nerve::raw::RawTopic;
use nerve::OpenError;
use nerve_testing::domain;

mod v1 {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    pub enum Level {
        Ok,
        Warn { code: u32 },
    }
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    pub struct Status {
        pub name: String,
        pub level: Level,
        pub temps: Vec<f32>,
    }
}

mod v2 {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    pub enum Level {
        Ok,
        Warn { code: u32 },
    }
    /// The same fields but `temps` are f64.
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    pub struct Status {
        pub temps: Vec<f64>,
        pub name: String,
        pub level: Level,
    }
    /// A field renamed.
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    pub struct Renamed {
        pub label: String,
        pub level: Level,
        pub temps: Vec<f32>,
    }
    /// One optional field more: a reader of the other type decodes it as absent.
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    pub struct WithOptional {
        pub name: String,
        pub level: Level,
        pub temps: Vec<f32>,
        pub note: Option<String>,
    }
    /// The same fields in another order, under another Rust name: what a reader sees agrees.
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    pub struct Reordered {
        pub temps: Vec<f32>,
        pub level: Level,
        pub name: String,
    }
}

#[test]
fn a_msgpack_topic_says_what_its_values_hold() {
    let (d, _g) = domain();
    let topic = Topic::<Msgpack<v1::Status>>::builder("mp/status")
        .domain(d)
        .open()
        .unwrap();
    let joined = RawTopic::join("mp/status", d).unwrap();
    let doc = joined.serde_description().unwrap().expect("a description");
    assert!(doc.name.ends_with("v1::Status"), "{}", doc.name);
    assert_eq!(Some(&doc), SerdeDoc::of::<v1::Status>().as_ref());
    // Not a layout description: the layout accessors say there is none.
    assert_eq!(joined.description().unwrap(), None);
    // Values still flow both ways.
    let mut sub = topic.subscriber().unwrap();
    let s = v1::Status {
        name: "arm".into(),
        level: v1::Level::Warn { code: 7 },
        temps: vec![40.5],
    };
    topic.publisher().unwrap().send(&s).unwrap();
    assert_eq!(sub.try_recv().unwrap().unwrap(), s);
}

#[test]
fn a_rust_type_that_disagrees_is_refused_naming_the_field() {
    let (d, _g) = domain();
    let _t = Topic::<Msgpack<v1::Status>>::builder("mp/clash")
        .domain(d)
        .open()
        .unwrap();
    let err = |r: Result<(), OpenError>| r.expect_err("a refusal").to_string();
    let e = err(Topic::<Msgpack<v2::Status>>::builder("mp/clash")
        .domain(d)
        .open()
        .map(drop));
    assert!(e.contains("mp/clash") && e.contains("field `temps`"), "{e}");
    assert!(
        e.contains("f64 in this endpoint's type, f32 in the topic's"),
        "{e}"
    );
    let e = err(Topic::<Msgpack<v2::Renamed>>::builder("mp/clash")
        .domain(d)
        .open()
        .map(drop));
    assert!(
        e.contains("field `label`: present in this endpoint's type"),
        "{e}"
    );
    // An optional field one side lacks is no disagreement.
    Topic::<Msgpack<v2::WithOptional>>::builder("mp/clash")
        .domain(d)
        .open()
        .unwrap();
    // Field order and Rust names do not travel: this one agrees.
    Topic::<Msgpack<v2::Reordered>>::builder("mp/clash")
        .domain(d)
        .open()
        .unwrap();
    // A map is not the struct's fields.
    let e = err(
        Topic::<Msgpack<std::collections::BTreeMap<String, u32>>>::builder("mp/clash")
            .domain(d)
            .open()
            .map(drop),
    );
    assert!(e.contains("the value: "), "{e}");
    // A dynamic value (untraceable: no description) and an untyped endpoint join as before.
    assert!(SerdeDoc::of::<serde_json::Value>().is_none());
    Topic::<Msgpack<serde_json::Value>>::builder("mp/clash")
        .domain(d)
        .open()
        .unwrap();
    RawTopic::join("mp/clash", d).unwrap();
}

#[test]
fn a_damaged_serde_description_is_an_error_never_a_crash() {
    let good = SerdeDoc::of::<v1::Status>().unwrap().to_bytes();
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x5a;
        let _ = SerdeDoc::from_bytes(&bad);
    }
    assert!(SerdeDoc::from_bytes(b"NSD1\xc1").is_err());
    assert!(SerdeDoc::from_bytes(&vec![0u8; 100 << 10]).is_err());
    // Deeply nested garbage: refused by the decoder's depth limit.
    let mut deep = b"NSD1".to_vec();
    deep.extend(std::iter::repeat_n(0x91u8, 100_000));
    assert!(SerdeDoc::from_bytes(&deep).is_err());
}
