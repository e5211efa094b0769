//! Typed topics: `Topic<T>`, its builder, publishers, subscribers, loans and samples.

// `Codec::decode` takes crate-private types on purpose: it cannot be called or implemented
// outside this crate, which keeps the three codecs the only ones.
#![allow(private_interfaces, private_bounds)]

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use nerve_msgs::{Chunked, ChunkedMessage, Fixed, FixedMessage, Message, Serialized};
use nerve_shm::{ChunkId, Reliability, StoredType};

use crate::core::{
    self, Descriptor, OpenSpec, PubCore, Shared, Step, SubCore, SubscriberStats, TransportPath,
};
use crate::error::{OpenError, RecvError, SendError};
use crate::msgpack::Msgpack;

/// The domain from `$NERVE_DOMAIN`, or 0.
pub fn default_domain() -> u32 {
    std::env::var("NERVE_DOMAIN")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
}

pub(crate) fn stored_type(fp: &nerve_msgs::Fingerprint) -> StoredType {
    StoredType {
        name: fp.name.to_owned(),
        kind: fp.kind as u32,
        size: fp.size,
        align: fp.align,
        elem_size: fp.elem_size,
        layout_hash: fp.layout_hash,
    }
}

/// How each kind of message crosses the ring: implemented for the markers
/// [`Fixed`], [`Chunked`] and [`Serialized`].
pub trait Codec<T: Message>: nerve_msgs::kind::Kind + Sized {
    /// What a subscriber receives.
    type Received;
    /// Bytes of the ring slot.
    fn slot_payload() -> u32;
    /// Whether the topic needs a chunk pool.
    fn chunked() -> bool;
    /// Reads the message at cursor `c`.
    #[doc(hidden)]
    fn decode(
        sub: &Arc<crate::core::Endpoint>,
        shared: &Shared,
        c: u64,
    ) -> Step<Result<Self::Received, RecvError>>;
}

impl<T: FixedMessage> Codec<T> for Fixed {
    type Received = T;
    fn slot_payload() -> u32 {
        std::mem::size_of::<T>() as u32
    }
    fn chunked() -> bool {
        false
    }
    fn decode(
        _: &Arc<crate::core::Endpoint>,
        shared: &Shared,
        c: u64,
    ) -> Step<Result<T, RecvError>> {
        let mut msg = T::zeroed();
        core::read_fixed(shared, c, bytemuck::bytes_of_mut(&mut msg)).map(|()| Ok(msg))
    }
}

impl<T: ChunkedMessage> Codec<T> for Chunked {
    type Received = Sample<T>;
    fn slot_payload() -> u32 {
        core::DESCRIPTOR_BYTES
    }
    fn chunked() -> bool {
        true
    }
    fn decode(
        ep: &Arc<crate::core::Endpoint>,
        shared: &Shared,
        c: u64,
    ) -> Step<Result<Sample<T>, RecvError>> {
        let (header, elem) = (
            std::mem::size_of::<T::Header>(),
            std::mem::size_of::<T::Elem>(),
        );
        core::read_chunk(shared, c, ep.index, header, elem).map(|desc| {
            Ok(Sample {
                ep: ep.clone(),
                desc,
                _t: PhantomData,
            })
        })
    }
}

impl<V> Codec<Msgpack<V>> for Serialized
where
    V: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    type Received = V;
    fn slot_payload() -> u32 {
        core::DESCRIPTOR_BYTES
    }
    fn chunked() -> bool {
        true
    }
    fn decode(
        ep: &Arc<crate::core::Endpoint>,
        shared: &Shared,
        c: u64,
    ) -> Step<Result<V, RecvError>> {
        core::read_chunk(shared, c, ep.index, 0, 1).map(|d| {
            let pool = shared.pool.as_ref().expect("serialized topic has a pool");
            // SAFETY: the chunk is pinned (retained above) and `d.len` bytes were checked to
            // fit in it; the publisher finished writing before publishing the descriptor.
            let bytes =
                unsafe { std::slice::from_raw_parts(pool.chunk_ptr(d.id.index), d.len as usize) };
            let value = rmp_serde::from_slice(bytes).map_err(|e| RecvError::Decode {
                topic: shared.name.clone(),
                reason: e.to_string(),
            });
            pool.release(d.id, ep.index);
            value
        })
    }
}

/// Builds or joins a topic. Options left unset adopt the existing topic's settings.
#[must_use = "a builder does nothing until .open()"]
pub struct TopicBuilder<T> {
    spec: OpenSpec,
    _t: PhantomData<fn() -> T>,
}

impl<T: Message> TopicBuilder<T>
where
    T::Kind: Codec<T>,
{
    crate::core::topic_builder_options!();

    /// Opens the topic, creating it if needed.
    pub fn open(self) -> Result<Topic<T>, OpenError> {
        Ok(Topic {
            shared: Shared::open(&self.spec)?,
            _t: PhantomData,
        })
    }
}

/// A named channel of messages of type `T`, in one process or across processes.
pub struct Topic<T> {
    pub(crate) shared: Arc<Shared>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Topic<T> {
    fn clone(&self) -> Self {
        Topic {
            shared: self.shared.clone(),
            _t: PhantomData,
        }
    }
}

impl<T: Message> Topic<T>
where
    T::Kind: Codec<T>,
{
    /// Starts building topic `name`.
    pub fn builder(name: &str) -> TopicBuilder<T> {
        let chunked = <T::Kind as Codec<T>>::chunked();
        TopicBuilder {
            spec: OpenSpec {
                name: name.to_owned(),
                domain: default_domain(),
                stored_type: stored_type(&T::FINGERPRINT),
                reliability: None,
                depth: None,
                slot_payload: <T::Kind as Codec<T>>::slot_payload(),
                max_endpoints: core::DEFAULT_MAX_ENDPOINTS,
                chunk_bytes: chunked.then_some(core::DEFAULT_CHUNK_BYTES),
                chunks: None,
                in_process: false,
            },
            _t: PhantomData,
        }
    }

    /// Opens topic `name` with default settings.
    pub fn open(name: &str) -> Result<Self, OpenError> {
        Self::builder(name).open()
    }

    /// A new publisher.
    pub fn publisher(&self) -> Result<Publisher<T>, OpenError> {
        Ok(Publisher {
            core: PubCore::new(&self.shared, true)?,
            _t: PhantomData,
            _not_sync: PhantomData,
        })
    }

    /// A new subscriber that receives messages published from now on.
    pub fn subscriber(&self) -> Result<Subscriber<T>, OpenError> {
        self.subscriber_with_history(0)
    }

    /// A new subscriber that first receives up to `n` of the most recent messages still in the
    /// ring (late joiners).
    pub fn subscriber_with_history(&self, n: u64) -> Result<Subscriber<T>, OpenError> {
        Ok(Subscriber {
            core: SubCore::new(&self.shared, n)?,
            _t: PhantomData,
        })
    }

    /// The topic name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Where the topic lives.
    pub fn path(&self) -> &TransportPath {
        &self.shared.path
    }

    /// Ring capacity.
    pub fn depth(&self) -> u64 {
        self.shared.ring.capacity()
    }

    /// Reliability of the topic.
    pub fn reliability(&self) -> Reliability {
        self.shared.params.reliability
    }

    /// Chunks in use and in the pool, for chunked and serialized topics.
    pub fn chunks_in_use(&self) -> Option<(u32, u32)> {
        self.shared
            .pool
            .as_ref()
            .map(|p| (p.in_use(), p.chunk_count()))
    }

    /// Frees the endpoint records and chunks of processes that died. nerve does this by itself
    /// when a pool runs dry or a reliable publisher is blocked; tools call it directly.
    pub fn reclaim_dead(&self) -> usize {
        self.shared.reclaim_dead()
    }
}

/// Publishes messages of type `T`.
///
/// `Send` but not `Sync`: a publisher moves between threads (a scheduler may run its node on
/// any pool thread) but is never used by two at once, which lets a topic's only publisher
/// claim messages with plain stores. Share one across threads through a `Mutex`, or give each
/// thread its own publisher.
///
/// ```compile_fail
/// fn needs_sync<S: Sync>() {}
/// needs_sync::<nerve_transport::Publisher<nerve_transport::msgs::CmdVel>>();
/// ```
pub struct Publisher<T> {
    core: PubCore,
    _t: PhantomData<fn() -> T>,
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

impl<T> Publisher<T> {
    /// How long `send` waits for room on a reliable topic before `Full` (default 1 s; zero:
    /// fail at once).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.core.timeout = timeout;
    }
    /// The topic name.
    pub fn topic(&self) -> &str {
        &self.core.shared().name
    }
    /// Whether this publisher is the topic's only one and claims messages with plain stores
    /// (no locked instruction per message). A second publisher, or sending from a second
    /// thread, switches the topic to locked claims for good.
    pub fn is_solo(&self) -> bool {
        self.core.is_solo()
    }
}

impl<T: FixedMessage> Publisher<T> {
    /// Test hook: claims the next slot, writes half of `msg`, and never finishes — what a
    /// publisher killed mid-write leaves behind. Only for crash-recovery tests.
    #[doc(hidden)]
    pub fn __stall_mid_write(&self, msg: &T) {
        self.core.stall_mid_write(bytemuck::bytes_of(msg));
    }

    /// Copies `msg` into the ring. O(size of T); no syscall unless a subscriber sleeps.
    #[inline]
    pub fn send(&self, msg: &T) -> Result<(), SendError<T>> {
        if self.core.publish(bytemuck::bytes_of(msg)) {
            Ok(())
        } else {
            Err(self.core.full_error(*msg))
        }
    }
}

impl<V: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static>
    Publisher<Msgpack<V>>
{
    /// Serializes `value` as MessagePack straight into a shared chunk and publishes it.
    pub fn send(&self, value: &V) -> Result<(), SendError<()>> {
        let shared = self.core.shared();
        let limit = shared.chunk_limit(0);
        let id = self.core.loan(0, 0)?;
        let pool = shared.pool.as_ref().expect("serialized topic has a pool");
        // SAFETY: we hold the only reference to the loaned chunk, `limit` bytes long.
        let buf = unsafe { std::slice::from_raw_parts_mut(pool.chunk_ptr(id.index), limit) };
        let mut w = SliceWriter {
            buf,
            pos: 0,
            overflow: false,
        };
        if let Err(e) = rmp_serde::encode::write_named(&mut w, value) {
            self.core.release_loan(id);
            if w.overflow {
                let size = rmp_serde::to_vec_named(value)
                    .map(|v| v.len())
                    .unwrap_or(limit + 1);
                return Err(SendError::TooLarge {
                    topic: shared.name.clone(),
                    size,
                    limit,
                });
            }
            return Err(SendError::Encode {
                topic: shared.name.clone(),
                reason: e.to_string(),
            });
        }
        if self.core.send_chunk(id, w.pos as u64) {
            Ok(())
        } else {
            self.core.release_loan(id);
            Err(self.core.full_error(()))
        }
    }
}

struct SliceWriter<'a> {
    buf: &'a mut [u8],
    pos: usize,
    overflow: bool,
}

impl std::io::Write for SliceWriter<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let end = self.pos + data.len();
        if end > self.buf.len() {
            self.overflow = true;
            return Err(std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                "message larger than a chunk",
            ));
        }
        self.buf[self.pos..end].copy_from_slice(data);
        self.pos = end;
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<T: ChunkedMessage> Publisher<T> {
    /// Loans a shared chunk for a message of `len` elements: fill it in place, then `send()`.
    pub fn loan(&self, len: usize) -> Result<Loan<'_, T>, SendError<()>> {
        let bytes = len.saturating_mul(std::mem::size_of::<T::Elem>());
        let id = self.core.loan(std::mem::size_of::<T::Header>(), bytes)?;
        Ok(Loan {
            publisher: self,
            id,
            len,
            sent: false,
        })
    }

    /// Largest payload in elements this topic accepts.
    pub fn max_len(&self) -> usize {
        self.core
            .shared()
            .chunk_limit(std::mem::size_of::<T::Header>())
            / std::mem::size_of::<T::Elem>().max(1)
    }
}

/// A chunk loaned from the topic's pool, being filled in place. Dropping it unsent returns the
/// chunk.
pub struct Loan<'a, T: ChunkedMessage> {
    publisher: &'a Publisher<T>,
    id: ChunkId,
    len: usize,
    sent: bool,
}

impl<T: ChunkedMessage> Loan<'_, T> {
    fn base(&self) -> *mut u8 {
        self.publisher
            .core
            .shared()
            .pool
            .as_ref()
            .expect("chunked topic has a pool")
            .chunk_ptr(self.id.index)
    }
    /// The header, in shared memory.
    pub fn header_mut(&mut self) -> &mut T::Header {
        // SAFETY: the chunk is ours alone until sent, page-aligned (so aligned for the header),
        // large enough (checked in `loan`), and any bit pattern is a valid Pod header.
        unsafe { &mut *(self.base() as *mut T::Header) }
    }
    /// The elements, in shared memory (their previous content is unspecified).
    pub fn data_mut(&mut self) -> &mut [T::Elem] {
        let off = core::data_offset(std::mem::size_of::<T::Header>());
        // SAFETY: as for header_mut; elements start 64-byte aligned at `off` and `len` of them
        // fit (checked in `loan`); Pod elements accept any bit pattern.
        unsafe { std::slice::from_raw_parts_mut(self.base().add(off) as *mut T::Elem, self.len) }
    }
    /// Publishes the chunk: O(1) in its size.
    pub fn send(mut self) -> Result<(), SendError<()>> {
        self.sent = true;
        if self.publisher.core.send_chunk(self.id, self.len as u64) {
            Ok(())
        } else {
            self.publisher.core.release_loan(self.id);
            Err(self.publisher.core.full_error(()))
        }
    }
}

impl<T: ChunkedMessage> Drop for Loan<'_, T> {
    fn drop(&mut self) {
        if !self.sent {
            self.publisher.core.release_loan(self.id);
        }
    }
}

/// A received chunked message, read in place in shared memory. Holding it pins its chunk.
pub struct Sample<T: ChunkedMessage> {
    ep: Arc<crate::core::Endpoint>,
    desc: Descriptor,
    _t: PhantomData<fn() -> T>,
}

impl<T: ChunkedMessage> Sample<T> {
    fn base(&self) -> *const u8 {
        self.ep
            .shared
            .pool
            .as_ref()
            .expect("chunked topic has a pool")
            .chunk_ptr(self.desc.id.index)
    }
    /// The header.
    pub fn header(&self) -> &T::Header {
        // SAFETY: the chunk is pinned while the sample lives and no one writes it after
        // publication; the length was validated against the chunk size on receipt.
        unsafe { &*(self.base() as *const T::Header) }
    }
    /// The elements, without a copy.
    pub fn data(&self) -> &[T::Elem] {
        let off = core::data_offset(std::mem::size_of::<T::Header>());
        // SAFETY: as for `header`; `len` elements fit after `off` (validated in read_chunk).
        unsafe {
            std::slice::from_raw_parts(
                self.base().add(off) as *const T::Elem,
                self.desc.len as usize,
            )
        }
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.desc.len as usize
    }
    /// True when the message has no elements.
    pub fn is_empty(&self) -> bool {
        self.desc.len == 0
    }
}

impl<T: ChunkedMessage> Drop for Sample<T> {
    fn drop(&mut self) {
        if let Some(pool) = &self.ep.shared.pool {
            pool.release(self.desc.id, self.ep.index);
        }
    }
}

/// Receives messages of type `T`.
pub struct Subscriber<T> {
    core: SubCore,
    _t: PhantomData<fn() -> T>,
}

type Received<T> = <<T as Message>::Kind as Codec<T>>::Received;

impl<T: Message> Subscriber<T>
where
    T::Kind: Codec<T>,
{
    fn decode() -> impl FnMut(&Shared, u64) -> Step<Result<Received<T>, RecvError>> {
        |_, _| unreachable!()
    }

    fn run(&mut self, wait: Option<Option<Duration>>) -> Option<Result<Received<T>, RecvError>> {
        let decode = |ep: &Arc<crate::core::Endpoint>, c: u64| {
            <T::Kind as Codec<T>>::decode(ep, &ep.shared, c)
        };
        let _ = Self::decode;
        match wait {
            None => self.core.try_recv(decode),
            Some(t) => self.core.recv_until(t, decode),
        }
    }

    /// Returns the next message if one is there; never blocks.
    #[inline]
    pub fn try_recv(&mut self) -> Result<Option<Received<T>>, RecvError> {
        self.run(None).transpose()
    }

    /// Waits for the next message: spins briefly, then sleeps on a futex (≈0 % CPU).
    pub fn recv(&mut self) -> Result<Received<T>, RecvError> {
        loop {
            if let Some(r) = self.run(Some(None)) {
                return r;
            }
        }
    }

    /// Waits up to `timeout`; `Ok(None)` when nothing arrived.
    pub fn recv_timeout(&mut self, timeout: Duration) -> Result<Option<Received<T>>, RecvError> {
        self.run(Some(Some(timeout))).transpose()
    }

    /// Like `recv_timeout`, but a timeout is an error naming the topic.
    pub fn recv_deadline(&mut self, timeout: Duration) -> Result<Received<T>, RecvError> {
        self.recv_timeout(timeout)?
            .ok_or_else(|| self.core.timeout_error(timeout))
    }

    /// Received / lost / dropped counters.
    pub fn stats(&self) -> SubscriberStats {
        self.core.stats
    }

    /// How long `recv` spins before sleeping (default 20 µs; zero: sleep at once).
    pub fn set_spin(&mut self, spin: Duration) {
        self.core.spin = spin;
    }

    /// The topic name.
    pub fn topic(&self) -> &str {
        &self.core.shared().name
    }
}
