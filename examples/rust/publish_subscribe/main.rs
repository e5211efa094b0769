//! publish_subscribe: one process publishes robot velocity commands, another receives them,
//! through shared memory with no broker.
//!
//! ```sh
//! cargo run -p nerve-examples --bin publish_subscribe
//! ```
//!
//! The program runs twice: as the publisher (no argument) and, started by it, as the
//! subscriber (`listen`). Both open the topic `robot/cmd_vel` by name; the first one creates
//! its segment in `/dev/shm`, the second joins it.
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use nerve::msgs::CmdVel;
use nerve::prelude::*;

const COUNT: u64 = 100;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some("listen") {
        return listen();
    }
    // Both ends ask for the same QoS: reliable, so a slow subscriber makes the publisher wait
    // instead of losing commands.
    let topic = Topic::<CmdVel>::builder("robot/cmd_vel")
        .reliable()
        .depth(16)
        .open()?;
    let publisher = topic.publisher()?;

    // Start the subscriber process and wait until it is listening.
    let mut child = Command::new(std::env::current_exe()?)
        .arg("listen")
        .stdout(Stdio::piped())
        .spawn()?;
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    assert_eq!(lines.next().transpose()?.as_deref(), Some("listening"));

    for i in 0..COUNT {
        let cmd = CmdVel {
            stamp_ns: nerve::time::now_ns(), // the same clock in every process
            linear: 0.01 * i as f32,
            angular: -0.01 * i as f32,
        };
        publisher.send(&cmd)?; // one memcpy into the ring; no syscall unless someone sleeps
        std::thread::sleep(Duration::from_millis(1));
    }
    let report = lines.next().transpose()?.unwrap_or_default();
    assert!(child.wait()?.success(), "the subscriber failed: {report}");
    println!("subscriber: {report}");
    println!("ok: {COUNT} CmdVel crossed processes in order");
    Ok(())
}

/// The subscriber process: receives every command, checks it, reports.
fn listen() -> Result<(), Box<dyn std::error::Error>> {
    let topic = Topic::<CmdVel>::builder("robot/cmd_vel")
        .reliable()
        .depth(16)
        .open()?;
    let mut subscriber = topic.subscriber()?;
    println!("listening");
    let mut worst_ns = 0;
    for i in 0..COUNT {
        // Spins briefly, then sleeps on a futex (≈0 % CPU); a timeout names the topic.
        let cmd = subscriber.recv_deadline(Duration::from_secs(10))?;
        assert_eq!(cmd.linear, 0.01 * i as f32, "message {i} out of order");
        worst_ns = worst_ns.max(nerve::time::now_ns().saturating_sub(cmd.stamp_ns));
    }
    let stats = subscriber.stats();
    assert_eq!((stats.received, stats.lost), (COUNT, 0));
    println!(
        "received {} lost {} worst latency {:.1} us",
        stats.received,
        stats.lost,
        worst_ns as f64 / 1e3
    );
    Ok(())
}
