//! What the ROS 2 bridge of this host carries, for its tools: the bridge (`nerve.ros2_bridge`)
//! publishes its status on the local topic `nerve/bridge/ros2` (MessagePack, latest only)
//! after every discovery round, and once more, marked stopped, when it stops. `nerve bridge
//! status` and `nerve doctor` read it here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use nerve::plumbing::ROS2_VIEW_TOPIC;
use nerve::{Msgpack, Topic};

/// One topic or service the bridge carries, and its counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Carried {
    /// The ROS 2 name (`/robot/imu`).
    #[serde(default)]
    pub ros: String,
    /// The nerve name, where it differs from the key.
    #[serde(default)]
    pub nerve: String,
    /// The type (ROS 2's or nerve's name).
    #[serde(default, rename = "type")]
    pub type_name: String,
    /// Messages sent into ROS 2 (an export).
    #[serde(default)]
    pub sent: u64,
    /// Messages received from ROS 2 (an import).
    #[serde(default)]
    pub received: u64,
    /// Calls served (a service).
    #[serde(default)]
    pub calls: u64,
    /// Messages or calls that failed (conversion, a full topic, a dead server).
    #[serde(default)]
    pub failed: u64,
}

/// The ROS 2 bridge's status, as it publishes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ros2View {
    /// The bridge's process.
    pub pid: u32,
    /// Its nerve domain.
    pub domain: u32,
    /// nerve topics sent into ROS 2, by nerve name.
    #[serde(default)]
    pub exports: BTreeMap<String, Carried>,
    /// ROS 2 topics brought into nerve, by ROS 2 name.
    #[serde(default)]
    pub imports: BTreeMap<String, Carried>,
    /// ROS 2 services served on nerve.
    #[serde(default)]
    pub ros_services: BTreeMap<String, Carried>,
    /// nerve services served in ROS 2.
    #[serde(default)]
    pub nerve_services: BTreeMap<String, Carried>,
    /// What it does not carry, and why.
    #[serde(default)]
    pub skipped: BTreeMap<String, String>,
    /// Its last status: it stopped.
    #[serde(default)]
    pub stopped: bool,
}

/// The ROS 2 bridge of this host in `domain`, if one runs or ran: its last status, and
/// whether its process still publishes it (false: it stopped or died).
pub fn read(domain: u32) -> Option<(Ros2View, bool)> {
    let info = nerve::registry::list(domain)
        .into_iter()
        .find(|t| t.name == ROS2_VIEW_TOPIC)?;
    // As the bridge opens it (`ros2_bridge.py`): latest-only, depth 2, 1 MiB messages.
    let topic = Topic::<Msgpack<Ros2View>>::builder(ROS2_VIEW_TOPIC)
        .domain(domain)
        .latest_only()
        .depth(2)
        .max_message_bytes(1 << 20)
        .open()
        .ok()?;
    let mut sub = topic.subscriber_with_history(1).ok()?;
    let view = sub.try_recv().ok().flatten()?;
    let alive = info.publishers() > 0 && !view.stopped;
    Some((view, alive))
}
