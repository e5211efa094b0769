//! Every number a user types is range-checked where it is parsed, and every document a user
//! hands nerve is size- and depth-checked before it is parsed: seconds and rates from the
//! command line, a launch file and a parameter file that are absurd (1e300, 1e-300, .inf) or
//! hostile (nested 60 000 deep) give one clear error naming the setting, at once — never
//! "nerve hit a bug" (exit 101), and a launch that fails leaves nothing in /tmp.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nerve_testing::domain;

const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

/// `nerve args` in `dir`: (status, stderr, how long it took, the launch's scratch dir left?).
fn run(d: u32, dir: &std::path::Path, args: &[&str]) -> (i32, String, Duration, bool) {
    let t0 = Instant::now();
    let child = Command::new(NERVE)
        .args(args)
        .current_dir(dir)
        .env("NERVE_DOMAIN", d.to_string())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run nerve");
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let left = std::env::temp_dir()
        .join(format!("nerve-launch-{pid}"))
        .exists();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        t0.elapsed(),
        left,
    )
}

#[test]
fn absurd_seconds_and_rates_are_refused_where_they_are_typed() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-numbers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let node = |extra: &str| {
        format!("nodes:\n  - name: sleeper\n    exec: /bin/sleep\n    args: [\"5\"]\n{extra}")
    };
    std::fs::write(dir.join("ok.yaml"), node("")).unwrap();
    std::fs::write(
        dir.join("respawn.yaml"),
        node("    respawn: true\n    respawn_delay: 1e300\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("fast.yaml"),
        node("    respawn: true\n    respawn_delay: 0.001\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("inf.yaml"),
        node("    wait_for: [{topic: /imu, timeout: .inf}]\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("huge.yaml"),
        node("    wait_for: [{topic: /imu, timeout: 1e300}]\n"),
    )
    .unwrap();
    let bag = dir.join("none.mcap");
    let bag = bag.to_str().unwrap();
    // (arguments, exit status, what the error must say)
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec!["launch", "ok.yaml", "--grace", "1e300"], 2, "--grace"),
        (
            vec!["launch", "ok.yaml", "--grace", "nan"],
            2,
            "not a finite number",
        ),
        (
            vec!["launch", "respawn.yaml"],
            1,
            "respawn_delay: 1e300 is out of range",
        ),
        (
            vec!["launch", "fast.yaml"],
            1,
            "respawn_delay: 0.001 is out of range; expected seconds at least 0.1",
        ),
        (
            vec!["launch", "inf.yaml"],
            1,
            "wait_for timeout: inf is not a finite number",
        ),
        (
            vec!["launch", "huge.yaml"],
            1,
            "wait_for timeout: 1e300 is out of range",
        ),
        (
            vec!["topic", "pub", "t", "CmdVel", "{}", "-r", "1e-300"],
            2,
            "out of range; expected Hz",
        ),
        (
            vec!["topic", "pub", "t", "CmdVel", "{}", "-r", "1e300"],
            2,
            "out of range; expected Hz",
        ),
        (
            vec!["play", bag, "--rate", "1e-300"],
            2,
            "out of range; expected a factor",
        ),
        (
            vec!["play", bag, "--clock", "1e-300"],
            2,
            "out of range; expected Hz",
        ),
        (
            vec!["play", bag, "--start-offset", "-inf"],
            2,
            "not a finite number",
        ),
        (
            vec!["bridge", "zenoh", "--stats-every", "1e300"],
            2,
            "out of range",
        ),
    ];
    for (args, status, says) in &cases {
        let (code, err, took, left) = run(d, &dir, args);
        assert_eq!(code, *status, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: expected {says:?} in: {err}");
        assert!(!err.contains("hit a bug"), "{args:?}: {err}");
        assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
        assert!(!left, "{args:?} left its /tmp/nerve-launch-<pid>");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deep_or_huge_launch_and_parameter_files_are_refused_at_once() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 120 KB nested 60 000 deep: a YAML parser took 10-16 s to refuse it.
    let deep = format!("nodes: {}{}\n", "[".repeat(60_000), "]".repeat(60_000));
    std::fs::write(dir.join("deep.yaml"), &deep).unwrap();
    // A 160 KB parameter file nested the same way, used by a node of a launch file.
    let params = format!(
        "sleeper:\n  ros__parameters:\n    x: {}{}\n",
        "[".repeat(80_000),
        "]".repeat(80_000)
    );
    std::fs::write(dir.join("params.yaml"), &params).unwrap();
    std::fs::write(
        dir.join("with_params.yaml"),
        "nodes:\n  - name: sleeper\n    exec: /bin/sleep\n    args: [\"5\"]\n    params_files: [params.yaml]\n",
    )
    .unwrap();
    // Larger than nerve reads.
    let mut big = String::from("nodes:\n");
    while big.len() <= nerve::document::MAX_BYTES {
        big.push_str("  # padding padding padding padding padding padding padding padding\n");
    }
    std::fs::write(dir.join("big.yaml"), &big).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["launch", "deep.yaml"], "nested more than 64 levels deep"),
        (
            &["launch", "with_params.yaml"],
            "nested more than 64 levels deep",
        ),
        (&["launch", "big.yaml"], "more than the 4194304 nerve reads"),
        (
            &["topic", "pub", "t", "CmdVel", &"[".repeat(10_000)],
            "nested more than 64 levels deep",
        ),
    ];
    for (args, says) in cases {
        let (code, err, took, left) = run(d, &dir, args);
        assert_eq!(code, 1, "{:?}: {err}", &args[..2]);
        assert!(
            err.contains(says),
            "{:?}: expected {says:?} in: {err}",
            &args[..2]
        );
        assert!(
            took < Duration::from_secs(2),
            "{:?} took {took:?}",
            &args[..2]
        );
        assert!(!left);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one-line setup's variable refused by name when it holds no Zenoh endpoint, before
/// anything is opened (the flags win over it: no error when they are given).
#[test]
fn nerve_peers_that_name_no_endpoint_are_refused_by_name() {
    let (d, _g) = domain();
    for (peers, says) in [
        ("10.0.0.2", "NERVE_PEERS, `10.0.0.2`: not a Zenoh endpoint"),
        (" , ", "NERVE_PEERS: names no peer"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_nerve"))
            .args(["bridge", "zenoh"])
            .env("NERVE_DOMAIN", d.to_string())
            .env("NERVE_PEERS", peers)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{peers:?}: {err}");
        assert!(err.contains(says), "{peers:?}: expected {says:?} in: {err}");
        assert!(err.contains("tcp/<address>:7447"), "{err}");
    }
}

/// `[network] peers` of nerve.toml, read from `$NERVE_CONFIG` or the working folder: a wrong
/// entry or a missing file refused naming the file, before anything is opened.
#[test]
fn network_peers_in_the_config_file_are_read_and_refused_naming_the_file() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-network-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("nerve.toml"),
        "[network]\npeers = [\"10.0.0.2\"]\n",
    )
    .unwrap();
    let named = dir.join("named.toml");
    std::fs::write(&named, "[network]\npeer = []\n").unwrap();
    let missing = dir.join("missing.toml");
    let run = |config: Option<&std::path::Path>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_nerve"));
        c.args(["bridge", "zenoh"])
            .current_dir(&dir)
            .env("NERVE_DOMAIN", d.to_string())
            .env("HOME", &dir)
            .env_remove("NERVE_PEERS")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        match config {
            Some(p) => c.env("NERVE_CONFIG", p),
            None => c.env_remove("NERVE_CONFIG"),
        };
        let out = c.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for (config, says) in [
        (
            None,
            "nerve.toml [network] peers, `10.0.0.2`: not a Zenoh endpoint".to_owned(),
        ),
        (
            Some(named.as_path()),
            format!("{}: [network] has no key `peer`", named.display()),
        ),
        (
            Some(missing.as_path()),
            format!("NERVE_CONFIG={}: no such file", missing.display()),
        ),
    ] {
        let (code, err) = run(config);
        assert_eq!(code, Some(1), "{config:?}: {err}");
        assert!(
            err.contains(&says),
            "{config:?}: expected {says:?} in: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
