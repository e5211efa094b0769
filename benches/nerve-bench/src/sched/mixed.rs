//! (a) Mixed rates: 1 kHz and 500 Hz on RT lanes, 100 Hz and 10 Hz on the compute pool, with
//! the other core busy.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nerve::time::now_ns;
use nerve_exec::{Context, ExecClass, Node, Scheduler};

use super::{error_row, row, with_node_stat};
use crate::pin;
use crate::report::Row;

/// A node that spins for `work` in each tick, standing in for a control law.
struct Work {
    name: String,
    work: Duration,
}

impl Node for Work {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let end = now_ns() + self.work.as_nanos() as u64;
        while now_ns() < end {
            std::hint::spin_loop();
        }
    }
}

/// Keeps one core busy (pinned to cpu 0 where allowed) until dropped.
pub(super) struct Busy {
    stop: Arc<AtomicBool>,
    t: Option<std::thread::JoinHandle<()>>,
}

impl Busy {
    pub(super) fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let t = std::thread::spawn(move || {
            let _ = pin::pin_current_thread(0);
            let mut x = 0u64;
            // Relaxed: the flag carries no data; a late look only spins a little longer.
            while !s.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        });
        Self { stop, t: Some(t) }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.t.take() {
            let _ = t.join();
        }
    }
}

/// 1 kHz and 500 Hz on SCHED_FIFO lanes pinned to cpu 1, 100 Hz and 10 Hz on the compute
/// pool, and (unless `$NERVE_SCHED_LOAD` is `idle`) a spinning thread pinned to cpu 0 for the
/// whole run. The RT lanes spin 200 µs before each planned start (the scheduler's `spin`; its
/// default is 50 µs): on a VM whose idle vCPU halts, the timer interrupt that ends the kernel
/// sleep arrives p99 ~400 µs late, and only a spin longer than that tail keeps the p99 start
/// within 50 µs (docs/design/scheduler.md). `$NERVE_SCHED_SPIN_US` sets another spin (recorded
/// in the rows' note); `$NERVE_SCHED_IDLE_POLL=1` turns on the scheduler's `idle_poll` (cpu 1
/// busy-polls at SCHED_IDLE between ticks; in the note).
pub(super) fn mixed_rates(secs: u64) -> Vec<Row> {
    let metric = "start_lateness_ns";
    let busy_wanted = std::env::var("NERVE_SCHED_LOAD").map_or(true, |v| v != "idle");
    let cpu = if num_cpus() > 1 { Some(1) } else { None };
    let spec = [
        (1000.0, ExecClass::Rt { priority: 80, cpu }, 20),
        (500.0, ExecClass::Rt { priority: 70, cpu }, 50),
        (100.0, ExecClass::Compute, 200),
        (10.0, ExecClass::Compute, 1000),
    ];
    // How long RT lanes spin before a planned start.
    let spin_us = std::env::var("NERVE_SCHED_SPIN_US")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(200);
    let idle_poll = std::env::var("NERVE_SCHED_IDLE_POLL").is_ok_and(|v| v == "1");
    let mut b = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false)
        .spin(Duration::from_micros(spin_us))
        .idle_poll(idle_poll);
    for (hz, class, work_us) in spec {
        b = b
            .node(Work {
                name: format!("n{hz}"),
                work: Duration::from_micros(work_us),
            })
            .rate(hz)
            .class(class)
            .done();
    }
    let mut s = match b.build() {
        Ok(s) => s,
        Err(e) => return vec![error_row("mixed-rates", metric, e)],
    };
    let busy = busy_wanted.then(Busy::start);
    let load = if busy_wanted {
        "other-core-busy"
    } else {
        "idle"
    };
    let steal0 = steal_ms();
    let r = s.run_for(Duration::from_secs(secs));
    let steal = steal0.zip(steal_ms()).map(|(a, b)| b.saturating_sub(a));
    drop(busy);
    if let Err(e) = r {
        return vec![error_row("mixed-rates", metric, e)];
    }
    let rep = s.rt_report();
    let rt_note = if rep.all_ok() {
        "SCHED_FIFO, pinned, mlockall: all granted".to_owned()
    } else {
        let f: Vec<String> = rep.failures().map(|a| a.what.clone()).collect();
        format!("RT not granted: {}", f.join("; "))
    };
    let rt_note = format!("{rt_note}; RT spin before start {spin_us} us");
    let rt_note = if idle_poll {
        format!("{rt_note}; idle_poll on (cpu 1 polls at SCHED_IDLE between ticks)")
    } else {
        rt_note
    };
    s.stats()
        .iter()
        .zip(spec)
        .map(|(st, (hz, class, work_us))| {
            let r = row("mixed-rates", metric, "cross-thread", "1:4");
            let mut r = with_node_stat(r, &st.lateness_ns)
                .field("rate_hz", hz)
                .field("misses", st.misses)
                .field("achieved_hz", st.achieved_hz)
                .field("load", load)
                .field("duration_s", secs as f64);
            if let Some(ms) = steal {
                r = r.field("steal_ms", ms);
            }
            r.field(
                "note",
                format!(
                    "{}, work {work_us} us/tick, {secs} s, load {load} (spinning thread pinned to cpu 0); \
                     {rt_note}; tick p99 {} ns; \
                     worst start at {:?}; host steal during the run: {}",
                    match class {
                        ExecClass::Rt { priority, .. } => format!("RT prio {priority}"),
                        _ => "compute lane".to_owned(),
                    },
                    st.tick_ns.p99,
                    st.worst_lateness_at,
                    steal.map_or("unknown".to_owned(), |ms| format!("{ms} ms"))
                ),
            )
        })
        .collect()
}

/// Time the hypervisor took the vCPUs away (all CPUs, `steal` in /proc/stat), in ms.
fn steal_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: u64 = line.split_whitespace().nth(8)?.parse().ok()?;
    // SAFETY: sysconf takes a constant and touches no memory.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(ticks * 1000 / hz)
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
