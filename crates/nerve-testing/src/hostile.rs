//! A hostile (or buggy) process, for tests: maps a topic's segment read-write as any process
//! of the same user can, and writes what no nerve process writes — a bad chunk descriptor in
//! a ring slot, a `busy` flag left set, a truncated file, random bytes anywhere.
//!
//! Tests only: this reaches into the memory layer on purpose (nothing in the product does).

use std::fs::OpenOptions;
use std::path::PathBuf;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use nerve_shm::layout::{HeaderFields, TopicParams, ENDPOINTS_OFFSET, ENDPOINT_SIZE, SLOT_HEADER};
use nerve_shm::Ring;

use crate::mapping::SharedMapping;

/// The path of topic `name`'s segment in `domain`.
pub fn segment_path(domain: u32, name: &str) -> PathBuf {
    nerve_shm::segment::domain_dir(domain).join(nerve_shm::segment::topic_file(name))
}

/// A read-write mapping of a live topic's segment, like another process of the same user.
pub struct Segment {
    ptr: NonNull<u8>,
    len: usize,
    params: TopicParams,
    _map: SharedMapping,
}

impl Segment {
    /// Maps topic `name` of `domain` (it must exist and be valid).
    pub fn open(domain: u32, name: &str) -> Segment {
        Self::try_open(domain, name)
            .unwrap_or_else(|| panic!("topic {name} of domain {domain}: no valid segment"))
    }

    /// Maps topic `name` of `domain`, or None when it does not exist or does not validate.
    pub fn try_open(domain: u32, name: &str) -> Option<Segment> {
        let path = segment_path(domain, name);
        let file = OpenOptions::new().read(true).write(true).open(&path).ok()?;
        let len = file.metadata().ok()?.len() as usize;
        if len < std::mem::size_of::<HeaderFields>() {
            return None;
        }
        let map = SharedMapping::new(&file, len).ok()?;
        let ptr = map.ptr();
        // SAFETY: the mapping is at least a header long (checked above).
        let header = unsafe { std::ptr::read_volatile(ptr.as_ptr() as *const HeaderFields) };
        let params = header.validate(len).ok()?;
        Some(Segment {
            ptr,
            len,
            params,
            _map: map,
        })
    }

    /// The segment's parameters.
    pub fn params(&self) -> &TopicParams {
        &self.params
    }

    /// The ring and endpoint records, through their atomics.
    pub fn ring(&self) -> Ring {
        // SAFETY: params validated against this mapping, which lives as long as `self`.
        unsafe { Ring::new(self.ptr, &self.params) }
    }

    fn slot(&self, n: u64) -> *mut u8 {
        let index = (n % self.params.capacity as u64) as usize;
        let off = self.params.slots_offset + index * self.params.slot_stride as usize;
        assert!(off + self.params.slot_stride as usize <= self.len);
        // SAFETY: the offset lies inside the mapping (checked above).
        unsafe { self.ptr.as_ptr().add(off) }
    }

    /// Overwrites the chunk descriptor carried by message `n`'s slot (its sequence is kept, so
    /// readers see a complete message that lies).
    pub fn write_descriptor(&self, n: u64, index: u32, generation: u32, len: u64) {
        let p = self.slot(n);
        // SAFETY: the payload of a chunked topic's slot holds 16 bytes of descriptor, as
        // three atomics-sized words written with relaxed stores like a writer's.
        unsafe {
            (*(p.add(SLOT_HEADER) as *const AtomicU32)).store(index, Relaxed);
            (*(p.add(SLOT_HEADER + 4) as *const AtomicU32)).store(generation, Relaxed);
            (*(p.add(SLOT_HEADER + 8) as *const AtomicU64)).store(len, Relaxed);
        }
    }

    /// Overwrites the length word of message `n`'s slot.
    pub fn write_slot_len(&self, n: u64, len: u32) {
        // SAFETY: the length word lies at offset 8 of the slot, 4-byte aligned.
        unsafe { (*(self.slot(n).add(8) as *const AtomicU32)).store(len, Relaxed) };
    }

    /// Sets endpoint record `i`'s `busy` flag, as a publisher that died or panicked inside a
    /// send on the single-publisher path would leave it.
    pub fn set_busy(&self, i: u32, busy: u32) {
        self.ring().endpoint(i).busy.store(busy, Relaxed);
    }

    /// The endpoint records held by publishers of this process, in table order.
    pub fn our_publishers(&self) -> Vec<u32> {
        let ring = self.ring();
        (0..ring.endpoint_count())
            .filter(|&i| {
                let e = ring.endpoint(i);
                e.state.load(Relaxed) == nerve_shm::layout::ENDPOINT_PUBLISHER
                    && e.pid.load(Relaxed) == std::process::id()
            })
            .collect()
    }

    /// The byte at `offset` (for fuzzing every byte).
    pub fn byte(&self, offset: usize) -> u8 {
        assert!(offset < self.len);
        // SAFETY: inside the mapping; a byte access races with nerve's atomics only as a
        // hostile process's would.
        unsafe { std::ptr::read_volatile(self.ptr.as_ptr().add(offset)) }
    }

    /// Writes `value` at `offset`.
    pub fn set_byte(&self, offset: usize, value: u8) {
        assert!(offset < self.len);
        // SAFETY: as for `byte`.
        unsafe { std::ptr::write_volatile(self.ptr.as_ptr().add(offset), value) }
    }

    /// Bytes mapped.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the mapping is empty (never, for a valid segment).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Offset of endpoint record `i`.
    pub fn endpoint_offset(i: u32) -> usize {
        ENDPOINTS_OFFSET + i as usize * ENDPOINT_SIZE
    }
}

/// Truncates topic `name`'s segment file to `len` bytes under every process that maps it.
pub fn truncate(domain: u32, name: &str, len: u64) {
    let path = segment_path(domain, name);
    OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_len(len))
        .unwrap_or_else(|e| panic!("truncate {}: {e}", path.display()));
}
