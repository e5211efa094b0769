//! The broadcast ring: fixed slots with per-slot sequence numbers (seqlock style).
//!
//! Message `n` lives in slot `n % capacity`. A slot's sequence is `2n + 1` while message `n` is
//! being written and `2n + 2` once it is complete, so a reader at cursor `c` knows from one load
//! whether its message is there (`2c + 2`), not yet there (`< 2c + 1`), being written
//! (`2c + 1`) or already overwritten (`> 2c + 2`: it was lapped and counts the loss).
//!
//! Publishers claim `n` with a `fetch_add` on `head` (or a CAS in reliable mode), then take the
//! slot by CAS from the previous complete sequence, so two publishers a full ring apart never
//! write one slot at once, and a publisher killed mid-write leaves an odd sequence that readers
//! and writers recognise (the slot records the writer's endpoint, whose liveness they check).
//! Readers never write payloads, and touch a slot's sequence only to go to sleep: a reader about
//! to block sets [`WAITER`] (the top bit) in the sequence of the slot it waits for, then
//! futex-waits on that word. The writer that next claims the slot learns from its claiming CAS
//! whether anyone sleeps there, so publishing needs no fence and no syscall unless someone
//! waits: one `fetch_add` and one CAS per message, and a plain Release store to publish.
//!
//! **Solo writer.** Those two locked instructions each drain the publisher's store buffer, so
//! every message waits for the cache line the subscriber last read to come back: at most
//! ~10 M messages/s between two cores. Most topics have one publisher, so the header holds a
//! `solo` tag: the publisher named there claims with plain loads and stores
//! ([`Ring::begin_write_solo`]) and pays no fence. The two handshakes that still need one use
//! asymmetric barriers (`barrier.rs`): a second publisher revokes the tag, issues a heavy
//! barrier and waits for the owner's `busy` flag to drop before using locked claims; and a
//! reader about to sleep counts itself in `sleepers` and issues a heavy barrier before its last
//! look, while the solo writer reads `sleepers` after each commit (its plain claim store may
//! erase a [`WAITER`] bit, so it cannot rely on the bit).

use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering::*};

use crate::layout::{
    EndpointRecord, TopicParams, ENDPOINTS_OFFSET, ENDPOINT_SIZE, HEAD_OFFSET, SLEEPERS_OFFSET,
    SLOT_HEADER, SOLO_OFFSET,
};
use crate::words;

/// Outcome of reading a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// The message was copied; its length in bytes.
    Ok(usize),
    /// Not published yet.
    Empty,
    /// Being written right now (by the endpoint in the payload).
    Writing(u32),
    /// Overwritten before or while it was read.
    Lapped,
}

/// How a publisher got its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claimed {
    /// The slot held no complete message before.
    Fresh,
    /// The slot held complete message `prev`, whose payload the writer may still inspect (to
    /// release its chunk) before overwriting it.
    Replaced(u64),
    /// The slot's previous writer died mid-write; its payload is not trustworthy.
    TakenOver,
    /// A newer message already owns the slot (this one was overtaken a full ring later); the
    /// message must be dropped.
    Overtaken,
    /// A live writer (this endpoint) has held the slot mid-write for [`SLOT_WAIT`]: it is
    /// stuck, or stopped in a debugger. The message must be dropped; readers skip it.
    Blocked(u32),
}

impl Claimed {
    /// What a slot whose sequence (without [`WAITER`]) was `s` held before the claim.
    fn from_previous(s: u64) -> Self {
        match s {
            0 => Claimed::Fresh,
            s if s % 2 == 1 => Claimed::TakenOver,
            s => Claimed::Replaced((s / 2).wrapping_sub(1)),
        }
    }
}

/// A view of the ring of a validated topic segment.
pub struct Ring {
    base: NonNull<u8>,
    slots: usize,
    mask: u64,
    capacity: u64,
    stride: usize,
    payload: usize,
    endpoints: u32,
}

// SAFETY: every shared byte is accessed through atomics; the owner keeps the memory alive.
unsafe impl Send for Ring {}
// SAFETY: as above.
unsafe impl Sync for Ring {}

/// Set in a slot's sequence by readers sleeping until that slot's next message is complete.
pub const WAITER: u64 = 1 << 63;

/// [`Ring::solo`] once a second publisher has appeared: every publisher claims with locked
/// instructions from then on.
pub const SOLO_SHARED: u64 = u64::MAX;

/// A slot claimed by [`Ring::begin_write`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// What the slot held.
    pub claimed: Claimed,
    /// A reader sleeps on the slot: [`Ring::commit`] must wake it.
    pub wake: bool,
}

/// Bits of a writer tag that hold the endpoint index (`MAX_ENDPOINTS` is 4096); the rest hold
/// the record's generation.
const WRITER_INDEX_BITS: u32 = 12;
const WRITER_INDEX_MASK: u32 = (1 << WRITER_INDEX_BITS) - 1;
const _: () = assert!(crate::layout::MAX_ENDPOINTS as u64 <= 1 << WRITER_INDEX_BITS);

/// How many times a writer spins on a slot held by an older writer before checking whether that
/// writer is still alive.
const TAKEOVER_SPINS: u32 = 1 << 16;

/// How long a writer waits for a live older writer to finish a slot before it gives up on its
/// own message ([`Claimed::Blocked`]). A write takes nanoseconds; only a stuck or stopped
/// process takes this long.
pub const SLOT_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

impl Ring {
    /// Builds a view of the ring described by `params` in the segment at `base`.
    ///
    /// # Safety
    /// `base` must point to a segment of `params.total_size` bytes whose header validated to
    /// `params`, and stay mapped while the ring (or anything borrowed from it) is used. All
    /// other access to the segment's ring, endpoints and counters must go through atomics.
    pub unsafe fn new(base: NonNull<u8>, params: &TopicParams) -> Self {
        Ring {
            base,
            slots: params.slots_offset,
            mask: params.capacity as u64 - 1,
            capacity: params.capacity as u64,
            stride: params.slot_stride as usize,
            payload: params.slot_payload as usize,
            endpoints: params.max_endpoints,
        }
    }

    /// Slots in the ring.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Maximum payload bytes per slot.
    pub fn payload_capacity(&self) -> usize {
        self.payload
    }

    /// Next message index to be claimed.
    pub fn head(&self) -> &AtomicU64 {
        // SAFETY: HEAD_OFFSET is inside every validated segment and 8-byte aligned.
        unsafe { &*(self.base.as_ptr().add(HEAD_OFFSET) as *const AtomicU64) }
    }

    /// Tag of the publisher allowed to claim by plain stores: 0 none yet, [`SOLO_SHARED`]
    /// revoked for good, else `pid << 32 | (endpoint + 1)`.
    pub fn solo(&self) -> &AtomicU64 {
        // SAFETY: SOLO_OFFSET is inside every validated segment and 8-byte aligned.
        unsafe { &*(self.base.as_ptr().add(SOLO_OFFSET) as *const AtomicU64) }
    }

    /// Readers that are about to sleep (or sleep) on the ring; the solo writer wakes the slot
    /// it committed while this is non-zero.
    pub fn sleepers(&self) -> &AtomicU32 {
        // SAFETY: SLEEPERS_OFFSET is inside every validated segment and 4-byte aligned.
        unsafe { &*(self.base.as_ptr().add(SLEEPERS_OFFSET) as *const AtomicU32) }
    }

    /// Number of endpoint records.
    pub fn endpoint_count(&self) -> u32 {
        self.endpoints
    }

    /// Endpoint record `i`.
    pub fn endpoint(&self, i: u32) -> &EndpointRecord {
        assert!(i < self.endpoints, "endpoint index {i} out of range");
        // SAFETY: the endpoint table of `endpoints` records was validated to fit the segment.
        unsafe {
            &*(self
                .base
                .as_ptr()
                .add(ENDPOINTS_OFFSET + i as usize * ENDPOINT_SIZE)
                as *const EndpointRecord)
        }
    }

    /// The pid recorded in the endpoint record a writer tag names, 0 when the tag is out of
    /// range (a tag read from a slot is untrusted).
    pub fn endpoint_pid(&self, tag: u32) -> u32 {
        let i = tag & WRITER_INDEX_MASK;
        if i < self.endpoints {
            self.endpoint(i).pid.load(Relaxed)
        } else {
            0
        }
    }

    /// Whether endpoint record `i` names a process that is gone (by its life token, which
    /// holds in every pid namespace: see `liveness`).
    pub fn endpoint_dead(&self, i: u32) -> bool {
        let e = self.endpoint(i);
        let id = crate::ProcessId {
            pid: e.pid.load(Relaxed),
            token: e.token.load(Relaxed),
        };
        id.pid != 0 && !id.is_alive()
    }

    /// The tag a writer owning record `i` leaves in the slots it writes: the record's index
    /// and (in the upper bits) its generation, so the tag stops naming a live writer once
    /// the record is reclaimed and claimed again.
    pub fn writer_tag(&self, i: u32) -> u32 {
        let generation = self.endpoint(i).generation.load(Relaxed);
        i | (generation << WRITER_INDEX_BITS)
    }

    /// Whether the writer a slot names by `tag` (see [`Ring::writer_tag`]) is gone: its record
    /// is out of range, free, of another generation, or its process is dead (`dead(i)`).
    pub fn writer_gone(&self, tag: u32, dead: impl Fn(u32) -> bool) -> bool {
        let i = tag & WRITER_INDEX_MASK;
        if i >= self.endpoints {
            return true;
        }
        let e = self.endpoint(i);
        // Acquire pairs with the Release store of `state` in `claim_endpoint` / FREE in
        // `release_endpoint`: the generation read below is the record's current one.
        e.state.load(Acquire) == crate::layout::ENDPOINT_FREE
            || (e.generation.load(Relaxed) << WRITER_INDEX_BITS) != (tag & !WRITER_INDEX_MASK)
            || dead(i)
    }

    /// Frees the records of endpoints whose process is dead (`dead(i)`), releasing the chunk
    /// references each held in `pool`; `reclaimed(i, pid, chunks)` is told of each. Only one
    /// reclaimer wins a record. Returns how many were freed.
    pub fn reclaim_dead(
        &self,
        pool: Option<&crate::Pool>,
        dead: impl Fn(u32) -> bool,
        mut reclaimed: impl FnMut(u32, u32, usize),
    ) -> usize {
        use crate::layout::{
            ENDPOINT_FREE, ENDPOINT_HANDLE, ENDPOINT_PUBLISHER, ENDPOINT_RECLAIMING,
            ENDPOINT_SUBSCRIBER,
        };
        let mut n = 0;
        for i in 0..self.endpoints {
            let e = self.endpoint(i);
            // Acquire pairs with the Release store of `state` in `claim_endpoint`.
            let state = e.state.load(Acquire);
            if !matches!(
                state,
                ENDPOINT_PUBLISHER | ENDPOINT_SUBSCRIBER | ENDPOINT_HANDLE
            ) || !dead(i)
            {
                continue;
            }
            // Only one reclaimer wins the record. Acquire pairs with the owner's Release store
            // of `state` in `claim_endpoint`; no one acquires our RECLAIMING (the record is only
            // reused after the Release store of FREE below).
            if e.state
                .compare_exchange(state, ENDPOINT_RECLAIMING, AcqRel, Relaxed)
                .is_ok()
            {
                let chunks = pool.map_or(0, |p| p.reclaim_endpoint(i));
                reclaimed(i, e.pid.load(Relaxed), chunks);
                e.pid.store(0, Relaxed);
                // Release pairs with the Acquire CAS in `claim_endpoint` of the record's next
                // owner: our clean-up comes before its use.
                e.state.store(ENDPOINT_FREE, Release);
                n += 1;
            }
        }
        n
    }

    /// Claims a free endpoint record for the current process with state `kind`. Returns its
    /// index, or None when every record is taken.
    pub fn claim_endpoint(&self, kind: u32) -> Option<u32> {
        let me = crate::ProcessId::current();
        (0..self.endpoints).find(|&i| {
            let e = self.endpoint(i);
            if e.state
                .compare_exchange(
                    crate::layout::ENDPOINT_FREE,
                    crate::layout::ENDPOINT_CLAIMING,
                    // Acquire pairs with the Release store of FREE in `release_endpoint` (or
                    // the transport's reclaim): the previous owner's uses come before ours.
                    Acquire,
                    Relaxed,
                )
                .is_err()
            {
                return false;
            }
            e.pid.store(me.pid, Relaxed);
            e.token.store(me.token, Relaxed);
            // Relaxed: `head` only says where writers are; each message is synchronised through
            // its slot's sequence (the Acquire in `read`).
            e.cursor.store(self.head().load(Relaxed), Relaxed);
            e.count.store(0, Relaxed);
            e.lost.store(0, Relaxed);
            e.busy.store(0, Relaxed);
            e.generation.fetch_add(1, Relaxed);
            // Release pairs with the Acquire loads of `state` by readers of the table.
            e.state.store(kind, Release);
            true
        })
    }

    /// Frees endpoint record `i` (ours).
    pub fn release_endpoint(&self, i: u32) {
        let e = self.endpoint(i);
        e.pid.store(0, Relaxed);
        // Release pairs with the Acquire CAS in `claim_endpoint` of the record's next owner
        // (and the Acquire loads of `state` by readers of the table): our last uses of the
        // record happen before it is reused.
        e.state.store(crate::layout::ENDPOINT_FREE, Release);
    }

    fn slot(&self, n: u64) -> (&AtomicU64, &AtomicU32, &AtomicU32, *mut u8) {
        let off = self.slots + (n & self.mask) as usize * self.stride;
        // SAFETY: (n & mask) < capacity and the ring was validated to fit the segment; slots are
        // 32-byte aligned (strides of 32 or multiples of 64 from a page-aligned start), so the
        // header words are aligned.
        unsafe {
            let p = self.base.as_ptr().add(off);
            (
                &*(p as *const AtomicU64),
                &*(p.add(8) as *const AtomicU32),
                &*(p.add(12) as *const AtomicU32),
                p.add(SLOT_HEADER),
            )
        }
    }

    /// Claims the slot of message `n` for writer `writer`. `writer_dead(e)` tells whether the
    /// process of endpoint `e` is gone; it is only called after a long wait.
    ///
    /// Every word of the slot is untrusted: a sequence that never changes ends the wait after
    /// [`SLOT_WAIT`] ([`Claimed::Blocked`]), and sequence arithmetic wraps rather than panics.
    pub fn begin_write(&self, n: u64, writer: u32, writer_dead: impl Fn(u32) -> bool) -> Claim {
        let (seq, _, who, _) = self.slot(n);
        let writing = n.wrapping_mul(2).wrapping_add(1);
        let mut spins = 0u32;
        let mut held_since: Option<(u64, std::time::Instant)> = None;
        loop {
            let raw = seq.load(Relaxed);
            let s = raw & !WAITER;
            if s >= writing {
                return Claim {
                    claimed: Claimed::Overtaken,
                    wake: false,
                };
            }
            if s % 2 == 1 {
                // An older writer is still on this slot (it is a full ring behind us).
                spins += 1;
                if spins < TAKEOVER_SPINS {
                    std::hint::spin_loop();
                    continue;
                }
                spins = 0;
                let holder = who.load(Relaxed);
                if !writer_dead(holder) {
                    match held_since {
                        Some((r, t)) if r == raw => {
                            if t.elapsed() >= SLOT_WAIT {
                                return Claim {
                                    claimed: Claimed::Blocked(holder),
                                    wake: false,
                                };
                            }
                        }
                        _ => held_since = Some((raw, std::time::Instant::now())),
                    }
                    std::thread::yield_now();
                    continue;
                }
            }
            // Acquire pairs with the Release in `commit` of the previous writer, so the old
            // payload (a chunk descriptor to release) is visible to us. The CAS also consumes
            // the WAITER bit: waking its sleepers is ours to do in `commit`.
            if seq.compare_exchange(raw, writing, Acquire, Relaxed).is_ok() {
                // Pairs with the Acquire fence in `read`: a reader that sees any of the payload
                // stores below also sees the odd sequence and discards its copy.
                fence(Release);
                who.store(writer, Relaxed);
                let claimed = Claimed::from_previous(s);
                return Claim {
                    claimed,
                    wake: raw & WAITER != 0,
                };
            }
        }
    }

    /// [`Ring::begin_write`] for the solo writer (the publisher named by [`Ring::solo`], with
    /// its `busy` flag set): no other live writer exists, so the slot is taken with a plain
    /// store. An odd sequence can only be left by a writer that died mid-write.
    ///
    /// `inspect` says whether the caller needs to know what the slot held (a chunk to
    /// release). Without it the slot's sequence is not even read: a load of the line the
    /// subscriber last read would stall the writer on every message, where stores do not.
    pub fn begin_write_solo(&self, n: u64, writer: u32, inspect: bool) -> Claim {
        let (seq, _, who, _) = self.slot(n);
        let writing = n.wrapping_mul(2).wrapping_add(1);
        if !inspect {
            seq.store(writing, Relaxed);
            // Pairs with the Acquire fence in `read`, as in `begin_write`.
            fence(Release);
            who.store(writer, Relaxed);
            return Claim {
                claimed: Claimed::Fresh,
                wake: false,
            };
        }
        // Acquire pairs with the Release in `commit` of the slot's previous writer (maybe a
        // previous solo owner), so its chunk descriptor is visible.
        let s = seq.load(Acquire) & !WAITER;
        if s >= writing {
            return Claim {
                claimed: Claimed::Overtaken,
                wake: false,
            };
        }
        // Dropping a WAITER bit here is fine: sleepers also count themselves in `sleepers`,
        // which `commit_solo` reads.
        seq.store(writing, Relaxed);
        // Pairs with the Acquire fence in `read`, as in `begin_write` (free on x86-64).
        fence(Release);
        who.store(writer, Relaxed);
        Claim {
            claimed: Claimed::from_previous(s),
            wake: false,
        }
    }

    /// [`Ring::commit`] for the solo writer: publishes, then wakes the slot if any reader counts
    /// itself as sleeping. Returns whether it woke anyone.
    pub fn commit_solo(&self, n: u64) -> bool {
        let (seq, _, _, _) = self.slot(n);
        // Release pairs with the Acquire load in `read`, as in `commit`.
        seq.store(n.wrapping_mul(2).wrapping_add(2), Release);
        // The store→load order against a reader's `sleepers` increment comes from that
        // reader's heavy barrier (see `wait`); here only the compiler must keep the order.
        crate::barrier::light();
        if self.sleepers().load(Relaxed) == 0 {
            return false;
        }
        // SAFETY: the slot's sequence word is 8-byte aligned and inside the mapping.
        unsafe { crate::futex::wake_all_raw(seq.as_ptr() as *const u32) };
        true
    }

    /// Reads the payload currently in slot `n` (only meaningful between `begin_write` returning
    /// `Replaced` and `write`).
    pub fn old_payload(&self, n: u64, out: &mut [u8]) {
        let (_, _, _, p) = self.slot(n);
        let len = out.len().min(self.payload);
        // SAFETY: p is the 8-aligned payload of a slot we own, `len` ≤ payload capacity.
        unsafe { words::load(p, &mut out[..len]) };
    }

    /// Writes the payload of message `n`. Panics if `bytes` exceeds the slot payload (callers
    /// check and return an error first).
    pub fn write(&self, n: u64, bytes: &[u8]) {
        assert!(bytes.len() <= self.payload, "payload larger than the slot");
        let (_, len, _, p) = self.slot(n);
        // SAFETY: p is the 8-aligned payload of the slot; bytes fit in it (checked above).
        unsafe { words::store(p, bytes) };
        len.store(bytes.len() as u32, Relaxed);
    }

    /// Publishes message `n`, waking the readers that sleep on its slot when `claim.wake` says
    /// there are any (the only case with a syscall). Returns whether it woke anyone.
    pub fn commit(&self, n: u64, claim: Claim) -> bool {
        let (seq, _, _, _) = self.slot(n);
        // Release pairs with the Acquire load in `read`: the payload is visible before the
        // sequence says it is complete. A reader that tried to set WAITER after our claiming
        // CAS saw the odd sequence and does not sleep (see `wait`): no wake-up is lost.
        seq.store(n.wrapping_mul(2).wrapping_add(2), Release);
        if claim.wake {
            // SAFETY: the slot's sequence word is 8-byte aligned and inside the mapping.
            unsafe { crate::futex::wake_all_raw(seq.as_ptr() as *const u32) };
        }
        claim.wake
    }

    /// Sleeps until message `c` may have arrived: marks its slot with [`WAITER`] and futex-waits
    /// on the slot's sequence for at most `timeout`. Returns at once if the message is there,
    /// being written, or already overwritten. Callers re-check with `read`.
    pub fn wait(&self, c: u64, timeout: std::time::Duration) {
        let (seq, _, _, _) = self.slot(c);
        // Count ourselves for a solo writer, whose plain claim may erase WAITER. The heavy
        // barrier pairs with the writer's light one in `commit_solo`: either its publishing
        // store is visible to the load below, or its later load of `sleepers` sees us. Not
        // needed (and skipped) once the topic has left solo mode for good.
        let solo = self.solo().load(Relaxed) != SOLO_SHARED;
        if solo {
            // SeqCst: the increment must not sink below the heavy barrier, which orders it
            // before our load of the sequence (pairs with the writer's light barrier).
            self.sleepers().fetch_add(1, SeqCst);
            crate::barrier::heavy();
        }
        self.wait_marked(c, seq, timeout);
        if solo {
            self.sleepers().fetch_sub(1, Relaxed);
        }
    }

    fn wait_marked(&self, c: u64, seq: &AtomicU64, timeout: std::time::Duration) {
        // Acquire pairs with the Release store in `commit`/`commit_solo`: a message seen here
        // is whole when the caller reads it.
        let mut raw = seq.load(Acquire);
        loop {
            if raw & !WAITER > c.wrapping_mul(2) {
                return;
            }
            // An older writer (a ring behind) is still on the slot. Its plain publishing store
            // would erase a WAITER bit set now, so do not sleep: the caller polls again.
            if (raw & !WAITER) % 2 == 1 {
                std::thread::yield_now();
                return;
            }
            if raw & WAITER != 0 {
                break;
            }
            // The CAS succeeds only if no writer claimed the slot since our load; a writer that
            // claims it later sees WAITER in its own CAS and wakes us.
            match seq.compare_exchange_weak(raw, raw | WAITER, Relaxed, Relaxed) {
                Ok(_) => {
                    raw |= WAITER;
                    break;
                }
                Err(now) => raw = now,
            }
        }
        // The kernel compares the low 32 bits (x86-64 is little-endian) under its own lock: a
        // claim changes them, so a writer that claims between our CAS and this call makes the
        // wait return at once, and one that claims after it wakes us in `commit`.
        // SAFETY: the slot's sequence word is 8-byte aligned and inside the mapping.
        unsafe { crate::futex::wait_raw(seq.as_ptr() as *const u32, raw as u32, Some(timeout)) };
    }

    /// Copies message `c` into `out` (at most `out.len()` bytes).
    pub fn read(&self, c: u64, out: &mut [u8]) -> Read {
        let (seq, len, who, p) = self.slot(c);
        let want = c.wrapping_mul(2).wrapping_add(2);
        // Acquire pairs with the Release store in `commit`. Sleeping readers may set WAITER at
        // any time without changing the message, so compare without it.
        let s1 = seq.load(Acquire) & !WAITER;
        if s1 != want {
            return if s1 < want.wrapping_sub(1) {
                Read::Empty
            } else if s1 == want.wrapping_sub(1) {
                Read::Writing(who.load(Relaxed))
            } else {
                Read::Lapped
            };
        }
        let n = (len.load(Relaxed) as usize)
            .min(self.payload)
            .min(out.len());
        // SAFETY: p is the 8-aligned payload of a slot inside the ring; n ≤ payload capacity.
        unsafe { words::load(p, &mut out[..n]) };
        // Pairs with the Release fence in `begin_write`: if any word we copied came from a newer
        // writer, the sequence load below sees that writer's odd value.
        fence(Acquire);
        if seq.load(Relaxed) & !WAITER != s1 {
            return Read::Lapped;
        }
        Read::Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Reliability, StoredType, TopicConfig};
    use crate::region::{HeapRegion, Region};
    use std::sync::Arc;

    fn ring(depth: u32, payload: u32) -> (Arc<HeapRegion>, Ring) {
        let cfg = TopicConfig {
            stored_type: StoredType {
                name: "t".into(),
                kind: 1,
                size: payload,
                align: 8,
                elem_size: 0,
                layout_hash: 1,
            },
            reliability: Reliability::BestEffort,
            depth,
            slot_payload: payload,
            max_endpoints: 4,
            pool_len: 0,
            schema: Vec::new(),
        };
        let h = cfg.header(1, 1).unwrap();
        let params = h.validate(h.total_size as usize).unwrap();
        let region = Arc::new(HeapRegion::new(params.total_size));
        // SAFETY: the region is zeroed, as large as the validated layout, and outlives the ring
        // (the Arc is returned alongside).
        let ring = unsafe { Ring::new(region.base(), &params) };
        (region, ring)
    }

    fn publish(r: &Ring, msg: u64) {
        let n = r.head().fetch_add(1, Relaxed);
        let claim = r.begin_write(n, 0, |_| false);
        assert_ne!(claim.claimed, Claimed::Overtaken);
        r.write(n, &msg.to_le_bytes());
        r.commit(n, claim);
    }

    #[test]
    fn read_states_follow_the_sequence() {
        let (_m, r) = ring(4, 8);
        let mut buf = [0u8; 8];
        assert_eq!(r.read(0, &mut buf), Read::Empty);
        publish(&r, 7);
        assert_eq!(r.read(0, &mut buf), Read::Ok(8));
        assert_eq!(u64::from_le_bytes(buf), 7);
        assert_eq!(r.read(1, &mut buf), Read::Empty);
        for i in 1..=4 {
            publish(&r, i);
        }
        assert_eq!(
            r.read(0, &mut buf),
            Read::Lapped,
            "slot 0 was overwritten by message 4"
        );
        assert_eq!(r.read(4, &mut buf), Read::Ok(8));
        assert_eq!(u64::from_le_bytes(buf), 4);
    }

    #[test]
    #[cfg_attr(miri, ignore = "futex syscalls")]
    fn publishing_makes_a_syscall_only_when_someone_waits() {
        let (_m, r) = ring(4, 8);
        let n = r.head().fetch_add(1, Relaxed);
        let claim = r.begin_write(n, 0, |_| false);
        assert!(!claim.wake);
        r.write(n, &[1; 8]);
        assert!(!r.commit(n, claim), "no waiter: no futex wake");
        // A reader waits (briefly) for message 1, which sets WAITER on its slot.
        r.wait(1, std::time::Duration::from_millis(1));
        let n = r.head().fetch_add(1, Relaxed);
        let claim = r.begin_write(n, 0, |_| false);
        assert!(claim.wake, "the claiming CAS sees the sleeper");
        r.write(n, &[2; 8]);
        assert!(r.commit(n, claim), "a registered waiter is woken");
        // A message already there: waiting returns at once.
        let t = std::time::Instant::now();
        r.wait(1, std::time::Duration::from_secs(5));
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(r.read(1, &mut [0u8; 8]), Read::Ok(8));
    }

    #[test]
    #[cfg_attr(miri, ignore = "futex syscalls")]
    fn no_sleeping_on_a_slot_an_older_writer_still_holds() {
        let (_m, r) = ring(2, 8);
        let n = r.head().fetch_add(1, Relaxed);
        let claim = r.begin_write(n, 0, |_| false);
        // A reader already waiting for message 2 (a resynced, lapped reader) finds message 0
        // still being written in that slot: it must not mark it (the plain publishing store
        // would erase the mark and nobody would wake it).
        let t = std::time::Instant::now();
        r.wait(2, std::time::Duration::from_secs(5));
        assert!(
            t.elapsed() < std::time::Duration::from_secs(1),
            "returned at once"
        );
        let (seq, ..) = r.slot(0);
        assert_eq!(seq.load(Relaxed) & WAITER, 0);
        r.write(n, &[0; 8]);
        assert!(!r.commit(n, claim));
    }

    #[test]
    fn waiter_bits_do_not_disturb_readers() {
        let (_m, r) = ring(2, 8);
        publish(&r, 5);
        // A reader waiting for message 2 (same slot as 0) marks the slot while 0 is readable.
        let (seq, ..) = r.slot(0);
        seq.fetch_or(WAITER, Relaxed);
        let mut buf = [0u8; 8];
        assert_eq!(r.read(0, &mut buf), Read::Ok(8));
        assert_eq!(u64::from_le_bytes(buf), 5);
        assert_eq!(r.read(2, &mut buf), Read::Empty);
    }

    #[test]
    fn dead_writer_slot_is_taken_over() {
        let (_m, r) = ring(2, 8);
        let n = r.head().fetch_add(1, Relaxed);
        assert_eq!(r.begin_write(n, 3, |_| false).claimed, Claimed::Fresh);
        // The writer "dies" here. A reader sees the message as being written by endpoint 3.
        assert_eq!(r.read(0, &mut [0u8; 8]), Read::Writing(3));
        // Two messages later another writer needs slot 0 and takes it over once 3 is dead.
        r.head().fetch_add(1, Relaxed);
        assert_eq!(r.begin_write(2, 1, |e| e == 3).claimed, Claimed::TakenOver);
    }

    /// One writer, two readers on threads; every message is either received intact or counted
    /// lost. Runs under miri with a small count.
    #[test]
    fn concurrent_readers_see_intact_messages_or_count_loss() {
        check_concurrent(Writer::Locked, 64);
    }

    #[test]
    fn the_solo_writer_keeps_messages_intact() {
        // Plain-store claims, with and without reading what the slot held; 16-byte payloads
        // share cache lines (32-byte slots), 64-byte ones do not.
        for payload in [16, 64] {
            check_concurrent(Writer::Solo { inspect: false }, payload);
            check_concurrent(Writer::Solo { inspect: true }, payload);
        }
    }

    #[derive(Clone, Copy)]
    enum Writer {
        Locked,
        Solo { inspect: bool },
    }

    /// One writer, two readers; every message is `payload` bytes of its index. Readers must
    /// see each message whole, in order, or count it lost.
    fn check_concurrent(writer: Writer, payload: usize) {
        let (_m, r) = ring(4, payload as u32);
        let r = Arc::new(r);
        let total: u64 = if cfg!(miri) { 200 } else { 200_000 };
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let r = r.clone();
                std::thread::spawn(move || {
                    let (mut c, mut got, mut lost) = (0u64, 0u64, 0u64);
                    let mut buf = vec![0u8; payload];
                    while c < total {
                        match r.read(c, &mut buf) {
                            Read::Ok(n) => {
                                assert_eq!(n, payload);
                                let v = u64::from_le_bytes(buf[..8].try_into().unwrap());
                                assert_eq!(v, c, "sequence");
                                assert!(buf.chunks(8).all(|w| w == &buf[..8]), "torn message {c}");
                                got += 1;
                                c += 1;
                            }
                            Read::Lapped => {
                                let head = r.head().load(Relaxed);
                                let next = (head.saturating_sub(r.capacity()) + 1).max(c + 1);
                                lost += next - c;
                                c = next;
                            }
                            Read::Empty | Read::Writing(_) => std::thread::yield_now(),
                        }
                    }
                    (got, lost)
                })
            })
            .collect();
        let mut msg = vec![0u8; payload];
        for i in 0..total {
            for w in msg.chunks_mut(8) {
                w.copy_from_slice(&i.to_le_bytes());
            }
            match writer {
                Writer::Locked => {
                    let n = r.head().fetch_add(1, Relaxed);
                    let claim = r.begin_write(n, 0, |_| false);
                    r.write(n, &msg);
                    r.commit(n, claim);
                }
                Writer::Solo { inspect } => {
                    let n = r.head().load(Relaxed);
                    r.head().store(n + 1, Relaxed);
                    let claim = r.begin_write_solo(n, 0, inspect);
                    assert_ne!(claim.claimed, Claimed::Overtaken);
                    r.write(n, &msg);
                    r.commit_solo(n);
                }
            }
        }
        for h in readers {
            let (got, lost) = h.join().unwrap();
            assert_eq!(got + lost, total);
        }
    }
}
