//! (c) E-stop latency: trigger → the last node's `on_safe_state`.

use std::time::Duration;

use nerve_exec::{Context, ExecClass, Node, Scheduler};

use super::{error_row, row, with_samples};
use crate::report::Row;
use crate::stats::Summary;

struct Quiet(String);

impl Node for Quiet {
    fn name(&self) -> &str {
        &self.0
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {}
}

/// Trigger → last node's `on_safe_state`, nodes on an RT lane (1 kHz), the compute lane
/// (100 Hz ×8) and a 1 Hz lane that is asleep when the trigger comes; `reps` triggers.
pub(super) fn estop(reps: u32) -> Row {
    let metric = "estop_ns";
    let mut worst = Vec::with_capacity(reps as usize);
    // rt 1 kHz, rt 1 Hz, compute 8×100 Hz
    let mut per_lane: [Vec<f64>; 3] = Default::default();
    let mut last_err = None;
    for i in 0..reps {
        let mut b = Scheduler::builder()
            .print_stats(false)
            .handle_signals(false)
            .lock_memory(false)
            .estop_priority(1)
            .node(Quiet("rt".into()))
            .rate(1000.0)
            .class(ExecClass::Rt {
                priority: 80,
                cpu: None,
            })
            .node(Quiet("slow".into()))
            .rate(1.0)
            .class(ExecClass::Rt {
                priority: 10,
                cpu: None,
            })
            .done();
        for k in 0..8 {
            b = b.node(Quiet(format!("c{k}"))).rate(100.0).done();
        }
        let mut s = match b.build() {
            Ok(s) => s,
            Err(e) => return error_row("estop", metric, e),
        };
        let (handle, e) = (s.handle(), s.estop());
        let delay = Duration::from_micros(20_000 + (i as u64 * 3_137) % 10_000);
        let t = std::thread::spawn(move || {
            std::thread::sleep(delay);
            e.trigger("bench");
            std::thread::sleep(Duration::from_millis(5));
            handle.stop();
        });
        if let Err(e) = s.run() {
            last_err = Some(e.to_string());
        }
        let _ = t.join();
        let st = s.stats();
        let latest = st
            .iter()
            .filter_map(|st| st.safe_state_latency)
            .max()
            .unwrap_or_default();
        worst.push(latest.as_nanos() as f64);
        for (k, st) in st.iter().enumerate() {
            if let Some(l) = st.safe_state_latency {
                per_lane[k.min(2)].push(l.as_nanos() as f64);
            }
        }
    }
    if let Some(e) = last_err {
        return error_row("estop", metric, e);
    }
    let [rt, slow, compute] = per_lane.each_mut().map(|v| lane_summary(v));
    with_samples(row("estop", metric, "cross-thread", "1:10"), &mut worst)
        .field("nodes", 10u64)
        .field(
            "note",
            format!(
                "per trigger: the latest of 10 nodes' on_safe_state (3 lanes, one asleep for up to 1 s; \
                 compute lane waits at SCHED_FIFO 1: estop_priority(1)); \
                 {reps} triggers; p50/p99/max by lane: rt 1 kHz {rt}, rt 1 Hz {slow}, compute 8x100 Hz {compute}"
            ),
        )
}

/// p50/p99/max of one lane's latencies, in whole µs.
fn lane_summary(samples: &mut [f64]) -> String {
    match Summary::of(samples) {
        Some(s) => format!(
            "{:.0}/{:.0}/{:.0} us",
            (s.p50 / 1000.0).floor(),
            (s.p99 / 1000.0).floor(),
            (s.max / 1000.0).floor()
        ),
        None => "no samples".to_owned(),
    }
}
