//! A host that lies: a rogue Zenoh peer (no nerve in it) announces topics to a bridge and
//! answers for their metas with garbage or with a type that contradicts the local topic, then
//! sends messages without an attachment, with another type's hash, of the wrong size. The
//! bridge counts and refuses each, keeps the local topics as they were, and still delivers the
//! rogue's valid messages (counting the gap it left in its sequence as lost).

mod common;

use std::time::{Duration, Instant};

use common::{att, cmd, stats_of, wait_until, wire_meta, Rogue};
use nerve::msgs::{CmdVel, Imu};
use nerve::prelude::*;
use nerve::raw::stored_type;
use nerve_testing::domain;
use nerve_zenoh::BridgeConfig;

#[test]
fn a_lying_host_is_counted_and_refused_while_the_bridge_serves_on() {
    let (d, _g) = domain();
    // The local side: t/good and t/lie exist here as CmdVel, with a subscriber each.
    let good = Topic::<CmdVel>::builder("t/good").domain(d).open().unwrap();
    let mut good_sub = good.subscriber().unwrap();
    let lie = Topic::<CmdVel>::builder("t/lie").domain(d).open().unwrap();
    let (bridge, endpoint) = common::bridge(d, BridgeConfig::new());

    let mut rogue = Rogue::connect(d, &endpoint);
    let rid = "0badc0de0badc0de0badc0de0badc0de";
    let good_meta = wire_meta::<CmdVel>();
    let imu_meta = wire_meta::<Imu>();
    rogue.answer(rid, move |topic| {
        Some(match topic {
            "t/good" => good_meta.clone(),
            "t/lie" => imu_meta.clone(), // the local t/lie carries CmdVel
            _ => b"\xc1 not messagepack".to_vec(),
        })
    });
    let _tokens: Vec<_> = ["t/good", "t/lie", "t/garbage"]
        .iter()
        .map(|t| rogue.announce(rid, t))
        .collect();

    wait_until("t/good imported", || stats_of(&bridge, "t/good").imported);
    wait_until("the garbage meta counted", || bridge.bad_metas() >= 1);
    // The lie is refused: not imported, the local topic still CmdVel with its endpoints.
    std::thread::sleep(Duration::from_millis(500));
    assert!(!stats_of(&bridge, "t/lie").imported);
    assert!(!stats_of(&bridge, "t/garbage").imported);
    assert!(lie.publisher().is_ok());

    let hash = stored_type::<CmdVel>().layout_hash;
    let put = |payload, attachment| rogue.put("t/good", payload, attachment);
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
