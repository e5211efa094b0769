//! What a remote host may make this one do, bounded: a rogue Zenoh peer (no nerve in it,
//! speaking the bridge's wire protocol on loopback, multicast scouting off) announces a topic
//! of 512 MiB, topics past the total and count this host allows, topics whose meta it never
//! answers, and a sequence number of 2^64 − 1. The bridge refuses what is over its limits
//! (counted, listed with the host and the reason, nothing created), imports a good host's topic
//! at once whatever the silent ones do, and counts the jump as a reset, not as lost messages.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{att, blob_meta, cmd, image_meta, stats_of, wait_until, wire_meta, Rogue};
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve::raw::stored_type;
use nerve_testing::domain;
use nerve_testing::hostile::segment_path;
use nerve_zenoh::config::DEFAULT_MAX_TOPIC_BYTES;
use nerve_zenoh::view::Refusal;
use nerve_zenoh::{Bridge, BridgeConfig};
use zenoh::Wait;

const ROGUE: &str = "0badc0de0badc0de0badc0de0badc0de";

fn refused(bridge: &Bridge) -> Vec<(String, String)> {
    let (_, list) = bridge.refused();
    list.into_iter().map(|r| (r.topic, r.reason)).collect()
}

/// Announces `topic` and waits until it is imported or refused; true when imported.
fn offer(
    bridge: &Bridge,
    rogue: &Rogue,
    topic: &str,
) -> (bool, zenoh::liveliness::LivelinessToken) {
    let before = bridge.refused().0;
    let token = rogue.announce(ROGUE, topic);
    wait_until(&format!("{topic} imported or refused"), || {
        stats_of(bridge, topic).imported || bridge.refused().0 > before
    });
    (stats_of(bridge, topic).imported, token)
}

fn file_len(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

#[test]
fn a_topic_of_512_mib_is_refused_and_nothing_is_created() {
    let (d, _g) = domain();
    let (bridge, endpoint) = common::bridge(d, BridgeConfig::new());
    let mut rogue = Rogue::connect(d, &endpoint);
    rogue.host(ROGUE, "rogue-host");
    // 65 536-byte messages at depth 8192: a 512 MiB ring.
    rogue.answer(ROGUE, |_| Some(blob_meta(65_536, 8192)));
    wait_until("the rogue's host seen", || !bridge.hosts().is_empty());
    let (imported, _t) = offer(&bridge, &rogue, "t/huge");

    assert!(!imported);
    let (count, list) = bridge.refused();
    assert_eq!(count, 1);
    assert_eq!(list.len(), 1);
    let Refusal {
        topic,
        host,
        reason,
        count,
    } = &list[0];
    assert_eq!(
        (topic.as_str(), host.as_str(), *count),
        ("t/huge", "rogue-host", 1)
    );
    assert!(
        reason.contains("max_topic_mib") && reason.contains("above the 64.0 MiB"),
        "{reason}"
    );
    assert!(file_len(&segment_path(d, "t/huge")).is_none(), "no segment");
    // Nothing in this host's shared memory is over the limit, allocated or not.
    let dir = segment_path(d, "t/huge").parent().unwrap().to_owned();
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let (name, len) = (f.file_name(), f.metadata().unwrap().len());
        assert!(len <= DEFAULT_MAX_TOPIC_BYTES, "{name:?}: {len} bytes");
    }
    let view = bridge.view();
    assert_eq!((view.refused_imports, view.refused.len()), (1, 1));
    assert!(
        view.stats.iter().all(|s| s.topic != "t/huge"),
        "not even counted as a topic"
    );
}

#[test]
fn topics_past_the_total_or_the_count_are_refused() {
    let (d, _g) = domain();
    // 4 MiB allocated a topic and 5 MiB together, 8 MiB of chunks a topic, three topics.
    let config = BridgeConfig::from_json5(
        "{ max_topic_mib: 4, max_imported_mib: 5, max_topic_pool_mib: 8, \
           max_imported_topics: 3 }",
    )
    .unwrap();
    let (bridge, endpoint) = common::bridge(d, config);
    let mut rogue = Rogue::connect(d, &endpoint);
    rogue.answer(ROGUE, |topic| {
        Some(match topic {
            "t/huge" => blob_meta(65_536, 8192),            // 512 MiB
            "t/pool" => image_meta(1 << 20, 4),             // 16 MiB of chunks
            "t/a" | "t/b" | "t/c" => blob_meta(65_536, 32), // 2.1 MiB each
            _ => wire_meta::<CmdVel>(),                     // 8 KiB
        })
    });
    let (a, ta) = offer(&bridge, &rogue, "t/a");
    let (b, _tb) = offer(&bridge, &rogue, "t/b");
    let (c, _tc) = offer(&bridge, &rogue, "t/c");
    let (small, _ts) = offer(&bridge, &rogue, "t/small");
    let (more, te) = offer(&bridge, &rogue, "t/more");
    let (huge, _th) = offer(&bridge, &rogue, "t/huge");
    let (pool, _tp) = offer(&bridge, &rogue, "t/pool");
    assert!(!pool);
    assert_eq!(
        (a, b, c, small, more, huge),
        (true, true, false, true, false, false)
    );
    let why = refused(&bridge);
    let topics: Vec<&str> = why.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(topics, ["t/c", "t/more", "t/huge", "t/pool"]);
    assert!(why[0].1.contains("max_imported_mib"), "{}", why[0].1);
    assert!(why[1].1.contains("max_imported_topics"), "{}", why[1].1);
    assert!(why[2].1.contains("max_topic_mib"), "{}", why[2].1);
    assert!(why[3].1.contains("max_topic_pool_mib"), "{}", why[3].1);
    // Only the admitted topics have segments, within the total.
    let sizes: Vec<Option<u64>> = ["t/a", "t/b", "t/small", "t/c", "t/more", "t/huge", "t/pool"]
        .iter()
        .map(|t| file_len(&segment_path(d, t)))
        .collect();
    assert!(sizes[3..].iter().all(Option::is_none), "{sizes:?}");
    let held: u64 = sizes[..3].iter().map(|s| s.unwrap()).sum();
    assert!(held <= 5 << 20, "{held} bytes");

    // Room frees when an import stops: the topic refused for the total is imported then.
    drop(te);
    drop(ta);
    wait_until("t/a's import stopped", || {
        !stats_of(&bridge, "t/a").imported
    });
    wait_until("t/c imported once room freed", || {
        stats_of(&bridge, "t/c").imported
    });
    assert_eq!(bridge.refused().0, 4, "nothing refused again");
}

#[test]
fn silent_hosts_delay_no_other_host_s_topic() {
    let (d, _g) = domain();
    let (bridge, endpoint) = common::bridge(d, BridgeConfig::new());
    let mut rogue = Rogue::connect(d, &endpoint);
    let (silent_1, silent_2, good) = (
        "5111e471111111111111111111111111",
        "5111e472222222222222222222222222",
        "600d600d600d600d600d600d600d600d",
    );
    rogue.answer(silent_1, |_| None);
    rogue.answer(silent_2, |_| None);
    rogue.answer(good, |_| Some(wire_meta::<CmdVel>()));
    let _silent = [
        rogue.announce(silent_1, "t/s1"),
        rogue.announce(silent_1, "t/s2"),
        rogue.announce(silent_2, "t/s3"),
    ];
    let held = rogue.held.clone();
    wait_until("three questions held", || held.lock().unwrap().len() == 3);
    let start = Instant::now();
    let _good = rogue.announce(good, "t/good");
    wait_until("t/good imported", || stats_of(&bridge, "t/good").imported);
    let took = start.elapsed();
    println!("t/good imported {took:?} after its announcement");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    assert!(["t/s1", "t/s2", "t/s3"]
        .iter()
        .all(|t| !stats_of(&bridge, t).imported));
    assert_eq!((bridge.bad_metas(), bridge.refused().0), (0, 0));
}

#[test]
fn a_sequence_jump_is_a_reset_not_a_loss() {
    let (d, _g) = domain();
    let topic = Topic::<CmdVel>::builder("t/seq").domain(d).open().unwrap();
    let mut sub = topic.subscriber().unwrap();
    let (bridge, endpoint) = common::bridge(d, BridgeConfig::new());
    let mut rogue = Rogue::connect(d, &endpoint);
    rogue.answer(ROGUE, |_| Some(wire_meta::<CmdVel>()));
    let (imported, _t) = offer(&bridge, &rogue, "t/seq");
    assert!(imported);
    let hash = stored_type::<CmdVel>().layout_hash;
    rogue.put("t/seq", cmd(1), Some(att(0, hash)));
    rogue.put("t/seq", cmd(2), Some(att(u64::MAX, hash))); // 2^64 − 1
    rogue.put("t/seq", cmd(3), Some(att(1 << 40, hash))); // 2^40 past the wrap to 0
    rogue.put("t/seq", cmd(4), Some(att((1 << 40) + 4, hash))); // 3 lost
    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(5);
    while got.len() < 4 && Instant::now() < end {
        if let Some(m) = sub.recv_timeout(Duration::from_millis(50)).unwrap() {
            got.push(m.stamp_ns);
        }
    }
    assert_eq!(got, [1, 2, 3, 4]);
    wait_until("the counters settle", || {
        stats_of(&bridge, "t/seq").received == 4
    });
    let s = stats_of(&bridge, "t/seq");
    assert_eq!(
        (s.received, s.lost, s.resets, s.rejected),
        (4, 3, 2, 0),
        "{s:?}"
    );
}

/// A peer announcing more services than `max_imported_services`: the ones past the limit are
/// not served here (each would be a server, a thread and its topics), and are listed.
#[test]
fn services_past_the_count_are_refused() {
    let (d, _g) = domain();
    let (bridge, endpoint) = common::bridge(
        d,
        BridgeConfig {
            max_imported_services: 2,
            ..BridgeConfig::new()
        },
    );
    let rogue = Rogue::connect(d, &endpoint);
    // Its service metas: no types, host "rogue-host" (a ServiceMeta as MessagePack).
    let meta = rmp_serde::to_vec(&(None::<()>, None::<()>, "rogue-host")).unwrap();
    let q = rogue
        .session
        .declare_queryable(format!("nerve/{d}/@smeta/{ROGUE}/**"))
        .callback(move |q| {
            let key = q.key_expr().as_str().to_owned();
            q.reply(key.as_str(), meta.clone()).wait().unwrap();
        })
        .wait()
        .unwrap();
    let tokens: Vec<_> = ["s/a", "s/b", "s/c"]
        .iter()
        .map(|s| {
            rogue
                .session
                .liveliness()
                .declare_token(nerve_zenoh::wire::service_token(d, ROGUE, s))
                .wait()
                .unwrap()
        })
        .collect();
    wait_until("two served and one refused", || {
        let served = nerve::rpc::discovery::services(d)
            .iter()
            .filter(|s| s.server.is_some())
            .count();
        served == 2 && bridge.refused().0 == 1
    });
    let list = refused(&bridge);
    assert_eq!(list.len(), 1, "{list:?}");
    assert!(list[0].1.contains("max_imported_services"), "{list:?}");
    drop((tokens, q));
}
