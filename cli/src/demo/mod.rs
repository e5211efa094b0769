//! `nerve demo`: a small robot graph on the embedded default (shared memory, no broker), in
//! three processes:
//! - **sensor**: Imu at 1 kHz, LaserScan (360 ranges) at 10 Hz, a 640×480 rgb8 Image at 30 Hz
//!   written in place into shared memory;
//! - **controller**: reads Imu and LaserScan, publishes CmdVel at 100 Hz (slows down near
//!   obstacles);
//! - **monitor** (this process): subscribes to everything and prints, every second, each
//!   topic's rate, latency percentiles (publisher stamp → receipt) and losses.

mod graph;
mod monitor;

use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nerve::TransportPath;

use crate::args;

use graph::{controller, sensor};
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
    let duration = args.duration.map_or(0.0, |d| d.as_secs_f64());
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
