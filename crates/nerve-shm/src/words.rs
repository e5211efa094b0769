//! Copies between private memory and slot memory that another process may write concurrently.
//!
//! A seqlock reader may race with a writer; the race is detected afterwards (the sequence
//! changed) and the copy discarded. To keep that race defined behaviour in Rust's memory model
//! (and clean under miri), slot memory is only ever touched through relaxed 64-bit atomics. On
//! x86-64 these compile to plain moves.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Stores `src` into slot memory at `dst`, padding the last word with zeros.
///
/// # Safety
/// `dst` must be 8-byte aligned and valid for writes of `src.len()` rounded up to 8 bytes, and
/// must only be accessed through atomics by anyone else.
pub unsafe fn store(dst: *mut u8, src: &[u8]) {
    let words = src.len() / 8;
    for i in 0..words {
        // SAFETY: i < words, so bytes 8i..8i+8 are inside `src`.
        let w = unsafe { std::ptr::read_unaligned(src.as_ptr().add(i * 8) as *const u64) };
        // SAFETY: the caller guarantees dst is aligned and valid for this word; AtomicU64 has
        // the same layout as u64.
        unsafe { (*(dst.add(i * 8) as *const AtomicU64)).store(w, Relaxed) };
    }
    let tail = src.len() % 8;
    if tail != 0 {
        let mut buf = [0u8; 8];
        buf[..tail].copy_from_slice(&src[words * 8..]);
        // SAFETY: as above; the caller's region covers the rounded-up length.
        unsafe {
            (*(dst.add(words * 8) as *const AtomicU64)).store(u64::from_ne_bytes(buf), Relaxed)
        };
    }
}

/// Loads `dst.len()` bytes of slot memory at `src` into `dst`.
///
/// # Safety
/// `src` must be 8-byte aligned and valid for reads of `dst.len()` rounded up to 8 bytes, and
/// only written through atomics by anyone else.
pub unsafe fn load(src: *const u8, dst: &mut [u8]) {
    let words = dst.len() / 8;
    for i in 0..words {
        // SAFETY: the caller guarantees src is aligned and valid for this word.
        let w = unsafe { (*(src.add(i * 8) as *const AtomicU64)).load(Relaxed) };
        // SAFETY: i < words, so bytes 8i..8i+8 are inside `dst`.
        unsafe { std::ptr::write_unaligned(dst.as_mut_ptr().add(i * 8) as *mut u64, w) };
    }
    let tail = dst.len() % 8;
    if tail != 0 {
        // SAFETY: as above; the caller's region covers the rounded-up length.
        let w = unsafe { (*(src.add(words * 8) as *const AtomicU64)).load(Relaxed) };
        dst[words * 8..].copy_from_slice(&w.to_ne_bytes()[..tail]);
    }
}
