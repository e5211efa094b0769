//! What crosses the shared-memory topics: request/response frames, the server record, ids and
//! deadlines on the machine's one clock (`nerve_transport::time::now_ns`). Internal to the
//! crate (the message macros need `pub` on the types; the module keeps them private).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use nerve_transport::sys::ProcessId;

/// Fixed part of an [`RpcFrame`]: 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, nerve_transport::msgs::Message)]
#[message(crate = "nerve_transport::msgs", name = "nerve/rpc/Frame", chunked(elem = u8, message = RpcFrame, doc = "One request or response: a 40-byte header and the MessagePack payload as bytes."), default = "zeroed")]
#[repr(C)]
pub struct RpcHeader {
    /// The calling client ([`client_id`]).
    pub client: u64,
    /// The calling process's life token (`nerve_shm::liveness`): the server answers, and
    /// keeps a response publisher, only while that process lives, in any pid namespace.
    pub process: u64,
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
    /// Life token of the server process (`nerve_shm::liveness`): whether it lives, in any
    /// pid namespace.
    pub token: u64,
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

/// An id unique on the machine, across pid namespaces: this process's life token (63 random
/// bits) mixed with a counter (a pid would not do: two containers both have a pid 1).
pub(crate) fn client_id() -> u64 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    // Relaxed: only the uniqueness of the value matters (an atomic read-modify-write gives it
    // in any ordering); no other memory is published through the counter.
    let n = NEXT.fetch_add(1, Ordering::Relaxed) as u64;
    // splitmix64's finaliser: distinct inputs give distinct outputs (it is a bijection).
    let mut z = ProcessId::current().token ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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
