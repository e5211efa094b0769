//! Streaming throughput between two threads pinned to cores 0 and 1 (a quick check; the
//! benchmark program is `nerve-bench`).
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use std::time::Instant;

fn pin(core: usize) {
    // SAFETY: a zeroed cpu_set_t is valid; we set one bit and apply it to this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

fn main() {
    let reliable = std::env::args().any(|a| a == "--reliable");
    let backoff: u32 = std::env::var("BACKOFF")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let n: u64 = 20_000_000;
    let b = Topic::<CmdVel>::builder("stream/check")
        .domain(9_999)
        .depth(1024);
    let topic = if reliable { b.reliable() } else { b }.open().unwrap();
    let mut sub = topic.subscriber().unwrap();
    let p = topic.publisher().unwrap();
    let t = std::thread::spawn(move || {
        pin(1);
        let (mut got, mut sum) = (0u64, 0u64);
        let start = Instant::now();
        loop {
            if let Some(m) = sub.try_recv().unwrap() {
                got += 1;
                sum = sum.wrapping_add(m.stamp_ns);
                if m.stamp_ns == n - 1 {
                    break;
                }
            } else {
                for _ in 0..backoff {
                    std::hint::spin_loop();
                }
            }
        }
        let s = sub.stats();
        (got, s.lost, sum, start.elapsed())
    });
    pin(0);
    std::thread::sleep(std::time::Duration::from_millis(10));
    let start = Instant::now();
    for i in 0..n {
        p.send(&CmdVel {
            stamp_ns: i,
            linear: 0.0,
            angular: 0.0,
        })
        .unwrap();
    }
    let send = start.elapsed();
    let (got, lost, _sum, rx) = t.join().unwrap();
    println!("reliable={reliable} sent {n} in {send:?} ({:.1} M/s send); received {got} lost {lost} in {rx:?} ({:.1} M/s delivered)", n as f64 / send.as_secs_f64() / 1e6, got as f64 / rx.as_secs_f64() / 1e6);
}
