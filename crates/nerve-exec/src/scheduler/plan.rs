//! From the builder's options to lanes: check every option, then put each node on its lane in
//! tick order (RT nodes by `(priority, cpu)`, compute nodes on the compute lane, async nodes
//! on the async lane, each event node on a lane of its own).

use nerve_transport::time::duration_ns;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use super::builder::{NodeSpec, Options};
use super::lane::{Lane, LaneKind};
use super::slot::Slot;
use crate::error::BuildError;
use crate::policy::ExecClass;
use crate::shared::NodeShared;

/// The nodes laid out on lanes, and what the run needs to know about them.
pub(super) struct Plan {
    /// Ordered by [`LaneKind`] (RT lanes first).
    pub(super) lanes: Vec<Lane>,
    /// Every node's shared view, in the order the nodes were added.
    pub(super) nodes: Vec<Arc<NodeShared>>,
    /// Whether a node asked for a real-time lane (then `mlockall` by default).
    pub(super) wants_rt: bool,
    /// How often the watchdog looks, when a node is watched.
    pub(super) watchdog_tick: Option<Duration>,
    /// CPUs an idle poller keeps awake during `run` ([`Options::idle_poll`]).
    pub(super) poll_cpus: Vec<usize>,
}

/// Checks the options and lays the nodes out on lanes. The first problem found is the error,
/// looking at the scheduler's options first, then at the nodes in tick order.
pub(super) fn plan(specs: Vec<NodeSpec>, opts: &Options) -> Result<Plan, BuildError> {
    check_scheduler_options(&specs, opts)?;
    let deterministic = opts.sim.is_some();
    let mut names = HashSet::new();
    let mut lanes: BTreeMap<(LaneKind, usize), Lane> = BTreeMap::new();
    let mut nodes: Vec<(usize, Arc<NodeShared>)> = Vec::new();
    let mut wants_rt = false;
    let mut watchdog_tick: Option<Duration> = None;
    let mut n_event = 0;
    for (seq, spec) in in_tick_order(specs) {
        let name = spec.node.name().to_owned();
        if !names.insert(name.clone()) {
            return Err(BuildError::DuplicateName(name));
        }
        let event = spec.class == ExecClass::Event;
        let period_ns = period_ns(&spec, &name, deterministic)?;
        let kind = lane_kind(&spec, &name, deterministic)?;
        wants_rt |= matches!(kind, LaneKind::Rt { .. });
        // Event nodes get a lane each; others share the lane of their kind.
        let key = (kind, if kind == LaneKind::Event { n_event } else { 0 });
        if kind == LaneKind::Event {
            n_event += 1;
        }
        let lane = lanes
            .entry(key)
            .or_insert_with(|| new_lane(kind, &name, opts));
        let watchdog = spec.watchdog.or(opts.watchdog).filter(|_| !deterministic);
        if let Some(w) = watchdog {
            let t = (w / 4).clamp(Duration::from_millis(1), Duration::from_millis(100));
            watchdog_tick = Some(watchdog_tick.map_or(t, |x| x.min(t)));
        }
        let sh = Arc::new(NodeShared::new(
            name,
            spec.rate.filter(|_| !event).unwrap_or(0.0),
            watchdog.map_or(0, duration_ns),
            spec.on_hang,
        ));
        nodes.push((seq, sh.clone()));
        lane.slots.push(Slot::new(spec, sh, period_ns));
    }
    let lanes: Vec<Lane> = lanes.into_values().collect();
    let poll_cpus = poll_cpus(&lanes, opts);
    nodes.sort_by_key(|(seq, _)| *seq);
    Ok(Plan {
        lanes,
        nodes: nodes.into_iter().map(|(_, sh)| sh).collect(),
        wants_rt,
        watchdog_tick,
        poll_cpus,
    })
}

/// What does not depend on a node: at least one node, a valid e-stop priority.
fn check_scheduler_options(specs: &[NodeSpec], opts: &Options) -> Result<(), BuildError> {
    if specs.is_empty() {
        return Err(BuildError::NoNodes);
    }
    if let Some(p) = opts.estop_priority.filter(|p| !(1..=99).contains(p)) {
        return Err(BuildError::InvalidEStopPriority(p));
    }
    Ok(())
}

/// The nodes in the order their lane ticks them (ascending `order`, then the order they were
/// added), each with its place among the nodes added.
fn in_tick_order(specs: Vec<NodeSpec>) -> Vec<(usize, NodeSpec)> {
    let mut specs: Vec<(usize, NodeSpec)> = specs.into_iter().enumerate().collect();
    specs.sort_by_key(|(seq, s)| (s.order, *seq));
    specs
}

/// The kind of lane the node runs on (every node is a compute node in deterministic mode);
/// checks the priority an RT node asks for.
fn lane_kind(spec: &NodeSpec, name: &str, deterministic: bool) -> Result<LaneKind, BuildError> {
    Ok(match spec.class {
        _ if deterministic => LaneKind::Compute,
        ExecClass::Rt { priority, cpu } => {
            if !(1..=99).contains(&priority) {
                return Err(BuildError::InvalidPriority {
                    node: name.into(),
                    priority,
                });
            }
            LaneKind::Rt { priority, cpu }
        }
        ExecClass::Compute => LaneKind::Compute,
        ExecClass::Async => LaneKind::Async,
        ExecClass::Event => LaneKind::Event,
    })
}

/// The nominal period of a periodic node, from its rate; 0 for an event node, which needs a
/// wake source and real time.
fn period_ns(spec: &NodeSpec, name: &str, deterministic: bool) -> Result<u64, BuildError> {
    if spec.class == ExecClass::Event {
        if deterministic {
            return Err(BuildError::EventInDeterministic { node: name.into() });
        }
        if spec.wake.is_none() {
            return Err(BuildError::MissingWakeSource { node: name.into() });
        }
        return Ok(0);
    }
    let hz = spec
        .rate
        .ok_or_else(|| BuildError::MissingRate { node: name.into() })?;
    if nerve_transport::time::checked_hz(hz).is_err() {
        return Err(BuildError::InvalidRate {
            node: name.into(),
            hz,
        });
    }
    Ok(((1e9 / hz).round() as u64).max(1))
}

/// A new lane of `kind`, named after it (event lanes after their node, `first`).
fn new_lane(kind: LaneKind, first: &str, opts: &Options) -> Lane {
    let deterministic = opts.sim.is_some();
    let name = match kind {
        LaneKind::Rt {
            priority,
            cpu: Some(c),
        } => format!("rt-p{priority}-c{c}"),
        LaneKind::Rt {
            priority,
            cpu: None,
        } => format!("rt-p{priority}"),
        LaneKind::Compute => "compute".to_owned(),
        LaneKind::Async => "async".to_owned(),
        LaneKind::Event => format!("ev-{first}"),
    };
    let spin_ns = match kind {
        LaneKind::Rt { .. } => duration_ns(opts.spin),
        LaneKind::Compute => duration_ns(opts.compute_spin),
        _ => 0,
    };
    let boost = match kind {
        LaneKind::Rt { .. } | LaneKind::Async => None,
        _ => opts.estop_priority.filter(|_| !deterministic),
    };
    let pool_threads = if kind == LaneKind::Compute && !deterministic {
        opts.compute_threads
            .unwrap_or_else(default_compute_threads)
            .max(1)
    } else {
        1
    };
    Lane::new(name, kind, spin_ns, boost, pool_threads)
}

/// The compute pool's default size: the CPUs this process may use.
fn default_compute_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The CPUs RT lanes are pinned to, when idle polling is asked for (real time only).
fn poll_cpus(lanes: &[Lane], opts: &Options) -> Vec<usize> {
    if !opts.idle_poll || opts.sim.is_some() {
        return Vec::new();
    }
    let mut cpus: Vec<usize> = lanes
        .iter()
        .filter_map(|l| match l.kind {
            LaneKind::Rt { cpu, .. } => cpu,
            _ => None,
        })
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}
