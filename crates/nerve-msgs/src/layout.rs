//! Layout hashes: a constant per Pod type that changes when its field list changes, including
//! the field lists of the types nested inside it.

use crate::fingerprint::fnv1a;

/// A `#[repr(C)]` Pod type with a constant hash of its layout.
///
/// Implemented for the primitive numeric types, for arrays of hashed types, and by
/// [`fixed_message!`](crate::fixed_message), [`chunked_message!`](crate::chunked_message) and
/// [`pod_struct!`](crate::pod_struct) for the structs they declare. A struct's hash covers its
/// field names and field types as written *and* the hash of every field type, so editing a nested
/// struct (say [`Header`](crate::Header)) changes the fingerprint of every message that embeds it.
pub trait LayoutHash {
    /// FNV-1a based hash of the layout.
    const LAYOUT_HASH: u64;
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

macro_rules! primitive_layout_hash {
    ($($t:ty),*) => {
        $( impl LayoutHash for $t { const LAYOUT_HASH: u64 = fnv1a(stringify!($t)); } )*
    };
}
primitive_layout_hash!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

impl<T: LayoutHash, const N: usize> LayoutHash for [T; N] {
    const LAYOUT_HASH: u64 = mix(mix(fnv1a("[T; N]"), T::LAYOUT_HASH), N as u64);
}
