//! The layout of a topic segment and its validation.
//!
//! ```text
//! 0       HeaderFields   plain fields, written once by the creator before `ready` is set
//! 1024    head           AtomicU64: index of the next message to claim (own cache line)
//! 1088    solo, sleepers AtomicU64 tag of the publisher allowed to claim by plain stores,
//!         remote         AtomicU32 count of readers about to sleep (see ring.rs), and
//!                        AtomicU32 other hosts that want the topic (written by the host's
//!                        bridge; read by every send: see nerve-transport's `remote`; own line)
//! 4096    endpoints      max_endpoints × 64 B records (publishers and subscribers)
//! schema  description    the message type's description (opaque bytes, written once by the
//!                        creator; empty for a type without one), 64-byte aligned
//! slots   ring           capacity × slot_stride; a slot is seq u64 | len u32 | writer u32 | payload
//!                        (32 bytes when the payload fits in 16, else a multiple of 64)
//! pool    chunk pool     only for chunked / serialized messages (see pool.rs)
//! ```
//! Nothing read from a segment is trusted: [`HeaderFields::validate`] checks every size and
//! offset against the real length of the mapping before any of them is followed, and the
//! validated copy ([`TopicParams`]) is what the rest of the code uses from then on.

use std::sync::atomic::{AtomicU32, AtomicU64};

/// `b"NERVTOPC"` as a little-endian u64.
pub const TOPIC_MAGIC: u64 = u64::from_le_bytes(*b"NERVTOPC");
/// Bumped on any change of this layout (5: records name processes by life token, not start
/// time; 6: a ring id per segment, the `remote` word, a publisher's `direct` flag).
pub const LAYOUT_VERSION: u32 = 6;
/// `ready` value once the creator has finished initialising the segment.
pub const READY: u32 = 0x5245_4459;
/// Offset of the `head` counter.
pub const HEAD_OFFSET: usize = 1024;
/// Offset of the `solo` tag (u64) and, 8 bytes after it, the `sleepers` count (u32).
pub const SOLO_OFFSET: usize = 1088;
/// Offset of the `sleepers` count.
pub const SLEEPERS_OFFSET: usize = SOLO_OFFSET + 8;
/// Offset of the `remote` word (other hosts that want the topic), beside `solo`: the line a
/// send reads anyway.
pub const REMOTE_OFFSET: usize = SLEEPERS_OFFSET + 4;
/// Offset of the endpoint table.
pub const ENDPOINTS_OFFSET: usize = 4096;
/// Size of one endpoint record.
pub const ENDPOINT_SIZE: usize = 64;
/// Bytes of slot header before the payload.
pub const SLOT_HEADER: usize = 16;
/// Longest type name stored in a header.
pub const MAX_TYPE_NAME: usize = 96;
/// Largest type description a segment carries.
pub const MAX_SCHEMA_BYTES: u32 = 64 << 10;
/// Upper bounds that keep a hostile header from making us map or loop over absurd sizes.
pub const MAX_CAPACITY: u32 = 1 << 20;
/// See [`MAX_CAPACITY`].
pub const MAX_ENDPOINTS: u32 = 4096;
/// See [`MAX_CAPACITY`].
pub const MAX_SLOT_PAYLOAD: u32 = 16 << 20;

/// Reliability QoS as stored in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Reliability {
    /// Oldest messages are overwritten; a lapped subscriber counts its loss.
    BestEffort = 1,
    /// The publisher waits (or fails with `Full`) while the slowest live subscriber is a full
    /// ring behind.
    Reliable = 2,
    /// Subscribers always jump to the newest message; older ones are skipped, not lost.
    LatestOnly = 3,
}

impl Reliability {
    fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            1 => Some(Self::BestEffort),
            2 => Some(Self::Reliable),
            3 => Some(Self::LatestOnly),
            _ => None,
        }
    }
}

/// The type a segment was created for, as stored in its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredType {
    /// Type name.
    pub name: String,
    /// `MessageKind` as a raw value.
    pub kind: u32,
    /// Size of the fixed part.
    pub size: u32,
    /// Alignment of the fixed part.
    pub align: u32,
    /// Size of a payload element (chunked messages).
    pub elem_size: u32,
    /// Field layout hash.
    pub layout_hash: u64,
}

impl StoredType {
    /// `name (size B, align A, layout 0x…)`: how errors print a type.
    pub fn describe(&self) -> String {
        format!(
            "{} ({} B, align {}, elem {} B, layout {:#018x})",
            self.name, self.size, self.align, self.elem_size, self.layout_hash
        )
    }
}

/// The immutable header at offset 0 of a topic segment.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HeaderFields {
    /// [`TOPIC_MAGIC`].
    pub magic: u64,
    /// [`LAYOUT_VERSION`].
    pub version: u32,
    /// `size_of::<HeaderFields>()`.
    pub header_size: u32,
    /// Length of the whole segment.
    pub total_size: u64,
    /// Creator's pid.
    pub creator_pid: u32,
    /// [`Reliability`] as u32.
    pub reliability: u32,
    /// Creator's life token (see `liveness`).
    pub creator_token: u64,
    /// Type name bytes (UTF-8), `type_name_len` of them used.
    pub type_name: [u8; MAX_TYPE_NAME],
    /// Used bytes of `type_name`.
    pub type_name_len: u32,
    /// `MessageKind` raw value.
    pub msg_kind: u32,
    /// Size of the fixed part.
    pub msg_size: u32,
    /// Alignment of the fixed part.
    pub msg_align: u32,
    /// Size of one payload element.
    pub elem_size: u32,
    /// Ring capacity (power of two).
    pub capacity: u32,
    /// Field layout hash.
    pub layout_hash: u64,
    /// Bytes per slot (32, or a multiple of 64; ≥ SLOT_HEADER + slot_payload).
    pub slot_stride: u32,
    /// Maximum payload bytes per slot.
    pub slot_payload: u32,
    /// Endpoint records.
    pub max_endpoints: u32,
    /// Bytes of the type description at `schema_offset`.
    pub schema_len: u32,
    /// Offset of the first slot.
    pub slots_offset: u64,
    /// Offset of the chunk pool (0: none).
    pub pool_offset: u64,
    /// Length of the chunk pool area.
    pub pool_len: u64,
    /// Offset of the type description (after the endpoints, before the slots).
    pub schema_offset: u64,
    /// This segment's identity (63 random bits): the same topic created again is another
    /// ring, whose sequence numbers start again (the network's duplicate filter keys on it).
    pub ring_id: u64,
}

/// What a segment was validated to contain: the only source of offsets after opening.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicParams {
    /// The stored type.
    pub stored_type: StoredType,
    /// QoS.
    pub reliability: Reliability,
    /// Ring capacity (power of two).
    pub capacity: u32,
    /// Bytes per slot.
    pub slot_stride: u32,
    /// Max payload per slot.
    pub slot_payload: u32,
    /// Endpoint records.
    pub max_endpoints: u32,
    /// Offset of the first slot.
    pub slots_offset: usize,
    /// Offset of the pool area (0: none).
    pub pool_offset: usize,
    /// Length of the pool area.
    pub pool_len: usize,
    /// Offset of the type description.
    pub schema_offset: usize,
    /// Bytes of the type description (0: none).
    pub schema_len: usize,
    /// Total segment length.
    pub total_size: usize,
    /// Creator's pid.
    pub creator_pid: u32,
    /// Creator's life token.
    pub creator_token: u64,
    /// See [`HeaderFields::ring_id`].
    pub ring_id: u64,
}

/// What the creator asks for.
#[derive(Clone, Debug)]
pub struct TopicConfig {
    /// Type stored in the header.
    pub stored_type: StoredType,
    /// QoS.
    pub reliability: Reliability,
    /// Requested depth; rounded up to a power of two.
    pub depth: u32,
    /// Max payload bytes per slot.
    pub slot_payload: u32,
    /// Endpoint records.
    pub max_endpoints: u32,
    /// Length of the pool area to reserve after the slots (0: none).
    pub pool_len: usize,
    /// The type's description, stored for any process that opens the topic (empty: none).
    pub schema: Vec<u8>,
}

/// Why a segment was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// The segment is shorter than its header claims or than a header.
    #[error("segment is {actual} bytes, expected at least {needed}")]
    TooShort {
        /// Bytes needed.
        needed: usize,
        /// Bytes present.
        actual: usize,
    },
    /// A field holds a value no nerve writes.
    #[error("invalid header field `{field}`: {detail}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// What is wrong.
        detail: String,
    },
}

fn invalid(field: &'static str, detail: impl Into<String>) -> LayoutError {
    LayoutError::Invalid {
        field,
        detail: detail.into(),
    }
}

const fn align_up(v: usize, a: usize) -> usize {
    (v + a - 1) & !(a - 1)
}

/// Bytes per slot for `payload` bytes: 32 (two slots per cache line) for payloads of up to 16
/// bytes (a CmdVel, a chunk descriptor), else whole cache lines. Small slots halve the lines a
/// stream of small messages moves between cores.
pub const fn slot_stride(payload: usize) -> usize {
    let need = SLOT_HEADER + align_up(payload, 8);
    if need <= 32 {
        32
    } else {
        align_up(need, 64)
    }
}

impl TopicConfig {
    /// Computes the header the creator writes. Returns an error for values out of range.
    pub fn header(
        &self,
        creator_pid: u32,
        creator_token: u64,
    ) -> Result<HeaderFields, LayoutError> {
        let capacity = self.depth.max(1).checked_next_power_of_two().unwrap_or(0);
        if capacity == 0 || capacity > MAX_CAPACITY {
            return Err(invalid(
                "capacity",
                format!("depth {} out of range 1..={MAX_CAPACITY}", self.depth),
            ));
        }
        if self.max_endpoints == 0 || self.max_endpoints > MAX_ENDPOINTS {
            return Err(invalid(
                "max_endpoints",
                format!("{} out of range 1..={MAX_ENDPOINTS}", self.max_endpoints),
            ));
        }
        if self.slot_payload > MAX_SLOT_PAYLOAD {
            return Err(invalid(
                "slot_payload",
                format!("{} > {MAX_SLOT_PAYLOAD}", self.slot_payload),
            ));
        }
        let name = self.stored_type.name.as_bytes();
        if name.len() > MAX_TYPE_NAME {
            return Err(invalid(
                "type_name",
                format!("longer than {MAX_TYPE_NAME} bytes"),
            ));
        }
        if self.schema.len() > MAX_SCHEMA_BYTES as usize {
            return Err(invalid(
                "schema",
                format!(
                    "a type description of {} bytes, above {MAX_SCHEMA_BYTES}",
                    self.schema.len()
                ),
            ));
        }
        let slot_stride = slot_stride(self.slot_payload as usize);
        let endpoints_end = ENDPOINTS_OFFSET + self.max_endpoints as usize * ENDPOINT_SIZE;
        let schema_offset = align_up(endpoints_end, 64);
        let slots_offset = align_up(schema_offset + self.schema.len(), 4096);
        let slots_end = slots_offset + capacity as usize * slot_stride;
        let (pool_offset, total) = if self.pool_len > 0 {
            let off = align_up(slots_end, 4096);
            (off, off + align_up(self.pool_len, 4096))
        } else {
            (0, align_up(slots_end, 4096))
        };
        let mut type_name = [0u8; MAX_TYPE_NAME];
        type_name[..name.len()].copy_from_slice(name);
        Ok(HeaderFields {
            magic: TOPIC_MAGIC,
            version: LAYOUT_VERSION,
            header_size: std::mem::size_of::<HeaderFields>() as u32,
            total_size: total as u64,
            creator_pid,
            reliability: self.reliability as u32,
            creator_token,
            type_name,
            type_name_len: name.len() as u32,
            msg_kind: self.stored_type.kind,
            msg_size: self.stored_type.size,
            msg_align: self.stored_type.align,
            elem_size: self.stored_type.elem_size,
            capacity,
            layout_hash: self.stored_type.layout_hash,
            slot_stride: slot_stride as u32,
            slot_payload: self.slot_payload,
            max_endpoints: self.max_endpoints,
            schema_len: self.schema.len() as u32,
            schema_offset: schema_offset as u64,
            slots_offset: slots_offset as u64,
            pool_offset: pool_offset as u64,
            pool_len: if self.pool_len > 0 {
                align_up(self.pool_len, 4096) as u64
            } else {
                0
            },
            ring_id: crate::liveness::random_id(),
        })
    }
}

impl HeaderFields {
    /// Checks every field against `mapped_len`, the real length of the mapping, and returns
    /// the validated parameters. Never panics, whatever the bytes.
    pub fn validate(&self, mapped_len: usize) -> Result<TopicParams, LayoutError> {
        if mapped_len < ENDPOINTS_OFFSET {
            return Err(LayoutError::TooShort {
                needed: ENDPOINTS_OFFSET,
                actual: mapped_len,
            });
        }
        if self.magic != TOPIC_MAGIC {
            return Err(invalid(
                "magic",
                format!("{:#018x} is not a nerve topic segment", self.magic),
            ));
        }
        if self.version != LAYOUT_VERSION {
            return Err(invalid(
                "version",
                format!(
                    "layout version {} (this build reads {LAYOUT_VERSION})",
                    self.version
                ),
            ));
        }
        if self.header_size as usize != std::mem::size_of::<HeaderFields>() {
            return Err(invalid("header_size", self.header_size.to_string()));
        }
        let total =
            usize::try_from(self.total_size).map_err(|_| invalid("total_size", "too large"))?;
        if total != mapped_len {
            return Err(invalid(
                "total_size",
                format!("header says {total} bytes, segment has {mapped_len}"),
            ));
        }
        let reliability = Reliability::from_raw(self.reliability)
            .ok_or_else(|| invalid("reliability", self.reliability.to_string()))?;
        let name_len = self.type_name_len as usize;
        if name_len > MAX_TYPE_NAME {
            return Err(invalid("type_name_len", name_len.to_string()));
        }
        let name = std::str::from_utf8(&self.type_name[..name_len])
            .map_err(|_| invalid("type_name", "not UTF-8"))?
            .to_owned();
        if self.capacity == 0 || !self.capacity.is_power_of_two() || self.capacity > MAX_CAPACITY {
            return Err(invalid("capacity", self.capacity.to_string()));
        }
        if self.max_endpoints == 0 || self.max_endpoints > MAX_ENDPOINTS {
            return Err(invalid("max_endpoints", self.max_endpoints.to_string()));
        }
        if self.slot_payload > MAX_SLOT_PAYLOAD {
            return Err(invalid("slot_payload", self.slot_payload.to_string()));
        }
        let stride = self.slot_stride as usize;
        if stride != slot_stride(self.slot_payload as usize) {
            return Err(invalid(
                "slot_stride",
                format!("{stride} for payload {}", self.slot_payload),
            ));
        }
        let endpoints_end = ENDPOINTS_OFFSET + self.max_endpoints as usize * ENDPOINT_SIZE;
        let slots_offset =
            usize::try_from(self.slots_offset).map_err(|_| invalid("slots_offset", "too large"))?;
        let schema_offset = usize::try_from(self.schema_offset)
            .map_err(|_| invalid("schema_offset", "too large"))?;
        let schema_len = self.schema_len as usize;
        if self.schema_len > MAX_SCHEMA_BYTES
            || schema_offset < endpoints_end
            || schema_offset.saturating_add(schema_len) > slots_offset
        {
            return Err(invalid(
                "schema_offset",
                format!("{schema_offset} + {schema_len} outside the endpoints' end ({endpoints_end}) and the slots ({slots_offset})"),
            ));
        }
        if slots_offset < endpoints_end || slots_offset % 64 != 0 {
            return Err(invalid("slots_offset", slots_offset.to_string()));
        }
        let slots_end = (self.capacity as usize)
            .checked_mul(stride)
            .and_then(|n| n.checked_add(slots_offset))
            .filter(|&end| end <= total)
            .ok_or_else(|| invalid("slots_offset", "ring extends past the end of the segment"))?;
        let (pool_offset, pool_len) = (self.pool_offset as usize, self.pool_len as usize);
        if pool_offset != 0 || pool_len != 0 {
            let end = pool_offset.checked_add(pool_len);
            if pool_offset < slots_end || pool_offset % 4096 != 0 || end.is_none_or(|e| e > total) {
                return Err(invalid(
                    "pool_offset",
                    format!("{pool_offset} + {pool_len} outside the segment"),
                ));
            }
        }
        Ok(TopicParams {
            stored_type: StoredType {
                name,
                kind: self.msg_kind,
                size: self.msg_size,
                align: self.msg_align,
                elem_size: self.elem_size,
                layout_hash: self.layout_hash,
            },
            reliability,
            capacity: self.capacity,
            slot_stride: self.slot_stride,
            slot_payload: self.slot_payload,
            max_endpoints: self.max_endpoints,
            slots_offset,
            pool_offset,
            pool_len,
            schema_offset,
            schema_len,
            total_size: total,
            creator_pid: self.creator_pid,
            creator_token: self.creator_token,
            ring_id: self.ring_id,
        })
    }
}

/// One endpoint record in the table (64 bytes, own cache line).
#[repr(C, align(64))]
pub struct EndpointRecord {
    /// [`ENDPOINT_FREE`], [`ENDPOINT_PUBLISHER`] or [`ENDPOINT_SUBSCRIBER`].
    pub state: AtomicU32,
    /// Owner pid.
    pub pid: AtomicU32,
    /// Owner life token (see `liveness`).
    pub token: AtomicU64,
    /// Reliable subscribers: index of the next message they will read.
    pub cursor: AtomicU64,
    /// Messages received (subscribers) or sent (publishers), for `nerve topic info`.
    pub count: AtomicU64,
    /// Messages lost (subscribers) or rejected as full (publishers).
    pub lost: AtomicU64,
    /// Publishers: 1 while a send through the solo path is under way (see `ring.rs`).
    pub busy: AtomicU32,
    /// Incremented each time the record is claimed: a writer's tag in a ring slot carries it,
    /// so a message abandoned by a dead writer is not mistaken for one being written by the
    /// record's next owner.
    pub generation: AtomicU32,
    /// Publishers: 1 while the owning process sends the topic's messages to every other host
    /// itself (the host bridge need not export them); 0 when claimed.
    pub direct: AtomicU32,
}

/// Free endpoint record.
pub const ENDPOINT_FREE: u32 = 0;
/// Record owned by a publisher.
pub const ENDPOINT_PUBLISHER: u32 = 1;
/// Record owned by a subscriber.
pub const ENDPOINT_SUBSCRIBER: u32 = 2;
/// Record held by a process that has the topic open (keeps the segment from being reclaimed
/// as stale before its first publisher or subscriber exists).
pub const ENDPOINT_HANDLE: u32 = 3;
/// Record being filled in by its new owner.
pub const ENDPOINT_CLAIMING: u32 = 0x10;
/// Record of a dead process being reclaimed.
pub const ENDPOINT_RECLAIMING: u32 = 0x11;

const _: () = assert!(std::mem::size_of::<EndpointRecord>() == ENDPOINT_SIZE);
const _: () = assert!(std::mem::size_of::<HeaderFields>() <= HEAD_OFFSET);
const _: () = assert!(SOLO_OFFSET >= HEAD_OFFSET + 64 && REMOTE_OFFSET + 4 <= SOLO_OFFSET + 64);
const _: () = assert!(SOLO_OFFSET + 64 <= ENDPOINTS_OFFSET);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn config() -> TopicConfig {
        TopicConfig {
            stored_type: StoredType {
                name: "test/T".into(),
                kind: 1,
                size: 16,
                align: 8,
                elem_size: 0,
                layout_hash: 42,
            },
            reliability: Reliability::BestEffort,
            depth: 10,
            slot_payload: 16,
            max_endpoints: 8,
            pool_len: 0,
            schema: b"description".to_vec(),
        }
    }

    #[test]
    fn created_header_validates_and_rounds_depth() {
        let h = config().header(1, 2).unwrap();
        let p = h.validate(h.total_size as usize).unwrap();
        assert_eq!(p.capacity, 16);
        assert_eq!(p.stored_type.name, "test/T");
        assert_eq!(p.schema_len, 11);
        assert!(p.schema_offset >= ENDPOINTS_OFFSET + 8 * ENDPOINT_SIZE);
        assert!(p.schema_offset + p.schema_len <= p.slots_offset);
        assert!(h.validate(h.total_size as usize - 1).is_err());
    }

    fn as_bytes(h: &HeaderFields) -> Vec<u8> {
        // SAFETY: HeaderFields is repr(C) plain data; reading its bytes (padding-free by
        // construction: every field is 4- or 8-byte and ordered) is sound.
        unsafe {
            std::slice::from_raw_parts(
                h as *const _ as *const u8,
                std::mem::size_of::<HeaderFields>(),
            )
            .to_vec()
        }
    }

    fn from_bytes(b: &[u8]) -> HeaderFields {
        // SAFETY: `b` holds size_of::<HeaderFields>() bytes and every bit pattern is a valid
        // HeaderFields (integers and a byte array only).
        unsafe { std::ptr::read_unaligned(b.as_ptr() as *const HeaderFields) }
    }

    proptest! {
        // Any corruption of a valid header is either still self-consistent or rejected, and
        // validation never panics. Accepted headers always describe in-bounds regions.
        #[test]
        #[cfg_attr(miri, ignore = "proptest is too slow under miri; covered by cargo test")]
        fn corrupted_headers_never_escape_bounds(pos in 0usize..std::mem::size_of::<HeaderFields>(), byte in any::<u8>(), len_delta in -8192i64..8192) {
            let h = config().header(1, 2).unwrap();
            let mut bytes = as_bytes(&h);
            bytes[pos] = byte;
            let mapped = (h.total_size as i64 + len_delta).max(0) as usize;
            if let Ok(p) = from_bytes(&bytes).validate(mapped) {
                prop_assert!(p.slots_offset + p.capacity as usize * p.slot_stride as usize <= mapped);
                prop_assert!(p.pool_offset + p.pool_len <= mapped);
                prop_assert!(p.schema_offset + p.schema_len <= p.slots_offset);
            }
        }

        #[test]
        #[cfg_attr(miri, ignore = "proptest is too slow under miri; covered by cargo test")]
        fn random_headers_never_panic(bytes in proptest::collection::vec(any::<u8>(), std::mem::size_of::<HeaderFields>()), mapped in 0usize..(1 << 30)) {
            let _ = from_bytes(&bytes).validate(mapped);
        }
    }
}
