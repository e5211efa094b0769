//! The untyped core every front end (typed Rust, raw bytes for Python and C) shares: an open
//! topic, its endpoints, and the publish / receive loops over the ring and the chunk pool.

use std::collections::HashMap;
use std::path::PathBuf;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use nerve_shm::layout::{
    EndpointRecord, ENDPOINT_FREE, ENDPOINT_HANDLE, ENDPOINT_PUBLISHER, ENDPOINT_RECLAIMING,
    ENDPOINT_SUBSCRIBER,
};
use nerve_shm::segment::{self, SegmentError};
use nerve_shm::{
    barrier, ChunkId, Claimed, HeapRegion, Pool, ProcessId, Read, Region, Reliability, Ring,
    StoredType, TopicConfig, TopicParams, SOLO_SHARED,
};

use crate::error::{OpenError, RecvError, SendError};

/// Where a topic's memory lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportPath {
    /// A `/dev/shm` segment shared with other processes.
    Shm(PathBuf),
    /// A heap buffer shared by the endpoints of this process only.
    Heap,
}

/// What `open` needs to know, from the builder.
#[derive(Clone, Debug)]
pub(crate) struct OpenSpec {
    pub name: String,
    pub domain: u32,
    pub stored_type: StoredType,
    pub reliability: Option<Reliability>,
    pub depth: Option<u32>,
    pub slot_payload: u32,
    pub max_endpoints: u32,
    pub chunk_bytes: Option<usize>,
    pub chunks: Option<u32>,
    pub in_process: bool,
}

/// The options every topic builder shares, typed and raw: defined once, expanded into each
/// builder (which holds an `OpenSpec` in `self.spec`).
macro_rules! topic_builder_options {
    () => {
        /// Ring depth (history kept for slow or late subscribers); rounded up to a power of
        /// two.
        pub fn depth(mut self, depth: u32) -> Self {
            self.spec.depth = Some(depth);
            self
        }
        /// Reliability QoS; see [`best_effort`](Self::best_effort), [`reliable`](Self::reliable)
        /// and [`latest_only`](Self::latest_only).
        pub fn reliability(mut self, r: nerve_shm::Reliability) -> Self {
            self.spec.reliability = Some(r);
            self
        }
        /// Oldest messages are overwritten; lapped subscribers count their loss (default).
        pub fn best_effort(self) -> Self {
            self.reliability(nerve_shm::Reliability::BestEffort)
        }
        /// Publishers wait (up to their send timeout) while the slowest live subscriber is
        /// `depth` messages behind, then fail with `SendError::Full`.
        pub fn reliable(self) -> Self {
            self.reliability(nerve_shm::Reliability::Reliable)
        }
        /// Subscribers always get the newest message; older ones are skipped (counted as lost).
        pub fn latest_only(self) -> Self {
            self.reliability(nerve_shm::Reliability::LatestOnly)
        }
        /// Domain (default `$NERVE_DOMAIN` or 0): topics of different domains never meet.
        pub fn domain(mut self, domain: u32) -> Self {
            self.spec.domain = domain;
            self
        }
        /// Keep the topic in this process's heap instead of `/dev/shm` (no other process can
        /// join).
        pub fn in_process(mut self) -> Self {
            self.spec.in_process = true;
            self
        }
        /// Largest chunked/serialized message in bytes (default 8 MiB), set when the topic is
        /// created. Ignored for fixed-size types.
        pub fn max_message_bytes(mut self, bytes: usize) -> Self {
            if self.spec.chunk_bytes.is_some() {
                self.spec.chunk_bytes =
                    Some(bytes + $crate::core::data_offset(self.spec.stored_type.size as usize));
            }
            self
        }
        /// Chunks in the pool (default 2 × depth + 8): messages in the ring plus samples held
        /// by subscribers plus loans in flight.
        pub fn chunks(mut self, chunks: u32) -> Self {
            self.spec.chunks = Some(chunks);
            self
        }
        /// Endpoint records (default 64), set when the topic is created.
        pub fn max_endpoints(mut self, n: u32) -> Self {
            self.spec.max_endpoints = n;
            self
        }
    };
}
pub(crate) use topic_builder_options;

/// Default ring depth.
pub const DEFAULT_DEPTH: u32 = 16;
/// Default endpoint records per topic.
pub const DEFAULT_MAX_ENDPOINTS: u32 = 64;
/// Default largest chunked message: 8 MiB (a 1080p RGB frame is 6 MiB). Pages of the pool are
/// only backed by memory once touched.
pub const DEFAULT_CHUNK_BYTES: usize = 8 << 20;
/// Bytes of a ring slot that carries a chunk descriptor.
pub const DESCRIPTOR_BYTES: u32 = 16;

/// An open topic, shared by its endpoints (and the samples they hand out).
pub(crate) struct Shared {
    pub name: String,
    pub domain: u32,
    pub path: TransportPath,
    pub params: TopicParams,
    pub ring: Ring,
    pub pool: Option<Pool>,
    /// Our `ENDPOINT_HANDLE` record (shared-memory topics).
    handle: Option<u32>,
    // Declared last: dropped after the ring and pool views that point into it.
    memory: Memory,
}

/// The memory a topic lives in.
pub(crate) enum Memory {
    /// In-process topic.
    Heap(HeapRegion),
    /// Shared-memory segment.
    Shm(segment::ShmRegion),
}

impl Memory {
    fn region(&self) -> &dyn Region {
        match self {
            Memory::Heap(r) => r,
            Memory::Shm(r) => r,
        }
    }
}

type HeapKey = (u32, String);
fn heap_topics() -> &'static Mutex<HashMap<HeapKey, Weak<Shared>>> {
    static HEAP: std::sync::OnceLock<Mutex<HashMap<HeapKey, Weak<Shared>>>> =
        std::sync::OnceLock::new();
    HEAP.get_or_init(Default::default)
}

/// In-process topics alive in this process (for the registry).
pub(crate) fn heap_topic_list() -> Vec<Arc<Shared>> {
    crate::sys::lock(heap_topics())
        .values()
        .filter_map(Weak::upgrade)
        .collect()
}

fn describe_qos(r: Reliability, capacity: u32) -> String {
    format!("{r:?} depth {capacity}")
}

impl Shared {
    pub(crate) fn open(spec: &OpenSpec) -> Result<Arc<Shared>, OpenError> {
        crate::name::validate(&spec.name)?;
        let reliability = spec.reliability.unwrap_or(Reliability::BestEffort);
        let depth = match reliability {
            Reliability::LatestOnly => spec.depth.unwrap_or(1),
            _ => spec.depth.unwrap_or(DEFAULT_DEPTH),
        };
        let config = TopicConfig {
            stored_type: spec.stored_type.clone(),
            reliability,
            depth,
            slot_payload: spec.slot_payload,
            max_endpoints: spec.max_endpoints,
            pool_len: 0,
        };
        let capacity = depth.max(1).next_power_of_two();
        let chunks = spec
            .chunk_bytes
            .map(|bytes| (bytes, spec.chunks.unwrap_or(capacity * 2 + 8)));
        let topic = || spec.name.clone();
        let shared = if spec.in_process {
            let mut map = crate::sys::lock(heap_topics());
            let key = (spec.domain, spec.name.clone());
            if let Some(existing) = map.get(&key).and_then(Weak::upgrade) {
                existing
            } else {
                let invalid = |e: nerve_shm::layout::LayoutError| OpenError::InvalidConfig {
                    topic: topic(),
                    reason: e.to_string(),
                };
                let header = segment::plan(&config, chunks).map_err(invalid)?;
                let region = HeapRegion::new(header.total_size as usize);
                // SAFETY: a fresh, zeroed, page-aligned heap region nobody else sees yet, as
                // long as the planned layout.
                let params =
                    unsafe { segment::initialize(region.base(), region.len(), &header, chunks) }
                        .map_err(invalid)?;
                let shared = Arc::new(Self::assemble(
                    spec,
                    TransportPath::Heap,
                    params,
                    Memory::Heap(region),
                )?);
                map.insert(key, Arc::downgrade(&shared));
                shared
            }
        } else {
            let dir = segment::domain_dir(spec.domain);
            let file = segment::topic_file(&spec.name);
            let seg =
                segment::open_or_create(&dir, &file, &config, chunks).map_err(|e| match e {
                    SegmentError::Corrupt { path, source } => OpenError::Corrupt {
                        topic: topic(),
                        path,
                        reason: source.to_string(),
                        domain: spec.domain,
                    },
                    SegmentError::TypeMismatch { expected, found } => OpenError::TypeMismatch {
                        topic: topic(),
                        expected: expected.describe(),
                        found: found.describe(),
                    },
                    SegmentError::Full { .. } => OpenError::TooManyEndpoints {
                        topic: topic(),
                        max: spec.max_endpoints,
                    },
                    SegmentError::Io { source, .. } => OpenError::Io {
                        topic: topic(),
                        source,
                    },
                })?;
            let path = TransportPath::Shm(seg.region.path().to_owned());
            if !seg.created {
                tracing::debug!(topic = %spec.name, "joined existing topic");
            }
            let handle = seg.handle;
            let mut shared = Self::assemble(spec, path, seg.params, Memory::Shm(seg.region))?;
            shared.handle = Some(handle);
            Arc::new(shared)
        };
        // QoS explicitly asked for must match what the topic has.
        let p = &shared.params;
        let found = describe_qos(p.reliability, p.capacity);
        if spec.reliability.is_some_and(|r| r != p.reliability)
            || spec
                .depth
                .is_some_and(|d| d.max(1).next_power_of_two() != p.capacity)
        {
            return Err(OpenError::QosMismatch {
                topic: topic(),
                requested: describe_qos(reliability, capacity),
                found,
            });
        }
        if p.stored_type != spec.stored_type {
            return Err(OpenError::TypeMismatch {
                topic: topic(),
                expected: spec.stored_type.describe(),
                found: p.stored_type.describe(),
            });
        }
        // The header may be self-consistent yet wrong for this type (another program, or a
        // lie): the slot must hold exactly what the type sends, and chunked types need a pool.
        let pool_missing = spec.chunk_bytes.is_some() && shared.pool.is_none();
        if p.slot_payload != spec.slot_payload || pool_missing {
            let reason = if pool_missing {
                "the segment has no chunk pool for a chunked message type".to_owned()
            } else {
                format!(
                    "its slots hold {} bytes, the message needs {}",
                    p.slot_payload, spec.slot_payload
                )
            };
            let path = match &shared.path {
                TransportPath::Shm(p) => p.clone(),
                TransportPath::Heap => PathBuf::from("<heap>"),
            };
            return Err(OpenError::Corrupt {
                topic: topic(),
                path,
                reason,
                domain: spec.domain,
            });
        }
        if let Some(bytes) = spec.chunk_bytes {
            let have = shared.pool.as_ref().map_or(0, Pool::chunk_size);
            if have < bytes {
                tracing::warn!(topic = %spec.name, requested = bytes, have, "topic already exists with smaller chunks; messages above its limit will be refused");
            }
        }
        Ok(shared)
    }

    fn assemble(
        spec: &OpenSpec,
        path: TransportPath,
        params: TopicParams,
        memory: Memory,
    ) -> Result<Shared, OpenError> {
        let region = memory.region();
        // SAFETY: params were validated against this region, which `Shared` keeps alive for as
        // long as the ring and pool views exist (field order).
        let ring = unsafe { Ring::new(region.base(), &params) };
        let pool = if params.pool_len > 0 {
            // SAFETY: the pool area was validated to lie inside the region.
            let pool = unsafe {
                Pool::attach(
                    region.base().as_ptr().add(params.pool_offset),
                    params.pool_len,
                    params.max_endpoints,
                )
            };
            Some(pool.map_err(|e| OpenError::Corrupt {
                topic: spec.name.clone(),
                path: match &path {
                    TransportPath::Shm(p) => p.clone(),
                    TransportPath::Heap => PathBuf::from("<heap>"),
                },
                reason: e.to_string(),
                domain: spec.domain,
            })?)
        } else {
            None
        };
        Ok(Shared {
            name: spec.name.clone(),
            domain: spec.domain,
            path,
            params,
            ring,
            pool,
            handle: None,
            memory,
        })
    }

    fn record_dead(&self, i: u32) -> bool {
        let e = self.ring.endpoint(i);
        let id = ProcessId {
            pid: e.pid.load(Relaxed),
            start_time: e.start_time.load(Relaxed),
        };
        id.pid != 0 && !id.is_alive()
    }

    /// Whether the solo tag `tag` names a live publisher record.
    fn solo_holder_live(&self, tag: u64) -> bool {
        let index = (tag as u32).wrapping_sub(1);
        if index >= self.ring.endpoint_count() {
            return false;
        }
        let e = self.ring.endpoint(index);
        e.state.load(Acquire) == ENDPOINT_PUBLISHER
            && e.pid.load(Relaxed) == (tag >> 32) as u32
            && !self.record_dead(index)
    }

    /// Settles the solo right (ring.rs) for publisher record `index`, which just joined: takes
    /// it when no live publisher holds it, else revokes it for good. Returns our tag, or 0 when
    /// we claim with locked instructions.
    fn join_solo(&self, index: u32) -> u64 {
        let solo = self.ring.solo();
        let tag = (u64::from(ProcessId::current().pid) << 32) | u64::from(index + 1);
        loop {
            let cur = solo.load(Acquire);
            if cur == SOLO_SHARED {
                return 0;
            }
            if cur == 0 || !self.solo_holder_live(cur) {
                // Free, or its holder left or died (a dead process's stores are all visible).
                // A process that cannot use light barriers makes the topic shared instead:
                // leaving the tag free would let a later publisher go solo beside it.
                let new = if barrier::register() {
                    tag
                } else {
                    SOLO_SHARED
                };
                // AcqRel: Acquire pairs with the Release of the previous holder's hand-back in
                // `PubCore::drop` (its `head` and slot stores are then visible to our plain
                // loads); Release publishes our tag to revokers' Acquire loads.
                if solo.compare_exchange(cur, new, AcqRel, Acquire).is_ok() {
                    return if new == tag { tag } else { 0 };
                }
                continue;
            }
            if self.revoke_solo(cur) {
                return 0;
            }
        }
    }

    /// Revokes the solo right from the live holder `tag` and waits until its send in progress
    /// (if any) is over, so its plain stores to `head` and the slots are visible before anyone
    /// claims with locked instructions. False if the tag changed meanwhile.
    fn revoke_solo(&self, tag: u64) -> bool {
        if self
            .ring
            .solo()
            // AcqRel, as in `join_solo`; the holder's in-flight stores are covered by the
            // `busy` handshake below.
            .compare_exchange(tag, SOLO_SHARED, AcqRel, Acquire)
            .is_err()
        {
            return false;
        }
        tracing::debug!(topic = %self.name, "second publisher: single-publisher fast path off");
        // Pairs with the holder's light barrier between setting `busy` and loading `solo`:
        // after this, either the holder sees SOLO_SHARED or we see its `busy` flag.
        barrier::heavy();
        let holder = (tag as u32) - 1;
        let rec = self.ring.endpoint(holder);
        let mut spins = 0u32;
        // Acquire pairs with the holder's Release store of `busy = 0` after its last send.
        while rec.busy.load(Acquire) != 0 && !self.record_dead(holder) {
            spins += 1;
            if spins < 1024 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        true
    }

    /// Whether the endpoint table holds a publisher whose process died.
    pub(crate) fn dead_publisher(&self) -> bool {
        (0..self.ring.endpoint_count()).any(|i| {
            self.ring.endpoint(i).state.load(Acquire) == ENDPOINT_PUBLISHER && self.record_dead(i)
        })
    }

    /// Frees the records (and chunk references) of endpoints whose process died. Returns how
    /// many were reclaimed.
    pub(crate) fn reclaim_dead(&self) -> usize {
        let mut n = 0;
        for i in 0..self.ring.endpoint_count() {
            let e = self.ring.endpoint(i);
            let state = e.state.load(Acquire);
            if matches!(
                state,
                ENDPOINT_PUBLISHER | ENDPOINT_SUBSCRIBER | ENDPOINT_HANDLE
            ) && self.record_dead(i)
            {
                // Only one reclaimer wins the record.
                if e.state
                    .compare_exchange(state, ENDPOINT_RECLAIMING, AcqRel, Relaxed)
                    .is_ok()
                {
                    let chunks = self.pool.as_ref().map_or(0, |p| p.reclaim_endpoint(i));
                    tracing::info!(topic = %self.name, endpoint = i, pid = e.pid.load(Relaxed), chunks, "reclaimed the endpoint of a dead process");
                    e.pid.store(0, Relaxed);
                    e.state.store(ENDPOINT_FREE, Release);
                    n += 1;
                }
            }
        }
        n
    }

    fn claim_endpoint(self: &Arc<Self>, kind: u32) -> Result<Arc<Endpoint>, OpenError> {
        let index = match self.ring.claim_endpoint(kind) {
            Some(i) => Some(i),
            None if self.reclaim_dead() > 0 => self.ring.claim_endpoint(kind),
            None => None,
        };
        match index {
            Some(index) => Ok(Arc::new(Endpoint {
                record: NonNull::from(self.ring.endpoint(index)),
                shared: self.clone(),
                index,
            })),
            None => Err(OpenError::TooManyEndpoints {
                topic: self.name.clone(),
                max: self.ring.endpoint_count(),
            }),
        }
    }

    pub(crate) fn chunk_limit(&self, header: usize) -> usize {
        self.pool
            .as_ref()
            .map_or(0, |p| p.chunk_size().saturating_sub(data_offset(header)))
    }
}

/// Offset of the elements in a chunk: after the header, cache-line aligned.
pub(crate) const fn data_offset(header: usize) -> usize {
    (header + 63) & !63
}

/// An endpoint record owned by this process; freed when the last user (the endpoint or one of
/// its samples) drops.
pub(crate) struct Endpoint {
    pub shared: Arc<Shared>,
    pub index: u32,
    /// Our record in the segment, located once (it is touched on every message).
    record: NonNull<EndpointRecord>,
}

// SAFETY: `record` points into the mapping `shared` keeps alive, and the record is only
// accessed through its atomics.
unsafe impl Send for Endpoint {}
// SAFETY: as above.
unsafe impl Sync for Endpoint {}

impl Endpoint {
    #[inline]
    pub(crate) fn record(&self) -> &EndpointRecord {
        // SAFETY: the record lies in the segment `self.shared` keeps mapped for as long as we
        // live (see the field).
        unsafe { self.record.as_ref() }
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.shared.ring.release_endpoint(self.index);
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(h) = self.handle {
            self.ring.release_endpoint(h);
        }
        // The last process to close a shared-memory topic removes its file (and so its memory).
        if let Memory::Shm(shm) = &self.memory {
            shm.unlink_if_unused(&self.params);
        }
    }
}

/// A chunk descriptor as carried in a ring slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Descriptor {
    pub id: ChunkId,
    pub len: u64,
}

impl Descriptor {
    pub fn to_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&self.id.index.to_le_bytes());
        b[4..8].copy_from_slice(&self.id.generation.to_le_bytes());
        b[8..].copy_from_slice(&self.len.to_le_bytes());
        b
    }
    pub fn from_bytes(b: &[u8; 16]) -> Self {
        Descriptor {
            id: ChunkId {
                index: u32::from_le_bytes(b[..4].try_into().unwrap()),
                generation: u32::from_le_bytes(b[4..8].try_into().unwrap()),
            },
            len: u64::from_le_bytes(b[8..].try_into().unwrap()),
        }
    }
}

/// Publisher half of the core.
pub(crate) struct PubCore {
    pub ep: Arc<Endpoint>,
    /// Reliable mode: lowest subscriber cursor seen at the last scan.
    min_cursor: AtomicU64,
    pub timeout: Duration,
    sent: AtomicU64,
    /// Our solo tag (see ring.rs), 0 if we never held the right.
    solo_tag: u64,
    /// The thread allowed to use the solo path (see `thread_tag`), 0 until the first send.
    /// Another thread sending through this publisher revokes the right for the topic. Unused
    /// when `exclusive`.
    solo_thread: AtomicUsize,
    /// The owner is never used by two threads at once (the typed `Publisher`, which is not
    /// `Sync`): any thread may take the solo path, since handing the publisher to another
    /// thread synchronises. Shared owners (`RawPublisher`) keep to one thread instead.
    exclusive: bool,
}

/// An identifier of the calling thread that costs no atomic operation: the address of a
/// thread-local.
fn thread_tag() -> usize {
    thread_local!(static TAG: u8 = const { 0 });
    TAG.with(|t| t as *const u8 as usize)
}

/// How long a reliable publisher waits for room by default.
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(1);

impl PubCore {
    /// `exclusive`: the owner guarantees no two threads send at once (see the field).
    pub(crate) fn new(shared: &Arc<Shared>, exclusive: bool) -> Result<Self, OpenError> {
        let ep = shared.claim_endpoint(ENDPOINT_PUBLISHER)?;
        let solo_tag = shared.join_solo(ep.index);
        Ok(PubCore {
            ep,
            min_cursor: AtomicU64::new(0),
            timeout: DEFAULT_SEND_TIMEOUT,
            sent: AtomicU64::new(0),
            solo_tag,
            solo_thread: AtomicUsize::new(0),
            exclusive,
        })
    }

    /// Whether this publisher claims by plain stores (no other publisher has appeared yet).
    pub(crate) fn is_solo(&self) -> bool {
        self.solo_tag != 0 && self.shared().ring.solo().load(Relaxed) == self.solo_tag
    }

    /// Reliable topics: whether message `h` fits without overwriting one a live subscriber has
    /// not read (rescanning the cursors only when the cached minimum says no).
    fn has_room(&self, h: u64) -> bool {
        let cap = self.shared().ring.capacity();
        if h < self.min_cursor.load(Relaxed) + cap {
            return true;
        }
        let min = self.scan_min_cursor(h);
        self.min_cursor.store(min, Relaxed);
        h < min + cap
    }

    /// The solo path of `publish`, taken with our `busy` flag set and the right verified:
    /// plain loads and stores only (no locked instruction, no fence). None: no room on a
    /// reliable topic (the caller falls back to the waiting path).
    fn publish_solo(&self, payload: &[u8]) -> Option<bool> {
        let shared = self.shared();
        let ring = &shared.ring;
        let n = ring.head().load(Relaxed);
        if shared.params.reliability == Reliability::Reliable && !self.has_room(n) {
            return None;
        }
        ring.head().store(n + 1, Relaxed);
        let claim = ring.begin_write_solo(n, self.ep.index, shared.pool.is_some());
        self.fill(n, claim, payload, true);
        Some(true)
    }

    /// Whether a shared owner's send comes from its solo thread (adopting the first one).
    fn on_solo_thread(&self) -> bool {
        let me = thread_tag();
        self.solo_thread.load(Relaxed) == me || self.adopt_thread(me)
    }

    /// Routes a send from a thread other than the solo thread: the first sending thread
    /// becomes the solo thread; any other revokes the topic's solo right (two threads must not
    /// both claim by plain stores).
    fn adopt_thread(&self, me: usize) -> bool {
        match self.solo_thread.compare_exchange(0, me, Relaxed, Relaxed) {
            Ok(_) => true,
            Err(owner) if owner == me => true,
            Err(_) => {
                if self.shared().revoke_solo(self.solo_tag) {
                    tracing::info!(topic = %self.shared().name, "a raw publisher sent from a second thread: the topic now claims with locked instructions (one sending thread per raw publisher keeps the faster path)");
                }
                false
            }
        }
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.ep.shared
    }

    fn scan_min_cursor(&self, head: u64) -> u64 {
        let ring = &self.shared().ring;
        let mut min = head;
        for i in 0..ring.endpoint_count() {
            let e = ring.endpoint(i);
            if e.state.load(Acquire) == ENDPOINT_SUBSCRIBER {
                // Acquire pairs with the Release store of the cursor in `SubCore::advance`:
                // the subscriber has finished reading everything before its cursor.
                min = min.min(e.cursor.load(Acquire));
            }
        }
        min
    }

    /// Claims the next message index, waiting for room on reliable topics. None: full.
    fn claim(&self) -> Option<u64> {
        let shared = self.shared();
        let ring = &shared.ring;
        if shared.params.reliability != Reliability::Reliable {
            return Some(ring.head().fetch_add(1, Relaxed));
        }
        let cap = ring.capacity();
        // Waiting for room: spin ~20 µs (a subscriber drains a ring in microseconds), then
        // yield, then sleep with a growing interval; look for dead subscribers every 100 ms.
        let mut wait: Option<(Instant, Instant, Duration)> = None; // (start, last reclaim, sleep)
        let mut spins = 0u32;
        loop {
            let h = ring.head().load(Relaxed);
            if !self.has_room(h) {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                    continue;
                }
                let now = Instant::now();
                let (start, last_reclaim, sleep) =
                    wait.get_or_insert((now, now, Duration::from_micros(20)));
                if now.duration_since(*last_reclaim) >= Duration::from_millis(100) {
                    *last_reclaim = now;
                    shared.reclaim_dead();
                }
                let waited = now.duration_since(*start);
                if waited >= self.timeout {
                    shared.reclaim_dead();
                    if h >= self.scan_min_cursor(h) + cap {
                        return None;
                    }
                } else if waited < Duration::from_micros(20) {
                    std::hint::spin_loop();
                } else if waited < Duration::from_millis(1) {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(*sleep);
                    *sleep = (*sleep * 2).min(Duration::from_millis(1));
                }
                continue;
            }
            if ring
                .head()
                .compare_exchange_weak(h, h + 1, Relaxed, Relaxed)
                .is_ok()
            {
                return Some(h);
            }
        }
    }

    /// Writes one message; `payload` is the slot content. Releases the chunk a replaced slot
    /// carried. Returns false when the topic is full (reliable).
    pub(crate) fn publish(&self, payload: &[u8]) -> bool {
        if self.solo_tag != 0 && (self.exclusive || self.on_solo_thread()) {
            let rec = self.ep.record();
            rec.busy.store(1, Relaxed);
            // The store→load order against a revoker comes from its heavy barrier.
            barrier::light();
            if self.shared().ring.solo().load(Relaxed) == self.solo_tag {
                let done = self.publish_solo(payload);
                // Release: our plain stores to `head` and the slot are visible to a revoker
                // that sees `busy == 0`.
                rec.busy.store(0, Release);
                if let Some(ok) = done {
                    return ok;
                }
            } else {
                rec.busy.store(0, Release);
            }
        }
        let Some(n) = self.claim() else { return false };
        let shared = self.shared();
        let ring = &shared.ring;
        let claim = ring.begin_write(n, self.ep.index, |w| {
            w >= ring.endpoint_count()
                || shared.record_dead(w)
                || ring.endpoint(w).state.load(Acquire) == ENDPOINT_FREE
        });
        self.fill(n, claim, payload, false);
        true
    }

    /// Writes and commits message `n` into the slot `claim` took; releases the chunk a
    /// replaced slot carried.
    fn fill(&self, n: u64, claim: nerve_shm::Claim, payload: &[u8], solo: bool) {
        let shared = self.shared();
        let ring = &shared.ring;
        let mut replaced = None;
        match claim.claimed {
            Claimed::Overtaken => {
                // A message a full ring newer owns the slot: ours is already obsolete.
                self.release_payload(payload);
                return;
            }
            Claimed::Replaced(_) => {
                if shared.pool.is_some() {
                    let mut old = [0u8; 16];
                    ring.old_payload(n, &mut old);
                    replaced = Some(Descriptor::from_bytes(&old).id);
                }
            }
            Claimed::Fresh | Claimed::TakenOver => {}
        }
        ring.write(n, payload);
        if solo {
            ring.commit_solo(n);
        } else {
            ring.commit(n, claim);
        }
        // The ring's reference to the chunk this slot carried is dropped after publishing: the
        // locked decrement (on a line a subscriber last touched) stays off the path of the new
        // message. A publisher killed in between leaks that one chunk until the topic is
        // reclaimed, the same bound as any crash between two steps of the pool.
        if let (Some(id), Some(pool)) = (replaced, &shared.pool) {
            pool.release_unowned(id);
        }
        // Statistics only: a load and a store, not a locked read-modify-write. Concurrent sends
        // through one publisher from several threads may undercount.
        let sent = self.sent.load(Relaxed) + 1;
        self.sent.store(sent, Relaxed);
        self.ep.record().count.store(sent, Relaxed);
    }

    pub(crate) fn stall_mid_write(&self, payload: &[u8]) {
        let ring = &self.shared().ring;
        let n = ring.head().fetch_add(1, Relaxed);
        ring.begin_write(n, self.ep.index, |_| false);
        ring.write(n, &payload[..payload.len() / 2]);
    }

    fn release_payload(&self, payload: &[u8]) {
        if let (Some(pool), Ok(b)) = (&self.shared().pool, <&[u8; 16]>::try_from(payload)) {
            pool.release_unowned(Descriptor::from_bytes(b).id);
        }
    }

    /// Counts a message refused as full.
    pub(crate) fn count_full(&self) {
        self.ep.record().lost.fetch_add(1, Relaxed);
    }

    pub(crate) fn full_error<T>(&self, msg: T) -> SendError<T> {
        self.count_full();
        SendError::Full {
            msg,
            topic: self.shared().name.clone(),
            depth: self.shared().ring.capacity(),
        }
    }

    /// Loans a chunk able to hold `bytes` bytes after a header of `header` bytes.
    pub(crate) fn loan(&self, header: usize, bytes: usize) -> Result<ChunkId, SendError<()>> {
        let shared = self.shared();
        let limit = shared.chunk_limit(header);
        let Some(pool) = &shared.pool else {
            return Err(SendError::TooLarge {
                topic: shared.name.clone(),
                size: bytes,
                limit: 0,
            });
        };
        if bytes > limit {
            return Err(SendError::TooLarge {
                topic: shared.name.clone(),
                size: bytes,
                limit,
            });
        }
        if let Some(id) = pool.alloc(self.ep.index) {
            return Ok(id);
        }
        shared.reclaim_dead();
        pool.alloc(self.ep.index)
            .ok_or_else(|| SendError::PoolExhausted {
                topic: shared.name.clone(),
                chunks: pool.chunk_count(),
            })
    }

    /// Publishes a loaned chunk. On `false` (full) the loan is still ours.
    pub(crate) fn send_chunk(&self, id: ChunkId, len: u64) -> bool {
        let pool = self.shared().pool.as_ref().expect("chunk topic has a pool");
        // The ring takes over our reference (see pool.rs on the order of these steps).
        pool.disown(id, self.ep.index);
        if self.publish(&Descriptor { id, len }.to_bytes()) {
            return true;
        }
        // Full: take the reference back.
        if !pool.retain(id, self.ep.index) {
            unreachable!("a loaned chunk cannot be recycled while we hold it");
        }
        pool.release_unowned(id);
        false
    }

    pub(crate) fn release_loan(&self, id: ChunkId) {
        if let Some(pool) = &self.shared().pool {
            pool.release(id, self.ep.index);
        }
    }
}

impl Drop for PubCore {
    fn drop(&mut self) {
        if self.solo_tag != 0 {
            // Hand the right back so the next lone publisher can take it; a revoked right
            // stays revoked.
            let _ = self
                .shared()
                .ring
                .solo()
                // Release pairs with the Acquire of the next taker in `join_solo`.
                .compare_exchange(self.solo_tag, 0, AcqRel, Relaxed);
        }
    }
}

/// Counters of one subscriber.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubscriberStats {
    /// Messages received.
    pub received: u64,
    /// Messages overwritten before this subscriber read them (best effort), or skipped for a
    /// newer one (latest only).
    pub lost: u64,
    /// Messages discarded as unusable: abandoned by a publisher that died mid-write, or with an
    /// invalid length or chunk descriptor.
    pub dropped: u64,
}

/// What one attempt at the cursor produced.
pub(crate) enum Step<T> {
    Got(T),
    Empty,
    Writing(u32),
    Lapped,
    Dropped,
}

impl<T> Step<T> {
    /// Converts what was received, keeping every other outcome.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Step<U> {
        match self {
            Step::Got(v) => Step::Got(f(v)),
            Step::Empty => Step::Empty,
            Step::Writing(w) => Step::Writing(w),
            Step::Lapped => Step::Lapped,
            Step::Dropped => Step::Dropped,
        }
    }
}

/// Subscriber half of the core.
pub(crate) struct SubCore {
    pub ep: Arc<Endpoint>,
    pub cursor: u64,
    pub stats: SubscriberStats,
    /// Spin this long in `recv` before sleeping on the futex.
    pub spin: Duration,
    stuck_polls: u32,
    stuck_since: Option<(u64, Instant)>,
}

/// Default spin before a blocking receive sleeps.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(20);
/// How long a slot may stay claimed-but-unwritten before a reader gives up on it, when a
/// publisher of the topic is known dead...
const STUCK_AFTER: Duration = Duration::from_millis(200);
/// ...and when every publisher is alive (one was preempted between claiming and writing).
const STUCK_AFTER_LIVE: Duration = Duration::from_secs(5);

impl SubCore {
    pub(crate) fn new(shared: &Arc<Shared>, history: u64) -> Result<Self, OpenError> {
        let ep = shared.claim_endpoint(ENDPOINT_SUBSCRIBER)?;
        let head = shared.ring.head().load(Acquire);
        let cursor = head.saturating_sub(history.min(shared.ring.capacity()));
        ep.record().cursor.store(cursor, Release);
        Ok(SubCore {
            ep,
            cursor,
            stats: SubscriberStats::default(),
            spin: DEFAULT_SPIN,
            stuck_polls: 0,
            stuck_since: None,
        })
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.ep.shared
    }

    fn advance(&mut self, by_lost: u64, got: bool) {
        self.cursor += 1;
        self.stats.lost += by_lost;
        let rec = self.ep.record();
        if got {
            self.stats.received += 1;
            rec.count.store(self.stats.received, Relaxed);
        }
        if self.shared().params.reliability == Reliability::Reliable {
            // Release pairs with the Acquire in `PubCore::scan_min_cursor`.
            rec.cursor.store(self.cursor, Release);
        }
    }

    fn resync(&mut self) {
        let ring = &self.shared().ring;
        let head = ring.head().load(Acquire);
        let next = (head.saturating_sub(ring.capacity()) + 1).max(self.cursor + 1);
        self.stats.lost += next - self.cursor;
        self.cursor = next;
        self.ep.record().lost.store(self.stats.lost, Relaxed);
        if self.shared().params.reliability == Reliability::Reliable {
            self.ep.record().cursor.store(self.cursor, Release);
        }
    }

    /// One non-blocking attempt. `decode` reads the message at the cursor.
    pub(crate) fn try_recv<T>(
        &mut self,
        mut decode: impl FnMut(&Arc<Endpoint>, u64) -> Step<T>,
    ) -> Option<T> {
        if self.shared().params.reliability == Reliability::LatestOnly {
            let head = self.shared().ring.head().load(Acquire);
            if head > self.cursor + 1 {
                let skip = head - 1 - self.cursor;
                self.stats.lost += skip;
                self.cursor = head - 1;
            }
        }
        loop {
            let cursor = self.cursor;
            match decode(&self.ep, cursor) {
                Step::Got(v) => {
                    self.stuck_polls = 0;
                    self.stuck_since = None;
                    self.advance(0, true);
                    return Some(v);
                }
                Step::Lapped => self.resync(),
                Step::Dropped => {
                    self.stats.dropped += 1;
                    self.advance(0, false);
                }
                Step::Empty | Step::Writing(_) => {
                    self.stuck_polls = self.stuck_polls.wrapping_add(1);
                    if self.stuck_polls.is_multiple_of(4096) && self.check_stuck(&mut decode) {
                        continue;
                    }
                    return None;
                }
            }
        }
    }

    /// Whether the message at the cursor has been stuck for `limit` since this subscriber first
    /// saw it stuck (the first call starts the clock).
    fn stuck_for(&mut self, limit: Duration) -> bool {
        match self.stuck_since {
            Some((c, t)) if c == self.cursor => t.elapsed() >= limit,
            _ => {
                self.stuck_since = Some((self.cursor, Instant::now()));
                false
            }
        }
    }

    /// Skips the message at the cursor if its publisher died before finishing it, or if it has
    /// been claimed but unwritten for `STUCK_AFTER` while newer messages exist.
    fn check_stuck<T>(&mut self, decode: &mut impl FnMut(&Arc<Endpoint>, u64) -> Step<T>) -> bool {
        let shared = self.ep.shared.clone();
        let head = shared.ring.head().load(Acquire);
        if head <= self.cursor {
            self.stuck_since = None;
            return false;
        }
        let ep = self.ep.clone();
        let skip = match decode(&ep, self.cursor) {
            Step::Writing(w) => {
                let gone = w >= shared.ring.endpoint_count()
                    || shared.record_dead(w)
                    || shared.ring.endpoint(w).state.load(Acquire) == ENDPOINT_FREE;
                // The writer may have finished (and even exited cleanly) since we looked: it is
                // only abandoned if the slot is *still* being written by the same gone writer.
                // And `w` may be stale: a writer claims the slot (odd sequence) before it
                // stores its index, so for that instant the slot names the slot's previous
                // writer, which may have exited since. A live writer preempted there must not
                // lose its message, so a gone writer's slot is only given up after it stayed
                // so for `STUCK_AFTER` (a writer that died there is recovered all the same).
                gone && matches!(decode(&ep, self.cursor), Step::Writing(w2) if w2 == w)
                    && self.stuck_for(STUCK_AFTER)
            }
            // Claimed (head moved past it) but not even started: its publisher was preempted
            // between claiming and writing, or killed there. A preempted one resumes, so give
            // up quickly only when a publisher of the topic is known dead.
            Step::Empty => self.stuck_for(if shared.dead_publisher() {
                STUCK_AFTER
            } else {
                STUCK_AFTER_LIVE
            }),
            _ => return true,
        };
        if skip {
            tracing::warn!(topic = %shared.name, message = self.cursor, "skipping a message abandoned by a publisher that died while writing it");
            self.stats.dropped += 1;
            self.stuck_since = None;
            self.advance(0, false);
        }
        skip
    }

    /// Receives, spinning for `self.spin` then sleeping on the futex, for at most `timeout`
    /// (None: forever). A message already there costs no clock read.
    pub(crate) fn recv_until<T>(
        &mut self,
        timeout: Option<Duration>,
        mut decode: impl FnMut(&Arc<Endpoint>, u64) -> Step<T>,
    ) -> Option<T> {
        if let Some(v) = self.try_recv(&mut decode) {
            return Some(v);
        }
        let start = Instant::now();
        let deadline = timeout.map(|t| start + t);
        let spin_until = start + self.spin;
        while Instant::now() < spin_until {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
            if let Some(v) = self.try_recv(&mut decode) {
                return Some(v);
            }
        }
        let shared = self.ep.shared.clone();
        let ring = &shared.ring;
        loop {
            let slice = Duration::from_millis(100);
            let wait = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return None;
                    }
                    (d - now).min(slice)
                }
                None => slice,
            };
            ring.wait(self.cursor, wait);
            if let Some(msg) = self.try_recv(&mut decode) {
                return Some(msg);
            }
            self.check_stuck(&mut decode);
        }
    }

    pub(crate) fn timeout_error(&self, timeout: Duration) -> RecvError {
        RecvError::Timeout {
            topic: self.shared().name.clone(),
            timeout,
        }
    }
}

/// Reads a fixed message of `out.len()` bytes at cursor `c`.
pub(crate) fn read_fixed(shared: &Shared, c: u64, out: &mut [u8]) -> Step<()> {
    match shared.ring.read(c, out) {
        Read::Ok(n) if n == out.len() => Step::Got(()),
        Read::Ok(_) => Step::Dropped,
        Read::Empty => Step::Empty,
        Read::Writing(w) => Step::Writing(w),
        Read::Lapped => Step::Lapped,
    }
}

/// Reads a chunk descriptor at cursor `c` and pins its chunk for `endpoint`.
pub(crate) fn read_chunk(
    shared: &Shared,
    c: u64,
    endpoint: u32,
    header: usize,
    elem: usize,
) -> Step<Descriptor> {
    let mut b = [0u8; 16];
    match shared.ring.read(c, &mut b) {
        Read::Ok(16) => {}
        Read::Ok(_) => return Step::Dropped,
        Read::Empty => return Step::Empty,
        Read::Writing(w) => return Step::Writing(w),
        Read::Lapped => return Step::Lapped,
    }
    let d = Descriptor::from_bytes(&b);
    let Some(pool) = &shared.pool else {
        return Step::Dropped;
    };
    let fits = (d.len as usize)
        .checked_mul(elem.max(1))
        .and_then(|n| n.checked_add(data_offset(header)))
        .is_some_and(|n| n <= pool.chunk_size());
    if d.id.index >= pool.chunk_count() || !fits {
        return Step::Dropped;
    }
    pool.prefetch(d.id.index);
    if !pool.retain(d.id, endpoint) {
        // Recycled between the slot read and the retain: the ring moved past it.
        return Step::Lapped;
    }
    Step::Got(d)
}
