//! What a topic is to nerve: a user's topic, or one of nerve's own, and which. The one place
//! that decides it: the recorder, `nerve topic list`, `nerve node info`, the view page, the
//! Foxglove view and the Zenoh and ROS 2 bridges all ask [`TopicKind::of`] and choose by kind.
//!
//! A kind is read from the topic's type where the type says it (a service's frames and server
//! record, a node record, the e-stop, a log level change), and from its reserved name where
//! the type is a generic one (MessagePack: the log, a type announcement, a bridge's view).

use nerve_exec::announce::NODE_TOPIC_PREFIX;
use nerve_exec::ESTOP_TOPIC;
use nerve_transport::name::RESERVED_PREFIX;
use nerve_transport::registry::TopicInfo;
use nerve_transport::Msgpack;

use crate::log::{LOG_LEVEL_TOPIC, LOG_TOPIC};
use crate::Message;

/// The Zenoh bridge's view of itself (what it exports and imports), for `nerve bridge status`.
pub const ZENOH_VIEW_TOPIC: &str = "nerve/bridge/zenoh";

/// The ROS 2 bridge's view of itself (what it carries each way, what it skipped and why), for
/// `nerve bridge status` and `nerve doctor`.
pub const ROS2_VIEW_TOPIC: &str = "nerve/bridge/ros2";

/// What a topic is to nerve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TopicKind {
    /// A user's topic: everything nerve's tools show, record and bridge.
    User,
    /// The log (`nerve/log`): the robot's story, shown apart and recorded.
    Log,
    /// Log level changes (`nerve/log_level`): an operator's act, recorded.
    LogLevel,
    /// The e-stop (`nerve/estop`): shown apart and recorded.
    EStop,
    /// A node's record (`nerve/node/<name>`): what `nerve node` reads.
    NodeRecord,
    /// A service's requests or responses (`S/request`, `S/response/<client>`).
    ServiceFrame,
    /// A service's server record (`S/server`).
    ServerRecord,
    /// A service's or action's types (`S/type`).
    Interface,
    /// A bridge's view of itself (`nerve/bridge/zenoh`, `nerve/bridge/ros2`).
    BridgeView,
    /// Another topic under nerve's reserved prefix (`nerve/`).
    Reserved,
}

impl TopicKind {
    /// The kind of topic `name` of type `type_name` (as the registry lists them).
    pub fn of(name: &str, type_name: &str) -> TopicKind {
        let msgpack = type_name == <Msgpack<()> as Message>::TYPE_NAME;
        if type_name == nerve_rpc::discovery::FRAME_TYPE_NAME {
            TopicKind::ServiceFrame
        } else if type_name == nerve_rpc::discovery::SERVER_RECORD_TYPE_NAME {
            TopicKind::ServerRecord
        } else if type_name == <nerve_exec::announce::NodeRecord as Message>::TYPE_NAME {
            TopicKind::NodeRecord
        } else if name == ESTOP_TOPIC {
            TopicKind::EStop
        } else if name == LOG_LEVEL_TOPIC {
            TopicKind::LogLevel
        } else if name == LOG_TOPIC && msgpack {
            TopicKind::Log
        } else if (name == ZENOH_VIEW_TOPIC || name == ROS2_VIEW_TOPIC) && msgpack {
            TopicKind::BridgeView
        } else if name.ends_with("/type") && msgpack {
            TopicKind::Interface
        } else if name.starts_with(NODE_TOPIC_PREFIX) {
            TopicKind::NodeRecord
        } else if name.starts_with(RESERVED_PREFIX) {
            TopicKind::Reserved
        } else {
            TopicKind::User
        }
    }

    /// The kind of a topic the registry lists.
    pub fn of_info(t: &TopicInfo) -> TopicKind {
        TopicKind::of(&t.name, &t.type_name)
    }

    /// One of nerve's own topics (not a user's): the bridges carry none of them.
    pub fn is_nerve(self) -> bool {
        self != TopicKind::User
    }

    /// nerve's machinery (node records, service frames and records, type announcements, a
    /// bridge's view, the rest of `nerve/`): what `topic list`, `node info`, the view pages and
    /// a recording of everything leave out unless it is asked for by name. The log, log level
    /// changes and the e-stop are not plumbing: they are what happened to the robot.
    pub fn is_plumbing(self) -> bool {
        !matches!(
            self,
            TopicKind::User | TopicKind::Log | TopicKind::LogLevel | TopicKind::EStop
        )
    }

    /// The kind's name, as Python's `topics()` gives it (`user`, `log`, `estop`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TopicKind::User => "user",
            TopicKind::Log => "log",
            TopicKind::LogLevel => "log_level",
            TopicKind::EStop => "estop",
            TopicKind::NodeRecord => "node_record",
            TopicKind::ServiceFrame => "service_frame",
            TopicKind::ServerRecord => "server_record",
            TopicKind::Interface => "interface",
            TopicKind::BridgeView => "bridge_view",
            TopicKind::Reserved => "reserved",
        }
    }
}
