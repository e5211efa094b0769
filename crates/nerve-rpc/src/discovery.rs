//! What services and actions a domain has, found from their topics (no daemon): a service `S`
//! is a live record on `S/server`; the types a server was built with are on `S/type`, a
//! latest-only topic its server publishes once, so `nerve service list -t`, `service type` and
//! `action info` name them and a generic caller (the CLI, a bridge) can show their fields.
//!
//! An action `A` announces itself on `A/type` (kind `action`: goal, feedback, result); its three
//! services (`A/goal`, `A/cancel`, `A/status`) are services like any other, marked as the
//! action's by [`ServiceInfo::action`].

use std::collections::BTreeMap;

use nerve_transport::msgs::serde_doc::{self, SerdeDoc};
use nerve_transport::registry::{self, TopicInfo};
use nerve_transport::sys::ProcessId;
use nerve_transport::{Msgpack, OpenError, Publisher, Topic};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::service::{ServerWatch, ServiceConfig};
use crate::wire::{self, ServerRecord};
use nerve_transport::Message as _;

/// The types a service or an action was built with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interface {
    /// `service` or `action`.
    pub kind: String,
    /// Its types by role: `request`, `response` (a service); `goal`, `feedback`, `result` (an
    /// action).
    pub parts: Vec<InterfacePart>,
}

/// One type of an [`Interface`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InterfacePart {
    /// `request`, `response`, `goal`, `feedback` or `result`.
    pub role: String,
    /// The Rust type's name (`my_robot::Plan`), or what a binding says (`dict`).
    pub type_name: String,
    /// Its traced description ([`SerdeDoc`] bytes; empty when it cannot be traced).
    pub doc: Vec<u8>,
}

impl InterfacePart {
    /// The part `role` of type `T`.
    pub fn of<T: DeserializeOwned + 'static>(role: &str) -> Self {
        InterfacePart {
            role: role.to_owned(),
            type_name: short_type_name(std::any::type_name::<T>()),
            doc: SerdeDoc::bytes_of::<T>(),
        }
    }

    /// The traced description, if the type had one.
    pub fn description(&self) -> Option<SerdeDoc> {
        SerdeDoc::from_bytes(&self.doc).ok()
    }
}

impl Interface {
    /// A service's request and response types.
    pub fn service<Req: DeserializeOwned + 'static, Resp: DeserializeOwned + 'static>() -> Self {
        Interface {
            kind: "service".into(),
            parts: vec![
                InterfacePart::of::<Req>("request"),
                InterfacePart::of::<Resp>("response"),
            ],
        }
    }

    /// The part playing `role`.
    pub fn part(&self, role: &str) -> Option<&InterfacePart> {
        self.parts.iter().find(|p| p.role == role)
    }
}

/// A Rust type name without module paths, as a reader names it:
/// `alloc::vec::Vec<my_robot::Plan>` → `Vec<Plan>`.
pub fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    let mut chars = full.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear(); // a module path segment: dropped
        } else if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            out.push_str(&word);
            word.clear();
            out.push(c);
        }
    }
    out.push_str(&word);
    out
}

/// The topic an interface is announced on.
fn type_topic(name: &str) -> String {
    format!("{name}/type")
}

/// Opens (or creates) the topic `name`'s interface is announced on.
fn open_type_topic(domain: u32, name: &str) -> Result<Topic<Msgpack<Interface>>, OpenError> {
    Topic::<Msgpack<Interface>>::builder(&type_topic(name))
        .domain(domain)
        .latest_only()
        .depth(2)
        .max_message_bytes(4 * serde_doc::MAX_BYTES)
        .max_endpoints(64)
        .open()
}

/// Publishes `interface` for `name` (latest-only: a reader started later still gets it). The
/// returned publisher keeps nothing alive that matters; the last value stays in the topic.
/// Servers announce their own; a bridge announces a remote server's.
pub fn announce(
    domain: u32,
    name: &str,
    interface: &Interface,
) -> Result<Publisher<Msgpack<Interface>>, OpenError> {
    let p = open_type_topic(domain, name)?.publisher()?;
    if let Err(e) = p.send(interface) {
        tracing::warn!(name, error = %e, "the interface was not announced");
    }
    Ok(p)
}

/// The interface announced for `name`, if any (reads the latest value; creates nothing).
pub fn interface(domain: u32, name: &str) -> Option<Interface> {
    let topic = type_topic(name);
    registry::list(domain).iter().find(|t| t.name == topic)?;
    let mut sub = open_type_topic(domain, name)
        .ok()?
        .subscriber_with_history(1)
        .ok()?;
    sub.try_recv().ok().flatten()
}

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

/// Whether a topic is one of nerve's service plumbing (requests, responses, server records,
/// type announcements): what `nerve topic list` leaves out unless asked.
pub fn is_plumbing(t: &TopicInfo) -> bool {
    t.type_name == wire::RpcFrame::TYPE_NAME
        || t.type_name == ServerRecord::TYPE_NAME
        || t.name.ends_with("/type") && t.type_name == "nerve/Msgpack"
}

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
