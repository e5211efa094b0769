//! The phases of a real-time run, each a step of [`Scheduler::run`](crate::Scheduler::run):
//! take hold of the process ([`RunGuards`]: `mlockall`, signal handlers, the e-stop topic,
//! the event lanes' interrupters), start one thread per lane and release them together
//! ([`LaneThreads`]), wait for the end ([`wait_for_end`]), and collect the lanes
//! ([`LaneThreads::collect`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use nerve_transport::sys::futex;
use nerve_transport::time::now_ns;

use super::lane::{async_runtime, Lane, LaneKind};
use crate::error::{RunError, StopReason};
use crate::remote::EStopBridge;
use crate::rt::MemoryLock;
use crate::shared::Shared;
use crate::signal::{self, SignalGuard};
use crate::time::Clock;

/// What a run holds while it runs. Dropping it lets go, in this order: the e-stop publisher
/// and the event lanes' interrupters, the e-stop topic, the signal handlers (the previous
/// ones come back), the memory lock.
pub(super) struct RunGuards {
    shared: Arc<Shared>,
    wakers: Vec<u64>,
    _bridge: Option<EStopBridge>,
    _signals: Option<SignalGuard>,
    _mlock: Option<MemoryLock>,
}

impl RunGuards {
    /// Locks memory (`lock_memory`), installs the SIGINT/SIGTERM handlers (`handle_signals`),
    /// connects the e-stop topic (`estop_topic`: `Some(domain)`), and lets an e-stop or a
    /// stop interrupt the wake sources of `lanes`' event nodes. Only the e-stop topic can
    /// fail; what was taken before is given back then.
    pub(super) fn enter(
        shared: &Arc<Shared>,
        lock_memory: bool,
        handle_signals: bool,
        estop_topic: Option<Option<u32>>,
        lanes: &[Lane],
    ) -> Result<Self, RunError> {
        // Held for the run: undone when `run` returns, unless memory was already locked
        // before (then it is not ours to undo).
        let mlock = if lock_memory {
            let (r, guard) = MemoryLock::acquire();
            shared.report_rt("mlockall(MCL_CURRENT | MCL_FUTURE)".to_owned(), r);
            guard
        } else {
            None
        };
        let signals = if handle_signals {
            match SignalGuard::install(&shared.ctl) {
                Ok(g) => Some(g),
                Err(e) => {
                    tracing::warn!(error = %e, "could not install SIGINT/SIGTERM handlers");
                    None
                }
            }
        } else {
            None
        };
        let bridge = match estop_topic {
            Some(domain) => {
                Some(EStopBridge::start(&shared.estop, domain).map_err(RunError::EStopTopic)?)
            }
            None => None,
        };
        // Event lanes block in their wake source: let e-stop and stop interrupt them.
        let wakers = lanes
            .iter()
            .flat_map(|l| l.slots.iter())
            .filter_map(|s| s.wake.as_ref().and_then(|w| w.interrupter()))
            .map(|w| shared.estop.add_waker(w))
            .collect();
        Ok(Self {
            shared: shared.clone(),
            wakers,
            _bridge: bridge,
            _signals: signals,
            _mlock: mlock,
        })
    }
}

impl Drop for RunGuards {
    fn drop(&mut self) {
        self.shared.estop.clear_publisher();
        for id in self.wakers.drain(..) {
            self.shared.estop.remove_waker(id);
        }
    }
}

/// Where the lane threads wait to start together: every lane initialised, then the start
/// time published.
struct StartGate {
    /// The lanes and the thread that runs the scheduler.
    barrier: Barrier,
    /// The run's start (monotonic ns), published before the second wait.
    start_at: AtomicU64,
}

/// The lane threads of a run, from their start to their return.
pub(super) struct LaneThreads {
    gate: Arc<StartGate>,
    /// Each lane that finished its shutdown comes back here with its index.
    done: Receiver<(usize, Lane)>,
    /// The nodes of each lane, by index, for the report of lanes that never came back.
    lane_nodes: Vec<Vec<String>>,
    spawned: usize,
}

impl LaneThreads {
    /// Starts one thread per lane, named after it; each sets itself up and initialises its
    /// nodes, then waits at the gate. A thread that cannot start fails the run: the lanes
    /// that did start are released at once (they see the stop and shut down).
    pub(super) fn spawn(lanes: Vec<Lane>, shared: &Arc<Shared>, async_threads: usize) -> Self {
        let n = lanes.len();
        let gate = Arc::new(StartGate {
            barrier: Barrier::new(n + 1),
            start_at: AtomicU64::new(0),
        });
        let (done_tx, done) = mpsc::channel::<(usize, Lane)>();
        let mut lane_nodes = Vec::new();
        let mut spawned = 0;
        for (i, lane) in lanes.into_iter().enumerate() {
            lane_nodes.push(lane.slots.iter().map(|s| s.sh.name.clone()).collect());
            let name = lane.name.clone();
            let (sh, g, tx) = (shared.clone(), gate.clone(), done_tx.clone());
            let r = std::thread::Builder::new()
                .name(name.clone())
                .spawn(move || lane_main(lane, i, &sh, &g, async_threads, &tx));
            if let Err(error) = r {
                shared.fail(RunError::Spawn { lane: name, error });
                // The barrier counts every lane: stand in for the ones that did not start.
                for _ in spawned..n {
                    let g = gate.clone();
                    std::thread::spawn(move || {
                        g.barrier.wait();
                        g.barrier.wait();
                    });
                }
                break;
            }
            spawned += 1;
        }
        Self {
            gate,
            done,
            lane_nodes,
            spawned,
        }
    }

    /// Waits until every lane is initialised, then publishes the start (1 ms from now, on the
    /// monotonic clock) and lets the lanes go. Returns the start.
    pub(super) fn start(&self) -> u64 {
        self.gate.barrier.wait();
        let start = now_ns() + 1_000_000;
        // pairs with the Acquire load in lane_main() after the second wait
        self.gate.start_at.store(start, Ordering::Release);
        self.gate.barrier.wait();
        start
    }

    /// Waits for the lanes to finish their shutdown, at most `timeout` in all; returns the
    /// nodes of the lanes that did not (stuck in a hung node: abandoned, their `shutdown` did
    /// not run).
    pub(super) fn collect(self, timeout: Duration) -> Vec<String> {
        let give_up = now_ns().saturating_add(nerve_transport::time::duration_ns(timeout));
        let mut back = vec![false; self.lane_nodes.len()];
        let mut returned = 0;
        while returned < self.spawned {
            let left = give_up.saturating_sub(now_ns());
            match self.done.recv_timeout(Duration::from_nanos(left)) {
                Ok((i, lane)) => {
                    back[i] = true;
                    returned += 1;
                    drop(lane);
                }
                Err(_) => break,
            }
        }
        let stuck: Vec<String> = back
            .iter()
            .zip(self.lane_nodes)
            .filter(|(b, _)| !**b)
            .flat_map(|(_, nodes)| nodes)
            .collect();
        if !stuck.is_empty() {
            tracing::error!(
                ?stuck,
                "lanes did not finish shutdown in time; their nodes' shutdown did not run"
            );
        }
        stuck
    }
}

/// A lane thread, from set-up to shutdown: real-time set-up, the async lane's runtime (it
/// exists before `init` and lives past `shutdown`, so a node can spawn onto it from all
/// three), `init`, the start gate, the lane's loop, `shutdown`; then the lane goes back to
/// the scheduler as lane `i`.
fn lane_main(
    mut lane: Lane,
    i: usize,
    shared: &Arc<Shared>,
    gate: &StartGate,
    async_threads: usize,
    done: &Sender<(usize, Lane)>,
) {
    lane.setup_thread(shared);
    let rt = match (lane.kind == LaneKind::Async).then(|| async_runtime(&lane.name, async_threads))
    {
        Some(Ok(rt)) => Some(rt),
        Some(Err(error)) => {
            shared.fail(RunError::Spawn {
                lane: format!("{} (tokio runtime)", lane.name),
                error,
            });
            None
        }
        None => None,
    };
    let ctx = rt.as_ref().map(|rt| rt.enter());
    if let Err(e) = lane.init_all(shared) {
        shared.fail(e);
    }
    // Every lane initialised; then the start time published.
    gate.barrier.wait();
    gate.barrier.wait();
    // pairs with the Release store in LaneThreads::start() before the second wait
    let start = gate.start_at.load(Ordering::Acquire);
    if !shared.stopping() {
        lane.run(shared, start, rt.as_ref());
    }
    lane.lower();
    lane.shutdown_all(shared, &Clock::Mono, start);
    drop(ctx);
    if let Some(rt) = rt {
        // Tasks the nodes spawned get a moment to finish.
        rt.shutdown_timeout(Duration::from_millis(100));
    }
    let _ = done.send((i, lane));
}

/// Waits until the run ends: a stop (handle, node, policy), SIGINT/SIGTERM, or `end`
/// (monotonic ns) when the run has a duration, which is then recorded as the reason.
pub(super) fn wait_for_end(shared: &Shared, end: Option<u64>) {
    let word = &shared.ctl;
    loop {
        // pairs with the Release increments in Shared::kick_ctl() and signal::on_signal(): a
        // kick after this load ends the wait below at once, and a signal recorded before a
        // kick this load sees is seen by take_signal()
        let gen = word.load(Ordering::Acquire);
        if let Some(sig) = signal::take_signal() {
            tracing::info!(signal = sig, "signal received; stopping");
            shared.request_stop(StopReason::Signal(sig));
        }
        if shared.stopping() {
            break;
        }
        let now = now_ns();
        if end.is_some_and(|e| now >= e) {
            shared.request_stop(StopReason::Elapsed);
            break;
        }
        let wake = end.map_or(now + 100_000_000, |e| e.min(now + 100_000_000));
        futex::wait_until_private(word, gen, wake);
    }
}
