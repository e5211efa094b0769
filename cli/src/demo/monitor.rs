//! The monitor of `nerve demo` (in the `nerve demo` process itself): one thread per topic
//! doing blocking receives (futex wake-ups, like a real node), and a table every second of
//! each topic's rate, latency percentiles (publisher stamp → receipt), losses and last value.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::msgs::{CmdVel, Image, Imu, LaserScan};
use nerve::time::now_ns;
use nerve::Topic;

/// How long a monitor thread waits for a message before it looks whether it should stop.
const POLL: Duration = Duration::from_millis(100);

/// What one topic's thread saw since the last report.
#[derive(Default)]
struct Window {
    latencies_ns: Vec<u64>,
    received: u64,
    lost: u64,
    last_value: String,
    errors: u64,
    last_error: String,
}

/// A message's publisher stamp and a short description of it.
type Seen = (u64, String);

/// One thread per topic doing blocking receives; the thread that runs the demo prints.
pub struct Monitor {
    windows: Vec<(String, Arc<Mutex<Window>>)>,
    threads: Vec<std::thread::JoinHandle<()>>,
    done: Arc<AtomicBool>,
    /// When the current window started.
    since: Instant,
}

impl Monitor {
    /// Subscribes to every demo topic of `domain` and starts watching them.
    pub fn new(domain: u32) -> anyhow::Result<Self> {
        let mut m = Monitor {
            windows: Vec::new(),
            threads: Vec::new(),
            done: Arc::new(AtomicBool::new(false)),
            since: Instant::now(),
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
                s.recv_timeout(POLL)
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
        )?;
        let scan = Topic::<LaserScan>::builder("demo/scan")
            .domain(domain)
            .depth(8)
            .open()?
            .subscriber()?;
        m.watch(
            "demo/scan",
            scan,
            |s| {
                s.recv_timeout(POLL)
                    .map(|o| {
                        o.map(|m| {
                            // Shared memory is hostile input: a scan may come with no range.
                            let front = match m.data().first() {
                                Some(r) => format!("{r:.2} m"),
                                None => "none".to_owned(),
                            };
                            (
                                m.header().header.stamp_ns,
                                format!("{} ranges, front {front}", m.len()),
                            )
                        })
                    })
                    .map_err(|e| e.to_string())
            },
            |s| s.stats(),
        )?;
        let image = Topic::<Image>::builder("demo/image")
            .domain(domain)
            .depth(4)
            .open()?
            .subscriber()?;
        m.watch(
            "demo/image",
            image,
            |s| {
                s.recv_timeout(POLL)
                    .map(|o| {
                        o.map(|m| {
                            let px0 = m.data().first().map_or("none".to_owned(), u8::to_string);
                            (
                                m.header().header.stamp_ns,
                                format!(
                                    "{}x{} rgb8, px0 {px0}",
                                    m.header().width,
                                    m.header().height,
                                ),
                            )
                        })
                    })
                    .map_err(|e| e.to_string())
            },
            |s| s.stats(),
        )?;
        let cmd = Topic::<CmdVel>::builder("demo/cmd_vel")
            .domain(domain)
            .open()?
            .subscriber()?;
        m.watch(
            "demo/cmd_vel",
            cmd,
            |s| {
                s.recv_timeout(POLL)
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
        )?;
        Ok(m)
    }

    /// Starts the thread that receives from `sub` with `poll` (which waits at most [`POLL`]).
    fn watch<S: Send + 'static>(
        &mut self,
        name: &str,
        mut sub: S,
        mut poll: impl FnMut(&mut S) -> Result<Option<Seen>, String> + Send + 'static,
        stats: impl Fn(&S) -> nerve::SubscriberStats + Send + 'static,
    ) -> anyhow::Result<()> {
        let w = Arc::new(Mutex::new(Window::default()));
        let window = w.clone();
        let done = self.done.clone();
        let thread = std::thread::Builder::new()
            .name(format!("monitor {name}"))
            .spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    let seen = poll(&mut sub);
                    let st = stats(&sub);
                    let mut w = nerve::sys::lock(&window);
                    w.received = st.received;
                    w.lost = st.lost + st.dropped;
                    match seen {
                        Ok(Some((stamp, value))) => {
                            w.latencies_ns.push(now_ns().saturating_sub(stamp));
                            w.last_value = value;
                        }
                        Ok(None) => {}
                        Err(e) => {
                            // Reported with the next table; a lasting error (a damaged
                            // topic) is retried at the pace of POLL, not in a hot loop.
                            w.errors += 1;
                            w.last_error = e;
                            drop(w);
                            std::thread::sleep(POLL);
                        }
                    }
                }
            })
            .map_err(|e| anyhow::anyhow!("cannot start the monitor thread of {name}: {e}"))?;
        self.windows.push((name.to_owned(), w));
        self.threads.push(thread);
        Ok(())
    }

    /// Prints the table of the window that ends now (`elapsed`: since the demo started).
    /// Rates are the messages received in the window over its measured length.
    pub fn report(&mut self, elapsed: Duration) -> anyhow::Result<()> {
        let window_s = self.since.elapsed().as_secs_f64().max(1e-3);
        self.since = Instant::now();
        outln!(
            "\n[{:6.1} s] {:<14} {:>8} {:>9} {:>9} {:>9} {:>8} {:>6}  last",
            elapsed.as_secs_f64(),
            "topic",
            "rate Hz",
            "p50 µs",
            "p99 µs",
            "max µs",
            "recv",
            "lost"
        )?;
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
            let last = if w.errors > 0 {
                format!("ERROR ({}×): {}", w.errors, w.last_error)
            } else {
                w.last_value.clone()
            };
            w.errors = 0;
            outln!(
                "{:>10} {:<14} {:>8.0} {:>9.1} {:>9.1} {:>9.1} {:>8} {:>6}  {last}",
                "",
                name,
                l.len() as f64 / window_s,
                pct(0.5),
                pct(0.99),
                pct(1.0),
                w.received,
                w.lost,
            )?;
        }
        Ok(())
    }

    /// Stops and joins the threads (each within [`POLL`]).
    pub fn stop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.stop();
    }
}
