//! What a bridge knows of the other hosts, published on this host for its tools: the local
//! topic `nerve/bridge/zenoh` (MessagePack, latest only) holds a [`BridgeView`], rewritten
//! every second. `nerve topic list` and `node list` add the remote topics and nodes it lists,
//! with their host; `nerve doctor` reads its counters. A host that dies leaves the view at the
//! next rewrite (its liveliness tokens go with it).

use serde::{Deserialize, Serialize};

use nerve::plumbing::ZENOH_VIEW_TOPIC;
use nerve::{Msgpack, Publisher, Topic};

use crate::TopicStats;

/// A topic another host exports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteTopic {
    /// Its name.
    pub topic: String,
    /// The host exporting it.
    pub host: String,
    /// Its type, once this bridge imported it ("" otherwise).
    pub type_name: String,
}

/// A node running on another host.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteNode {
    /// Its name.
    pub name: String,
    /// Its host.
    pub host: String,
}

/// A remote topic this bridge would not import: it would have taken more of this host than
/// the bridge's configuration allows (see [`crate::config`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The topic.
    pub topic: String,
    /// The host that announced it (its host name when known, else its bridge id).
    pub host: String,
    /// Why, naming the limit and its configuration key.
    pub reason: String,
    /// How often it was refused.
    pub count: u64,
}

/// What this bridge last learnt of another host's bridge by asking its clock.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostClock {
    /// The other bridge's Zenoh id.
    pub bridge: String,
    /// Its host.
    pub host: String,
    /// Whether it answered within a second.
    pub reachable: bool,
    /// The round trip of the question, µs.
    pub rtt_us: f64,
    /// Its clock minus this host's, µs (within half the round trip).
    pub offset_us: f64,
}

/// A bridge's view of the other hosts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BridgeView {
    /// This host's name.
    pub host: String,
    /// This bridge's Zenoh id.
    pub bridge: String,
    /// This bridge's process.
    pub pid: u32,
    /// The other hosts' bridges seen now: `(bridge id, host name)`.
    pub hosts: Vec<(String, String)>,
    /// The topics other hosts export.
    pub topics: Vec<RemoteTopic>,
    /// The nodes other hosts run.
    pub nodes: Vec<RemoteNode>,
    /// This bridge's counters, per topic.
    pub stats: Vec<TopicStats>,
    /// Topic metas from other hosts refused (unreadable or lying).
    pub bad_metas: u64,
    /// Remote topics refused for this host's limits, counted.
    #[serde(default)]
    pub refused_imports: u64,
    /// The newest of those, with their host and the reason.
    #[serde(default)]
    pub refused: Vec<Refusal>,
    /// How a process on this host opens its own Zenoh session beside the bridge (`direct`):
    /// Zenoh's configuration as JSON (empty: the bridge offers none).
    #[serde(default)]
    pub join: String,
    /// The other hosts' bridges as their clocks answered (every two seconds).
    #[serde(default)]
    pub clocks: Vec<HostClock>,
    /// How this bridge's links are secured: `plain`, `TLS` or `mutual TLS`.
    #[serde(default)]
    pub security: String,
}

fn open(domain: u32) -> Result<Topic<Msgpack<BridgeView>>, nerve::OpenError> {
    Topic::<Msgpack<BridgeView>>::builder(ZENOH_VIEW_TOPIC)
        .domain(domain)
        .latest_only()
        .depth(2)
        .max_message_bytes(4 << 20)
        .open()
}

/// The publisher of this host's view.
pub(crate) fn publisher(domain: u32) -> Result<Publisher<Msgpack<BridgeView>>, nerve::OpenError> {
    open(domain)?.publisher()
}

/// The view of the bridge running on this host, if one runs (creates nothing otherwise).
pub fn read(domain: u32) -> Option<BridgeView> {
    let info = nerve::registry::list(domain)
        .into_iter()
        .find(|t| t.name == ZENOH_VIEW_TOPIC)?;
    if info.publishers() == 0 {
        return None;
    }
    let mut sub = open(domain).ok()?.subscriber_with_history(1).ok()?;
    sub.try_recv().ok().flatten()
}
