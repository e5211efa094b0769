//! What `direct` costs a process that no other host listens to: nothing but the load of the
//! `remote` word per send. With the hook installed and 1000 messages sent, no session is looked
//! for (no `nerve-direct` thread); once the topic's `remote` word says another host wants it
//! (what the host bridge writes), the next send asks for an egress and the thread starts, while
//! the local subscriber still gets every message.

mod common;

use std::time::Duration;

use common::wait_until;
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve::raw::RawTopic;
use nerve_testing::domain;

fn threads() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|c| c.trim().to_owned())
        .collect()
}

#[test]
fn a_process_without_remote_interest_opens_nothing() {
    let (d, _g) = domain();
    std::env::remove_var("NERVE_DIRECT");
    assert!(nerve_zenoh::direct::install_auto(), "installed once");
    assert!(!nerve_zenoh::direct::install_auto(), "and only once");
    let topic = Topic::<CmdVel>::builder("t/quiet")
        .domain(d)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    let publisher = topic.publisher().unwrap();
    let send = |i: u64| {
        publisher
            .send(&CmdVel {
                stamp_ns: i,
                linear: 1.0,
                angular: 0.0,
            })
            .unwrap()
    };
    for i in 0..1000 {
        send(i);
        let m = sub.recv_timeout(Duration::from_secs(1)).unwrap().unwrap();
        assert_eq!(m.stamp_ns, i);
    }
    assert!(
        !threads().iter().any(|t| t == "nerve-direct"),
        "{:?}",
        threads()
    );

    let raw = RawTopic::join("t/quiet", d).unwrap();
    assert_eq!(raw.remote_interest(), 0);
    raw.set_remote_interest(1);
    send(1000);
    let m = sub.recv_timeout(Duration::from_secs(1)).unwrap().unwrap();
    assert_eq!(
        m.stamp_ns, 1000,
        "delivered here first, whatever the network does"
    );
    wait_until("the egress looks for its session", || {
        threads().iter().any(|t| t == "nerve-direct")
    });
    // No bridge runs here: the publisher's flag stays down (the bridge would keep exporting).
    assert_eq!(raw.publishers_direct(), (1, 0));
}
