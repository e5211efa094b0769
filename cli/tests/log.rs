//! `nerve log` as a user runs it: records that processes published on the domain's log topic,
//! filtered by level, node and text, in the order each process logged them.

use std::process::Command;

use nerve::log::{Level, Logger};

const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

fn nerve_log(domain: u32, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(NERVE)
        .arg("log")
        .args(args)
        .env("NERVE_DOMAIN", domain.to_string())
        .output()
        .expect("nerve log");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn records_of_every_node_are_shown_in_order_and_filtered() {
    let (domain, _guard) = nerve_testing::domain();
    let planner = Logger::with_domain("r1/planner", domain);
    let driver = Logger::with_domain("driver", domain);
    driver.set_level(Level::Debug);
    for i in 0..5 {
        planner.log(
            Level::Info,
            "planner.rs",
            10 + i,
            &format!("step {i}"),
            vec![("speed".into(), format!("{}.5", i))],
        );
    }
    driver.log(Level::Debug, "driver.c", 7, "port opened", vec![]);
    planner.log(
        Level::Trace,
        "planner.rs",
        1,
        "below the planner's level: not sent",
        vec![],
    );
    driver.log(
        Level::Error,
        "driver.c",
        99,
        "serial timeout",
        vec![("port".into(), "/dev/ttyUSB0".into())],
    );
    assert_eq!((planner.dropped(), driver.dropped()), (0, 0));

    let (ok, out, err) = nerve_log(domain, &[]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert!(
        lines[0].contains("INFO  [r1/planner] planner.rs:10 step 0 speed=0.5"),
        "{out}"
    );
    assert!(lines[4].contains("step 4 speed=4.5"), "{out}");
    assert!(
        lines[5].contains("DEBUG [driver] driver.c:7 port opened"),
        "{out}"
    );
    assert!(
        lines[6].contains("ERROR [driver] driver.c:99 serial timeout port=/dev/ttyUSB0"),
        "{out}"
    );
    assert!(!out.contains("below the planner's level"));

    let (_, out, _) = nerve_log(domain, &["--level", "warn"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    let (_, out, _) = nerve_log(domain, &["--node", "r1/"]);
    assert_eq!(out.lines().count(), 5, "a namespace prefix: {out}");
    let (_, out, _) = nerve_log(domain, &["--node", "/driver"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    let (_, out, _) = nerve_log(domain, &["--grep", "ttyUSB|step [34]"]);
    assert_eq!(out.lines().count(), 3, "fields are searched too: {out}");
    let (ok, _, err) = nerve_log(domain, &["--level", "loud"]);
    assert!(
        !ok && err.contains("--level \"loud\": use trace, debug, info, warn or error"),
        "{err}"
    );
    let (ok, _, err) = nerve_log(domain, &["--grep", "("]);
    assert!(!ok && err.contains("is not a regular expression"), "{err}");
}

#[test]
fn a_flood_of_records_never_blocks_and_the_topic_keeps_the_newest() {
    let (domain, _guard) = nerve_testing::domain();
    let flood = Logger::with_domain("flood", domain);
    let t = std::time::Instant::now();
    for i in 0..20_000u32 {
        flood.log(Level::Info, "f.rs", i, "x", vec![]);
    }
    let per = t.elapsed() / 20_000;
    assert!(
        per < std::time::Duration::from_micros(50),
        "one log call took {per:?}"
    );
    // The topic keeps the newest 1024; a reader sees those.
    let (ok, out, err) = nerve_log(domain, &[]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 1024);
    assert!(
        out.lines().last().unwrap().contains("f.rs:19999"),
        "the newest last"
    );
}

#[test]
fn levels_change_at_run_time_per_node() {
    let (domain, _guard) = nerve_testing::domain();
    let planner = Logger::with_domain("r1/planner", domain);
    let driver = Logger::with_domain("driver", domain);
    planner.log(Level::Debug, "p.rs", 1, "hidden", vec![]);
    let out = Command::new(NERVE)
        .args(["log", "--set-level", "r1/=debug"])
        .env("NERVE_DOMAIN", domain.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "r1/: log level debug (from its next log call)"
    );
    planner.log(Level::Debug, "p.rs", 2, "visible", vec![]);
    driver.log(Level::Debug, "d.rs", 3, "driver stays at info", vec![]);
    assert_eq!(
        (planner.level(), driver.level()),
        (Level::Debug, Level::Info)
    );
    let (_, out, _) = nerve_log(domain, &[]);
    assert!(
        out.contains("p.rs:2 visible") && !out.contains("hidden") && !out.contains("d.rs:3"),
        "{out}"
    );
    // A logger started after the change adopts it.
    let late = Logger::with_domain("r1/late", domain);
    assert!(late.enabled(Level::Debug));
    let out = Command::new(NERVE)
        .args(["log", "--set-level", "planner"])
        .env("NERVE_DOMAIN", domain.to_string())
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("NODE=LEVEL"));
}

#[test]
fn the_recorder_records_the_log_topic_like_any_topic() {
    let (domain, _guard) = nerve_testing::domain();
    let dir = std::env::temp_dir().join(format!("nerve-cli-log-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("logs.mcap");
    let logger = Logger::with_domain("recorded", domain);
    logger.log(Level::Info, "r.rs", 1, "before the recorder", vec![]);
    let rec = Command::new(NERVE)
        .args(["record", "-a", "-o"])
        .arg(&file)
        .env("NERVE_DOMAIN", domain.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    for i in 0..5 {
        logger.log(
            Level::Warn,
            "r.rs",
            10 + i,
            &format!("recorded record {i}"),
            vec![],
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(rec.id() as i32, libc::SIGINT) };
    let out = rec.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let messages = nerve_bag::file::read_all(&file).expect("the recording reads back");
    let texts: Vec<String> = messages
        .iter()
        .filter(|m| m.topic == "nerve/log")
        .map(|m| {
            String::from_utf8_lossy(&[m.fixed.as_slice(), m.payload.as_slice()].concat())
                .into_owned()
        })
        .collect();
    let found: Vec<usize> = (0..5)
        .filter_map(|i| {
            texts
                .iter()
                .position(|t| t.contains(&format!("recorded record {i}")))
        })
        .collect();
    assert_eq!(
        found.len(),
        5,
        "every record written while recording is in the file: {texts:?}"
    );
    assert!(found.windows(2).all(|w| w[0] < w[1]), "in order: {found:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn garbage_on_the_log_topic_is_skipped_and_counted() {
    let (domain, _guard) = nerve_testing::domain();
    let logger = Logger::with_domain("honest", domain);
    logger.log(Level::Info, "h.rs", 1, "first", vec![]);
    // Another program writes bytes that are no log record (truncated MessagePack, a wrong shape).
    let raw = nerve::raw::RawTopic::join(nerve::log::LOG_TOPIC, domain).unwrap();
    let p = raw.publisher().unwrap();
    p.send_serialized(&[0x93, 0x01]).unwrap();
    p.send_serialized(b"\xa5hello").unwrap();
    logger.log(Level::Info, "h.rs", 2, "second", vec![]);
    let (ok, out, err) = nerve_log(domain, &[]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains("first") && out.contains("second"));
    assert!(
        err.contains("2 messages on nerve/log were not log records and were skipped"),
        "{err}"
    );
}
