//! Opening a topic: validating the name, creating or joining its memory (a `/dev/shm`
//! segment, or the heap for in-process topics), and checking that what exists is what was asked
//! for (type, QoS, slot size, pool). Also the options every topic builder shares.

use std::sync::Arc;

use nerve_shm::segment::{self, SegmentError};
use nerve_shm::{
    HeapRegion, Pool, Region, Reliability, Ring, StoredType, TopicConfig, TopicParams,
};

use crate::description;
use crate::error::OpenError;
use crate::heap;
use crate::shared::{Memory, Shared, TransportPath, DEFAULT_DEPTH, DEFAULT_MAX_ENDPOINTS};

/// What `open` needs to know, from the builder.
#[derive(Clone, Debug)]
pub(crate) struct OpenSpec {
    pub name: String,
    pub domain: u32,
    pub stored_type: StoredType,
    /// The type's description, written into a topic this opener creates (empty: none).
    pub schema: Vec<u8>,
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
                self.spec.chunk_bytes = Some(bytes.saturating_add($crate::shared::data_offset(
                    self.spec.stored_type.size as usize,
                )));
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

fn describe_qos(r: Reliability, capacity: u32) -> String {
    format!("{r:?} depth {capacity}")
}

/// Largest ring depth: the ring holds `depth` slots in shared memory.
pub const MAX_DEPTH: u32 = 1 << 20;
/// Largest message of a chunked topic (a chunk of the pool holds one).
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;
/// Largest number of chunks in a topic's pool.
pub const MAX_CHUNKS: u32 = 1 << 16;
/// Largest fixed part of a message type: a fixed message (copied into a ring slot) or a
/// chunked message's header.
pub const MAX_FIXED_BYTES: u32 = 1 << 20;
/// Largest number of endpoint records of a topic.
pub const MAX_ENDPOINTS: u32 = nerve_shm::layout::MAX_ENDPOINTS;

impl OpenSpec {
    /// Checks the options against their limits before anything is created; the error names
    /// the option, the value and the limit.
    fn validate(&self) -> Result<(), OpenError> {
        let invalid = |reason: String| {
            Err(OpenError::InvalidConfig {
                topic: self.name.clone(),
                reason,
            })
        };
        match self.depth {
            Some(0) => {
                return invalid(
                    "depth must be at least 1 (the ring keeps the last `depth` messages)".into(),
                )
            }
            Some(d) if d > MAX_DEPTH => {
                return invalid(format!("depth {d} is above the limit of {MAX_DEPTH} slots"))
            }
            _ => {}
        }
        if self.max_endpoints == 0 || self.max_endpoints > MAX_ENDPOINTS {
            return invalid(format!(
                "max_endpoints {} is out of range: 1 to {MAX_ENDPOINTS}",
                self.max_endpoints
            ));
        }
        if self.stored_type.size > MAX_FIXED_BYTES {
            return invalid(format!(
                "type {} has a fixed part of {} bytes, above the limit of {MAX_FIXED_BYTES} (1 MiB): carry large data as a chunked message's elements",
                self.stored_type.name, self.stored_type.size
            ));
        }
        if let Some(bytes) = self.chunk_bytes {
            let message =
                bytes.saturating_sub(crate::shared::data_offset(self.stored_type.size as usize));
            if message > MAX_MESSAGE_BYTES {
                return invalid(format!(
                    "max_message_bytes {message} is above the limit of {MAX_MESSAGE_BYTES} (1 GiB): split the data, or send it in several messages"
                ));
            }
            let capacity = self.capacity();
            let chunks = self.chunks.unwrap_or(capacity * 2 + 8);
            if chunks > MAX_CHUNKS {
                return invalid(format!(
                    "{chunks} chunks (depth {capacity}) is above the limit of {MAX_CHUNKS} chunks per topic: lower .depth(n) or .chunks(n)"
                ));
            }
            if chunks <= capacity {
                return invalid(format!(
                    "chunks ({chunks}) must exceed the ring depth ({capacity}): the ring keeps the chunks of its last {capacity} messages, so no chunk would be left to loan. Use at least {} (default {})",
                    capacity + 1,
                    capacity * 2 + 8
                ));
            }
        }
        Ok(())
    }

    /// The reliability asked for, or best effort.
    fn reliability(&self) -> Reliability {
        self.reliability.unwrap_or(Reliability::BestEffort)
    }

    /// The depth asked for, or the default of the reliability (1 for latest-only).
    fn depth(&self) -> u32 {
        match self.reliability() {
            Reliability::LatestOnly => self.depth.unwrap_or(1),
            _ => self.depth.unwrap_or(DEFAULT_DEPTH),
        }
    }

    /// The ring capacity the depth rounds up to.
    fn capacity(&self) -> u32 {
        self.depth().max(1).next_power_of_two()
    }

    /// The layout a new topic gets.
    fn config(&self) -> TopicConfig {
        TopicConfig {
            stored_type: self.stored_type.clone(),
            reliability: self.reliability(),
            depth: self.depth(),
            slot_payload: self.slot_payload,
            max_endpoints: self.max_endpoints,
            pool_len: 0,
            schema: self.schema.clone(),
        }
    }

    /// The spec of a topic opened as it is: everything adopted from its validated `params`.
    fn adopting(name: &str, domain: u32, params: &TopicParams) -> OpenSpec {
        OpenSpec {
            name: name.to_owned(),
            domain,
            stored_type: params.stored_type.clone(),
            schema: Vec::new(),
            reliability: Some(params.reliability),
            depth: Some(params.capacity),
            slot_payload: params.slot_payload,
            max_endpoints: params.max_endpoints,
            chunk_bytes: None,
            chunks: None,
            in_process: false,
        }
    }

    /// This spec with the slot size and pool its stored type needs (fixed: the message in
    /// the slot; chunked and serialized: a descriptor, and a pool); an unknown kind keeps the
    /// header's and is refused when the topic is used.
    fn needed_by_type(&self) -> OpenSpec {
        let (slot_payload, chunk_bytes) = slots_for(&self.stored_type);
        OpenSpec {
            slot_payload,
            chunk_bytes,
            ..self.clone()
        }
    }

    /// (chunk bytes, chunk count) of the pool, for chunked and serialized types.
    fn chunks(&self) -> Option<(usize, u32)> {
        let default = self.capacity() * 2 + 8;
        self.chunk_bytes
            .map(|bytes| (bytes, self.chunks.unwrap_or(default)))
    }
}

/// What a topic of `stored` needs: its ring slots' payload (fixed: the message; chunked and
/// serialized: a descriptor) and, for a chunked or serialized type, the default chunk size of
/// its pool.
pub(crate) fn slots_for(stored: &StoredType) -> (u32, Option<usize>) {
    let fixed =
        nerve_msgs::MessageKind::from_raw(stored.kind) == Some(nerve_msgs::MessageKind::Fixed);
    if fixed {
        (stored.size, None)
    } else {
        (
            crate::shared::DESCRIPTOR_BYTES,
            Some(crate::shared::DEFAULT_CHUNK_BYTES),
        )
    }
}

impl Shared {
    /// Opens (creating if needed) the topic `spec` describes, then checks that what exists is
    /// what was asked for.
    pub(crate) fn open(spec: &OpenSpec) -> Result<Arc<Shared>, OpenError> {
        crate::name::validate(&spec.name)?;
        spec.validate()?;
        let shared = if spec.in_process {
            heap::get_or_create(spec.domain, &spec.name, || Self::create_on_heap(spec))?
        } else {
            Self::open_segment(spec)?
        };
        shared.check_against(spec)?;
        Ok(shared)
    }

    /// A new in-process topic on a heap region.
    fn create_on_heap(spec: &OpenSpec) -> Result<Arc<Shared>, OpenError> {
        let invalid = |e: nerve_shm::layout::LayoutError| OpenError::InvalidConfig {
            topic: spec.name.clone(),
            reason: e.to_string(),
        };
        let chunks = spec.chunks();
        let header = segment::plan(&spec.config(), chunks).map_err(invalid)?;
        let region = HeapRegion::new(header.total_size as usize);
        // SAFETY: a fresh, zeroed, page-aligned heap region nobody else sees yet, as long as
        // the planned layout.
        let params = unsafe {
            segment::initialize(region.base(), region.len(), &header, chunks, &spec.schema)
        }
        .map_err(invalid)?;
        Ok(Arc::new(Self::assemble(
            spec,
            TransportPath::Heap,
            params,
            Memory::Heap(region),
        )?))
    }

    /// Opens the existing topic `name` of `domain` as it is: its type, QoS and sizes adopted
    /// from what exists (this process's in-process topic of that name, else the `/dev/shm`
    /// segment). Never creates one: `NotFound` when there is none.
    pub(crate) fn join(name: &str, domain: u32) -> Result<Arc<Shared>, OpenError> {
        let name = &crate::name::resolve(name);
        crate::name::validate(name)?;
        if let Some(shared) = heap::get(domain, name) {
            return Ok(shared);
        }
        let dir = segment::domain_dir(domain);
        let seg = match segment::join(&dir, &segment::topic_file(name)) {
            Ok(seg) => seg,
            Err(SegmentError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Err(OpenError::NotFound {
                    topic: name.to_owned(),
                    domain,
                })
            }
            Err(e) => return Err(segment_error(name, domain, &[], DEFAULT_MAX_ENDPOINTS, e)),
        };
        let spec = OpenSpec::adopting(name, domain, &seg.params);
        let shared = Self::from_segment(&spec, seg)?;
        // What the stored type needs, not what the header says: a header whose slots are too
        // small for its own type (damage, or a lie) is refused here, as on a typed open.
        shared.check_against(&spec.needed_by_type())?;
        Ok(shared)
    }

    /// Creates or joins the topic's `/dev/shm` segment.
    fn open_segment(spec: &OpenSpec) -> Result<Arc<Shared>, OpenError> {
        let dir = segment::domain_dir(spec.domain);
        let file = segment::topic_file(&spec.name);
        let seg =
            segment::open_or_create(&dir, &file, &spec.config(), spec.chunks()).map_err(|e| {
                segment_error(&spec.name, spec.domain, &spec.schema, spec.max_endpoints, e)
            })?;
        Self::from_segment(spec, seg)
    }

    /// Views an opened segment.
    fn from_segment(spec: &OpenSpec, seg: segment::Segment) -> Result<Arc<Shared>, OpenError> {
        let path = TransportPath::Shm(seg.region.path().to_owned());
        if !seg.created {
            tracing::debug!(topic = %spec.name, "joined existing topic");
        }
        let handle = seg.handle;
        let mut shared = Self::assemble(spec, path, seg.params, Memory::Shm(seg.region))?;
        shared.handle = Some(handle);
        let shared = Arc::new(shared);
        shared.watch_damage();
        crate::registry::announce::segment_opened(spec.domain, &spec.name);
        Ok(shared)
    }

    /// Checks an open topic against what `spec` asked for: QoS given explicitly, the type, and
    /// that the segment's slots and pool fit the type (a header may be self-consistent yet
    /// wrong for this type: another program, or a lie).
    fn check_against(&self, spec: &OpenSpec) -> Result<(), OpenError> {
        let topic = || spec.name.clone();
        let p = &self.params;
        if spec.reliability.is_some_and(|r| r != p.reliability)
            || spec
                .depth
                .is_some_and(|d| d.max(1).next_power_of_two() != p.capacity)
        {
            return Err(OpenError::QosMismatch {
                topic: topic(),
                requested: describe_qos(spec.reliability(), spec.capacity()),
                found: describe_qos(p.reliability, p.capacity),
            });
        }
        if p.stored_type != spec.stored_type {
            return Err(OpenError::TypeMismatch {
                topic: topic(),
                expected: spec.stored_type.describe(),
                found: p.stored_type.describe(),
                difference: description::first_difference(&spec.schema, &self.schema_bytes()),
            });
        }
        if let Some((ours, theirs, difference)) =
            description::serde_difference(&spec.schema, &self.schema_bytes())
        {
            return Err(OpenError::TypeMismatch {
                topic: topic(),
                expected: format!("{} of {ours}", spec.stored_type.describe()),
                found: format!("{} of {theirs}", p.stored_type.describe()),
                difference,
            });
        }
        let pool_missing = spec.chunk_bytes.is_some() && self.pool.is_none();
        if p.slot_payload != spec.slot_payload || pool_missing {
            let reason = if pool_missing {
                "the segment has no chunk pool for a chunked message type".to_owned()
            } else {
                format!(
                    "its slots hold {} bytes, the message needs {}",
                    p.slot_payload, spec.slot_payload
                )
            };
            return Err(OpenError::Corrupt {
                topic: topic(),
                path: self.display_path(),
                reason,
                domain: spec.domain,
            });
        }
        if let Some(bytes) = spec.chunk_bytes {
            let have = self.pool.as_ref().map_or(0, Pool::chunk_size);
            if have < bytes {
                tracing::warn!(topic = %spec.name, requested = bytes, have, "topic already exists with smaller chunks; messages above its limit will be refused");
            }
        }
        Ok(())
    }

    /// Views the ring and the pool of validated `params` in `memory`.
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
                path: path.display_path(),
                reason: e.to_string(),
                domain: spec.domain,
            })?)
        } else {
            None
        };
        let populated = match (&memory, &pool) {
            (Memory::Shm(_), Some(p)) => (0..p.chunk_count())
                .map(|_| std::sync::atomic::AtomicUsize::new(0))
                .collect(),
            _ => Box::default(),
        };
        Ok(Shared {
            damage: std::sync::atomic::AtomicBool::new(false),
            name: spec.name.clone(),
            domain: spec.domain,
            path,
            params,
            ring,
            pool,
            handle: None,
            populated,
            memory,
        })
    }
}

/// What a segment that could not be opened means for topic `name`: `schema` is the opener's
/// description (to name the first field that differs on a type mismatch), `max_endpoints` the
/// records it asked for.
fn segment_error(
    name: &str,
    domain: u32,
    schema: &[u8],
    max_endpoints: u32,
    e: SegmentError,
) -> OpenError {
    let topic = name.to_owned();
    match e {
        SegmentError::Corrupt { path, source } => OpenError::Corrupt {
            topic,
            path,
            reason: source.to_string(),
            domain,
        },
        SegmentError::TypeMismatch {
            expected,
            found,
            found_schema,
        } => OpenError::TypeMismatch {
            topic,
            expected: expected.describe(),
            found: found.describe(),
            difference: description::first_difference(schema, &found_schema),
        },
        SegmentError::Full { .. } => OpenError::TooManyEndpoints {
            topic,
            max: max_endpoints,
        },
        SegmentError::NoSpace { needed, free, .. } => OpenError::NoSpace {
            topic,
            needed,
            free,
        },
        SegmentError::Io { source, .. } => OpenError::Io { topic, source },
    }
}
