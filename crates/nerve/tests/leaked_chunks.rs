//! A regression test: found by `nerve-bench soak` (2:2 blob reliable, `--kill-every 5..50 --seed 11`): after a
//! few dozen kills every loan failed with `PoolExhausted`, the pool's 24 chunks stayed in use
//! after every process had left and the dead were reclaimed, and the topic hung for good.
//!
//! `PubCore::send_chunk` gives the loan's reference to the ring (`Pool::disown`: the
//! endpoint's bit is cleared) *before* `publish` claims a slot, and on a reliable topic that
//! claim waits for room for up to the publisher's timeout. A publisher killed while it waits
//! holds a reference that no endpoint bitmap records and no ring slot carries: nothing ever
//! releases it. Each such kill leaks one chunk; after `chunks − depth` of them the pool is
//! empty for every process, for the life of the segment. (The documented leak "killed between
//! two steps of the pool" is a window of a few instructions; this one is as long as a
//! reliable publisher waits, which is where a busy reliable publisher spends its time.)
//!
//! Fixed: a chunk's reference passes to the ring only once a slot is claimed (`PubCore::fill`), so a publisher killed while it waits for room still holds the reference in its bitmap, and the reclaim of its endpoint releases it.

use std::time::Duration;

use nerve::Topic;
use nerve_testing::domain;
use nerve_testing::process::{self, env_u64, ChildGuard};

/// Sequence.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "bench-test/Blob", chunked(elem = u8, message = Blob, doc = "Bytes in a chunk."), default = "zeroed")]
#[repr(C)]
pub struct BlobHeader {
    /// Sequence.
    pub seq: u64,
}

/// Ring depth; the pool has two chunks more.
const DEPTH: u32 = 4;
const CHUNKS: u32 = DEPTH + 2;

fn open(domain: u32) -> Topic<Blob> {
    Topic::<Blob>::builder("bug/chunks")
        .domain(domain)
        .depth(DEPTH)
        .chunks(CHUNKS)
        .max_message_bytes(4096)
        .reliable()
        .open()
        .unwrap()
}

/// Child roles: a publisher that takes a loan and either sends it (blocking: the ring is full)
/// or just holds it, and waits to be killed.
#[test]
fn child_entry() {
    let Some(role) = process::role() else {
        return;
    };
    let topic = open(env_u64("NERVE_DOMAIN") as u32);
    let mut p = topic.publisher().unwrap();
    p.set_timeout(Duration::from_secs(600));
    let mut loan = p.loan(1024).unwrap();
    loan.header_mut().seq = 99;
    match role.as_str() {
        "send_blocked" => {
            println!("SENDING");
            let _ = loan.send();
            println!("SENT");
        }
        "hold_loan" => {
            println!("HOLDING");
            std::thread::sleep(Duration::from_secs(600));
            drop(loan);
        }
        other => panic!("unknown role {other}"),
    }
    std::thread::sleep(Duration::from_secs(600));
}

/// A reliable blob topic whose ring is full (its subscriber never reads), then `kills`
/// publisher processes in `role` killed at their ready line. Returns the chunks in use after
/// the dead were reclaimed, and whether a new loan succeeds.
fn scenario(role: &str, ready: &str, kills: u32) -> ((u32, u32), bool) {
    let (d, _g) = domain();
    let topic = open(d);
    let _s = topic.subscriber().unwrap();
    let p = topic.publisher().unwrap();
    for seq in 0..u64::from(DEPTH) {
        let mut l = p.loan(16).unwrap();
        l.header_mut().seq = seq;
        l.send().unwrap();
    }
    for _ in 0..kills {
        let mut c: ChildGuard = process::spawn_self("child_entry", role, d, &[]);
        c.wait_line(ready);
        // Let a sender reach the wait for room.
        std::thread::sleep(Duration::from_millis(200));
        c.kill9();
    }
    topic.reclaim_dead();
    let in_use = topic.chunks_in_use().unwrap();
    let loan_ok = p.loan(16).is_ok();
    eprintln!("{role}: after {kills} kills and reclaim_dead, chunks in use {in_use:?}, a new loan succeeds: {loan_ok}");
    (in_use, loan_ok)
}

#[test]
fn control_a_publisher_killed_holding_a_loan_gives_its_chunk_back() {
    let (in_use, loan_ok) = scenario("hold_loan", "HOLDING", 2);
    assert_eq!(in_use, (DEPTH, CHUNKS), "only the ring's chunks");
    assert!(loan_ok);
}

#[test]
fn a_publisher_killed_waiting_for_room_gives_its_chunk_back() {
    let (in_use, loan_ok) = scenario("send_blocked", "SENDING", 2);
    assert_eq!(
        (in_use, loan_ok),
        ((DEPTH, CHUNKS), true),
        "chunks leaked by publishers killed inside a blocked send: the pool is exhausted for good"
    );
}
