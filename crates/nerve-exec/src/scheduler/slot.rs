//! One node on its lane: the [`Slot`] (the node, its timeline, its policies, where it stands)
//! and what happens to it — init, a tick measured against its planned start, the miss and
//! failure policies, the safe state, shutdown. Every call into the node is caught
//! (`catch_unwind`) here.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use nerve_transport::time::{duration_ns, now_ns};

use super::builder::NodeSpec;
use crate::error::RunError;
use crate::node::{Context, Node};
use crate::policy::{FailurePolicy, MissPolicy};
use crate::shared::{NodeShared, Shared};
use crate::time::Clock;
use crate::wake::WakeSource;

/// A node and everything its lane needs to run it.
pub(super) struct Slot {
    node: Box<dyn Node>,
    /// Position within a tick ([`NodeEntry::order`](crate::NodeEntry::order)).
    pub(super) order: i64,
    pub(super) sh: Arc<NodeShared>,
    /// Nominal period; 0 for event nodes.
    period_ns: u64,
    /// The timeline: tick `k` is planned at start + `timeline.offset(k)`.
    timeline: Timeline,
    deadline_ns: u64,
    budget_ns: Option<u64>,
    on_miss: MissPolicy,
    on_budget: MissPolicy,
    on_panic: FailurePolicy,
    pub(super) wake: Option<Box<dyn WakeSource>>,
    k: u64,
    /// `timeline.offset(k)`, kept with `k` by [`Slot::set_k`] (the lane loop asks for it
    /// several times per tick; computing it takes a 128-bit division).
    offset: u64,
    skip_next: u32,
    needs_init: bool,
    inited: bool,
    safe: bool,
    /// Stopped for good by its failure policy; the lane passes it by.
    pub(super) dead: bool,
    restarts: u32,
}

impl Slot {
    /// The slot of `spec`'s node; `period_ns` is 0 for an event node.
    pub(super) fn new(spec: NodeSpec, sh: Arc<NodeShared>, period_ns: u64) -> Self {
        Self {
            node: spec.node,
            order: spec.order,
            sh,
            period_ns,
            timeline: Timeline {
                hz: spec.rate.unwrap_or(1.0),
            },
            deadline_ns: spec.deadline.map_or(period_ns, duration_ns),
            budget_ns: spec.budget.map(duration_ns),
            on_miss: spec.on_miss,
            on_budget: spec.on_budget,
            on_panic: spec.on_panic,
            wake: spec.wake,
            k: 0,
            offset: 0,
            skip_next: 0,
            needs_init: false,
            inited: false,
            safe: false,
            dead: false,
            restarts: 0,
        }
    }

    fn set_k(&mut self, k: u64) {
        self.k = k;
        self.offset = self.timeline.offset(k);
    }

    /// The planned start of the next tick, on the clock of `start`.
    pub(super) fn planned(&self, start: u64) -> u64 {
        start + self.offset
    }

    /// What the node sees during one call: times from the scheduler's `start`.
    fn context<'a>(&self, shared: &'a Shared, now: Duration, planned: Duration) -> Context<'a> {
        Context {
            now,
            planned,
            tick: self.k,
            safe: self.safe,
            shared,
        }
    }

    /// The first `init`, before any node ticks.
    pub(super) fn init(&mut self, shared: &Shared) -> Result<(), RunError> {
        let mut ctx = self.context(shared, Duration::ZERO, Duration::ZERO);
        let error = match catch_unwind(AssertUnwindSafe(|| self.node.init(&mut ctx))) {
            Ok(Ok(())) => {
                self.inited = true;
                return Ok(());
            }
            Ok(Err(e)) => e.to_string(),
            Err(p) => format!("panic: {}", panic_message(&*p)),
        };
        Err(RunError::InitFailed {
            node: self.sh.name.clone(),
            error,
        })
    }

    /// `shutdown`, if `init` ran.
    pub(super) fn shutdown(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        if !self.inited {
            return;
        }
        let now = Duration::from_nanos(clock.now_ns().saturating_sub(start));
        let mut ctx = self.context(shared, now, now);
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| self.node.shutdown(&mut ctx))) {
            tracing::error!(node = %self.sh.name, panic = %panic_message(&*p), "shutdown panicked");
        }
    }

    /// Puts the node into its safe state (once): `on_safe_state`, and the latency from the
    /// e-stop trigger into its statistics.
    pub(super) fn enter_safe(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        if self.safe || !self.inited {
            return;
        }
        let entered = now_ns();
        let t = shared.estop.triggered_ns();
        self.safe = true;
        if t != 0 {
            self.sh.rec().safe_state_latency =
                Some(Duration::from_nanos(entered.saturating_sub(t)));
        }
        let now = Duration::from_nanos(clock.now_ns().saturating_sub(start));
        let mut ctx = self.context(shared, now, now);
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| self.node.on_safe_state(&mut ctx))) {
            tracing::error!(node = %self.sh.name, panic = %panic_message(&*p), "on_safe_state panicked");
        }
    }

    /// Runs the tick that is due: a skip the miss policy asked for, `init` after a restart,
    /// then the tick itself, measured against its planned start and recorded; then the next
    /// planned tick, and the miss and failure policies.
    pub(super) fn run_tick(&mut self, shared: &Shared, clock: &Clock, start: u64) {
        let event = self.period_ns == 0;
        let t_enter = clock.now_ns();
        let planned = if event { t_enter } else { self.planned(start) };
        if self.skip_next > 0 {
            self.skip_next -= 1;
            self.sh.rec().skipped += 1;
            self.set_k(self.k + 1);
            return;
        }
        if self.needs_init && !self.init_again(shared, clock, start, t_enter, planned) {
            return;
        }
        let t0 = clock.now_ns();
        let watched = self.sh.watchdog_ns != 0;
        if watched {
            // pairs with the Acquire load in watchdog::check()
            self.sh.tick_started.store(t0.max(1), Ordering::Release);
        }
        let mut ctx = self.context(
            shared,
            Duration::from_nanos(t0.saturating_sub(start)),
            Duration::from_nanos(planned.saturating_sub(start)),
        );
        let r = catch_unwind(AssertUnwindSafe(|| self.node.tick(&mut ctx)));
        let t1 = clock.now_ns();
        if watched {
            // pairs with the Acquire load in watchdog::check(): "not in a tick" from now on
            self.sh.tick_started.store(0, Ordering::Release);
        }
        let missed_by = (t1.saturating_sub(planned))
            .checked_sub(self.deadline_ns)
            .filter(|d| *d > 0 && !event);
        self.record(start, planned, t0, t1, missed_by.is_some());
        self.advance(t1.saturating_sub(start), event);
        if let Err(p) = r {
            self.on_failure(shared, panic_message(&*p), t1, start);
            return;
        }
        if let Some(by) = missed_by {
            self.on_miss(shared, clock, start, by);
        }
        let used = t1.saturating_sub(t0);
        if let Some(budget) = self.budget_ns.filter(|&b| used > b) {
            self.on_overrun(shared, clock, start, used, budget);
        }
    }

    /// `init` after a restart; `false` (and the failure policy applied) if it failed.
    fn init_again(
        &mut self,
        shared: &Shared,
        clock: &Clock,
        start: u64,
        t_enter: u64,
        planned: u64,
    ) -> bool {
        self.needs_init = false;
        let mut ctx = self.context(
            shared,
            Duration::from_nanos(t_enter.saturating_sub(start)),
            Duration::from_nanos(planned.saturating_sub(start)),
        );
        let msg = match catch_unwind(AssertUnwindSafe(|| self.node.init(&mut ctx))) {
            Ok(Ok(())) => return true,
            Ok(Err(e)) => format!("init after restart failed: {e}"),
            Err(p) => format!("init after restart panicked: {}", panic_message(&*p)),
        };
        self.on_failure(shared, msg, clock.now_ns(), start);
        false
    }

    /// Records a tick that started at `t0` and ended at `t1` (clock ns).
    fn record(&self, start: u64, planned: u64, t0: u64, t1: u64, missed: bool) {
        let late = t0.saturating_sub(planned);
        let dur = t1.saturating_sub(t0);
        let mut rec = self.sh.rec();
        rec.record_tick(t0, t0.saturating_sub(start), dur, late);
        if missed {
            rec.misses += 1;
        }
        if self.budget_ns.is_some_and(|b| dur > b) {
            rec.budget_overruns += 1;
        }
    }

    /// Moves to the next tick: the next planned start, or, if the node fell a whole period
    /// behind, the latest planned start not after `now` (from the start; earlier ones are
    /// skipped, never bunched up).
    fn advance(&mut self, now: u64, event: bool) {
        self.set_k(self.k + 1);
        // offset(k+1) ≥ offset(k) + period − 1, so only a node at least that far along can be
        // a whole period behind: skip the search (128-bit divisions) otherwise.
        if !event && now + 1 >= self.offset + self.period_ns {
            let behind = self.timeline.last_at_or_before(now);
            if behind > self.k {
                self.sh.rec().skipped += behind - self.k;
                self.set_k(behind);
            }
        }
    }

    /// The miss policy, for a tick that ended `by` ns after its deadline.
    fn on_miss(&mut self, shared: &Shared, clock: &Clock, start: u64, by: u64) {
        let misses = self.sh.rec().misses;
        match self.on_miss {
            MissPolicy::Warn => {
                if misses.is_power_of_two() {
                    tracing::warn!(node = %self.sh.name, late_by_ns = by, misses, "deadline miss");
                }
            }
            MissPolicy::Skip => self.skip_next = 1,
            MissPolicy::SafeState => {
                tracing::warn!(node = %self.sh.name, late_by_ns = by, "deadline miss: entering safe state");
                self.enter_safe(shared, clock, start);
            }
            MissPolicy::Stop => {
                tracing::error!(node = %self.sh.name, late_by_ns = by, "deadline miss: stopping");
                shared.fail(RunError::DeadlineMissed {
                    node: self.sh.name.clone(),
                    late_by: Duration::from_nanos(by),
                });
            }
        }
    }

    /// The budget policy, for a tick that took `used` ns against a budget of `budget` ns.
    fn on_overrun(&mut self, shared: &Shared, clock: &Clock, start: u64, used: u64, budget: u64) {
        let overruns = self.sh.rec().budget_overruns;
        match self.on_budget {
            MissPolicy::Warn => {
                if overruns.is_power_of_two() {
                    tracing::warn!(node = %self.sh.name, used_ns = used, budget_ns = budget, overruns, "budget overrun");
                }
            }
            MissPolicy::Skip => self.skip_next = 1,
            MissPolicy::SafeState => {
                tracing::warn!(node = %self.sh.name, used_ns = used, budget_ns = budget, "budget overrun: entering safe state");
                self.enter_safe(shared, clock, start);
            }
            MissPolicy::Stop => {
                tracing::error!(node = %self.sh.name, used_ns = used, budget_ns = budget, "budget overrun: stopping");
                shared.fail(RunError::BudgetOverrun {
                    node: self.sh.name.clone(),
                    used: Duration::from_nanos(used),
                    budget: Duration::from_nanos(budget),
                });
            }
        }
    }

    /// The failure policy, for a panic (or a failed `init` after a restart) at `now`.
    fn on_failure(&mut self, shared: &Shared, message: String, now: u64, start: u64) {
        self.sh.rec().panics += 1;
        match self.on_panic {
            FailurePolicy::Skip => {
                tracing::warn!(node = %self.sh.name, %message, "node panicked; skipping this tick");
            }
            FailurePolicy::Restart { max, backoff } if self.restarts < max => {
                self.restarts += 1;
                self.sh.rec().restarts += 1;
                let delay = backoff.saturating_mul(1u32 << (self.restarts - 1).min(20));
                tracing::warn!(node = %self.sh.name, %message, restart = self.restarts, ?delay, "node panicked; restarting");
                self.needs_init = true;
                if self.period_ns > 0 {
                    let resume = now.saturating_add(duration_ns(delay));
                    let k = self
                        .timeline
                        .first_at_or_after(resume.saturating_sub(start));
                    if k > self.k {
                        self.sh.rec().skipped += k - self.k;
                        self.set_k(k);
                    }
                } else {
                    std::thread::sleep(delay);
                }
            }
            _ => {
                tracing::error!(node = %self.sh.name, %message, "node panicked; fatal");
                self.dead = true;
                shared.fail(RunError::NodePanicked {
                    node: self.sh.name.clone(),
                    message,
                });
            }
        }
    }
}

/// The text of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

/// Planned tick offsets from the start, never accumulated: offset(k) = ⌈k · 10⁹ / hz⌉ ns,
/// exact integer arithmetic for integer rates (so 3 Hz puts tick 30 at exactly 10 s).
#[derive(Clone, Copy, Debug)]
struct Timeline {
    hz: f64,
}

impl Timeline {
    fn offset(&self, k: u64) -> u64 {
        if self.hz.fract() == 0.0 {
            (k as u128 * 1_000_000_000u128).div_ceil(self.hz as u128) as u64
        } else {
            (k as f64 * 1e9 / self.hz).ceil() as u64
        }
    }

    /// The largest k with offset(k) ≤ t.
    fn last_at_or_before(&self, t: u64) -> u64 {
        let mut k = (t as f64 * self.hz / 1e9) as u64;
        while k > 0 && self.offset(k) > t {
            k -= 1;
        }
        while self.offset(k + 1) <= t {
            k += 1;
        }
        k
    }

    /// The smallest k with offset(k) ≥ t.
    fn first_at_or_after(&self, t: u64) -> u64 {
        let k = self.last_at_or_before(t);
        if self.offset(k) >= t {
            k
        } else {
            k + 1
        }
    }
}
