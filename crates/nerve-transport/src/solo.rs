//! The single-publisher right of a topic (see `ring.rs` in nerve-shm): a lone publisher claims
//! messages with plain stores; the right is taken by the first publisher, handed back when it
//! leaves, and revoked for good when a second one appears.

use std::sync::atomic::Ordering::*;
use std::time::{Duration, Instant};

use nerve_shm::layout::ENDPOINT_PUBLISHER;
use nerve_shm::{barrier, ProcessId, SOLO_SHARED};

use crate::error::OpenError;
use crate::shared::Shared;

/// How long a publisher that joins waits for another one to finish a send begun on the solo
/// path (a send takes nanoseconds: only a stuck or stopped process takes this long).
const SOLO_WAIT: Duration = Duration::from_millis(500);

impl Shared {
    /// Whether the solo tag `tag` names a live publisher record.
    fn solo_holder_live(&self, tag: u64) -> bool {
        let index = (tag as u32).wrapping_sub(1);
        if index >= self.ring.endpoint_count() {
            return false;
        }
        let e = self.ring.endpoint(index);
        // Acquire pairs with the Release store of `state` in `Ring::claim_endpoint`.
        e.state.load(Acquire) == ENDPOINT_PUBLISHER
            && e.token.load(Relaxed) as u32 == (tag >> 32) as u32
            && !self.record_dead(index)
    }

    /// Settles the solo right (ring.rs) for publisher record `index`, which just joined: takes
    /// it when no live publisher holds it, else revokes it for good. Returns our tag, or 0 when
    /// we claim with locked instructions; `Busy` when a publisher stays inside a solo send
    /// (it is stuck, or stopped in a debugger) for longer than `SOLO_WAIT`.
    pub(crate) fn join_solo(&self, index: u32) -> Result<u64, OpenError> {
        let solo = self.ring.solo();
        // The low half of our life token (not the pid: another container's publisher may
        // have the same one) beside the record's index.
        let tag = (ProcessId::current().token << 32) | u64::from(index + 1);
        loop {
            // Acquire pairs with the Release of the holder's hand-back in `PubCore::drop` (see
            // the CAS below).
            let cur = solo.load(Acquire);
            if cur == SOLO_SHARED {
                // Revoked before: a send its holder began with plain stores may still be in
                // flight if that holder got stuck; locked claims must not start beside it.
                self.wait_for_solo_sends(index)?;
                return Ok(0);
            }
            if cur == 0 || !self.solo_holder_live(cur) {
                // Free, or its holder left or died (a dead process's stores are all visible).
                // A process that cannot use light barriers makes the topic shared instead:
                // leaving the tag free would let a later publisher go solo beside it.
                let new = if barrier::register() {
                    tag
                } else {
                    SOLO_SHARED
                };
                // AcqRel: Acquire pairs with the Release of the previous holder's hand-back in
                // `PubCore::drop` (its `head` and slot stores are then visible to our plain
                // loads); Release publishes our tag to revokers' Acquire loads.
                if solo.compare_exchange(cur, new, AcqRel, Acquire).is_ok() {
                    return Ok(if new == tag { tag } else { 0 });
                }
                continue;
            }
            if self.revoke_solo(cur, index)? {
                return Ok(0);
            }
        }
    }

    /// Revokes the solo right from the live holder `tag` and waits until its send in progress
    /// (if any) is over, so its plain stores to `head` and the slots are visible before anyone
    /// claims with locked instructions. False if the tag changed meanwhile. `me` is the
    /// caller's own record (never waited for).
    pub(crate) fn revoke_solo(&self, tag: u64, me: u32) -> Result<bool, OpenError> {
        if self
            .ring
            .solo()
            // AcqRel, as in `join_solo` (pairs with the hand-back in `PubCore::drop` and the
            // taker's CAS there); the holder's in-flight stores are covered by the `busy`
            // handshake below.
            .compare_exchange(tag, SOLO_SHARED, AcqRel, Acquire)
            .is_err()
        {
            return Ok(false);
        }
        tracing::debug!(topic = %self.name, "second publisher: single-publisher fast path off");
        self.wait_for_solo_sends(me)?;
        Ok(true)
    }

    /// Waits until no publisher of the topic (other than record `me`) is inside a send it
    /// began on the solo path: until each `busy` flag drops, or its record no longer names a
    /// live publisher (it died, or left cleanly — a clean exit frees the record). At most
    /// `SOLO_WAIT`; then `Busy` naming the holder.
    fn wait_for_solo_sends(&self, me: u32) -> Result<(), OpenError> {
        // Pairs with the holder's light barrier between setting `busy` and loading `solo`:
        // after this, either the holder sees SOLO_SHARED or we see its `busy` flag.
        barrier::heavy();
        let start = Instant::now();
        for i in (0..self.ring.endpoint_count()).filter(|&i| i != me) {
            let rec = self.ring.endpoint(i);
            let pid = rec.pid.load(Relaxed);
            let mut spins = 0u32;
            // Acquire pairs with the holder's Release store of `busy = 0` after its send
            // (`BusyGuard::drop` in publish.rs).
            while rec.busy.load(Acquire) != 0 {
                // Acquire pairs with the Release store of `state` in `Ring::claim_endpoint`.
                let same_publisher =
                    rec.state.load(Acquire) == ENDPOINT_PUBLISHER && rec.pid.load(Relaxed) == pid;
                if !same_publisher || self.record_dead(i) {
                    break;
                }
                let waited = start.elapsed();
                if waited >= SOLO_WAIT {
                    return Err(OpenError::Busy {
                        topic: self.name.clone(),
                        what: "a send on the single-publisher fast path",
                        pid,
                        waited,
                    });
                }
                spins += 1;
                if spins < 1024 {
                    std::hint::spin_loop();
                } else {
                    std::thread::sleep(Duration::from_micros(50));
                }
            }
        }
        Ok(())
    }
}

/// An identifier of the calling thread that costs no atomic operation: the address of a
/// thread-local.
pub(crate) fn thread_tag() -> usize {
    thread_local!(static TAG: u8 = const { 0 });
    TAG.with(|t| t as *const u8 as usize)
}
