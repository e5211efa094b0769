//! What services and actions a domain has, found from their topics (no daemon): a service `S`
//! is a live record on `S/server`; the types a server was built with are on `S/type`, a
//! latest-only topic its server publishes once, so `nerve service list -t`, `service type` and
//! `action info` name them and a generic caller (the CLI, a bridge) can show their fields.
//!
//! An action `A` announces itself on `A/type` (kind `action`: goal, feedback, result); its three
//! services (`A/goal`, `A/cancel`, `A/status`) are services like any other, marked as the
//! action's by [`ServiceInfo::action`].

use std::collections::BTreeMap;

use nerve_transport::registry::{self, TopicInfo};
use nerve_transport::sys::ProcessId;

pub use crate::interface::{announce, interface, short_type_name, Interface, InterfacePart};
use crate::service::{ServerWatch, ServiceConfig};
use crate::wire::{self, ServerRecord};
use nerve_transport::Message as _;

/// A service found in a domain.
#[derive(Clone, Debug)]
pub struct ServiceInfo {
    /// Its name (`arm/plan`).
    pub name: String,
    /// The live server's process; `None` when it is down (stopped or dead).
    pub server: Option<ProcessId>,
    /// Its server's worker threads.
    pub workers: u64,
    /// The types its server announced.
    pub interface: Option<Interface>,
    /// The action it belongs to (`A` for `A/goal`, `A/cancel`, `A/status`), if any.
    pub action: Option<String>,
}

/// An action found in a domain.
#[derive(Clone, Debug)]
pub struct ActionInfo {
    /// Its name.
    pub name: String,
    /// The live server's process (that of its goal service); `None` when it is down.
    pub server: Option<ProcessId>,
    /// Its goal, feedback and result types.
    pub interface: Option<Interface>,
}

/// The type of a service's request and response topics (`S/request`, `S/response/<client>`);
/// `nerve::plumbing::TopicKind` tells nerve's own topics from a user's with it.
pub const FRAME_TYPE_NAME: &str = <wire::RpcFrame as nerve_transport::Message>::TYPE_NAME;

/// The type of a service's server record topic (`S/server`).
pub const SERVER_RECORD_TYPE_NAME: &str = <ServerRecord as nerve_transport::Message>::TYPE_NAME;

/// The service whose server record topic `t` is (`S` for `S/server`), if it is one.
pub fn server_record_of(t: &TopicInfo) -> Option<&str> {
    if t.type_name != ServerRecord::TYPE_NAME {
        return None;
    }
    t.name.strip_suffix("/server")
}

/// Every service of `domain` whose server record exists, by name.
pub fn services(domain: u32) -> Vec<ServiceInfo> {
    let topics = registry::list(domain);
    let actions: Vec<&str> = topics
        .iter()
        .filter_map(|t| t.name.strip_suffix("/type"))
        .filter(|n| {
            topics.iter().any(|t| t.name == format!("{n}/events"))
                && topics.iter().any(|t| t.name == format!("{n}/goal/server"))
        })
        .collect();
    let mut out = BTreeMap::new();
    for t in &topics {
        let Some(name) = t.name.strip_suffix("/server") else {
            continue;
        };
        if t.type_name != ServerRecord::TYPE_NAME || t.error.is_some() {
            continue;
        }
        // A record without a live publisher is a stopped or dead server; opening it then would
        // remove it (the transport's clean-up of stale topics), and the service with it.
        let record = if t.publishers() > 0 {
            server_record(domain, name)
        } else {
            None
        };
        let action = ["/goal", "/cancel", "/status"]
            .iter()
            .filter_map(|s| name.strip_suffix(s))
            .find(|a| actions.contains(a))
            .map(str::to_owned);
        out.insert(
            name.to_owned(),
            ServiceInfo {
                name: name.to_owned(),
                server: record.map(|r| ProcessId {
                    pid: r.pid,
                    token: r.token,
                }),
                workers: record.map_or(0, |r| r.workers),
                interface: interface(domain, name),
                action,
            },
        );
    }
    out.into_values().collect()
}

/// Every action of `domain`, by name.
pub fn actions(domain: u32) -> Vec<ActionInfo> {
    let services = services(domain);
    let mut names: Vec<&str> = services
        .iter()
        .filter_map(|s| s.action.as_deref())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|a| ActionInfo {
            name: a.to_owned(),
            server: services
                .iter()
                .find(|s| s.name == format!("{a}/goal"))
                .and_then(|s| s.server),
            interface: interface(domain, a).filter(|i| i.kind == "action"),
        })
        .collect()
}

/// The live server record of service `name`, if its server is up.
fn server_record(domain: u32, name: &str) -> Option<ServerRecord> {
    let mut config = ServiceConfig::new(name);
    config.domain = domain;
    let record = config.open_record().ok()?;
    let sub = record.subscriber_with_history(1).ok()?;
    ServerWatch::new(sub).alive(true)
}
