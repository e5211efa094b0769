//! Cost of `send` with no subscriber, and with a subscriber that never reads (best effort).
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use std::time::Instant;

fn main() {
    let n: u64 = 20_000_000;
    let topic = Topic::<CmdVel>::builder("stream/send_cost")
        .domain(9_998)
        .depth(1024)
        .open()
        .unwrap();
    let p = topic.publisher().unwrap();
    for round in 0..3 {
        let start = Instant::now();
        for i in 0..n {
            p.send(&CmdVel {
                stamp_ns: i,
                linear: 0.0,
                angular: 0.0,
            })
            .unwrap();
        }
        let e = start.elapsed();
        println!(
            "round {round}: {:.1} ns/send ({:.1} M/s)",
            e.as_nanos() as f64 / n as f64,
            n as f64 / e.as_secs_f64() / 1e6
        );
    }
}
