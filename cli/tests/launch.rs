//! `nerve launch` as a user runs it: a launch file with a namespaced, remapped publisher (the
//! `nerve` binary itself as a node), a node that keeps crashing and respawns with backoff, and
//! one that waits for a topic; Ctrl-C stops all of them and leaves no process and no segment.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

fn launch(domain: u32, file: &std::path::Path, extra: &[&str]) -> Child {
    Command::new(NERVE)
        .arg("launch")
        .arg(file)
        .args(extra)
        .env("NERVE_DOMAIN", domain.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nerve launch")
}

fn wait_for(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let t = Instant::now();
    while !ok() {
        assert!(
            t.elapsed() < limit,
            "{what} did not happen within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

fn finish(mut child: Child) -> (std::process::ExitStatus, String, String) {
    let status = child.wait().expect("wait");
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, out, err)
}

#[test]
fn a_launch_starts_remaps_respawns_and_stops_cleanly() {
    let (domain, _guard) = nerve_testing::domain();
    let dir = tempfile_dir("launch");
    let starts = dir.join("starts.log");
    let file = dir.join("robot.yaml");
    std::fs::write(
        &file,
        format!(
            r#"
args: {{robot: r1}}
env: {{GREETING: hello}}
nodes:
  - name: talker
    exec: {NERVE}
    args: [topic, pub, chatter, CmdVel, "{{linear: 0.5}}", -r, "20"]
    namespace: $(arg robot)
    remap: {{chatter: talk}}
  - name: flaky
    exec: /bin/sh
    args: [-c, "date +%s.%N >> {starts}; echo $GREETING from flaky; sleep 0.1; exit 3"]
    respawn: true
    respawn_delay: 0.3
  - name: waiter
    exec: /bin/sh
    args: [-c, "echo waited for the talker; exec sleep 60"]
    wait_for: [{{topic: /$(arg robot)/talk, timeout: 10}}]
"#,
            starts = starts.display()
        ),
    )
    .unwrap();
    let child = launch(domain, &file, &["--grace", "3"]);
    let pid = child.id() as i32;
    // The publisher's topic is its namespace plus the remapped name.
    wait_for("topic r1/talk", Duration::from_secs(10), || {
        nerve::registry::list(domain)
            .iter()
            .any(|t| t.name == "r1/talk")
    });
    // The flaky node restarts with growing delays (0.3, 0.6, 1.2 s after each exit).
    wait_for("four starts of flaky", Duration::from_secs(10), || {
        std::fs::read_to_string(&starts).map_or(0, |s| s.lines().count()) >= 4
    });
    let times: Vec<f64> = std::fs::read_to_string(&starts)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps[0] >= 0.35 && gaps[1] > gaps[0] + 0.15 && gaps[2] > gaps[1] + 0.3,
        "backoff gaps {gaps:?}"
    );
    // Ctrl-C: everything stops.
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let (status, out, err) = finish(child);
    assert!(status.success(), "{status}\n{out}\n{err}");
    assert!(out.contains("[flaky] hello from flaky"), "{out}");
    assert!(out.contains("[waiter] waited for the talker"), "{out}");
    assert!(
        err.contains("[launch] flaky exited (exit status: 3); restarting in 0.60 s"),
        "{err}"
    );
    let pids: Vec<i32> = err
        .lines()
        .filter_map(|l| l.split("(pid ").nth(1))
        .filter_map(|p| p.split([')', ',']).next()?.parse().ok())
        .collect();
    assert!(pids.len() >= 6, "{err}");
    for p in pids {
        assert!(!alive(p), "process {p} outlived the launch\n{err}");
    }
    assert!(
        nerve::registry::list(domain).is_empty(),
        "segments left: {:?}",
        nerve::registry::list(domain)
    );
}

#[test]
fn a_required_node_that_dies_stops_the_launch() {
    let (domain, _guard) = nerve_testing::domain();
    let dir = tempfile_dir("required");
    let file = dir.join("robot.yaml");
    std::fs::write(
        &file,
        r#"
nodes:
  - name: sleeper
    exec: /bin/sleep
    args: ["60"]
  - name: driver
    exec: /bin/sh
    args: [-c, "sleep 0.3; echo serial port lost >&2; exit 2"]
    required: true
"#,
    )
    .unwrap();
    let t = Instant::now();
    let (status, _out, err) = finish(launch(domain, &file, &[]));
    assert!(!status.success());
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(err.contains("[driver] serial port lost"), "{err}");
    assert!(
        err.contains("required node driver exited (exit status: 2): the launch stopped"),
        "{err}"
    );
}

#[test]
fn bad_launch_files_are_refused_naming_the_problem() {
    let (domain, _guard) = nerve_testing::domain();
    let dir = tempfile_dir("bad");
    let cases = [
        (
            "nodes: [{name: a}]",
            "give exactly one of exec: (a program) and python: (a module)",
        ),
        (
            "nodes: [{name: a, exec: /bin/true, colour: red}]",
            "unknown field `colour`",
        ),
        (
            "nodes: [{name: a, exec: $(arg speed)}]",
            "$(arg speed) is not declared",
        ),
        (
            "nodes: [{name: a, exec: /bin/true}, {name: a, exec: /bin/true}]",
            "two nodes are named \"a\"",
        ),
        ("include: [{file: missing.yaml}]", "cannot open launch file"),
        (
            "nodes: [{name: a, exec: /no/such/program}]",
            "cannot start \"/no/such/program\"",
        ),
    ];
    for (i, (yaml, says)) in cases.iter().enumerate() {
        let file = dir.join(format!("bad{i}.yaml"));
        std::fs::write(&file, yaml).unwrap();
        let (status, _out, err) = finish(launch(domain, &file, &[]));
        assert!(!status.success(), "{yaml}");
        assert!(err.contains(says), "{yaml}: {err}");
    }
    // --dry-run shows what each node gets.
    let file = dir.join("dry.yaml");
    std::fs::write(&file, "nodes: [{name: cam, exec: /bin/true, namespace: r2, remap: {image: raw}, params: {fps: 30}}]").unwrap();
    let (status, out, err) = finish(launch(domain, &file, &["--dry-run"]));
    assert!(status.success(), "{err}");
    assert!(
        out.contains("r2/cam: /bin/true")
            && out.contains("NERVE_NAMESPACE=r2")
            && out.contains("NERVE_REMAP=image:=raw"),
        "{out}"
    );
}

fn tempfile_dir(what: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nerve-launch-test-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
