//! The ROS 2 bridge's view is read from a topic any process of the domain can write: garbage
//! on it, a topic of that name opened with other settings, or nothing at all reads as "no
//! view" (never a panic, never a wait); the bridge's own status reads back whole.

use nerve::plumbing::ROS2_VIEW_TOPIC;
use nerve::raw::{stored_type, RawTopic};
use nerve::{Msgpack, Reliability, Topic};
use nerve_ros2::view::{read, Carried, Ros2View};

fn view_topic<T>(d: u32) -> Topic<Msgpack<T>>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    // As the bridge opens it (`ros2_bridge.py`).
    Topic::<Msgpack<T>>::builder(ROS2_VIEW_TOPIC)
        .domain(d)
        .latest_only()
        .depth(2)
        .max_message_bytes(1 << 20)
        .open()
        .unwrap()
}

#[test]
fn garbage_on_the_view_topic_reads_as_no_view() {
    let (d, _g) = nerve_testing::domain();
    assert_eq!(read(d), None, "no topic yet");
    // What a Python process writes (a dict topic: no type description), with bytes that are
    // no MessagePack at all, then a MessagePack value of another shape.
    let raw = RawTopic::builder(ROS2_VIEW_TOPIC, stored_type::<Msgpack<()>>())
        .domain(d)
        .reliability(Reliability::LatestOnly)
        .depth(2)
        .max_message_bytes(1 << 20)
        .open()
        .unwrap();
    let p = raw.publisher().unwrap();
    let send = |bytes: &[u8]| {
        let mut loan = p.loan(0, bytes.len()).unwrap();
        loan.data_mut().copy_from_slice(bytes);
        loan.send().unwrap();
    };
    send(&[0xc1; 64]);
    assert_eq!(read(d), None, "bytes that are no MessagePack");
    send(&rmp_serde::to_vec(&vec!["not", "a view"]).unwrap());
    assert_eq!(read(d), None, "a MessagePack value of another shape");
    // The same topic does carry a view (so the two refusals above were the decoder's).
    let view = Ros2View {
        pid: 1,
        domain: d,
        ..Ros2View::default()
    };
    send(&rmp_serde::to_vec_named(&view).unwrap());
    assert_eq!(read(d), Some((view, true)));
    // A topic of that name made with another type's description cannot be opened as a view.
    let (d2, _g2) = nerve_testing::domain();
    let _t = view_topic::<Vec<String>>(d2);
    assert_eq!(read(d2), None, "a topic of another shape");
}

#[test]
fn a_view_topic_with_other_settings_reads_as_no_view() {
    let (d, _g) = nerve_testing::domain();
    let _other = Topic::<Msgpack<Ros2View>>::builder(ROS2_VIEW_TOPIC)
        .domain(d)
        .depth(64)
        .open()
        .unwrap();
    assert_eq!(read(d), None);
}

#[test]
fn the_bridges_status_reads_back_and_a_stopped_one_says_so() {
    let (d, _g) = nerve_testing::domain();
    let t = view_topic::<Ros2View>(d);
    let p = t.publisher().unwrap();
    let mut v = Ros2View {
        pid: 42,
        domain: d,
        ..Ros2View::default()
    };
    v.exports.insert(
        "robot/imu".into(),
        Carried {
            ros: "/robot/imu".into(),
            type_name: "sensor_msgs/msg/Imu".into(),
            sent: 7,
            ..Carried::default()
        },
    );
    p.send(&v).unwrap();
    assert_eq!(read(d), Some((v.clone(), true)));
    v.stopped = true;
    p.send(&v).unwrap();
    assert_eq!(read(d), Some((v, false)));
}
