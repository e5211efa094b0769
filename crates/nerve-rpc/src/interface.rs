//! The types a service or an action was built with, and their announcement: a server
//! publishes its [`Interface`] once on `S/type` (latest-only), so a tool or a bridge started
//! later can name the types and show their fields. Below `service/` and `action/` (their
//! servers announce), above nothing of this crate but the transport.

use nerve_transport::msgs::serde_doc::{self, SerdeDoc};
use nerve_transport::registry;
use nerve_transport::{Msgpack, OpenError, Publisher, Topic};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

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
