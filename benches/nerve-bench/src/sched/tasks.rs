//! (e) rclcpp_async's table: N concurrent tasks sleeping 1/10/100 ms, single and repeated
//! fire, nerve's timer against tokio's.

use std::time::{Duration, Instant};

use nerve_exec::aio::{self, Executor};

use super::{error_row, row, with_samples};
use crate::report::Row;

/// nerve's timer ([`aio::sleep`]) and tokio's (`tokio::time::sleep`, 1 ms wheel) in
/// alternating iterations. The clock starts before the first task is spawned and stops when
/// the last one has been joined, as in rclcpp_async's `bench_concurrent`.
pub(super) fn tasks(quick: bool) -> Vec<Row> {
    let metric = "tasks_wall_ns";
    let iters = if quick { 5 } else { 10 };
    let mut rows = Vec::new();
    let ex = match Executor::builder().build() {
        Ok(e) => e,
        Err(e) => return vec![error_row("async-sleep", metric, e)],
    };
    for &n in &[100u64, 500, 1000, 5000] {
        for &ms in &[1u64, 10, 100] {
            for &repeats in &[1u64, 3] {
                if quick && ms == 100 && n != 5000 {
                    continue;
                }
                // [nerve timer, tokio timer]
                let mut walls: [Vec<f64>; 2] = Default::default();
                for _ in 0..iters {
                    for (v, walls) in walls.iter_mut().enumerate() {
                        let tokio_timer = v == 1;
                        let t = Instant::now();
                        ex.block_on(async {
                            let hs: Vec<_> = (0..n)
                                .map(|_| {
                                    aio::spawn(async move {
                                        for _ in 0..repeats {
                                            let d = Duration::from_millis(ms);
                                            if tokio_timer {
                                                tokio::time::sleep(d).await;
                                            } else {
                                                aio::sleep(d).await;
                                            }
                                        }
                                    })
                                })
                                .collect();
                            for h in hs {
                                let _ = h.await;
                            }
                        });
                        walls.push(t.elapsed().as_nanos() as f64);
                    }
                }
                for (v, walls) in walls.iter_mut().enumerate() {
                    let (message, timer) = if v == 0 {
                        ("async-sleep", "nerve timer (aio::sleep, ns deadlines)")
                    } else {
                        ("async-sleep-tokio-timer", "tokio::time::sleep (1 ms wheel)")
                    };
                    let r = row(message, metric, "same-thread", &format!("1:{n}"));
                    rows.push(
                        with_samples(r, walls)
                            .field("tasks", n)
                            .field("sleep_ms", ms)
                            .field("repeats", repeats)
                            .field(
                                "note",
                                format!(
                                    "wall time from before spawning N tasks to the last one joined, \
                                     current-thread tokio executor, {timer}; repeats > 1: each task \
                                     sleeps that many times in sequence; {iters} iterations, \
                                     alternating timers"
                                ),
                            ),
                    );
                }
            }
        }
    }
    rows
}
