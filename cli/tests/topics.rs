//! `nerve topic list | info | bw | delay`, `topic echo --csv | --no-arr`, echo keeping up
//! with 1080p images and 100 000-point clouds at 30 Hz, `topic pub -r 1000` holding its rate,
//! `doctor`, `completions`, and an example in every verb's help: run as a user runs them.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_fails, nerve, ok, NERVE};
use nerve::msgs::{
    CmdVel, Encoding, Header, Image, ImageHeader, Imu, PointCloud, PointCloudHeader, PointFormat,
};
use nerve::prelude::*;
use nerve_testing::{domain, process};

/// The timing tests take turns: on a two-core machine, 180 MB/s of images beside a 1 kHz
/// publisher would measure the machine, not the command.
static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Frames and clouds the camera sends: 5 s at 30 Hz.
const FRAMES: u64 = 150;

fn subscribers(topic: &str) -> usize {
    nerve::registry::list(nerve::default_domain())
        .iter()
        .find(|t| t.name == topic)
        .map_or(0, |t| t.subscribers())
}

/// Child processes: `sensors` (an Imu stamped with nerve's clock at 200 Hz and a small cloud
/// at 50 Hz, until killed); `camera` (once both `t/image` and `t/points` have a subscriber,
/// FRAMES 1920×1080 RGB images and FRAMES 100 000-point clouds at 30 Hz).
#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    match role.as_str() {
        "sensors" => {
            let imu = Topic::<Imu>::open("t/imu").unwrap().publisher().unwrap();
            let cloud = Topic::<PointCloud>::open("t/cloud")
                .unwrap()
                .publisher()
                .unwrap();
            println!("READY");
            for i in 0u64.. {
                let mut m = Imu::default();
                m.header.stamp_ns = nerve::time::now_ns();
                m.linear_acceleration.z = 9.81;
                imu.send(&m).unwrap();
                if i % 4 == 0 {
                    let mut loan = cloud.loan(100 * 16).unwrap();
                    *loan.header_mut() = PointCloudHeader::new(m.header, PointFormat::Xyz, 100);
                    loan.data_mut().fill(1);
                    loan.send().unwrap();
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        "camera" => {
            let image = Topic::<Image>::open("t/image")
                .unwrap()
                .publisher()
                .unwrap();
            let points = Topic::<PointCloud>::open("t/points")
                .unwrap()
                .publisher()
                .unwrap();
            println!("READY");
            while subscribers("t/image") == 0 || subscribers("t/points") == 0 {
                std::thread::sleep(Duration::from_millis(10));
            }
            let start = Instant::now();
            for i in 0..FRAMES {
                let stamp = Header::new(nerve::time::now_ns(), i, "camera").unwrap();
                let mut loan = image.loan(1920 * 1080 * 3).unwrap();
                *loan.header_mut() = ImageHeader::new(stamp, 1920, 1080, Encoding::Rgb8);
                loan.data_mut().fill(i as u8);
                loan.send().unwrap();
                let n = 100_000u32;
                let step = PointFormat::Xyz.point_size();
                let mut loan = points.loan(n as usize * step).unwrap();
                *loan.header_mut() = PointCloudHeader::new(stamp, PointFormat::Xyz, n);
                loan.data_mut().fill(7);
                loan.send().unwrap();
                let next = start + Duration::from_secs_f64((i + 1) as f64 / 30.0);
                if let Some(wait) = next.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
            }
            println!("DONE {:?}", start.elapsed());
            std::thread::sleep(Duration::from_secs(30));
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn list_info_bw_delay_and_echo_formats() {
    let (d, _g) = domain();
    let mut child = process::spawn_self("child_entry", "sensors", d, &[]);
    child.wait_line("READY");
    let pid = child.id().to_string();

    let out = ok(d, &["topic", "list"]);
    assert_eq!(out, "t/cloud\nt/imu\n");
    let out = ok(d, &["topic", "list", "-t"]);
    assert_eq!(out, "t/cloud [nerve/PointCloud]\nt/imu [nerve/Imu]\n");
    let out = ok(d, &["topic", "list", "-v"]);
    let imu = out.lines().find(|l| l.starts_with("t/imu")).unwrap();
    assert!(
        imu.contains("nerve/Imu") && imu.contains("shm") && imu.ends_with(&pid),
        "{out}"
    );
    let out = ok(d, &["topic", "info", "/t/cloud", "-v"]);
    for want in [
        "type       nerve/PointCloud",
        "publisher  pid",
        "u32 point_step [B]",
    ] {
        assert!(out.contains(want), "{want:?} in {out}");
    }

    let out = ok(d, &["topic", "hz", "/t/imu", "--duration", "2"]);
    let rates: Vec<f64> = out
        .lines()
        .map(|l| {
            l.trim_start_matches("/t/imu: ")
                .trim_start_matches("t/imu: ")
        })
        .filter_map(|l| l.strip_suffix(" Hz")?.parse().ok())
        .collect();
    assert_eq!(rates.len(), 2, "{out}");
    // About 200 Hz (5 ms sleeps: a little less).
    assert!(rates.iter().all(|r| (120.0..=210.0).contains(r)), "{out}");
    let out = ok(d, &["topic", "bw", "t/cloud", "--duration", "2"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    // 1600 B of points and the 72-byte header, ~50 a second.
    assert!(
        lines[1].contains("mean 1.67 KB, min 1.67 KB, max 1.67 KB"),
        "{out}"
    );
    let out = ok(d, &["topic", "delay", "t/imu", "--duration", "1"]);
    assert!(out.starts_with("t/imu: average delay "), "{out}");
    let mean: f64 = out.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(mean < 50.0, "delay {mean} ms: {out}");
    assert_fails(
        d,
        &["topic", "bw", "t/nosuch", "--duration", "1"],
        "'t/nosuch' does not exist",
    );

    let out = ok(
        d,
        &[
            "topic",
            "echo",
            "t/imu",
            "-n",
            "2",
            "--csv",
            "--timeout",
            "5",
        ],
    );
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(
        rows[0].starts_with("header.stamp_ns,header.seq,header.frame_id,"),
        "{out}"
    );
    assert!(rows[0].contains(",orientation_covariance.8,"), "{out}");
    let z = rows[0]
        .split(',')
        .position(|c| c == "linear_acceleration.z")
        .unwrap();
    assert_eq!(rows[1].split(',').nth(z), Some("9.81"), "{out}");
    let out = ok(
        d,
        &[
            "topic",
            "echo",
            "t/cloud",
            "--once",
            "--no-arr",
            "--timeout",
            "5",
        ],
    );
    assert!(out.contains("data: \"<1600 elements>\""), "{out}");
    let out = ok(
        d,
        &[
            "topic",
            "echo",
            "t/imu",
            "--once",
            "--no-arr",
            "--yaml",
            "--timeout",
            "5",
        ],
    );
    assert!(
        out.contains("orientation_covariance: \"<9 elements>\""),
        "{out}"
    );
    let (code, _, err) = nerve(d, &["topic", "echo", "t/imu", "--json", "--csv"]);
    assert_eq!(code, 2, "conflicting formats are a usage error: {err}");
}

/// Starts `nerve topic echo NAME -n FRAMES` (summarised arrays: only what is printed is
/// decoded).
fn echo(d: u32, name: &str) -> std::process::Child {
    Command::new(NERVE)
        .args([
            "topic",
            "echo",
            name,
            "-n",
            &FRAMES.to_string(),
            "--timeout",
            "10",
        ])
        .env("NERVE_DOMAIN", d.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nerve topic echo")
}

#[test]
fn echo_keeps_up_with_1080p_images_and_100k_point_clouds_at_30_hz() {
    let _turn = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let (d, _g) = domain();
    let mut camera = process::spawn_self("child_entry", "camera", d, &[]);
    camera.wait_line("READY");
    let images = echo(d, "t/image");
    let points = echo(d, "t/points");
    let done = camera.wait_line("DONE");
    for (name, child) in [("t/image", images), ("t/points", points)] {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let shown = stdout.lines().filter(|l| *l == "---").count() as u64;
        assert_eq!(
            shown,
            FRAMES,
            "{name}: echo printed {shown} of {FRAMES} messages ({done}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success());
        assert!(
            stdout.contains("data_len: "),
            "summarised: {}",
            &stdout[..400.min(stdout.len())]
        );
    }
}

#[test]
fn pub_holds_1000_hz_within_one_percent() {
    let _turn = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("t/rate")
        .domain(d)
        .depth(4096)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    let n = 3000usize;
    let mut publisher = Command::new(NERVE)
        .args([
            "topic",
            "pub",
            "t/rate",
            "{linear: 1}",
            "-r",
            "1000",
            "-t",
            &n.to_string(),
        ])
        .env("NERVE_DOMAIN", d.to_string())
        .spawn()
        .unwrap();
    let mut times = Vec::with_capacity(n);
    let end = Instant::now() + Duration::from_secs(20);
    while times.len() < n && Instant::now() < end {
        if sub
            .recv_timeout(Duration::from_millis(100))
            .unwrap()
            .is_some()
        {
            times.push(Instant::now());
        }
    }
    assert!(publisher.wait().unwrap().success());
    assert_eq!(times.len(), n, "every message received");
    let rate = (n - 1) as f64 / (times[n - 1] - times[0]).as_secs_f64();
    assert!((rate - 1000.0).abs() <= 10.0, "rate {rate:.1} Hz");
}

#[test]
fn doctor_completions_and_an_example_in_every_help() {
    let (d, _g) = domain();
    // A topic whose only process died: doctor names it and what to do.
    let mut child = process::spawn_self("child_entry", "sensors", d, &[]);
    child.wait_line("READY");
    child.kill9();
    let (code, out, err) = nerve(d, &["doctor"]);
    assert!(
        out.contains("ok    /dev/shm: ") || out.contains("FIX   /dev/shm"),
        "{out}"
    );
    for what in ["memlock", "rtprio", "SCHED_FIFO", "membarrier"] {
        assert!(out.contains(what), "{what} in {out}");
    }
    assert!(
        out.contains("stale topics") && out.contains("t/imu"),
        "{out}"
    );
    assert!(out.contains("`nerve clean` removes them"), "{out}");
    assert_eq!(code, 1, "findings make the status 1: {err}");
    ok(d, &["clean"]);
    assert!(!nerve(d, &["doctor"]).1.contains("stale"));

    let bash = ok(d, &["completions", "bash"]);
    assert!(
        bash.contains("_nerve()") && bash.contains("send_goal"),
        "{}",
        &bash[..200]
    );
    let (code, _, _) = nerve(d, &["completions", "tcsh"]);
    assert_eq!(code, 2);

    for verb in [
        "topic list",
        "topic info",
        "topic type",
        "topic find",
        "topic echo",
        "topic pub",
        "topic hz",
        "topic bw",
        "topic delay",
        "interface list",
        "interface show",
        "node list",
        "node info",
        "service list",
        "service type",
        "service call",
        "action list",
        "action info",
        "action send_goal",
        "param list",
        "param get",
        "param set",
        "param describe",
        "param dump",
        "param load",
        "doctor",
        "completions",
        "clean",
        "demo",
    ] {
        let mut args: Vec<&str> = verb.split(' ').collect();
        args.push("--help");
        let help = ok(d, &args);
        assert!(
            help.contains("Example: `nerve "),
            "no example in `nerve {verb} --help`"
        );
    }
}
