//! Fixed capacities: text fields (`[u8; N]`, NUL-padded UTF-8) and bounded lists (`[T; N]`
//! with a count) of the standard set. Every capacity is a named constant on its type, and every
//! setter refuses what does not fit, leaving the field as it was: nothing is truncated.

use core::fmt;

/// Text that does not fit a fixed `[u8; N]` text field (at most `N - 1` bytes, so the text is
/// always NUL-terminated). The field is left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextError {
    /// The text is longer than the field holds.
    TooLong {
        /// The field being set (`label`, `class_id`, ...).
        field: &'static str,
        /// The rejected text.
        text: String,
        /// Its length in bytes.
        len: usize,
        /// The longest text the field holds, in bytes.
        max: usize,
    },
    /// The text contains a NUL byte, which would end it early.
    ContainsNul {
        /// The field being set.
        field: &'static str,
        /// The rejected text.
        text: String,
    },
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong {
                field,
                text,
                len,
                max,
            } => write!(
                f,
                "{field} {text:?} is {len} bytes, longer than the {max} bytes the field holds; \
                 use a shorter text"
            ),
            Self::ContainsNul { field, text } => write!(
                f,
                "{field} {text:?} contains a NUL byte, which would end the text early; remove it"
            ),
        }
    }
}

impl std::error::Error for TextError {}

/// More items than a fixed list holds. The list is left as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany {
    /// The list being set (`axes`, `fields`, `results`, ...).
    pub field: &'static str,
    /// Items given.
    pub len: usize,
    /// Items the list holds.
    pub max: usize,
}

impl fmt::Display for TooMany {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} given, the field holds at most {}; send fewer (nothing was truncated)",
            self.len, self.field, self.max
        )
    }
}

impl std::error::Error for TooMany {}

/// Reads NUL-padded text: the bytes before the first NUL. Bytes that are not UTF-8 (another
/// process wrote garbage) end the text at the first invalid byte.
pub(crate) fn read_text<const N: usize>(buf: &[u8; N]) -> &str {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(N);
    match core::str::from_utf8(&buf[..end]) {
        Ok(s) => s,
        // The first `valid_up_to` bytes are valid UTF-8 by definition.
        Err(e) => core::str::from_utf8(&buf[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Writes text NUL-padded, or refuses it without touching `buf`.
pub(crate) fn write_text<const N: usize>(
    buf: &mut [u8; N],
    field: &'static str,
    text: &str,
) -> Result<(), TextError> {
    let bytes = text.as_bytes();
    if bytes.len() >= N {
        return Err(TextError::TooLong {
            field,
            text: text.to_owned(),
            len: bytes.len(),
            max: N.saturating_sub(1),
        });
    }
    if bytes.contains(&0) {
        return Err(TextError::ContainsNul {
            field,
            text: text.to_owned(),
        });
    }
    *buf = [0; N];
    buf[..bytes.len()].copy_from_slice(bytes);
    Ok(())
}

/// Copies `items` into the front of a fixed list, zeroes the rest and returns the count to
/// store, or refuses without touching `list`.
pub(crate) fn write_list<T: Copy + bytemuck::Zeroable, const N: usize>(
    list: &mut [T; N],
    field: &'static str,
    items: &[T],
) -> Result<u32, TooMany> {
    if items.len() > N {
        return Err(TooMany {
            field,
            len: items.len(),
            max: N,
        });
    }
    *list = [T::zeroed(); N];
    list[..items.len()].copy_from_slice(items);
    Ok(items.len() as u32)
}

/// The first `len` items of a fixed list; `None` if `len` is larger than the list (a corrupt
/// message).
pub(crate) fn read_list<T, const N: usize>(list: &[T; N], len: u32) -> Option<&[T]> {
    list.get(..len as usize)
}
