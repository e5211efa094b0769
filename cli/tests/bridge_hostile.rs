//! `nerve bridge zenoh` against another host's demands: network namespaces made by the test
//! (`nerve_testing::netns`), bridges started as users start them. A host that exports a topic
//! larger than this one allows is refused, and `nerve bridge status` and `nerve doctor` say
//! which topic, from which host, and which limit. (A rogue Zenoh peer speaking the wire
//! protocol itself is `bridges/zenoh/tests/remote_limits.rs`.)
//!
//! Needs root (or CAP_NET_ADMIN) for `ip netns`; where namespaces cannot be made the test says
//! why and passes without running (CI runs as root).

#[allow(dead_code)]
mod common;
#[path = "common/net.rs"]
mod net;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use nerve::msgs::{CmdVel, Image};
use nerve::prelude::*;
use net::{BridgeNet, Net};

/// The helper: runs only when the test re-executes this binary with `NERVE_BRIDGE_HELPER`.
/// It publishes on `t/cam` (1 MiB images at depth 4: 16 MiB of chunks) and `t/ok` (CmdVel),
/// sending nothing, until killed.
#[test]
fn helper() {
    if std::env::var("NERVE_BRIDGE_HELPER").is_err() {
        return;
    }
    let cam = Topic::<Image>::builder("t/cam")
        .reliable()
        .depth(4)
        .max_message_bytes(1 << 20)
        .open()
        .unwrap();
    let ok = Topic::<CmdVel>::builder("t/ok").open().unwrap();
    let _publishers = (cam.publisher().unwrap(), ok.publisher().unwrap());
    println!("READY");
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// The helper on host `i`, once it said READY.
fn publishers(net: &Net, i: usize) -> net::Proc {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "helper", "--nocapture", "--test-threads", "1"])
        .env("NERVE_BRIDGE_HELPER", "1")
        .env("NERVE_SHM_DIR", &net.hosts[i].shm)
        .env("NERVE_DOMAIN", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let child = net::Proc(child); // killed and reaped if READY never comes
    for line in BufReader::new(stdout).lines() {
        if line.unwrap().trim_end().ends_with("READY") {
            return child;
        }
    }
    panic!("the helper ended before READY");
}

/// Files named `name` under `dir`.
fn files_named(dir: &Path, name: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => files_named(&e.path(), name),
            _ => usize::from(e.file_name() == name),
        })
        .sum()
}

/// h0's bridge takes topics whose chunks hold at most 8 MiB (`max_topic_pool_mib: 8` in its
/// configuration file); h1 exports a camera topic of 16 MiB of chunks and a CmdVel one. h0 imports the CmdVel topic and refuses
/// the camera: `nerve bridge status` (text and JSON) and `nerve doctor` on h0 name the topic,
/// h1 and the limit, and nothing was created for it in h0's shared memory.
#[test]
fn a_topic_over_this_host_s_limits_is_refused_and_listed() {
    if std::env::var("NERVE_BRIDGE_HELPER").is_ok() {
        return;
    }
    let net = match Net::new(2, 'd') {
        Ok(n) => n,
        Err(why) => {
            return nerve_testing::skip(
                "cli/bridge_hostile/a_topic_over_this_host_s_limits_is_refused_and_listed",
                &format!("network namespaces cannot be made here: {why}"),
            )
        }
    };
    let config = net.path("h0.json5");
    std::fs::write(&config, "{ max_topic_pool_mib: 8 }").unwrap();
    let config = config.display().to_string();
    let bridges = [net.bridge(0, &["--config", &config]), net.bridge(1, &[])];
    net.wait_log(0, "hosts [h1]", Duration::from_secs(10));
    let helper = publishers(&net, 1);
    net.wait_log(0, "imported topic=\"t/ok\"", Duration::from_secs(15));
    net.wait_nerve(
        0,
        &["bridge", "status"],
        "refused  topic t/cam (from h1)",
        true,
    );

    let status = net.nerve(0, &["bridge", "status"]);
    assert!(
        status.contains("refused  1 remote topic(s) over this host's limits")
            && status
                .contains("above the 8.0 MiB one imported topic's pool may (max_topic_pool_mib)"),
        "{status}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&net.nerve(0, &["bridge", "status", "--json"])).unwrap();
    let first = &json["refused"][0];
    assert_eq!(
        (&json["refused_imports"], &first["topic"], &first["host"]),
        (&1.into(), &"t/cam".into(), &"h1".into()),
        "{json}"
    );
    let doctor = net.nerve(0, &["doctor"]);
    assert!(
        doctor.contains("refused 1 remote topic(s) over this host's limits: t/cam from h1"),
        "{doctor}"
    );
    assert_eq!(
        files_named(&net.hosts[0].shm, "t%cam.topic"),
        0,
        "no segment on h0"
    );
    assert_eq!(files_named(&net.hosts[1].shm, "t%cam.topic"), 1, "h1's own");
    assert!(net.nerve(0, &["topic", "list"]).contains("t/ok  (from h1)"));
    net::kill(helper);
    for b in bridges {
        net::stop(b);
    }
}
