//! A service's settings and the topics they open: the request topic (reliable, shared by
//! every client) and the server's liveness record (latest-only).

use std::time::Duration;

use nerve_transport::{OpenError, Topic};

use crate::wire::{self, RpcFrame, ServerRecord};

/// Default depth of the request topic (requests queued for the server).
pub(super) const DEFAULT_REQUEST_DEPTH: u32 = 64;
/// Default depth of each client's response topic (calls one client may have in flight).
pub(super) const DEFAULT_RESPONSE_DEPTH: u32 = 64;
/// Default largest request or response: 1 MiB.
pub(super) const DEFAULT_MAX_MESSAGE_BYTES: usize = 1 << 20;
/// Settings shared by the client and the server side of a service.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// Service name, e.g. `arm/plan`.
    pub name: String,
    /// Domain (default `$NERVE_DOMAIN` or 0).
    pub domain: u32,
    /// Depth of the request topic.
    pub request_depth: u32,
    /// Depth of each response topic.
    pub response_depth: u32,
    /// Largest encoded request or response in bytes (fixed when the topics are created).
    pub max_message_bytes: usize,
    /// How long a waiting caller (or an idle server) polls before it sleeps on the futex (after
    /// 10 µs yielding the core between polls while the process has more threads polling than
    /// the machine has cores). Longer: lower latency for calls that take longer, more CPU.
    pub spin: Duration,
    /// The types the server announces on `S/type` (set by a typed server; a binding may set
    /// its own). `None`: nothing is announced.
    pub interface: Option<crate::interface::Interface>,
}

impl ServiceConfig {
    pub(crate) fn new(name: &str) -> Self {
        ServiceConfig {
            // `/arm/plan` names the same service as `arm/plan`, as for topics.
            name: nerve_transport::name::resolve(name),
            domain: nerve_transport::default_domain(),
            request_depth: DEFAULT_REQUEST_DEPTH,
            response_depth: DEFAULT_RESPONSE_DEPTH,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            spin: Duration::from_micros(50),
            interface: None,
        }
    }

    /// The request topic (reliable: a caller waits for room at most its timeout).
    pub(super) fn open_requests(&self) -> Result<Topic<RpcFrame>, OpenError> {
        Topic::<RpcFrame>::builder(&wire::request_topic(&self.name))
            .domain(self.domain)
            .depth(self.request_depth)
            .reliable()
            .max_message_bytes(self.max_message_bytes)
            .max_endpoints(256)
            .open()
    }

    /// The server's liveness record (latest-only).
    pub(crate) fn open_record(&self) -> Result<Topic<ServerRecord>, OpenError> {
        Topic::<ServerRecord>::builder(&wire::server_topic(&self.name))
            .domain(self.domain)
            .latest_only()
            .max_endpoints(256)
            .open()
    }
}
