//! What every benchmark message carries, and how the receiving side checks it.
//!
//! Layout (little endian): bytes 0..8 the sequence number, 8..12 the publisher index, 12..16
//! the message length; from byte 16 on a pattern derived from (sequence, publisher): byte `i`
//! is byte `i % 8` of `key ^ (i / 8) * GOLDEN`. Messages are at least 16 bytes.
//!
//! Two checks, chosen per row:
//! - [`Check::Edges`] (`message` = `bytes`, or a type name): the sender writes the header and the
//!   first and last 64 bytes in place; the receiver verifies exactly those. Bytes in between are
//!   whatever the buffer held: this measures the transport, not a memset.
//! - [`Check::ReadAll`] (`message` = `bytes-readall`): the sender writes every byte and the
//!   receiver reads and verifies every byte.
//! - [`Check::Untouched`]: nothing written, nothing read. Only for the diagnostic row that runs
//!   iceoryx2's own benchmark loop exactly (`shape.rs`); never compared with anything.

use serde::{Deserialize, Serialize};

/// Size of the header every message starts with.
pub const HEADER: usize = 16;
/// How many bytes at each end [`Check::Edges`] writes and verifies.
pub const EDGE: usize = 64;
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Which bytes the sender writes and the receiver verifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Check {
    /// Header plus the first and last 64 bytes.
    Edges,
    /// Every byte.
    ReadAll,
    /// No byte: the sender writes nothing and the receiver never looks at the payload.
    Untouched,
}

fn key(seq: u64, publisher: u32) -> u64 {
    (seq ^ (u64::from(publisher) << 48)).wrapping_mul(GOLDEN) ^ 0x5bd1_e995
}

#[inline]
fn word(key: u64, index: usize) -> u64 {
    key ^ (index as u64).wrapping_mul(GOLDEN)
}

#[inline]
fn byte(key: u64, i: usize) -> u8 {
    word(key, i / 8).to_le_bytes()[i % 8]
}

/// The byte ranges `check` covers in a message of `len` bytes (after the header).
fn ranges(len: usize, check: Check) -> [std::ops::Range<usize>; 2] {
    match check {
        Check::ReadAll => [HEADER..len, len..len],
        Check::Untouched => [len..len, len..len],
        Check::Edges => {
            let head_end = EDGE.min(len).max(HEADER);
            let tail_start = len.saturating_sub(EDGE).max(head_end);
            [HEADER..head_end, tail_start..len]
        }
    }
}

/// Writes message `seq` of `publisher` into `buf` (the whole message).
pub fn write(buf: &mut [u8], seq: u64, publisher: u32, check: Check) {
    let total = buf.len();
    write_at(buf, 0, total, seq, publisher, check);
}

/// Writes the part `[at, at + buf.len())` of a `total`-byte message: for messages that live in
/// several pieces (a chunk header and its data). The header must lie in the piece at 0.
pub fn write_at(buf: &mut [u8], at: usize, total: usize, seq: u64, publisher: u32, check: Check) {
    assert!(
        total >= HEADER,
        "benchmark messages are at least {HEADER} bytes"
    );
    if check == Check::Untouched {
        return;
    }
    let end = at + buf.len();
    if at < HEADER {
        assert!(
            end >= HEADER,
            "the {HEADER}-byte header must fit in the first piece"
        );
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(&seq.to_le_bytes());
        h[8..12].copy_from_slice(&publisher.to_le_bytes());
        h[12..16].copy_from_slice(&(total as u32).to_le_bytes());
        if at == 0 {
            // A constant length: an inlined 16-byte store, not a call to memcpy per message.
            buf[..HEADER].copy_from_slice(&h);
        } else {
            buf[..HEADER - at].copy_from_slice(&h[at..]);
        }
    }
    let k = key(seq, publisher);
    for r in ranges(total, check) {
        let (s, e) = (r.start.max(at), r.end.min(end));
        if s < e {
            fill(&mut buf[s - at..e - at], k, s);
        }
    }
}

/// Fills `dst`, which starts at message offset `start`, with the pattern.
fn fill(dst: &mut [u8], k: u64, start: usize) {
    // Unaligned head byte by byte, then whole words, then the tail.
    let mut i = start;
    let mut d = dst;
    while !i.is_multiple_of(8) && !d.is_empty() {
        d[0] = byte(k, i);
        d = &mut d[1..];
        i += 1;
    }
    let whole = d.len() / 8 * 8;
    let base = i + whole;
    let mut chunks = d.chunks_exact_mut(8);
    for (n, c) in (&mut chunks).enumerate() {
        c.copy_from_slice(&word(k, i / 8 + n).to_le_bytes());
    }
    let rest = chunks.into_remainder();
    for (j, b) in rest.iter_mut().enumerate() {
        *b = byte(k, base + j);
    }
}

/// Reads the header: (sequence, publisher, length).
pub fn header(buf: &[u8]) -> Result<(u64, u32, usize), String> {
    if buf.len() < HEADER {
        return Err(format!(
            "message of {} bytes is shorter than the {HEADER}-byte header",
            buf.len()
        ));
    }
    let seq = u64::from_le_bytes(buf[0..8].try_into().expect("8 bytes"));
    let publisher = u32::from_le_bytes(buf[8..12].try_into().expect("4 bytes"));
    let len = u32::from_le_bytes(buf[12..16].try_into().expect("4 bytes")) as usize;
    Ok((seq, publisher, len))
}

/// Verifies a received message against its own header; returns (sequence, publisher).
pub fn verify(buf: &[u8], check: Check) -> Result<(u64, u32), String> {
    verify_parts(&[buf], check)
}

/// Verifies a message that lives in several pieces, in order; the first holds the header.
pub fn verify_parts(parts: &[&[u8]], check: Check) -> Result<(u64, u32), String> {
    if check == Check::Untouched {
        return Err("Check::Untouched: nothing was written, nothing can be verified".into());
    }
    let (seq, publisher, len) = header(parts.first().copied().unwrap_or(&[]))?;
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if len != total {
        return Err(format!(
            "message {seq}: header says {len} bytes, received {total}"
        ));
    }
    let k = key(seq, publisher);
    let mut at = 0;
    for part in parts {
        let end = at + part.len();
        for r in ranges(total, check) {
            let (s, e) = (r.start.max(at), r.end.min(end));
            if s < e && !matches(&part[s - at..e - at], k, s) {
                let bad = (s..e).find(|&i| part[i - at] != byte(k, i)).unwrap_or(s);
                return Err(format!(
                    "message {seq} from publisher {publisher}: byte {bad} is {:#04x}, expected {:#04x}",
                    part[bad - at],
                    byte(k, bad)
                ));
            }
        }
        at = end;
    }
    Ok((seq, publisher))
}

fn matches(src: &[u8], k: u64, start: usize) -> bool {
    let mut i = start;
    let mut s = src;
    while !i.is_multiple_of(8) && !s.is_empty() {
        if s[0] != byte(k, i) {
            return false;
        }
        s = &s[1..];
        i += 1;
    }
    let chunks = s.chunks_exact(8);
    let rest = chunks.remainder();
    let base = i + (s.len() - rest.len());
    // Fold the comparison so the loop has no early exit and vectorises.
    let diff = chunks.enumerate().fold(0u64, |acc, (n, c)| {
        acc | (u64::from_le_bytes(c.try_into().expect("8 bytes")) ^ word(k, i / 8 + n))
    });
    diff == 0
        && rest
            .iter()
            .enumerate()
            .all(|(j, b)| *b == byte(k, base + j))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_all_sizes() {
        for len in [16, 17, 23, 64, 104, 127, 128, 129, 1000, 4096, 65_536] {
            for check in [Check::Edges, Check::ReadAll] {
                let mut buf = vec![0u8; len];
                write(&mut buf, 42, 2, check);
                assert_eq!(verify(&buf, check), Ok((42, 2)), "len {len} {check:?}");
                if check == Check::ReadAll {
                    assert_eq!(verify(&buf, Check::Edges), Ok((42, 2)));
                }
            }
        }
    }

    #[test]
    fn pieces_match_whole() {
        for (head, total) in [(16, 16), (16, 4096), (80, 1520), (16, 65_536), (17, 200)] {
            for check in [Check::Edges, Check::ReadAll] {
                let mut whole = vec![0u8; total];
                write(&mut whole, 5, 1, check);
                let (mut a, mut b) = (vec![0u8; head], vec![0u8; total - head]);
                write_at(&mut a, 0, total, 5, 1, check);
                write_at(&mut b, head, total, 5, 1, check);
                assert_eq!(
                    [a.as_slice(), b.as_slice()].concat(),
                    whole,
                    "{head}/{total} {check:?}"
                );
                assert_eq!(verify_parts(&[&a, &b], check), Ok((5, 1)));
            }
        }
    }

    #[test]
    fn detects_corruption() {
        let mut buf = vec![0u8; 4096];
        write(&mut buf, 7, 0, Check::ReadAll);
        buf[2000] ^= 1;
        assert!(verify(&buf, Check::ReadAll).is_err());
        assert!(
            verify(&buf, Check::Edges).is_ok(),
            "edges do not look at the middle"
        );
        buf[4095] ^= 1;
        assert!(verify(&buf, Check::Edges).is_err());
        let mut small = vec![0u8; 16];
        write(&mut small, 9, 1, Check::Edges);
        small[3] ^= 0x80;
        assert!(verify(&small, Check::Edges).is_ok_and(|(s, _)| s != 9));
    }
}
