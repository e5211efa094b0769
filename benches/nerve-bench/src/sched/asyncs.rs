//! (f) rclcpp_async's single-operation tables: sleep overhead (a thread's sleep, a scheduler
//! node's timer callback, an `aio` coroutine, tokio's timer), publish-to-receive in one
//! process (an event node's callback, an `aio::subscribe` stream, a blocking receive), and a
//! service round trip (blocking `call`, `call_async` awaited).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::msgs::CmdVel;
use nerve::rpc::Service;
use nerve::time::now_ns;
use nerve::Topic;
use nerve_exec::aio::{self, Executor, StreamExt};
use nerve_exec::{Context, ExecClass, Inbox, Node, Scheduler, TopicSource};

use super::{error_row, row, with_samples};
use crate::report::Row;

/// The sleep durations of the seed, in ms.
const SLEEPS_MS: [u64; 5] = [1, 5, 10, 50, 100];

/// The ways to wait, in round order: (message, what it is).
const WAYS: [(&str, &str); 4] = [
    ("sleep-thread", "std::thread::sleep"),
    (
        "sleep-callback",
        "a scheduler node at 1/d Hz (compute lane): tick start - planned start",
    ),
    ("sleep-coroutine", "aio::sleep(d).await on nerve's executor"),
    ("sleep-tokio", "tokio::time::sleep(d).await (1 ms wheel)"),
];

/// `n` overheads (measured - requested, ns) of one way of waiting `ms`.
fn overheads(way: usize, ms: u64, n: usize, ex: &Executor) -> Result<Vec<f64>, String> {
    let d = Duration::from_millis(ms);
    let mut out = Vec::with_capacity(n);
    match way {
        0 => {
            for _ in 0..n {
                let t = Instant::now();
                std::thread::sleep(d);
                out.push(t.elapsed().saturating_sub(d).as_nanos() as f64);
            }
        }
        1 => {
            let got = Arc::new(Mutex::new(Vec::new()));
            let mut s = Scheduler::builder()
                .print_stats(false)
                .handle_signals(false)
                .lock_memory(false)
                .announce(false)
                .node(super::Timed {
                    name: "late".into(),
                    late: got.clone(),
                    work: Duration::ZERO,
                })
                .rate(1000.0 / ms as f64)
                .done()
                .build()
                .map_err(|e| e.to_string())?;
            // n ticks: the first at the start, then one per period.
            s.run_for(d * n as u32 - d / 2).map_err(|e| e.to_string())?;
            out = nerve::sys::lock(&got).clone();
            // The first tick is planned at the start itself: it measures the start-up.
            if out.len() > 1 {
                out.remove(0);
            }
        }
        _ => {
            let tokio_timer = way == 3;
            ex.block_on(async {
                for _ in 0..n {
                    let t = Instant::now();
                    if tokio_timer {
                        tokio::time::sleep(d).await;
                    } else {
                        aio::sleep(d).await;
                    }
                    out.push(t.elapsed().saturating_sub(d).as_nanos() as f64);
                }
            });
        }
    }
    Ok(out)
}

/// Sleep overhead: measured - requested, per duration and way, the ways interleaved.
fn sleep_overhead(quick: bool, ex: &Executor) -> Vec<Row> {
    let metric = "sleep_overhead_ns";
    // Per round and way: this many sleeps of each duration.
    let (rounds, per) = if quick { (2, 3) } else { (5, 10) };
    let mut rows = Vec::new();
    for ms in SLEEPS_MS {
        let mut samples: [Vec<f64>; 4] = Default::default();
        let mut errors: [Option<String>; 4] = Default::default();
        for _ in 0..rounds {
            for way in 0..WAYS.len() {
                match overheads(way, ms, per, ex) {
                    Ok(mut v) => samples[way].append(&mut v),
                    Err(e) => errors[way] = Some(e),
                }
            }
        }
        for (way, (message, what)) in WAYS.iter().enumerate() {
            let r = row(message, metric, "same-thread", "1:1")
                .field("sleep_ms", ms)
                .field(
                    "note",
                    format!("{what}; overhead = measured - requested; {rounds} rounds of {per}, ways interleaved"),
                );
            rows.push(match &errors[way] {
                Some(e) => r.error(e.clone()),
                None => with_samples(r, &mut samples[way]),
            });
        }
    }
    rows
}

/// An event node that records publish-to-tick latency of every message in its inbox.
struct OnMessage {
    inbox: Inbox<CmdVel>,
    got: Arc<Mutex<Vec<f64>>>,
}

impl Node for OnMessage {
    fn name(&self) -> &str {
        "on-message"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let now = now_ns();
        let mut got = nerve::sys::lock(&self.got);
        for m in self.inbox.drain() {
            got.push(now.saturating_sub(m.stamp_ns) as f64);
        }
    }
}

/// Publishes `n` stamped CmdVels on `topic`, one per millisecond, from another thread; sets
/// `done` at the end.
fn publish_stamped(topic: &Topic<CmdVel>, n: usize) -> anyhow::Result<std::thread::JoinHandle<()>> {
    let publisher = topic.publisher()?;
    Ok(std::thread::spawn(move || {
        // Let the receiving side start waiting.
        std::thread::sleep(Duration::from_millis(20));
        for _ in 0..n {
            let m = CmdVel {
                stamp_ns: now_ns(),
                ..Default::default()
            };
            let _ = publisher.send(&m);
            std::thread::sleep(Duration::from_millis(1));
        }
    }))
}

/// Publish-to-receive in one process: `n` messages, one way of receiving.
fn pubsub_once(way: usize, n: usize, ex: &Executor) -> anyhow::Result<Vec<f64>> {
    static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let name = format!(
        "bench/async-pubsub/{}-{}",
        std::process::id(),
        // Relaxed: only makes each name unique; nothing is published through it.
        COUNT.fetch_add(1, Ordering::Relaxed)
    );
    let topic = Topic::<CmdVel>::builder(&name)
        .depth(64)
        .in_process()
        .open()?;
    let mut sub = topic.subscriber()?;
    let got = Arc::new(Mutex::new(Vec::with_capacity(n)));
    match way {
        0 => {
            let (source, inbox) = TopicSource::new(sub, 64);
            let mut s = Scheduler::builder()
                .print_stats(false)
                .handle_signals(false)
                .lock_memory(false)
                .announce(false)
                .node(OnMessage {
                    inbox,
                    got: got.clone(),
                })
                .class(ExecClass::Event)
                .wake_on(source)
                .done()
                .build()?;
            let handle = s.handle();
            let p = publish_stamped(&topic, n)?;
            let stopper = std::thread::spawn(move || {
                let _ = p.join();
                std::thread::sleep(Duration::from_millis(20));
                handle.stop();
            });
            s.run()?;
            let _ = stopper.join();
        }
        1 => {
            let p = publish_stamped(&topic, n)?;
            let mut stream = aio::subscribe(sub, 64);
            let g = got.clone();
            ex.block_on(async move {
                for _ in 0..n {
                    let Ok(Some(m)) =
                        tokio::time::timeout(Duration::from_secs(2), stream.next()).await
                    else {
                        break;
                    };
                    let now = now_ns();
                    nerve::sys::lock(&g).push(now.saturating_sub(m.stamp_ns) as f64);
                }
            });
            let _ = p.join();
        }
        _ => {
            let p = publish_stamped(&topic, n)?;
            for _ in 0..n {
                let Some(m) = sub.recv_timeout(Duration::from_secs(2))? else {
                    break;
                };
                let now = now_ns();
                nerve::sys::lock(&got).push(now.saturating_sub(m.stamp_ns) as f64);
            }
            let _ = p.join();
        }
    }
    let v = nerve::sys::lock(&got).clone();
    if v.len() < n {
        anyhow::bail!("{} of {n} messages received", v.len());
    }
    Ok(v)
}

/// Service round trips in one process: blocking `call` and awaited `call_async`, alternating.
fn service_rows(quick: bool, ex: &Executor) -> Vec<Row> {
    let metric = "rtt_ns";
    let (rounds, n) = if quick { (3, 100) } else { (10, 1000) };
    let name = format!("bench/async-svc/{}", std::process::id());
    let svc = Service::<u64, u64>::builder(&name).build();
    let _server = match svc.server().serve(Ok) {
        Ok(s) => s,
        Err(e) => return vec![error_row("service-blocking", metric, e)],
    };
    let client = match svc.client() {
        Ok(c) => c,
        Err(e) => return vec![error_row("service-blocking", metric, e)],
    };
    let timeout = Duration::from_secs(2);
    let mut samples: [Vec<f64>; 2] = Default::default();
    let mut errors: [Option<String>; 2] = Default::default();
    // Warm-up: discovery and first allocations.
    for i in 0..10u64 {
        let _ = client.call(&i, timeout);
    }
    for _ in 0..rounds {
        for i in 0..n as u64 {
            let t = Instant::now();
            match client.call(&i, timeout) {
                Ok(r) if r == i => samples[0].push(t.elapsed().as_nanos() as f64),
                Ok(r) => errors[0] = Some(format!("answer {r} to request {i}")),
                Err(e) => errors[0] = Some(e.to_string()),
            }
        }
        ex.block_on(async {
            for i in 0..n as u64 {
                let t = Instant::now();
                match client.call_async(&i, timeout).await {
                    Ok(r) if r == i => samples[1].push(t.elapsed().as_nanos() as f64),
                    Ok(r) => errors[1] = Some(format!("answer {r} to request {i}")),
                    Err(e) => errors[1] = Some(e.to_string()),
                }
            }
        });
    }
    let ways = [
        ("service-blocking", "client.call(): the calling thread waits"),
        (
            "service-coroutine",
            "client.call_async().await on nerve's executor (the wait runs on tokio's blocking pool)",
        ),
    ];
    ways.iter()
        .enumerate()
        .map(|(k, (message, what))| {
            let r = row(message, metric, "cross-thread", "1:1").field(
                "note",
                format!("u64 request and response, server in this process; {what}; {rounds} rounds of {n}, alternating"),
            );
            match &errors[k] {
                Some(e) => r.error(e.clone()),
                None => with_samples(r, &mut samples[k]),
            }
        })
        .collect()
}

/// The rclcpp_async single-operation tables.
pub(super) fn asyncs(quick: bool) -> Vec<Row> {
    let ex = match Executor::builder().build() {
        Ok(e) => e,
        Err(e) => return vec![error_row("sleep-coroutine", "sleep_overhead_ns", e)],
    };
    let mut rows = sleep_overhead(quick, &ex);
    let metric = "one_way_ns";
    let (rounds, n) = if quick { (2, 50) } else { (5, 100) };
    let ways = [
        (
            "pubsub-callback",
            "an event node woken by a TopicSource (its tick is the callback)",
        ),
        ("pubsub-coroutine", "aio::subscribe(sub).next().await"),
        ("pubsub-blocking", "subscriber.recv_timeout in a thread"),
    ];
    let mut samples: [Vec<f64>; 3] = Default::default();
    let mut errors: [Option<String>; 3] = Default::default();
    for _ in 0..rounds {
        for (way, e) in errors.iter_mut().enumerate() {
            match pubsub_once(way, n, &ex) {
                Ok(mut v) => samples[way].append(&mut v),
                Err(err) => *e = Some(format!("{err:#}")),
            }
        }
    }
    for (k, (message, what)) in ways.iter().enumerate() {
        let r = row(message, metric, "cross-thread", "1:1")
            .field(
                "note",
                format!("CmdVel stamped at send, one per ms from another thread, in-process topic; {what}; {rounds} rounds of {n}"),
            );
        rows.push(match &errors[k] {
            Some(e) => r.error(e.clone()),
            None => with_samples(r, &mut samples[k]),
        });
    }
    rows.extend(service_rows(quick, &ex));
    rows
}
