//! The single-publisher fast path (plain-store claims, see `nerve-shm/src/ring.rs`): who holds
//! it, how a second publisher or thread revokes it without losing or tearing a message, and
//! that a subscriber sleeping on the futex is always woken by a solo publisher.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use nerve::msgs::CmdVel;
use nerve::prelude::*;

/// A message that says who sent it and which of theirs it is, with a checksum of both.
fn tagged(source: u32, i: u64) -> CmdVel {
    CmdVel {
        stamp_ns: (u64::from(source) << 40) | i,
        linear: i as f32,
        angular: (i as f32) * 0.5 + source as f32,
    }
}

fn untag(m: &CmdVel) -> (u32, u64) {
    let (source, i) = ((m.stamp_ns >> 40) as u32, m.stamp_ns & ((1 << 40) - 1));
    assert_eq!(*m, tagged(source, i), "torn or corrupted message");
    (source, i)
}

/// Receives until `expected` messages came, checking each source's sequence is gapless.
fn receive_all(sub: &mut Subscriber<CmdVel>, expected: u64) -> HashMap<u32, u64> {
    let mut next: HashMap<u32, u64> = HashMap::new();
    for _ in 0..expected {
        let m = sub
            .recv_timeout(Duration::from_secs(10))
            .unwrap()
            .expect("a message within 10 s");
        let (source, i) = untag(&m);
        let want = next.entry(source).or_insert(0);
        assert_eq!(i, *want, "source {source}: message {i} out of order");
        *want += 1;
    }
    assert_eq!(sub.stats().lost, 0);
    next
}

/// Whether this machine allows the fast path; where it does not (no membarrier), the tests
/// still check every message but not which path carried it.
fn solo() -> bool {
    let ok = nerve::solo_publishing_available();
    if !ok {
        eprintln!("membarrier unavailable: checking messages only, publishers use locked claims");
    }
    ok
}

/// A reliable `CmdVel` topic (no message may be lost) of `depth` in domain `d`.
fn reliable_topic(d: u32, name: &str, depth: u32) -> Topic<CmdVel> {
    Topic::<CmdVel>::builder(name)
        .domain(d)
        .depth(depth)
        .reliable()
        .open()
        .unwrap()
}

/// Threads 0 and 1 each call `send(thread, i)` for i in 0..n at the same time; returns what
/// `sub` received, per source, checked by [`receive_all`].
fn two_senders(
    sub: &mut Subscriber<CmdVel>,
    n: u64,
    send: impl Fn(u32, u64) + Send + Sync + 'static,
) -> HashMap<u32, u64> {
    let send = Arc::new(send);
    let threads: Vec<_> = (0..2u32)
        .map(|t| {
            let send = send.clone();
            std::thread::spawn(move || (0..n).for_each(|i| send(t, i)))
        })
        .collect();
    let got = receive_all(sub, 2 * n);
    for t in threads {
        t.join().unwrap();
    }
    got
}

#[test]
fn a_lone_publisher_is_solo_until_a_second_one_appears() {
    for in_process in [false, true] {
        let (d, _g) = nerve_testing::domain();
        let mut b = Topic::<CmdVel>::builder("solo/second").domain(d).depth(256);
        if in_process {
            b = b.in_process();
        }
        let topic = b.open().unwrap();
        let mut sub = topic.subscriber().unwrap();
        let p1 = topic.publisher().unwrap();
        assert_eq!(p1.is_solo(), solo(), "a lone publisher takes the fast path");
        for i in 0..50 {
            p1.send(&tagged(1, i)).unwrap();
        }
        let p2 = topic.publisher().unwrap();
        assert!(
            !p1.is_solo() && !p2.is_solo(),
            "two publishers: locked claims"
        );
        for i in 50..100 {
            p1.send(&tagged(1, i)).unwrap();
        }
        for i in 0..100 {
            p2.send(&tagged(2, i)).unwrap();
        }
        let got = receive_all(&mut sub, 200);
        assert_eq!(got[&1], 100);
        assert_eq!(got[&2], 100);
        drop((p1, p2));
        // Revoked for good while the topic lives.
        assert!(!topic.publisher().unwrap().is_solo());
    }
}

#[test]
fn a_dropped_solo_publisher_hands_the_right_back() {
    let (d, _g) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("solo/handback")
        .domain(d)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    let p1 = topic.publisher().unwrap();
    p1.send(&tagged(1, 0)).unwrap();
    drop(p1);
    let p2 = topic.publisher().unwrap();
    assert_eq!(p2.is_solo(), solo());
    p2.send(&tagged(2, 0)).unwrap();
    let got = receive_all(&mut sub, 2);
    assert_eq!((got[&1], got[&2]), (1, 1));
}

/// A second publisher joins while the first sends flat out: the revocation handshake must
/// let no message be torn, lost or duplicated.
#[test]
fn revoking_under_load_loses_nothing() {
    const N: u64 = 300_000;
    for round in 0..3 {
        let (d, _g) = nerve_testing::domain();
        let topic = reliable_topic(d, "solo/revoke", 1024);
        let mut sub = topic.subscriber().unwrap();
        let p1 = topic.publisher().unwrap();
        assert_eq!(p1.is_solo(), solo());
        let started = Arc::new(Barrier::new(2));
        let first = {
            let started = started.clone();
            std::thread::spawn(move || {
                started.wait();
                for i in 0..N {
                    p1.send(&tagged(1, i)).unwrap();
                }
                p1.is_solo()
            })
        };
        let second = {
            let topic = topic.clone();
            std::thread::spawn(move || {
                started.wait();
                // Join at a different moment each round.
                std::thread::sleep(Duration::from_micros(200 * round));
                let p2 = topic.publisher().unwrap();
                for i in 0..N / 10 {
                    p2.send(&tagged(2, i)).unwrap();
                }
            })
        };
        let got = receive_all(&mut sub, N + N / 10);
        assert!(!first.join().unwrap(), "the first publisher lost the right");
        second.join().unwrap();
        assert_eq!((got[&1], got[&2]), (N, N / 10));
    }
}

/// A typed publisher is `Send`, not `Sync`: handed between threads (here through a mutex, as a
/// scheduler's pool hands a node from thread to thread) it keeps the fast path, and the
/// hand-over's synchronisation is all its plain stores need.
#[test]
fn a_publisher_handed_between_threads_keeps_the_fast_path() {
    const N: u64 = 100_000;
    let (d, _g) = nerve_testing::domain();
    let topic = reliable_topic(d, "solo/handed", 512);
    let mut sub = topic.subscriber().unwrap();
    let p = Arc::new(std::sync::Mutex::new(topic.publisher().unwrap()));
    let sender = p.clone();
    let got = two_senders(&mut sub, N, move |t, i| {
        sender.lock().unwrap().send(&tagged(t, i)).unwrap();
    });
    assert_eq!((got[&0], got[&1]), (N, N));
    assert_eq!(p.lock().unwrap().is_solo(), solo());
}

/// A raw publisher (`Sync`, what Python and C use) sent through from two threads at once:
/// the second thread revokes the right instead of also claiming by plain stores.
#[test]
fn a_raw_publisher_sent_from_two_threads_revokes_the_right() {
    const N: u64 = 200_000;
    let (d, _g) = nerve_testing::domain();
    let topic = reliable_topic(d, "solo/threads", 512);
    let mut sub = topic.subscriber().unwrap();
    let raw = nerve::raw::RawTopic::builder("solo/threads", nerve::raw::stored_type::<CmdVel>())
        .domain(d)
        .open()
        .unwrap();
    let p = Arc::new(raw.publisher().unwrap());
    assert_eq!(p.is_solo(), solo());
    let sender = p.clone();
    let got = two_senders(&mut sub, N, move |t, i| {
        sender
            .send_bytes(bytemuck::bytes_of(&tagged(t, i)))
            .unwrap();
    });
    assert_eq!((got[&0], got[&1]), (N, N));
    assert!(!p.is_solo());
}

/// Ping-pong where both sides sleep on the futex at once (no spin): a wake-up lost between a
/// solo publisher's plain stores and a reader going to sleep would show as a 100 ms stall.
#[test]
fn a_sleeping_subscriber_is_always_woken_by_a_solo_publisher() {
    const ROUNDS: u32 = 3_000;
    let (d, _g) = nerve_testing::domain();
    let open = |name: &str| {
        Topic::<CmdVel>::builder(name)
            .domain(d)
            .depth(16)
            .open()
            .unwrap()
    };
    let (ping, pong) = (open("solo/ping"), open("solo/pong"));
    let mut ping_rx = ping.subscriber().unwrap();
    let mut pong_rx = pong.subscriber().unwrap();
    ping_rx.set_spin(Duration::ZERO);
    pong_rx.set_spin(Duration::ZERO);
    let (ping_tx, pong_tx) = (ping.publisher().unwrap(), pong.publisher().unwrap());
    assert_eq!(ping_tx.is_solo() && pong_tx.is_solo(), solo());
    let done = Arc::new(AtomicBool::new(false));
    let echo = {
        let done = done.clone();
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Some(m) = ping_rx.recv_timeout(Duration::from_millis(500)).unwrap() {
                    pong_tx.send(&m).unwrap();
                }
            }
        })
    };
    let mut worst = Duration::ZERO;
    for i in 0..u64::from(ROUNDS) {
        let t = Instant::now();
        ping_tx.send(&tagged(0, i)).unwrap();
        let m = pong_rx
            .recv_timeout(Duration::from_secs(5))
            .unwrap()
            .expect("echo within 5 s");
        assert_eq!(untag(&m), (0, i));
        worst = worst.max(t.elapsed());
    }
    done.store(true, Ordering::Relaxed);
    echo.join().unwrap();
    assert!(
        worst < Duration::from_millis(50),
        "a round trip took {worst:?}: a wake-up was lost"
    );
}
