//! A [`Lane`]: one thread and the slots it runs, with its loop — periodic (RT lanes, the
//! compute lane with its pool, deterministic mode), event (one node blocked in its wake
//! source) or async (one tokio task per node) — and its thread's real-time set-up.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use nerve_transport::sys::futex;
use nerve_transport::time::now_ns;

use super::pool::{Batch, Pool, SlotPtr};
use super::slot::Slot;
use crate::error::RunError;
use crate::rt;
use crate::shared::Shared;
use crate::time::{set_min_timer_slack, sleep_until, Clock};

/// What a lane runs; lanes are ordered by kind (RT first) when they are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LaneKind {
    Rt { priority: u8, cpu: Option<usize> },
    Compute,
    Async,
    Event,
}

/// One thread's share of the nodes.
pub(super) struct Lane {
    pub(super) name: String,
    pub(super) kind: LaneKind,
    /// In tick order (ascending `order`, then the order the nodes were added).
    pub(super) slots: Vec<Slot>,
    spin_ns: u64,
    /// Non-RT lanes: SCHED_FIFO priority to wait at
    /// ([`SchedulerBuilder::estop_priority`](crate::SchedulerBuilder::estop_priority)).
    boost: Option<u8>,
    /// Whether the thread is at the boost priority now.
    boosted: bool,
    /// Threads running this lane's ticks (the compute pool; 1 for every other lane).
    pool_threads: usize,
}

impl Lane {
    /// An empty lane; `spin_ns` before planned starts, waiting at `boost`, ticks on
    /// `pool_threads` threads.
    pub(super) fn new(
        name: String,
        kind: LaneKind,
        spin_ns: u64,
        boost: Option<u8>,
        pool_threads: usize,
    ) -> Self {
        Self {
            name,
            kind,
            slots: Vec::new(),
            spin_ns,
            boost,
            boosted: false,
            pool_threads,
        }
    }

    /// Real-time setup for this lane's thread, recorded in the report.
    pub(super) fn setup_thread(&mut self, shared: &Shared) {
        set_min_timer_slack();
        if let Some(p) = self.boost {
            // Try it once now (init runs unboosted); the lane raises itself before each wait.
            let r = rt::set_fifo(p).and_then(|()| rt::set_other());
            if r.is_err() {
                self.boost = None;
            }
            shared.report_rt(
                format!(
                    "SCHED_FIFO priority {p} while lane {} waits (estop_priority)",
                    self.name
                ),
                r,
            );
        }
        if let LaneKind::Rt { priority, cpu } = self.kind {
            if let Some(cpu) = cpu {
                shared.report_rt(
                    format!("pin lane {} to cpu {cpu}", self.name),
                    rt::pin_to(cpu),
                );
            }
            shared.report_rt(
                format!("SCHED_FIFO priority {priority} on lane {}", self.name),
                rt::set_fifo(priority),
            );
        }
    }

    /// Before waiting: back to the boost priority, so an e-stop wakes this lane at once.
    fn raise(&mut self) {
        if let (Some(p), false) = (self.boost, self.boosted) {
            self.boosted = rt::set_fifo(p).is_ok();
        }
    }

    /// Before ticks: back to normal scheduling (ticks never run boosted).
    pub(super) fn lower(&mut self) {
        if self.boosted {
            self.boosted = false;
            if let Err(e) = rt::set_other() {
                tracing::warn!(lane = %self.name, error = %e, "could not leave the e-stop priority; waiting unboosted from now on");
                self.boost = None;
            }
        }
    }

    /// Calls `init` on every node, in order. Returns the first failure.
    pub(super) fn init_all(&mut self, shared: &Shared) -> Result<(), RunError> {
        self.slots.iter_mut().try_for_each(|s| s.init(shared))
    }

    /// Calls `shutdown` on every node that was initialised, in order.
    pub(super) fn shutdown_all(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        for s in &mut self.slots {
            s.shutdown(shared, clock, start);
        }
    }

    /// Puts every node into its safe state if the e-stop is triggered.
    fn check_estop(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        if shared.estop.is_triggered() {
            for s in &mut self.slots {
                s.enter_safe(shared, clock, start);
            }
        }
    }

    /// Runs this lane's loop on the monotonic clock until the run stops: event lanes block in
    /// their wake source, the async lane runs its nodes as tasks on `rt`, the others tick
    /// periodically (the compute lane with its pool, started here).
    pub(super) fn run(
        &mut self,
        shared: &Arc<Shared>,
        start: u64,
        rt: Option<&tokio::runtime::Runtime>,
    ) {
        let clock = Clock::Mono;
        if self.kind == LaneKind::Event {
            self.run_event(shared, &clock, start);
        } else if let Some(rt) = rt {
            self.run_async(shared, start, rt);
        } else {
            let pool = (self.pool_threads > 1)
                .then(|| Pool::start(self.pool_threads - 1, shared.clone(), &self.name));
            self.run_periodic(shared, &clock, start, None, pool.as_ref());
        }
    }

    /// The periodic lane loop, for real and simulated clocks. `end` bounds simulated runs.
    pub(super) fn run_periodic(
        &mut self,
        shared: &Shared,
        clock: &Clock,
        start: u64,
        end: Option<u64>,
        pool: Option<&Pool>,
    ) {
        let word = shared.estop.word();
        loop {
            // Read the wake word before checking the flags, so a kick after the check still
            // ends the sleep below. pairs with the Release increment in EStop::kick()
            let gen = word.load(Ordering::Acquire);
            if shared.stopping() {
                break;
            }
            self.check_estop(shared, clock, start);
            let next = self
                .slots
                .iter()
                .filter(|s| !s.dead)
                .map(|s| s.planned(start))
                .min();
            let Some(next) = next else {
                // Every node is dead: wait for the stop.
                if let Clock::Sim(_) = clock {
                    break;
                }
                futex::wait_until_private(word, gen, now_ns() + 100_000_000);
                continue;
            };
            match clock {
                Clock::Mono => {
                    self.raise();
                    if !sleep_until(word, gen, next, self.spin_ns) {
                        continue;
                    }
                    self.lower();
                }
                Clock::Sim(c) => {
                    if end.is_some_and(|e| next >= e) {
                        break;
                    }
                    c.advance_to(next);
                }
            }
            self.run_due(shared, clock, start, pool);
        }
    }

    /// Runs every slot due now, group by group (a group: consecutive slots of one `order`),
    /// each group on the pool when it has more than one due slot and the pool more than one
    /// thread. Stops early when the run stops.
    fn run_due(&mut self, shared: &Shared, clock: &Clock, start: u64, pool: Option<&Pool>) {
        let now = clock.now_ns();
        let due = |s: &Slot| !s.dead && s.planned(start) <= now;
        let mut i = 0;
        while i < self.slots.len() {
            let order = self.slots[i].order;
            let mut j = i + 1;
            while j < self.slots.len() && self.slots[j].order == order {
                j += 1;
            }
            let n_due = self.slots[i..j].iter().filter(|s| due(s)).count();
            match pool {
                Some(pool) if n_due > 1 && pool.width() > 1 => {
                    let idx: Vec<usize> = (i..j).filter(|&k| due(&self.slots[k])).collect();
                    // One base pointer for every item (no reborrow of the Vec between).
                    let base = self.slots.as_mut_ptr();
                    let items = idx
                        .into_iter()
                        .map(|k| SlotPtr(base.wrapping_add(k)))
                        .collect();
                    // The slots i..j are distinct and this thread does not touch them
                    // until `run` returns (Batch::new's contract).
                    pool.run(Batch::new(items, clock.clone(), start));
                }
                _ => {
                    for k in i..j {
                        let s = &mut self.slots[k];
                        if !due(s) {
                            continue;
                        }
                        s.run_tick(shared, clock, start);
                        if shared.estop.is_triggered() {
                            self.check_estop(shared, clock, start);
                        }
                        if shared.stopping() {
                            break;
                        }
                    }
                }
            }
            if shared.estop.is_triggered() {
                self.check_estop(shared, clock, start);
            }
            if shared.stopping() {
                break;
            }
            i = j;
        }
    }

    /// The event lane loop: one node, ticked once per wake-up of its source.
    fn run_event(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        loop {
            if shared.stopping() {
                break;
            }
            self.check_estop(shared, clock, start);
            if self.slots[0].dead {
                let word = shared.estop.word();
                // pairs with the Release increment in EStop::kick()
                futex::wait_until_private(
                    word,
                    word.load(Ordering::Acquire),
                    now_ns() + 100_000_000,
                );
                continue;
            }
            self.raise();
            let woke = match self.slots[0].wake.as_mut() {
                Some(w) => w.wait(Duration::from_millis(20)),
                None => false,
            };
            if woke && !shared.stopping() {
                if shared.estop.is_triggered() {
                    self.check_estop(shared, clock, start);
                }
                self.lower();
                self.slots[0].run_tick(shared, clock, start);
            }
        }
    }

    /// The async lane: one task per node on `rt`; returns when every task ended (stop),
    /// with the slots back in place for `shutdown_all`.
    fn run_async(&mut self, shared: &Arc<Shared>, start: u64, rt: &tokio::runtime::Runtime) {
        // E-stop and stop wake every task (Notified futures are enabled before the flags are
        // checked, so a kick in between is not lost).
        let notify = Arc::new(tokio::sync::Notify::new());
        let n = notify.clone();
        let waker = shared.estop.add_waker(Box::new(move || n.notify_waiters()));
        let names: Vec<String> = self.slots.iter().map(|s| s.sh.name.clone()).collect();
        let tasks: Vec<_> = std::mem::take(&mut self.slots)
            .into_iter()
            .map(|slot| rt.spawn(async_node(slot, shared.clone(), notify.clone(), start)))
            .collect();
        self.slots = rt.block_on(async {
            let mut back = Vec::new();
            for (t, name) in tasks.into_iter().zip(names) {
                match t.await {
                    Ok(slot) => back.push(slot),
                    Err(e) => {
                        tracing::error!(node = %name, error = %e, "async node task ended abnormally; its shutdown will not run")
                    }
                }
            }
            back
        });
        shared.estop.remove_waker(waker);
    }
}

/// One async node: sleep (precise timer) until the next planned tick, or until an e-stop or
/// stop wakes it; tick; repeat.
async fn async_node(
    mut s: Slot,
    shared: Arc<Shared>,
    notify: Arc<tokio::sync::Notify>,
    start: u64,
) -> Slot {
    let clock = Clock::Mono;
    loop {
        let notified = notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if shared.stopping() {
            break;
        }
        if shared.estop.is_triggered() {
            s.enter_safe(&shared, &clock, start);
        }
        if s.dead {
            notified.await;
            continue;
        }
        let next = s.planned(start);
        if now_ns() < next {
            tokio::select! {
                _ = crate::aio::Sleep::at_ns(next) => {}
                _ = &mut notified => continue,
            }
        }
        s.run_tick(&shared, &clock, start);
    }
    s
}

/// The async lane's runtime: current-thread on the lane's own thread (`workers` = 0) or
/// multi-thread.
pub(super) fn async_runtime(
    lane: &str,
    workers: usize,
) -> std::io::Result<tokio::runtime::Runtime> {
    if workers == 0 {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name(format!("{lane}-w"))
            .on_thread_start(|| {
                set_min_timer_slack();
            })
            .enable_time()
            .build()
    }
}
