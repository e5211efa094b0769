//! An open topic as its endpoints share it: where its memory lives, its validated parameters,
//! the ring and chunk pool views into that memory, and what a ring slot carries for a chunk.

use std::path::PathBuf;

use nerve_shm::segment;
use nerve_shm::{ChunkId, HeapRegion, Pool, Region, Ring, TopicParams};

/// Where a topic's memory lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportPath {
    /// A `/dev/shm` segment shared with other processes.
    Shm(PathBuf),
    /// A heap buffer shared by the endpoints of this process only.
    Heap,
}

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
pub struct Shared {
    pub name: String,
    pub domain: u32,
    pub path: TransportPath,
    pub params: TopicParams,
    pub ring: Ring,
    pub pool: Option<Pool>,
    /// Our `ENDPOINT_HANDLE` record (shared-memory topics).
    pub(crate) handle: Option<u32>,
    /// Bytes of each chunk this process made sure exist in the segment's file (shared-memory
    /// pools only): a chunk is populated once before its first write, so a full /dev/shm is
    /// an error at loan time, never a SIGBUS while filling it.
    pub(crate) populated: Box<[std::sync::atomic::AtomicUsize]>,
    /// Set by nerve's SIGBUS guard when a page of the segment was found past the end of its
    /// file: the segment was truncated under us (`nerve_shm::sigbus`). Inline, next to what
    /// a send reads anyway: it is checked on every one.
    pub(crate) damage: std::sync::atomic::AtomicBool,
    // Declared last: dropped after the ring and pool views that point into it.
    pub(crate) memory: Memory,
}

/// The memory a topic lives in.
pub(crate) enum Memory {
    /// In-process topic.
    Heap(HeapRegion),
    /// Shared-memory segment.
    Shm(segment::ShmRegion),
}

impl Memory {
    pub(crate) fn region(&self) -> &dyn Region {
        match self {
            Memory::Heap(r) => r,
            Memory::Shm(r) => r,
        }
    }
}

impl Shared {
    /// The type description bytes the topic carries (a copy; empty: none).
    pub(crate) fn schema_bytes(&self) -> Vec<u8> {
        segment::schema_bytes(self.memory.region(), &self.params)
    }

    /// The topic's type description, validated against its stored type: `None` when the
    /// creator gave none.
    pub(crate) fn description(
        &self,
    ) -> Result<Option<nerve_msgs::described::TypeDoc>, nerve_msgs::described::DocError> {
        crate::description::decode(&self.schema_bytes(), &self.params.stored_type)
    }

    /// The fields of a MessagePack topic's values, as its Rust creator's type has them.
    pub(crate) fn serde_description(
        &self,
    ) -> Result<Option<nerve_msgs::serde_doc::SerdeDoc>, nerve_msgs::described::DocError> {
        crate::description::decode_serde(&self.schema_bytes())
    }

    /// Whether the topic's memory was truncated under this process: nothing in it can be
    /// trusted any more.
    #[inline]
    pub(crate) fn damaged(&self) -> bool {
        self.damage.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Asks the SIGBUS guard to set `damage` for this topic's mapping (once `self` has its
    /// final address, in its `Arc`).
    pub(crate) fn watch_damage(&self) {
        if let Memory::Shm(region) = &self.memory {
            // SAFETY: `damage` lives as long as `self`, which owns the region (and its
            // registration, dropped with it before `self`'s memory is freed).
            unsafe { region.watch_damage(&self.damage) };
        }
    }

    /// What a damaged topic reports, to a publisher or a subscriber.
    pub(crate) fn damage_reason(&self) -> String {
        format!(
            "{} was truncated under this process by another program",
            self.display_path().display()
        )
    }

    /// Makes sure the first `bytes` of chunk `index` exist in the segment's file before this
    /// process writes them; false when the file system is full. Free for heap topics and for
    /// chunks already populated this far.
    #[inline]
    pub(crate) fn populate_chunk(&self, index: u32, bytes: usize) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let (Some(done), Some(pool)) = (self.populated.get(index as usize), &self.pool) else {
            return true;
        };
        if done.load(Relaxed) >= bytes {
            return true;
        }
        let ok = nerve_shm::segment::populate(pool.chunk_ptr(index), bytes);
        if ok {
            done.fetch_max(bytes, Relaxed);
        }
        ok
    }

    /// Largest payload a chunk holds after a header of `header` bytes (0 without a pool).
    pub(crate) fn chunk_limit(&self, header: usize) -> usize {
        self.pool
            .as_ref()
            .map_or(0, |p| p.chunk_size().saturating_sub(data_offset(header)))
    }

    /// The segment's path for error messages (`<heap>` for in-process topics).
    pub(crate) fn display_path(&self) -> PathBuf {
        self.path.display_path()
    }
}

impl TransportPath {
    /// The segment's path, or `<heap>` for in-process topics (for error messages).
    pub(crate) fn display_path(&self) -> PathBuf {
        match self {
            TransportPath::Shm(p) => p.clone(),
            TransportPath::Heap => PathBuf::from("<heap>"),
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(h) = self.handle {
            self.ring.release_endpoint(h);
        }
        // The last process to close a shared-memory topic removes its file (and so its memory).
        // Either way the domain's registry is told (`registry::announce`).
        match &self.memory {
            Memory::Shm(shm) if shm.unlink_if_unused(&self.params) => {
                crate::registry::announce::segment_removed(self.domain, &self.name)
            }
            Memory::Shm(_) => {}
            Memory::Heap(region) => crate::registry::announce::heap_dropped(
                self.domain,
                &self.name,
                region.base().as_ptr() as usize,
            ),
        }
    }
}

/// Offset of the elements in a chunk: after the header, cache-line aligned.
pub(crate) const fn data_offset(header: usize) -> usize {
    (header + 63) & !63
}

/// A chunk descriptor as carried in a ring slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
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
