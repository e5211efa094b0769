//! `nerve demo`: a small robot graph on the embedded default (shared memory, no broker), in
//! three processes:
//! - **sensor**: Imu at 1 kHz, LaserScan (360 ranges) at 10 Hz, a 640×480 rgb8 Image at 30 Hz
//!   written in place into shared memory;
//! - **controller**: reads Imu and LaserScan, publishes CmdVel at 100 Hz (slows down near
//!   obstacles);
//! - **monitor** (this process): subscribes to everything and prints, every second, each
//!   topic's rate, latency percentiles (publisher stamp → receipt) and losses.

use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::exec::prelude::*;
use nerve::exec::{Inbox, TopicSource};
use nerve::msgs::{CmdVel, Encoding, Header, Image, ImageHeader, Imu, LaserScan, LaserScanHeader};
use nerve::time::now_ns;
use nerve::{Topic, TransportPath};

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Stop after this many seconds (default: run until Ctrl-C).
    #[arg(long)]
    duration: Option<f64>,
    /// Run the 1 kHz Imu node on a real-time lane (SCHED_FIFO, pinned to CPU 1, mlockall);
    /// if the OS refuses, it runs anyway and says what it could not do.
    #[arg(long)]
    rt: bool,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

fn install_signal_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
}

fn stopped(start: Instant, duration_s: f64) -> bool {
    STOP.load(Ordering::Relaxed)
        || (duration_s > 0.0 && start.elapsed().as_secs_f64() >= duration_s)
}

/// Sleeps until `start + k * period` (absolute, so the rate never drifts).
fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

pub fn run(domain: u32, args: DemoArgs) -> anyhow::Result<()> {
    install_signal_handlers();
    let duration = args.duration.unwrap_or(0.0);
    let exe = std::env::current_exe()?;
    println!(
        "nerve demo: domain {domain}, shared memory in {}",
        nerve::registry::domain_dir(domain).display()
    );
    // Subscribe before the sensor starts so the monitor sees the first messages.
    let mut monitor = Monitor::new(domain)?;
    let spawn = |role: &str| -> anyhow::Result<Child> {
        let mut cmd = Command::new(&exe);
        let child_duration = if duration > 0.0 { duration + 1.0 } else { 0.0 };
        cmd.args([
            "--domain",
            &domain.to_string(),
            "__demo-role",
            role,
            &child_duration.to_string(),
        ]);
        if args.rt {
            cmd.arg("--rt");
        }
        Ok(cmd.spawn()?)
    };
    let mut children = vec![spawn("controller")?, spawn("sensor")?];
    println!(
        "started sensor (pid {}) and controller (pid {}); Ctrl-C to stop",
        children[1].id(),
        children[0].id()
    );
    let start = Instant::now();
    let mut next = start + Duration::from_secs(1);
    while !stopped(start, duration) {
        sleep_until(next.min(Instant::now() + Duration::from_millis(100)));
        if Instant::now() >= next {
            monitor.report(start.elapsed());
            next += Duration::from_secs(1);
        }
        if children
            .iter_mut()
            .any(|c| matches!(c.try_wait(), Ok(Some(_))))
        {
            println!("a demo process exited; stopping");
            break;
        }
    }
    for c in &mut children {
        // SAFETY: signalling a child we spawned.
        unsafe { libc::kill(c.id() as i32, libc::SIGINT) };
    }
    for c in &mut children {
        c.wait()?;
    }
    // Listed while the monitor still holds its subscriptions: the last process to close a
    // topic removes its segment.
    println!("\ndemo topics at shutdown:");
    for t in nerve::registry::list(domain) {
        if !(t.name.starts_with("demo/") || t.name.starts_with("nerve/")) {
            continue;
        }
        let path = if matches!(t.path, TransportPath::Shm(_)) {
            "shm"
        } else {
            "heap"
        };
        println!(
            "  {:<14} {:<16} published {:>8}  path {path}",
            t.name, t.type_name, t.published
        );
    }
    monitor.stop();
    println!("demo stopped cleanly");
    Ok(())
}

pub fn role(domain: u32, role: &str, duration_s: f64, rt: bool) -> anyhow::Result<()> {
    // The scheduler handles SIGINT/SIGTERM in these processes: every node's shutdown runs.
    match role {
        "sensor" => sensor(domain, duration_s, rt),
        "controller" => controller(domain, duration_s),
        other => anyhow::bail!("unknown demo role {other}"),
    }
}

/// The sensor process: three nodes on the scheduler.
fn sensor(domain: u32, duration_s: f64, rt: bool) -> anyhow::Result<()> {
    let imu = ImuNode {
        publisher: Topic::<Imu>::builder("demo/imu")
            .domain(domain)
            .depth(64)
            .open()?
            .publisher()?,
        seq: 0,
    };
    let scan = ScanNode {
        publisher: Topic::<LaserScan>::builder("demo/scan")
            .domain(domain)
            .depth(8)
            .open()?
            .publisher()?,
        seq: 0,
    };
    let camera = CameraNode {
        publisher: Topic::<Image>::builder("demo/image")
            .domain(domain)
            .depth(4)
            .open()?
            .publisher()?,
        seq: 0,
    };
    let mut b = Scheduler::builder()
        .estop_topic(Some(domain))
        .node(imu)
        .rate(1000.0)
        .order(0) // first in every tick of the compute lane, before the camera's frame fill
        .on_miss(MissPolicy::Warn);
    if rt {
        b = b.class(ExecClass::Rt {
            priority: 80,
            cpu: Some(1),
        });
    }
    let mut sched = b
        .node(scan)
        .rate(10.0)
        .node(camera)
        .rate(30.0)
        .on_panic(FailurePolicy::Restart {
            max: 3,
            backoff: Duration::from_millis(100),
        })
        .build()?;
    run_sched(&mut sched, duration_s)
}

fn run_sched(sched: &mut Scheduler, duration_s: f64) -> anyhow::Result<()> {
    if duration_s > 0.0 {
        sched.run_for(Duration::from_secs_f64(duration_s))?;
    } else {
        sched.run()?;
    }
    Ok(())
}

struct ImuNode {
    publisher: nerve::Publisher<Imu>,
    seq: u64,
}

impl Node for ImuNode {
    fn name(&self) -> &str {
        "imu_driver"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let t = self.seq as f64 * 1e-3;
        let Ok(header) = Header::new(now_ns(), self.seq, "imu_link") else {
            return;
        };
        let mut imu = Imu {
            header,
            ..Imu::default()
        };
        imu.angular_velocity.z = 0.3 * (t * 0.5).sin();
        imu.linear_acceleration.z = 9.81;
        if let Err(e) = self.publisher.send(&imu) {
            tracing::warn!("imu: {e}");
        }
        self.seq += 1;
    }
}

struct ScanNode {
    publisher: nerve::Publisher<LaserScan>,
    seq: u64,
}

impl Node for ScanNode {
    fn name(&self) -> &str {
        "lidar_driver"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let t = self.seq as f64 * 0.1;
        let mut loan = match self.publisher.loan(LaserScan::SEED_RANGES) {
            Ok(l) => l,
            Err(e) => return tracing::warn!("scan: {e}"),
        };
        let angle_increment = std::f32::consts::TAU / LaserScan::SEED_RANGES as f32;
        let Ok(header) = Header::new(0, self.seq, "laser") else {
            return;
        };
        *loan.header_mut() = LaserScanHeader {
            header,
            angle_min: 0.0,
            angle_max: std::f32::consts::TAU - angle_increment,
            angle_increment,
            time_increment: 0.0,
            scan_time: 0.1,
            range_min: 0.05,
            range_max: 30.0,
            _pad: 0,
        };
        // A wall that comes and goes in front of the robot.
        let wall = 1.5 + (t * 0.3).sin() as f32;
        for (i, r) in loan.data_mut().iter_mut().enumerate() {
            *r = if !(30..330).contains(&i) { wall } else { 10.0 };
        }
        loan.header_mut().header.stamp_ns = now_ns();
        if let Err(e) = loan.send() {
            tracing::warn!("scan: {e}");
        }
        self.seq += 1;
    }
}

struct CameraNode {
    publisher: nerve::Publisher<Image>,
    seq: u64,
}

impl Node for CameraNode {
    fn name(&self) -> &str {
        "camera_driver"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let (w, h) = (640u32, 480u32);
        let mut loan = match self.publisher.loan((w * h * 3) as usize) {
            Ok(l) => l,
            Err(e) => return tracing::warn!("camera: {e}"),
        };
        // The "camera" writes the frame straight into shared memory.
        let shift = self.seq as u8;
        for (row, line) in loan.data_mut().chunks_mut((w * 3) as usize).enumerate() {
            line.fill((row as u8).wrapping_add(shift));
        }
        let Ok(header) = Header::new(now_ns(), self.seq, "camera") else {
            return;
        };
        *loan.header_mut() = ImageHeader::new(header, w, h, Encoding::Rgb8);
        if let Err(e) = loan.send() {
            tracing::warn!("camera: {e}");
        }
        self.seq += 1;
    }
}

/// The controller process: one event node, woken by each Imu message (no polling), that
/// publishes CmdVel at a tenth of the Imu rate and slows down near obstacles. In safe state
/// (e-stop) it commands zero velocity.
fn controller(domain: u32, duration_s: f64) -> anyhow::Result<()> {
    let imu_sub = Topic::<Imu>::builder("demo/imu")
        .domain(domain)
        .depth(64)
        .open()?
        .subscriber()?;
    let (source, inbox) = TopicSource::new(imu_sub, 64);
    let node = Controller {
        imu: inbox,
        scan: Topic::<LaserScan>::builder("demo/scan")
            .domain(domain)
            .depth(8)
            .open()?
            .subscriber()?,
        cmd: Topic::<CmdVel>::builder("demo/cmd_vel")
            .domain(domain)
            .open()?
            .publisher()?,
        nearest: f32::INFINITY,
        imus: 0,
    };
    let mut sched = Scheduler::builder()
        .estop_topic(Some(domain))
        .node(node)
        .wake_on(source)
        .build()?;
    run_sched(&mut sched, duration_s)
}

struct Controller {
    imu: Inbox<Imu>,
    scan: nerve::Subscriber<LaserScan>,
    cmd: nerve::Publisher<CmdVel>,
    nearest: f32,
    imus: u64,
}

impl Node for Controller {
    fn name(&self) -> &str {
        "controller"
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        while let Ok(Some(scan)) = self.scan.try_recv() {
            self.nearest = scan
                .data()
                .iter()
                .copied()
                .filter(|r| r.is_finite())
                .fold(f32::INFINITY, f32::min);
        }
        for imu in self.imu.drain() {
            self.imus += 1;
            if !self.imus.is_multiple_of(10) {
                continue;
            }
            let (linear, angular) = if ctx.in_safe_state() {
                (0.0, 0.0)
            } else {
                (
                    (0.5 * (self.nearest - 0.8)).clamp(0.0, 1.0),
                    -0.5 * imu.angular_velocity.z as f32,
                )
            };
            if let Err(e) = self.cmd.send(&CmdVel {
                stamp_ns: now_ns(),
                linear,
                angular,
            }) {
                tracing::warn!("controller: {e}");
            }
        }
    }
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        let _ = self.cmd.send(&CmdVel {
            stamp_ns: now_ns(),
            linear: 0.0,
            angular: 0.0,
        });
    }
}

#[derive(Default)]
struct Window {
    latencies_ns: Vec<u64>,
    received: u64,
    lost: u64,
    last_value: String,
}

/// One thread per topic doing blocking receives (futex wake-ups, like a real node); the main
/// thread prints.
struct Monitor {
    windows: Vec<(String, Arc<Mutex<Window>>)>,
    threads: Vec<std::thread::JoinHandle<()>>,
    done: Arc<AtomicBool>,
}

impl Monitor {
    fn new(domain: u32) -> anyhow::Result<Self> {
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

    fn report(&self, elapsed: Duration) {
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

    fn stop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
