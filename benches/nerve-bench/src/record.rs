//! `nerve-bench record`: recording a robot's streams, nerve's recorder against ROS 2's way
//! (an rclpy subscriber writing the serialized messages with the `mcap` writer, as `ros2 bag`
//! does), in the same run. Two cases: `sensors` (1 kHz Imu, 10 Hz LaserScan of 360 ranges,
//! 30 Hz 1920×1080 rgb8 images) and `topics1000` (1000 topics of Twist/CmdVel at 10 Hz each).
//! Per recorder: messages sent and written (loss), CPU % of the recorder process (from
//! `wait4`'s rusage), CPU µs per message, MB/s written.

use std::io::BufReader;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use nerve::msgs::{CmdVel, Encoding, Header, Image, ImageHeader, Imu, LaserScan, LaserScanHeader};
use nerve::Topic;
use nerve_bag::record::{RecordOptions, Recorder, Selection};

use crate::machine::Machine;
use crate::report::{emit, Row, SuiteArgs};
use crate::stats::Summary;

/// The workloads.
pub const CASES: [&str; 2] = ["sensors", "topics1000"];

/// Topics of the `topics1000` case.
const MANY: usize = 1000;

/// A child's output line starting with `prefix`, its words after it.
fn wait_line(child: &mut Child, prefix: &str) -> Result<Vec<String>> {
    let out = child
        .stdout
        .as_mut()
        .ok_or_else(|| anyhow!("child stdout"))?;
    let rest = crate::child::line_after(&mut BufReader::new(out), prefix)?;
    Ok(rest.split_whitespace().map(str::to_owned).collect())
}

/// Waits for `child` and returns its CPU time (user + system).
fn wait_cpu(child: &Child) -> Result<Duration> {
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid place for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child's pid with valid out-pointers.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    if pid < 0 {
        bail!("wait4: {}", std::io::Error::last_os_error());
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Ok(tv(usage.ru_utime) + tv(usage.ru_stime))
}

fn interrupt(child: &Child) {
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
}

/// What one recorder did.
struct Outcome {
    sent: u64,
    written: u64,
    bytes: u64,
    cpu: Duration,
    wall: Duration,
}

fn self_child(args: &[&str]) -> Result<Child> {
    let exe = std::env::current_exe()?;
    Command::new(exe)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("spawning a record child")
}

/// nerve: this binary's `__record-rec` (nerve_bag's recorder) and `__record-pub`.
fn run_nerve(case: &str, secs: u64, dir: &Path) -> Result<Outcome> {
    let domain = nerve_testing::unique_domain();
    let d = domain.to_string();
    let file = dir.join(format!("nerve-{case}.mcap"));
    let mut rec = self_child(&[
        "__record-rec",
        "--domain",
        &d,
        "--out",
        &file.to_string_lossy(),
    ])?;
    wait_line(&mut rec, "READY")?;
    let mut publisher = self_child(&[
        "__record-pub",
        "--domain",
        &d,
        "--case",
        case,
        "--secs",
        &secs.to_string(),
    ])?;
    let outcome = measure(&mut rec, &mut publisher, Duration::from_millis(300));
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(domain));
    let _ = std::fs::remove_file(&file);
    outcome
}

/// The Fast DDS profile of every ROS 2 process here (in `benches/python`).
const ROS2_PROFILE: &str = "fastdds_large_messages.xml";

/// ROS 2: `benches/python/record_ros2.py` in the ros2 peer's venv (rclpy + mcap).
fn run_ros2(case: &str, secs: u64, dir: &Path) -> Result<Outcome> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
    let py = here.join(".venvs/ros2/bin/python");
    if !py.exists() {
        bail!("the ros2 peer is not installed: run benches/python/setup_peers.sh ros2");
    }
    let script = here.join("record_ros2.py");
    let file = dir.join(format!("ros2-{case}.mcap"));
    let domain_id = (std::process::id() % 200).to_string();
    let spawn = |args: &[&str]| {
        Command::new(&py)
            .arg(&script)
            .args(args)
            .env("ROS_DOMAIN_ID", &domain_id)
            // Like for like: Fast DDS's large-message / shared-memory profile, in both ROS 2
            // processes (with the default one a 1080p frame goes over UDP).
            .env("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
            .env("FASTDDS_DEFAULT_PROFILES_FILE", here.join(ROS2_PROFILE))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting the ROS 2 peer")
    };
    let mut rec = spawn(&["rec", "--case", case, "--out", &file.to_string_lossy()])?;
    wait_line(&mut rec, "READY")?;
    let mut publisher = spawn(&["pub", "--case", case, "--secs", &secs.to_string()])?;
    let outcome = measure(&mut rec, &mut publisher, Duration::from_millis(500));
    let _ = std::fs::remove_file(&file);
    outcome
}

/// Waits for the publisher's run, lets the recorder drain for `settle`, stops it, and
/// collects what each said and the recorder's CPU time.
fn measure(rec: &mut Child, publisher: &mut Child, settle: Duration) -> Result<Outcome> {
    let started = Instant::now();
    let sent: u64 = wait_line(publisher, "SENT")?[0].parse()?;
    let wall = started.elapsed();
    publisher.wait()?;
    std::thread::sleep(settle);
    interrupt(rec);
    let words = wait_line(rec, "RECORDED")?;
    let cpu = wait_cpu(rec)?;
    Ok(Outcome {
        sent,
        written: words[0].parse()?,
        bytes: words[1].parse()?,
        cpu,
        wall,
    })
}

fn rows_of(system: &str, case: &str, o: &Result<Outcome>) -> Vec<Row> {
    let base = Row::new(
        "record",
        system,
        "rust",
        "cross-process",
        "1:1",
        "recorder",
        case,
        0,
        "",
    );
    let one = |v: f64| Summary::of(&mut [v]);
    match o {
        Err(e) => vec![base.with_metric("messages_lost").error(format!("{e:#}"))],
        Ok(o) => {
            let secs = o.wall.as_secs_f64().max(1e-9);
            let lost = o.sent.saturating_sub(o.written) as f64;
            let cpu_pct = o.cpu.as_secs_f64() / secs * 100.0;
            let per_msg = o.cpu.as_secs_f64() * 1e6 / (o.written.max(1) as f64);
            let with = |r: Row| r.field("sent", o.sent).field("written", o.written);
            vec![
                with(base.with_metric("messages_lost")).summary_opt(one(lost)),
                with(base.with_metric("recorder_cpu_pct")).summary_opt(one(cpu_pct)),
                with(base.with_metric("cpu_us_per_msg")).summary_opt(one(per_msg)),
                with(base.with_metric("mb_per_s")).summary_opt(one(o.bytes as f64 / 1e6 / secs)),
            ]
        }
    }
}

/// Runs every case for nerve and ROS 2 and emits the rows and the target check.
pub fn run_suite(args: &SuiteArgs) -> Result<()> {
    let machine = Machine::detect();
    // Quick: 6 s per case and system (the CPU ratio of a quick run is indicative; the full
    // run's 30 s is the figure).
    let secs = if args.quick { 6 } else { 30 };
    let dir = std::env::temp_dir().join(format!("nerve-bench-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut rows = Vec::new();
    for case in CASES {
        eprintln!("record: {case}, {secs} s, nerve then ROS 2");
        let nerve = run_nerve(case, secs, &dir);
        let ros2 = run_ros2(case, secs, &dir);
        rows.extend(rows_of("nerve", case, &nerve));
        rows.extend(rows_of("ros2", case, &ros2).into_iter().map(|r| {
            r.field("dds_profile", ROS2_PROFILE).field(
                "executor",
                "EventsExecutor (record_ros2.py's READY line says)",
            )
        }));
        let target = Row::new(
            "record",
            "nerve",
            "rust",
            "cross-process",
            "1:1",
            "recorder",
            case,
            0,
            "target_record_cpu_vs_ros2",
        );
        rows.push(match (&nerve, &ros2) {
            (Ok(n), Ok(r)) => {
                let per = |o: &Outcome| o.cpu.as_secs_f64() / o.written.max(1) as f64;
                let ratio = per(n) / per(r);
                let zero_loss = n.sent == n.written;
                target
                    .summary_opt(Summary::of(&mut [ratio]))
                    .field("pass", ratio <= 0.1 && zero_loss)
                    .field("threshold", 0.1)
                    .field("how", "nerve CPU per message / ROS 2 (rclpy + mcap writer) CPU per message ≤ 0.1, and nerve loses nothing (same run)")
            }
            _ => target.error("a side did not run (see its rows)"),
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
    emit("record", args, &machine, &rows)
}

/// `__record-rec`: records everything in `domain` into `out` until SIGINT, then prints
/// `RECORDED <messages> <bytes> <lost>`.
pub fn rec_child(domain: u32, out: &Path) -> Result<()> {
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    extern "C" fn on_signal(_: libc::c_int) {
        // Relaxed: a flag polled by the loop below; it hands over no data.
        STOP.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe { libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t) };
    let mut r = Recorder::start(RecordOptions {
        domain,
        selection: Selection::All,
        output: out.to_owned(),
        // Uncompressed on both sides: zstd costs the same for both and would hide the
        // recorders' own cost.
        compression: None,
        split_bytes: None,
        split_duration: None,
        native: false,
    })?;
    println!("READY");
    // Relaxed: see `on_signal`.
    while !STOP.load(std::sync::atomic::Ordering::Relaxed) {
        if r.poll()? == 0 {
            std::thread::sleep(nerve_bag::record::IDLE_SLEEP);
        }
    }
    let s = r.finish()?;
    println!("RECORDED {} {} {}", s.messages, s.bytes, s.lost);
    Ok(())
}

/// `__record-pub`: the workload of `case` for `secs` once every topic has a subscriber; prints
/// `SENT <messages>`.
pub fn pub_child(domain: u32, case: &str, secs: u64) -> Result<()> {
    let subscribed = |names: &[String]| {
        let topics = nerve::registry::list(domain);
        names
            .iter()
            .all(|n| topics.iter().any(|t| &t.name == n && t.subscribers() > 0))
    };
    let end_wait = Instant::now() + Duration::from_secs(30);
    let mut sent = 0u64;
    match case {
        "sensors" => {
            let imu = Topic::<Imu>::builder("rec/imu")
                .domain(domain)
                .depth(256)
                .open()?
                .publisher()?;
            let scan = Topic::<LaserScan>::builder("rec/scan")
                .domain(domain)
                .open()?
                .publisher()?;
            let image = Topic::<Image>::builder("rec/image")
                .domain(domain)
                .depth(8)
                .open()?
                .publisher()?;
            let names = ["rec/imu", "rec/scan", "rec/image"].map(String::from);
            while !subscribed(&names) && Instant::now() < end_wait {
                std::thread::sleep(Duration::from_millis(10));
            }
            let start = Instant::now();
            for i in 0..secs * 1000 {
                let stamp =
                    Header::new(nerve::time::now_ns(), i, "base").map_err(|e| anyhow!("{e}"))?;
                imu.send(&Imu {
                    header: stamp,
                    ..Default::default()
                })?;
                sent += 1;
                if i % 100 == 0 {
                    let mut l = scan.loan(360)?;
                    *l.header_mut() = LaserScanHeader {
                        header: stamp,
                        range_max: 30.0,
                        ..Default::default()
                    };
                    l.data_mut().fill(2.5);
                    l.send()?;
                    sent += 1;
                }
                if i * 30 / 1000 != (i + 1) * 30 / 1000 {
                    let mut l = image.loan(1920 * 1080 * 3)?;
                    *l.header_mut() = ImageHeader::new(stamp, 1920, 1080, Encoding::Rgb8);
                    l.data_mut().fill(i as u8);
                    l.send()?;
                    sent += 1;
                }
                let next = start + Duration::from_millis(i + 1);
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
        }
        "topics1000" => {
            let pubs = (0..MANY)
                .map(|i| {
                    Topic::<CmdVel>::builder(&format!("rec/t{i}"))
                        .domain(domain)
                        .open()?
                        .publisher()
                })
                .collect::<Result<Vec<_>, _>>()?;
            let names: Vec<String> = (0..MANY).map(|i| format!("rec/t{i}")).collect();
            while !subscribed(&names) && Instant::now() < end_wait {
                std::thread::sleep(Duration::from_millis(10));
            }
            let start = Instant::now();
            for round in 0..secs * 10 {
                for p in &pubs {
                    p.send(&CmdVel {
                        stamp_ns: nerve::time::now_ns(),
                        linear: 0.5,
                        angular: round as f32,
                    })?;
                    sent += 1;
                }
                let next = start + Duration::from_millis(100 * (round + 1));
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
        }
        other => bail!("unknown case {other}"),
    }
    println!("SENT {sent}");
    Ok(())
}
