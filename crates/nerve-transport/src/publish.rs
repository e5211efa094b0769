//! The publisher core every front end shares (typed `Publisher<T>`, `RawPublisher`, and so
//! Python and C): claiming a slot (plain stores on the solo path, a locked claim otherwise,
//! waiting for room on reliable topics), writing and committing it, and loaning, sending and
//! returning chunks of the pool.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nerve_shm::layout::{ENDPOINT_PUBLISHER, ENDPOINT_SUBSCRIBER};
use nerve_shm::{barrier, ChunkId, Claimed, Reliability};

use crate::endpoint::Endpoint;
use crate::error::{OpenError, SendError};
use crate::remote::Outlet;
use crate::shared::{data_offset, Descriptor, Shared};
use crate::solo::thread_tag;

/// Publisher half of the core.
pub struct PubCore {
    pub ep: Arc<Endpoint>,
    /// Reliable mode: lowest subscriber cursor seen at the last scan.
    min_cursor: AtomicU64,
    pub timeout: Duration,
    sent: AtomicU64,
    /// Our solo tag (see ring.rs), 0 if we never held the right.
    solo_tag: u64,
    /// The thread allowed to use the solo path (see `thread_tag`), 0 until the first send.
    /// Another thread sending through this publisher revokes the right for the topic. Unused
    /// when `exclusive`.
    solo_thread: AtomicUsize,
    /// The owner is never used by two threads at once (the typed `Publisher`, which is not
    /// `Sync`): any thread may take the solo path, since handing the publisher to another
    /// thread synchronises. Shared owners (`RawPublisher`) keep to one thread instead.
    exclusive: bool,
    /// Invalid descriptors met in replaced slots (a damaged segment).
    corrupt: AtomicU64,
    /// Where messages go to other hosts from this process (see `remote`).
    outlet: Outlet,
}

/// How long a reliable publisher waits for room by default.
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(1);

impl PubCore {
    /// `exclusive`: the owner guarantees no two threads send at once (see the field).
    pub(crate) fn new(shared: &Arc<Shared>, exclusive: bool) -> Result<Self, OpenError> {
        let ep = shared.claim_endpoint(ENDPOINT_PUBLISHER)?;
        let solo_tag = shared.join_solo(ep.index)?;
        Ok(PubCore {
            ep,
            min_cursor: AtomicU64::new(0),
            timeout: DEFAULT_SEND_TIMEOUT,
            sent: AtomicU64::new(0),
            solo_tag,
            solo_thread: AtomicUsize::new(0),
            exclusive,
            corrupt: AtomicU64::new(0),
            outlet: Outlet::default(),
        })
    }

    /// Whether this publisher claims by plain stores (no other publisher has appeared yet).
    pub(crate) fn is_solo(&self) -> bool {
        self.solo_tag != 0 && self.shared().ring.solo().load(Relaxed) == self.solo_tag
    }

    /// Reliable topics: whether message `h` fits without overwriting one a live subscriber has
    /// not read (rescanning the cursors only when the cached minimum says no).
    fn has_room(&self, h: u64) -> bool {
        let cap = self.shared().ring.capacity();
        if h < self.min_cursor.load(Relaxed) + cap {
            return true;
        }
        let min = self.scan_min_cursor(h);
        self.min_cursor.store(min, Relaxed);
        h < min + cap
    }

    /// The solo path of `publish`, taken with our `busy` flag set and the right verified:
    /// plain loads and stores only (no locked instruction, no fence). None: no room on a
    /// reliable topic (the caller falls back to the waiting path).
    fn publish_solo(&self, payload: &[u8], chunk: Option<ChunkId>, keep: bool) -> Option<u64> {
        let shared = self.shared();
        let ring = &shared.ring;
        let n = ring.head().load(Relaxed);
        if shared.params.reliability == Reliability::Reliable && !self.has_room(n) {
            return None;
        }
        ring.head().store(n + 1, Relaxed);
        let claim = ring.begin_write_solo(n, self.ep.tag, shared.pool.is_some());
        self.fill(n, claim, payload, chunk, true, keep);
        Some(n)
    }

    /// Whether a shared owner's send comes from its solo thread (adopting the first one).
    fn on_solo_thread(&self) -> bool {
        let me = thread_tag();
        self.solo_thread.load(Relaxed) == me || self.adopt_thread(me)
    }

    /// Routes a send from a thread other than the solo thread: the first sending thread
    /// becomes the solo thread; any other revokes the topic's solo right (two threads must not
    /// both claim by plain stores).
    fn adopt_thread(&self, me: usize) -> bool {
        match self.solo_thread.compare_exchange(0, me, Relaxed, Relaxed) {
            Ok(_) => true,
            Err(owner) if owner == me => true,
            Err(_) => {
                match self.shared().revoke_solo(self.solo_tag, u32::MAX) {
                    Ok(true) => {
                        tracing::info!(topic = %self.shared().name, "a raw publisher sent from a second thread: the topic now claims with locked instructions (one sending thread per raw publisher keeps the faster path)")
                    }
                    Ok(false) => {}
                    Err(e) => {
                        tracing::error!(topic = %self.shared().name, "{e}; sending with locked claims anyway")
                    }
                }
                false
            }
        }
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.ep.shared
    }

    fn scan_min_cursor(&self, head: u64) -> u64 {
        let ring = &self.shared().ring;
        let mut min = head;
        for i in 0..ring.endpoint_count() {
            let e = ring.endpoint(i);
            // Acquire pairs with the Release store of `state` in `Ring::claim_endpoint`, which
            // comes after the subscriber's first cursor store.
            if e.state.load(Acquire) == ENDPOINT_SUBSCRIBER {
                // Acquire pairs with the Release store of the cursor in `SubCore::advance`:
                // the subscriber has finished reading everything before its cursor.
                min = min.min(e.cursor.load(Acquire));
            }
        }
        min
    }

    /// Claims the next message index, waiting for room on reliable topics. None: full.
    fn claim(&self) -> Option<u64> {
        let shared = self.shared();
        let ring = &shared.ring;
        if shared.params.reliability != Reliability::Reliable {
            return Some(ring.head().fetch_add(1, Relaxed));
        }
        let cap = ring.capacity();
        // Waiting for room: spin ~20 µs (a subscriber drains a ring in microseconds), then
        // yield, then sleep with a growing interval; look for dead subscribers every 100 ms.
        let mut wait: Option<(Instant, Instant, Duration)> = None; // (start, last reclaim, sleep)
        let mut spins = 0u32;
        loop {
            let h = ring.head().load(Relaxed);
            if !self.has_room(h) {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                    continue;
                }
                let now = Instant::now();
                let (start, last_reclaim, sleep) =
                    wait.get_or_insert((now, now, Duration::from_micros(20)));
                if now.duration_since(*last_reclaim) >= Duration::from_millis(100) {
                    *last_reclaim = now;
                    shared.reclaim_dead();
                }
                let waited = now.duration_since(*start);
                if waited >= self.timeout {
                    shared.reclaim_dead();
                    if h >= self.scan_min_cursor(h) + cap {
                        return None;
                    }
                } else if waited < Duration::from_micros(20) {
                    std::hint::spin_loop();
                } else if waited < Duration::from_millis(1) {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(*sleep);
                    *sleep = (*sleep * 2).min(Duration::from_millis(1));
                }
                continue;
            }
            if ring
                .head()
                .compare_exchange_weak(h, h + 1, Relaxed, Relaxed)
                .is_ok()
            {
                return Some(h);
            }
        }
    }

    /// Writes one message; `payload` is the slot content. Releases the chunk a replaced slot
    /// carried. Returns false when the topic is full (reliable).
    ///
    /// `chunk`: the loaned chunk `payload` describes. Its reference passes to the ring only
    /// once a slot is claimed (waiting for room included), so a publisher killed while it
    /// waits leaves the reference recorded as its own, for the reclaim of its endpoint.
    pub(crate) fn publish(&self, payload: &[u8], chunk: Option<ChunkId>) -> bool {
        if Outlet::wanted(self.shared()) {
            return self.publish_out(payload, chunk);
        }
        self.publish_at(payload, chunk, false).is_some()
    }

    /// `publish` when another host wants the topic: the message goes to the local
    /// subscribers, then to this process's egress (see `remote`), if it has one.
    #[cold]
    fn publish_out(&self, payload: &[u8], chunk: Option<ChunkId>) -> bool {
        let Some(egress) = self.outlet.get(&self.ep) else {
            return self.publish_at(payload, chunk, false).is_some();
        };
        let (Some(id), Some(pool)) = (chunk, &self.shared().pool) else {
            // A fixed message: `payload` is the caller's.
            let Some(n) = self.publish_at(payload, None, false) else {
                return false;
            };
            egress.send(n, payload);
            return true;
        };
        // A chunk: one more reference, held under our holder bit until the egress has the
        // bytes (a lapped best-effort ring may release the ring's meanwhile); a process killed
        // in between leaves it to the reclaim of its endpoint like any loan.
        if !pool.retain(id, self.ep.index) {
            return self.publish_at(payload, chunk, false).is_some();
        }
        let Some(n) = self.publish_at(payload, chunk, true) else {
            // Full: the loan's reference stays the caller's, ours goes.
            let _ = pool.release_unowned(id);
            return false;
        };
        let shared = self.shared();
        let len = Descriptor::from_bytes(payload.try_into().unwrap_or(&[0; 16])).len as usize;
        let span = data_offset(shared.params.stored_type.size as usize)
            .saturating_add(
                len.saturating_mul((shared.params.stored_type.elem_size as usize).max(1)),
            )
            .min(pool.chunk_size());
        // SAFETY: the reference `retain` took, under our holder bit, passes to the held
        // chunk; its first `span` bytes lie inside it (clamped to the chunk size) and were
        // written before the send.
        let held = unsafe {
            crate::remote::HeldChunk::new(self.ep.clone(), id, pool.chunk_ptr(id.index), span)
        };
        egress.send_chunk(n, held);
        true
    }

    /// Keeps this publisher's messages off any egress (see `Outlet::close`).
    pub(crate) fn keep_local(&self) {
        self.outlet.close();
    }

    /// Writes one message; returns its index in the ring, None when the topic is full.
    /// `keep`: the caller holds a second reference on `chunk` under its holder bit, which
    /// therefore stays set (the ring takes the loan's reference unrecorded).
    fn publish_at(&self, payload: &[u8], chunk: Option<ChunkId>, keep: bool) -> Option<u64> {
        if self.solo_tag != 0 && (self.exclusive || self.on_solo_thread()) {
            let rec = self.ep.record();
            rec.busy.store(1, Relaxed);
            // Drops `busy` on every way out of this block, unwinding included: a send that
            // panicked must not leave joining publishers waiting for it.
            let _busy = BusyGuard(&rec.busy);
            // The store→load order against a revoker comes from its heavy barrier.
            barrier::light();
            if self.shared().ring.solo().load(Relaxed) == self.solo_tag {
                if let Some(n) = self.publish_solo(payload, chunk, keep) {
                    return Some(n);
                }
            }
        }
        let n = self.claim()?;
        let shared = self.shared();
        let ring = &shared.ring;
        let claim = ring.begin_write(n, self.ep.tag, |w| shared.writer_gone(w));
        self.fill(n, claim, payload, chunk, false, keep);
        Some(n)
    }

    /// Writes and commits message `n` into the slot `claim` took; releases the chunk a
    /// replaced slot carried.
    fn fill(
        &self,
        n: u64,
        claim: nerve_shm::Claim,
        payload: &[u8],
        chunk: Option<ChunkId>,
        solo: bool,
        keep: bool,
    ) {
        let shared = self.shared();
        let ring = &shared.ring;
        // The chunk the slot carried, to release once ours is published (and whether its
        // writer died mid-write, which makes the slot's descriptor a guess to check).
        let mut carried = None;
        if let Some(pool) = &shared.pool {
            if let Some(id) = chunk.filter(|_| !keep) {
                // The ring takes over our reference (see pool.rs on the order of these steps).
                pool.disown(id, self.ep.index);
            }
            match claim.claimed {
                Claimed::Replaced(_) => carried = Some((self.old_descriptor(n), false)),
                Claimed::TakenOver => carried = Some((self.old_descriptor(n), true)),
                _ => {}
            }
        }
        match claim.claimed {
            Claimed::Overtaken => {
                // A message a full ring newer owns the slot: ours is already obsolete.
                self.release_payload(payload);
                return;
            }
            Claimed::Blocked(writer) => return self.blocked(n, writer, payload),
            _ => {}
        }
        ring.write(n, payload);
        if solo {
            ring.commit_solo(n);
        } else {
            ring.commit(n, claim);
        }
        // The ring's reference to the chunk this slot carried is dropped after publishing: the
        // locked decrement (on a line a subscriber last touched) stays off the path of the new
        // message. A publisher killed in between leaks that one chunk until the topic is
        // reclaimed, the same bound as any crash between two steps of the pool.
        if let Some((id, abandoned)) = carried {
            self.release_carried(id, abandoned);
        }
        // Statistics only: a load and a store, not a locked read-modify-write. Concurrent sends
        // through one publisher from several threads may undercount.
        let sent = self.sent.load(Relaxed) + 1;
        self.sent.store(sent, Relaxed);
        self.ep.record().count.store(sent, Relaxed);
    }

    /// The chunk descriptor slot `n` carries before we write it.
    fn old_descriptor(&self, n: u64) -> ChunkId {
        let mut old = [0u8; 16];
        self.shared().ring.old_payload(n, &mut old);
        Descriptor::from_bytes(&old).id
    }

    /// Drops the ring's reference to the chunk a replaced slot carried. A slot abandoned by a
    /// writer that died mid-write names the chunk it carried before (the ring's reference)
    /// or that writer's own new one (disowned, never published): nobody else will release
    /// either, so the one it names is freed, checked against the chunk's generation.
    fn release_carried(&self, id: ChunkId, abandoned: bool) {
        let Some(pool) = &self.shared().pool else {
            return;
        };
        if abandoned {
            let _ = pool.release_abandoned(id);
        } else if !pool.release_unowned(id) {
            self.saw_corrupt_descriptor(id);
        }
    }

    /// A live writer has held the slot for a whole `Ring::begin_write` deadline (stuck, or
    /// stopped in a debugger): our message cannot go in; it is counted as lost by this
    /// publisher and skipped by readers.
    #[cold]
    fn blocked(&self, n: u64, writer: u32, payload: &[u8]) {
        self.count_full();
        self.release_payload(payload);
        let shared = self.shared();
        let pid = shared.ring.endpoint_pid(writer);
        tracing::warn!(topic = %shared.name, message = n, writer_pid = pid, "a publisher has been writing one slot for over a second (stuck or stopped?): this message is dropped");
    }

    pub(crate) fn stall_mid_write(&self, payload: &[u8]) {
        let ring = &self.shared().ring;
        let n = ring.head().fetch_add(1, Relaxed);
        ring.begin_write(n, self.ep.tag, |_| false);
        ring.write(n, &payload[..payload.len() / 2]);
    }

    fn release_payload(&self, payload: &[u8]) {
        if let (Some(pool), Ok(b)) = (&self.shared().pool, <&[u8; 16]>::try_from(payload)) {
            // Our own descriptor: valid.
            let _ = pool.release_unowned(Descriptor::from_bytes(b).id);
        }
    }

    /// A slot we replaced carried a descriptor no nerve publisher wrote (the segment was
    /// written by another program or damaged): nothing was released; say so once.
    #[cold]
    fn saw_corrupt_descriptor(&self, id: ChunkId) {
        if self.corrupt.fetch_add(1, Relaxed) == 0 {
            tracing::warn!(topic = %self.shared().name, chunk = id.index, "a ring slot held an invalid chunk descriptor (the topic's shared memory was written by another program or damaged); it was skipped");
        }
    }

    /// `Corrupt` when the topic's memory was truncated under us: what was written went
    /// nowhere anyone can read.
    #[cold]
    pub(crate) fn damage_error<T>(&self) -> SendError<T> {
        let shared = self.shared();
        SendError::Corrupt {
            topic: shared.name.clone(),
            reason: shared.damage_reason(),
        }
    }

    /// Counts a message refused as full.
    pub(crate) fn count_full(&self) {
        self.ep.record().lost.fetch_add(1, Relaxed);
    }

    pub(crate) fn full_error<T>(&self, msg: T) -> SendError<T> {
        self.count_full();
        SendError::Full {
            msg,
            topic: self.shared().name.clone(),
            depth: self.shared().ring.capacity(),
        }
    }

    /// Loans a chunk able to hold `bytes` bytes after a header of `header` bytes.
    pub(crate) fn loan(&self, header: usize, bytes: usize) -> Result<ChunkId, SendError<()>> {
        let shared = self.shared();
        if shared.damaged() {
            return Err(self.damage_error());
        }
        let limit = shared.chunk_limit(header);
        let Some(pool) = &shared.pool else {
            return Err(SendError::TooLarge {
                topic: shared.name.clone(),
                size: bytes,
                limit: 0,
            });
        };
        if bytes > limit {
            return Err(SendError::TooLarge {
                topic: shared.name.clone(),
                size: bytes,
                limit,
            });
        }
        let id = match pool.alloc(self.ep.index) {
            Some(id) => id,
            None => {
                shared.reclaim_dead();
                pool.alloc(self.ep.index)
                    .ok_or_else(|| SendError::PoolExhausted {
                        topic: shared.name.clone(),
                        chunks: pool.chunk_count(),
                    })?
            }
        };
        let needed = data_offset(header).saturating_add(bytes);
        if !shared.populate_chunk(id.index, needed) {
            pool.release(id, self.ep.index);
            return Err(SendError::NoSpace {
                topic: shared.name.clone(),
                needed,
                free: match &shared.path {
                    crate::shared::TransportPath::Shm(p) => {
                        p.parent().map_or(0, nerve_shm::segment::free_bytes)
                    }
                    crate::shared::TransportPath::Heap => 0,
                },
            });
        }
        Ok(id)
    }

    /// Publishes a loaned chunk. On `false` (full) the loan is still ours.
    pub(crate) fn send_chunk(&self, id: ChunkId, len: u64) -> bool {
        // Full: the reference was never handed over, the loan is still ours.
        self.publish(&Descriptor { id, len }.to_bytes(), Some(id))
    }

    pub(crate) fn release_loan(&self, id: ChunkId) {
        if let Some(pool) = &self.shared().pool {
            pool.release(id, self.ep.index);
        }
    }
}

impl Drop for PubCore {
    fn drop(&mut self) {
        if self.solo_tag != 0 {
            // Hand the right back so the next lone publisher can take it; a revoked right
            // stays revoked.
            let _ = self
                .shared()
                .ring
                .solo()
                // Release pairs with the Acquire of the next taker in `join_solo`.
                .compare_exchange(self.solo_tag, 0, AcqRel, Relaxed);
        }
    }
}

/// Clears a publisher record's `busy` flag when dropped.
struct BusyGuard<'a>(&'a std::sync::atomic::AtomicU32);

impl Drop for BusyGuard<'_> {
    fn drop(&mut self) {
        // Release pairs with the Acquire load of `busy` in `Shared::wait_for_solo_sends`: our
        // plain stores to `head` and the slot are visible to a revoker that sees 0.
        self.0.store(0, Release);
    }
}
