//! The async API: sleep, intervals as streams, select/join, thousands of tasks.

use std::time::{Duration, Instant};

use nerve_exec::aio::{self, Executor, StreamExt};

#[test]
fn thousands_of_sleeping_tasks_run_concurrently() {
    let ex = Executor::builder().build().unwrap();
    let t = Instant::now();
    let n = ex.block_on(async {
        let tasks: Vec<_> = (0..5000)
            .map(|_| aio::spawn(aio::sleep(Duration::from_millis(20))))
            .collect();
        let mut n = 0;
        for t in tasks {
            t.await.unwrap();
            n += 1;
        }
        n
    });
    let wall = t.elapsed();
    assert_eq!(n, 5000);
    // Sequential sleeping would take 100 s; concurrent ≈ 20 ms plus spawn cost.
    assert!(wall >= Duration::from_millis(20), "{wall:?}");
    assert!(wall < Duration::from_millis(1000), "{wall:?}");
}

#[test]
fn interval_stream_select_and_join() {
    let ex = Executor::builder().worker_threads(1).build().unwrap();
    ex.block_on(async {
        // An interval of 10 ms raced against a 105 ms sleep: about 10 ticks.
        let mut ticks = aio::interval(Duration::from_millis(10));
        let mut stop = std::pin::pin!(aio::sleep(Duration::from_millis(105)));
        let mut n = 0;
        let mut last = None;
        loop {
            aio::select! {
                t = ticks.next() => {
                    let t = t.unwrap();
                    if let Some(prev) = last {
                        // Planned times: exactly one period apart unless a tick was skipped.
                        let d: Duration = t - prev;
                        assert_eq!(d.as_millis() % 10, 0, "{d:?}");
                    }
                    last = Some(t);
                    n += 1;
                }
                _ = &mut stop => break,
            }
        }
        // Real time: a stop that fires late under load lets a tick or two more through.
        assert!((3..=13).contains(&n), "{n} ticks");

        // join!: the first future can only finish because the second runs concurrently.
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        let joined = async {
            aio::join!(async { rx.await.unwrap() }, async {
                aio::sleep(Duration::from_millis(5)).await;
                tx.send(2).unwrap();
                1
            })
        };
        let done = aio::select! {
            r = joined => Some(r),
            _ = aio::sleep(Duration::from_secs(5)) => None,
        };
        assert_eq!(
            done,
            Some((2, 1)),
            "join! did not run its futures concurrently"
        );
    });
}

#[test]
fn subscription_stream_with_select() {
    use nerve_transport::{msgs::CmdVel, Topic};
    let (d, _domain) = nerve_testing::domain();
    let topic = Topic::<CmdVel>::builder("exec/async_cmd")
        .depth(16)
        .domain(d)
        .open()
        .unwrap();
    let mut sub = aio::subscribe(topic.subscriber().unwrap(), 16);
    let publisher = topic.publisher().unwrap();
    let ex = Executor::builder().build().unwrap();
    let got = ex.block_on(async move {
        aio::spawn(async move {
            for i in 0..5 {
                aio::sleep(Duration::from_millis(10)).await;
                publisher
                    .send(&CmdVel {
                        stamp_ns: i,
                        linear: i as f32,
                        angular: 0.0,
                    })
                    .unwrap();
            }
        });
        let mut got = Vec::new();
        let mut timeout = std::pin::pin!(aio::sleep(Duration::from_secs(2)));
        while got.len() < 5 {
            aio::select! {
                m = sub.next() => got.push(m.unwrap().stamp_ns),
                _ = &mut timeout => break,
            }
        }
        got
    });
    assert_eq!(got, [0, 1, 2, 3, 4]);
}

#[test]
fn sleep_is_never_early_and_not_rounded_to_milliseconds() {
    let ex = Executor::builder().build().unwrap();
    let mut took: Vec<Duration> = ex.block_on(async {
        let mut v = Vec::new();
        for _ in 0..40 {
            let t = Instant::now();
            aio::sleep(Duration::from_millis(1)).await;
            v.push(t.elapsed());
        }
        v
    });
    took.sort();
    assert!(took[0] >= Duration::from_millis(1), "early: {:?}", took[0]);
    // A 1 ms wheel (tokio's timer) gives a median near 1.5 ms; nanosecond deadlines a few
    // tens of µs over 1 ms, unless the machine is very busy.
    assert!(
        took[20] < Duration::from_micros(1300),
        "median {:?}",
        took[20]
    );
    // A deadline in the past is ready at once; sleep_until uses the same clock as Instant.
    ex.block_on(async {
        let t = Instant::now();
        aio::sleep_until(t - Duration::from_millis(5)).await;
        aio::sleep_until(t + Duration::from_millis(3)).await;
        assert!(t.elapsed() >= Duration::from_millis(3));
    });
}

#[test]
fn sleeps_still_fire_after_an_earlier_runtime_on_this_thread_ended() {
    // Sleeps registered from tasks are delivered through a per-thread fire task on their
    // runtime; when that runtime is gone, the next runtime on the thread must get a new one.
    for round in 0..3 {
        let ex = Executor::builder().build().unwrap();
        let done = ex.block_on(async {
            let hs: Vec<_> = (0..100)
                .map(|i| {
                    aio::spawn(async move {
                        aio::sleep(Duration::from_micros(200 + i)).await;
                        1u32
                    })
                })
                .collect();
            // Left pending when the executor is dropped below.
            aio::spawn(aio::sleep(Duration::from_secs(30)));
            let mut n = 0;
            for h in hs {
                n += h.await.unwrap();
            }
            n
        });
        assert_eq!(done, 100, "round {round}");
        drop(ex);
    }
    // Multi-thread runtime: tasks move between workers; every sleep still fires.
    let ex = Executor::builder().worker_threads(2).build().unwrap();
    let t = Instant::now();
    let n = ex.block_on(async {
        let hs: Vec<_> = (0..2000)
            .map(|_| aio::spawn(aio::sleep(Duration::from_millis(2))))
            .collect();
        let mut n = 0;
        for h in hs {
            h.await.unwrap();
            n += 1;
        }
        n
    });
    assert_eq!(n, 2000);
    assert!(t.elapsed() >= Duration::from_millis(2));
}

#[test]
fn no_lost_wakeups_under_many_short_sleeps_on_several_workers() {
    // 1000 tasks, each 20 sleeps of 0-500 µs, on 3 workers: registrations, fire tasks and the
    // timer thread all race. A lost wake-up shows as a task that never finishes.
    let ex = Executor::builder().worker_threads(3).build().unwrap();
    let (done, early) = ex.block_on(async {
        let hs: Vec<_> = (0..1000u64)
            .map(|i| {
                aio::spawn(async move {
                    let mut early = 0;
                    let mut x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                    for _ in 0..20 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let d = Duration::from_nanos(x % 500_000);
                        let t = Instant::now();
                        aio::sleep(d).await;
                        if t.elapsed() < d {
                            early += 1;
                        }
                    }
                    early
                })
            })
            .collect();
        let all = async {
            let mut early = 0;
            for h in hs {
                early += h.await.unwrap();
            }
            early
        };
        aio::select! {
            e = all => (true, e),
            _ = tokio::time::sleep(Duration::from_secs(20)) => (false, 0),
        }
    });
    assert!(done, "some sleeps never fired");
    assert_eq!(early, 0, "sleeps ended before their deadline");
}
