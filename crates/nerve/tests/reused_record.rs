//! A regression test: found while building `nerve-bench soak` (reading the crash-recovery paths it exercises): a
//! message abandoned by a publisher killed mid-write is never skipped once the dead
//! publisher's endpoint record has been reclaimed and taken by a new live publisher (what a
//! restarted publisher does: it claims the lowest free records, which are the dead one's).
//! Readers and writers decide "the writer of this odd slot is gone" from the endpoint index
//! stored in the slot, and that index now names a live process.
//!
//! - `reliable_*`: the subscriber waits at the abandoned message for as long as the new
//!   publisher lives (it should skip it within ~200 ms and count it `dropped`); the publisher
//!   then fills the ring and gets `Full`.
//! - `best_effort_*` (locked claims, as with two publishers): the writer that reaches the
//!   abandoned slot a ring later spins in `Ring::begin_write` forever (`send` never returns,
//!   whatever its timeout), and the subscriber waits with it.
//! - `*_control`: the same without the reclaim; the new publisher gets fresh records and the
//!   abandoned message is skipped as designed.
//!
//! Fixed: a slot names its writer by a tag of record index and record generation (`Ring::writer_tag`); a reclaimed record claimed again has a new generation, so the abandoned slot no longer names a live writer (`Ring::writer_gone`).

use std::time::{Duration, Instant};

use nerve::Topic;
use nerve_testing::domain;
use nerve_testing::process::{self, env_u64, ChildGuard};

/// A numbered message.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "bench-test/Tick", default = "zeroed")]
#[repr(C)]
pub struct Tick {
    /// Sequence.
    pub seq: u64,
    /// Who sent it.
    pub sender: u64,
}

fn open(domain: u32, reliable: bool) -> Topic<Tick> {
    let b = Topic::<Tick>::builder("bug/reused")
        .domain(domain)
        .depth(16);
    if reliable {
        b.reliable()
    } else {
        b.best_effort()
    }
    .open()
    .unwrap()
}

/// Child roles.
#[test]
fn child_entry() {
    let Some(role) = process::role() else {
        return;
    };
    let topic = open(env_u64("NERVE_DOMAIN") as u32, env_u64("RELIABLE") == 1);
    let mut p = topic.publisher().unwrap();
    p.set_timeout(Duration::from_millis(100));
    match role.as_str() {
        // Sends message 0, then claims message 1 and writes half of it: what a publisher
        // killed mid-write leaves behind.
        "stall_writer" => {
            p.send(&Tick { seq: 0, sender: 1 }).unwrap();
            p.__stall_mid_write(&Tick { seq: 1, sender: 1 });
            println!("READY");
            std::thread::sleep(Duration::from_secs(600));
        }
        // A restarted publisher: sends forever, says how far it got.
        "publisher" => {
            println!("READY");
            for seq in 0.. {
                let ok = p.send(&Tick { seq, sender: 2 }).is_ok();
                println!("SENT {seq} {ok}");
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        other => panic!("unknown role {other}"),
    }
}

fn spawn(role: &str, d: u32, reliable: bool, vars: &[(&str, String)]) -> ChildGuard {
    let mut v = vec![("RELIABLE", u64::from(reliable).to_string())];
    v.extend(vars.iter().cloned());
    process::spawn_self("child_entry", role, d, &v)
}

/// What one scenario showed.
struct Seen {
    /// Messages the subscriber got from the new publisher.
    got: usize,
    /// The subscriber's `dropped` + `lost`: the abandoned message, skipped.
    skipped: u64,
    /// Sends the new publisher completed (it prints a line after each).
    sent: usize,
}

/// Kills a publisher mid-write, optionally reclaims its records, starts a new publisher
/// process, and says what happened in the next `wait`.
fn scenario(reliable: bool, reclaim: bool, no_solo: bool, wait: Duration) -> Seen {
    let (d, _g) = domain();
    let topic = open(d, reliable);
    let mut s = topic.subscriber().unwrap();
    let mut stalled = spawn("stall_writer", d, reliable, &[]);
    stalled.wait_line("READY");
    assert_eq!(
        s.recv_timeout(Duration::from_secs(5))
            .unwrap()
            .map(|t| t.seq),
        Some(0)
    );
    stalled.kill9();
    if reclaim {
        // What a blocked reliable publisher does every 100 ms, a dry pool, or a full endpoint
        // table: the dead process's records become free.
        assert!(topic.reclaim_dead() >= 2);
    }
    let vars: Vec<(&str, String)> = if no_solo {
        vec![("NERVE_NO_SOLO", "1".into())]
    } else {
        vec![]
    };
    let mut restarted = spawn("publisher", d, reliable, &vars);
    restarted.wait_line("READY");
    let mut got = 0;
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if let Some(t) = s.recv_timeout(Duration::from_millis(50)).unwrap() {
            assert_eq!(t.sender, 2, "{t:?}");
            got += 1;
        }
    }
    let st = s.stats();
    restarted.signal(libc::SIGKILL);
    let (_, out) = restarted.wait_with_output();
    let sent = out.lines().filter(|l| l.ends_with(" true")).count();
    eprintln!("reliable={reliable} reclaim={reclaim}: subscriber got {got}, {st:?}; the new publisher completed {sent} sends");
    Seen {
        got,
        skipped: st.dropped + st.lost,
        sent,
    }
}

#[test]
fn reliable_control_fresh_records_skip_the_abandoned_message() {
    let r = scenario(true, false, false, Duration::from_secs(2));
    assert!(
        r.skipped == 1 && r.got > 20,
        "got {}, skipped {}",
        r.got,
        r.skipped
    );
}

#[test]
fn reliable_abandoned_message_is_skipped_after_its_record_is_reused() {
    let r = scenario(true, true, false, Duration::from_secs(2));
    assert!(
        r.skipped == 1 && r.got > 20,
        "the subscriber is stuck at the abandoned message: got {}, skipped {}; the new publisher completed {} sends",
        r.got,
        r.skipped,
        r.sent
    );
}

#[test]
fn best_effort_control_fresh_records_skip_the_abandoned_message() {
    let r = scenario(false, false, true, Duration::from_secs(2));
    assert!(
        r.skipped >= 1 && r.got > 20,
        "got {}, skipped {}",
        r.got,
        r.skipped
    );
}

#[test]
fn best_effort_writer_a_ring_later_takes_over_after_the_record_is_reused() {
    let r = scenario(false, true, true, Duration::from_secs(2));
    assert!(
        r.got > 20 && r.sent > 20,
        "the new publisher completed {} sends and is stuck in the next (a ring after the abandoned slot); the subscriber got {}",
        r.sent,
        r.got
    );
}
