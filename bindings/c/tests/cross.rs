//! Rust with C and C++ nodes on the same topics and services (`tests/c/peer.c`,
//! `tests/c/peer.cpp`: the messages are described there): a fixed message (`Imu`), a chunked
//! image read in place, and a service call, each way; and C structs declared with
//! `NERVE_STRUCT` against the same Rust `#[derive(Message)]` type — one type when they agree,
//! a loud `TypeMismatch` on both sides when they do not.

mod support;

use std::time::Duration;

use nerve::msgs::{Header, Image, ImageHeader, Imu};
use nerve::rpc::Service;
use nerve::{OpenError, Reliability, Topic};
use support::{mapping_of, run_c_in, Peer};

const N_IMU: u64 = 50;
const N_IMAGE: u64 = 10;
const W: u32 = 64;
const H: u32 = 48;
const CALLS: usize = 5;
const WAIT: Duration = Duration::from_secs(10);

fn imu(i: u64) -> Imu {
    let mut m = Imu {
        header: Header::new(1000 + i, i, "imu_link").expect("a frame id"),
        ..Imu::default()
    };
    m.orientation.z = 0.5 * i as f64;
    m.orientation.w = 1.0;
    m.orientation_covariance[8] = 0.25 * i as f64;
    m.angular_velocity.z = -(i as f64);
    m.linear_acceleration.x = 9.75;
    m.linear_acceleration_covariance[0] = i as f64;
    m
}

fn check_imu(m: &Imu, i: u64) {
    let w = imu(i);
    assert_eq!(
        (m.header.stamp_ns, m.header.seq, m.header.frame_id()),
        (w.header.stamp_ns, w.header.seq, w.header.frame_id()),
        "Imu {i}'s header"
    );
    assert_eq!(
        (
            m.orientation.z,
            m.orientation.w,
            m.orientation_covariance[8],
            m.angular_velocity.z,
            m.linear_acceleration.x,
            m.linear_acceleration_covariance[0]
        ),
        (
            w.orientation.z,
            w.orientation.w,
            w.orientation_covariance[8],
            w.angular_velocity.z,
            w.linear_acceleration.x,
            w.linear_acceleration_covariance[0]
        ),
        "Imu {i}'s fields"
    );
}

fn topics(prefix: &str, domain: u32) -> (Topic<Imu>, Topic<Image>) {
    let imus = Topic::<Imu>::builder(&format!("{prefix}/imu"))
        .domain(domain)
        .depth(64)
        .reliability(Reliability::Reliable)
        .max_message_bytes(1 << 20)
        .open()
        .expect("the Imu topic");
    let images = Topic::<Image>::builder(&format!("{prefix}/image"))
        .domain(domain)
        .depth(64)
        .reliability(Reliability::Reliable)
        .max_message_bytes(1 << 20)
        .open()
        .expect("the Image topic");
    (imus, images)
}

fn service(prefix: &str, domain: u32) -> Service<String, String> {
    Service::<String, String>::builder(&format!("{prefix}/upper"))
        .domain(domain)
        .build()
}

/// Rust sends to the C or C++ node `file`, which checks everything and serves the calls.
fn rust_to(file: &str) {
    let (domain, _guard) = nerve_testing::domain();
    let prefix = format!("to_{}", file.replace('.', "_"));
    let mut peer = Peer::start(file, &["recv", &prefix], domain);
    peer.expect("ready");
    let (imus, images) = topics(&prefix, domain);
    let (imu_pub, image_pub) = (imus.publisher().unwrap(), images.publisher().unwrap());
    for i in 0..N_IMU {
        imu_pub.send(&imu(i)).expect("an Imu sent");
    }
    for i in 0..N_IMAGE {
        let mut loan = image_pub.loan((W * H * 3) as usize).expect("a chunk");
        *loan.header_mut() = ImageHeader::new(
            Header::new(5000 + i, i, "camera").unwrap(),
            W,
            H,
            nerve::msgs::Encoding::Rgb8,
        );
        for (k, b) in loan.data_mut().iter_mut().enumerate() {
            *b = (7 * k as u64 + i) as u8;
        }
        loan.send().expect("an image sent");
    }
    let client = service(&prefix, domain).client().expect("a client");
    for i in 0..CALLS {
        let answer = client
            .call(&format!("hello {i}"), WAIT)
            .expect("the C node's answer");
        assert_eq!(answer, format!("HELLO {i}"));
    }
    peer.expect("received");
    peer.finish();
}

/// The C or C++ node `file` sends to Rust, which checks everything (images in place) and
/// serves the calls.
fn rust_from(file: &str) {
    let (domain, _guard) = nerve_testing::domain();
    let prefix = format!("from_{}", file.replace('.', "_"));
    let (imus, images) = topics(&prefix, domain);
    let (mut imu_sub, mut image_sub) = (imus.subscriber().unwrap(), images.subscriber().unwrap());
    let _server = service(&prefix, domain)
        .server()
        .serve(|s: String| Ok(s.to_uppercase()))
        .expect("the Rust server");
    let mut peer = Peer::start(file, &["send", &prefix], domain);
    peer.expect("ready");
    peer.say("go");
    for i in 0..N_IMU {
        let m = imu_sub.recv_timeout(WAIT).unwrap().expect("an Imu in time");
        check_imu(&m, i);
    }
    for i in 0..N_IMAGE {
        let s = image_sub
            .recv_timeout(WAIT)
            .unwrap()
            .expect("an image in time");
        let h = s.header();
        assert_eq!(
            (
                h.header.stamp_ns,
                h.header.seq,
                h.header.frame_id(),
                h.width,
                h.height,
                h.step
            ),
            (5000 + i, i, "camera", W, H, W * 3),
            "image {i}'s header"
        );
        assert_eq!(h.encoding(), Some(nerve::msgs::Encoding::Rgb8));
        assert_eq!(s.data().len(), (W * H * 3) as usize);
        for (k, &b) in s.data().iter().enumerate() {
            assert_eq!(b, (7 * k as u64 + i) as u8, "image {i}, byte {k}");
        }
        let path = mapping_of(s.data().as_ptr());
        assert!(
            path.contains("nerve-"),
            "image {i} was copied: it lies in {path:?}"
        );
    }
    peer.expect("sent");
    peer.finish();
}

#[test]
fn rust_to_c() {
    rust_to("peer");
}

#[test]
fn rust_to_cpp() {
    rust_to("peer.cpp");
}

#[test]
fn c_to_rust() {
    rust_from("peer");
}

#[test]
fn cpp_to_rust() {
    rust_from("peer.cpp");
}

/// `tests/c/declared.c`'s WheelCmd, in Rust.
#[derive(Clone, Copy, Debug, nerve::Message)]
#[message(name = "test_c/WheelCmd", default = "zeroed")]
#[repr(C)]
struct WheelCmd {
    header: Header,
    left: f64,
    right: f64,
    seq: u32,
    mode: u8,
    _pad0: [u8; 3],
}

#[test]
fn standard_and_declared_c_structs() {
    let (domain, _guard) = nerve_testing::domain();
    run_c_in("declared", false, domain);
    run_c_in("declared", true, domain);
}

#[test]
fn a_struct_declared_in_c_is_the_rust_type() {
    use nerve::Message;
    let (domain, _guard) = nerve_testing::domain();
    // The C node creates the topic: it carries the C declaration's description.
    let mut peer = Peer::start("declared", &["publish", "declared/wheels"], domain);
    peer.expect("ready");
    let topic = Topic::<WheelCmd>::builder("declared/wheels")
        .domain(domain)
        .depth(32)
        .reliability(Reliability::Reliable)
        .open()
        .expect("Rust's WheelCmd on the C node's topic");
    let doc = topic
        .description()
        .unwrap()
        .expect("the C declaration's description");
    assert_eq!(doc.hash(), WheelCmd::FINGERPRINT.layout_hash);
    let fields: Vec<_> = doc.root().fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(fields, ["header", "left", "right", "seq", "mode", "_pad0"]);
    let mut sub = topic.subscriber().unwrap();
    peer.say("go");
    for i in 0..20u32 {
        let m = sub.recv_timeout(WAIT).unwrap().expect("a WheelCmd in time");
        assert_eq!(
            (
                m.header.seq,
                m.header.frame_id(),
                m.left,
                m.right,
                m.seq,
                m.mode
            ),
            (
                u64::from(i),
                "base_link",
                0.5 * f64::from(i),
                -0.5 * f64::from(i),
                i,
                (i % 3) as u8
            )
        );
    }
    peer.finish();
}

#[test]
fn mismatched_c_and_rust_definitions_fail_loudly_on_both_sides() {
    let (domain, _guard) = nerve_testing::domain();
    // Rust first: the C node is refused, naming the field.
    let _topic = Topic::<WheelCmd>::builder("declared/rust_first")
        .domain(domain)
        .depth(32)
        .reliability(Reliability::Reliable)
        .open()
        .expect("the topic");
    let mut peer = Peer::start("declared", &["wrong-open", "declared/rust_first"], domain);
    let said = peer.line();
    assert!(
        said.contains("declared/rust_first")
            && said.contains("first difference")
            && said.contains("right"),
        "the C node's error: {said}"
    );
    peer.finish();
    // C first: Rust is refused, naming the field.
    let mut peer = Peer::start("declared", &["wrong-hold", "declared/c_first"], domain);
    peer.expect("ready");
    let err = Topic::<WheelCmd>::builder("declared/c_first")
        .domain(domain)
        .depth(32)
        .reliability(Reliability::Reliable)
        .open()
        .map(|_| ())
        .expect_err("Rust's WheelCmd on the C node's topic");
    assert!(matches!(err, OpenError::TypeMismatch { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("first difference") && text.contains("right"),
        "{text}"
    );
    peer.finish();
}
