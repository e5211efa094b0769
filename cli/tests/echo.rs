//! `nerve topic echo | type` and `nerve interface list | show`, run the way a user runs them,
//! against a live publisher in another process.

mod common;

use std::time::Duration;

use common::{assert_fails, nerve, ok};
use nerve::msgs::{CmdVel, Imu};
use nerve::prelude::*;
use nerve_testing::{domain, process};

/// A type only this test program knows: the CLI reads it from the topic's description.
#[derive(Clone, Copy, Debug, nerve::Message)]
#[message(name = "test/Wheel", default = "zeroed")]
#[repr(C)]
struct Wheel {
    /// Wheel speed, rad/s.
    #[field(unit = "rad/s")]
    speed: f64,
    /// Which wheel.
    id: u32,
    _pad: u32,
}

#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    assert_eq!(role, "publisher");
    let imu = Topic::<Imu>::open("cli/imu").unwrap().publisher().unwrap();
    let wheel = Topic::<Wheel>::open("cli/wheel")
        .unwrap()
        .publisher()
        .unwrap();
    println!("READY");
    for i in 0u64.. {
        let mut m = Imu::default();
        m.header.stamp_ns = i;
        m.header.set_frame_id("imu_link").unwrap();
        m.angular_velocity.z = 0.5;
        imu.send(&m).unwrap();
        wheel
            .send(&Wheel {
                speed: 2.5,
                id: 3,
                _pad: 0,
            })
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn echo_prints_any_topic_from_the_description_it_carries() {
    let (d, _g) = domain();
    let mut child = process::spawn_self("child_entry", "publisher", d, &[]);
    child.wait_line("READY");
    let (code, out, err) = nerve(d, &["topic", "echo", "cli/imu", "--once", "--timeout", "5"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("header:\n  stamp_ns: "), "{out}");
    assert!(out.contains("  frame_id: \"imu_link\""), "{out}");
    assert!(
        out.contains("angular_velocity:\n  x: 0.0\n  y: 0.0\n  z: 0.5"),
        "{out}"
    );
    assert!(out.ends_with("---\n"), "{out}");

    let (code, out, err) = nerve(
        d,
        &[
            "topic",
            "echo",
            "cli/imu",
            "-n",
            "3",
            "--json",
            "--field",
            "angular_velocity",
            "--timeout",
            "5",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, [r#"{"x":0.0,"y":0.0,"z":0.5}"#; 3], "{out}");

    // As a ROS 2 user types the name.
    let (code, out, err) = nerve(
        d,
        &[
            "topic",
            "echo",
            "/cli/imu",
            "--once",
            "--json",
            "--field",
            "header.frame_id",
            "--timeout",
            "5",
        ],
    );
    assert_eq!((code, out.trim()), (0, "\"imu_link\""), "{err}");
    // A type only the publisher was compiled with.
    let (code, out, err) = nerve(
        d,
        &[
            "topic",
            "echo",
            "cli/wheel",
            "--once",
            "--json",
            "--timeout",
            "5",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), r#"{"speed":2.5,"id":3}"#);
    for ty in ["Imu", "nerve/Imu", "sensor_msgs/msg/Imu"] {
        let (code, out, _) = nerve(d, &["topic", "find", ty]);
        assert_eq!((code, out.as_str()), (0, "cli/imu\n"), "{ty}");
    }
    assert_eq!(ok(d, &["topic", "find", "test/Wheel"]), "cli/wheel\n");
    let (code, out, _) = nerve(d, &["topic", "type", "cli/wheel"]);
    assert_eq!((code, out.trim()), (0, "test/Wheel"));
    let (code, out, err) = nerve(d, &["interface", "show", "--topic", "cli/wheel"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("f64 speed [rad/s]  # Wheel speed, rad/s."),
        "{out}"
    );
    assert!(!out.contains("_pad"), "{out}");

    // Errors: one line, status 1, naming what was asked.
    let (code, out, err) = nerve(
        d,
        &[
            "topic",
            "echo",
            "cli/imu",
            "--once",
            "--field",
            "hedaer",
            "--timeout",
            "5",
        ],
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("has no field `hedaer`") && err.lines().count() == 1,
        "{err}"
    );
    assert_fails(
        d,
        &["topic", "echo", "cli/nosuch", "--once"],
        "'cli/nosuch' does not exist in domain",
    );
}

#[test]
fn interface_lists_and_shows_the_standard_set() {
    let (d, _g) = domain();
    let (code, out, _) = nerve(d, &["interface", "list"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), nerve::msgs::STANDARD.len());
    assert!(
        out.contains("nerve/Imu") && out.contains("sensor_msgs/msg/Imu"),
        "{out}"
    );
    for name in ["Imu", "nerve/Imu", "sensor_msgs/msg/Imu"] {
        let (code, out, err) = nerve(d, &["interface", "show", name]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.starts_with("nerve/Imu  (ROS 2: sensor_msgs/msg/Imu)"),
            "{out}"
        );
        assert!(
            out.contains("f64[9] orientation_covariance [rad²]"),
            "{out}"
        );
    }
    let (code, out, _) = nerve(d, &["interface", "show", "LaserScan"]);
    assert_eq!(code, 0);
    assert!(out.contains("data: f32[]"), "{out}");
    let (code, _, err) = nerve(d, &["interface", "show", "Imuu"]);
    assert_eq!(code, 1);
    assert!(err.contains("no standard type 'Imuu'"), "{err}");
}

#[test]
fn pub_sends_values_to_a_live_subscriber_and_names_what_is_wrong() {
    let (d, _g) = domain();
    // A subscriber in this process, on a topic `nerve topic pub` creates with a standard type.
    let (code, _, err) = nerve(
        d,
        &[
            "topic",
            "pub",
            "cli/cmd",
            "CmdVel",
            "{linear: 0.5}",
            "--once",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let topic = Topic::<CmdVel>::builder("cli/cmd")
        .domain(d)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    let (code, _, err) = nerve(
        d,
        &[
            "topic",
            "pub",
            "cli/cmd",
            "{linear: 0.5, angular: -1}",
            "--once",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let m = sub.try_recv().unwrap().expect("the published message");
    assert_eq!((m.linear, m.angular, m.stamp_ns), (0.5, -1.0, 0));
    // JSON too, a count and a rate: 5 messages at 100 Hz take about 40 ms.
    let started = std::time::Instant::now();
    let (code, _, err) = nerve(
        d,
        &[
            "topic",
            "pub",
            "cli/cmd",
            r#"{"linear": 2}"#,
            "-t",
            "5",
            "-r",
            "100",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        started.elapsed() >= Duration::from_millis(35),
        "{:?}",
        started.elapsed()
    );
    let got: Vec<f32> = std::iter::from_fn(|| sub.try_recv().unwrap())
        .map(|m| m.linear)
        .collect();
    assert_eq!(got, [2.0; 5]);
    // Errors: one line, status 1, naming the topic and what is wrong; nothing sent.
    for (args, says) in [
        (vec!["{linaer: 1}"], "no field `linaer`"),
        (
            vec!["{linear: [1"],
            "cannot read VALUES for topic 'cli/cmd'",
        ),
        (
            vec!["Imu", "{}"],
            "topic 'cli/cmd' carries nerve/CmdVel, not nerve/Imu",
        ),
        (vec!["{linear: fast}"], "field `linear`"),
    ] {
        let mut all = vec!["topic", "pub", "cli/cmd"];
        all.extend(args);
        all.push("--once");
        let (code, _, err) = nerve(d, &all);
        assert_eq!(code, 1, "{all:?}: {err}");
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{all:?}: {err}"
        );
    }
    let (code, _, err) = nerve(d, &["topic", "pub", "cli/other", "Imuu", "{}", "--once"]);
    assert_eq!(code, 1);
    assert!(err.contains("no standard type 'Imuu'"), "{err}");
    let (code, _, err) = nerve(d, &["topic", "pub", "cli/nosuch", "{}", "--once"]);
    assert_eq!(code, 1);
    assert!(err.contains("'cli/nosuch' does not exist"), "{err}");
    assert!(
        sub.try_recv().unwrap().is_none(),
        "nothing sent by a refused command"
    );
}
