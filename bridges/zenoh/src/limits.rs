//! What another host may make this one do: how much shared memory its topic metas may make
//! this bridge create (the limits are the configuration's, see [`crate::config`]), and how far
//! its sequence numbers may move the loss counters. Everything here judges numbers another
//! host chose.

use std::collections::{BTreeMap, VecDeque};

use nerve::msgs::MessageKind;
use nerve::raw::TopicMeta;

use crate::view::Refusal;
use crate::BridgeConfig;

/// The largest gap in a sender's sequence counted as messages lost: 2^20, some 17 minutes of a
/// 1 kHz topic through an outage. A larger jump forward, or any step back, is a discontinuity
/// (the sender's topic restarted, or a host lies) and is counted as a reset, never as that
/// many lost messages.
pub(crate) const MAX_SEQ_GAP: u64 = 1 << 20;

/// Senders whose sequence one imported topic follows at once (more: the oldest is forgotten,
/// so a host inventing bridge ids cannot grow the table).
const MAX_SENDERS: usize = 64;

/// Refusals kept for the view (the newest; all of them are counted).
pub(crate) const REFUSALS_KEPT: usize = 32;

const PAGE: u64 = 4096;

fn align_up(v: u64, a: u64) -> Option<u64> {
    Some(v.checked_add(a - 1)? & !(a - 1))
}

/// What the shared-memory segment of a topic created from `meta` takes here, in bytes: at
/// least as much as nerve lays out, and little more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Footprint {
    /// Allocated when the segment is created: the header, endpoint records and type
    /// description, the ring (its depth rounded up to a power of two), the chunk pool's
    /// bookkeeping. A fixed type's messages lie in the ring, so this is all of it.
    pub at_once: u64,
    /// A chunked or serialized type's chunks (2 × depth + 8, each a message's header and
    /// largest payload), allocated only as messages are written into them.
    pub pool: u64,
}

/// The footprint of a topic created from `meta` (see [`Footprint`]); `None`: it overflows.
pub(crate) fn footprint(meta: &TopicMeta) -> Option<Footprint> {
    let t = &meta.stored_type;
    let capacity = meta.depth.max(1).checked_next_power_of_two()?;
    // Header page, 64 endpoint records of 64 bytes, a type description of at most 64 KiB.
    let head = PAGE + 64 * 64 + (64 << 10) + PAGE;
    let fixed = MessageKind::from_raw(t.kind) == Some(MessageKind::Fixed);
    // A fixed message lies in its slot; any other kind puts a 16-byte descriptor there.
    let slot_payload = if fixed { u64::from(t.size) } else { 16 };
    let need = 16 + align_up(slot_payload, 8)?;
    let stride = if need <= 32 { 32 } else { align_up(need, 64)? };
    let ring = align_up(capacity.checked_mul(stride)?, PAGE)?;
    let (bookkeeping, pool) = if fixed {
        (0, 0)
    } else {
        let header = align_up(u64::from(t.size), 64)?;
        let chunk = align_up(
            header.checked_add((meta.max_payload_bytes as u64).max(1))?,
            PAGE,
        )?;
        let chunks = capacity.checked_mul(2)?.checked_add(8)?;
        // Per chunk a reference word and a holder bit per endpoint (8 bytes for 64).
        (16 * chunks + 2 * PAGE, chunks.checked_mul(chunk)?)
    };
    Some(Footprint {
        at_once: head.checked_add(ring)?.checked_add(bookkeeping)?,
        pool,
    })
}

/// What the bridge holds for other hosts now: topics imported, bytes their creation
/// allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Held {
    pub topics: usize,
    pub bytes: u64,
}

/// Why a remote topic is not imported.
#[derive(Debug, PartialEq)]
pub(crate) enum Refused {
    /// Larger than one topic may be: it never fits.
    TooLarge(String),
    /// No room now (the count or the total): it may fit once an imported topic goes.
    NoRoom(String),
}

/// Whether importing one more topic of footprint `f` (`Some` zero: it exists here already,
/// nothing is created) stays within `config`'s limits; the error says why, naming the limit
/// and its key.
pub(crate) fn admit(
    config: &BridgeConfig,
    held: Held,
    f: Option<Footprint>,
) -> Result<(), Refused> {
    let mib = |b: u64| b as f64 / f64::from(1 << 20);
    let Some(f) = f else {
        return Err(Refused::TooLarge(
            "its size overflows (a depth or message size no host can hold)".into(),
        ));
    };
    if f.at_once > config.max_topic_bytes {
        return Err(Refused::TooLarge(format!(
            "creating it would allocate {:.1} MiB, above the {:.1} MiB one imported topic may \
             (max_topic_mib)",
            mib(f.at_once),
            mib(config.max_topic_bytes)
        )));
    }
    if f.pool > config.max_topic_pool_bytes {
        return Err(Refused::TooLarge(format!(
            "its messages could fill {:.1} MiB of chunks, above the {:.1} MiB one imported \
             topic's pool may (max_topic_pool_mib)",
            mib(f.pool),
            mib(config.max_topic_pool_bytes)
        )));
    }
    if held.topics >= config.max_imported_topics {
        return Err(Refused::NoRoom(format!(
            "{} topics are imported already, the most this host takes (max_imported_topics)",
            held.topics
        )));
    }
    if held.bytes.saturating_add(f.at_once) > config.max_imported_bytes {
        return Err(Refused::NoRoom(format!(
            "creating it would allocate {:.1} MiB, and the topics imported already took {:.1} \
             MiB of the {:.1} MiB imported topics may take together (max_imported_mib)",
            mib(f.at_once),
            mib(held.bytes),
            mib(config.max_imported_bytes)
        )));
    }
    Ok(())
}

/// The refusals the view lists: the newest [`REFUSALS_KEPT`], one per topic and host, each
/// with how often it was refused.
#[derive(Debug, Default)]
pub(crate) struct Refusals {
    total: u64,
    kept: VecDeque<Refusal>,
}

impl Refusals {
    /// Notes that `topic` from `host` was refused for `reason`.
    pub(crate) fn note(&mut self, topic: &str, host: &str, reason: String) {
        self.total += 1;
        let count = match self
            .kept
            .iter()
            .position(|r| r.topic == topic && r.host == host)
        {
            Some(i) => self.kept.remove(i).map_or(1, |r| r.count + 1),
            None => 1,
        };
        if self.kept.len() >= REFUSALS_KEPT {
            self.kept.pop_front();
        }
        self.kept.push_back(Refusal {
            topic: topic.to_owned(),
            host: host.to_owned(),
            reason,
            count,
        });
    }

    /// All refusals counted, and the newest kept (oldest first).
    pub(crate) fn view(&self) -> (u64, Vec<Refusal>) {
        (self.total, self.kept.iter().cloned().collect())
    }
}

/// What a message's sequence number says about the ones before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The one expected (or the first of a sender).
    Next,
    /// This many went missing before it (at most [`MAX_SEQ_GAP`]).
    Lost(u64),
    /// A jump too far forward, or back: the sequence starts again here.
    Reset,
}

/// Per sending bridge, the sequence number expected next.
#[derive(Debug, Default)]
pub(crate) struct Sequences(BTreeMap<u64, u64>);

impl Sequences {
    /// Follows `sender`'s sequence to `seq`. A sender's first message here starts its
    /// sequence: what it sent before had no route to this host yet (a publisher that sends
    /// itself is heard a little after its first messages, which its host's bridge still
    /// carried), so no loss can be told from it.
    pub(crate) fn step(&mut self, sender: u64, seq: u64) -> Step {
        if !self.0.contains_key(&sender) && self.0.len() >= MAX_SENDERS {
            self.0.pop_first();
        }
        let expected = self.0.entry(sender).or_insert(seq);
        let step = match seq.checked_sub(*expected) {
            Some(0) => Step::Next,
            Some(gap) if gap <= MAX_SEQ_GAP => Step::Lost(gap),
            _ => Step::Reset,
        };
        *expected = seq.wrapping_add(1);
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nerve::msgs::Image;
    use nerve::raw::{stored_type, StoredType};

    fn blob(size: u32, depth: u64) -> TopicMeta {
        TopicMeta {
            stored_type: StoredType {
                name: "test/Blob".into(),
                kind: MessageKind::Fixed as u32,
                size,
                align: 8,
                elem_size: 0,
                layout_hash: 0x5eed,
            },
            reliability: nerve::Reliability::BestEffort,
            depth,
            max_payload_bytes: 0,
        }
    }

    #[test]
    fn the_footprint_covers_what_nerve_allocates_and_little_more() {
        use std::os::unix::fs::MetadataExt;
        let (d, _g) = nerve_testing::domain();
        let image = TopicMeta {
            stored_type: stored_type::<Image>(),
            reliability: nerve::Reliability::Reliable,
            depth: 4,
            max_payload_bytes: 1 << 20,
        };
        let metas = [
            ("est/small", blob(24, 16)),
            ("est/big", blob(65_536, 32)),
            ("est/odd", blob(100, 1000)),
            ("est/image", image),
        ];
        for (name, meta) in metas {
            let topic = meta.open(name, d, Vec::new()).unwrap();
            let file = std::fs::metadata(nerve_testing::hostile::segment_path(d, name)).unwrap();
            // Allocated now (what `du` counts), and the file's whole length.
            let (allocated, len) = (file.blocks() * 512, file.len());
            let f = footprint(&meta).unwrap();
            let slack = 160 << 10;
            assert!(
                allocated <= f.at_once && f.at_once <= allocated + slack,
                "{name}: {allocated} bytes allocated, estimated {f:?}"
            );
            assert!(
                len <= f.at_once + f.pool && f.at_once + f.pool <= len + slack,
                "{name}: {len} bytes long, estimated {f:?}"
            );
            drop(topic);
        }
        // The hostile meta of the issue: 65 536-byte messages at depth 8192, 512 MiB at once.
        assert!(footprint(&blob(65_536, 8192)).unwrap().at_once > 512 << 20);
        assert_eq!(footprint(&blob(8, u64::MAX)), None);
    }

    #[test]
    fn limits_refuse_by_size_then_count_then_total() {
        let c = BridgeConfig {
            max_topic_bytes: 10,
            max_topic_pool_bytes: 100,
            max_imported_bytes: 25,
            max_imported_topics: 3,
            ..BridgeConfig::new()
        };
        let held = |topics, bytes| Held { topics, bytes };
        let f = |at_once, pool| Some(Footprint { at_once, pool });
        let large = |r, key| matches!(r, Err(Refused::TooLarge(m)) if m.contains(key));
        let no_room = |r, key| matches!(r, Err(Refused::NoRoom(m)) if m.contains(key));
        assert_eq!(admit(&c, held(0, 0), f(10, 100)), Ok(()));
        assert!(large(admit(&c, held(3, 20), f(11, 0)), "max_topic_mib"));
        assert!(large(
            admit(&c, held(3, 20), f(1, 101)),
            "max_topic_pool_mib"
        ));
        assert!(no_room(
            admit(&c, held(3, 0), f(0, 0)),
            "max_imported_topics"
        ));
        assert!(no_room(admit(&c, held(2, 20), f(6, 0)), "max_imported_mib"));
        assert_eq!(admit(&c, held(2, 20), f(0, 0)), Ok(()));
        assert!(matches!(
            admit(&c, held(0, 0), None),
            Err(Refused::TooLarge(_))
        ));
    }

    #[test]
    fn sequence_gaps_are_bounded() {
        let mut s = Sequences::default();
        let a = 1;
        assert_eq!(s.step(a, 0), Step::Next);
        assert_eq!(s.step(a, 5), Step::Lost(4));
        assert_eq!(s.step(2, 7), Step::Next, "a sender first heard at 7");
        assert_eq!(s.step(2, 9), Step::Lost(1));
        assert_eq!(s.step(a, u64::MAX), Step::Reset);
        assert_eq!(s.step(a, 0), Step::Next, "wrapped to 0");
        assert_eq!(s.step(a, 1 + MAX_SEQ_GAP), Step::Lost(MAX_SEQ_GAP));
        assert_eq!(s.step(a, 3), Step::Reset, "back: the sender restarted");
        for id in 0..1000u64 {
            s.step(id, 0);
        }
        assert!(s.0.len() <= MAX_SENDERS);
    }

    #[test]
    fn refusals_keep_the_newest_one_per_topic_and_host() {
        let mut r = Refusals::default();
        r.note("a", "h", "big".into());
        r.note("a", "h", "big".into());
        for i in 0..40 {
            r.note(&format!("t{i}"), "h", "many".into());
        }
        let (total, kept) = r.view();
        assert_eq!(total, 42);
        assert_eq!(kept.len(), REFUSALS_KEPT);
        assert_eq!(kept.last().unwrap().topic, "t39");
        assert!(kept.iter().all(|k| k.topic != "a"));
    }
}
