//! (b) Tick overhead per node with 1…200 nodes, and (d) what budget + watchdog monitoring adds
//! per node and tick.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nerve::time::now_ns;
use nerve_exec::{Context, Node, Scheduler};

use super::{error_row, lock, row, with_samples};
use crate::report::Row;
use crate::stats;

/// The first node's round start, and the spread per node of every round the last node saw.
#[derive(Default)]
struct Spread {
    round_start: AtomicU64,
    per_node: Mutex<Vec<f64>>,
}

/// Node for (b): the first node stamps the round start, the last one records the spread.
struct Stamp {
    name: String,
    first: bool,
    last: bool,
    spread: Arc<Spread>,
    nodes: u64,
}

impl Node for Stamp {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        // Relaxed: every node of the round runs on the one lane thread.
        if self.first {
            self.spread.round_start.store(now_ns(), Ordering::Relaxed);
        }
        if self.last && ctx.tick() > 10 {
            let spread = now_ns().saturating_sub(self.spread.round_start.load(Ordering::Relaxed));
            lock(&self.spread.per_node).push((spread / self.nodes) as f64);
        }
    }
}

/// Per-node cost of one round: (last node's end − first node's start) / N, empty ticks, all
/// nodes due at the same time on one lane at 1 kHz. The samples, one per round.
fn overhead(nodes: u64, secs: f64) -> Result<Vec<f64>, String> {
    let spread = Arc::new(Spread::default());
    // One sample per round: reserve them, so the last node's tick does not allocate.
    lock(&spread.per_node).reserve((secs * 1000.0) as usize + 16);
    let mut b = Scheduler::builder()
        .print_stats(false)
        .handle_signals(false);
    for i in 0..nodes {
        b = b
            .node(Stamp {
                name: format!("n{i}"),
                first: i == 0,
                last: i == nodes - 1,
                spread: spread.clone(),
                nodes,
            })
            .rate(1000.0)
            .order(i as i64)
            .done();
    }
    let mut s = b.build().map_err(|e| e.to_string())?;
    s.run_for(Duration::from_secs_f64(secs))
        .map_err(|e| e.to_string())?;
    let samples = std::mem::take(&mut *lock(&spread.per_node));
    Ok(samples)
}

/// (b).
pub(super) fn tick_overhead(quick: bool) -> Vec<Row> {
    let metric = "tick_overhead_ns_per_node";
    let secs = if quick { 1.0 } else { 5.0 };
    let mut rows = Vec::new();
    for n in [1u64, 10, 20, 50, 100, 200] {
        let r = match overhead(n, secs) {
            Ok(mut v) => with_samples(
                row("empty-nodes", metric, "same-thread", &format!("1:{n}")),
                &mut v,
            ),
            Err(e) => error_row("empty-nodes", metric, e),
        };
        rows.push(r.field("nodes", n).field(
            "note",
            "per 1 kHz round: (last node end - first node start) / nodes; empty ticks; \
             for 1 node: the cost of one empty tick incl. its stats",
        ));
    }
    rows
}

/// Node for (d): stamps its tick's start (the scheduler's own clock read) into `stamps`; the
/// last node of the round turns the stamps into per-node gaps.
struct Gap {
    name: String,
    i: usize,
    flip: bool,
    stamps: Arc<Vec<AtomicU64>>,
    out: Option<Arc<Mutex<GapOut>>>,
}

#[derive(Default)]
struct GapOut {
    /// Per round: median on→on gap − median off→off gap (ns).
    diffs: Vec<f64>,
    on: Vec<f64>,
    off: Vec<f64>,
}

/// Nodes are monitored in blocks of four: on,on,on,on,off,off,off,off,… (`flip`: off first).
fn gap_monitored(i: usize, flip: bool) -> bool {
    (i / 4).is_multiple_of(2) != flip
}

impl Node for Gap {
    fn name(&self) -> &str {
        &self.name
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        // Relaxed: every node of the round runs on the one lane thread.
        self.stamps[self.i].store(ctx.now().as_nanos() as u64, Ordering::Relaxed);
        let Some(out) = &self.out else { return };
        if ctx.tick() < 20 {
            return; // warm-up
        }
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for k in 0..self.i {
            let a = self.stamps[k].load(Ordering::Relaxed);
            let b = self.stamps[k + 1].load(Ordering::Relaxed);
            let gap = b.saturating_sub(a) as f64;
            match (gap_monitored(k, self.flip), gap_monitored(k + 1, self.flip)) {
                (true, true) => on.push(gap),
                (false, false) => off.push(gap),
                _ => {}
            }
        }
        let mut o = lock(out);
        if let (Some(a), Some(b)) = (stats::median(&on), stats::median(&off)) {
            o.diffs.push(a - b);
        }
        o.on.extend_from_slice(&on);
        o.off.extend_from_slice(&off);
    }
}

/// (d) What budget + watchdog monitoring adds per node and tick: 200 empty nodes at 1 kHz on
/// one lane, monitored (budget, deadline and watchdog set) and unmonitored in alternating
/// blocks of four, so both kinds run in the same rounds, at the same moments, with the same
/// cache state. The cost of a node is the gap from its tick's start to the next node's (the
/// scheduler's own clock reads); per round, median on→on gap − median off→off gap.
/// Which monitors the monitored nodes of [`budget_overhead`] get.
#[derive(Clone, Copy, Debug)]
pub(super) enum Monitors {
    /// Budget, deadline and watchdog together.
    All,
    Budget,
    Deadline,
    Watchdog,
}

impl Monitors {
    pub(super) const EACH: [Monitors; 4] = [
        Monitors::All,
        Monitors::Budget,
        Monitors::Deadline,
        Monitors::Watchdog,
    ];

    fn name(self) -> &'static str {
        match self {
            Monitors::All => "budget+deadline+watchdog",
            Monitors::Budget => "budget",
            Monitors::Deadline => "deadline",
            Monitors::Watchdog => "watchdog",
        }
    }
}

pub(super) fn budget_overhead(quick: bool, monitors: Monitors) -> Row {
    let n = 200usize;
    let secs = if quick { 0.5 } else { 2.5 };
    let metric = "budget_overhead_ns_per_node";
    let out = Arc::new(Mutex::new(GapOut::default()));
    // Four runs, the pattern flipped every other run, so a node's position in the lane
    // (cache, branch history) favours neither side.
    for run in 0..4 {
        let flip = run % 2 == 1;
        let stamps: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
        let mut b = Scheduler::builder()
            .print_stats(false)
            .handle_signals(false);
        for i in 0..n {
            let mut e = b
                .node(Gap {
                    name: format!("n{i}"),
                    i,
                    flip,
                    stamps: stamps.clone(),
                    out: (i == n - 1).then(|| out.clone()),
                })
                .rate(1000.0)
                .order(i as i64);
            if gap_monitored(i, flip) {
                let all = matches!(monitors, Monitors::All);
                if all || matches!(monitors, Monitors::Budget) {
                    e = e.budget(Duration::from_micros(100));
                }
                if all || matches!(monitors, Monitors::Deadline) {
                    e = e.deadline(Duration::from_micros(900));
                }
                if all || matches!(monitors, Monitors::Watchdog) {
                    e = e.watchdog(Duration::from_millis(500));
                }
            }
            b = e.done();
        }
        let mut s = match b.build() {
            Ok(s) => s,
            Err(e) => return error_row("empty-nodes", metric, e),
        };
        if let Err(e) = s.run_for(Duration::from_secs_f64(secs)) {
            return error_row("empty-nodes", metric, e);
        }
    }
    let mut o = std::mem::take(&mut *lock(&out));
    let rounds = o.diffs.len();
    let on = stats::median(&o.on).unwrap_or(0.0);
    let off = stats::median(&o.off).unwrap_or(0.0);
    let r = row("empty-nodes", metric, "same-thread", &format!("1:{n}"));
    let what = monitors.name();
    with_samples(r, &mut o.diffs)
        .field("nodes", n as u64)
        .field("monitor", what)
        .field(
            "note",
            format!(
                "paired A/B in the same rounds: {n} empty nodes at 1 kHz on one lane, {what} \
                 set on alternating blocks of 4 (which blocks flipped every other run, 4 runs); \
                 per round median gap after a monitored node minus after an unmonitored one \
                 (percentiles over {rounds} rounds; a value within a few ns of 0, either sign, is no \
                 measurable cost); pooled medians: monitored {on} ns, unmonitored {off} ns per node"
            ),
        )
}

/// The one-off cost of `mlockall(MCL_CURRENT | MCL_FUTURE)` for this process as it is (an RT
/// scheduler's start locks memory), undone at once with `munlockall`.
pub(super) fn mlockall_time() -> Row {
    let metric = "mlockall_ns";
    let rss_kb = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0);
    let t = std::time::Instant::now();
    // SAFETY: mlockall takes flags and touches no memory of ours.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    let took = t.elapsed().as_nanos() as f64;
    if rc != 0 {
        return error_row("mlockall", metric, std::io::Error::last_os_error());
    }
    // SAFETY: as above.
    unsafe { libc::munlockall() };
    with_samples(row("mlockall", metric, "same-thread", "1:1"), &mut [took])
        .field("rss_kb", rss_kb)
        .field("note", "one mlockall(MCL_CURRENT | MCL_FUTURE) of this process (its resident size in rss_kb), then munlockall")
}
