//! The bridge as a library call in an application's own process: the application's
//! publishers are exported like any other process's (the bridge counts its own publishers, not
//! its process), and a plain Zenoh subscriber elsewhere receives their messages with the
//! attachment every bridge sends.

use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve_testing::domain;
use nerve_zenoh::wire::{self, Attachment};
use nerve_zenoh::{Bridge, BridgeConfig};
use zenoh::Wait;

#[test]
fn an_applications_own_publisher_is_exported() {
    let (d, _g) = domain();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("[\"tcp/127.0.0.1:{port}\"]");
    let mut zc = zenoh::Config::default();
    zc.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    zc.insert_json5("listen/endpoints", &endpoint).unwrap();
    let bridge = Bridge::start(BridgeConfig {
        domain: d,
        zenoh: zc,
        ..BridgeConfig::new()
    })
    .unwrap();

    let mut oc = zenoh::Config::default();
    oc.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    oc.insert_json5("connect/endpoints", &endpoint).unwrap();
    let other = zenoh::open(oc).wait().unwrap();
    let (tx, rx) = mpsc::channel();
    let _sub = other
        .declare_subscriber(wire::data_key(d, "app/cmd"))
        .callback(move |s| {
            let att = s
                .attachment()
                .and_then(|a| Attachment::decode(&a.to_bytes()));
            let _ = tx.send((s.payload().to_bytes().to_vec(), att));
        })
        .wait()
        .unwrap();

    let topic = Topic::<CmdVel>::builder("app/cmd")
        .domain(d)
        .open()
        .unwrap();
    let publisher = topic.publisher().unwrap();
    let start = std::time::Instant::now();
    while !bridge
        .stats()
        .iter()
        .any(|t| t.topic == "app/cmd" && t.exported)
    {
        assert!(start.elapsed() < Duration::from_secs(10), "never exported");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = CmdVel {
        stamp_ns: 42,
        linear: 0.25,
        angular: -1.0,
    };
    publisher.send(&sent).unwrap();
    let (bytes, att) = rx.recv_timeout(Duration::from_secs(5)).expect("a message");
    assert_eq!(bytes, bytemuck::bytes_of(&sent));
    let att = att.expect("an attachment");
    assert_eq!(att.seq, 0);
    // Named by its ring and its index there, the same on every path it may take.
    let ring = nerve::raw::RawTopic::join("app/cmd", d).unwrap().ring_id();
    assert_eq!((att.ring, att.index), (ring, 0));
    publisher.send(&sent).unwrap();
    let (_, second) = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("a second message");
    assert_eq!(second.map(|a| (a.ring, a.index, a.seq)), Some((ring, 1, 1)));
    assert_eq!(
        att.layout_hash,
        nerve::raw::stored_type::<CmdVel>().layout_hash
    );
}
