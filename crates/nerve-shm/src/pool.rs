//! The chunk pool: fixed-size chunks in shared memory for messages that never travel through
//! the ring. A publisher loans a chunk, fills it in place, and sends a 16-byte descriptor.
//!
//! Each chunk has one 64-bit reference word `generation << 32 | count`:
//! - free: `count == 0`; `alloc` CASes `(g, 0) → (g + 1, 1)`;
//! - `retain(id)` CASes `(g, c) → (g, c + 1)` only while `g == id.generation && c > 0`, so a
//!   reader holding a stale descriptor can never pin a recycled chunk;
//! - `release` is a `fetch_sub(1)`.
//!
//! For crash recovery every endpoint has a bitmap of the chunks it holds. When an endpoint's
//! process is found dead, [`Pool::reclaim_endpoint`] releases what its bitmap says it held.
//! The bit is set *after* a reference is taken and cleared *before* it is dropped, so a process
//! killed between the two steps leaks one chunk (until the topic is reclaimed) and never causes
//! a double release.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

use crate::layout::LayoutError;

/// `b"NERVPOOL"`.
pub const POOL_MAGIC: u64 = u64::from_le_bytes(*b"NERVPOOL");
const POOL_HEADER: usize = 64;
const CHUNK_ALIGN: usize = 4096;

/// Identifies one use of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkId {
    /// Chunk index.
    pub index: u32,
    /// Generation the chunk had when this reference was taken.
    pub generation: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct PoolHeader {
    magic: u64,
    chunk_size: u64,
    chunk_count: u32,
    max_endpoints: u32,
    refs_offset: u64,
    holders_offset: u64,
    data_offset: u64,
    len: u64,
}

/// A validated view of a pool area.
pub struct Pool {
    base: *mut u8,
    chunk_size: usize,
    chunk_count: u32,
    words_per_endpoint: usize,
    max_endpoints: u32,
    refs: *const AtomicU64,
    holders: *const AtomicU64,
    data: *mut u8,
    hint: AtomicU32,
}

// SAFETY: all shared state is accessed through atomics; raw pointers refer to a region the owner
// keeps alive (see `attach`).
unsafe impl Send for Pool {}
// SAFETY: as above.
unsafe impl Sync for Pool {}

const fn align_up(v: usize, a: usize) -> usize {
    (v + a - 1) & !(a - 1)
}

fn words_per_endpoint(chunks: u32) -> usize {
    (chunks as usize).div_ceil(64)
}

fn offsets(
    chunk_size: usize,
    chunks: u32,
    max_endpoints: u32,
) -> Option<(usize, usize, usize, usize)> {
    let refs = POOL_HEADER;
    let holders = refs.checked_add((chunks as usize).checked_mul(8)?)?;
    let holder_bytes = words_per_endpoint(chunks)
        .checked_mul(8)?
        .checked_mul(max_endpoints as usize)?;
    let data = align_up(holders.checked_add(holder_bytes)?, CHUNK_ALIGN);
    let total = data.checked_add(chunk_size.checked_mul(chunks as usize)?)?;
    Some((refs, holders, data, total))
}

impl Pool {
    /// Bytes a pool of `chunks` chunks of `chunk_size` bytes (rounded up to a page) needs.
    pub fn area_len(chunk_size: usize, chunks: u32, max_endpoints: u32) -> Option<usize> {
        offsets(
            align_up(chunk_size.max(1), CHUNK_ALIGN),
            chunks,
            max_endpoints,
        )
        .map(|o| o.3)
    }

    /// Bytes at the start of a pool area before its first chunk (header, reference words,
    /// holder bitmaps): what must exist for the pool to work before any chunk is used.
    pub fn metadata_len(chunk_size: usize, chunks: u32, max_endpoints: u32) -> Option<usize> {
        offsets(
            align_up(chunk_size.max(1), CHUNK_ALIGN),
            chunks,
            max_endpoints,
        )
        .map(|o| o.2)
    }

    /// Writes a fresh pool header into `area`.
    ///
    /// # Safety
    /// `area` must be valid for writes of `len` bytes, 8-byte aligned, zeroed, and not yet
    /// shared with anyone; `len` must be at least `area_len(chunk_size, chunks, max_endpoints)`.
    pub unsafe fn init(
        area: *mut u8,
        len: usize,
        chunk_size: usize,
        chunks: u32,
        max_endpoints: u32,
    ) {
        let chunk_size = align_up(chunk_size.max(1), CHUNK_ALIGN);
        let (refs, holders, data, total) =
            offsets(chunk_size, chunks, max_endpoints).expect("pool size overflow");
        assert!(total <= len, "pool area too small");
        let header = PoolHeader {
            magic: POOL_MAGIC,
            chunk_size: chunk_size as u64,
            chunk_count: chunks,
            max_endpoints,
            refs_offset: refs as u64,
            holders_offset: holders as u64,
            data_offset: data as u64,
            len: total as u64,
        };
        // SAFETY: the caller guarantees `area` is valid, aligned and private.
        unsafe { std::ptr::write(area as *mut PoolHeader, header) };
    }

    /// Validates the pool header in `area` and returns a view of it.
    ///
    /// # Safety
    /// `area` must be valid for reads and writes of `len` bytes, 4096-byte aligned, for as long
    /// as the returned `Pool` is used; other parties may only modify it through atomics.
    pub unsafe fn attach(
        area: *mut u8,
        len: usize,
        max_endpoints: u32,
    ) -> Result<Pool, LayoutError> {
        let invalid = |field: &'static str, detail: String| LayoutError::Invalid { field, detail };
        if len < POOL_HEADER {
            return Err(LayoutError::TooShort {
                needed: POOL_HEADER,
                actual: len,
            });
        }
        // SAFETY: the caller guarantees `len` readable bytes; the header is plain integers, and a
        // volatile read takes one snapshot that is validated below and never re-read.
        let h = unsafe { std::ptr::read_volatile(area as *const PoolHeader) };
        if h.magic != POOL_MAGIC {
            return Err(invalid("pool.magic", format!("{:#018x}", h.magic)));
        }
        if h.max_endpoints != max_endpoints {
            return Err(invalid(
                "pool.max_endpoints",
                format!("{} (topic has {max_endpoints})", h.max_endpoints),
            ));
        }
        let chunk_size = usize::try_from(h.chunk_size).unwrap_or(usize::MAX);
        if chunk_size == 0 || chunk_size % CHUNK_ALIGN != 0 || h.chunk_count == 0 {
            return Err(invalid(
                "pool.chunk_size",
                format!("{} × {} chunks", h.chunk_size, h.chunk_count),
            ));
        }
        let Some((refs, holders, data, total)) =
            offsets(chunk_size, h.chunk_count, h.max_endpoints)
        else {
            return Err(invalid("pool.chunk_count", "size overflow".into()));
        };
        if (refs, holders, data, total)
            != (
                h.refs_offset as usize,
                h.holders_offset as usize,
                h.data_offset as usize,
                h.len as usize,
            )
            || total > len
        {
            return Err(invalid(
                "pool.offsets",
                format!("pool claims {} bytes, area has {len}", h.len),
            ));
        }
        Ok(Pool {
            base: area,
            chunk_size,
            chunk_count: h.chunk_count,
            words_per_endpoint: words_per_endpoint(h.chunk_count),
            max_endpoints: h.max_endpoints,
            // SAFETY: offsets validated above to lie inside the area.
            refs: unsafe { area.add(refs) } as *const AtomicU64,
            // SAFETY: as for `refs`.
            holders: unsafe { area.add(holders) } as *const AtomicU64,
            // SAFETY: as for `refs`.
            data: unsafe { area.add(data) },
            hint: AtomicU32::new(0),
        })
    }

    /// Usable bytes per chunk.
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// Number of chunks.
    pub fn chunk_count(&self) -> u32 {
        self.chunk_count
    }

    /// Base of the pool area.
    pub fn area(&self) -> *mut u8 {
        self.base
    }

    /// The reference word of chunk `index`, None when the index is out of range (an index
    /// read from shared memory is untrusted).
    fn refword(&self, index: u32) -> Option<&AtomicU64> {
        // SAFETY: index < chunk_count and the refs array was validated to fit the area.
        (index < self.chunk_count).then(|| unsafe { &*self.refs.add(index as usize) })
    }

    /// The holder word and bit of (endpoint, chunk), None when either is out of range.
    fn holder_word(&self, endpoint: u32, index: u32) -> Option<(&AtomicU64, u64)> {
        if endpoint >= self.max_endpoints || index >= self.chunk_count {
            return None;
        }
        let i = endpoint as usize * self.words_per_endpoint + index as usize / 64;
        // SAFETY: i < max_endpoints * words_per_endpoint, the validated size of the array.
        Some((unsafe { &*self.holders.add(i) }, 1u64 << (index % 64)))
    }

    /// Pointer to the first byte of chunk `index`.
    ///
    /// # Panics
    /// If `index` is out of range: callers pass indices they validated (a loan from `alloc`,
    /// a descriptor checked against `chunk_count`), never one read from shared memory as is.
    pub fn chunk_ptr(&self, index: u32) -> *mut u8 {
        assert!(index < self.chunk_count);
        // SAFETY: index < chunk_count; the data area was validated to hold every chunk.
        unsafe { self.data.add(index as usize * self.chunk_size) }
    }

    /// Hints the CPU to start fetching what a reader of chunk `index` touches first: its
    /// reference word (for writing) and its first two cache lines (the header and the start of
    /// the payload). Issued before [`Pool::retain`], whose locked instruction would otherwise
    /// make those misses happen one after the other. Out-of-range indices are ignored.
    #[inline]
    pub fn prefetch(&self, index: u32) {
        if index >= self.chunk_count {
            return;
        }
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        // SAFETY: prefetches never fault and are only hints; the addresses are inside the
        // validated pool anyway (index < chunk_count, chunks are at least 4 KiB).
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_ET0>(self.refs.add(index as usize) as *const i8);
            let chunk = self.data.add(index as usize * self.chunk_size) as *const i8;
            _mm_prefetch::<_MM_HINT_T0>(chunk);
            _mm_prefetch::<_MM_HINT_T0>(chunk.add(64));
        }
    }

    /// Takes a free chunk for `endpoint`, with one reference. None when every chunk is in use.
    pub fn alloc(&self, endpoint: u32) -> Option<ChunkId> {
        let n = self.chunk_count;
        let start = self.hint.load(Relaxed) % n;
        for k in 0..n {
            let index = (start + k) % n;
            let Some(word) = self.refword(index) else {
                continue;
            };
            let cur = word.load(Relaxed);
            if cur & 0xffff_ffff != 0 {
                continue;
            }
            let generation = ((cur >> 32) as u32).wrapping_add(1);
            // Acquire pairs with the Release in `release` of the chunk's last holder: their
            // reads of the old contents happen before our writes of the new ones.
            if word
                .compare_exchange(cur, (generation as u64) << 32 | 1, Acquire, Relaxed)
                .is_ok()
            {
                self.hint.store(index + 1, Relaxed);
                if let Some((w, bit)) = self.holder_word(endpoint, index) {
                    w.fetch_or(bit, Relaxed);
                }
                return Some(ChunkId { index, generation });
            }
        }
        None
    }

    /// Adds a reference for `endpoint` if the chunk still holds generation `id.generation`.
    /// False when the chunk was recycled (the message it carried is gone).
    pub fn retain(&self, id: ChunkId, endpoint: u32) -> bool {
        let Some(word) = self.refword(id.index) else {
            return false;
        };
        let mut cur = word.load(Relaxed);
        loop {
            if (cur >> 32) as u32 != id.generation || cur & 0xffff_ffff == 0 {
                return false;
            }
            // Acquire pairs with the Release decrements of earlier holders in
            // `release_unowned`. (The publisher's writes to the chunk reach us through the
            // ring: the Release store of its slot's sequence in `commit`, which the caller's
            // `read` loaded with Acquire before this.)
            match word.compare_exchange_weak(cur, cur + 1, Acquire, Relaxed) {
                Ok(_) => break,
                Err(now) => cur = now,
            }
        }
        if let Some((w, bit)) = self.holder_word(endpoint, id.index) {
            w.fetch_or(bit, Relaxed);
        }
        true
    }

    /// Moves `endpoint`'s reference to the ring (the slot now owns it): clears the holder bit.
    pub fn disown(&self, id: ChunkId, endpoint: u32) {
        if let Some((w, bit)) = self.holder_word(endpoint, id.index) {
            w.fetch_and(!bit, Relaxed);
        }
    }

    /// Drops `endpoint`'s reference.
    pub fn release(&self, id: ChunkId, endpoint: u32) {
        self.disown(id, endpoint);
        // Our own references are valid (taken by `alloc`/`retain` on a checked index).
        let _ = self.release_unowned(id);
    }

    /// Drops a reference no endpoint records (the ring's). Returns false, changing nothing,
    /// when the reference cannot be right: an index out of range, or a chunk nobody holds
    /// (descriptors and holder bits come from shared memory, which is untrusted).
    #[must_use = "false means the reference was invalid: count it"]
    pub fn release_unowned(&self, id: ChunkId) -> bool {
        let Some(word) = self.refword(id.index) else {
            return false;
        };
        // Release pairs with the Acquire CAS in `alloc`: our reads of the chunk happen before
        // the next owner's writes.
        let prev = word.fetch_sub(1, Release);
        if prev & 0xffff_ffff == 0 {
            // Nobody held it: undo, rather than leave a count of 2^32 - 1 and a generation
            // one lower (a chunk lost for good). Only a damaged segment gets here.
            word.fetch_add(1, Relaxed);
            return false;
        }
        true
    }

    /// Drops one reference on chunk `id` only if the chunk still holds generation
    /// `id.generation` and is referenced: for a descriptor found in a slot abandoned by a
    /// writer that died mid-write, which may name the chunk the slot carried before (the
    /// ring's reference, which that writer was to release) or its own new one (disowned, never
    /// published). Either way the reference is nobody else's. Returns whether one was dropped.
    pub fn release_abandoned(&self, id: ChunkId) -> bool {
        let Some(word) = self.refword(id.index) else {
            return false;
        };
        let mut cur = word.load(Relaxed);
        loop {
            if (cur >> 32) as u32 != id.generation || cur & 0xffff_ffff == 0 {
                return false;
            }
            // Release pairs with the Acquire CAS in `alloc`, as in `release_unowned`.
            match word.compare_exchange_weak(cur, cur - 1, Release, Relaxed) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Releases every chunk a dead endpoint held. Returns how many (bits that name no valid
    /// reference are cleared and not counted).
    pub fn reclaim_endpoint(&self, endpoint: u32) -> usize {
        let mut n = 0;
        if endpoint >= self.max_endpoints {
            return 0;
        }
        for wi in 0..self.words_per_endpoint {
            let i = endpoint as usize * self.words_per_endpoint + wi;
            // SAFETY: i is inside the validated holders array (endpoint checked above).
            let w = unsafe { &*self.holders.add(i) };
            // Relaxed: the record is ours alone (won by the RECLAIMING CAS in the transport's
            // reclaim_dead), its owner is dead, and each reference dropped below carries its own
            // Release (`release_unowned`, which pairs with the Acquire CAS in `alloc`).
            let bits = w.swap(0, Relaxed);
            for b in 0..64 {
                if bits & (1 << b) != 0
                    && self.release_unowned(ChunkId {
                        index: (wi * 64 + b) as u32,
                        generation: 0,
                    })
                {
                    n += 1;
                }
            }
        }
        n
    }

    /// Chunks currently referenced by anyone (the ring included).
    pub fn in_use(&self) -> u32 {
        (0..self.chunk_count)
            .filter(|&i| {
                self.refword(i)
                    .is_some_and(|w| w.load(Relaxed) & 0xffff_ffff != 0)
            })
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::region::{HeapRegion, Region};
    use std::sync::Arc;

    fn pool(chunks: u32, eps: u32) -> (Arc<HeapRegion>, Pool) {
        let len = Pool::area_len(4096, chunks, eps).unwrap();
        let region = Arc::new(HeapRegion::new(len));
        // SAFETY: fresh zeroed region of sufficient length, kept alive by the Arc.
        let pool = unsafe {
            Pool::init(region.base().as_ptr(), region.len(), 4096, chunks, eps);
            Pool::attach(region.base().as_ptr(), region.len(), eps).unwrap()
        };
        (region, pool)
    }

    #[test]
    fn lying_references_change_nothing_and_abandoned_ones_are_checked() {
        let (_r, p) = pool(2, 2);
        let a = p.alloc(0).unwrap();
        // Out of range, or nobody holds it: refused, counts untouched.
        assert!(!p.release_unowned(ChunkId {
            index: 99,
            generation: 1
        }));
        let b = p.alloc(1).unwrap();
        p.release(b, 1);
        assert!(!p.release_unowned(b), "released below zero");
        assert_eq!(p.in_use(), 1);
        // An abandoned descriptor is released only while it names the chunk's generation.
        let stale = ChunkId {
            generation: a.generation + 1,
            ..a
        };
        assert!(!p.release_abandoned(stale));
        assert!(p.release_abandoned(a));
        assert!(!p.release_abandoned(a), "nothing left to release");
        assert_eq!(p.in_use(), 0);
        // A dead endpoint's bits that name no chunk are cleared, not counted.
        assert_eq!(p.reclaim_endpoint(7), 0);
    }

    #[test]
    fn alloc_retain_release_cycle() {
        let (_r, p) = pool(2, 2);
        let a = p.alloc(0).unwrap();
        let b = p.alloc(0).unwrap();
        assert!(p.alloc(0).is_none(), "pool of 2 must be exhausted");
        assert!(p.retain(a, 1));
        p.release(a, 0);
        assert_eq!(p.in_use(), 2);
        p.release(a, 1);
        assert_eq!(p.in_use(), 1);
        // `a`'s descriptor is stale now: the chunk is free.
        assert!(!p.retain(a, 1));
        let c = p.alloc(1).unwrap();
        assert_eq!(c.index, a.index);
        assert_ne!(c.generation, a.generation);
        assert!(
            !p.retain(a, 1),
            "stale generation must not pin a recycled chunk"
        );
        p.release(b, 0);
        p.release(c, 1);
        assert_eq!(p.in_use(), 0);
    }

    #[test]
    fn dead_endpoint_references_are_reclaimed() {
        let (_r, p) = pool(8, 3);
        let a = p.alloc(0).unwrap();
        assert!(p.retain(a, 2));
        let _b = p.alloc(2).unwrap();
        assert_eq!(p.reclaim_endpoint(2), 2);
        assert_eq!(p.in_use(), 1);
        p.release(a, 0);
        assert_eq!(p.in_use(), 0);
    }

    #[test]
    fn corrupt_pool_header_is_rejected() {
        let (r, _p) = pool(4, 2);
        // SAFETY: the region is ours and at least a header long.
        unsafe { *(r.base().as_ptr().add(8) as *mut u64) = u64::MAX };
        // SAFETY: as in `pool`.
        assert!(unsafe { Pool::attach(r.base().as_ptr(), r.len(), 2) }.is_err());
    }

    #[test]
    fn concurrent_alloc_release_never_double_allocates() {
        let (_r, p) = pool(4, 4);
        let p = Arc::new(p);
        let iters = if cfg!(miri) { 50 } else { 20_000 };
        let handles: Vec<_> = (0..3u32)
            .map(|ep| {
                let p = p.clone();
                std::thread::spawn(move || {
                    for i in 0..iters {
                        if let Some(id) = p.alloc(ep) {
                            let ptr = p.chunk_ptr(id.index) as *const AtomicU64;
                            // SAFETY: the chunk is ours while we hold the only reference.
                            let w = unsafe { &*ptr };
                            w.store(i as u64 ^ (ep as u64) << 40, Relaxed);
                            assert_eq!(
                                w.load(Relaxed),
                                i as u64 ^ (ep as u64) << 40,
                                "chunk shared by two owners"
                            );
                            p.release(id, ep);
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(p.in_use(), 0);
    }
}
