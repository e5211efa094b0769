//! The monitor of `nerve demo` (in the `nerve demo` process itself): one thread per topic,
//! and a table every second of each topic's rate, latency percentiles (publisher stamp →
//! receipt), losses and last value.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nerve::msgs::{CmdVel, Image, Imu, LaserScan};
use nerve::time::now_ns;
use nerve::Topic;

#[derive(Default)]
struct Window {
    latencies_ns: Vec<u64>,
    received: u64,
    lost: u64,
    last_value: String,
}

/// One thread per topic doing blocking receives (futex wake-ups, like a real node); the main
/// thread prints.
pub struct Monitor {
    windows: Vec<(String, Arc<Mutex<Window>>)>,
    threads: Vec<std::thread::JoinHandle<()>>,
    done: Arc<AtomicBool>,
}

impl Monitor {
    pub fn new(domain: u32) -> anyhow::Result<Self> {
        let done = Arc::new(AtomicBool::new(false));
        let mut m = Monitor {
            windows: Vec::new(),
            threads: Vec::new(),
            done,
        };
        let imu = Topic::<Imu>::builder("demo/imu")
            .domain(domain)
            .depth(64)
            .open()?
            .subscriber()?;
        m.watch(
            "demo/imu",
            imu,
            |s| {
                s.try_recv()
                    .map(|o| {
                        o.map(|m| {
                            (
                                m.header.stamp_ns,
                                format!("wz {:+.3}", m.angular_velocity.z),
                            )
                        })
                    })
                    .map_err(|e| e.to_string())
            },
            |s| s.stats(),
        );
        let scan = Topic::<LaserScan>::builder("demo/scan")
            .domain(domain)
            .depth(8)
            .open()?
            .subscriber()?;
        m.watch(
            "demo/scan",
            scan,
            |s| {
                s.try_recv()
                    .map(|o| {
                        o.map(|m| {
                            (
                                m.header().header.stamp_ns,
                                format!("{} ranges, front {:.2} m", m.len(), m.data()[0]),
                            )
                        })
                    })
                    .map_err(|e| e.to_string())
            },
            |s| s.stats(),
        );
        let image = Topic::<Image>::builder("demo/image")
            .domain(domain)
            .depth(4)
            .open()?
            .subscriber()?;
        m.watch(
            "demo/image",
            image,
            |s| {
                s.try_recv()
                    .map(|o| {
                        o.map(|m| {
                            (
                                m.header().header.stamp_ns,
                                format!(
                                    "{}x{} rgb8, px0 {}",
                                    m.header().width,
                                    m.header().height,
                                    m.data()[0]
                                ),
                            )
                        })
                    })
                    .map_err(|e| e.to_string())
            },
            |s| s.stats(),
        );
        let cmd = Topic::<CmdVel>::builder("demo/cmd_vel")
            .domain(domain)
            .open()?
            .subscriber()?;
        m.watch(
            "demo/cmd_vel",
            cmd,
            |s| {
                s.try_recv()
                    .map(|o| {
                        o.map(|m| {
                            (
                                m.stamp_ns,
                                format!("v {:.2} m/s, w {:+.3}", m.linear, m.angular),
                            )
                        })
                    })
                    .map_err(|e| e.to_string())
            },
            |s| s.stats(),
        );
        Ok(m)
    }

    fn watch<S: Send + 'static>(
        &mut self,
        name: &str,
        mut sub: S,
        mut poll: impl FnMut(&mut S) -> Result<Option<(u64, String)>, String> + Send + 'static,
        stats: impl Fn(&S) -> nerve::SubscriberStats + Send + 'static,
    ) {
        let w = Arc::new(Mutex::new(Window::default()));
        self.windows.push((name.to_owned(), w.clone()));
        let done = self.done.clone();
        self.threads.push(std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                match poll(&mut sub) {
                    Ok(Some((stamp, value))) => {
                        let lat = now_ns().saturating_sub(stamp);
                        let st = stats(&sub);
                        let mut w = nerve::sys::lock(&w);
                        w.latencies_ns.push(lat);
                        w.received = st.received;
                        w.lost = st.lost + st.dropped;
                        w.last_value = value;
                    }
                    Ok(None) => {}
                    Err(e) => eprintln!("monitor: {e}"),
                }
            }
        }));
    }

    pub fn report(&self, elapsed: Duration) {
        println!(
            "\n[{:6.1} s] {:<14} {:>8} {:>9} {:>9} {:>9} {:>8} {:>6}  last",
            elapsed.as_secs_f64(),
            "topic",
            "rate Hz",
            "p50 µs",
            "p99 µs",
            "max µs",
            "recv",
            "lost"
        );
        for (name, w) in &self.windows {
            let mut w = nerve::sys::lock(w);
            let mut l = std::mem::take(&mut w.latencies_ns);
            l.sort_unstable();
            let pct = |p: f64| {
                if l.is_empty() {
                    0.0
                } else {
                    l[((l.len() - 1) as f64 * p) as usize] as f64 / 1e3
                }
            };
            println!(
                "{:>10} {:<14} {:>8} {:>9.1} {:>9.1} {:>9.1} {:>8} {:>6}  {}",
                "",
                name,
                l.len(),
                pct(0.5),
                pct(0.99),
                pct(1.0),
                w.received,
                w.lost,
                w.last_value
            );
        }
    }

    pub fn stop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
