//! What this machine allows, measured before the demo starts, so its table can be read: the
//! one-way time of a 16-byte nerve message to a receiver that busy-polls (what `nerve-bench`
//! reports, under a microsecond) and to one that sleeps in the kernel between messages (as
//! the demo's receivers and real nodes do), whose difference is the kernel's wake-up of the
//! receiving thread (on a virtual machine, an inter-processor interrupt through the
//! hypervisor): no transport can go below it without spinning a core.

use std::time::{Duration, Instant};

use nerve::msgs::CmdVel;
use nerve::time::now_ns;
use nerve::Topic;

/// The medians, in nanoseconds.
pub struct Floor {
    /// One busy-polling receiver.
    pub polling_ns: u64,
    /// One sleeping receiver.
    pub sleeping_ns: u64,
    /// Two sleeping receivers (as the demo's Imu has: the controller and the monitor): the
    /// median over both.
    pub two_sleeping_ns: u64,
}

/// Sends `n` stamped messages `gap` apart to `receivers` threads (busy-polling or sleeping);
/// the median of receipt − stamp over all of them.
fn one_way(
    domain: u32,
    name: &str,
    n: usize,
    gap: Duration,
    poll: bool,
    receivers: usize,
) -> anyhow::Result<u64> {
    let topic = Topic::<CmdVel>::builder(name)
        .domain(domain)
        .depth(64)
        .in_process()
        .open()?;
    let publisher = topic.publisher()?;
    let mut threads = Vec::new();
    for i in 0..receivers {
        let mut sub = topic.subscriber()?;
        sub.set_spin(Duration::ZERO);
        threads.push(receive(sub, n, poll, i));
    }
    // The publisher on a core of its own too (the last one), as a benchmark pins its sides.
    let sender = std::thread::spawn(move || -> anyhow::Result<()> {
        pin(usize::MAX);
        let start = Instant::now();
        for i in 0..n {
            let at = start + gap * i as u32;
            while Instant::now() < at {
                if poll {
                    std::hint::spin_loop();
                } else {
                    std::thread::sleep(at.saturating_duration_since(Instant::now()));
                }
            }
            publisher.send(&CmdVel {
                stamp_ns: now_ns(),
                linear: 0.0,
                angular: 0.0,
            })?;
        }
        Ok(())
    });
    sender
        .join()
        .map_err(|_| anyhow::anyhow!("the calibration sender panicked"))??;
    let mut got = Vec::new();
    for t in threads {
        got.extend(
            t.join()
                .map_err(|_| anyhow::anyhow!("a calibration receiver panicked"))?,
        );
    }
    anyhow::ensure!(!got.is_empty(), "the calibration received nothing");
    got.sort_unstable();
    Ok(got[got.len() / 2])
}

/// Pins the calling thread to CPU `cpu` (counted modulo the CPUs this process may use;
/// `usize::MAX`: the last one). Best effort: where it is refused, the thread floats.
fn pin(cpu: usize) {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        return;
    }
    let cpu = if cpu == usize::MAX {
        cpus - 1
    } else {
        cpu % (cpus - 1)
    };
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes within it (cpu is less
    // than the CPU count, far below CPU_SETSIZE); sched_setaffinity(0, ..) applies to the
    // calling thread and reads the set we pass.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Receiver thread `index` (pinned apart from the sender): `n` messages (or 5 s), their
/// receipt − stamp.
fn receive(
    mut sub: nerve::Subscriber<CmdVel>,
    n: usize,
    poll: bool,
    index: usize,
) -> std::thread::JoinHandle<Vec<u64>> {
    std::thread::spawn(move || -> Vec<u64> {
        pin(index);
        let mut got = Vec::with_capacity(n);
        let end = Instant::now() + Duration::from_secs(5);
        while got.len() < n && Instant::now() < end {
            let m = if poll {
                sub.try_recv().ok().flatten()
            } else {
                sub.recv_timeout(Duration::from_millis(100)).ok().flatten()
            };
            if let Some(m) = m {
                got.push(now_ns().saturating_sub(m.stamp_ns));
            } else if poll {
                std::hint::spin_loop();
            }
        }
        got
    })
}

/// Measures both floors (about half a second, before the demo's processes start).
pub fn measure(domain: u32) -> anyhow::Result<Floor> {
    Ok(Floor {
        polling_ns: one_way(
            domain,
            "demo/calibrate/poll",
            2000,
            Duration::from_micros(50),
            true,
            1,
        )?,
        sleeping_ns: one_way(
            domain,
            "demo/calibrate/sleep",
            300,
            Duration::from_millis(1),
            false,
            1,
        )?,
        two_sleeping_ns: one_way(
            domain,
            "demo/calibrate/two",
            300,
            Duration::from_millis(1),
            false,
            2,
        )?,
    })
}

impl Floor {
    /// The lines the demo prints about it.
    pub fn explain(&self) -> String {
        let us = |ns: u64| ns as f64 / 1e3;
        format!(
            "On this machine a 16-byte nerve message reaches a busy-polling receiver on another \
             core in {:.2} µs (p50,\nwhat nerve-bench measures), a receiver sleeping in the \
             kernel in {:.1} µs, two sleeping receivers in {:.1} µs:\nthe difference is the \
             kernel waking the receiving thread on another core (an inter-processor interrupt,\n\
             through the hypervisor on a virtual machine). The demo's receivers sleep between \
             messages, as nodes\ndo, so its latency columns (stamp → receipt) include that \
             wake-up: about {:.0} µs is their floor here.",
            us(self.polling_ns),
            us(self.sleeping_ns),
            us(self.two_sleeping_ns),
            us(self.sleeping_ns),
        )
    }
}
