//! A tool that was never compiled against a topic's type joins it by name and reads and
//! writes its messages as values, in this process and across processes.

use std::time::Duration;

use nerve::msgs::dynamic::Value;
use nerve::msgs::{CmdVel, LaserScan, Odometry};
use nerve::prelude::*;
use nerve::raw::{self, RawMessage, RawTopic};
use nerve::values::ValueCodec;
use nerve::OpenError;
use nerve_testing::domain;
use nerve_testing::process;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    assert_eq!(role, "odometry");
    let topic = Topic::<Odometry>::builder("values/odom")
        .reliability(Reliability::BestEffort)
        .depth(4)
        .open()
        .unwrap();
    let publisher = topic.publisher().unwrap();
    let mut sub = topic.subscriber().unwrap();
    println!("READY");
    // Publish until a reply arrives, then print what it said.
    for i in 0u64.. {
        let mut odom = Odometry::default();
        odom.header.stamp_ns = i;
        odom.twist.linear.x = 1.5;
        publisher.send(&odom).unwrap();
        if let Some(reply) = sub.try_recv().unwrap() {
            if reply.twist.angular.z == -2.0 {
                println!("GOT {}", reply.header.frame_id());
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn joining_adopts_the_type_and_qos_of_another_process_s_topic() {
    let (d, _g) = domain();
    let mut child = process::spawn_self("child_entry", "odometry", d, &[]);
    child.wait_line("READY");
    let topic = RawTopic::join("values/odom", d).unwrap();
    assert_eq!(topic.stored_type(), &raw::stored_type::<Odometry>());
    assert_eq!(topic.reliability(), Reliability::BestEffort);
    assert_eq!(topic.depth(), 4);
    let codec = ValueCodec::of(&topic).unwrap();
    assert_eq!(codec.description().unwrap().root().name, "nerve/Odometry");
    let mut sub = topic.subscriber(0).unwrap();
    let msg = sub
        .recv_timeout(Duration::from_secs(10))
        .unwrap()
        .expect("a message from the child");
    let v = codec.decode(&msg, usize::MAX).unwrap();
    assert_eq!(v.path("twist.linear.x"), Some(&Value::Float(1.5)));
    assert!(matches!(v.path("header.stamp_ns"), Some(Value::UInt(_))));
    // Written as values, read by the child's typed subscriber.
    let publisher = topic.publisher().unwrap();
    codec
        .send(
            &publisher,
            &json(r#"{"header": {"frame_id": "from-json"}, "twist": {"angular": {"z": -2}}}"#),
        )
        .unwrap();
    assert_eq!(child.wait_line("GOT"), "GOT from-json");
}

#[test]
fn joining_a_topic_that_does_not_exist_names_it_and_creates_nothing() {
    let (d, _g) = domain();
    let err = RawTopic::join("values/nobody", d).err().expect("a refusal");
    assert!(matches!(err, OpenError::NotFound { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("values/nobody") && msg.contains(&d.to_string()),
        "{msg}"
    );
    assert!(nerve::registry::list(d).is_empty());
    // An in-process topic is joined as well.
    let heap = Topic::<CmdVel>::builder("values/heap")
        .domain(d)
        .in_process()
        .open()
        .unwrap();
    let joined = RawTopic::join("values/heap", d).unwrap();
    let codec = ValueCodec::of(&joined).unwrap();
    let mut sub = heap.subscriber().unwrap();
    codec
        .send(&joined.publisher().unwrap(), &json(r#"{"linear": 0.25}"#))
        .unwrap();
    assert_eq!(sub.try_recv().unwrap().unwrap().linear, 0.25);
}

#[test]
fn chunked_messages_travel_as_values_both_ways() {
    let (d, _g) = domain();
    let typed = Topic::<LaserScan>::builder("values/scan")
        .domain(d)
        .open()
        .unwrap();
    let tpub = typed.publisher().unwrap();
    let mut tsub = typed.subscriber().unwrap();
    let joined = RawTopic::join("values/scan", d).unwrap();
    let codec = ValueCodec::of(&joined).unwrap();
    let mut sub = joined.subscriber(0).unwrap();

    let mut loan = tpub.loan(360).unwrap();
    loan.header_mut().angle_max = 3.0;
    for (i, r) in loan.data_mut().iter_mut().enumerate() {
        *r = i as f32 * 0.5;
    }
    loan.send().unwrap();
    tsub.try_recv().unwrap().unwrap();
    let msg = sub.try_recv().unwrap().unwrap();
    let v = codec.decode(&msg, usize::MAX).unwrap();
    assert_eq!(v.path("angle_max"), Some(&Value::Float(3.0)));
    assert_eq!(v.path("data.359").and_then(Value::as_f64), Some(179.5));
    let few = codec.decode(&msg, 2).unwrap();
    assert_eq!(few.get("data_len"), Some(&Value::UInt(360)));

    codec
        .send(
            &joined.publisher().unwrap(),
            &json(r#"{"range_max": 30, "data": [1.0, 2.5, 4.0]}"#),
        )
        .unwrap();
    let scan = tsub.try_recv().unwrap().unwrap();
    assert_eq!(scan.header().range_max, 30.0);
    assert_eq!(scan.data(), &[1.0, 2.5, 4.0]);
    // A value of the wrong shape is refused, naming the topic and the field; nothing is sent.
    let e = codec
        .send(&joined.publisher().unwrap(), &json(r#"{"data": ["x"]}"#))
        .unwrap_err()
        .to_string();
    assert!(e.contains("values/scan") && e.contains("data"), "{e}");
    assert!(tsub.try_recv().unwrap().is_none());
}

#[test]
fn msgpack_topics_travel_as_values() {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Status {
        name: String,
        level: u32,
    }
    let (d, _g) = domain();
    let typed = Topic::<Msgpack<Status>>::builder("values/status")
        .domain(d)
        .open()
        .unwrap();
    let mut tsub = typed.subscriber().unwrap();
    let joined = RawTopic::join("values/status", d).unwrap();
    assert_eq!(joined.stored_type(), &raw::msgpack_type());
    let codec = ValueCodec::of(&joined).unwrap();
    assert!(codec.description().is_none());
    let mut sub = joined.subscriber(0).unwrap();
    typed
        .publisher()
        .unwrap()
        .send(&Status {
            name: "ok".into(),
            level: 3,
        })
        .unwrap();
    tsub.try_recv().unwrap();
    let v = codec
        .decode(&sub.try_recv().unwrap().unwrap(), usize::MAX)
        .unwrap();
    assert_eq!(v.get("name"), Some(&Value::Text("ok".into())));
    assert_eq!(v.get("level"), Some(&Value::UInt(3)));
    codec
        .send(
            &joined.publisher().unwrap(),
            &json(r#"{"name": "from-json", "level": 7}"#),
        )
        .unwrap();
    assert_eq!(
        tsub.try_recv().unwrap().unwrap(),
        Status {
            name: "from-json".into(),
            level: 7
        }
    );
}

#[test]
fn a_topic_without_a_description_is_read_as_bytes_and_says_so() {
    #[derive(Clone, Copy, Debug, nerve::Message)]
    #[message(name = "test/Opaque", default = "zeroed")]
    #[repr(C)]
    struct Opaque {
        x: f64,
    }
    let (d, _g) = domain();
    let _topic = RawTopic::builder("values/opaque", raw::stored_type::<Opaque>())
        .domain(d)
        .open()
        .unwrap();
    let joined = RawTopic::join("values/opaque", d).unwrap();
    let e = ValueCodec::of(&joined).unwrap_err().to_string();
    assert!(
        e.contains("values/opaque") && e.contains("without a type description"),
        "{e}"
    );
    // The bytes still flow.
    let mut sub = joined.subscriber(0).unwrap();
    joined
        .publisher()
        .unwrap()
        .send_bytes(&7.5f64.to_le_bytes())
        .unwrap();
    let Some(RawMessage::Fixed(bytes)) = sub.try_recv().unwrap() else {
        panic!("expected a fixed message")
    };
    assert_eq!(bytes, 7.5f64.to_le_bytes());
}

#[test]
fn a_leading_slash_names_the_same_topic_as_ros_2_users_type_it() {
    let (d, _g) = domain();
    let a = Topic::<CmdVel>::builder("/values/slash")
        .domain(d)
        .open()
        .unwrap();
    let b = Topic::<CmdVel>::builder("values/slash")
        .domain(d)
        .open()
        .unwrap();
    let mut sub = b.subscriber().unwrap();
    a.publisher().unwrap().send(&CmdVel::default()).unwrap();
    assert!(sub.try_recv().unwrap().is_some());
    let joined = RawTopic::join("/values/slash", d).unwrap();
    assert_eq!(joined.name(), "values/slash");
    assert!(RawTopic::join("//values/slash", d).is_err());
}
