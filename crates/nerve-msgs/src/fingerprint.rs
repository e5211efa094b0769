//! Type fingerprints stored in every segment header.

/// How a message crosses a topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum MessageKind {
    /// Copied into the ring slot.
    Fixed = 1,
    /// Header + elements in a shared chunk; the ring carries a descriptor.
    Chunked = 2,
    /// MessagePack bytes in a shared chunk.
    Serialized = 3,
}

impl MessageKind {
    /// Decodes the raw value stored in a segment header.
    pub fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            1 => Some(Self::Fixed),
            2 => Some(Self::Chunked),
            3 => Some(Self::Serialized),
            _ => None,
        }
    }
}

/// What two processes must agree on to share a topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// Fully qualified type name.
    pub name: &'static str,
    /// How the message crosses the topic.
    pub kind: MessageKind,
    /// `size_of` the fixed part (the whole message, or the chunk header).
    pub size: u32,
    /// `align_of` the fixed part.
    pub align: u32,
    /// `size_of` one payload element (0 for fixed messages).
    pub elem_size: u32,
    /// FNV-1a hash of the field list as written in the source.
    pub layout_hash: u64,
}

/// FNV-1a over a string, usable in constants.
pub const fn fnv1a(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// Folds `value` into `hash` (FNV-1a over its 8 little-endian bytes). Usable in constants.
pub const fn mix(hash: u64, value: u64) -> u64 {
    let mut hash = hash;
    let mut i = 0;
    while i < 8 {
        hash ^= (value >> (i * 8)) & 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}
