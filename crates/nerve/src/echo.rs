//! No echo loops, for bridges (Zenoh's, ROS 2's): a message a bridge brought in from outside is
//! published into the local topic, where the bridge's own exporter, an ordinary subscriber,
//! sees it again. The importer notes a hash of each message it publishes; the exporter skips a
//! message whose hash it finds noted. So every message leaves only from where it was
//! published, however many bridges see each other.
//!
//! The exporter reads the topic in order, so the noted hashes come back in the order they were
//! noted; a message the exporter missed (lapped in the ring) leaves its hash behind, dropped
//! when a later one matches. A local message identical to a pending imported one, byte for
//! byte, may be taken for it: then the identical imported one leaves instead (the same bytes
//! go out once either way).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// How many imported messages may wait to be seen by the exporter (more: the oldest notes are
/// dropped, so a stalled exporter cannot make this grow).
const MAX_PENDING: usize = 1024;

/// The hashes of messages imported into one topic, not yet seen by its exporter.
#[derive(Debug, Default)]
pub struct EchoFilter {
    pending: Mutex<VecDeque<u64>>,
    /// `pending`'s length, read without the lock on every exported message.
    waiting: AtomicUsize,
    /// An exporter reads the topic (else an importer need not note anything).
    watched: AtomicBool,
}

/// The hash the filter keys messages by (of the bytes as they travel).
pub fn hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// [`hash`] of the bytes these slices hold one after another (a message as the network
/// delivers it, in fragments), without joining them first.
pub fn hash_slices<'a>(slices: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for s in slices {
        h.update(s);
    }
    h.digest()
}

/// The key of a message given as its fixed part and payload (a chunk's header and its data,
/// without the padding between them): the same however the message was written, so a
/// publisher can note it before sending and a subscriber find it on receipt.
pub fn hash_parts(fixed: &[u8], payload: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(fixed);
    h.update(payload);
    h.digest()
}

impl EchoFilter {
    /// The importer published a message with this hash.
    pub fn imported(&self, hash: u64) {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if p.len() == MAX_PENDING {
            p.pop_front();
        }
        p.push_back(hash);
        // Relaxed: the importer stores this before it publishes the message, and the
        // exporter loads it after receiving that message: the topic's ring (release on
        // publish, acquire on receive) is what pairs them.
        self.waiting.store(p.len(), Relaxed);
    }

    /// An exporter starts reading the topic: from now on the importer notes what it publishes.
    pub fn watch(&self) {
        // Relaxed: a flag with no data behind it; a message imported before the exporter's
        // first receive is at worst sent back out once.
        self.watched.store(true, Relaxed);
    }

    /// Whether an exporter reads the topic (see [`EchoFilter::watch`]); an importer whose
    /// topic nobody exports need not hash its messages.
    pub fn is_watched(&self) -> bool {
        // Relaxed: see `watch`.
        self.watched.load(Relaxed)
    }

    /// Whether imported messages wait to be seen (if not, the exporter need not hash); no lock.
    pub fn has_pending(&self) -> bool {
        // Relaxed: see `imported`.
        self.waiting.load(Relaxed) > 0
    }

    /// The exporter read a message with this hash: true when it was imported (do not send it
    /// back out).
    pub fn is_echo(&self, hash: u64) -> bool {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        match p.iter().position(|h| *h == hash) {
            Some(i) => {
                // The ones before it were imported but never seen (lapped): forget them.
                p.drain(..=i);
                // Relaxed: see `imported` (this side only shrinks it, under the lock).
                self.waiting.store(p.len(), Relaxed);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_in_fragments_hashes_as_it_does_whole() {
        let whole: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let parts = [
            &whole[..1],
            &whole[1..4096],
            &whole[4096..4096],
            &whole[4096..],
        ];
        assert_eq!(hash_slices(parts), hash(&whole));
        assert_ne!(hash_slices([&whole[..9_999]]), hash(&whole));
    }

    #[test]
    fn imported_messages_are_echoes_once_local_ones_are_not() {
        let f = EchoFilter::default();
        f.imported(1);
        f.imported(2);
        assert!(!f.is_echo(9), "a local message");
        assert!(f.is_echo(1));
        assert!(!f.is_echo(1), "an echo is skipped once");
        assert!(f.is_echo(2));
    }

    #[test]
    fn a_lapped_import_is_forgotten_at_the_next_match() {
        let f = EchoFilter::default();
        f.imported(1);
        f.imported(2);
        f.imported(3);
        assert!(f.is_echo(3), "1 and 2 were lapped");
        assert!(!f.is_echo(1) && !f.is_echo(2));
    }

    #[test]
    fn pending_notes_are_bounded() {
        let f = EchoFilter::default();
        for h in 0..(MAX_PENDING as u64 + 10) {
            f.imported(h);
        }
        assert!(!f.is_echo(0), "the oldest note was dropped");
        assert!(f.is_echo(MAX_PENDING as u64 + 9));
    }
}
