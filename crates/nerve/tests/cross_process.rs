//! Cross-process behaviour with real processes: checksummed stress in every topology, and
//! crash recovery (`kill -9` of publishers and subscribers, stale and corrupt segments).
//!
//! The test binary re-executes itself as the child processes: `child_entry` does the work of
//! one role when `NERVE_TEST_ROLE` is set (`nerve_testing::process`) and nothing otherwise.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve_testing::domain;
use nerve_testing::payload::{fill as blob_fill, fnv1a as fnv, mix};
use nerve_testing::process::{self, env_u64, field, scaled, ChildGuard};

/// 64-byte stress message: every word derived from (publisher, seq), plus a checksum.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "test/Stress", default = "zeroed")]
#[repr(C)]
pub struct Stress {
    /// Publisher id.
    pub publisher: u32,
    /// Padding.
    pub _pad: u32,
    /// Per-publisher sequence.
    pub seq: u64,
    /// Pattern words.
    pub data: [u64; 5],
    /// Checksum of the above.
    pub check: u64,
}

/// Blob header.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "test/Blob", chunked(elem = u8, message = Blob, doc = "A checksummed blob carried in a shared chunk."), default = "zeroed")]
#[repr(C)]
pub struct BlobHeader {
    /// Publisher id.
    pub publisher: u32,
    /// Padding.
    pub _pad: u32,
    /// Per-publisher sequence.
    pub seq: u64,
    /// FNV-1a of every byte of the payload.
    pub check: u64,
}

fn stress_msg(p: u32, seq: u64) -> Stress {
    let data = std::array::from_fn(|i| mix(p, seq, i as u64));
    let check = data
        .iter()
        .fold(p as u64 ^ seq, |a, &w| a.rotate_left(7) ^ w);
    Stress {
        publisher: p,
        _pad: 0,
        seq,
        data,
        check,
    }
}

fn stress_ok(m: &Stress) -> bool {
    *m == stress_msg(m.publisher, m.seq)
}

fn open_stress(domain: u32, reliable: bool, depth: u32) -> Topic<Stress> {
    let b = Topic::<Stress>::builder("stress/fixed")
        .domain(domain)
        .depth(depth);
    if reliable { b.reliable() } else { b }.open().unwrap()
}

fn open_blob(domain: u32, depth: u32) -> Topic<Blob> {
    Topic::<Blob>::builder("stress/blob")
        .domain(domain)
        .depth(depth)
        .reliable()
        .max_message_bytes(256 << 10)
        .open()
        .unwrap()
}

/// Child process roles.
#[test]
fn child_entry() {
    let Some(role) = process::role() else {
        return;
    };
    let domain = env_u64("NERVE_DOMAIN") as u32;
    let reliable = std::env::var("NERVE_TEST_RELIABLE").is_ok();
    match role.as_str() {
        "pub" => {
            let topic = open_stress(domain, reliable, env_u64("NERVE_TEST_DEPTH") as u32);
            let mut p = topic.publisher().unwrap();
            p.set_timeout(Duration::from_secs(30));
            let id = env_u64("NERVE_TEST_ID") as u32;
            for seq in 0..env_u64("NERVE_TEST_COUNT") {
                p.send(&stress_msg(id, seq)).unwrap();
            }
            println!("RESULT sent");
        }
        "sub" => {
            let topic = open_stress(domain, reliable, env_u64("NERVE_TEST_DEPTH") as u32);
            let mut s = topic.subscriber().unwrap();
            println!("READY");
            let total = env_u64("NERVE_TEST_TOTAL");
            let (mut corrupt, mut disorder) = (0u64, 0u64);
            let mut last: HashMap<u32, u64> = HashMap::new();
            let deadline = Instant::now() + Duration::from_secs(300);
            loop {
                let st = s.stats();
                if st.received + st.lost + st.dropped >= total || Instant::now() > deadline {
                    break;
                }
                if let Some(m) = s.recv_timeout(Duration::from_millis(200)).unwrap() {
                    if !stress_ok(&m) {
                        corrupt += 1;
                        continue;
                    }
                    let prev = last.insert(m.publisher, m.seq);
                    let in_order = match prev {
                        None => {
                            if reliable {
                                m.seq == 0
                            } else {
                                true
                            }
                        }
                        Some(p) if reliable => m.seq == p + 1,
                        Some(p) => m.seq > p,
                    };
                    disorder += u64::from(!in_order);
                }
            }
            let st = s.stats();
            println!(
                "RESULT received={} lost={} dropped={} corrupt={corrupt} disorder={disorder}",
                st.received, st.lost, st.dropped
            );
        }
        "blob_pub" => {
            let topic = open_blob(domain, 8);
            let mut p = topic.publisher().unwrap();
            p.set_timeout(Duration::from_secs(30));
            let id = env_u64("NERVE_TEST_ID") as u32;
            let size = env_u64("NERVE_TEST_SIZE") as usize;
            for seq in 0..env_u64("NERVE_TEST_COUNT") {
                let mut loan = p.loan(size - (seq as usize % 64)).unwrap();
                blob_fill(id, seq, loan.data_mut());
                let check = fnv(loan.data_mut());
                *loan.header_mut() = BlobHeader {
                    publisher: id,
                    _pad: 0,
                    seq,
                    check,
                };
                loan.send().unwrap();
            }
            println!("RESULT sent");
        }
        "blob_sub" => {
            let topic = open_blob(domain, 8);
            let mut s = topic.subscriber().unwrap();
            println!("READY");
            let total = env_u64("NERVE_TEST_TOTAL");
            let mut corrupt = 0u64;
            let deadline = Instant::now() + Duration::from_secs(300);
            while s.stats().received + s.stats().lost < total && Instant::now() < deadline {
                if let Some(sample) = s.recv_timeout(Duration::from_millis(200)).unwrap() {
                    let h = *sample.header();
                    let mut expect = vec![0u8; sample.len()];
                    blob_fill(h.publisher, h.seq, &mut expect);
                    corrupt +=
                        u64::from(fnv(sample.data()) != h.check || sample.data() != &expect[..]);
                }
            }
            let st = s.stats();
            println!(
                "RESULT received={} lost={} dropped={} corrupt={corrupt} disorder=0",
                st.received, st.lost, st.dropped
            );
        }
        "hold_sample" => {
            let topic = Topic::<Blob>::builder("crash/hold")
                .domain(domain)
                .depth(4)
                .chunks(8)
                .open()
                .unwrap();
            let mut s = topic.subscriber().unwrap();
            println!("READY");
            let sample = s.recv().unwrap();
            println!("HOLDING {}", sample.header().seq);
            std::thread::sleep(Duration::from_secs(600));
        }
        "publish_forever" => {
            let topic = open_stress(domain, false, 16);
            let p = topic.publisher().unwrap();
            println!("READY");
            for seq in 0.. {
                p.send(&stress_msg(1, seq)).unwrap();
            }
        }
        "stall_writer" => {
            let topic = open_stress(domain, false, 16);
            let p = topic.publisher().unwrap();
            p.send(&stress_msg(9, 0)).unwrap();
            p.__stall_mid_write(&stress_msg(9, 1));
            println!("READY");
            std::thread::sleep(Duration::from_secs(600));
        }
        "create_and_die" => {
            let topic = open_stress(domain, false, 16);
            let p = topic.publisher().unwrap();
            p.send(&stress_msg(1, 0)).unwrap();
            println!("READY");
            std::thread::sleep(Duration::from_secs(600));
        }
        other => panic!("unknown role {other}"),
    }
}

/// This test binary re-executed in `role` on `domain`.
fn spawn(role: &str, domain: u32, vars: &[(&str, String)]) -> ChildGuard {
    process::spawn_self("child_entry", role, domain, vars)
}

/// P publisher processes, S subscriber processes, `per_pub` messages each. Returns the number
/// of messages checked.
fn run_topology(
    publishers: u32,
    subscribers: u32,
    per_pub: u64,
    reliable: bool,
    depth: u32,
) -> u64 {
    let (d, _g) = domain();
    let _keep = open_stress(d, reliable, depth);
    let total = per_pub * publishers as u64;
    let mut vars = vec![
        ("NERVE_TEST_TOTAL", total.to_string()),
        ("NERVE_TEST_DEPTH", depth.to_string()),
    ];
    if reliable {
        vars.push(("NERVE_TEST_RELIABLE", "1".into()));
    }
    let mut subs: Vec<ChildGuard> = (0..subscribers).map(|_| spawn("sub", d, &vars)).collect();
    for s in &mut subs {
        s.wait_line("READY");
    }
    let pubs: Vec<ChildGuard> = (0..publishers)
        .map(|id| {
            let mut v = vars.clone();
            v.push(("NERVE_TEST_ID", id.to_string()));
            v.push(("NERVE_TEST_COUNT", per_pub.to_string()));
            spawn("pub", d, &v)
        })
        .collect();
    for p in pubs {
        p.finish();
    }
    let mut checked = 0;
    for s in subs {
        let r = s.finish();
        let (received, lost, dropped) = (
            field(&r, "received"),
            field(&r, "lost"),
            field(&r, "dropped"),
        );
        eprintln!("{publishers}:{subscribers} reliable={reliable}: {r}");
        assert_eq!(field(&r, "corrupt"), 0, "corrupted messages: {r}");
        assert_eq!(field(&r, "disorder"), 0, "out-of-order messages: {r}");
        assert_eq!(dropped, 0, "{r}");
        assert_eq!(
            received + lost,
            total,
            "every message received or counted lost: {r}"
        );
        if reliable {
            assert_eq!(received, total, "reliable topics lose nothing: {r}");
        }
        checked += received;
    }
    checked
}

// Together these send 24.6 M checksummed messages across processes at scale 1 (≈ 21 M of them
// received and checked byte by byte on this 2-core machine; best-effort subscribers count the rest
// as lost, and the tests assert received + lost = sent).
#[test]
fn stress_1_to_1_best_effort() {
    run_topology(1, 1, scaled(6_000_000), false, 1024);
}

#[test]
fn stress_1_to_1_reliable() {
    run_topology(1, 1, scaled(8_000_000), true, 256);
}

#[test]
fn stress_3_to_1_reliable() {
    run_topology(3, 1, scaled(1_000_000), true, 256);
}

#[test]
fn stress_1_to_3_best_effort() {
    run_topology(1, 3, scaled(3_000_000), false, 1024);
}

#[test]
fn stress_3_to_3_reliable() {
    run_topology(3, 3, scaled(500_000), true, 256);
}

#[test]
fn stress_3_to_3_best_effort() {
    run_topology(3, 3, scaled(1_000_000), false, 1024);
}

#[test]
fn stress_chunks_every_byte_checked() {
    let (d, _g) = domain();
    let _keep = open_blob(d, 8);
    let (count, size) = (scaled(20_000), 64 << 10);
    let vars = vec![("NERVE_TEST_TOTAL", (2 * count).to_string())];
    let mut subs: Vec<ChildGuard> = (0..2).map(|_| spawn("blob_sub", d, &vars)).collect();
    for s in &mut subs {
        s.wait_line("READY");
    }
    let pubs: Vec<ChildGuard> = (0..2)
        .map(|id| {
            let mut v = vars.clone();
            v.extend([
                ("NERVE_TEST_ID", id.to_string()),
                ("NERVE_TEST_COUNT", count.to_string()),
                ("NERVE_TEST_SIZE", size.to_string()),
            ]);
            spawn("blob_pub", d, &v)
        })
        .collect();
    for p in pubs {
        p.finish();
    }
    for s in subs {
        let r = s.finish();
        eprintln!("chunks: {r}");
        assert_eq!(field(&r, "corrupt"), 0, "{r}");
        assert_eq!(field(&r, "received"), 2 * count, "{r}");
    }
    let (in_use, _) = _keep.chunks_in_use().unwrap();
    assert!(
        in_use <= 8,
        "only the ring's chunks stay referenced, got {in_use}"
    );
}

#[test]
fn killed_publisher_mid_write_is_skipped_and_others_continue() {
    killed_publisher_mid_write(None);
}

/// The same with the publisher in a container (a pid and mount namespace of its own, sharing
/// /dev/shm): its death is seen through its life file, not its pid.
#[test]
fn killed_publisher_mid_write_in_another_pid_namespace_is_skipped() {
    if let Err(why) = nerve_testing::container::check() {
        return nerve_testing::skip(
            "nerve/cross_process/killed_publisher_mid_write_in_another_pid_namespace_is_skipped",
            &why,
        );
    }
    killed_publisher_mid_write(Some("ctr-pub"));
}

fn killed_publisher_mid_write(host: Option<&str>) {
    let (d, _g) = domain();
    let topic = open_stress(d, false, 16);
    let mut s = topic.subscriber().unwrap();
    let mut child = process::spawn_self_in(host, "child_entry", "stall_writer", d, &[]);
    child.wait_line("READY");
    assert_eq!(
        s.recv_deadline(Duration::from_secs(5)).unwrap(),
        stress_msg(9, 0)
    );
    // Message 1 is half-written by a live process: nothing to receive.
    assert_eq!(s.recv_timeout(Duration::from_millis(300)).unwrap(), None);
    child.kill9();
    // Another publisher carries on; the subscriber skips the abandoned message and counts it.
    let p = topic.publisher().unwrap();
    p.send(&stress_msg(2, 0)).unwrap();
    let m = s.recv_deadline(Duration::from_secs(5)).unwrap();
    assert_eq!(m, stress_msg(2, 0));
    assert_eq!(s.stats().dropped, 1, "{:?}", s.stats());
    // The slot the dead writer held is taken over a ring later.
    for seq in 1..40 {
        p.send(&stress_msg(2, seq)).unwrap();
        assert_eq!(
            s.recv_deadline(Duration::from_secs(5)).unwrap(),
            stress_msg(2, seq)
        );
    }
}

#[test]
fn random_kill9_of_a_flat_out_publisher_never_corrupts() {
    let (d, _g) = domain();
    let topic = open_stress(d, false, 16);
    let mut s = topic.subscriber().unwrap();
    for round in 0..10u64 {
        let mut child = spawn("publish_forever", d, &[]);
        child.wait_line("READY");
        std::thread::sleep(Duration::from_micros(2_000 + round * 1_700));
        child.kill9();
        while let Some(m) = s.recv_timeout(Duration::from_millis(300)).unwrap() {
            assert!(
                stress_ok(&m),
                "corrupt message after kill -9 in round {round}"
            );
        }
    }
    // A surviving publisher still gets through.
    let p = topic.publisher().unwrap();
    p.send(&stress_msg(3, 3)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let m = s.recv_deadline(Duration::from_secs(5)).unwrap();
        if m == stress_msg(3, 3) {
            break;
        }
        assert!(Instant::now() < deadline);
    }
}

#[test]
fn killed_subscriber_holding_a_chunk_is_reclaimed() {
    killed_subscriber_holding_a_chunk(None);
}

/// The same with the subscriber in a container: its chunk is reclaimed once it is provably
/// dead, never while it lives (the old pid check saw every process of another pid namespace
/// as dead, or as someone else).
#[test]
fn killed_subscriber_in_another_pid_namespace_holding_a_chunk_is_reclaimed() {
    if let Err(why) = nerve_testing::container::check() {
        return nerve_testing::skip(
            "nerve/cross_process/killed_subscriber_in_another_pid_namespace_holding_a_chunk_is_reclaimed",
            &why,
        );
    }
    killed_subscriber_holding_a_chunk(Some("ctr-sub"));
}

fn killed_subscriber_holding_a_chunk(host: Option<&str>) {
    let (d, _g) = domain();
    let topic = Topic::<Blob>::builder("crash/hold")
        .domain(d)
        .depth(4)
        .chunks(8)
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    let mut child = process::spawn_self_in(host, "child_entry", "hold_sample", d, &[]);
    child.wait_line("READY");
    let mut loan = p.loan(1024).unwrap();
    loan.header_mut().seq = 77;
    loan.send().unwrap();
    assert_eq!(child.wait_line("HOLDING"), "HOLDING 77");
    // While it lives, nothing of it is reclaimed.
    assert_eq!(topic.reclaim_dead(), 0, "a live subscriber's records stay");
    child.kill9();
    // The ring holds one reference, the dead subscriber another.
    assert_eq!(topic.chunks_in_use(), Some((1, 8)));
    // Publishing through the whole pool many times over works: the dead reference is reclaimed
    // when the pool runs dry (or explicitly).
    for seq in 0..100 {
        let mut loan = p.loan(1024).unwrap();
        loan.header_mut().seq = seq;
        loan.send().unwrap();
    }
    topic.reclaim_dead();
    assert_eq!(
        topic.chunks_in_use(),
        Some((4, 8)),
        "only the ring's 4 slots hold chunks"
    );
}

#[test]
fn a_topic_left_by_killed_processes_starts_clean() {
    let (d, _g) = domain();
    let mut child = spawn("create_and_die", d, &[]);
    child.wait_line("READY");
    child.kill9();
    // Same name, different type: the stale segment is reclaimed, not a type mismatch.
    let t = Topic::<CmdVel>::builder("stress/fixed")
        .domain(d)
        .open()
        .unwrap();
    let mut s = t.subscriber_with_history(16).unwrap();
    assert_eq!(
        s.try_recv().unwrap(),
        None,
        "no message survives from the dead run"
    );
    let report = nerve::registry::clean(d).unwrap();
    assert_eq!(report.kept, 1);
}

#[test]
fn garbage_and_lying_segments_are_rejected_never_followed() {
    let (d, _g) = domain();
    let dir = nerve::registry::domain_dir(d);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad%garbage.topic");
    let garbage: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(&path, &garbage).unwrap();
    let err = Topic::<CmdVel>::builder("bad/garbage")
        .domain(d)
        .open()
        .err()
        .expect("garbage accepted");
    let text = err.to_string();
    assert!(
        matches!(err, OpenError::Corrupt { .. })
            && text.contains("bad/garbage")
            && text.contains("nerve clean"),
        "{text}"
    );

    // A real segment whose header then lies: every variant is rejected (or, when the lie is
    // self-consistent, used safely), never a crash.
    let good = Topic::<CmdVel>::builder("bad/lying")
        .domain(d)
        .open()
        .unwrap();
    let file = dir.join("bad%lying.topic");
    let original = std::fs::read(&file).unwrap();
    drop(good);
    // (offset, value) pairs: total_size, capacity, slot_stride, slots_offset, pool_offset,
    // max_endpoints, type name length.
    let lies: &[(usize, u64)] = &[
        (16, 1 << 40),
        (156, 0),
        (156, 3),
        (156, 1 << 30),
        (168, 8),
        (176, u64::MAX),
        (176, 64),
        (184, 4096),
        (172, 0),
        (152, 200),
    ];
    for &(off, value) in lies {
        let mut bytes = original.clone();
        let width = if matches!(off, 16 | 176 | 184) { 8 } else { 4 };
        bytes[off..off + width].copy_from_slice(&value.to_le_bytes()[..width]);
        std::fs::write(&file, &bytes).unwrap();
        match Topic::<CmdVel>::builder("bad/lying").domain(d).open() {
            Err(e) => assert!(e.to_string().contains("bad/lying"), "{e}"),
            Ok(t) => {
                let p = t.publisher().unwrap();
                let mut s = t.subscriber().unwrap();
                p.send(&CmdVel::default()).unwrap();
                let _ = s.try_recv();
            }
        }
        let _ = std::fs::remove_file(&file);
    }
    let report = nerve::registry::clean(d).unwrap();
    assert_eq!(report.corrupt.len(), 1, "{report:?}");
}

/// After an upgrade, segments of the old layout version are rebuilt on open when nobody uses
/// them any more, and named with their live users when somebody still does.
#[test]
fn a_segment_of_another_layout_version_is_rebuilt_when_its_users_are_gone() {
    let (d, _g) = domain();
    let dir = nerve::registry::domain_dir(d);
    let file = dir.join("old%layout.topic");
    let t = Topic::<CmdVel>::builder("old/layout")
        .domain(d)
        .open()
        .unwrap();
    let _p = t.publisher().unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    drop((_p, t));
    // The header's `version` (u32 at offset 8) says another layout; records of layouts
    // before 5 name their process by pid + start time (field 22 of /proc/<pid>/stat).
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let start: u64 = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .parse()
        .unwrap();
    for rec in bytes[4096..8192].chunks_mut(64) {
        if rec[..4] != [0; 4] {
            rec[8..16].copy_from_slice(&start.to_le_bytes());
        }
    }

    // Still used: its endpoint records name this (live) process.
    std::fs::write(&file, &bytes).unwrap();
    let err = Topic::<CmdVel>::builder("old/layout")
        .domain(d)
        .open()
        .err()
        .expect("a live user of an old layout must not be overwritten");
    let text = err.to_string();
    assert!(
        text.contains("old/layout")
            && text.contains("layout version 1")
            && text.contains(&std::process::id().to_string()),
        "{text}"
    );

    // Nobody left (every endpoint record free): rebuilt, and it works.
    for rec in bytes[4096..8192].chunks_mut(64) {
        rec[..4].copy_from_slice(&0u32.to_le_bytes());
    }
    std::fs::write(&file, &bytes).unwrap();
    let t = Topic::<CmdVel>::builder("old/layout")
        .domain(d)
        .open()
        .expect("a dead old-layout segment is rebuilt");
    let p = t.publisher().unwrap();
    let mut s = t.subscriber().unwrap();
    p.send(&CmdVel::default()).unwrap();
    assert_eq!(s.try_recv().unwrap(), Some(CmdVel::default()));
}
