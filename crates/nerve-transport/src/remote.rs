//! A process's own path to other hosts: the hook through which a publisher sends a topic's
//! messages into the network itself, with no host bridge between (issue 35).
//!
//! The core stays free of any network: a process that may talk to other hosts installs a
//! [`Remote`] once (`nerve_zenoh::direct::install`, which the CLI, Python and C fronts call
//! when the host has a network configuration). A topic's segment carries a `remote` word, the
//! other hosts that want the topic, written by the host's bridge. Every send loads it (Relaxed,
//! in the cache line the claim reads anyway): 0, nothing else happens, which is all a process
//! without remote interest pays. Non-zero, the publisher asks the installed [`Remote`] once for
//! an [`Egress`] (which opens its network session in the background: no send waits for it)
//! and from then on hands it every message it publishes, after the local subscribers have it.
//!
//! The egress raises its publisher's `direct` flag ([`DirectFlag`]) while it reaches every
//! host that wants the topic; the host bridge exports only topics with a publisher whose flag
//! is down, so during a hand-over both may send and the receiver keeps one of each message
//! (by the segment's ring id and the message's sequence in the ring).

use std::sync::atomic::Ordering::{Relaxed, Release};
use std::sync::{Arc, OnceLock};

use nerve_shm::{ChunkId, Reliability};

use crate::endpoint::Endpoint;
use crate::shared::Shared;

/// The topic an egress is asked for.
#[derive(Clone, Debug)]
pub struct RemoteTopic {
    /// Its name.
    pub name: String,
    /// Its domain.
    pub domain: u32,
    /// Its QoS (the network's congestion control follows it).
    pub reliability: Reliability,
    /// The stored type's layout hash (travels with each message).
    pub layout_hash: u64,
    /// The segment's identity: with the ring sequence, what names a message on every path.
    pub ring_id: u64,
}

/// A publisher's `direct` flag in the segment: up while its egress reaches every host that
/// wants the topic (the host bridge then leaves the topic to it).
pub struct DirectFlag(Arc<Endpoint>);

impl DirectFlag {
    /// Raises or lowers the flag.
    pub fn set(&self, on: bool) {
        // Release pairs with the bridge's Acquire load in `RawTopic::publishers_direct`.
        self.0.record().direct.store(u32::from(on), Release);
    }

    /// Whether the flag is up.
    pub fn get(&self) -> bool {
        self.0.record().direct.load(Relaxed) != 0
    }
}

/// A published chunk held for the network: the pool does not reuse it while this lives (a
/// reference under the publisher's holder bit, so a process killed meanwhile leaves it to the
/// reclaim of its endpoint); dropping it releases the reference.
pub struct HeldChunk {
    ep: Arc<Endpoint>,
    id: ChunkId,
    ptr: *const u8,
    len: usize,
}

// SAFETY: `ptr..ptr + len` lies in the mapping `ep` keeps alive, in a published chunk nobody
// writes while a reference is held; the reference itself is released through the pool's
// atomics, from any thread.
unsafe impl Send for HeldChunk {}
// SAFETY: as for Send: shared access only reads.
unsafe impl Sync for HeldChunk {}

impl HeldChunk {
    /// # Safety
    /// The caller holds one reference on chunk `id` under `ep`'s holder bit, which passes to
    /// the new value, and `ptr..ptr + len` lies in that chunk, fully written.
    pub(crate) unsafe fn new(ep: Arc<Endpoint>, id: ChunkId, ptr: *const u8, len: usize) -> Self {
        HeldChunk { ep, id, ptr, len }
    }
}

impl AsRef<[u8]> for HeldChunk {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: see the Send impl: the bytes stay valid and unwritten while we live.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for HeldChunk {
    fn drop(&mut self) {
        if let Some(pool) = &self.ep.shared.pool {
            pool.release(self.id, self.ep.index);
        }
    }
}

/// Where a publisher's messages go to other hosts.
pub trait Egress: Send + Sync {
    /// Sends message `seq` of the ring (`bytes`: a fixed message, or a chunked one as it lies
    /// in its chunk). Never blocks on a session that is still opening (the bridge exports
    /// meanwhile); may wait for room in the network's queue on a reliable topic.
    fn send(&self, seq: u64, bytes: &[u8]);

    /// Sends chunked message `seq`, keeping `chunk` for as long as the network needs its
    /// bytes (no copy). By default, `send` of its bytes.
    fn send_chunk(&self, seq: u64, chunk: HeldChunk) {
        self.send(seq, chunk.as_ref());
    }
}

/// A process's path to other hosts, installed once.
pub trait Remote: Send + Sync {
    /// An egress for `topic`, the publisher's flag in `flag`; None: this topic is not sent
    /// from this process (the bridge keeps it). Called once per publisher, from the first send
    /// that sees remote interest: it must return at once.
    fn egress(&self, topic: RemoteTopic, flag: DirectFlag) -> Option<Box<dyn Egress>>;
}

static REMOTE: OnceLock<Box<dyn Remote>> = OnceLock::new();

/// Installs this process's path to other hosts. False: one was installed already (it stays).
/// Publishers that sent before it keep the bridge.
pub fn install(remote: Box<dyn Remote>) -> bool {
    REMOTE.set(remote).is_ok()
}

/// Whether a path to other hosts is installed in this process.
pub fn installed() -> bool {
    REMOTE.get().is_some()
}

/// A publisher's egress: asked for by the first send that sees remote interest, then kept.
#[derive(Default)]
pub(crate) struct Outlet(OnceLock<Option<Box<dyn Egress>>>);

impl Outlet {
    /// Whether another host wants `shared`'s topic now.
    #[inline]
    pub(crate) fn wanted(shared: &Shared) -> bool {
        shared.ring.remote().load(Relaxed) != 0
    }

    /// Never asks for an egress: this publisher's messages leave from this process only
    /// through the host bridge (an importer's, which publishes what came from other hosts).
    pub(crate) fn close(&self) {
        let _ = self.0.set(None);
    }

    /// The egress of the publisher at `ep` (asked for on the first call).
    pub(crate) fn get(&self, ep: &Arc<Endpoint>) -> Option<&dyn Egress> {
        self.0
            .get_or_init(|| {
                let remote = REMOTE.get()?;
                let shared = &ep.shared;
                let topic = RemoteTopic {
                    name: shared.name.clone(),
                    domain: shared.domain,
                    reliability: shared.params.reliability,
                    layout_hash: shared.params.stored_type.layout_hash,
                    ring_id: shared.params.ring_id,
                };
                remote.egress(topic, DirectFlag(ep.clone()))
            })
            .as_deref()
    }
}
