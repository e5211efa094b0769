//! What crosses the shared-memory topics: request/response frames, the server record, ids and
//! deadlines on the machine's one clock (`nerve_transport::time::now_ns`). Internal to the
//! crate (the message macros need `pub` on the types; the module keeps them private).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Fixed part of an [`RpcFrame`]: 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve_transport::msgs::Message)]
#[message(crate = "nerve_transport::msgs", name = "nerve/rpc/Frame", chunked(elem = u8, message = RpcFrame, doc = "One request or response: a 32-byte header and the MessagePack payload as bytes."), default = "zeroed")]
#[repr(C)]
pub struct RpcHeader {
    /// The calling client ([`client_id`]): its pid in the high 32 bits.
    pub client: u64,
    /// Call number within the client, echoed in the response.
    pub call: u64,
    /// `CLOCK_MONOTONIC` nanoseconds after which the caller no longer waits (0: none).
    pub deadline_ns: u64,
    /// One of the `KIND_*` constants.
    pub kind: u32,
    /// Reserved, zero.
    pub flags: u32,
}

/// The liveness record of a service's server, on the latest-only topic `<service>/server`.
#[derive(Clone, Copy, Debug, PartialEq, nerve_transport::msgs::Message)]
#[message(
    crate = "nerve_transport::msgs",
    name = "nerve/rpc/ServerRecord",
    default = "zeroed"
)]
#[repr(C)]
pub struct ServerRecord {
    /// Server process id (0: none).
    pub pid: u32,
    /// 1 while serving, 0 once stopped.
    pub up: u32,
    /// Start time of the server process (from `/proc`), to tell a reused pid apart.
    pub start_time: u64,
    /// Worker threads handling requests.
    pub workers: u64,
}

/// A request frame.
pub(crate) const KIND_REQUEST: u32 = 1;
/// A response carrying the handler's result.
pub(crate) const KIND_OK: u32 = 2;
/// A response carrying the handler's error message (UTF-8).
pub(crate) const KIND_HANDLER_ERROR: u32 = 3;
/// A response saying the request could not be decoded (message UTF-8).
pub(crate) const KIND_BAD_REQUEST: u32 = 4;

/// The deadline `timeout` from now on the machine's clock (`nerve_transport::time::now_ns`).
pub(crate) fn deadline_after(timeout: Duration) -> u64 {
    nerve_transport::time::now_ns().saturating_add(timeout.as_nanos().min(u64::MAX as u128) as u64)
}

/// A process-unique, machine-unique id: pid in the high 32 bits, a counter in the low ones.
pub(crate) fn client_id() -> u64 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    // Relaxed: only the uniqueness of the value matters (an atomic read-modify-write gives it
    // in any ordering); no other memory is published through the counter.
    ((std::process::id() as u64) << 32) | NEXT.fetch_add(1, Ordering::Relaxed) as u64
}

/// The pid encoded in an id from [`client_id`].
pub(crate) fn pid_of(id: u64) -> u32 {
    (id >> 32) as u32
}

/// Topic names of a service.
pub(crate) fn request_topic(service: &str) -> String {
    format!("{service}/request")
}
/// The response topic of one client.
pub(crate) fn response_topic(service: &str, client: u64) -> String {
    format!("{service}/response/{client:016x}")
}
/// The server liveness topic.
pub(crate) fn server_topic(service: &str) -> String {
    format!("{service}/server")
}
