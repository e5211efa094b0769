//! nerve topics as scheduler inputs: the cross-process e-stop on `nerve/estop`, and event nodes
//! woken by a subscriber.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve_exec::prelude::*;
use nerve_exec::{trigger_remote_estop, EStopMsg, Inbox, TopicSource, ESTOP_TOPIC};
use nerve_testing::process;
use nerve_transport::msgs::CmdVel;
use nerve_transport::Topic;

/// Not a test on its own: the child half of `estop_from_another_process_reaches_every_node`
/// (role `trigger`, on the parent's domain).
#[test]
fn remote_trigger_child() {
    if process::role().is_none() {
        return;
    }
    let d = process::env_u64("NERVE_DOMAIN") as u32;
    trigger_remote_estop(Some(d), "from child").unwrap();
}

#[derive(Default)]
struct Seen {
    safe: AtomicU32,
}

struct Idle(String, Arc<Seen>);

impl Node for Idle {
    fn name(&self) -> &str {
        &self.0
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        self.1.safe.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn estop_from_another_process_reaches_every_node() {
    let (d, _domain) = nerve_testing::domain();
    let seen: Vec<Arc<Seen>> = (0..3).map(|_| Arc::default()).collect();
    let mut b = Scheduler::builder().print_stats(false).estop_topic(Some(d));
    for (i, s) in seen.iter().enumerate() {
        b = b.node(Idle(format!("n{i}"), s.clone())).rate(1.0).done();
    }
    let mut s = b.build().unwrap();
    let h = s.handle();
    let estop = s.estop();
    let t = std::thread::spawn(move || {
        while h.stats()[0].ticks() == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        let child = process::spawn_self("remote_trigger_child", "trigger", d, &[]);
        let (status, out) = child.wait_with_output();
        assert!(status.success(), "{status:?}: {out}");
        let t0 = Instant::now();
        while !estop.is_triggered() && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(50));
        h.stop();
    });
    s.run().unwrap();
    t.join().unwrap();
    let reason = s.estop().reason().unwrap_or_default();
    assert!(reason.contains("from child"), "{reason:?}");
    for (i, x) in seen.iter().enumerate() {
        assert_eq!(x.safe.load(Ordering::SeqCst), 1, "node n{i}");
    }
}

#[test]
fn local_estop_is_published_on_the_topic() {
    let (d, _domain) = nerve_testing::domain();
    let topic = Topic::<EStopMsg>::builder(ESTOP_TOPIC)
        .depth(16)
        .domain(d)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    let seen = Arc::new(Seen::default());
    let mut s = Scheduler::builder()
        .print_stats(false)
        .estop_topic(Some(d))
        .node(Idle("n".into(), seen.clone()))
        .rate(10.0)
        .build()
        .unwrap();
    let (h, e) = (s.handle(), s.estop());
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        e.trigger("local");
        std::thread::sleep(Duration::from_millis(50));
        h.stop();
    });
    s.run().unwrap();
    t.join().unwrap();
    let m = sub
        .recv_timeout(Duration::from_secs(1))
        .unwrap()
        .expect("e-stop published");
    assert_eq!(m.reason(), "local");
    assert_eq!(m.pid, std::process::id());
}

struct Follower {
    inbox: Inbox<CmdVel>,
    got: Arc<Mutex<Vec<f32>>>,
    ticks: Arc<AtomicU32>,
}

impl Node for Follower {
    fn name(&self) -> &str {
        "follower"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        self.ticks.fetch_add(1, Ordering::SeqCst);
        for m in self.inbox.drain() {
            self.got.lock().unwrap().push(m.linear);
        }
    }
}

#[test]
fn event_node_wakes_on_topic_data() {
    let (d, _domain) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("exec/cmd")
        .depth(16)
        .domain(d)
        .open()
        .unwrap();
    let (source, inbox) = TopicSource::new(topic.subscriber().unwrap(), 64);
    let got = Arc::new(Mutex::new(Vec::new()));
    let ticks = Arc::new(AtomicU32::new(0));
    let mut s = Scheduler::builder()
        .print_stats(false)
        .node(Follower {
            inbox,
            got: got.clone(),
            ticks: ticks.clone(),
        })
        .wake_on(source)
        .build()
        .unwrap();
    let h = s.handle();
    let publisher = topic.publisher().unwrap();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        for i in 0..5 {
            publisher
                .send(&CmdVel {
                    stamp_ns: i,
                    linear: i as f32,
                    angular: 0.0,
                })
                .unwrap();
            std::thread::sleep(Duration::from_millis(30));
        }
        h.stop();
    });
    s.run().unwrap();
    t.join().unwrap();
    assert_eq!(*got.lock().unwrap(), [0.0, 1.0, 2.0, 3.0, 4.0]);
    // One tick per message (30 ms apart), no ticks without data.
    assert_eq!(ticks.load(Ordering::SeqCst), 5);
}
