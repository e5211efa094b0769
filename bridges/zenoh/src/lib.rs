//! nerve across machines: a bridge between one host's shared-memory topics and Zenoh.
//!
//! One bridge runs per host (`nerve bridge zenoh`, or [`Bridge::start`] in a program). It
//! exports the host's topics that match its configuration, each as the Zenoh key
//! `nerve/<domain>/<topic>`, and imports other hosts' topics, creating each local topic from
//! the type, QoS and description the exporting bridge answers with (a local topic of another
//! type is the same loud `TypeMismatch` as on one host). Messages travel in nerve's own
//! encoding; `wire` has the keys and what travels with a message.
//!
//! - **QoS**: a reliable topic is sent reliably with blocking congestion control (a 6 MB image
//!   waits for room, it is never dropped); a best-effort one may be dropped under congestion,
//!   and a latest-only one sends only its newest message. Gaps in a sender's sequence
//!   numbers are counted as lost on the receiving side (a jump of more than 2^20, or back,
//!   as a reset instead).
//! - **No echo loops**: a message leaves only from the host where it was published (`nerve::echo`).
//! - **Discovery**: every bridge holds a liveliness token for its host and one per exported
//!   topic; a host that dies takes its tokens with it, and its topics stop being imported.
//! - **Hostile input**: a message whose type hash, size or attachment is wrong, or a meta that
//!   does not parse, is counted as rejected and dropped; the bridge goes on serving the rest.
//!   What another host may make this one allocate is bounded by the configuration (per topic,
//!   in total, topics at once: [`config`]); metas are asked for concurrently, each with its own
//!   deadline, so a host that never answers delays no one else's topics.

#![warn(missing_docs)]

mod ask;
mod clock;
pub mod config;
mod dedup;
pub mod direct;
mod export;
mod import;
mod limits;
pub mod network;
mod services;
pub mod view;
pub mod wire;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use zenoh::Wait;

pub use config::BridgeConfig;

/// Why a bridge could not start or do something.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The configuration is wrong.
    #[error("bridge configuration, {what}: {reason}")]
    Config {
        /// Where (the file, the key).
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// Zenoh refused (a session that cannot open: an endpoint in use, a bad certificate).
    #[error("zenoh: {0}. Check the `zenoh` part of the bridge's configuration")]
    Zenoh(String),
    /// The local domain could not be watched.
    #[error("cannot watch nerve domain {domain}: {reason}")]
    Domain {
        /// The domain.
        domain: u32,
        /// Why.
        reason: String,
    },
}

fn zerr(e: impl std::fmt::Display) -> BridgeError {
    BridgeError::Zenoh(e.to_string())
}

/// What the bridge counted on one topic.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TopicStats {
    /// The topic.
    pub topic: String,
    /// Sent to other hosts.
    pub sent: u64,
    /// Received from other hosts and published here.
    pub received: u64,
    /// Missing from a sender's sequence (dropped on the way: a best-effort topic under
    /// congestion, a link that went down).
    pub lost: u64,
    /// Refused: wrong type hash, size or attachment (a lying or broken host).
    pub rejected: u64,
    /// Received but not published here (the local topic refused it: full, damaged).
    pub dropped: u64,
    /// Discontinuities in a sender's sequence: a jump of more than 2^20 forward, or back (its
    /// topic restarted, or a host lies). Counted here rather than as that many lost.
    #[serde(default)]
    pub resets: u64,
    /// Published here but never sent: overwritten in the local ring before the bridge read
    /// it (a best-effort topic faster than the network). Latest-only topics skip older
    /// messages by design; those are not counted.
    pub missed: u64,
    /// Copies of a message already delivered (the bridge and the publishing process both
    /// sent it during a hand-over), dropped here.
    #[serde(default)]
    pub duplicates: u64,
    /// Exported, and every publisher of it here sends it to other hosts itself: the bridge
    /// leaves it to them (`direct`).
    #[serde(default)]
    pub direct: bool,
    /// Whether this host exports it / imports it now.
    pub exported: bool,
    /// See `exported`.
    pub imported: bool,
}

#[derive(Debug, Default)]
struct Counters {
    sent: AtomicU64,
    received: AtomicU64,
    lost: AtomicU64,
    rejected: AtomicU64,
    dropped: AtomicU64,
    resets: AtomicU64,
    missed: AtomicU64,
    duplicates: AtomicU64,
    /// The export is left to the topic's publishers (all of them send directly).
    direct: AtomicBool,
}

/// One topic as the bridge knows it (exported, imported, or both).
#[derive(Default)]
struct TopicState {
    echo: nerve::echo::EchoFilter,
    counters: Counters,
    export: Mutex<Option<export::Export>>,
    import: Mutex<Option<import::Import>>,
}

struct Inner {
    config: BridgeConfig,
    session: zenoh::Session,
    id: [u8; 16],
    id_str: String,
    stop: AtomicBool,
    topics: Mutex<BTreeMap<String, Arc<TopicState>>>,
    /// Remote bridges seen (their id → host name).
    hosts: Mutex<BTreeMap<String, String>>,
    /// Topics other bridges export: `(bridge, topic)`.
    remote_topics: Mutex<BTreeSet<(String, String)>>,
    /// Nodes on other hosts: `(bridge, node)`.
    remote_nodes: Mutex<BTreeSet<(String, String)>>,
    /// Services exported and imported.
    services: Mutex<services::Services>,
    /// Publishers this bridge holds, per topic (imported topics, served remote services'
    /// records): a topic is exported when it has more publishers than these, so the bridge
    /// may share its process with an application's publishers.
    own: Mutex<BTreeMap<String, u32>>,
    /// Meta answers that did not parse, or lied (counted apart from any topic).
    bad_metas: AtomicU64,
    /// Remote topics refused for this host's limits.
    refusals: Mutex<limits::Refusals>,
    /// What the view tells this host's processes to open their own sessions with.
    join: String,
    /// The other hosts' clocks, as last asked.
    clocks: Mutex<Vec<view::HostClock>>,
}

impl Inner {
    fn topic(&self, name: &str) -> Arc<TopicState> {
        let mut t = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        t.entry(name.to_owned()).or_default().clone()
    }

    /// The topic's state if the bridge knows it (creates nothing: a remote announcement alone
    /// must not grow the bridge).
    fn known_topic(&self, name: &str) -> Option<Arc<TopicState>> {
        let t = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        t.get(name).cloned()
    }

    /// The host name of bridge `bridge` as its host token says, else `fallback`.
    fn host_of(&self, bridge: &str, fallback: &str) -> String {
        let hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        match hosts.get(bridge) {
            Some(h) => h.clone(),
            None if fallback.is_empty() => bridge.to_owned(),
            None => fallback.to_owned(),
        }
    }

    /// How many publishers of `topic` this bridge holds.
    fn own_publishers(&self, topic: &str) -> u32 {
        let own = self.own.lock().unwrap_or_else(|e| e.into_inner());
        own.get(topic).copied().unwrap_or(0)
    }

    fn stopping(&self) -> bool {
        // Relaxed: a flag polled by loops that only need to see it eventually.
        self.stop.load(Relaxed)
    }
}

/// A publisher of `topic` the bridge holds, counted while this lives (taken before the
/// publisher is opened, so the local watch never counts it as an application's).
pub(crate) struct OwnPublisher {
    inner: std::sync::Weak<Inner>,
    topic: String,
}

impl OwnPublisher {
    pub(crate) fn new(inner: &Arc<Inner>, topic: &str) -> Self {
        let mut own = inner.own.lock().unwrap_or_else(|e| e.into_inner());
        *own.entry(topic.to_owned()).or_insert(0) += 1;
        OwnPublisher {
            inner: Arc::downgrade(inner),
            topic: topic.to_owned(),
        }
    }
}

impl Drop for OwnPublisher {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            let mut own = inner.own.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = own.get_mut(&self.topic) {
                *n = n.saturating_sub(1);
            }
        }
    }
}

/// A running bridge; dropping it stops it (its tokens go, other hosts stop importing from it).
pub struct Bridge {
    inner: Arc<Inner>,
    threads: Vec<JoinHandle<()>>,
    _host_token: zenoh::liveliness::LivelinessToken,
    _declared: Vec<Box<dyn std::any::Any + Send>>,
}

impl Bridge {
    /// Opens the Zenoh session and starts exporting and importing.
    pub fn start(config: BridgeConfig) -> Result<Bridge, BridgeError> {
        let session = zenoh::open(config.zenoh.clone()).wait().map_err(zerr)?;
        let join =
            direct::DirectConfig::beside(&config).map_or_else(|_| String::new(), |d| d.json());
        let zid = session.zid();
        let id: [u8; 16] = zid.to_le_bytes();
        let inner = Arc::new(Inner {
            id,
            id_str: zid.to_string(),
            session,
            config,
            stop: AtomicBool::new(false),
            topics: Mutex::default(),
            hosts: Mutex::default(),
            remote_topics: Mutex::default(),
            remote_nodes: Mutex::default(),
            services: Mutex::default(),
            own: Mutex::default(),
            bad_metas: AtomicU64::new(0),
            refusals: Mutex::default(),
            join,
            clocks: Mutex::default(),
        });
        let (domain, me) = (inner.config.domain, inner.id_str.clone());
        let host_token = inner
            .session
            .liveliness()
            .declare_token(wire::host_token(domain, &me, &inner.config.host))
            .wait()
            .map_err(zerr)?;
        let mut declared: Vec<Box<dyn std::any::Any + Send>> = vec![
            Box::new(export::serve_metas(&inner)?),
            Box::new(import::follow_hosts(&inner)?),
            Box::new(import::follow_nodes(&inner)?),
            Box::new(clock::serve(&inner)?),
        ];
        let view = view::publisher(domain).map_err(|e| BridgeError::Domain {
            domain,
            reason: e.to_string(),
        })?;
        let (import_tx, import_rx) = std::sync::mpsc::channel();
        let asks = ask::Asks::new(import_tx.clone());
        declared.push(Box::new(services::serve_metas(&inner)?));
        declared.push(Box::new(services::follow(&inner, import_tx.clone())?));
        declared.push(Box::new(import::follow_topics(&inner, import_tx)?));
        let watch = nerve::registry::watch(domain).map_err(|e| BridgeError::Domain {
            domain,
            reason: e.to_string(),
        })?;
        let threads = vec![
            spawn("nerve-zenoh-export", {
                let inner = inner.clone();
                move || export::watch_local(&inner, watch)
            }),
            spawn("nerve-zenoh-import", {
                let inner = inner.clone();
                move || import::run(&inner, import_rx, asks, &view)
            }),
            spawn("nerve-zenoh-clock", {
                let inner = inner.clone();
                move || clock::run(&inner)
            }),
        ];
        tracing::info!(bridge = %inner.id_str, host = %inner.config.host, domain, "bridge up");
        Ok(Bridge {
            inner,
            threads,
            _host_token: host_token,
            _declared: declared,
        })
    }

    /// This bridge's Zenoh id.
    pub fn id(&self) -> &str {
        &self.inner.id_str
    }

    /// What the bridge counted, per topic, by name.
    pub fn stats(&self) -> Vec<TopicStats> {
        self.inner.stats()
    }

    /// The other hosts' bridges seen now: `(bridge id, host name)`.
    pub fn hosts(&self) -> Vec<(String, String)> {
        let h = self.inner.hosts.lock().unwrap_or_else(|e| e.into_inner());
        h.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// What this bridge publishes for the tools on its host (see [`view`]).
    pub fn view(&self) -> view::BridgeView {
        self.inner.view()
    }

    /// Topic metas from other hosts that did not parse or lied (refused).
    pub fn bad_metas(&self) -> u64 {
        // Relaxed: a statistic.
        self.inner.bad_metas.load(Relaxed)
    }

    /// Remote topics refused for this host's limits: how many, and the newest with their
    /// host and the reason.
    pub fn refused(&self) -> (u64, Vec<view::Refusal>) {
        let r = self
            .inner
            .refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        r.view()
    }
}

impl Inner {
    fn stats(&self) -> Vec<TopicStats> {
        let topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        topics
            .iter()
            .map(|(name, t)| {
                let c = &t.counters;
                TopicStats {
                    topic: name.clone(),
                    // Relaxed: statistics, read without ordering against anything.
                    sent: c.sent.load(Relaxed),
                    received: c.received.load(Relaxed),
                    lost: c.lost.load(Relaxed),
                    rejected: c.rejected.load(Relaxed),
                    dropped: c.dropped.load(Relaxed),
                    resets: c.resets.load(Relaxed),
                    missed: c.missed.load(Relaxed),
                    duplicates: c.duplicates.load(Relaxed),
                    direct: c.direct.load(Relaxed),
                    exported: t.export.lock().unwrap_or_else(|e| e.into_inner()).is_some(),
                    imported: t.import.lock().unwrap_or_else(|e| e.into_inner()).is_some(),
                }
            })
            .collect()
    }

    fn view(&self) -> view::BridgeView {
        let hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let host_of = |bridge: &str| hosts.get(bridge).cloned().unwrap_or_default();
        let stats = self.stats();
        let type_of = |topic: &str| {
            let t = self.topics.lock().unwrap_or_else(|e| e.into_inner());
            t.get(topic)
                .and_then(|s| {
                    let i = s.import.lock().unwrap_or_else(|e| e.into_inner());
                    i.as_ref().map(|i| i.type_name.clone())
                })
                .unwrap_or_default()
        };
        let topics = self
            .remote_topics
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let nodes = self
            .remote_nodes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let (refused_imports, refused) = self
            .refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .view();
        view::BridgeView {
            host: self.config.host.clone(),
            bridge: self.id_str.clone(),
            pid: std::process::id(),
            hosts: hosts.iter().map(|(b, h)| (b.clone(), h.clone())).collect(),
            topics: topics
                .iter()
                .map(|(b, t)| view::RemoteTopic {
                    topic: t.clone(),
                    host: host_of(b),
                    type_name: type_of(t),
                })
                .collect(),
            nodes: nodes
                .iter()
                .map(|(b, n)| view::RemoteNode {
                    name: n.clone(),
                    host: host_of(b),
                })
                .collect(),
            stats,
            // Relaxed: a statistic.
            bad_metas: self.bad_metas.load(Relaxed),
            refused_imports,
            refused,
            join: self.join.clone(),
            clocks: nerve::sys::lock(&self.clocks).clone(),
            security: clock::security(&self.config.zenoh),
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // Relaxed: see `Inner::stopping`; the joins below order everything after.
        self.inner.stop.store(true, Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        let topics =
            std::mem::take(&mut *self.inner.topics.lock().unwrap_or_else(|e| e.into_inner()));
        for t in topics.values() {
            export::signal_stop(t);
        }
        for t in topics.values() {
            export::stop(t);
            import::stop(t);
        }
        // Imported services' servers stop (callers here get NoServer), exported ones' tokens go.
        drop(std::mem::take(
            &mut *self
                .inner
                .services
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        ));
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .stack_size(256 << 10)
        .spawn(f)
        .expect("a thread starts")
}
