//! A Rust peer for the Python tests: `py_peer echo IN OUT N` receives N CmdVel on IN and
//! re-publishes each (stamp + 1000) on OUT; `py_peer publish OUT N` publishes N CmdVel after
//! waiting for a subscriber. Domain from `$NERVE_DOMAIN`.
use std::time::{Duration, Instant};

use nerve::prelude::*;

fn wait_for_subscriber(topic: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let list = nerve::registry::list(nerve::default_domain());
        if list.iter().any(|t| t.name == topic && t.subscribers() > 0) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no subscriber on {topic}");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("echo") => {
            let (input, output, n): (&str, &str, u64) = (&args[2], &args[3], args[4].parse()?);
            let t_in = Topic::<CmdVel>::open(input)?;
            let mut sub = t_in.subscriber()?;
            let t_out = Topic::<CmdVel>::open(output)?;
            let publisher = t_out.publisher()?;
            println!("ready");
            for _ in 0..n {
                let m = sub.recv_deadline(Duration::from_secs(10))?;
                publisher.send(&CmdVel {
                    stamp_ns: m.stamp_ns + 1000,
                    ..m
                })?;
            }
        }
        Some("publish") => {
            let (output, n): (&str, u64) = (&args[2], args[3].parse()?);
            let t = Topic::<CmdVel>::builder(output).depth(64).open()?;
            let publisher = t.publisher()?;
            wait_for_subscriber(output);
            for i in 0..n {
                publisher.send(&CmdVel {
                    stamp_ns: i,
                    linear: i as f32 * 0.5,
                    angular: -1.0,
                })?;
            }
        }
        _ => return Err("usage: py_peer echo IN OUT N | py_peer publish OUT N".into()),
    }
    Ok(())
}
