//! Typed topics: `Topic<T>`, its builder, and its publishers and subscribers — a thin layer
//! over the untyped cores of `publish.rs` and `subscribe.rs` that the raw API shares.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use nerve_msgs::{ChunkedMessage, FixedMessage, Message};
use nerve_shm::{Reliability, StoredType};

use crate::error::{OpenError, RecvError, SendError};
use crate::loan::Loan;
use crate::msgpack::Msgpack;
use crate::open::OpenSpec;
use crate::publish::PubCore;
use crate::shared::{Shared, TransportPath, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_ENDPOINTS};
use crate::subscribe::{Codec, Received, SubCore, SubscriberStats};

/// The domain from `$NERVE_DOMAIN`, or 0. A value that is not a domain number (0 to
/// 4294967295) is reported once and ignored, rather than silently putting the process in
/// another domain than its peers.
pub fn default_domain() -> u32 {
    let Some(raw) = std::env::var_os("NERVE_DOMAIN") else {
        return 0;
    };
    match raw.to_str().and_then(|v| v.trim().parse().ok()) {
        Some(d) => d,
        None => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                tracing::error!("NERVE_DOMAIN={raw:?} is not a domain number (0 to 4294967295): using domain 0, where this process will not meet peers of the domain you meant");
            });
            0
        }
    }
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
    crate::open::topic_builder_options!();

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
                name: crate::name::resolve(name),
                domain: default_domain(),
                stored_type: stored_type(&T::FINGERPRINT),
                schema: crate::description::bytes_of::<T>(),
                reliability: None,
                depth: None,
                slot_payload: <T::Kind as Codec<T>>::slot_payload(),
                max_endpoints: DEFAULT_MAX_ENDPOINTS,
                chunk_bytes: chunked.then_some(DEFAULT_CHUNK_BYTES),
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

    /// The type description the topic carries (written by its creator): the same as `T`'s
    /// when both have one, since the fingerprints agree.
    pub fn description(
        &self,
    ) -> Result<Option<nerve_msgs::described::TypeDoc>, nerve_msgs::described::DocError> {
        self.shared.description()
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
    /// publisher killed mid-write leaves behind. Only for nerve's crash-recovery tests (hidden;
    /// always compiled, so the tests and the product share one build of every crate).
    #[doc(hidden)]
    pub fn __stall_mid_write(&self, msg: &T) {
        self.core.stall_mid_write(bytemuck::bytes_of(msg));
    }

    /// Copies `msg` into the ring. O(size of T); no syscall unless a subscriber sleeps.
    #[inline]
    pub fn send(&self, msg: &T) -> Result<(), SendError<T>> {
        // A topic found truncated takes no more messages (a send that itself runs into the
        // truncation completes into nothing; the next one is refused).
        if self.core.shared().damaged() {
            return Err(self.core.damage_error());
        }
        if !self.core.publish(bytemuck::bytes_of(msg), None) {
            return Err(self.core.full_error(*msg));
        }
        Ok(())
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
        if !self.core.send_chunk(id, w.pos as u64) {
            self.core.release_loan(id);
            return Err(self.core.full_error(()));
        }
        if shared.damaged() {
            return Err(self.core.damage_error());
        }
        Ok(())
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
        Loan::new(&self.core, len)
    }

    /// Largest payload in elements this topic accepts.
    pub fn max_len(&self) -> usize {
        self.core
            .shared()
            .chunk_limit(std::mem::size_of::<T::Header>())
            / std::mem::size_of::<T::Elem>().max(1)
    }
}

/// Receives messages of type `T`.
pub struct Subscriber<T> {
    core: SubCore,
    _t: PhantomData<fn() -> T>,
}

impl<T: Message> Subscriber<T>
where
    T::Kind: Codec<T>,
{
    fn run(&mut self, wait: Option<Option<Duration>>) -> Option<Result<Received<T>, RecvError>> {
        let decode = <T::Kind as Codec<T>>::decode;
        let got = match wait {
            None => self.core.try_recv(decode),
            Some(t) => self.core.recv_until(t, decode),
        };
        got.or_else(|| self.core.damage_error().map(Err))
    }

    /// Returns the next message if one is there; never blocks.
    #[inline]
    pub fn try_recv(&mut self) -> Result<Option<Received<T>>, RecvError> {
        match self.core.try_recv(<T::Kind as Codec<T>>::decode) {
            Some(got) => got.map(Some),
            None => self.core.damage_error().map_or(Ok(None), Err),
        }
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

    /// How long `recv` spins at most before sleeping (default 20 µs; zero: sleep at once).
    /// While messages come later than twice this after a wait starts, the spin halves with
    /// each of them (down to none), and comes back whole with the first that comes sooner.
    pub fn set_spin(&mut self, spin: Duration) {
        self.core.set_spin(spin);
    }

    /// The topic name.
    pub fn topic(&self) -> &str {
        &self.core.shared().name
    }
}
