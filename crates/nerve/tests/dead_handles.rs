//! A regression test: found by `nerve-bench soak` (3:3 fixed best-effort, `--kill-every 1..10`): after enough
//! processes of a topic were `kill -9`ed, every new process fails to open it with
//! `OpenError::TooManyEndpoints` ("64 in use") although most records belong to dead
//! processes.
//!
//! Every opener first claims an `ENDPOINT_HANDLE` record (`segment::open_or_create`), and that
//! claim gives up when the table is full without reclaiming the records of dead processes —
//! only the publisher/subscriber claim after it does (`Shared::claim_endpoint`). A best-effort
//! topic has nobody else who reclaims (no blocked reliable publisher, no dry pool), so once the
//! table is full of the dead, the topic can no longer be joined by any process while one of
//! its users lives (`nerve clean` keeps a segment with live users).
//!
//! Fixed: the handle claim reclaims the records of dead processes (and the chunks they held) before it gives up (`segment::open_or_create`, through `Ring::reclaim_dead`, the one reclaim both layers use).

use std::time::Duration;

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

/// Endpoint records in the test topic: small, so a few kills fill it.
const RECORDS: u32 = 8;

fn open(domain: u32) -> Result<Topic<Tick>, nerve::OpenError> {
    Topic::<Tick>::builder("bug/handles")
        .domain(domain)
        .depth(16)
        .max_endpoints(RECORDS)
        .open()
}

/// Child role: opens the topic, makes a publisher, sends one message, waits to be killed.
#[test]
fn child_entry() {
    let Some(role) = process::role() else {
        return;
    };
    assert_eq!(role, "publisher");
    let topic = open(env_u64("NERVE_DOMAIN") as u32).unwrap();
    let p = topic.publisher().unwrap();
    p.send(&Tick { seq: 0, sender: 1 }).unwrap();
    println!("READY");
    std::thread::sleep(Duration::from_secs(600));
}

/// A topic whose records are held by this process (a handle and a subscriber) and by
/// `dead` killed processes (a handle and a publisher each).
/// The guard comes first: it is dropped last, after the topic (whose drop would otherwise
/// recreate the removed directory's lock file).
fn table_of_the_dead(
    dead: u32,
) -> (
    nerve_testing::DomainGuard,
    Topic<Tick>,
    nerve::Subscriber<Tick>,
) {
    let (d, g) = domain();
    let topic = open(d).unwrap();
    let s = topic.subscriber().unwrap();
    for _ in 0..dead {
        let mut c: ChildGuard = process::spawn_self("child_entry", "publisher", d, &[]);
        c.wait_line("READY");
        c.kill9();
    }
    let live = nerve::registry::list(d)[0]
        .endpoints
        .iter()
        .filter(|e| e.alive)
        .count();
    assert_eq!(live, 1, "only our subscriber is alive");
    (g, topic, s)
}

#[test]
fn control_the_dead_are_reclaimed_before_a_new_open() {
    let (g, topic, _s) = table_of_the_dead((RECORDS - 2) / 2);
    assert_eq!(topic.reclaim_dead(), (RECORDS - 2) as usize);
    open(g.0).expect("after reclaim_dead the records are free");
}

#[test]
fn a_table_full_of_dead_records_still_lets_a_new_process_open_the_topic() {
    let (g, topic, _s) = table_of_the_dead((RECORDS - 2) / 2);
    // 2 records ours, 6 of 3 dead processes: the table is full, mostly of the dead.
    let opened = open(g.0);
    assert!(
        opened.is_ok(),
        "open failed although {} of {RECORDS} records belong to dead processes: {}",
        RECORDS - 2,
        opened.err().map(|e| e.to_string()).unwrap_or_default()
    );
    drop(topic);
}
