//! The `nerve` command the way a user runs it: the built binary, its stdout, stderr and exit
//! status, each test in a domain of its own. Every process a test starts is killed if the
//! test fails (`ChildGuard`), and a run whose output pipes stay open after it exited (a
//! process it left behind holds them) fails the test.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nerve_testing::domain;
use nerve_testing::process::ChildGuard;

const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

/// What a run of `nerve` left.
struct Transcript {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl std::fmt::Display for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\n--- stdout\n{}--- stderr\n{}---",
            self.status, self.stdout, self.stderr
        )
    }
}

/// `nerve` as a user starts it in a shell of `domain`: no RUST_LOG, no NERVE_BACKTRACE, then
/// `vars`.
fn command(domain: u32, args: &[&str], vars: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(NERVE);
    cmd.args(args)
        .env("NERVE_DOMAIN", domain.to_string())
        .env_remove("RUST_LOG")
        .env_remove("NERVE_BACKTRACE")
        .stdin(Stdio::null());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd
}

/// Reads `r` to its end on a thread of its own.
fn slurp(mut r: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        let _ = tx.send(s);
    });
    rx
}

/// Runs `nerve args` to its end, at most `limit`.
fn nerve(domain: u32, args: &[&str], vars: &[(&str, &str)], limit: Duration) -> Transcript {
    let mut child = command(domain, args, vars)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nerve");
    let out = slurp(child.stdout.take().expect("piped"));
    let err = slurp(child.stderr.take().expect("piped"));
    let mut guard = ChildGuard::new(child);
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = guard.try_wait() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "nerve {args:?} still runs after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let rest = |rx: mpsc::Receiver<String>| {
        rx.recv_timeout(Duration::from_secs(2)).unwrap_or_else(|_| {
            panic!("nerve {args:?} exited, but a process it started still holds its output")
        })
    };
    Transcript {
        status,
        stdout: rest(out),
        stderr: rest(err),
    }
}

// ---------------------------------------------------------------------------------------
// Errors: one line, a status, whatever RUST_BACKTRACE says.

#[test]
fn unknown_topic_is_one_error_line_whatever_rust_backtrace_says() {
    let (d, _guard) = domain();
    for backtrace in ["1", "full", "0"] {
        for args in [["topic", "info", "nosuch"], ["topic", "hz", "nosuch"]] {
            let t = nerve(
                d,
                &args,
                &[("RUST_BACKTRACE", backtrace)],
                Duration::from_secs(5),
            );
            let context = format!("RUST_BACKTRACE={backtrace} nerve {args:?}: {t}");
            assert_eq!(t.status.code(), Some(1), "{context}");
            assert_eq!(t.stderr.lines().count(), 1, "{context}");
            assert!(t.stderr.starts_with("error: "), "{context}");
            assert!(t.stderr.contains("'nosuch'"), "{context}");
            assert!(t.stderr.contains(&format!("domain {d}")), "{context}");
            assert!(t.stdout.is_empty(), "{context}");
        }
    }
}

/// A value out of range is refused before anything runs, naming the argument and the range.
fn assert_refused(t: &Transcript, value: &str, arg: &str, range: &str) {
    assert_eq!(t.status.code(), Some(2), "{t}");
    let first = t.stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: invalid value"), "{t}");
    assert!(first.contains(&format!("'{value}'")), "{t}");
    assert!(first.contains(arg), "{t}");
    assert!(first.contains(range), "{t}");
    assert!(t.stdout.is_empty(), "nothing ran: {t}");
    assert!(!t.stderr.contains("panicked"), "{t}");
}

#[test]
fn durations_that_are_not_finite_positive_and_sane_are_refused() {
    let (d, _guard) = domain();
    let bt = [("RUST_BACKTRACE", "1")];
    let limit = Duration::from_secs(5);
    for value in ["nan", "-1", "inf", "-inf", "0", "1e30", "604801", "soon"] {
        let t = nerve(d, &["demo", "--duration", value], &bt, limit);
        assert_refused(&t, value, "--duration", "greater than 0 and at most 604800");
        let t = nerve(d, &["demo", &format!("--duration={value}")], &bt, limit);
        assert_refused(&t, value, "--duration", "greater than 0 and at most 604800");
        let t = nerve(d, &["topic", "hz", "imu", "--duration", value], &bt, limit);
        assert_refused(&t, value, "--duration", "at least 1 and at most 604800");
    }
    // hz measures in one-second windows: half a window is no measurement.
    let t = nerve(d, &["topic", "hz", "imu", "--duration", "0.5"], &bt, limit);
    assert_refused(&t, "0.5", "--duration", "at least 1 and at most 604800");
}

#[test]
fn domains_out_of_range_are_refused_from_the_flag_and_the_environment() {
    let (d, _guard) = domain();
    let limit = Duration::from_secs(5);
    for value in ["-1", "4294967296", "1.5", "zero"] {
        for verb in [
            &["topic", "list"][..],
            &["clean"],
            &["demo", "--duration", "1"],
        ] {
            let mut args = vec!["--domain", value];
            args.extend_from_slice(verb);
            let t = nerve(d, &args, &[], limit);
            assert_refused(&t, value, "--domain", "0 to 4294967295");
        }
        let t = nerve(d, &["topic", "list"], &[("NERVE_DOMAIN", value)], limit);
        assert_refused(&t, value, "--domain", "$NERVE_DOMAIN");
    }
    let t = nerve(d, &["topic", "list", "--domain", "4294967295"], &[], limit);
    assert!(t.status.success(), "the largest domain is a domain: {t}");
}

#[test]
fn help_and_usage_errors_stay_claps() {
    let (d, _guard) = domain();
    let limit = Duration::from_secs(5);
    let t = nerve(d, &["demo", "--help"], &[], limit);
    assert!(t.status.success(), "{t}");
    assert!(t.stdout.contains("--duration <SECONDS>"), "{t}");
    let t = nerve(
        d,
        &["topic", "nosuchverb"],
        &[("RUST_BACKTRACE", "1")],
        limit,
    );
    assert_eq!(t.status.code(), Some(2), "{t}");
    assert!(t.stderr.starts_with("error: "), "{t}");
    assert!(!t.stderr.contains("backtrace"), "{t}");
}

#[test]
fn closed_stdout_ends_quietly() {
    let (d, _guard) = domain();
    let mut child = command(d, &["topic", "list"], &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nerve");
    drop(child.stdout.take()); // `| head -0`: nobody reads
    let err = slurp(child.stderr.take().expect("piped"));
    let mut guard = ChildGuard::new(child);
    let status = guard.wait();
    let err = err.recv_timeout(Duration::from_secs(5)).expect("stderr");
    assert!(status.success(), "{status}: {err}");
    assert!(err.is_empty(), "{err}");
}

// ---------------------------------------------------------------------------------------
// The demo: tells the truth, ends with its children, leaves nothing behind.

/// Each report row's rate, by topic: `demo/imu` → [997.0, 1000.0].
fn rates(stdout: &str) -> BTreeMap<String, Vec<f64>> {
    let mut rates: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for line in stdout.lines() {
        let mut words = line.split_whitespace();
        let (Some(topic), Some(rate)) = (words.next(), words.next()) else {
            continue;
        };
        if let (true, Ok(rate)) = (topic.starts_with("demo/"), rate.parse::<f64>()) {
            rates.entry(topic.to_owned()).or_default().push(rate);
        }
    }
    rates
}

/// The pids in "started sensor (pid 12) and controller (pid 13)".
fn started_pids(line: &str) -> Vec<u32> {
    line.split("(pid ")
        .skip(1)
        .map(|s| s.split(')').next().unwrap().parse().expect("a pid"))
        .collect()
}

/// The demo's report says what the graph does: every topic at its rate (within a generous
/// slack for a loaded machine: the best second at least half the rate, no second more than
/// 30 % over it), and what it published at shutdown.
/// Demos take turns: each measures the machine it runs on, and two-core machines have no
/// room for two demos at once.
static ONE_DEMO: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_demo() -> std::sync::MutexGuard<'static, ()> {
    ONE_DEMO.lock().unwrap_or_else(|e| e.into_inner())
}

fn assert_truthful_demo(t: &Transcript) {
    assert!(t.status.success(), "{t}");
    assert!(t.stdout.contains("demo stopped cleanly"), "{t}");
    assert!(!t.stderr.contains("error:"), "{t}");
    assert!(!t.stderr.contains("panicked"), "{t}");
    // The floor the table is read against, measured on this machine before and shown again
    // after the table: a busy-polling receiver well under a sleeping one.
    let floors: Vec<f64> = t
        .stdout
        .split("a busy-polling receiver on another core in ")
        .nth(1)
        .map(|rest| {
            rest.split(" µs")
                .take(3)
                .filter_map(|p| p.rsplit(' ').next()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(floors.len(), 3, "the machine's floors are printed: {t}");
    assert!(
        floors[0] < floors[1] && floors[1] <= floors[2] * 1.5,
        "{floors:?}: {t}"
    );
    assert_eq!(
        t.stdout.matches("a busy-polling receiver on").count(),
        2,
        "{t}"
    );
    let rates = rates(&t.stdout);
    for (topic, hz) in [
        ("demo/imu", 1000.0),
        ("demo/scan", 10.0),
        ("demo/image", 30.0),
        ("demo/cmd_vel", 100.0),
    ] {
        let seen = rates
            .get(topic)
            .unwrap_or_else(|| panic!("no rate for {topic}: {t}"));
        let best = seen.iter().copied().fold(0.0, f64::max);
        assert!(best >= 0.5 * hz, "{topic}: {seen:?} for {hz} Hz: {t}");
        assert!(
            seen.iter().all(|&r| r <= 1.3 * hz),
            "{topic}: {seen:?} for {hz} Hz: {t}"
        );
        let published = t
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(topic) && l.contains("published"))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{topic} is not in the shutdown list: {t}"));
        assert!(published > 0, "{topic}: {t}");
    }
}

#[test]
fn demo_runs_for_its_duration_and_reports_true_rates() {
    let _turn = one_demo();
    let (d, _guard) = domain();
    let started = Instant::now();
    let t = nerve(
        d,
        &["demo", "--duration", "2"],
        &[],
        Duration::from_secs(20),
    );
    assert_truthful_demo(&t);
    assert!(started.elapsed() >= Duration::from_secs(2), "{t}");
    assert_eq!(started_pids(&t.stdout).len(), 2, "{t}");
}

/// A process's state and start time (`/proc/<pid>/stat` fields 3 and 22), if it exists.
fn stat(pid: u32) -> Option<(char, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name in parentheses (which may hold spaces): state is field 3.
    let rest: Vec<&str> = s[s.rfind(')')? + 1..].split_whitespace().collect();
    Some((rest[0].chars().next()?, rest[19].parse().ok()?))
}

/// The pids whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let ppid = s
            .rfind(')')
            .and_then(|i| s[i + 1..].split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) {
            pids.push(pid);
        }
    }
    pids.sort_unstable();
    pids
}

/// Waits until none of `procs` (pid, start time) runs any more, at most `limit`.
fn assert_gone_within(procs: &[(u32, u64)], limit: Duration, what: &str) {
    let deadline = Instant::now() + limit;
    loop {
        let alive: Vec<u32> = procs
            .iter()
            .filter(|(pid, start)| {
                matches!(stat(*pid), Some((state, s)) if s == *start && state != 'Z' && state != 'X')
            })
            .map(|(pid, _)| *pid)
            .collect();
        if alive.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            for &pid in &alive {
                // SAFETY: kill(2) of a process this test started (its start time matched
                // just above), so that a failing test leaves nothing behind.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            }
            panic!("{what}: {alive:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `nerve demo` (until stopped) in `domain`; returns it with its children (pid, start
/// time), as it printed them and as /proc shows them. With `first_report`, waits until the
/// graph is running (its first report); without, returns right after the start.
fn start_demo(domain: u32, first_report: bool) -> (ChildGuard, Vec<(u32, u64)>) {
    let child = command(domain, &["demo"], &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nerve demo");
    let mut demo = ChildGuard::new(child);
    let mut printed = started_pids(&demo.wait_line("started sensor"));
    if first_report {
        demo.wait_line("demo/cmd_vel");
    }
    let mut found = children_of(demo.id());
    printed.sort_unstable();
    found.sort_unstable();
    assert_eq!(printed, found, "the demo's children are the ones it names");
    let procs = found
        .iter()
        .filter_map(|&p| stat(p).map(|(_, start)| (p, start)))
        .collect();
    (demo, procs)
}

#[test]
fn kill_9_of_the_demo_takes_its_children_and_the_domain_starts_again() {
    let _turn = one_demo();
    let (d, _guard) = domain();
    // Killed while the graph runs, then right after it started its children (before they
    // may have asked to end with it: the race end_with_parent() closes).
    for first_report in [true, false] {
        let (mut demo, children) = start_demo(d, first_report);
        assert_eq!(children.len(), 2);
        demo.kill9();
        assert_gone_within(
            &children,
            Duration::from_secs(2),
            &format!("children of a killed demo (first report: {first_report})"),
        );
    }
    let t = nerve(
        d,
        &["demo", "--duration", "2"],
        &[],
        Duration::from_secs(20),
    );
    assert_truthful_demo(&t);
}

#[test]
fn sigterm_stops_the_demo_and_its_children_cleanly() {
    let _turn = one_demo();
    let (d, _guard) = domain();
    let (mut demo, children) = start_demo(d, true);
    demo.signal(libc::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(s) = demo.try_wait() {
            break s;
        }
        assert!(Instant::now() < deadline, "nerve demo ignores SIGTERM");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status}");
    assert_gone_within(
        &children,
        Duration::from_millis(100),
        "children of a stopped demo",
    );
    let (_, rest) = demo.wait_with_output();
    assert!(rest.contains("demo stopped cleanly"), "{rest}");
}

#[test]
fn demo_with_closed_stdout_stops_its_children_and_ends_quietly() {
    let _turn = one_demo();
    let (d, _guard) = domain();
    let mut child = command(d, &["demo"], &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nerve demo");
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let mut first = String::new();
    out.read_line(&mut first).expect("the demo's first line");
    drop(out); // `nerve demo | head -1`
    let err = slurp(child.stderr.take().expect("piped"));
    let mut demo = ChildGuard::new(child);
    let children = children_of(demo.id());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = demo.try_wait() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "nerve demo runs on with nobody reading"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let err = err
        .recv_timeout(Duration::from_secs(2))
        .expect("the demo's children hold its stderr");
    assert!(status.success(), "{status}: {err}");
    assert!(
        !err.contains("error:") && !err.contains("panicked"),
        "{err}"
    );
    for pid in children {
        assert!(stat(pid).is_none_or(|(s, _)| s == 'Z'), "{pid} still runs");
    }
}
