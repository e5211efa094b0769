//! The [`Scheduler`]: built from a [`SchedulerBuilder`], it runs nodes on lanes until it is
//! stopped, then reports.
//!
//! The files, each depending only on those listed before it:
//! - `builder.rs`: [`SchedulerBuilder`], [`NodeEntry`] — the options as given;
//! - `slot.rs`: one node on its lane — its timeline, a measured tick, the miss and failure
//!   policies, the safe state;
//! - `pool.rs`: the compute pool's helper threads;
//! - `lane.rs`: a lane's thread and its loop (periodic, event, async);
//! - `plan.rs`: the options checked and the nodes laid out on lanes;
//! - `watchdog.rs`, `idle.rs`: the watchdog thread, the idle pollers;
//! - `run.rs`: the phases of a real-time run;
//! - `mod.rs` (here): the scheduler, its handle, and the run put together from those phases.
//!
//! What the lanes share with the nodes' contexts and the handles is in `crate::shared`, the
//! errors in `crate::error`.

mod builder;
mod idle;
mod lane;
mod plan;
mod pool;
mod run;
mod slot;
mod watchdog;

use std::sync::Arc;
use std::time::Duration;

use nerve_transport::time::duration_ns;

pub use builder::{NodeEntry, SchedulerBuilder};

use crate::announce::Announcer;
use builder::Options;
use idle::IdlePollers;
use lane::Lane;
use run::{wait_for_end, LaneThreads, RunGuards};
use watchdog::Watchdog;

use crate::error::{BuildError, RunError, StopReason};
use crate::estop::EStop;
use crate::rt::RtReport;
use crate::shared::{Outcome, Shared};
use crate::stats::{self, NodeStats};
use crate::time::{Clock, SimClock};

/// Runs nodes on time and says when they are not. Build with [`Scheduler::builder`].
pub struct Scheduler {
    /// Taken by the run (`None` afterwards: a scheduler runs once).
    lanes: Option<Vec<Lane>>,
    shared: Arc<Shared>,
    settings: Settings,
}

/// What a run needs of the options, and of the plan.
struct Settings {
    sim: Option<SimClock>,
    /// `mlockall` for the run: the builder's choice, or whether a node asked for real time.
    lock_memory: bool,
    handle_signals: bool,
    print_stats: bool,
    shutdown_timeout: Duration,
    /// How often the watchdog looks; `None`: no node is watched, no watchdog thread.
    watchdog_tick: Option<Duration>,
    /// The domain the nodes are announced in; `None`: not announced.
    announce: Option<u32>,
    estop_topic: Option<Option<u32>>,
    async_threads: usize,
    /// CPUs an idle poller keeps awake during `run` ([`SchedulerBuilder::idle_poll`]).
    poll_cpus: Vec<usize>,
}

/// A handle on a scheduler usable from other threads, also while it runs: stop it, read its
/// statistics, reach its e-stop.
#[derive(Clone)]
pub struct SchedulerHandle {
    shared: Arc<Shared>,
}

impl SchedulerHandle {
    /// Asks the scheduler to stop; every node's `shutdown` runs. `run` returns
    /// `Ok(StopReason::Requested)`.
    pub fn stop(&self) {
        self.shared.request_stop(StopReason::Requested);
    }

    /// Statistics so far, one entry per node in the order they were added.
    pub fn stats(&self) -> Vec<NodeStats> {
        self.shared.stats()
    }

    /// The scheduler's e-stop.
    pub fn estop(&self) -> EStop {
        self.shared.estop.clone()
    }

    /// The real-time setup report so far.
    pub fn rt_report(&self) -> RtReport {
        self.shared.rt_report()
    }
}

impl SchedulerBuilder {
    /// Checks the options and builds the scheduler (no thread starts before `run`).
    pub fn build(self) -> Result<Scheduler, BuildError> {
        Scheduler::from_builder(self)
    }
}

impl NodeEntry {
    /// Checks the options and builds the scheduler.
    pub fn build(self) -> Result<Scheduler, BuildError> {
        self.done().build()
    }
}

impl Scheduler {
    /// Starts building a scheduler.
    pub fn builder() -> SchedulerBuilder {
        SchedulerBuilder::default()
    }

    /// Plans the lanes, then sets up the state they will share.
    fn from_builder(b: SchedulerBuilder) -> Result<Self, BuildError> {
        let SchedulerBuilder { specs, opts } = b;
        let plan = plan::plan(specs, &opts)?;
        let Options {
            sim,
            handle_signals,
            print_stats,
            lock_memory,
            estop,
            estop_topic,
            async_threads,
            shutdown_timeout,
            announce,
            domain,
            ..
        } = opts;
        let shared = Arc::new(Shared::new(estop.unwrap_or_default(), plan.nodes));
        Ok(Self {
            lanes: Some(plan.lanes),
            shared,
            settings: Settings {
                sim,
                lock_memory: lock_memory.unwrap_or(plan.wants_rt),
                handle_signals,
                print_stats,
                shutdown_timeout,
                watchdog_tick: plan.watchdog_tick,
                estop_topic,
                async_threads,
                poll_cpus: plan.poll_cpus,
                announce: announce.then(|| domain.unwrap_or_else(nerve_transport::default_domain)),
            },
        })
    }

    /// A handle to stop the scheduler, read statistics or reach the e-stop from other threads.
    pub fn handle(&self) -> SchedulerHandle {
        SchedulerHandle {
            shared: self.shared.clone(),
        }
    }

    /// The scheduler's e-stop.
    pub fn estop(&self) -> EStop {
        self.shared.estop.clone()
    }

    /// Statistics, one entry per node in the order they were added.
    pub fn stats(&self) -> Vec<NodeStats> {
        self.shared.stats()
    }

    /// The statistics table printed at shutdown.
    pub fn stats_table(&self) -> String {
        stats::format_table(&self.stats())
    }

    /// What real-time setup was asked for and what the OS refused. Filled by `run`.
    pub fn rt_report(&self) -> RtReport {
        self.shared.rt_report()
    }

    /// Runs until stopped (handle, node, SIGINT/SIGTERM, or a policy). An error opening the
    /// e-stop topic (when asked for) ends the run before any node starts.
    pub fn run(&mut self) -> Result<StopReason, RunError> {
        self.run_inner(None)
    }

    /// Runs for `d` (simulated time in deterministic mode), or until stopped earlier.
    pub fn run_for(&mut self, d: Duration) -> Result<StopReason, RunError> {
        self.run_inner(Some(d))
    }

    /// A real-time run: take hold of the process, start the lane threads, wait for the end,
    /// shut down (lanes, pollers, watchdog), report, let go of the process.
    fn run_inner(&mut self, limit: Option<Duration>) -> Result<StopReason, RunError> {
        let lanes = self.lanes.take().ok_or(RunError::AlreadyRan)?;
        if let Some(sim) = self.settings.sim.clone() {
            return self.run_simulated(lanes, sim, limit);
        }
        let s = &self.settings;
        let guards = match RunGuards::enter(
            &self.shared,
            s.lock_memory,
            s.handle_signals,
            s.estop_topic,
            &lanes,
        ) {
            Ok(g) => g,
            Err(e) => {
                self.lanes = Some(lanes);
                return Err(e);
            }
        };
        let threads = LaneThreads::spawn(lanes, &self.shared, s.async_threads);
        let pollers = IdlePollers::start(&s.poll_cpus, &self.shared);
        let start = threads.start();
        let watchdog = s.watchdog_tick.map(|t| Watchdog::start(&self.shared, t));
        let announcer = s.announce.map(|d| Announcer::start(&self.shared, d));
        wait_for_end(
            &self.shared,
            limit.map(|d| start.saturating_add(duration_ns(d))),
        );
        let stuck = threads.collect(s.shutdown_timeout);
        pollers.stop();
        if let Some(w) = watchdog {
            w.stop(&self.shared);
        }
        if let Some(a) = announcer {
            a.stop(&self.shared);
        }
        self.report();
        drop(guards);
        match self.outcome() {
            Err(RunError::NodeHung { node, timeout, .. }) => Err(RunError::NodeHung {
                node,
                timeout,
                stuck,
            }),
            other => other,
        }
    }

    /// Deterministic mode: the one (compute) lane on the caller's thread, on `sim`.
    fn run_simulated(
        &mut self,
        mut lanes: Vec<Lane>,
        sim: SimClock,
        limit: Option<Duration>,
    ) -> Result<StopReason, RunError> {
        let clock = Clock::Sim(sim.clone());
        let start = sim.now_ns();
        let end = limit.map(|d| start.saturating_add(duration_ns(d)));
        for lane in &mut lanes {
            if let Err(e) = lane.init_all(&self.shared) {
                self.shared.fail(e);
            }
            if !self.shared.stopping() {
                lane.run_periodic(&self.shared, &clock, start, end, None);
            }
            if let Some(e) = end {
                sim.advance_to(e);
            }
            lane.shutdown_all(&self.shared, &clock, start);
        }
        self.report();
        self.outcome()
    }

    /// How the run ended: the first reason recorded, or the duration being over.
    fn outcome(&self) -> Result<StopReason, RunError> {
        match self.shared.take_outcome() {
            None => Ok(StopReason::Elapsed),
            Some(Outcome::Stop(r)) => Ok(r),
            Some(Outcome::Fail(e)) => Err(e),
        }
    }

    /// Logs the statistics table, and prints it (and what real-time setup failed) to stderr
    /// unless asked not to.
    fn report(&self) {
        let table = self.stats_table();
        tracing::info!("scheduler statistics\n{table}");
        if self.settings.print_stats {
            eprintln!("{table}");
            let rep = self.rt_report();
            if !rep.all_ok() {
                eprint!("real-time setup:\n{rep}");
            }
        }
    }
}
