//! A host that lies: a rogue Zenoh peer (no nerve in it) announces topics to a bridge and
//! answers for their metas with garbage or with a type that contradicts the local topic, then
//! sends messages without an attachment, with another type's hash, of the wrong size. The
//! bridge counts and refuses each, keeps the local topics as they were, and still delivers the
//! rogue's valid messages (counting the gap it left in its sequence as lost).

use std::net::TcpListener;
use std::time::{Duration, Instant};

use nerve::prelude::*;
use nerve::raw::{stored_type, TopicMeta};
use nerve_testing::domain;
use nerve_zenoh::wire::{self, Attachment, WireMeta};
use nerve_zenoh::{Bridge, BridgeConfig, TopicStats};
use zenoh::Wait;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn zenoh_config(json: &[(&str, String)]) -> zenoh::Config {
    let mut c = zenoh::Config::default();
    c.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    for (k, v) in json {
        c.insert_json5(k, v).unwrap();
    }
    c
}

fn stats_of(bridge: &Bridge, topic: &str) -> TopicStats {
    bridge
        .stats()
        .into_iter()
        .find(|t| t.topic == topic)
        .unwrap_or_default()
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < end, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wire_meta<T: Message>() -> Vec<u8> {
    let meta = TopicMeta {
        stored_type: stored_type::<T>(),
        reliability: nerve::Reliability::Reliable,
        depth: 16,
        max_payload_bytes: 0,
    };
    WireMeta {
        meta: meta.to_metadata(),
        description: nerve::raw::description::<T>()
            .map(|d| d.to_bytes())
            .unwrap_or_default(),
        host: "rogue".into(),
    }
    .encode()
}

#[test]
fn a_lying_host_is_counted_and_refused_while_the_bridge_serves_on() {
    let (d, _g) = domain();
    let port = free_port();
    let endpoint = format!("[\"tcp/127.0.0.1:{port}\"]");
    // The local side: t/good and t/lie exist here as CmdVel, with a subscriber each.
    let good = Topic::<CmdVel>::builder("t/good").domain(d).open().unwrap();
    let mut good_sub = good.subscriber().unwrap();
    let lie = Topic::<CmdVel>::builder("t/lie").domain(d).open().unwrap();
    let bridge = Bridge::start(BridgeConfig {
        domain: d,
        zenoh: zenoh_config(&[("listen/endpoints", endpoint.clone())]),
        ..BridgeConfig::new()
    })
    .unwrap();

    let rogue = zenoh::open(zenoh_config(&[("connect/endpoints", endpoint)]))
        .wait()
        .unwrap();
    let rid = "0badc0de0badc0de0badc0de0badc0de";
    let good_meta = wire_meta::<CmdVel>();
    let imu_meta = wire_meta::<Imu>();
    let _metas = rogue
        .declare_queryable(format!("nerve/{d}/@meta/{rid}/**"))
        .callback(move |q| {
            let key = q.key_expr().as_str().to_owned();
            let answer: Vec<u8> = if key.ends_with("/t/good") {
                good_meta.clone()
            } else if key.ends_with("/t/lie") {
                imu_meta.clone() // the local t/lie carries CmdVel
            } else {
                b"\xc1 not messagepack".to_vec()
            };
            q.reply(key.as_str(), answer).wait().unwrap();
        })
        .wait()
        .unwrap();
    let _tokens: Vec<_> = ["t/good", "t/lie", "t/garbage"]
        .iter()
        .map(|t| {
            rogue
                .liveliness()
                .declare_token(wire::topic_token(d, rid, t))
                .wait()
                .unwrap()
        })
        .collect();

    wait_until("t/good imported", || stats_of(&bridge, "t/good").imported);
    wait_until("the garbage meta counted", || bridge.bad_metas() >= 1);
    // The lie is refused: not imported, the local topic still CmdVel with its endpoints.
    std::thread::sleep(Duration::from_millis(500));
    assert!(!stats_of(&bridge, "t/lie").imported);
    assert!(!stats_of(&bridge, "t/garbage").imported);
    assert!(lie.publisher().is_ok());

    let key = wire::data_key(d, "t/good");
    let cmd = |stamp: u64| {
        bytemuck::bytes_of(&CmdVel {
            stamp_ns: stamp,
            linear: 1.5,
            angular: -0.5,
        })
        .to_vec()
    };
    let att = |seq: u64, hash: u64| {
        Attachment {
            bridge: [0xbd; 16],
            seq,
            layout_hash: hash,
        }
        .encode()
        .to_vec()
    };
    let hash = stored_type::<CmdVel>().layout_hash;
    let put = |payload: Vec<u8>, attachment: Option<Vec<u8>>| {
        let p = rogue.put(&key, payload);
        match attachment {
            Some(a) => p.attachment(a).wait().unwrap(),
            None => p.wait().unwrap(),
        }
    };
    put(cmd(100), None); // no attachment
    put(cmd(101), Some(att(0, hash ^ 1))); // another type's hash
    put(cmd(102)[..10].to_vec(), Some(att(0, hash))); // short
    put(cmd(103), Some(att(0, hash)[..5].to_vec())); // a broken attachment
    put(cmd(7), Some(att(0, hash))); // valid
    put(cmd(8), Some(att(5, hash))); // valid, 4 missing before it

    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(5);
    while got.len() < 2 && Instant::now() < end {
        if let Some(m) = good_sub.recv_timeout(Duration::from_millis(50)).unwrap() {
            got.push((m.stamp_ns, m.linear, m.angular));
        }
    }
    assert_eq!(got, vec![(7, 1.5, -0.5), (8, 1.5, -0.5)]);
    wait_until("the counters settle", || {
        let s = stats_of(&bridge, "t/good");
        s.rejected == 4 && s.received == 2
    });
    let s = stats_of(&bridge, "t/good");
    assert_eq!((s.received, s.rejected, s.lost), (2, 4, 4), "{s:?}");
    assert!(
        good_sub
            .recv_timeout(Duration::from_millis(200))
            .unwrap()
            .is_none(),
        "nothing else was published"
    );
}
