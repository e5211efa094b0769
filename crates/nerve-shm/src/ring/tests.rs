//! The ring's unit tests: read states, laps, claims and commits on a heap region.

use super::*;
use crate::layout::{Reliability, StoredType, TopicConfig};
use crate::region::{HeapRegion, Region};
use std::sync::Arc;

fn ring(depth: u32, payload: u32) -> (Arc<HeapRegion>, Ring) {
    let cfg = TopicConfig {
        stored_type: StoredType {
            name: "t".into(),
            kind: 1,
            size: payload,
            align: 8,
            elem_size: 0,
            layout_hash: 1,
        },
        reliability: Reliability::BestEffort,
        depth,
        slot_payload: payload,
        max_endpoints: 4,
        pool_len: 0,
        schema: Vec::new(),
    };
    let h = cfg.header(1, 1).unwrap();
    let params = h.validate(h.total_size as usize).unwrap();
    let region = Arc::new(HeapRegion::new(params.total_size));
    // SAFETY: the region is zeroed, as large as the validated layout, and outlives the ring
    // (the Arc is returned alongside).
    let ring = unsafe { Ring::new(region.base(), &params) };
    (region, ring)
}

fn publish(r: &Ring, msg: u64) {
    let n = r.head().fetch_add(1, Relaxed);
    let claim = r.begin_write(n, 0, |_| false);
    assert_ne!(claim.claimed, Claimed::Overtaken);
    r.write(n, &msg.to_le_bytes());
    r.commit(n, claim);
}

#[test]
fn read_states_follow_the_sequence() {
    let (_m, r) = ring(4, 8);
    let mut buf = [0u8; 8];
    assert_eq!(r.read(0, &mut buf), Read::Empty);
    publish(&r, 7);
    assert_eq!(r.read(0, &mut buf), Read::Ok(8));
    assert_eq!(u64::from_le_bytes(buf), 7);
    assert_eq!(r.read(1, &mut buf), Read::Empty);
    for i in 1..=4 {
        publish(&r, i);
    }
    assert_eq!(
        r.read(0, &mut buf),
        Read::Lapped,
        "slot 0 was overwritten by message 4"
    );
    assert_eq!(r.read(4, &mut buf), Read::Ok(8));
    assert_eq!(u64::from_le_bytes(buf), 4);
}

#[test]
#[cfg_attr(miri, ignore = "futex syscalls")]
fn publishing_makes_a_syscall_only_when_someone_waits() {
    let (_m, r) = ring(4, 8);
    let n = r.head().fetch_add(1, Relaxed);
    let claim = r.begin_write(n, 0, |_| false);
    assert!(!claim.wake);
    r.write(n, &[1; 8]);
    assert!(!r.commit(n, claim), "no waiter: no futex wake");
    // A reader waits (briefly) for message 1, which sets WAITER on its slot.
    r.wait(1, std::time::Duration::from_millis(1));
    let n = r.head().fetch_add(1, Relaxed);
    let claim = r.begin_write(n, 0, |_| false);
    assert!(claim.wake, "the claiming CAS sees the sleeper");
    r.write(n, &[2; 8]);
    assert!(r.commit(n, claim), "a registered waiter is woken");
    // A message already there: waiting returns at once.
    let t = std::time::Instant::now();
    r.wait(1, std::time::Duration::from_secs(5));
    assert!(t.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(r.read(1, &mut [0u8; 8]), Read::Ok(8));
}

#[test]
#[cfg_attr(miri, ignore = "futex syscalls")]
fn no_sleeping_on_a_slot_an_older_writer_still_holds() {
    let (_m, r) = ring(2, 8);
    let n = r.head().fetch_add(1, Relaxed);
    let claim = r.begin_write(n, 0, |_| false);
    // A reader already waiting for message 2 (a resynced, lapped reader) finds message 0
    // still being written in that slot: it must not mark it (the plain publishing store
    // would erase the mark and nobody would wake it).
    let t = std::time::Instant::now();
    r.wait(2, std::time::Duration::from_secs(5));
    assert!(
        t.elapsed() < std::time::Duration::from_secs(1),
        "returned at once"
    );
    let (seq, ..) = r.slot(0);
    assert_eq!(seq.load(Relaxed) & WAITER, 0);
    r.write(n, &[0; 8]);
    assert!(!r.commit(n, claim));
}

#[test]
fn waiter_bits_do_not_disturb_readers() {
    let (_m, r) = ring(2, 8);
    publish(&r, 5);
    // A reader waiting for message 2 (same slot as 0) marks the slot while 0 is readable.
    let (seq, ..) = r.slot(0);
    seq.fetch_or(WAITER, Relaxed);
    let mut buf = [0u8; 8];
    assert_eq!(r.read(0, &mut buf), Read::Ok(8));
    assert_eq!(u64::from_le_bytes(buf), 5);
    assert_eq!(r.read(2, &mut buf), Read::Empty);
}

#[test]
fn dead_writer_slot_is_taken_over() {
    let (_m, r) = ring(2, 8);
    let n = r.head().fetch_add(1, Relaxed);
    assert_eq!(r.begin_write(n, 3, |_| false).claimed, Claimed::Fresh);
    // The writer "dies" here. A reader sees the message as being written by endpoint 3.
    assert_eq!(r.read(0, &mut [0u8; 8]), Read::Writing(3));
    // Two messages later another writer needs slot 0 and takes it over once 3 is dead.
    r.head().fetch_add(1, Relaxed);
    assert_eq!(r.begin_write(2, 1, |e| e == 3).claimed, Claimed::TakenOver);
}

/// One writer, two readers on threads; every message is either received intact or counted
/// lost. Runs under miri with a small count.
#[test]
fn concurrent_readers_see_intact_messages_or_count_loss() {
    check_concurrent(Writer::Locked, 64);
}

#[test]
fn the_solo_writer_keeps_messages_intact() {
    // Plain-store claims, with and without reading what the slot held; 16-byte payloads
    // share cache lines (32-byte slots), 64-byte ones do not.
    for payload in [16, 64] {
        check_concurrent(Writer::Solo { inspect: false }, payload);
        check_concurrent(Writer::Solo { inspect: true }, payload);
    }
}

#[derive(Clone, Copy)]
enum Writer {
    Locked,
    Solo { inspect: bool },
}

/// One writer, two readers; every message is `payload` bytes of its index. Readers must
/// see each message whole, in order, or count it lost.
fn check_concurrent(writer: Writer, payload: usize) {
    let (_m, r) = ring(4, payload as u32);
    let r = Arc::new(r);
    let total: u64 = if cfg!(miri) { 200 } else { 200_000 };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let r = r.clone();
            std::thread::spawn(move || {
                let (mut c, mut got, mut lost) = (0u64, 0u64, 0u64);
                let mut buf = vec![0u8; payload];
                while c < total {
                    match r.read(c, &mut buf) {
                        Read::Ok(n) => {
                            assert_eq!(n, payload);
                            let v = u64::from_le_bytes(buf[..8].try_into().unwrap());
                            assert_eq!(v, c, "sequence");
                            assert!(buf.chunks(8).all(|w| w == &buf[..8]), "torn message {c}");
                            got += 1;
                            c += 1;
                        }
                        Read::Lapped => {
                            let head = r.head().load(Relaxed);
                            let next = (head.saturating_sub(r.capacity()) + 1).max(c + 1);
                            lost += next - c;
                            c = next;
                        }
                        Read::Empty | Read::Writing(_) => std::thread::yield_now(),
                    }
                }
                (got, lost)
            })
        })
        .collect();
    let mut msg = vec![0u8; payload];
    for i in 0..total {
        for w in msg.chunks_mut(8) {
            w.copy_from_slice(&i.to_le_bytes());
        }
        match writer {
            Writer::Locked => {
                let n = r.head().fetch_add(1, Relaxed);
                let claim = r.begin_write(n, 0, |_| false);
                r.write(n, &msg);
                r.commit(n, claim);
            }
            Writer::Solo { inspect } => {
                let n = r.head().load(Relaxed);
                r.head().store(n + 1, Relaxed);
                let claim = r.begin_write_solo(n, 0, inspect);
                assert_ne!(claim.claimed, Claimed::Overtaken);
                r.write(n, &msg);
                r.commit_solo(n);
            }
        }
    }
    for h in readers {
        let (got, lost) = h.join().unwrap();
        assert_eq!(got + lost, total);
    }
}
