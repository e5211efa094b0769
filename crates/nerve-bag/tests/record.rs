//! Recording live topics of another process to MCAP and playing them back: every message
//! counted, bytes and order exact, timing kept; compressions and splits give valid files; a
//! recorder killed with `kill -9` leaves a file `recover` restores.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcap::Compression;
use nerve::msgs::{Header, Imu, LaserScan, LaserScanHeader};
use nerve::prelude::*;
use nerve::Msgpack;
use nerve_bag::inspect::{info, recover};
use nerve_bag::play::{play, Control, PlayOptions};
use nerve_bag::record::{RecordOptions, Recorder, Selection};
use nerve_testing::{domain, process};
use serde::{Deserialize, Serialize};

/// Messages the publisher sends on each topic.
const N: u64 = 200;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Status {
    seq: u64,
    mode: String,
}

fn out_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("nerve-bag-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Child roles: `publisher` (waits for a subscriber on each topic, then N Imu at 200 Hz, N
/// scans and N MessagePack statuses, then DONE); `recorder` (records everything into the file
/// `BAG_PATH` until killed).
#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    match role.as_str() {
        "publisher" => {
            let imu = Topic::<Imu>::open("bag/imu").unwrap().publisher().unwrap();
            let scan = Topic::<LaserScan>::open("bag/scan")
                .unwrap()
                .publisher()
                .unwrap();
            let status = Topic::<Msgpack<Status>>::open("bag/status")
                .unwrap()
                .publisher()
                .unwrap();
            println!("READY");
            let subscribed = |name: &str| {
                nerve::registry::list(nerve::default_domain())
                    .iter()
                    .any(|t| t.name == name && t.subscribers() > 0)
            };
            while !(subscribed("bag/imu") && subscribed("bag/scan") && subscribed("bag/status")) {
                std::thread::sleep(Duration::from_millis(5));
            }
            for i in 0..N {
                let mut m = Imu {
                    header: Header::new(i, i, "imu").unwrap(),
                    ..Default::default()
                };
                m.angular_velocity.z = i as f64 * 0.5;
                imu.send(&m).unwrap();
                let mut loan = scan.loan(10 + i as usize % 7).unwrap();
                *loan.header_mut() = LaserScanHeader {
                    header: Header::new(i, i, "laser").unwrap(),
                    range_max: 30.0,
                    ..Default::default()
                };
                for (k, r) in loan.data_mut().iter_mut().enumerate() {
                    *r = i as f32 + k as f32 * 0.25;
                }
                loan.send().unwrap();
                status
                    .send(&Status {
                        seq: i,
                        mode: format!("mode {i}"),
                    })
                    .unwrap();
                std::thread::sleep(Duration::from_millis(5));
            }
            println!("DONE");
            std::thread::sleep(Duration::from_secs(30));
        }
        "recorder" => {
            let mut r = Recorder::start(RecordOptions {
                domain: nerve::default_domain(),
                selection: Selection::All,
                output: PathBuf::from(process::env("BAG_PATH")),
                compression: Some(Compression::Zstd),
                split_bytes: None,
                split_duration: None,
                native: false,
            })
            .unwrap();
            println!("READY");
            loop {
                if r.poll().unwrap() == 0 {
                    std::thread::sleep(Duration::from_micros(500));
                }
            }
        }
        other => panic!("unknown role {other}"),
    }
}

/// Records the publisher's run into `path`; returns the recorder's statistics.
fn record(
    d: u32,
    path: &Path,
    compression: Option<Compression>,
    split: Option<u64>,
    native: bool,
) -> nerve_bag::record::RecordStats {
    let mut r = Recorder::start(RecordOptions {
        domain: d,
        selection: Selection::All,
        output: path.to_owned(),
        compression,
        split_bytes: split,
        split_duration: None,
        native,
    })
    .unwrap();
    let mut publisher = process::spawn_self("child_entry", "publisher", d, &[]);
    publisher.wait_line("READY");
    let end = Instant::now() + Duration::from_secs(20);
    // Until every message of the three topics is written.
    while r.stats().messages < 3 * N {
        assert!(Instant::now() < end, "recorded {:?}", r.stats());
        if r.poll().unwrap() == 0 {
            std::thread::sleep(Duration::from_micros(500));
        }
    }
    publisher.wait_line("DONE");
    r.finish().unwrap()
}

#[test]
fn a_native_recording_plays_back_byte_for_byte() {
    plays_back(true);
}

#[test]
fn a_ros2_recording_plays_back_what_ros2_carries() {
    plays_back(false);
}

/// Records, checks the file, plays it into another domain and compares every message (with
/// ROS 2 encodings, `header.seq` does not travel: ROS 2 has none).
fn plays_back(native: bool) {
    let (d, _g) = domain();
    let path = out_dir().join(format!("exact-{native}.mcap"));
    let stats = record(d, &path, Some(Compression::Zstd), None, native);
    assert_eq!(
        (stats.topics, stats.messages, stats.lost),
        (3, 3 * N, 0),
        "{stats:?}"
    );

    let bag = info(&path).unwrap();
    assert!(bag.complete);
    assert_eq!(bag.messages, 3 * N);
    let topics: Vec<(&str, &str, u64)> = bag
        .topics
        .iter()
        .map(|t| (t.topic.as_str(), t.type_name.as_str(), t.messages))
        .collect();
    let (imu_type, scan_type) = if native {
        ("nerve/Imu", "nerve/LaserScan")
    } else {
        ("sensor_msgs/msg/Imu", "sensor_msgs/msg/LaserScan")
    };
    assert_eq!(
        topics,
        [
            ("bag/imu", imu_type, N),
            ("bag/scan", scan_type, N),
            ("bag/status", "nerve/Msgpack", N)
        ]
    );
    assert_eq!(bag.compression.keys().collect::<Vec<_>>(), ["zstd"]);
    let recorded = Duration::from_nanos(bag.end_ns - bag.start_ns);

    // Played into another domain, to subscribers that were never compiled against the files.
    let (d2, _g2) = domain();
    let imu = Topic::<Imu>::builder("bag/imu")
        .domain(d2)
        .depth(1024)
        .open()
        .unwrap();
    let scan = Topic::<LaserScan>::builder("bag/scan")
        .domain(d2)
        .depth(1024)
        .open()
        .unwrap();
    let status = Topic::<Msgpack<Status>>::builder("bag/status")
        .domain(d2)
        .depth(1024)
        .open()
        .unwrap();
    let (mut si, mut ss, mut st) = (
        imu.subscriber().unwrap(),
        scan.subscriber().unwrap(),
        status.subscriber().unwrap(),
    );
    let opts = PlayOptions {
        domain: d2,
        ..PlayOptions::default()
    };
    let started = Instant::now();
    let played = play(&path, &opts, |_| Control::Continue).unwrap();
    let took = started.elapsed();
    assert_eq!(played, 3 * N);
    // Timing: the recording's span, within 25 % and 50 ms.
    let slack = recorded / 4 + Duration::from_millis(50);
    assert!(
        took + slack >= recorded && took <= recorded + slack,
        "{took:?} for {recorded:?}"
    );
    for i in 0..N {
        let m = si.try_recv().unwrap().expect("every Imu, in order");
        let seq = if native { i } else { 0 };
        assert_eq!(
            (m.header.stamp_ns, m.header.seq, m.angular_velocity.z),
            (i, seq, i as f64 * 0.5)
        );
        assert_eq!(m.header.frame_id(), "imu");
        let s = ss.try_recv().unwrap().expect("every scan, in order");
        assert_eq!(
            (s.header().header.stamp_ns, s.header().header.seq),
            (i, seq)
        );
        assert_eq!(s.header().range_max, 30.0);
        assert_eq!(s.data().len(), 10 + i as usize % 7);
        assert!(s
            .data()
            .iter()
            .enumerate()
            .all(|(k, r)| *r == i as f32 + k as f32 * 0.25));
        let v = st.try_recv().unwrap().expect("every status, in order");
        assert_eq!(
            v,
            Status {
                seq: i,
                mode: format!("mode {i}")
            }
        );
    }
    assert!(si.try_recv().unwrap().is_none());

    // Faster, a topic chosen, stopped by the caller.
    let opts = PlayOptions {
        domain: d2,
        rate: 4.0,
        topics: vec!["/bag/imu".into()],
        ..PlayOptions::default()
    };
    let started = Instant::now();
    let played = play(&path, &opts, |p| {
        if p.published == 50 {
            Control::Stop
        } else {
            Control::Continue
        }
    })
    .unwrap();
    assert_eq!(played, 50);
    assert!(started.elapsed() < recorded / 2, "rate 4");
    assert!(ss.try_recv().unwrap().is_none(), "only the chosen topic");
}

#[test]
fn compressions_and_splits_give_valid_files() {
    for (name, compression, key) in [
        ("lz4", Some(Compression::Lz4), "lz4"),
        ("none", None, "none"),
    ] {
        let (d, _g) = domain();
        let path = out_dir().join(format!("{name}.mcap"));
        let stats = record(d, &path, compression, None, false);
        let bag = info(&path).unwrap();
        assert_eq!((bag.messages, stats.lost), (3 * N, 0), "{name}");
        assert_eq!(bag.compression.keys().collect::<Vec<_>>(), [key], "{name}");
    }
    let (d, _g) = domain();
    let path = out_dir().join("split.mcap");
    let stats = record(d, &path, Some(Compression::Zstd), Some(16 << 10), false);
    assert!(stats.files.len() > 1, "{stats:?}");
    let total: u64 = stats.files.iter().map(|f| info(f).unwrap().messages).sum();
    assert_eq!(total, 3 * N, "every message in exactly one part");
}

#[test]
fn a_recorder_killed_mid_write_leaves_a_recoverable_file() {
    let (d, _g) = domain();
    let path = out_dir().join("killed.mcap");
    let mut recorder = process::spawn_self(
        "child_entry",
        "recorder",
        d,
        &[("BAG_PATH", path.display().to_string())],
    );
    recorder.wait_line("READY");
    let mut publisher = process::spawn_self("child_entry", "publisher", d, &[]);
    publisher.wait_line("READY");
    publisher.wait_line("DONE");
    // At least one flush (every second) after the last message.
    std::thread::sleep(Duration::from_millis(1500));
    recorder.kill9();
    assert!(
        !info(&path).map(|b| b.complete).unwrap_or(false),
        "a killed recorder wrote no summary"
    );
    let fixed = out_dir().join("recovered.mcap");
    let got = recover(&path, &fixed, Some(Compression::Zstd)).unwrap();
    assert_eq!(got.messages, 3 * N, "{got:?}");
    let bag = info(&fixed).unwrap();
    assert!(bag.complete);
    assert_eq!(bag.messages, 3 * N);
    assert!(recover(&out_dir().join("nosuch.mcap"), &fixed, None).is_err());
}

#[test]
fn paused_playback_publishes_only_its_steps_then_resumes() {
    let (d, _g) = domain();
    let path = out_dir().join("paused.mcap");
    record(d, &path, None, None, true);
    let (d2, _g2) = domain();
    let imu = Topic::<Imu>::builder("bag/imu")
        .domain(d2)
        .depth(1024)
        .open()
        .unwrap();
    let mut sub = imu.subscriber().unwrap();
    let control = nerve_bag::play::PlayControl::default();
    assert!(control.toggle(), "paused before it starts");
    let opts = PlayOptions {
        domain: d2,
        rate: 4.0,
        topics: vec!["bag/imu".into()],
        control: control.clone(),
        ..PlayOptions::default()
    };
    let player = std::thread::spawn(move || play(&path, &opts, |_| Control::Continue).unwrap());
    std::thread::sleep(Duration::from_millis(200));
    assert!(sub.try_recv().unwrap().is_none(), "nothing while paused");
    for _ in 0..3 {
        control.step();
    }
    std::thread::sleep(Duration::from_millis(200));
    let stepped: Vec<u64> = std::iter::from_fn(|| sub.try_recv().unwrap())
        .map(|m| m.header.seq)
        .collect();
    assert_eq!(stepped, [0, 1, 2], "three steps, three messages");
    assert!(!control.toggle(), "resumed");
    assert_eq!(player.join().unwrap(), N);
    let rest = std::iter::from_fn(|| sub.try_recv().unwrap()).count() as u64;
    assert_eq!(rest, N - 3);
}
