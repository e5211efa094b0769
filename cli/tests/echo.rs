//! `nerve topic echo | type` and `nerve interface list | show`, run the way a user runs them,
//! against a live publisher in another process.

use std::process::{Command, Stdio};
use std::time::Duration;

use nerve::prelude::*;
use nerve_testing::{domain, process};

const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

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

/// `nerve args` in `domain`: (status, stdout, stderr).
fn nerve(domain: u32, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(NERVE)
        .args(args)
        .env("NERVE_DOMAIN", domain.to_string())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run nerve");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
    let (code, _, err) = nerve(d, &["topic", "echo", "cli/nosuch", "--once"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("'cli/nosuch' does not exist in domain") && err.lines().count() == 1,
        "{err}"
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
