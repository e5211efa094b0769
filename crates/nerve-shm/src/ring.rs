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
    EndpointRecord, TopicParams, ENDPOINTS_OFFSET, ENDPOINT_SIZE, HEAD_OFFSET, REMOTE_OFFSET,
    SLEEPERS_OFFSET, SLOT_HEADER, SOLO_OFFSET,
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

    /// Other hosts that want the topic (0: none; written by the host's bridge, read by every
    /// send). Relaxed both sides: a hint, acted on by the next send that sees it.
    pub fn remote(&self) -> &AtomicU32 {
        // SAFETY: REMOTE_OFFSET is inside every validated segment and 4-byte aligned.
        unsafe { &*(self.base.as_ptr().add(REMOTE_OFFSET) as *const AtomicU32) }
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
            e.direct.store(0, Relaxed);
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
mod tests;
