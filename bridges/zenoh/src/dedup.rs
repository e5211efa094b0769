//! One of each message. During a hand-over between the host bridge and the publishing process
//! (see `direct`) both may send a message; each names it by its ring and its index there
//! ([`Attachment`](crate::wire::Attachment)), and the receiver delivers the first copy only.

use std::collections::BTreeMap;

/// Indexes remembered behind the newest per ring. A copy older than that is taken for a
/// duplicate: the bridge's copies trail the publisher's by far less (its subscriber reads the
/// ring as it is written; a reliable ring holds the publisher back before it laps it).
pub(crate) const WINDOW: u64 = 4096;

/// Rings followed at once (the oldest is forgotten past it: a hostile host cannot make this
/// grow).
const MAX_RINGS: usize = 1024;

/// The messages seen per ring.
#[derive(Default)]
pub(crate) struct Seen(BTreeMap<u64, Window>);

struct Window {
    top: u64,
    bits: Box<[u64; (WINDOW / 64) as usize]>,
}

impl Window {
    fn bit(&mut self, index: u64) -> (&mut u64, u64) {
        let i = index % WINDOW;
        (&mut self.bits[(i / 64) as usize], 1 << (i % 64))
    }

    fn first(&mut self, index: u64) -> bool {
        if index > self.top {
            if index - self.top >= WINDOW {
                self.bits.fill(0);
            } else {
                for i in self.top + 1..index {
                    let (w, b) = self.bit(i);
                    *w &= !b;
                }
            }
            self.top = index;
            let (w, b) = self.bit(index);
            *w |= b;
            return true;
        }
        if self.top - index >= WINDOW {
            return false;
        }
        let (w, b) = self.bit(index);
        let new = *w & b == 0;
        *w |= b;
        new
    }
}

impl Seen {
    /// Whether message `index` of `ring` comes here for the first time.
    pub(crate) fn first(&mut self, ring: u64, index: u64) -> bool {
        if let Some(w) = self.0.get_mut(&ring) {
            return w.first(index);
        }
        if self.0.len() >= MAX_RINGS {
            self.0.pop_first();
        }
        let mut w = Window {
            top: index,
            bits: Box::new([0; (WINDOW / 64) as usize]),
        };
        let (word, b) = w.bit(index);
        *word |= b;
        self.0.insert(ring, w);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_once_in_any_order_per_ring() {
        let mut s = Seen::default();
        // The publisher's copies, then the bridge's trailing copies of the same: none again.
        for i in 10..20 {
            assert!(s.first(7, i));
        }
        for i in 5..20 {
            assert_eq!(s.first(7, i), i < 10, "index {i}");
        }
        // Out of order inside the window, each once.
        assert!(s.first(7, 25));
        assert!(s.first(7, 22));
        assert!(!s.first(7, 22));
        assert!(s.first(7, 21));
        // Another ring (the topic created again) starts afresh.
        assert!(s.first(8, 0));
        assert!(!s.first(8, 0));
        // A jump past the window forgets the old ones; those older than the window are dups.
        assert!(s.first(7, 25 + WINDOW + 3));
        assert!(!s.first(7, 24));
        assert!(s.first(7, 25 + WINDOW + 1));
    }

    #[test]
    fn a_hostile_host_cannot_grow_it() {
        let mut s = Seen::default();
        for r in 0..(MAX_RINGS as u64 * 3) {
            assert!(s.first(r, u64::MAX - r));
        }
        assert_eq!(s.0.len(), MAX_RINGS);
    }
}
