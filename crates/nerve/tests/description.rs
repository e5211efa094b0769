//! A topic carries its type's description: any process that opens it (or only lists it) can
//! read what the fields are, and a type mismatch names the first field that differs.

use nerve::msgs::described::TypeDoc;
use nerve::msgs::{CmdVel, Imu, LaserScan, Odometry};
use nerve::prelude::*;
use nerve::raw::{self, RawTopic};
use nerve::{registry, Message, OpenError};
use nerve_testing::domain;
use nerve_testing::hostile::Segment;
use nerve_testing::process;

fn odometry_doc() -> TypeDoc {
    TypeDoc::of(Odometry::DESCRIPTION.unwrap())
}

#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    assert_eq!(role, "odometry");
    let topic = Topic::<Odometry>::open("desc/odom").unwrap();
    let _publisher = topic.publisher().unwrap();
    println!("READY");
    // Until the parent kills us.
    std::thread::sleep(std::time::Duration::from_secs(60));
}

#[test]
fn another_process_reads_the_description_a_typed_creator_wrote() {
    let (d, _g) = domain();
    let mut child = process::spawn_self("child_entry", "odometry", d, &[]);
    child.wait_line("READY");
    // Listing (pread, no mapping) and opening untyped (a tool that knows only the stored
    // type) both see the creator's description.
    let info = registry::list(d)
        .into_iter()
        .find(|t| t.name == "desc/odom")
        .expect("the child's topic is listed");
    assert_eq!(info.description_error, None);
    let listed = info.description.expect("a description");
    assert_eq!(listed, odometry_doc());
    let raw = RawTopic::builder("desc/odom", raw::stored_type::<Odometry>())
        .domain(d)
        .open()
        .unwrap();
    assert_eq!(raw.description().unwrap(), Some(odometry_doc()));
    let root = listed.root();
    assert!(root.fields.iter().any(|f| f.name == "pose"));
}

#[test]
fn in_process_and_raw_creators_describe_their_topics_too() {
    let (d, _g) = domain();
    let heap = Topic::<Imu>::builder("desc/imu")
        .domain(d)
        .in_process()
        .open()
        .unwrap();
    assert_eq!(
        heap.description().unwrap(),
        Some(TypeDoc::of(Imu::DESCRIPTION.unwrap()))
    );
    // A raw creator gives the description explicitly; without one a standard type still has
    // its standard description, and any other type has none.
    let scan = RawTopic::builder("desc/scan", raw::stored_type::<LaserScan>())
        .domain(d)
        .description(&raw::description::<LaserScan>().unwrap())
        .open()
        .unwrap();
    assert_eq!(scan.description().unwrap(), raw::description::<LaserScan>());
    let bare = RawTopic::builder("desc/bare", raw::stored_type::<CmdVel>())
        .domain(d)
        .open()
        .unwrap();
    assert_eq!(bare.description().unwrap(), raw::description::<CmdVel>());
    #[derive(Clone, Copy, Debug, nerve::Message)]
    #[message(name = "test/Private", default = "zeroed")]
    #[repr(C)]
    struct Private {
        x: f64,
    }
    let private = RawTopic::builder("desc/private", raw::stored_type::<Private>())
        .domain(d)
        .open()
        .unwrap();
    assert_eq!(private.description().unwrap(), None);
    // A typed endpoint joins a topic without a description as before.
    Topic::<Private>::builder("desc/private")
        .domain(d)
        .open()
        .unwrap();
}

#[test]
fn a_raw_description_that_does_not_fit_the_stored_type_is_refused() {
    let (d, _g) = domain();
    let err = RawTopic::builder("desc/lie", raw::stored_type::<CmdVel>())
        .domain(d)
        .description(&raw::description::<Imu>().unwrap())
        .open()
        .err()
        .expect("a refusal");
    assert!(matches!(err, OpenError::InvalidConfig { .. }), "{err}");
    assert!(err.to_string().contains("desc/lie"), "{err}");
    assert!(err.to_string().contains("nerve/Imu"), "{err}");
}

mod v1 {
    /// A wheel command as one build declares it.
    #[derive(Clone, Copy, Debug, nerve::Message)]
    #[message(crate = "nerve::msgs", name = "test/Wheel", default = "zeroed")]
    #[repr(C)]
    pub struct Wheel {
        /// Stamp.
        pub stamp_ns: u64,
        /// Speed.
        pub speed: f64,
    }
}

mod v2 {
    /// The same name, with the speed narrowed to f32 (and padding to keep the size).
    #[derive(Clone, Copy, Debug, nerve::Message)]
    #[message(crate = "nerve::msgs", name = "test/Wheel", default = "zeroed")]
    #[repr(C)]
    pub struct Wheel {
        /// Stamp.
        pub stamp_ns: u64,
        /// Speed.
        pub speed: f32,
        /// Padding.
        pub _pad: u32,
    }
}

#[test]
fn a_type_mismatch_names_the_first_field_that_differs() {
    for in_process in [false, true] {
        let (d, _g) = domain();
        let open_v1 = || {
            let b = Topic::<v1::Wheel>::builder("desc/wheel").domain(d);
            if in_process { b.in_process() } else { b }.open()
        };
        let _keep = open_v1().unwrap();
        let b = Topic::<v2::Wheel>::builder("desc/wheel").domain(d);
        let err = if in_process { b.in_process() } else { b }
            .open()
            .err()
            .expect("a mismatch");
        assert!(matches!(err, OpenError::TypeMismatch { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("field `speed`: f32 in this endpoint's type, f64 in the topic's"),
            "{msg}"
        );
    }
}

#[test]
fn a_damaged_description_is_reported_and_the_topic_still_works() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("desc/damaged")
        .domain(d)
        .open()
        .unwrap();
    let seg = Segment::open(d, "desc/damaged");
    let p = seg.params().clone();
    assert!(p.schema_len > 0);
    // Flip every byte of the stored description in turn: the description is refused or still
    // describes CmdVel; sending and receiving never notice.
    let publisher = topic.publisher().unwrap();
    let mut sub = topic.subscriber().unwrap();
    let mut refused = 0;
    for i in 0..p.schema_len {
        let at = p.schema_offset + i;
        let old = seg.byte(at);
        seg.set_byte(at, old ^ 0x5a);
        match topic.description() {
            Ok(Some(doc)) => assert_eq!(doc.hash(), CmdVel::FINGERPRINT.layout_hash),
            Ok(None) => panic!("a non-empty description read as none"),
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
        let info = registry::list(d)
            .into_iter()
            .find(|t| t.name == "desc/damaged")
            .unwrap();
        assert!(info.description.is_some() != info.description_error.is_some());
        seg.set_byte(at, old);
        publisher
            .send(&CmdVel {
                stamp_ns: i as u64,
                ..CmdVel::default()
            })
            .unwrap();
        assert_eq!(sub.try_recv().unwrap().unwrap().stamp_ns, i as u64);
    }
    // Flips inside doc comments and units change no fingerprinted byte and may be accepted
    // (docs are not part of the contract); the rest are refused.
    assert!(refused > 0, "{refused} of {} flips refused", p.schema_len);
    assert_eq!(
        topic.description().unwrap(),
        Some(TypeDoc::of(CmdVel::DESCRIPTION.unwrap()))
    );
}
