//! A publishing process sends to other hosts itself (`nerve_zenoh::direct`, issue 35), between
//! network namespaces made by the test with one `nerve bridge zenoh` per host: the bridge
//! exports until the process reaches every host, then leaves the topic to it, and takes it
//! back when a publisher without its own session appears; no message is lost or repeated on
//! the way, whichever path carried it.
//!
//! Needs root (or CAP_NET_ADMIN) for `ip netns`; where namespaces cannot be made the test says
//! why and passes without running (CI runs as root).

#[allow(dead_code)]
mod common;
#[allow(dead_code)]
#[path = "common/hosts.rs"]
mod hosts;
#[allow(dead_code)]
#[path = "common/net.rs"]
mod net;

use std::time::Duration;

use hosts::{go, release, run_cmd, run_image, Helper, Spec};
use net::{BridgeNet, Net};

/// The helper (see `hosts`): with `direct=1` it sends to other hosts itself.
#[test]
fn helper() {
    let Some(spec) = Spec::from_env() else {
        return;
    };
    if spec.get("direct") == "1" {
        assert!(nerve_zenoh::direct::install_auto(), "direct not installed");
    }
    match spec.get("kind") {
        "cmd" => run_cmd(&spec),
        "image" => run_image(&spec),
        other => panic!("unknown helper kind {other}"),
    }
}

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn hosts(name: &str, tag: char) -> Option<Net> {
    match Net::new(2, tag) {
        Ok(n) => Some(n),
        Err(why) => {
            nerve_testing::skip(
                &format!("cli/direct/{name}"),
                &format!("network namespaces cannot be made here: {why}"),
            );
            None
        }
    }
}

/// What host `i`'s bridge counted on `topic` (its `bridge status --json`).
fn counted(net: &Net, i: usize, topic: &str) -> serde_json::Value {
    let status: serde_json::Value =
        serde_json::from_str(&net.nerve(i, &["bridge", "status", "--json"])).unwrap();
    status["stats"]
        .as_array()
        .and_then(|s| s.iter().find(|t| t["topic"] == topic).cloned())
        .unwrap_or_default()
}

/// A reliable topic from a process with its own session on h0 to a subscriber on h1: the
/// bridge hands the topic over, takes it back for a second publisher without a session, and
/// hands it over again when that one leaves; every message arrives once, in order per
/// publisher, and most never went through h0's bridge.
#[test]
fn a_publisher_sends_to_other_hosts_itself_and_hands_over_without_loss() {
    if std::env::var("NERVE_BRIDGE_HELPER").is_ok() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(net) = hosts("hands_over", 'd') else {
        return;
    };
    let _bridges: Vec<net::Proc> = (0..2).map(|i| net.bridge(i, &[])).collect();
    for i in 0..2 {
        net.wait_log(i, "hosts [h", Duration::from_secs(10));
    }
    let (g1, g2) = (go(&net, "go-1"), go(&net, "go-2"));
    let sub = Helper::start(&net, 1, "kind=cmd topic=t/direct n=0 expect=5000 secs=40");
    let direct = Helper::start_on(
        &net,
        0,
        &format!("kind=cmd topic=t/direct id=1 n=4000 hz=1000 go={g1} direct=1"),
    );
    net.wait_log(1, "imported topic=\"t/direct\"", Duration::from_secs(10));
    release(&g1);
    net.wait_log(
        0,
        "its publishers send it to other hosts themselves topic=\"t/direct\"",
        Duration::from_secs(10),
    );
    // A publisher without a session of its own (in no network namespace at all).
    let plain = Helper::start(
        &net,
        0,
        &format!("kind=cmd topic=t/direct id=2 n=1000 hz=1000 go={g2}"),
    );
    release(&g2);
    net.wait_log(
        0,
        "exported by the bridge again topic=\"t/direct\"",
        Duration::from_secs(5),
    );
    plain.result();
    direct.result();
    let r = sub.result();
    assert_eq!(
        (
            r["got"].as_str(),
            r["bad"].as_str(),
            r["out_of_order"].as_str(),
            r["from"].as_str()
        ),
        ("5000", "0", "0", "1:4000,2:1000"),
        "{r:?}"
    );
    // The views are a second old at most.
    let end = std::time::Instant::now() + Duration::from_secs(5);
    while counted(&net, 1, "t/direct")["received"] != 5000 && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(200));
    }
    let (out, into) = (counted(&net, 0, "t/direct"), counted(&net, 1, "t/direct"));
    let sent = out["sent"].as_u64().unwrap();
    println!("h0's bridge sent {sent} of 5000; h1's bridge: {into}");
    assert!(
        sent < 4000,
        "the bridge sent {sent}: the publisher never went direct"
    );
    assert_eq!(into["lost"], 0, "{into}");
    assert_eq!(into["received"], 5000, "{into}");
    // `doctor` says each other host answers, how far its clock is, and how links are secured.
    net.wait_nerve(1, &["doctor"], "h0: reachable, round trip", true);
    let doctor = net.nerve(1, &["doctor"]);
    assert!(
        doctor.contains("clock offset") && doctor.contains("links to other hosts: plain"),
        "{doctor}"
    );
}

/// 6 MB images from a process with its own session: byte for byte, in order, each once.
#[test]
fn an_image_goes_whole_from_the_publishing_process() {
    if std::env::var("NERVE_BRIDGE_HELPER").is_ok() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(net) = hosts("image", 'e') else {
        return;
    };
    let _bridges: Vec<net::Proc> = (0..2).map(|i| net.bridge(i, &[])).collect();
    for i in 0..2 {
        net.wait_log(i, "hosts [h", Duration::from_secs(10));
    }
    let g = go(&net, "go-img");
    let sub = Helper::start(&net, 1, "kind=image topic=cam/rgb n=0 expect=40 secs=40");
    let publisher = Helper::start_on(
        &net,
        0,
        &format!("kind=image topic=cam/rgb n=40 hz=10 go={g} direct=1"),
    );
    net.wait_log(1, "imported topic=\"cam/rgb\"", Duration::from_secs(10));
    release(&g);
    publisher.result();
    let r = sub.result();
    assert_eq!(
        (
            r["got"].as_str(),
            r["bad"].as_str(),
            r["out_of_order"].as_str()
        ),
        ("40", "0", "0"),
        "{r:?}"
    );
    let sent = counted(&net, 0, "cam/rgb")["sent"].as_u64().unwrap();
    println!("h0's bridge sent {sent} of 40 images");
    assert!(
        sent < 30,
        "the bridge sent {sent}: the publisher never went direct"
    );
}
