//! `nerve demo`: a small robot graph on the embedded default (shared memory, no broker), in
//! three processes:
//! - **sensor**: Imu at 1 kHz, LaserScan (360 ranges) at 10 Hz, a 640×480 rgb8 Image at 30 Hz
//!   written in place into shared memory;
//! - **controller**: reads Imu and LaserScan, publishes CmdVel at 100 Hz (slows down near
//!   obstacles);
//! - **monitor** (this process): subscribes to everything and prints, every second, each
//!   topic's rate, latency percentiles (publisher stamp → receipt) and losses.
//!
//! The sensor and the controller end with this process however it ends: asked (Ctrl-C,
//! SIGTERM, `--duration`), failing, or killed (`kill -9`): see `children`.

mod calibrate;
mod children;
mod graph;
mod monitor;

use std::time::{Duration, Instant};

use anyhow::Context as _;
use nerve::TransportPath;

use crate::args;
use children::Children;
use monitor::Monitor;

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Stop after this many seconds (more than 0, at most 604800; default: run until Ctrl-C).
    #[arg(long, value_name = "SECONDS", value_parser = args::run_seconds,
          allow_hyphen_values = true)]
    duration: Option<Duration>,
    /// Run the 1 kHz Imu node on a real-time lane (SCHED_FIFO, pinned to CPU 1, mlockall);
    /// if the OS refuses, it runs anyway and says what it could not do.
    #[arg(long)]
    rt: bool,
}

/// A process of the demo graph other than the monitor.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Role {
    Sensor,
    Controller,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Sensor => "sensor",
            Role::Controller => "controller",
        }
    }
}

/// How long the children get to run their shutdown after SIGINT before they are killed:
/// more than the scheduler's own bound on a shutdown (2 s).
const GRACE: Duration = Duration::from_secs(3);

/// Sleeps until `t` (absolute, so the reports never drift).
fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

pub fn run(domain: u32, args: DemoArgs) -> anyhow::Result<()> {
    crate::signals::install();
    let exe = std::env::current_exe()
        .context("cannot find the nerve executable to start the demo processes")?;
    outln!(
        "nerve demo: domain {domain}, shared memory in {}",
        nerve::registry::domain_dir(domain).display()
    )?;
    // Before any demo process runs: what the machine allows, to read the table by.
    let floor = calibrate::measure(domain)?;
    outln!("{}", floor.explain())?;
    // Subscribe before the sensor starts so the monitor sees the first messages.
    let mut monitor = Monitor::new(domain)?;
    let mut children = Children::new();
    let mut spawn = |role: Role| {
        let mut a = vec![
            "--domain".to_owned(),
            domain.to_string(),
            "__demo-role".to_owned(),
            role.name().to_owned(),
        ];
        if args.rt {
            a.push("--rt".to_owned());
        }
        children.spawn(role.name(), &exe, &a)
    };
    let controller = spawn(Role::Controller)?;
    let sensor = spawn(Role::Sensor)?;
    outln!("started sensor (pid {sensor}) and controller (pid {controller}); Ctrl-C to stop")?;
    let watched = watch(&mut monitor, &mut children, args.duration);
    let stopped = children.stop(GRACE);
    // Listed while the monitor still holds its subscriptions: the last process to close a
    // topic removes its segment.
    let listed = list_topics(domain);
    monitor.stop();
    watched?;
    stopped?;
    listed?;
    outln!("\n{}", floor.explain())?;
    outln!("demo stopped cleanly")
}

/// Reports every second until Ctrl-C/SIGTERM or the end of `duration`; an error if a child
/// ends on its own (or stdout is closed).
fn watch(
    monitor: &mut Monitor,
    children: &mut Children,
    duration: Option<Duration>,
) -> anyhow::Result<()> {
    let start = Instant::now();
    let end = duration.map(|d| start + d);
    let mut next = start + Duration::from_secs(1);
    loop {
        let mut wake = next.min(Instant::now() + Duration::from_millis(100));
        if let Some(end) = end {
            wake = wake.min(end);
        }
        sleep_until(wake);
        let now = Instant::now();
        if now >= next {
            monitor.report(start.elapsed())?;
            // After a pause (a stopped process), one report, not one per missed second.
            next = (next + Duration::from_secs(1)).max(now + Duration::from_millis(500));
        }
        // The stop first: on Ctrl-C the terminal signals the children too, and their end is
        // then no surprise.
        if crate::signals::stopped() || end.is_some_and(|e| now >= e) {
            return Ok(());
        }
        if let Some(why) = children.ended_early() {
            anyhow::bail!("{why}; the demo stops");
        }
    }
}

/// The demo's topics as the registry sees them.
fn list_topics(domain: u32) -> anyhow::Result<()> {
    outln!("\ndemo topics at shutdown:")?;
    for t in nerve::registry::list(domain) {
        // The demo's own and the robot's story (the log, level changes, the e-stop).
        let kind = nerve::plumbing::TopicKind::of_info(&t);
        if !(t.name.starts_with("demo/") || kind.is_nerve() && !kind.is_plumbing()) {
            continue;
        }
        let path = if matches!(t.path, TransportPath::Shm(_)) {
            "shm"
        } else {
            "heap"
        };
        outln!(
            "  {:<14} {:<16} published {:>8}  path {path}",
            t.name,
            t.type_name,
            t.published
        )?;
    }
    Ok(())
}

/// A child process of `nerve demo` (`nerve __demo-role`): ends with its parent, then runs
/// its part of the graph until SIGINT (its parent stops it) or SIGTERM (its parent died).
pub fn role(domain: u32, role: Role, parent: u32, rt: bool) -> anyhow::Result<()> {
    let name = role.name();
    children::end_with_parent(parent).with_context(|| format!("demo {name}"))?;
    match role {
        Role::Sensor => graph::sensor(domain, rt),
        Role::Controller => graph::controller(domain),
    }
    .with_context(|| format!("demo {name}"))
}
