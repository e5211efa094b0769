//! async_nodes: nodes written as async tasks — a sensor on a timer, a monitor that awaits
//! messages and a heartbeat, both in one `select!` — on nerve's async runtime.
//!
//! ```sh
//! cargo run -p nerve-examples --bin async_nodes
//! ```
//!
//! `aio::interval` and `aio::sleep` keep nanosecond deadlines (tokio's own timer rounds up to
//! whole milliseconds), and a topic subscription is a stream: `messages.next().await`.
use std::time::Duration;

use nerve::exec::aio::{self, Executor, StreamExt};
use nerve::msgs::BatteryState;
use nerve::Topic;

const READINGS: u64 = 50;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let topic = Topic::<BatteryState>::builder("robot/battery")
        .depth(64)
        .open()?;
    let mut messages = aio::subscribe(topic.subscriber()?, 64);
    let publisher = topic.publisher()?;

    let executor = Executor::builder().worker_threads(1).build()?;
    let (received, heartbeats) = executor.block_on(async move {
        // The sensor: one reading every 2 ms, on an absolute timeline.
        let sensor = aio::spawn(async move {
            let mut every = aio::interval(Duration::from_millis(2));
            for i in 0..READINGS {
                every.tick().await;
                let reading = BatteryState {
                    voltage: 24.0 - 0.01 * i as f32,
                    percentage: 1.0 - 0.001 * i as f32,
                    ..BatteryState::default()
                };
                publisher
                    .send(&reading)
                    .expect("best-effort topics never refuse");
            }
        });

        // The monitor: whichever comes first, a reading or the 10 ms heartbeat.
        let mut heartbeat = aio::interval(Duration::from_millis(10));
        let (mut received, mut heartbeats, mut last_voltage) = (0u64, 0u64, f32::INFINITY);
        while received < READINGS {
            aio::select! {
                Some(reading) = messages.next() => {
                    assert!(reading.voltage < last_voltage, "readings out of order");
                    last_voltage = reading.voltage;
                    received += 1;
                }
                _ = heartbeat.tick() => heartbeats += 1,
                _ = aio::sleep(Duration::from_secs(5)) => panic!("no reading for 5 s"),
            }
        }
        sensor.await.expect("sensor task");
        (received, heartbeats)
    });
    assert_eq!(received, READINGS);
    assert!(
        heartbeats >= 2,
        "the heartbeat ran {heartbeats} times in ~100 ms"
    );
    println!("monitor received {received} readings and beat {heartbeats} times");
    println!("ok: a timer task and a message stream shared one async runtime");
    Ok(())
}
