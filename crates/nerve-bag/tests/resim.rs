//! Deterministic re-simulation: a recording replayed into the scheduler's simulated clock
//! drives an estimator to bit-identical outputs on every replay, equal to the same estimator
//! fed the live messages in order.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::exec::{Context, Node, Scheduler, SimClock};
use nerve::msgs::{Header, Imu};
use nerve::prelude::*;
use nerve_bag::record::{RecordOptions, Recorder, Selection};
use nerve_bag::sim::ReplayNode;
use nerve_testing::domain;

/// Integrates yaw rate over the Imu stamps; hashes every estimate (FNV-1a over the bits).
#[derive(Default)]
struct Estimate {
    yaw: f64,
    last_stamp: Option<u64>,
    hash: u64,
    seen: usize,
}

impl Estimate {
    fn update(&mut self, m: &Imu) {
        if let Some(last) = self.last_stamp {
            let dt = (m.header.stamp_ns - last) as f64 * 1e-9;
            self.yaw += m.angular_velocity.z * dt + 0.5 * m.linear_acceleration.x * dt * dt;
        }
        self.last_stamp = Some(m.header.stamp_ns);
        if self.hash == 0 {
            self.hash = 0xcbf2_9ce4_8422_2325;
        }
        for b in self.yaw.to_bits().to_le_bytes() {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        self.seen += 1;
    }
}

struct Estimator {
    sub: Subscriber<Imu>,
    out: Arc<Mutex<Estimate>>,
}

impl Node for Estimator {
    fn name(&self) -> &str {
        "estimator"
    }
    fn tick(&mut self, _: &mut Context<'_>) {
        while let Ok(Some(m)) = self.sub.try_recv() {
            self.out.lock().unwrap().update(&m);
        }
    }
}

/// Replays `path` into a fresh domain under a deterministic scheduler; the estimate.
fn replay(path: &Path) -> (u64, usize) {
    let (d, _g) = domain();
    let sub = Topic::<Imu>::builder("sim/imu")
        .domain(d)
        .depth(1024)
        .open()
        .unwrap()
        .subscriber()
        .unwrap();
    let replay = ReplayNode::open(path, d, &[]).unwrap();
    let length = replay.length();
    let out = Arc::new(Mutex::new(Estimate::default()));
    let mut s = Scheduler::builder()
        .deterministic(SimClock::new())
        .announce(false)
        .print_stats(false)
        .node(replay)
        .rate(1000.0)
        .order(0)
        .done()
        .node(Estimator {
            sub,
            out: out.clone(),
        })
        .rate(200.0)
        .order(1)
        .done()
        .build()
        .unwrap();
    s.run_for(length + Duration::from_millis(20)).unwrap();
    let e = out.lock().unwrap();
    (e.hash, e.seen)
}

#[test]
fn replays_are_bit_identical_and_equal_the_live_inputs() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-resim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("live.mcap");
    let publisher = Topic::<Imu>::builder("sim/imu")
        .domain(d)
        .depth(256)
        .open()
        .unwrap()
        .publisher()
        .unwrap();
    let mut rec = Recorder::start(RecordOptions {
        domain: d,
        selection: Selection::Topics(vec!["sim/imu".into()]),
        output: path.clone(),
        compression: None,
        split_bytes: None,
        split_duration: None,
        native: false,
    })
    .unwrap();
    // The live run: 300 Imu at about 500 Hz, irregular values; the live estimate from them.
    let mut live = Estimate::default();
    let start = Instant::now();
    for i in 0..300u64 {
        let mut m = Imu {
            header: Header::new(1_000_000 + i * 2_000_000 + (i * i) % 7_000, i, "imu").unwrap(),
            ..Default::default()
        };
        m.angular_velocity.z = ((i * 37) % 101) as f64 / 17.0 - 2.5;
        m.linear_acceleration.x = ((i * 13) % 29) as f64 * 0.01;
        publisher.send(&m).unwrap();
        live.update(&m);
        rec.poll().unwrap();
        let next = start + Duration::from_micros(2_000 * (i + 1));
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let stats = rec.finish().unwrap();
    assert_eq!((stats.messages, stats.lost), (300, 0));

    let first = replay(&path);
    let second = replay(&path);
    assert_eq!(first.1, 300, "every message replayed and estimated");
    assert_eq!(first, second, "two replays hash equal");
    assert_eq!(first, (live.hash, live.seen), "and equal the live run");
    let _ = std::fs::remove_dir_all(&dir);
}
