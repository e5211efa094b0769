//! The subscriber core every front end shares (typed `Subscriber<T>`, `RawSubscriber`, and so
//! Python and C): a cursor into the ring, the receive loops (poll, spin then futex, timeout),
//! recovery from lapping and from messages abandoned by dead publishers, and the readers of one
//! slot — a fixed message copied out, or a chunk descriptor validated and its chunk pinned.
//! [`Codec`], next to the readers, says how each kind of typed message is read.

use std::sync::atomic::Ordering::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nerve_msgs::{Chunked, ChunkedMessage, Fixed, FixedMessage, Message, Serialized};
use nerve_shm::layout::ENDPOINT_SUBSCRIBER;
use nerve_shm::{Read, Reliability};

use crate::endpoint::Endpoint;
use crate::error::{OpenError, RecvError};
use crate::msgpack::Msgpack;
use crate::sample::{ChunkSample, Sample};
use crate::shared::{data_offset, Descriptor, Shared, DESCRIPTOR_BYTES};

/// Counters of one subscriber.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubscriberStats {
    /// Messages received.
    pub received: u64,
    /// Messages overwritten before this subscriber read them (best effort), or skipped for a
    /// newer one (latest only).
    pub lost: u64,
    /// Messages abandoned by a publisher that died while writing them, skipped.
    pub dropped: u64,
    /// Messages whose slot held something no nerve publisher writes (a length, chunk index or
    /// descriptor out of range), skipped: the segment was written by another program or
    /// damaged.
    pub corrupt: u64,
}

/// What one attempt at the cursor produced.
pub enum Step<T> {
    Got(T),
    Empty,
    Writing(u32),
    Lapped,
    /// Abandoned by a publisher that died mid-write.
    Dropped,
    /// The slot holds what no nerve publisher writes (a bad length or descriptor).
    Corrupt,
}

impl<T> Step<T> {
    /// Converts what was received, keeping every other outcome.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Step<U> {
        match self {
            Step::Got(v) => Step::Got(f(v)),
            Step::Empty => Step::Empty,
            Step::Writing(w) => Step::Writing(w),
            Step::Lapped => Step::Lapped,
            Step::Dropped => Step::Dropped,
            Step::Corrupt => Step::Corrupt,
        }
    }
}

/// Subscriber half of the core.
pub(crate) struct SubCore {
    pub ep: Arc<Endpoint>,
    pub cursor: u64,
    pub stats: SubscriberStats,
    /// Spin at most this long in `recv` before sleeping on the futex (`set_spin`).
    spin: Duration,
    /// The spin the next wait uses (`next_spin`): `spin` while messages come soon after a wait
    /// starts, shrinking towards zero while they do not.
    spin_now: Duration,
    stuck_polls: u32,
    stuck_since: Option<(u64, Instant)>,
}

/// Default spin before a blocking receive sleeps.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(20);

/// The spin of the wait after one that lasted `waited`, spinning `now` of at most `max`.
///
/// A message that came within twice the longest spin (back-to-back traffic, a burst, a spin
/// set to cover the period) restores the whole spin: the next one is likely as close. One that
/// came later (a 1 kHz topic against the 20 µs default) halves it: spinning only burned the
/// CPU before the futex sleep that delivered it anyway. So a subscriber of a slow topic stops
/// spinning after a few messages, and one of a busy topic keeps its latency.
pub(crate) fn next_spin(now: Duration, max: Duration, waited: Duration) -> Duration {
    if waited <= max.saturating_mul(2) {
        max
    } else if now < Duration::from_micros(1) {
        Duration::ZERO
    } else {
        now / 2
    }
}
/// How long a slot may stay claimed-but-unwritten before a reader gives up on it, when a
/// publisher of the topic is known dead...
const STUCK_AFTER: Duration = Duration::from_millis(200);
/// ...and when every publisher is alive (one was preempted between claiming and writing).
const STUCK_AFTER_LIVE: Duration = Duration::from_secs(5);

impl SubCore {
    pub(crate) fn new(shared: &Arc<Shared>, history: u64) -> Result<Self, OpenError> {
        let ep = shared.claim_endpoint(ENDPOINT_SUBSCRIBER)?;
        // Relaxed: `head` only says where writers are; each message is synchronised through
        // its slot's sequence (the Acquire in `Ring::read`).
        let head = shared.ring.head().load(Relaxed);
        let cursor = head.saturating_sub(history.min(shared.ring.capacity()));
        // Release pairs with the Acquire in `PubCore::scan_min_cursor`.
        ep.record().cursor.store(cursor, Release);
        Ok(SubCore {
            ep,
            cursor,
            stats: SubscriberStats::default(),
            spin: DEFAULT_SPIN,
            spin_now: DEFAULT_SPIN,
            stuck_polls: 0,
            stuck_since: None,
        })
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.ep.shared
    }

    /// Sets the longest spin of a blocking receive (the next wait spins all of it).
    pub(crate) fn set_spin(&mut self, spin: Duration) {
        self.spin = spin;
        self.spin_now = spin;
    }

    fn advance(&mut self, by_lost: u64, got: bool) {
        self.cursor = self.cursor.wrapping_add(1);
        self.stats.lost = self.stats.lost.wrapping_add(by_lost);
        let rec = self.ep.record();
        if got {
            self.stats.received += 1;
            rec.count.store(self.stats.received, Relaxed);
        }
        if self.shared().params.reliability == Reliability::Reliable {
            // Release pairs with the Acquire in `PubCore::scan_min_cursor`.
            rec.cursor.store(self.cursor, Release);
        }
    }

    fn resync(&mut self) {
        let ring = &self.shared().ring;
        // Relaxed, as in `new`.
        let head = ring.head().load(Relaxed);
        let next = (head.saturating_sub(ring.capacity()) + 1).max(self.cursor.wrapping_add(1));
        self.stats.lost = self.stats.lost.wrapping_add(next.wrapping_sub(self.cursor));
        self.cursor = next;
        self.ep.record().lost.store(self.stats.lost, Relaxed);
        if self.shared().params.reliability == Reliability::Reliable {
            // Release pairs with the Acquire in `PubCore::scan_min_cursor`.
            self.ep.record().cursor.store(self.cursor, Release);
        }
    }

    /// One non-blocking attempt. `decode` reads the message at the cursor.
    pub(crate) fn try_recv<T>(
        &mut self,
        mut decode: impl FnMut(&Arc<Endpoint>, u64) -> Step<T>,
    ) -> Option<T> {
        if self.shared().params.reliability == Reliability::LatestOnly {
            // Relaxed, as in `new`.
            let head = self.shared().ring.head().load(Relaxed);
            if head > self.cursor.saturating_add(1) {
                let skip = head - 1 - self.cursor;
                self.stats.lost = self.stats.lost.wrapping_add(skip);
                self.cursor = head - 1;
            }
        }
        // Skips (lapped, dropped, corrupt) move the cursor one message each; slots that a
        // damaged segment makes lie forever must not keep this call looping: after a ring's
        // worth of skips it returns, and the next call goes on.
        let mut skips = 0u64;
        loop {
            let cursor = self.cursor;
            match decode(&self.ep, cursor) {
                Step::Got(v) => {
                    self.stuck_polls = 0;
                    self.stuck_since = None;
                    self.advance(0, true);
                    return Some(v);
                }
                Step::Lapped | Step::Dropped | Step::Corrupt if self.too_many_skips(&mut skips) => {
                    return None;
                }
                Step::Lapped => self.resync(),
                Step::Dropped => {
                    self.stats.dropped += 1;
                    self.advance(0, false);
                }
                Step::Corrupt => {
                    if self.stats.corrupt == 0 {
                        tracing::warn!(topic = %self.shared().name, message = self.cursor, "skipping a message whose slot holds what no nerve publisher writes; the topic's shared memory was written by another program or damaged (counted in the subscriber's `corrupt`)");
                    }
                    self.stats.corrupt += 1;
                    self.advance(0, false);
                }
                Step::Empty | Step::Writing(_) => {
                    self.stuck_polls = self.stuck_polls.wrapping_add(1);
                    if self.stuck_polls.is_multiple_of(4096) && self.check_stuck(&mut decode) {
                        continue;
                    }
                    return None;
                }
            }
        }
    }

    /// Counts one skip of this `try_recv`; true after a ring's worth (twice the capacity).
    #[cold]
    fn too_many_skips(&self, skips: &mut u64) -> bool {
        *skips += 1;
        *skips > self.shared().ring.capacity().saturating_mul(2) + 4
    }

    /// Whether the message at the cursor has been stuck for `limit` since this subscriber first
    /// saw it stuck (the first call starts the clock).
    fn stuck_for(&mut self, limit: Duration) -> bool {
        match self.stuck_since {
            Some((c, t)) if c == self.cursor => t.elapsed() >= limit,
            _ => {
                self.stuck_since = Some((self.cursor, Instant::now()));
                false
            }
        }
    }

    /// Skips the message at the cursor if its publisher died before finishing it, or if it has
    /// been claimed but unwritten for `STUCK_AFTER` while newer messages exist.
    fn check_stuck<T>(&mut self, decode: &mut impl FnMut(&Arc<Endpoint>, u64) -> Step<T>) -> bool {
        let shared = self.ep.shared.clone();
        // Relaxed, as in `new`.
        let head = shared.ring.head().load(Relaxed);
        if head <= self.cursor {
            self.stuck_since = None;
            return false;
        }
        let ep = self.ep.clone();
        let skip = match decode(&ep, self.cursor) {
            Step::Writing(w) => {
                let gone = shared.writer_gone(w);
                // The writer may have finished (and even exited cleanly) since we looked: it is
                // only abandoned if the slot is *still* being written by the same gone writer.
                // And `w` may be stale: a writer claims the slot (odd sequence) before it
                // stores its index, so for that instant the slot names the slot's previous
                // writer, which may have exited since. A live writer preempted there must not
                // lose its message, so a gone writer's slot is only given up after it stayed
                // so for `STUCK_AFTER` (a writer that died there is recovered all the same).
                gone && matches!(decode(&ep, self.cursor), Step::Writing(w2) if w2 == w)
                    && self.stuck_for(STUCK_AFTER)
            }
            // Claimed (head moved past it) but not even started: its publisher was preempted
            // between claiming and writing, or killed there. A preempted one resumes, so give
            // up quickly only when a publisher of the topic is known dead.
            Step::Empty => self.stuck_for(if shared.dead_publisher() {
                STUCK_AFTER
            } else {
                STUCK_AFTER_LIVE
            }),
            _ => return true,
        };
        if skip {
            tracing::warn!(topic = %shared.name, message = self.cursor, "skipping a message abandoned by a publisher that died while writing it");
            self.stats.dropped += 1;
            self.stuck_since = None;
            self.advance(0, false);
        }
        skip
    }

    /// Receives, spinning for at most `self.spin` (see [`next_spin`]) then sleeping on the
    /// futex, for at most `timeout` (None: forever). A message already there costs no clock
    /// read.
    pub(crate) fn recv_until<T>(
        &mut self,
        timeout: Option<Duration>,
        mut decode: impl FnMut(&Arc<Endpoint>, u64) -> Step<T>,
    ) -> Option<T> {
        if let Some(v) = self.try_recv(&mut decode) {
            return Some(v);
        }
        let start = Instant::now();
        // A timeout (or spin) too large for the clock has no end: wait (or spin) forever.
        let deadline = timeout.and_then(|t| crate::time::deadline(start, t));
        // The spin never outlasts the timeout: a spin of forever with a timeout ends at the
        // timeout.
        let spin_until = match (crate::time::deadline(start, self.spin_now), deadline) {
            (Some(s), Some(d)) => Some(s.min(d)),
            (None, d) => d,
            (s, None) => s,
        };
        // A look at the ring after every pause, the clock after every 32 looks: a pause takes
        // ~30 ns on this project's AMD EPYC VM, and 64 of them between two looks (as before
        // 2026-11-28) made a spinning receive see a message ~1 µs late on average, a blocking
        // ping-pong hop ~4 × a polling one. An empty look reads a cache line this core already
        // holds until the publisher writes it.
        while spin_until.is_none_or(|until| Instant::now() < until) {
            for _ in 0..32 {
                if let Some(v) = self.try_recv(&mut decode) {
                    self.spin_now = self.spin;
                    return Some(v);
                }
                std::hint::spin_loop();
            }
        }
        let shared = self.ep.shared.clone();
        let ring = &shared.ring;
        loop {
            let slice = Duration::from_millis(100);
            let wait = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return None;
                    }
                    (d - now).min(slice)
                }
                None => slice,
            };
            if shared.damaged() {
                return None;
            }
            ring.wait(self.cursor, wait);
            if let Some(msg) = self.try_recv(&mut decode) {
                self.spin_now = next_spin(self.spin_now, self.spin, start.elapsed());
                return Some(msg);
            }
            self.check_stuck(&mut decode);
        }
    }

    /// `Corrupt` when the topic's memory was truncated under us (checked when nothing was
    /// received: a damaged segment reads as empty).
    pub(crate) fn damage_error(&self) -> Option<RecvError> {
        let shared = self.shared();
        shared.damaged().then(|| RecvError::Corrupt {
            topic: shared.name.clone(),
            reason: shared.damage_reason(),
        })
    }

    pub(crate) fn timeout_error(&self, timeout: Duration) -> RecvError {
        RecvError::Timeout {
            topic: self.shared().name.clone(),
            timeout,
        }
    }
}

/// Reads a fixed message of `out.len()` bytes at cursor `c`.
pub(crate) fn read_fixed(shared: &Shared, c: u64, out: &mut [u8]) -> Step<()> {
    match shared.ring.read(c, out) {
        Read::Ok(n) if n == out.len() => Step::Got(()),
        Read::Ok(_) => Step::Corrupt,
        Read::Empty => Step::Empty,
        Read::Writing(w) => Step::Writing(w),
        Read::Lapped => Step::Lapped,
    }
}

/// Reads a chunk descriptor at cursor `c`, validates it against the pool (a descriptor is
/// untrusted input) and pins its chunk for endpoint `ep`.
pub(crate) fn read_chunk(
    ep: &Arc<Endpoint>,
    c: u64,
    header: usize,
    elem: usize,
) -> Step<ChunkSample> {
    let shared = &ep.shared;
    let mut b = [0u8; 16];
    match shared.ring.read(c, &mut b) {
        Read::Ok(16) => {}
        Read::Ok(_) => return Step::Corrupt,
        Read::Empty => return Step::Empty,
        Read::Writing(w) => return Step::Writing(w),
        Read::Lapped => return Step::Lapped,
    }
    let desc = Descriptor::from_bytes(&b);
    let Some(pool) = &shared.pool else {
        return Step::Corrupt;
    };
    let fits = (desc.len as usize)
        .checked_mul(elem.max(1))
        .and_then(|n| n.checked_add(data_offset(header)))
        .is_some_and(|n| n <= pool.chunk_size());
    if desc.id.index >= pool.chunk_count() || !fits {
        return Step::Corrupt;
    }
    pool.prefetch(desc.id.index);
    if !pool.retain(desc.id, ep.index) {
        // Recycled between the slot read and the retain: the ring moved past it.
        return Step::Lapped;
    }
    Step::Got(ChunkSample {
        ep: ep.clone(),
        desc,
    })
}

/// How each kind of message crosses the ring: implemented for the markers [`Fixed`],
/// [`Chunked`] and [`Serialized`] only (the trait is sealed, and its methods take types no
/// other crate can name, so only this crate calls them).
pub trait Codec<T: Message>: nerve_msgs::kind::Kind + sealed::Sealed {
    /// What a subscriber receives: `T` itself for fixed messages, a [`Sample<T>`] read in
    /// place for chunked ones, the deserialized value for `Msgpack<V>`.
    type Received;
    /// Bytes of the ring slot.
    #[doc(hidden)]
    fn slot_payload() -> u32;
    /// Whether the topic needs a chunk pool.
    #[doc(hidden)]
    fn chunked() -> bool;
    /// Reads the message at cursor `c` for subscriber endpoint `ep`.
    #[doc(hidden)]
    fn decode(ep: &Arc<Endpoint>, c: u64) -> Step<Result<Self::Received, RecvError>>;
}

mod sealed {
    /// Only the three kinds of message implement [`Codec`](super::Codec).
    pub trait Sealed {}
    impl Sealed for nerve_msgs::Fixed {}
    impl Sealed for nerve_msgs::Chunked {}
    impl Sealed for nerve_msgs::Serialized {}
}

/// What a subscriber of `T` receives.
pub type Received<T> = <<T as Message>::Kind as Codec<T>>::Received;

impl<T: FixedMessage> Codec<T> for Fixed {
    type Received = T;
    fn slot_payload() -> u32 {
        std::mem::size_of::<T>() as u32
    }
    fn chunked() -> bool {
        false
    }
    fn decode(ep: &Arc<Endpoint>, c: u64) -> Step<Result<T, RecvError>> {
        let mut msg = T::zeroed();
        read_fixed(&ep.shared, c, bytemuck::bytes_of_mut(&mut msg)).map(|()| Ok(msg))
    }
}

impl<T: ChunkedMessage> Codec<T> for Chunked {
    type Received = Sample<T>;
    fn slot_payload() -> u32 {
        DESCRIPTOR_BYTES
    }
    fn chunked() -> bool {
        true
    }
    fn decode(ep: &Arc<Endpoint>, c: u64) -> Step<Result<Sample<T>, RecvError>> {
        let (header, elem) = (
            std::mem::size_of::<T::Header>(),
            std::mem::size_of::<T::Elem>(),
        );
        read_chunk(ep, c, header, elem).map(|chunk| Ok(Sample::new(chunk)))
    }
}

impl<V> Codec<Msgpack<V>> for Serialized
where
    V: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    type Received = V;
    fn slot_payload() -> u32 {
        DESCRIPTOR_BYTES
    }
    fn chunked() -> bool {
        true
    }
    fn decode(ep: &Arc<Endpoint>, c: u64) -> Step<Result<V, RecvError>> {
        read_chunk(ep, c, 0, 1).map(|chunk| {
            // SAFETY: the chunk is pinned while `chunk` lives and `len` bytes were checked to
            // fit in it; the publisher finished writing before publishing the descriptor.
            let bytes = unsafe { std::slice::from_raw_parts(chunk.base(), chunk.len()) };
            rmp_serde::from_slice(bytes).map_err(|e| RecvError::Decode {
                topic: ep.shared.name.clone(),
                reason: e.to_string(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::from_micros(20);

    #[test]
    fn a_message_soon_after_the_wait_began_restores_the_whole_spin() {
        for now in [Duration::ZERO, Duration::from_micros(3), MAX] {
            assert_eq!(next_spin(now, MAX, Duration::from_micros(1)), MAX);
            assert_eq!(next_spin(now, MAX, MAX * 2), MAX);
        }
    }

    #[test]
    fn a_late_message_halves_the_spin_down_to_none() {
        let period = Duration::from_millis(1);
        let mut spin = MAX;
        let mut seen = vec![spin];
        while spin > Duration::ZERO {
            spin = next_spin(spin, MAX, period);
            seen.push(spin);
        }
        assert_eq!(seen[1], Duration::from_micros(10));
        assert_eq!(seen.len(), 7, "{seen:?}"); // 20, 10, 5, 2.5, 1.25 µs, 625 ns, 0
        assert_eq!(next_spin(Duration::ZERO, MAX, period), Duration::ZERO);
        assert_eq!(
            next_spin(Duration::ZERO, Duration::ZERO, period),
            Duration::ZERO
        );
    }
}
