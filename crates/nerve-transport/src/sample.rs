//! Received chunks, read in place in shared memory: [`Sample<T>`] for typed topics and
//! [`RawSample`] for untyped ones, both over one [`ChunkSample`] that pins the chunk while it
//! lives and releases it when dropped.

use std::marker::PhantomData;
use std::sync::Arc;

use nerve_msgs::ChunkedMessage;

use crate::endpoint::Endpoint;
use crate::shared::{data_offset, Descriptor};

/// A chunk pinned for a subscriber endpoint (its reference was taken in `read_chunk`); the
/// reference is released when this drops. It may outlive its subscriber: it holds the
/// endpoint record (and so the mapping) itself.
pub struct ChunkSample {
    pub(crate) ep: Arc<Endpoint>,
    pub(crate) desc: Descriptor,
}

impl ChunkSample {
    /// Start of the chunk (its header).
    pub(crate) fn base(&self) -> *const u8 {
        self.ep
            .shared
            .pool
            .as_ref()
            .expect("a chunk sample comes from a topic with a pool")
            .chunk_ptr(self.desc.id.index)
    }

    /// Start of the elements: after a header of `header` bytes, 64-byte aligned.
    pub(crate) fn data_ptr(&self, header: usize) -> *const u8 {
        // SAFETY: the data offset lies inside the chunk (validated in read_chunk).
        unsafe { self.base().add(data_offset(header)) }
    }

    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        self.desc.len as usize
    }
}

impl Drop for ChunkSample {
    fn drop(&mut self) {
        if let Some(pool) = &self.ep.shared.pool {
            pool.release(self.desc.id, self.ep.index);
        }
    }
}

/// A received chunked message, read in place in shared memory. Holding it pins its chunk.
pub struct Sample<T: ChunkedMessage> {
    chunk: ChunkSample,
    _t: PhantomData<fn() -> T>,
}

impl<T: ChunkedMessage> Sample<T> {
    pub(crate) fn new(chunk: ChunkSample) -> Self {
        Sample {
            chunk,
            _t: PhantomData,
        }
    }
    /// The header.
    pub fn header(&self) -> &T::Header {
        // SAFETY: the chunk is pinned while the sample lives and no one writes it after
        // publication; the length was validated against the chunk size on receipt; chunks are
        // page-aligned, so aligned for the header.
        unsafe { &*(self.chunk.base() as *const T::Header) }
    }
    /// The elements, without a copy.
    pub fn data(&self) -> &[T::Elem] {
        let data = self.chunk.data_ptr(std::mem::size_of::<T::Header>());
        // SAFETY: as for `header`; `len` elements fit after the 64-byte aligned data offset
        // (validated in read_chunk); Pod elements accept any bit pattern.
        unsafe { std::slice::from_raw_parts(data as *const T::Elem, self.chunk.len()) }
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.chunk.len()
    }
    /// True when the message has no elements.
    pub fn is_empty(&self) -> bool {
        self.chunk.len() == 0
    }
}

/// A received chunk of an untyped topic, read in place; holding it pins the chunk (it may
/// outlive its subscriber).
pub struct RawSample {
    chunk: ChunkSample,
    header: usize,
    bytes: usize,
}

impl RawSample {
    pub(crate) fn new(chunk: ChunkSample, header: usize, elem: usize) -> Self {
        let bytes = chunk.len() * elem;
        RawSample {
            chunk,
            header,
            bytes,
        }
    }
    /// Pointer to the header (valid while the sample lives).
    pub fn header_ptr(&self) -> *const u8 {
        self.chunk.base()
    }
    /// Header bytes.
    pub fn header_len(&self) -> usize {
        self.header
    }
    /// Pointer to the payload, 64-byte aligned (valid while the sample lives).
    pub fn data_ptr(&self) -> *const u8 {
        self.chunk.data_ptr(self.header)
    }
    /// Payload bytes.
    pub fn data_len(&self) -> usize {
        self.bytes
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.chunk.len()
    }
    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.chunk.len() == 0
    }
    /// The header.
    pub fn header(&self) -> &[u8] {
        // SAFETY: pinned while the sample lives; nobody writes a published chunk; the header
        // fits in the chunk (validated in read_chunk).
        unsafe { std::slice::from_raw_parts(self.header_ptr(), self.header) }
    }
    /// The payload.
    pub fn data(&self) -> &[u8] {
        // SAFETY: as for header; `bytes` fit in the chunk (validated in read_chunk).
        unsafe { std::slice::from_raw_parts(self.data_ptr(), self.bytes) }
    }
    /// The message as it lies in the chunk: the header, zero or more padding bytes up to the
    /// next multiple of 64, then the payload (what a recorder writes without copying it
    /// first; [`chunk_data_offset`] says where the payload starts).
    pub fn chunk_bytes(&self) -> &[u8] {
        // SAFETY: the header starts the chunk and the payload, at `data_offset(header)`, fits
        // in it (validated in read_chunk): the whole span lies in the pinned chunk.
        unsafe {
            std::slice::from_raw_parts(
                self.header_ptr(),
                crate::shared::data_offset(self.header) + self.bytes,
            )
        }
    }
}

/// Where a chunked message's payload starts after a header of `header` bytes (the next
/// multiple of 64): the layout of [`RawSample::chunk_bytes`].
pub const fn chunk_data_offset(header: usize) -> usize {
    crate::shared::data_offset(header)
}
