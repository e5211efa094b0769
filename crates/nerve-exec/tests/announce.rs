//! Nodes announce themselves: another process sees a running scheduler's nodes with their
//! rate and tick counts, sees them stop, and tells a `kill -9`ed node's record as dead.

use std::time::{Duration, Instant};

use nerve_exec::announce::{nodes, NodeRecord};
use nerve_exec::{Context, Node, Scheduler};
use nerve_testing::domain;
use nerve_testing::process::{self, spawn_self};

struct Idle(&'static str);

impl Node for Idle {
    fn name(&self) -> &str {
        self.0
    }
    fn tick(&mut self, _: &mut Context<'_>) {}
}

/// Child: runs `arm` at 200 Hz and `camera` at 50 Hz until killed.
#[test]
fn child_process() {
    if process::role().is_none() {
        return;
    }
    let mut s = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .node(Idle("arm"))
        .rate(200.0)
        .done()
        .node(Idle("camera"))
        .rate(50.0)
        .done()
        .build()
        .unwrap();
    println!("READY");
    s.run_for(Duration::from_secs(60)).unwrap();
}

fn wait_for(d: u32, what: &str, ok: impl Fn(&[NodeRecord]) -> bool) -> Vec<NodeRecord> {
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        let n = nodes(d);
        if ok(&n) {
            return n;
        }
        assert!(Instant::now() < end, "{what}: {n:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn another_process_sees_the_nodes_and_their_death() {
    let (d, _g) = domain();
    let mut child = spawn_self("child_process", "nodes", d, &[]);
    child.wait_line("READY");
    let seen = wait_for(d, "both nodes announced with ticks", |n| {
        n.len() == 2 && n.iter().all(|r| r.ticks > 0 && r.alive())
    });
    assert_eq!(seen[0].name(), "arm");
    assert_eq!(seen[1].name(), "camera");
    assert_eq!((seen[0].rate_hz, seen[1].rate_hz), (200.0, 50.0));
    assert_eq!(seen[0].pid, child.id());
    // Refreshed about once a second: the tick count grows.
    let before = seen[0].ticks;
    wait_for(d, "the record refreshed", |n| {
        n.first().is_some_and(|r| r.ticks > before + 50)
    });
    child.kill9();
    let gone = wait_for(d, "the killed nodes are dead", |n| {
        n.len() == 2 && n.iter().all(|r| !r.alive())
    });
    for r in &gone {
        assert_eq!((r.pid, r.up), (child.id(), 1), "dead by its pid: {r:?}");
    }
    // Looking again does not make them vanish.
    assert_eq!(nodes(d).len(), 2);
}

#[test]
fn a_stopped_scheduler_takes_its_nodes_down() {
    let (d, _g) = domain();
    let mut s = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .domain(d)
        .node(Idle("brief"))
        .rate(100.0)
        .done()
        .build()
        .unwrap();
    let h = s.handle();
    let t = std::thread::spawn(move || s.run_for(Duration::from_secs(10)));
    wait_for(d, "the node running", |n| n.len() == 1 && n[0].alive());
    h.stop();
    t.join().unwrap().unwrap();
    assert!(
        nodes(d).iter().all(|r| !r.alive()),
        "no running node once the scheduler stopped"
    );
    let mut quiet = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .domain(d)
        .announce(false)
        .node(Idle("quiet"))
        .rate(100.0)
        .done()
        .build()
        .unwrap();
    let h = quiet.handle();
    let t = std::thread::spawn(move || quiet.run_for(Duration::from_millis(500)));
    std::thread::sleep(Duration::from_millis(200));
    assert!(nodes(d).iter().all(|r| r.name() != "quiet"));
    h.stop();
    t.join().unwrap().unwrap();
}
