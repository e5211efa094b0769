//! Untyped topics for the Python and C fronts: the same rings, pools, QoS and errors as the
//! typed [`Topic`](crate::Topic), with messages as bytes.
//!
//! A raw endpoint interoperates with typed ones as long as both open the topic with the same
//! [`StoredType`] (get it from a Rust type with [`stored_type`]):
//!
//! ```
//! use nerve_transport::prelude::*;
//! use nerve_transport::raw::{self, RawMessage, RawTopic};
//! # std::env::set_var("NERVE_DOMAIN", "4243");
//! let typed = Topic::<CmdVel>::builder("doc/raw").open()?;
//! let raw = RawTopic::builder("doc/raw", raw::stored_type::<CmdVel>()).open()?;
//! let mut sub = raw.subscriber(0)?;
//! typed.publisher()?.send(&CmdVel { stamp_ns: 7, linear: 1.0, angular: 0.0 })?;
//! match sub.try_recv()? {
//!     Some(RawMessage::Fixed(bytes)) => assert_eq!(CmdVel::from_bytes(bytes).unwrap().stamp_ns, 7),
//!     _ => panic!("expected a fixed message"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::Ordering::{Acquire, Relaxed};
use std::sync::Arc;
use std::time::Duration;

pub use nerve_msgs::described::{DocError, TypeDoc};
use nerve_msgs::{Message, MessageKind};
use nerve_shm::layout::ENDPOINT_PUBLISHER;
use nerve_shm::Reliability;

pub use nerve_shm::StoredType;

pub use crate::loan::{ChunkPin, MappingGuard, RawLoan};
pub use crate::sample::{chunk_data_offset, RawSample};

use crate::endpoint::Endpoint;
use crate::error::{OpenError, RecvError, SendError};
use crate::open::OpenSpec;
use crate::publish::PubCore;
use crate::shared::{Shared, TransportPath, DEFAULT_MAX_ENDPOINTS};
use crate::subscribe::{read_chunk, read_fixed, Step, SubCore, SubscriberStats};
use crate::topic::default_domain;

/// The stored type of Rust message type `T` (a fixed, chunked or `Msgpack` message).
pub fn stored_type<T: Message>() -> StoredType {
    crate::topic::stored_type(&T::FINGERPRINT)
}

/// The stored type a fingerprint names (a schema's: `Schema::fingerprint`, for a type known
/// only by its description).
pub fn stored_type_of(fp: &nerve_msgs::Fingerprint) -> StoredType {
    crate::topic::stored_type(fp)
}

/// The description of Rust message type `T`, for [`RawTopicBuilder::description`] (`None`
/// for a type without one, such as `Msgpack<_>`).
pub fn description<T: Message>() -> Option<TypeDoc> {
    T::DESCRIPTION.map(TypeDoc::of)
}

/// The stored type every `Msgpack<_>` topic has.
pub fn msgpack_type() -> StoredType {
    stored_type::<crate::Msgpack<()>>()
}

fn kind_of(t: &StoredType) -> Option<MessageKind> {
    MessageKind::from_raw(t.kind)
}

/// Builds or joins an untyped topic; the options are those of
/// [`TopicBuilder`](crate::TopicBuilder).
#[must_use = "a builder does nothing until .open()"]
pub struct RawTopicBuilder {
    spec: OpenSpec,
}

impl RawTopicBuilder {
    crate::open::topic_builder_options!();

    /// The type's description, written into the topic if this opener creates it (so tools
    /// can decode its messages). It must describe the stored type: checked at `open`.
    pub fn description(mut self, doc: &TypeDoc) -> Self {
        self.spec.schema = doc.to_bytes();
        self
    }

    /// The type's description as a topic carries it ([`RawTopic::description_bytes`]): a
    /// layout description, a MessagePack type's fields, or empty. What a recorder replays;
    /// checked against the stored type at `open`.
    pub fn description_bytes(mut self, bytes: Vec<u8>) -> Self {
        self.spec.schema = bytes;
        self
    }

    /// Opens the topic, creating it if needed.
    pub fn open(self) -> Result<RawTopic, OpenError> {
        if let Err(e) = crate::description::decode(&self.spec.schema, &self.spec.stored_type) {
            return Err(OpenError::InvalidConfig {
                topic: self.spec.name.clone(),
                reason: format!("the type description does not fit the stored type: {e}"),
            });
        }
        if kind_of(&self.spec.stored_type).is_none() {
            return Err(OpenError::InvalidConfig {
                topic: self.spec.name.clone(),
                reason: format!(
                    "unknown message kind {} in type {}",
                    self.spec.stored_type.kind, self.spec.stored_type.name
                ),
            });
        }
        Ok(RawTopic {
            shared: Shared::open(&self.spec)?,
        })
    }
}

/// An untyped topic.
#[derive(Clone)]
pub struct RawTopic {
    shared: Arc<Shared>,
}

impl RawTopic {
    /// Opens the existing topic `name` of `domain` as it is, adopting its type, QoS and sizes
    /// (for tools: `echo`, recorders, bridges). Never creates one: `OpenError::NotFound`
    /// when there is none. Pass [`default_domain()`](crate::default_domain) for the
    /// environment's domain.
    pub fn join(name: &str, domain: u32) -> Result<RawTopic, OpenError> {
        Ok(RawTopic {
            shared: Shared::join(name, domain)?,
        })
    }

    /// Starts building topic `name` carrying `stored_type`.
    pub fn builder(name: &str, stored_type: StoredType) -> RawTopicBuilder {
        let (slot_payload, chunk_bytes) = crate::open::slots_for(&stored_type);
        RawTopicBuilder {
            spec: OpenSpec {
                name: crate::name::resolve(name),
                domain: default_domain(),
                slot_payload,
                stored_type,
                schema: Vec::new(),
                reliability: None,
                depth: None,
                max_endpoints: DEFAULT_MAX_ENDPOINTS,
                chunk_bytes,
                chunks: None,
                in_process: false,
            },
        }
    }

    /// A new publisher.
    pub fn publisher(&self) -> Result<RawPublisher, OpenError> {
        Ok(RawPublisher {
            core: Arc::new(PubCore::new(&self.shared, false)?),
        })
    }

    /// A new subscriber that first receives up to `history` recent messages.
    pub fn subscriber(&self, history: u64) -> Result<RawSubscriber, OpenError> {
        let size = self.shared.params.stored_type.size as usize;
        let fixed = self.kind() == MessageKind::Fixed;
        Ok(RawSubscriber {
            core: SubCore::new(&self.shared, history)?,
            scratch: vec![0; if fixed { size } else { 0 }],
        })
    }

    /// The topic name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }
    /// The stored type.
    pub fn stored_type(&self) -> &StoredType {
        &self.shared.params.stored_type
    }
    /// The type description the topic carries (for a standard type created without one, the
    /// standard description): `Ok(None)` when there is none, an error when the stored one is
    /// damaged or does not describe the stored type.
    pub fn description(&self) -> Result<Option<TypeDoc>, DocError> {
        self.shared.description()
    }
    /// The description bytes the topic carries, as stored (empty when its creator gave none):
    /// what [`RawTopicBuilder::description_bytes`] takes to create its twin elsewhere.
    pub fn description_bytes(&self) -> Vec<u8> {
        self.shared.schema_bytes()
    }
    /// The fields of a MessagePack topic's values (`Ok(None)` for other topics, and for one
    /// created by a program that gave none: Python's dicts, an untraceable serde type); an
    /// error when the stored description is damaged.
    pub fn serde_description(&self) -> Result<Option<nerve_msgs::serde_doc::SerdeDoc>, DocError> {
        self.shared.serde_description()
    }
    /// The message kind.
    pub fn kind(&self) -> MessageKind {
        kind_of(&self.shared.params.stored_type).unwrap_or(MessageKind::Fixed)
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
    /// Largest payload in bytes a chunk holds (0 for fixed topics).
    pub fn max_payload_bytes(&self) -> usize {
        self.shared
            .chunk_limit(self.shared.params.stored_type.size as usize)
    }
    /// The segment's identity: the same name created again is another ring, whose sequence
    /// numbers start again (see [`remote`](crate::remote)).
    pub fn ring_id(&self) -> u64 {
        self.shared.params.ring_id
    }
    /// The index the next message will take (messages so far, on a ring that never reset).
    pub fn next_index(&self) -> u64 {
        self.shared.ring.head().load(Relaxed)
    }
    /// Other hosts that want the topic, as the host's bridge last wrote it.
    pub fn remote_interest(&self) -> u32 {
        self.shared.ring.remote().load(Relaxed)
    }
    /// Says how many other hosts want the topic (the host's bridge does): a publisher whose
    /// process has a path to other hosts sends there itself while this is not 0.
    pub fn set_remote_interest(&self, hosts: u32) {
        self.shared.ring.remote().store(hosts, Relaxed);
    }
    /// Live publishers of the topic, and how many of them send it to every other host
    /// themselves (their egress's `direct` flag is up).
    pub fn publishers_direct(&self) -> (u32, u32) {
        let ring = &self.shared.ring;
        let (mut all, mut direct) = (0, 0);
        for i in 0..ring.endpoint_count() {
            let e = ring.endpoint(i);
            // Acquire pairs with the Release store of `state` in `Ring::claim_endpoint` (the
            // record is its owner's).
            if e.state.load(Acquire) == ENDPOINT_PUBLISHER && !ring.endpoint_dead(i) {
                all += 1;
                // Acquire pairs with the Release store of `direct` in `DirectFlag::set`.
                direct += u32::from(e.direct.load(Acquire) != 0);
            }
        }
        (all, direct)
    }
}

/// Publishes untyped messages. Cheap to share: loans hold a clone of its core.
pub struct RawPublisher {
    core: Arc<PubCore>,
}

impl RawPublisher {
    fn shared(&self) -> &Shared {
        self.core.shared()
    }

    /// How long `send` waits for room on a reliable topic before `Full`.
    ///
    /// Only effective before the first loan is taken (loans share the publisher's core).
    pub fn set_timeout(&mut self, timeout: Duration) {
        if let Some(core) = Arc::get_mut(&mut self.core) {
            core.timeout = timeout;
        }
    }

    /// Whether this publisher claims with plain stores (see `Publisher::is_solo`). A raw
    /// publisher is `Sync`: the first thread that sends through it may take the fast path, a
    /// second sending thread switches the topic to locked claims.
    pub fn is_solo(&self) -> bool {
        self.core.is_solo()
    }

    /// This publisher's messages never go to other hosts from this process itself (see
    /// [`remote`](crate::remote)): what a bridge's importer publishes came from another host
    /// and must not be sent back.
    pub fn keep_local(&self) {
        self.core.keep_local();
    }

    /// The topic name.
    pub fn topic(&self) -> &str {
        &self.shared().name
    }

    /// Copies a fixed message (exactly the type's size) into the ring.
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<(), SendError<()>> {
        let shared = self.shared();
        let t = &shared.params.stored_type;
        if kind_of(t) != Some(MessageKind::Fixed) || bytes.len() != t.size as usize {
            return Err(SendError::Encode {
                topic: shared.name.clone(),
                reason: if kind_of(t) == Some(MessageKind::Fixed) {
                    format!(
                        "{} is {} bytes, got {}; send exactly one message",
                        t.name,
                        t.size,
                        bytes.len()
                    )
                } else {
                    format!(
                        "{} is a chunked/serialized type: use loan() instead of send_bytes()",
                        t.name
                    )
                },
            });
        }
        if shared.damaged() {
            return Err(self.core.damage_error());
        }
        if !self.core.publish(bytes, None) {
            return Err(self.core.full_error(()));
        }
        Ok(())
    }

    /// Loans a chunk for a message of `header_bytes` (must equal the type's header size) and
    /// `payload_bytes` (a whole number of elements): fill it in place, then `send()`.
    pub fn loan(
        &self,
        header_bytes: usize,
        payload_bytes: usize,
    ) -> Result<RawLoan, SendError<()>> {
        let shared = self.shared();
        let t = &shared.params.stored_type;
        let elem = (t.elem_size as usize).max(1);
        if kind_of(t) == Some(MessageKind::Fixed)
            || header_bytes != t.size as usize
            || payload_bytes / elem * elem != payload_bytes
        {
            return Err(SendError::Encode {
                topic: shared.name.clone(),
                reason: format!(
                    "a loan of {} needs a {}-byte header and a multiple of {} payload bytes, got {} and {}",
                    t.name, t.size, elem, header_bytes, payload_bytes
                ),
            });
        }
        RawLoan::new(self.core.clone(), header_bytes, payload_bytes, elem)
    }

    /// Publishes a message given as its fixed part and payload (what
    /// [`TopicMeta::split`] gives of a recorded or bridged message): a fixed message's bytes
    /// (`payload` empty), or a chunked one's header and payload, copied into a loaned chunk.
    pub fn send_parts(&self, fixed: &[u8], payload: &[u8]) -> Result<(), SendError<()>> {
        if kind_of(&self.shared().params.stored_type) == Some(MessageKind::Fixed) {
            return self.send_bytes(fixed);
        }
        let mut loan = self.loan(fixed.len(), payload.len())?;
        loan.header_mut().copy_from_slice(fixed);
        loan.data_mut().copy_from_slice(payload);
        loan.send()
    }

    /// Serializes nothing: publishes `bytes` (already MessagePack) through a chunk.
    pub fn send_serialized(&self, bytes: &[u8]) -> Result<(), SendError<()>> {
        let mut loan = self.loan(0, bytes.len())?;
        loan.data_mut().copy_from_slice(bytes);
        loan.send()
    }
}

/// What a raw subscriber receives.
pub enum RawMessage<'a> {
    /// A fixed message, copied into the subscriber's buffer.
    Fixed(&'a [u8]),
    /// A chunked or serialized message, pinned in shared memory.
    Chunk(RawSample),
}

impl RawMessage<'_> {
    /// The message as its fixed part and payload: a fixed message's bytes and nothing, or a
    /// chunk's header and data (what [`RawPublisher::send_parts`] takes).
    pub fn parts(&self) -> (&[u8], &[u8]) {
        match self {
            RawMessage::Fixed(b) => (b, &[]),
            RawMessage::Chunk(s) => (s.header(), s.data()),
        }
    }
}

/// Receives untyped messages.
pub struct RawSubscriber {
    core: SubCore,
    scratch: Vec<u8>,
}

enum Got {
    Fixed,
    Chunk(RawSample),
}

impl RawSubscriber {
    #[inline]
    fn run(&mut self, wait: Option<Option<Duration>>) -> Result<Option<Got>, RecvError> {
        let t = &self.core.ep.shared.params.stored_type;
        let fixed = kind_of(t) == Some(MessageKind::Fixed);
        let (header, elem) = (t.size as usize, (t.elem_size as usize).max(1));
        let header = if kind_of(t) == Some(MessageKind::Serialized) {
            0
        } else {
            header
        };
        let scratch = &mut self.scratch;
        let decode = |ep: &Arc<Endpoint>, c: u64| -> Step<Got> {
            let shared = &ep.shared;
            if fixed {
                return read_fixed(shared, c, scratch).map(|()| Got::Fixed);
            }
            read_chunk(ep, c, header, elem)
                .map(|chunk| Got::Chunk(RawSample::new(chunk, header, elem)))
        };
        let got = match wait {
            None => self.core.try_recv(decode),
            Some(t) => self.core.recv_until(t, decode),
        };
        // A damaged segment is reported only when nothing came (as the typed subscriber does).
        match got {
            Some(g) => Ok(Some(g)),
            None => self.core.damage_error().map_or(Ok(None), Err),
        }
    }

    #[inline]
    fn wrap(&self, got: Got) -> RawMessage<'_> {
        match got {
            Got::Fixed => RawMessage::Fixed(&self.scratch),
            Got::Chunk(s) => RawMessage::Chunk(s),
        }
    }

    /// The next message if one is there; never blocks.
    #[inline]
    pub fn try_recv(&mut self) -> Result<Option<RawMessage<'_>>, RecvError> {
        let got = self.run(None)?;
        Ok(got.map(|g| self.wrap(g)))
    }

    /// Waits for the next message: spins briefly, then sleeps on a futex (≈0 % CPU).
    #[inline]
    pub fn recv(&mut self) -> Result<RawMessage<'_>, RecvError> {
        let got = loop {
            if let Some(got) = self.run(Some(None))? {
                break got;
            }
        };
        Ok(self.wrap(got))
    }

    /// Waits up to `timeout`; `Ok(None)` when nothing arrived.
    #[inline]
    pub fn recv_timeout(&mut self, timeout: Duration) -> Result<Option<RawMessage<'_>>, RecvError> {
        let got = self.run(Some(Some(timeout)))?;
        Ok(got.map(|g| self.wrap(g)))
    }

    /// Like `recv_timeout`, with the message's index in the ring (what names it on every path
    /// to another host, with [`RawTopic::ring_id`]).
    pub fn recv_timeout_indexed(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<(u64, RawMessage<'_>)>, RecvError> {
        let got = self.run(Some(Some(timeout)))?;
        // The cursor moved past the message just taken.
        let index = self.core.cursor.wrapping_sub(1);
        Ok(got.map(|g| (index, self.wrap(g))))
    }

    /// Like `recv_timeout`, but a timeout is an error naming the topic.
    pub fn recv_deadline(&mut self, timeout: Duration) -> Result<RawMessage<'_>, RecvError> {
        match self.run(Some(Some(timeout)))? {
            Some(got) => Ok(self.wrap(got)),
            None => Err(self.core.timeout_error(timeout)),
        }
    }

    /// The last fixed message received (the buffer `RawMessage::Fixed` borrows); zeroes before
    /// the first one, empty on chunked topics.
    pub fn fixed_buffer(&self) -> &[u8] {
        &self.scratch
    }

    /// A `Timeout` error naming the topic.
    pub fn timeout_error(&self, timeout: Duration) -> RecvError {
        self.core.timeout_error(timeout)
    }

    /// Received / lost / dropped counters.
    pub fn stats(&self) -> SubscriberStats {
        self.core.stats
    }

    /// How long a blocking receive spins at most before sleeping (see `Subscriber::set_spin`).
    pub fn set_spin(&mut self, spin: Duration) {
        self.core.set_spin(spin);
    }

    /// The topic name.
    pub fn topic(&self) -> &str {
        &self.core.shared().name
    }

    /// The stored type.
    pub fn stored_type(&self) -> &StoredType {
        &self.core.shared().params.stored_type
    }
}

// What it takes to create a topic again somewhere else: its stored type, QoS and sizes, as
// plain key-value pairs. A recording keeps them in each channel's metadata; a bridge carries
// them to the other host. `TopicMeta::open` joins the topic there, or creates it as it was.

/// A topic's stored type, QoS and sizes: enough to create it again.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicMeta {
    /// The stored type (name, kind, sizes, layout hash).
    pub stored_type: StoredType,
    /// Its reliability.
    pub reliability: Reliability,
    /// Its ring depth.
    pub depth: u64,
    /// Largest payload in bytes (chunked topics).
    pub max_payload_bytes: usize,
}

impl TopicMeta {
    /// The meta of a live topic.
    pub fn of(topic: &RawTopic) -> Self {
        TopicMeta {
            stored_type: topic.stored_type().clone(),
            reliability: topic.reliability(),
            depth: topic.depth(),
            max_payload_bytes: topic.max_payload_bytes(),
        }
    }

    /// As key-value pairs (`nerve.type`, `nerve.kind`, ..., all strings).
    pub fn to_metadata(&self) -> BTreeMap<String, String> {
        let t = &self.stored_type;
        let reliability = match self.reliability {
            Reliability::Reliable => "reliable",
            Reliability::LatestOnly => "latest_only",
            _ => "best_effort",
        };
        [
            ("nerve.type", t.name.clone()),
            ("nerve.kind", t.kind.to_string()),
            ("nerve.size", t.size.to_string()),
            ("nerve.align", t.align.to_string()),
            ("nerve.elem_size", t.elem_size.to_string()),
            ("nerve.layout_hash", format!("{:#018x}", t.layout_hash)),
            ("nerve.reliability", reliability.to_owned()),
            ("nerve.depth", self.depth.to_string()),
            (
                "nerve.max_payload_bytes",
                self.max_payload_bytes.to_string(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// From key-value pairs (untrusted: a file's, another host's); the error names the key
    /// that is missing or malformed.
    pub fn from_metadata(m: &BTreeMap<String, String>) -> Result<Self, String> {
        let get = |k: &str| m.get(k).ok_or_else(|| format!("the metadata has no {k}"));
        let num = |k: &str| -> Result<u64, String> {
            let v = get(k)?;
            let parsed = match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            };
            parsed.map_err(|_| format!("the metadata's {k} = {v:?} is not a number"))
        };
        let small = |k: &str| -> Result<u32, String> {
            u32::try_from(num(k)?).map_err(|_| format!("the metadata's {k} is too large"))
        };
        let reliability = match get("nerve.reliability")?.as_str() {
            "reliable" => Reliability::Reliable,
            "latest_only" => Reliability::LatestOnly,
            "best_effort" => Reliability::BestEffort,
            other => return Err(format!("unknown reliability {other:?}")),
        };
        Ok(TopicMeta {
            stored_type: StoredType {
                name: get("nerve.type")?.clone(),
                kind: small("nerve.kind")?,
                size: small("nerve.size")?,
                align: small("nerve.align")?,
                elem_size: small("nerve.elem_size")?,
                layout_hash: num("nerve.layout_hash")?,
            },
            reliability,
            depth: num("nerve.depth")?,
            max_payload_bytes: usize::try_from(num("nerve.max_payload_bytes")?)
                .map_err(|_| "the metadata's max_payload_bytes is too large".to_owned())?,
        })
    }

    /// A message in nerve's encoding as recordings and bridges carry it (a fixed message's
    /// bytes; a chunked one as it lies in its chunk: header, padding to a multiple of 64,
    /// payload) split into its fixed part and its payload, ready for
    /// [`RawPublisher::send_parts`]. Untrusted bytes:
    /// every length is checked against this meta; the error says what does not fit.
    pub fn split<'a>(&self, data: &'a [u8]) -> Result<(&'a [u8], &'a [u8]), String> {
        let t = &self.stored_type;
        let size = t.size as usize;
        if MessageKind::from_raw(t.kind) == Some(MessageKind::Fixed) {
            if data.len() != size {
                return Err(format!(
                    "a message of {} bytes, but {} is {size} bytes",
                    data.len(),
                    t.name
                ));
            }
            return Ok((data, &[]));
        }
        let offset = chunk_data_offset(size);
        if data.len() < offset {
            return Err(format!(
                "a message of {} bytes is shorter than its {size}-byte header",
                data.len()
            ));
        }
        let payload = &data[offset..];
        let elem = (t.elem_size as usize).max(1);
        if !payload.len().is_multiple_of(elem) || payload.len() > self.max_payload_bytes {
            return Err(format!(
                "a payload of {} bytes: not a whole number of {elem}-byte elements of at most \
                 {} bytes",
                payload.len(),
                self.max_payload_bytes
            ));
        }
        Ok((&data[..size], payload))
    }

    /// The header and payload lengths of a chunked message of `len` bytes as it lies in its
    /// chunk (header, padding, payload), checked as [`split`](Self::split) checks them: for
    /// a message that arrives in pieces and is written into its chunk piece by piece.
    pub fn split_len(&self, len: usize) -> Result<(usize, usize), String> {
        let t = &self.stored_type;
        let size = t.size as usize;
        if MessageKind::from_raw(t.kind) == Some(MessageKind::Fixed) {
            return Err(format!(
                "{} is a fixed type: split the message whole",
                t.name
            ));
        }
        let offset = chunk_data_offset(size);
        let Some(payload) = len.checked_sub(offset) else {
            return Err(format!(
                "a message of {len} bytes is shorter than its {size}-byte header"
            ));
        };
        let elem = (t.elem_size as usize).max(1);
        if !payload.is_multiple_of(elem) || payload > self.max_payload_bytes {
            return Err(format!(
                "a payload of {payload} bytes: not a whole number of {elem}-byte elements of at \
                 most {} bytes",
                self.max_payload_bytes
            ));
        }
        Ok((size, payload))
    }

    /// Topic `name` of `domain`: joined as it is when it exists and carries this type, created
    /// as described otherwise (with `description`, the bytes
    /// [`RawTopic::description_bytes`] gave where it came from). A topic there with another
    /// type is [`OpenError::TypeMismatch`], naming both.
    pub fn open(
        &self,
        name: &str,
        domain: u32,
        description: Vec<u8>,
    ) -> Result<RawTopic, OpenError> {
        match RawTopic::join(name, domain) {
            Ok(t) if *t.stored_type() == self.stored_type => Ok(t),
            Ok(t) => Err(OpenError::TypeMismatch {
                topic: name.to_owned(),
                expected: self.stored_type.describe(),
                found: t.stored_type().describe(),
                difference: String::new(),
            }),
            Err(OpenError::NotFound { .. }) => RawTopic::builder(name, self.stored_type.clone())
                .domain(domain)
                .description_bytes(description)
                .reliability(self.reliability)
                .depth(u32::try_from(self.depth).unwrap_or(u32::MAX))
                .max_message_bytes(self.max_payload_bytes.max(1))
                .open(),
            Err(e) => Err(e),
        }
    }
}
