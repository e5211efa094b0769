//! `nerve bridge zenoh` between hosts: network namespaces made by the test (a veth each into a
//! switch namespace), one bridge per host as a user starts it, publishers and subscribers in
//! ordinary processes on each host's own shared memory. Every message is checked for content
//! and order, every loss counted.
//!
//! Needs root (or CAP_NET_ADMIN) for `ip netns`; where namespaces cannot be made the test says
//! why and passes without running (CI runs as root).

#[allow(dead_code)]
mod common;
#[allow(dead_code)]
#[path = "common/hosts.rs"]
mod hosts;
#[path = "common/net.rs"]
mod net;
#[path = "common/robot.rs"]
mod robot;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use hosts::{go, paced, release, run_cmd, run_image, Helper, Spec};
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use net::{BridgeNet, Net};

/// The helper: runs only when the test re-executes this binary with `NERVE_BRIDGE_HELPER`.
#[test]
fn helper() {
    let Some(spec) = Spec::from_env() else {
        return;
    };
    match spec.get("kind") {
        "fleet" => run_fleet(&spec),
        "node" => run_node(&spec),
        "robot" => run_robot(),
        "cmd" => run_cmd(&spec),
        "image" => run_image(&spec),
        other => panic!("unknown helper kind {other}"),
    }
}

/// The robot of `graph.rs` (a service, parameters, an action), until killed.
fn run_robot() {
    let _robot = robot::serve();
    println!("READY");
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// One robot of the fleet test: `topics` CmdVel topics `r<id>/t<k>` (best effort, depth 16);
/// or, with `robots`, the ground station subscribing to all of them. A robot publishes `n`
/// messages on each at `hz` once the go file exists; the station counts per topic and
/// reports how many topics got all `n`, in order.
fn run_fleet(spec: &Spec) {
    let (topics, n) = (spec.num("topics"), spec.num("n"));
    let robots: Vec<u64> = match spec.num("robots") {
        0 => vec![spec.num("id")],
        r => (1..=r).collect(),
    };
    let station = spec.num("robots") > 0;
    let mut pubs = Vec::new();
    let mut subs = Vec::new();
    for r in &robots {
        for k in 0..topics {
            let t = Topic::<CmdVel>::builder(&format!("r{r}/t{k}"))
                .reliable()
                .depth(16)
                .open()
                .unwrap();
            if station {
                subs.push(t.subscriber().unwrap());
            } else {
                pubs.push(t.publisher().unwrap());
            }
        }
    }
    println!("READY");
    if !station {
        paced(
            &Spec(BTreeMap::from([
                ("go".to_owned(), spec.get("go").to_owned()),
                ("hz".to_owned(), spec.get("hz").to_owned()),
                ("n".to_owned(), n.to_string()),
            ])),
            |i| {
                for p in &pubs {
                    p.send(&CmdVel {
                        stamp_ns: i,
                        linear: i as f32 / 2.0,
                        angular: 0.0,
                    })
                    .unwrap();
                }
            },
        );
        return println!("RESULT sent={}", n * topics);
    }
    let end = Instant::now() + Duration::from_secs(spec.num("secs"));
    let mut next = vec![0u64; subs.len()];
    let mut bad = 0u64;
    while next.iter().any(|x| *x < n) && Instant::now() < end {
        let mut idle = true;
        for (s, nx) in subs.iter_mut().zip(next.iter_mut()) {
            while let Some(m) = s.try_recv().unwrap() {
                idle = false;
                if m.stamp_ns != *nx || m.linear != m.stamp_ns as f32 / 2.0 {
                    bad += 1;
                }
                *nx = m.stamp_ns + 1;
            }
        }
        if idle {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let complete = next.iter().filter(|x| **x == n).count();
    println!("RESULT complete={complete} topics={} bad={bad}", subs.len());
}

/// A scheduler running one node named `name` (announced on `nerve/node/<name>`), until
/// killed.
fn run_node(spec: &Spec) {
    struct Probe(String);
    impl nerve::exec::Node for Probe {
        fn name(&self) -> &str {
            &self.0
        }
        fn tick(&mut self, _: &mut nerve::exec::Context<'_>) {}
    }
    let mut s = nerve::exec::Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .node(Probe(spec.get("name").to_owned()))
        .rate(10.0)
        .done()
        .build()
        .unwrap();
    println!("READY");
    s.run().unwrap();
}

/// Two hosts' topics both ways, 1000 messages each checked for content and order; a topic
/// published on both hosts arrives exactly once everywhere (no echo); a 6 MB image crosses
/// whole; a link down for 3 s loses nothing on a reliable topic; a bridge killed with
/// `kill -9` and restarted serves again.
#[test]
fn hosts_exchange_topics_through_zenoh() {
    if std::env::var("NERVE_BRIDGE_HELPER").is_ok() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let net = match Net::new(3, 'a') {
        Ok(n) => n,
        Err(why) => {
            return nerve_testing::skip(
                "cli/bridge/hosts_exchange_topics_through_zenoh",
                &format!("network namespaces cannot be made here: {why}"),
            )
        }
    };
    let mut bridges: Vec<Option<net::Proc>> = (0..3).map(|i| Some(net.bridge(i, &[]))).collect();
    for i in 0..3 {
        net.wait_log(i, "hosts [h", Duration::from_secs(10));
    }

    // h0 → h1 and h1 → h0, 1000 messages each at 1 kHz.
    let g = go(&net, "go-ab");
    let sub_b = Helper::start(&net, 1, "kind=cmd topic=t/ab n=0 expect=1000 secs=20");
    let pub_a = Helper::start(
        &net,
        0,
        &format!("kind=cmd topic=t/ab id=1 n=1000 hz=1000 go={g}"),
    );
    let g2 = go(&net, "go-ba");
    let sub_a = Helper::start(&net, 0, "kind=cmd topic=t/ba n=0 expect=1000 secs=20");
    let pub_b = Helper::start(
        &net,
        1,
        &format!("kind=cmd topic=t/ba id=2 n=1000 hz=1000 go={g2}"),
    );
    net.wait_log(1, "imported topic=\"t/ab\"", Duration::from_secs(10));
    net.wait_log(0, "imported topic=\"t/ba\"", Duration::from_secs(10));
    release(&g);
    release(&g2);
    for (name, r) in [("h0 → h1", sub_b.result()), ("h1 → h0", sub_a.result())] {
        assert_eq!(
            (
                r["got"].as_str(),
                r["bad"].as_str(),
                r["out_of_order"].as_str()
            ),
            ("1000", "0", "0"),
            "{name}: {r:?}"
        );
    }
    pub_a.result();
    pub_b.result();

    // Discovery: each host's tools name where a bridged topic comes from, and the nodes other
    // hosts run.
    net.wait_nerve(1, &["topic", "list"], "t/ab  (from h0)", true);
    net.wait_nerve(
        0,
        &["topic", "list", "-t"],
        "t/ba [nerve/CmdVel]  (from h1)",
        true,
    );
    let probe = Helper::start(&net, 0, "kind=node name=probe");
    net.wait_nerve(2, &["node", "list"], "remote (on h0)", true);
    assert!(net.nerve(2, &["node", "list"]).contains("probe"));
    let doctor = net.nerve(1, &["doctor"]);
    assert!(
        doctor.contains("sees 2 other host(s)") && doctor.contains("h0") && doctor.contains("h2"),
        "{doctor}"
    );
    net::kill(probe.child);

    // Services, actions and parameters of h0, used from h1 as if they were local.
    let robot = Helper::start(&net, 0, "kind=robot");
    net.wait_log(
        1,
        "service imported service=\"fib/goal\"",
        Duration::from_secs(15),
    );
    net.wait_log(
        1,
        "service imported service=\"controller/param/set\"",
        Duration::from_secs(15),
    );
    net.wait_log(
        1,
        "service imported service=\"arm/plan\"",
        Duration::from_secs(15),
    );
    // An action is listed once its goal service, its types and its events topic are all here
    // (the topic comes through the topic import, a moment apart from the services).
    net.wait_nerve(1, &["action", "list"], "fib", true);
    let call = |args: &[&str]| {
        let (code, out, err) = net.nerve_full(1, args);
        assert_eq!(code, 0, "{args:?} on h1: {err}");
        out
    };
    let out = call(&[
        "service",
        "call",
        "arm/plan",
        "{goal: [1.0, 2.0], speed: 0.5}",
        "--json",
    ]);
    assert_eq!(out.trim(), "[[0.0,0.0],[1.0,2.0]]");
    let (code, _, err) = net.nerve_full(1, &["service", "call", "arm/plan", "{goal: fast}"]);
    assert!(
        code == 1 && err.contains("cannot decode the request"),
        "{err}"
    );
    assert!(call(&["service", "list", "-t"]).contains("arm/plan"));
    let out = call(&["action", "send_goal", "fib", "10", "--feedback"]);
    assert!(
        out.contains("feedback: 9") && out.contains("status: Succeeded") && out.contains("55"),
        "{out}"
    );
    let (code, _, err) = net.nerve_full(1, &["action", "send_goal", "fib", "100"]);
    assert!(code == 1 && err.contains("n = 100: at most 90"), "{err}");
    assert_eq!(call(&["param", "get", "controller", "gain"]).trim(), "1.5");
    call(&["param", "set", "controller", "gain", "2.5"]);
    let (_, here, _) = net.nerve_full(0, &["param", "get", "controller", "gain"]);
    assert_eq!(here.trim(), "2.5", "set from h1, read on h0");
    let (code, _, err) = net.nerve_full(1, &["param", "set", "controller", "gain", "50"]);
    assert!(code == 1 && err.contains("gain"), "{err}");
    net::kill(robot.child);
    net.wait_nerve(1, &["service", "list"], "arm/plan", false);

    // One topic published on h0 and h1, subscribed on all three: each host receives both
    // publishers' 300 messages once (its own locally, the other's through the bridge).
    let g = go(&net, "go-both");
    let subs: Vec<Helper> = (0..3)
        .map(|h| {
            let n = if h < 2 { 300 } else { 0 };
            Helper::start(
                &net,
                h,
                &format!(
                    "kind=cmd topic=t/both id={} n={n} hz=500 expect=600 secs=20 go={g}",
                    h + 1
                ),
            )
        })
        .collect();
    for i in 0..3 {
        net.wait_log(i, "imported topic=\"t/both\"", Duration::from_secs(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    release(&g);
    for (h, s) in subs.into_iter().enumerate() {
        let r = s.result();
        assert_eq!(
            (r["got"].as_str(), r["bad"].as_str(), r["from"].as_str()),
            ("600", "0", "1:300,2:300"),
            "host {h}: {r:?}"
        );
    }

    // A 6 MB image h0 → h2, five of them, every byte checked.
    let g = go(&net, "go-image");
    let view = Helper::start(&net, 2, "kind=image topic=t/camera n=0 expect=5 secs=30");
    let cam = Helper::start(
        &net,
        0,
        &format!("kind=image topic=t/camera n=5 hz=5 go={g}"),
    );
    net.wait_log(2, "imported topic=\"t/camera\"", Duration::from_secs(10));
    release(&g);
    let r = view.result();
    assert_eq!(
        (
            r["got"].as_str(),
            r["bad"].as_str(),
            r["out_of_order"].as_str()
        ),
        ("5", "0", "0"),
        "images: {r:?}"
    );
    cam.result();

    // h1's link down for 3 s in the middle of 1000 messages at 200 Hz: a reliable topic
    // delivers every one, in order, once the link is back.
    let g = go(&net, "go-link");
    let sub = Helper::start(&net, 1, "kind=cmd topic=t/link n=0 expect=1000 secs=40");
    let publ = Helper::start(
        &net,
        0,
        &format!("kind=cmd topic=t/link id=1 n=1000 hz=200 go={g}"),
    );
    net.wait_log(1, "imported topic=\"t/link\"", Duration::from_secs(10));
    release(&g);
    std::thread::sleep(Duration::from_secs(1));
    net.link(1, false);
    std::thread::sleep(Duration::from_secs(3));
    net.link(1, true);
    let r = sub.result();
    assert_eq!(
        (
            r["got"].as_str(),
            r["bad"].as_str(),
            r["out_of_order"].as_str()
        ),
        ("1000", "0", "0"),
        "link down and up: {r:?}"
    );
    publ.result();

    // A best-effort topic through the same outage: what the network drops is counted on
    // both sides (h0's bridge: sent + missed = published; h1's: received + lost = h0's sent).
    let g = go(&net, "go-be");
    let spec = "kind=image topic=t/be qos=best bytes=196608";
    let view = Helper::start(&net, 1, &format!("{spec} n=0 expect=500 secs=9"));
    let cam = Helper::start(&net, 0, &format!("{spec} n=500 hz=100 go={g}"));
    net.wait_log(1, "imported topic=\"t/be\"", Duration::from_secs(10));
    release(&g);
    std::thread::sleep(Duration::from_secs(1));
    net.link(1, false);
    std::thread::sleep(Duration::from_secs(2));
    net.link(1, true);
    cam.result();
    let r = view.result();
    assert_eq!(
        (r["bad"].as_str(), r["out_of_order"].as_str()),
        ("0", "0"),
        "{r:?}"
    );
    let counters = |host: usize| -> serde_json::Value {
        let v: serde_json::Value =
            serde_json::from_str(&net.nerve(host, &["bridge", "status", "--json"])).unwrap();
        v["stats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["topic"] == "t/be")
            .cloned()
            .unwrap()
    };
    let (out, inn) = (counters(0), counters(1));
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap();
    assert_eq!(n(&out, "sent") + n(&out, "missed"), 500, "h0: {out}");
    assert_eq!(
        n(&inn, "received") + n(&inn, "lost"),
        n(&out, "sent"),
        "h1: {inn}"
    );
    assert!(
        n(&inn, "lost") > 0,
        "a 2 s outage at 19 MB/s lost nothing? h1: {inn}"
    );

    // A latest-only topic sends only the newest: a burst of 2000 arrives in order, ending
    // with the last one.
    let g = go(&net, "go-latest");
    let sub = Helper::start(
        &net,
        1,
        "kind=cmd topic=t/latest qos=latest n=0 expect=100000 last=1999 secs=15",
    );
    let publ = Helper::start(
        &net,
        0,
        &format!("kind=cmd topic=t/latest qos=latest id=1 n=2000 hz=100000 go={g}"),
    );
    net.wait_log(1, "imported topic=\"t/latest\"", Duration::from_secs(10));
    release(&g);
    let r = sub.result();
    assert_eq!(
        (
            r["bad"].as_str(),
            r["out_of_order"].as_str(),
            r["from"].as_str()
        ),
        ("0", "0", "1:2000"),
        "latest only: {r:?}"
    );
    publ.result();

    // h1's bridge killed with kill -9: its topics leave the other hosts' views; started
    // again, h1 receives again.
    net::kill(bridges[1].take().unwrap());
    net.wait_log(0, "host gone", Duration::from_secs(20));
    net.wait_nerve(0, &["topic", "list"], "(from h1)", false);
    let doctor = net.nerve(1, &["doctor"]);
    assert!(
        doctor.contains("the Zenoh bridge of this host is dead"),
        "{doctor}"
    );
    bridges[1] = Some(net.bridge(1, &[]));
    let g = go(&net, "go-restart");
    let sub = Helper::start(&net, 1, "kind=cmd topic=t/restart n=0 expect=100 secs=20");
    let publ = Helper::start(
        &net,
        0,
        &format!("kind=cmd topic=t/restart id=1 n=100 hz=200 go={g}"),
    );
    net.wait_log(1, "imported topic=\"t/restart\"", Duration::from_secs(15));
    release(&g);
    let r = sub.result();
    assert_eq!(
        (r["got"].as_str(), r["bad"].as_str()),
        ("100", "0"),
        "after a restart: {r:?}"
    );
    publ.result();

    for b in bridges.into_iter().flatten() {
        net::stop(b);
    }
    let summary = std::fs::read_to_string(net.log(0)).unwrap();
    assert!(
        summary.contains("t/ab") && summary.contains("out"),
        "{summary}"
    );
}

/// A certificate authority for the TLS test.
fn authority(name: &str) -> rcgen::CertifiedIssuer<'static, rcgen::KeyPair> {
    let mut p = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    p.distinguished_name
        .push(rcgen::DnType::CommonName, name.to_owned());
    rcgen::CertifiedIssuer::self_signed(p, rcgen::KeyPair::generate().unwrap()).unwrap()
}

/// Host `name`'s certificate (common name `name`, for `ip`) signed by `ca`, written as
/// `<name>.pem` and `<name>.key` in `dir`.
fn certificate(
    dir: &Path,
    name: &str,
    ip: &str,
    ca: &rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
) {
    let mut p = rcgen::CertificateParams::new(vec![name.to_owned()]).unwrap();
    p.subject_alt_names
        .push(rcgen::SanType::IpAddress(ip.parse().unwrap()));
    p.distinguished_name
        .push(rcgen::DnType::CommonName, name.to_owned());
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = p.signed_by(&key, ca).unwrap();
    std::fs::write(dir.join(format!("{name}.pem")), cert.pem()).unwrap();
    std::fs::write(dir.join(format!("{name}.key")), key.serialize_pem()).unwrap();
}

/// Mutual TLS and Zenoh's access control from a bridge configuration file: h0 listens on TLS
/// and requires client certificates; h1 and h2 hold certificates of the fleet's authority,
/// h3 one of another authority and is refused. h0's access control lets only h1 (by its
/// certificate's name) put on `estop`: h2's e-stops never arrive, its other topics do.
#[test]
fn tls_and_access_control_from_a_config_file() {
    if std::env::var("NERVE_BRIDGE_HELPER").is_ok() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let net = match Net::new(4, 'b') {
        Ok(n) => n,
        Err(why) => {
            return nerve_testing::skip(
                "cli/bridge/tls_and_access_control_from_a_config_file",
                &format!("network namespaces cannot be made here: {why}"),
            )
        }
    };
    let (fleet, rogue) = (authority("fleet CA"), authority("rogue CA"));
    std::fs::write(net.path("ca.pem"), fleet.pem()).unwrap();
    for (i, h) in net.hosts.iter().enumerate() {
        let ca = if i == 3 { &rogue } else { &fleet };
        certificate(&net.dir, &format!("h{i}"), &h.ip, ca);
    }
    let file = |name: &str| net.path(name).display().to_string();
    for i in 0..4 {
        let tls = format!(
            r#"tls: {{ root_ca_certificate: "{ca}", enable_mtls: true,
                listen_private_key: "{key}", listen_certificate: "{cert}",
                connect_private_key: "{key}", connect_certificate: "{cert}" }}"#,
            ca = file("ca.pem"),
            key = file(&format!("h{i}.key")),
            cert = file(&format!("h{i}.pem")),
        );
        let (endpoints, acl) = if i == 0 {
            (
                format!(
                    r#"listen: {{ endpoints: ["tls/{}:7448"] }}"#,
                    net.hosts[0].ip
                ),
                r#"access_control: { enabled: true, default_permission: "allow",
                    rules: [{ id: "estop", messages: ["put"], flows: ["ingress"],
                              permission: "deny", key_exprs: ["nerve/0/estop"] }],
                    subjects: [{ id: "not-h1", cert_common_names: ["h2", "h3"] }],
                    policies: [{ rules: ["estop"], subjects: ["not-h1"] }] },"#
                    .to_owned(),
            )
        } else {
            (
                format!(
                    r#"listen: {{ endpoints: [] }}, connect: {{ endpoints: ["tls/{}:7448"] }}"#,
                    net.hosts[0].ip
                ),
                String::new(),
            )
        };
        let config = format!(
            r#"{{ domain: 0, host: "h{i}",
                 zenoh: {{ mode: "peer", {endpoints},
                           scouting: {{ multicast: {{ enabled: false }} }},
                           {acl}
                           transport: {{ link: {{ {tls} }} }} }} }}"#
        );
        std::fs::write(net.path(&format!("h{i}.json5")), config).unwrap();
    }
    let bridges: Vec<net::Proc> = (0..4)
        .map(|i| net.bridge_args(i, &["--config", &file(&format!("h{i}.json5"))]))
        .collect();
    net.wait_log(0, "host=\"h1\"", Duration::from_secs(15));
    net.wait_log(0, "host=\"h2\"", Duration::from_secs(15));

    // h1 and h2 each send 100 e-stops and h2 50 ordinary messages; h0 listens.
    let g = go(&net, "go-tls");
    let estops = Helper::start(&net, 0, "kind=cmd topic=estop n=0 expect=200 secs=8");
    let ok = Helper::start(&net, 0, "kind=cmd topic=t/ok n=0 expect=50 secs=20");
    let senders = [
        Helper::start(
            &net,
            1,
            &format!("kind=cmd topic=estop id=1 n=100 hz=200 go={g}"),
        ),
        Helper::start(
            &net,
            2,
            &format!("kind=cmd topic=estop id=2 n=100 hz=200 go={g}"),
        ),
        Helper::start(
            &net,
            2,
            &format!("kind=cmd topic=t/ok id=2 n=50 hz=200 go={g}"),
        ),
    ];
    net.wait_log(0, "imported topic=\"estop\"", Duration::from_secs(10));
    net.wait_log(0, "imported topic=\"t/ok\"", Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(500));
    release(&g);
    let r = ok.result();
    assert_eq!(
        (r["got"].as_str(), r["bad"].as_str()),
        ("50", "0"),
        "h2's t/ok: {r:?}"
    );
    let r = estops.result();
    assert_eq!(
        (r["got"].as_str(), r["from"].as_str()),
        ("100", "1:100"),
        "only h1's e-stops reach h0: {r:?}"
    );
    for s in senders {
        s.result();
    }
    let log0 = std::fs::read_to_string(net.log(0)).unwrap();
    assert!(
        !log0.contains("host=\"h3\""),
        "h3, whose certificate another authority signed, was let in:\n{log0}"
    );
    for b in bridges {
        net::stop(b);
    }
}

/// The namespace tests run one at a time (two cores; each starts many processes).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Resident memory of a process, KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Fleet scale: ten robots (a namespace each, a bridge each in client mode) with 100 topics
/// each, through one Zenoh router (a bridge in router mode on the ground station, which
/// subscribes to all 1000 topics). Every topic delivers all its messages in order; the time
/// until the station has imported all 1000 topics and the bridges' memory are printed.
#[test]
fn a_fleet_of_ten_robots_through_one_router() {
    if std::env::var("NERVE_BRIDGE_HELPER").is_ok() {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let net = match Net::new(11, 'c') {
        Ok(n) => n,
        Err(why) => {
            return nerve_testing::skip(
                "cli/bridge/a_fleet_of_ten_robots_through_one_router",
                &format!("network namespaces cannot be made here: {why}"),
            )
        }
    };
    let (robots, topics, n) = (10u64, 100u64, 20u64);
    let router_listen = format!("tcp/{}:7447", net.hosts[0].ip);
    let router_connect = router_listen.clone();
    let station_config = net.path("station.json5"); // more topics than a robot's 256
    std::fs::write(&station_config, "{ max_imported_topics: 2000 }").unwrap();
    let mut bridges = vec![net.bridge_args(
        0,
        &[
            "--config",
            &station_config.display().to_string(),
            "--mode",
            "router",
            "--listen",
            &router_listen,
            "--no-multicast",
            "--host",
            "station",
        ],
    )];
    // Clients give up at once when no router answers (Zenoh's default for client mode).
    net.wait_log(0, "up: host station", Duration::from_secs(10));
    for i in 1..=robots as usize {
        let host = format!("robot{i}");
        // A robot brings in only what the station sends it (not the other robots' topics).
        bridges.push(net.bridge_args(
            i,
            &[
                "--mode",
                "client",
                "--connect",
                &router_connect,
                "--host",
                &host,
                "--import",
                "station/**",
            ],
        ));
    }
    net.wait_log(0, "host=\"robot10\"", Duration::from_secs(30));
    let station = Helper::start(
        &net,
        0,
        &format!("kind=fleet robots={robots} topics={topics} n={n} secs=60"),
    );
    let g = go(&net, "go-fleet");
    let start = Instant::now();
    let fleet: Vec<Helper> = (1..=robots as usize)
        .map(|i| {
            Helper::start(
                &net,
                i,
                &format!("kind=fleet id={i} topics={topics} n={n} hz=10 go={g}"),
            )
        })
        .collect();
    // Discovery: every robot topic imported at the station.
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let log = std::fs::read_to_string(net.log(0)).unwrap_or_default();
        let imported = log.matches("imported topic=\"r").count() as u64;
        if imported >= robots * topics {
            break;
        }
        assert!(
            Instant::now() < end,
            "the station imported {imported} of {} topics",
            robots * topics
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let discovery = start.elapsed();
    release(&g);
    let r = station.result();
    for f in fleet {
        f.result();
    }
    let (router_kib, robot_kib) = (rss_kib(bridges[0].id()), rss_kib(bridges[1].id()));
    println!(
        "FLEET robots={robots} topics={} discovery_s={:.2} router_bridge_rss_mib={:.1} \
         robot_bridge_rss_mib={:.1} complete={} bad={}",
        robots * topics,
        discovery.as_secs_f64(),
        router_kib as f64 / 1024.0,
        robot_kib as f64 / 1024.0,
        r["complete"],
        r["bad"]
    );
    assert_eq!(
        (r["complete"].clone(), r["bad"].as_str()),
        ((robots * topics).to_string(), "0"),
        "every topic delivers all {n} messages in order: {r:?}"
    );
    for b in bridges {
        net::stop(b);
    }
}
