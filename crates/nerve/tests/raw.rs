//! The untyped API interoperates with typed endpoints on the same topic, both ways.

use std::time::Duration;

use nerve::msgs::{CmdVel, Imu, LaserScan, LaserScanHeader};
use nerve::prelude::*;
use nerve::raw::{self, RawMessage, RawTopic};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn raw_types_cross_threads() {
    assert_send_sync::<raw::RawSample>();
    assert_send_sync::<raw::RawLoan>();
    assert_send_sync::<raw::RawPublisher>();
}

#[test]
fn typed_fixed_to_raw_and_back() {
    let (d, _g) = nerve_testing::domain();
    let typed = Topic::<CmdVel>::builder("r/fixed")
        .domain(d)
        .open()
        .unwrap();
    // An endpoint keeps the segment: a topic nobody uses is replaced by the next opener.
    let mut tsub = typed.subscriber().unwrap();
    let raw = RawTopic::builder("r/fixed", raw::stored_type::<CmdVel>())
        .domain(d)
        .open()
        .unwrap();
    let mut rsub = raw.subscriber(0).unwrap();
    let msg = CmdVel {
        stamp_ns: 42,
        linear: 1.5,
        angular: -0.5,
    };
    typed.publisher().unwrap().send(&msg).unwrap();
    match rsub.try_recv().unwrap() {
        Some(RawMessage::Fixed(b)) => assert_eq!(CmdVel::from_bytes(b), Some(msg)),
        _ => panic!("expected a fixed message"),
    }
    assert_eq!(tsub.try_recv().unwrap(), Some(msg));
    let rpub = raw.publisher().unwrap();
    let back = CmdVel {
        stamp_ns: 43,
        ..msg
    };
    rpub.send_bytes(back.as_bytes()).unwrap();
    assert_eq!(
        tsub.recv_timeout(Duration::from_secs(1)).unwrap(),
        Some(back)
    );
    assert!(matches!(
        rsub.try_recv().unwrap(),
        Some(RawMessage::Fixed(_))
    ));
    assert_eq!(rsub.stats().received, 2);
}

#[test]
fn wrong_size_and_wrong_type_are_clear_errors() {
    let (d, _g) = nerve_testing::domain();
    let raw = RawTopic::builder("r/size", raw::stored_type::<CmdVel>())
        .domain(d)
        .open()
        .unwrap();
    let p = raw.publisher().unwrap();
    let err = p.send_bytes(&[0; 15]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("16 bytes") && text.contains("15"), "{text}");
    let err = match RawTopic::builder("r/size", raw::stored_type::<Imu>())
        .domain(d)
        .open()
    {
        Err(e) => e,
        Ok(_) => panic!("opened a CmdVel topic as Imu"),
    };
    assert!(matches!(err, OpenError::TypeMismatch { .. }), "{err}");
}

#[test]
fn raw_loan_to_typed_sample_and_typed_loan_to_raw_sample() {
    let (d, _g) = nerve_testing::domain();
    let typed = Topic::<LaserScan>::builder("r/scan")
        .domain(d)
        .open()
        .unwrap();
    let mut tsub = typed.subscriber().unwrap();
    let raw = RawTopic::builder("r/scan", raw::stored_type::<LaserScan>())
        .domain(d)
        .open()
        .unwrap();
    let mut rsub = raw.subscriber(0).unwrap();
    let rpub = raw.publisher().unwrap();

    let hdr = LaserScanHeader {
        angle_min: -1.0,
        angle_max: 1.0,
        ..Default::default()
    };
    let mut loan = rpub.loan(80, 360 * 4).unwrap();
    loan.header_mut()
        .copy_from_slice(nerve::msgs::__bytemuck::bytes_of(&hdr));
    for (i, c) in loan.data_mut().chunks_exact_mut(4).enumerate() {
        c.copy_from_slice(&(i as f32).to_le_bytes());
    }
    let ptr = loan.data_ptr() as *const u8;
    loan.send().unwrap();

    let s = tsub.try_recv().unwrap().expect("a scan");
    assert_eq!(s.header().angle_max, 1.0);
    assert_eq!(s.len(), 360);
    assert_eq!(s.data()[359], 359.0);

    let Some(RawMessage::Chunk(rs)) = rsub.try_recv().unwrap() else {
        panic!("expected a chunk")
    };
    assert_eq!(
        rs.data_ptr(),
        ptr,
        "the subscriber reads the loaned memory: zero copy"
    );
    assert_eq!(rs.data_len(), 360 * 4);
    assert_eq!(rs.header().len(), 80);

    // typed loan → raw sample, outliving its subscriber
    let tpub = typed.publisher().unwrap();
    let mut l = tpub.loan(3).unwrap();
    l.data_mut().copy_from_slice(&[1.0, 2.0, 3.0]);
    l.send().unwrap();
    let Some(RawMessage::Chunk(s2)) = rsub.try_recv().unwrap() else {
        panic!("expected a chunk")
    };
    drop(rsub);
    drop(raw);
    let vals: Vec<f32> = s2
        .data()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(vals, [1.0, 2.0, 3.0]);

    // bad loans
    let raw = RawTopic::builder("r/scan", raw::stored_type::<LaserScan>())
        .domain(d)
        .open()
        .unwrap();
    let p = raw.publisher().unwrap();
    assert!(p.loan(80, 3).is_err(), "not a whole number of f32");
    assert!(p.loan(12, 4).is_err(), "wrong header size");
    assert!(matches!(
        p.loan(80, 1 << 40),
        Err(SendError::TooLarge { .. })
    ));
}

#[test]
fn serialized_bytes_interoperate_with_msgpack() {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Status {
        name: String,
        level: u32,
    }
    let (d, _g) = nerve_testing::domain();
    let typed = Topic::<Msgpack<Status>>::builder("r/mp")
        .domain(d)
        .open()
        .unwrap();
    let mut tsub = typed.subscriber().unwrap();
    let raw = RawTopic::builder("r/mp", raw::msgpack_type())
        .domain(d)
        .open()
        .unwrap();
    let mut rsub = raw.subscriber(0).unwrap();
    let st = Status {
        name: "ok".into(),
        level: 3,
    };
    typed.publisher().unwrap().send(&st).unwrap();
    let Some(RawMessage::Chunk(s)) = rsub.try_recv().unwrap() else {
        panic!("expected a chunk")
    };
    let back: Status = rmp_serde::from_slice(s.data()).unwrap();
    assert_eq!(back, st);
    tsub.try_recv().unwrap();
    let bytes = rmp_serde::to_vec_named(&Status {
        name: "raw".into(),
        level: 4,
    })
    .unwrap();
    raw.publisher().unwrap().send_serialized(&bytes).unwrap();
    assert_eq!(tsub.try_recv().unwrap().unwrap().name, "raw");
}

#[test]
fn blocking_raw_recv_times_out() {
    let (d, _g) = nerve_testing::domain();
    let raw = RawTopic::builder("r/block", raw::stored_type::<CmdVel>())
        .domain(d)
        .open()
        .unwrap();
    let mut s = raw.subscriber(0).unwrap();
    let t = std::time::Instant::now();
    assert!(s.recv_timeout(Duration::from_millis(30)).unwrap().is_none());
    assert!(t.elapsed() >= Duration::from_millis(30));
}
