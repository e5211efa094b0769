//! Chunks loaned from a topic's pool and filled in place before they are sent: [`Loan<T>`] for
//! typed topics and [`RawLoan`] for untyped ones, both over one [`ChunkLoan`] that returns the
//! chunk to the pool unless it was sent.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use nerve_msgs::ChunkedMessage;
use nerve_shm::ChunkId;

use crate::error::SendError;
use crate::publish::PubCore;
use crate::shared::{data_offset, Shared};

/// A chunk loaned by publisher core `C` (a borrow for typed publishers, an `Arc` for raw ones,
/// whose loans may outlive the borrow): ours alone until sent; returned to the pool when
/// dropped unsent.
pub struct ChunkLoan<C: Deref<Target = PubCore>> {
    core: C,
    id: ChunkId,
    header: usize,
    /// Elements.
    len: u64,
    sent: bool,
}

impl<C: Deref<Target = PubCore>> ChunkLoan<C> {
    /// Loans a chunk for a header of `header` bytes and `len` elements of `elem` bytes.
    pub(crate) fn new(
        core: C,
        header: usize,
        len: usize,
        elem: usize,
    ) -> Result<Self, SendError<()>> {
        let id = core.loan(header, len.saturating_mul(elem))?;
        Ok(ChunkLoan {
            core,
            id,
            header,
            len: len as u64,
            sent: false,
        })
    }

    /// Start of the chunk (its header).
    fn base(&self) -> *mut u8 {
        self.core
            .shared()
            .pool
            .as_ref()
            .expect("a loan comes from a topic with a pool")
            .chunk_ptr(self.id.index)
    }

    /// Start of the elements (64-byte aligned after the header).
    fn data(&self) -> *mut u8 {
        // SAFETY: the data offset lies inside the chunk (checked in PubCore::loan).
        unsafe { self.base().add(data_offset(self.header)) }
    }

    fn len(&self) -> usize {
        self.len as usize
    }

    fn shared(&self) -> &Arc<Shared> {
        &self.core.ep.shared
    }

    /// Publishes the chunk: O(1) in its size. On `Full` the chunk goes back to the pool.
    fn send(mut self) -> Result<(), SendError<()>> {
        self.sent = true;
        if !self.core.send_chunk(self.id, self.len) {
            self.core.release_loan(self.id);
            return Err(self.core.full_error(()));
        }
        if self.core.shared().damaged() {
            return Err(self.core.damage_error());
        }
        Ok(())
    }
}

impl<C: Deref<Target = PubCore>> Drop for ChunkLoan<C> {
    fn drop(&mut self) {
        if !self.sent {
            self.core.release_loan(self.id);
        }
    }
}

/// A chunk loaned from the topic's pool, being filled in place. Dropping it unsent returns the
/// chunk.
#[must_use = "a loan is only published by .send(); dropping it returns the chunk unsent"]
pub struct Loan<'a, T: ChunkedMessage> {
    chunk: ChunkLoan<&'a PubCore>,
    _t: PhantomData<fn() -> T>,
}

impl<'a, T: ChunkedMessage> Loan<'a, T> {
    pub(crate) fn new(core: &'a PubCore, len: usize) -> Result<Self, SendError<()>> {
        Ok(Loan {
            chunk: ChunkLoan::new(
                core,
                std::mem::size_of::<T::Header>(),
                len,
                std::mem::size_of::<T::Elem>(),
            )?,
            _t: PhantomData,
        })
    }
    /// The header, in shared memory.
    pub fn header_mut(&mut self) -> &mut T::Header {
        // SAFETY: the chunk is ours alone until sent, page-aligned (so aligned for the header),
        // large enough (checked in `loan`), and any bit pattern is a valid Pod header.
        unsafe { &mut *(self.chunk.base() as *mut T::Header) }
    }
    /// The elements, in shared memory (their previous content is unspecified).
    pub fn data_mut(&mut self) -> &mut [T::Elem] {
        // SAFETY: as for header_mut; elements start 64-byte aligned after the header and `len`
        // of them fit (checked in `loan`); Pod elements accept any bit pattern.
        unsafe {
            std::slice::from_raw_parts_mut(self.chunk.data() as *mut T::Elem, self.chunk.len())
        }
    }
    /// Publishes the chunk: O(1) in its size.
    pub fn send(self) -> Result<(), SendError<()>> {
        self.chunk.send()
    }
}

/// Keeps a topic's shared memory mapped while held: for views into a chunk that may outlive
/// the loan or sample they came from (Python arrays, for instance). Holding it pins no chunk.
#[derive(Clone)]
pub struct MappingGuard(#[allow(dead_code)] Arc<Shared>);

/// A chunk loaned by a [`RawPublisher`](crate::raw::RawPublisher), being filled; dropping it
/// unsent returns the chunk.
#[must_use = "a loan is only published by .send(); dropping it returns the chunk unsent"]
pub struct RawLoan {
    chunk: ChunkLoan<Arc<PubCore>>,
    bytes: usize,
}

impl RawLoan {
    /// A loan of `payload_bytes` (a whole number of `elem`-byte elements) after a header of
    /// `header_bytes` (both checked against the type by the caller).
    pub(crate) fn new(
        core: Arc<PubCore>,
        header_bytes: usize,
        payload_bytes: usize,
        elem: usize,
    ) -> Result<Self, SendError<()>> {
        Ok(RawLoan {
            chunk: ChunkLoan::new(core, header_bytes, payload_bytes / elem, elem)?,
            bytes: payload_bytes,
        })
    }
    /// The header bytes, in shared memory.
    pub fn header_mut(&mut self) -> &mut [u8] {
        // SAFETY: the chunk is ours alone until sent and holds the header (checked in loan).
        unsafe { std::slice::from_raw_parts_mut(self.chunk.base(), self.chunk.header) }
    }
    /// The payload bytes, in shared memory (previous content unspecified).
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: as for header_mut; `bytes` fit after the 64-byte aligned data offset.
        unsafe { std::slice::from_raw_parts_mut(self.chunk.data(), self.bytes) }
    }
    /// Pointer to the header (valid until `send` or drop; for Python and C views).
    pub fn header_ptr(&self) -> *mut u8 {
        self.chunk.base()
    }
    /// A guard that keeps the chunk's memory mapped after the loan is sent or dropped.
    pub fn mapping(&self) -> MappingGuard {
        MappingGuard(self.chunk.shared().clone())
    }
    /// Pointer to the payload (64-byte aligned; valid until `send` or drop).
    pub fn data_ptr(&self) -> *mut u8 {
        self.chunk.data()
    }
    /// Payload bytes.
    pub fn data_len(&self) -> usize {
        self.bytes
    }
    /// Publishes the chunk: O(1) in its size.
    pub fn send(self) -> Result<(), SendError<()>> {
        self.chunk.send()
    }

    /// Publishes the chunk like [`send`](Self::send), and keeps it out of the pool until the
    /// returned pin is dropped, sent or not: for views of the chunk (Python arrays) that may
    /// outlive the send, so that their memory is never handed to another message while they
    /// exist. A process that dies holding a pin leaks that one chunk until the topic is
    /// rebuilt.
    pub fn send_pinned(self) -> (Result<(), SendError<()>>, ChunkPin) {
        let pin = ChunkPin::new(&self.chunk);
        (self.chunk.send(), pin)
    }
}

/// Keeps one chunk out of the pool while held (see [`RawLoan::send_pinned`]).
pub struct ChunkPin {
    core: Arc<PubCore>,
    id: Option<ChunkId>,
}

impl ChunkPin {
    fn new(loan: &ChunkLoan<Arc<PubCore>>) -> Self {
        let pool = loan.core.shared().pool.as_ref();
        // A second reference on a chunk we hold: it cannot have been recycled.
        let pinned = pool.is_some_and(|p| p.retain(loan.id, loan.core.ep.index));
        ChunkPin {
            core: loan.core.clone(),
            id: pinned.then_some(loan.id),
        }
    }
}

impl Drop for ChunkPin {
    fn drop(&mut self) {
        if let (Some(id), Some(pool)) = (self.id, &self.core.shared().pool) {
            // Our own reference (taken in `new`): valid.
            let _ = pool.release_unowned(id);
        }
    }
}
