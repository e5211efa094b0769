//! Nodes that announce themselves: while a scheduler runs, each of its nodes publishes its
//! statistics once a second on the latest-only topic `nerve/node/<name>` ([`NodeRecord`]), so
//! `nerve node list` and `node info` in another process see the nodes of a domain, their
//! rate, lateness and misses, and which are gone ([`nodes`]). The last record says `up = 0`
//! when the scheduler stops; a node whose process died is told by its life token (see
//! `nerve_shm::liveness`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use nerve_transport::registry;
use nerve_transport::sys::{futex, ProcessId};
use nerve_transport::time::{duration_ns, now_ns};
use nerve_transport::{Message as _, Publisher, Topic};

use crate::shared::Shared;
use crate::stats::NodeStats;

/// The prefix of the node topics.
pub const NODE_TOPIC_PREFIX: &str = "nerve/node/";

/// How often a running node's record is refreshed.
pub const ANNOUNCE_EVERY: Duration = Duration::from_secs(1);

/// Bytes of a node name a record carries.
pub const NODE_NAME_LEN: usize = 64;

/// One node's identity and statistics, on `nerve/node/<name>`: 224 bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve_transport::msgs::Message)]
#[message(
    crate = "nerve_transport::msgs",
    name = "nerve/NodeRecord",
    default = "zeroed"
)]
#[repr(C)]
pub struct NodeRecord {
    /// `CLOCK_MONOTONIC` ns when this record was written.
    pub stamp_ns: u64,
    /// Life token of the node's process (`nerve_shm::liveness`): whether it lives, in any
    /// pid namespace.
    pub token: u64,
    /// The node's process.
    pub pid: u32,
    /// 1 while the scheduler runs, 0 once it stopped.
    pub up: u32,
    /// Requested rate (Hz); 0 for event nodes.
    pub rate_hz: f64,
    /// Ticks per second achieved.
    pub achieved_hz: f64,
    /// Ticks run.
    pub ticks: u64,
    /// Deadline misses.
    pub misses: u64,
    /// Ticks over their budget.
    pub budget_overruns: u64,
    /// Ticks skipped.
    pub skipped: u64,
    /// Panics caught.
    pub panics: u64,
    /// Restarts after a panic.
    pub restarts: u64,
    /// Hangs the watchdog found.
    pub hangs: u64,
    /// Start lateness, median (ns).
    pub lateness_p50_ns: u64,
    /// Start lateness, 99th percentile (ns).
    pub lateness_p99_ns: u64,
    /// Start lateness, largest (ns).
    pub lateness_max_ns: u64,
    /// Tick duration, median (ns).
    pub tick_p50_ns: u64,
    /// Tick duration, 99th percentile (ns).
    pub tick_p99_ns: u64,
    /// Tick duration, largest (ns).
    pub tick_max_ns: u64,
    /// Bytes of `name` in use.
    pub name_len: u32,
    /// Reserved, zero.
    pub flags: u32,
    /// The node's name, UTF-8.
    pub name: [u8; NODE_NAME_LEN],
}

impl NodeRecord {
    fn of(s: &NodeStats, up: bool) -> Self {
        let me = ProcessId::current();
        let mut name = [0u8; NODE_NAME_LEN];
        let n = s.name.len().min(NODE_NAME_LEN);
        name[..n].copy_from_slice(&s.name.as_bytes()[..n]);
        NodeRecord {
            stamp_ns: now_ns(),
            token: me.token,
            pid: me.pid,
            up: u32::from(up),
            rate_hz: s.rate_hz,
            achieved_hz: s.achieved_hz,
            ticks: s.ticks(),
            misses: s.misses,
            budget_overruns: s.budget_overruns,
            skipped: s.skipped,
            panics: s.panics,
            restarts: s.restarts,
            hangs: s.hangs,
            lateness_p50_ns: s.lateness_ns.p50,
            lateness_p99_ns: s.lateness_ns.p99,
            lateness_max_ns: s.lateness_ns.max,
            tick_p50_ns: s.tick_ns.p50,
            tick_p99_ns: s.tick_ns.p99,
            tick_max_ns: s.tick_ns.max,
            name_len: n as u32,
            flags: 0,
            name,
        }
    }

    /// What is known of a node whose process `pid` died: its name and pid.
    fn dead(name: &str, process: ProcessId) -> Self {
        let mut name_bytes = [0u8; NODE_NAME_LEN];
        let n = name.len().min(NODE_NAME_LEN);
        name_bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
        NodeRecord {
            pid: process.pid,
            token: process.token,
            up: 1,
            name_len: n as u32,
            name: name_bytes,
            ..Default::default()
        }
    }

    /// The node's name (invalid UTF-8 replaced).
    pub fn name(&self) -> String {
        let n = (self.name_len as usize).min(NODE_NAME_LEN);
        String::from_utf8_lossy(&self.name[..n]).into_owned()
    }

    /// The node's process.
    pub fn process(&self) -> ProcessId {
        ProcessId {
            pid: self.pid,
            token: self.token,
        }
    }

    /// Whether the node runs: its scheduler has not stopped and its process lives.
    pub fn alive(&self) -> bool {
        self.up == 1 && self.process().is_alive()
    }
}

/// The nodes announced in `domain`, by name: running ones with their latest record; those
/// whose process died with a record carrying only their name and pid (reading a dead
/// publisher's topic would remove it, the transport's clean-up of stale topics, so the tool
/// that looks does not make the death vanish), whose [`NodeRecord::alive`] is false.
pub fn nodes(domain: u32) -> Vec<NodeRecord> {
    let mut out: Vec<NodeRecord> = registry::list(domain)
        .iter()
        .filter(|t| t.name.starts_with(NODE_TOPIC_PREFIX) && t.type_name == NodeRecord::TYPE_NAME)
        .filter_map(|t| {
            let name = &t.name[NODE_TOPIC_PREFIX.len()..];
            if t.publishers() == 0 {
                let dead = t.endpoints.iter().find(|e| e.publisher && !e.alive)?;
                return Some(NodeRecord::dead(name, dead.process));
            }
            let topic = Topic::<NodeRecord>::builder(&t.name)
                .domain(domain)
                .latest_only()
                .open()
                .ok()?;
            let mut sub = topic.subscriber_with_history(1).ok()?;
            sub.try_recv().ok().flatten()
        })
        .collect();
    out.sort_by_key(NodeRecord::name);
    out
}

/// The running announcer; [`Announcer::stop`] writes the last records (`up = 0`) and ends it.
pub(crate) struct Announcer {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Announcer {
    /// Starts the thread publishing the records of `shared`'s nodes in `domain`. Nodes whose
    /// name is not a valid topic name are not announced (a debug line says so).
    pub(crate) fn start(shared: &Arc<Shared>, domain: u32) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let publishers: Vec<Option<Publisher<NodeRecord>>> = shared
            .nodes
            .iter()
            .map(|n| {
                let topic = format!("{NODE_TOPIC_PREFIX}{}", n.name);
                Topic::<NodeRecord>::builder(&topic)
                    .domain(domain)
                    .latest_only()
                    .depth(2)
                    .open()
                    .and_then(|t| t.publisher())
                    .map_err(|e| tracing::debug!(node = %n.name, error = %e, "node not announced"))
                    .ok()
            })
            .collect();
        let (sh, d) = (shared.clone(), done.clone());
        let thread = std::thread::Builder::new()
            .name("nerve-announce".to_owned())
            .spawn(move || announce(&sh, &d, &publishers));
        if let Err(e) = &thread {
            tracing::warn!(error = %e, "could not start the node announcer; `nerve node list` will not see these nodes");
        }
        Announcer {
            done,
            thread: thread.ok(),
        }
    }

    /// Stops the thread (it writes the final records) and waits for it.
    pub(crate) fn stop(self, shared: &Shared) {
        // pairs with the Acquire load in announce()
        self.done.store(true, Ordering::Release);
        shared.kick_ctl();
        if let Some(t) = self.thread {
            let _ = t.join();
        }
    }
}

fn publish(shared: &Shared, publishers: &[Option<Publisher<NodeRecord>>], up: bool) {
    for (stats, p) in shared.stats().iter().zip(publishers) {
        if let Some(p) = p {
            let _ = p.send(&NodeRecord::of(stats, up));
        }
    }
}

fn announce(shared: &Shared, done: &AtomicBool, publishers: &[Option<Publisher<NodeRecord>>]) {
    let word = &shared.ctl;
    loop {
        // The word is read before `done`: a stop whose kick comes after this read changes the
        // word, so the wait below returns at once; one whose kick came before it stored `done`
        // first, which the load below then sees. (Read after `done`, a kick between the two
        // was lost and the stop waited out a whole ANNOUNCE_EVERY.)
        // pairs with the Release increment in Shared::kick_ctl()
        let gen = word.load(Ordering::Acquire);
        // pairs with the Release store in Announcer::stop()
        if done.load(Ordering::Acquire) {
            break;
        }
        publish(shared, publishers, true);
        futex::wait_until_private(
            word,
            gen,
            now_ns().saturating_add(duration_ns(ANNOUNCE_EVERY)),
        );
    }
    publish(shared, publishers, false);
}

/// Each process running live nodes of `nodes`, named by them (`camera_driver + imu_driver`):
/// how views label a process in a graph.
pub fn process_labels(nodes: &[NodeRecord]) -> std::collections::BTreeMap<u32, String> {
    let mut names: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    for n in nodes.iter().filter(|n| n.alive()) {
        names.entry(n.pid).or_default().push(n.name());
    }
    names
        .into_iter()
        .map(|(pid, n)| (pid, n.join(" + ")))
        .collect()
}
