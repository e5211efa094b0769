//! What the soak sends, how a receiver recomputes what it should have got, and how every
//! process of a workload opens its topic (the parent and each child open it the same way).
//!
//! Every message names its sender (the publisher's ledger slot: a restarted publisher gets a
//! new slot, so per-sender sequences restart at 0 and stay exact) and its sequence number; all
//! its other bytes are derived from those two with `nerve_testing::payload`, so a receiver
//! checks every byte of what it got.

use nerve::Topic;
use nerve_testing::payload::{fill, mix};
use serde::{Deserialize, Serialize};

/// 64 bytes: sender, sequence, five pattern words and a checksum of all of them.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/Soak64", default = "zeroed")]
#[repr(C)]
pub struct Soak64 {
    /// The publisher's ledger slot.
    pub publisher: u32,
    /// Always 0.
    pub _pad: u32,
    /// Per-publisher sequence, from 0.
    pub seq: u64,
    /// `mix(publisher, seq, i)`.
    pub data: [u64; 5],
    /// Rotate-xor of (publisher ^ seq) and the data words.
    pub check: u64,
}

/// Who sent it and what the bytes must be.
#[derive(Clone, Copy, Debug, PartialEq, nerve::Message)]
#[message(name = "nerve-bench/SoakBlob", chunked(elem = u8, message = SoakBlob, doc = "1 B – 256 KiB of pattern bytes in a shared chunk, loaned and filled in place."), default = "zeroed")]
#[repr(C)]
pub struct SoakBlobHeader {
    /// The publisher's ledger slot.
    pub publisher: u32,
    /// Always 0.
    pub _pad: u32,
    /// Per-publisher sequence, from 0.
    pub seq: u64,
    /// FNV-1a of every data byte, computed by the sender over what it wrote.
    pub check: u64,
}

/// Largest blob, in bytes.
pub const BLOB_MAX: usize = 256 << 10;

/// Fixed message `seq` of `publisher`, as it must arrive.
pub fn soak64(publisher: u32, seq: u64) -> Soak64 {
    let data: [u64; 5] = std::array::from_fn(|i| mix(publisher, seq, i as u64));
    let check = data
        .iter()
        .fold(u64::from(publisher) ^ seq, |a, &w| a.rotate_left(7) ^ w);
    Soak64 {
        publisher,
        _pad: 0,
        seq,
        data,
        check,
    }
}

/// Length in bytes of blob `seq` of `publisher`: 1 ..= 256 KiB, spread evenly.
pub fn blob_len(publisher: u32, seq: u64) -> usize {
    1 + (mix(publisher, seq, 0xB10B) % BLOB_MAX as u64) as usize
}

/// Writes the bytes of blob `seq` of `publisher` (its length is `data.len()`).
pub fn blob_fill(publisher: u32, seq: u64, data: &mut [u8]) {
    fill(publisher, seq, data);
}

/// What a workload carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// [`Soak64`], copied through the ring.
    Fixed,
    /// [`SoakBlob`], loaned from the chunk pool.
    Blob,
}

/// The topic one workload runs on: every process opens it with these parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicSpec {
    /// Topic name.
    pub name: String,
    /// The run's domain.
    pub domain: u32,
    /// What it carries.
    pub kind: Kind,
    /// Reliable (publishers wait for the slowest live subscriber) or best effort.
    pub reliable: bool,
}

impl TopicSpec {
    /// Ring depth: deep for best-effort fixed messages (subscribers fall behind on a loaded
    /// machine), shallower for reliable ones (publishers wait), 8 for blobs.
    pub fn depth(&self) -> u32 {
        match (self.kind, self.reliable) {
            (Kind::Fixed, false) => 1024,
            (Kind::Fixed, true) => 256,
            (Kind::Blob, _) => 8,
        }
    }

    /// The fixed-message topic.
    pub fn open_fixed(&self) -> anyhow::Result<Topic<Soak64>> {
        let b = Topic::<Soak64>::builder(&self.name)
            .domain(self.domain)
            .depth(self.depth());
        Ok(if self.reliable {
            b.reliable()
        } else {
            b.best_effort()
        }
        .open()?)
    }

    /// The blob topic (chunks of up to [`BLOB_MAX`] bytes, the default pool of 2 × depth + 8).
    pub fn open_blob(&self) -> anyhow::Result<Topic<SoakBlob>> {
        let b = Topic::<SoakBlob>::builder(&self.name)
            .domain(self.domain)
            .depth(self.depth())
            .max_message_bytes(BLOB_MAX);
        Ok(if self.reliable {
            b.reliable()
        } else {
            b.best_effort()
        }
        .open()?)
    }
}

/// An open topic of either kind (the parent keeps one open for the whole workload, so the
/// segment is never rebuilt while every child happens to be dead).
pub enum AnyTopic {
    /// Fixed messages.
    Fixed(Topic<Soak64>),
    /// Blobs.
    Blob(Topic<SoakBlob>),
}

impl AnyTopic {
    /// Opens `spec`'s topic.
    pub fn open(spec: &TopicSpec) -> anyhow::Result<Self> {
        Ok(match spec.kind {
            Kind::Fixed => AnyTopic::Fixed(spec.open_fixed()?),
            Kind::Blob => AnyTopic::Blob(spec.open_blob()?),
        })
    }

    /// Frees what dead processes hold, then (chunks in use, chunks in the pool) for blob
    /// topics.
    pub fn reclaim_and_count_chunks(&self) -> Option<(u32, u32)> {
        match self {
            AnyTopic::Fixed(t) => {
                t.reclaim_dead();
                None
            }
            AnyTopic::Blob(t) => {
                t.reclaim_dead();
                t.chunks_in_use()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_differ_by_sender_and_sequence() {
        assert_ne!(soak64(1, 7), soak64(2, 7));
        assert_ne!(soak64(1, 7), soak64(1, 8));
        assert_eq!(std::mem::size_of::<Soak64>(), 64);
        let lens: Vec<usize> = (0..1000).map(|s| blob_len(3, s)).collect();
        assert!(lens.iter().all(|&l| (1..=BLOB_MAX).contains(&l)));
        assert!(lens.iter().any(|&l| l < BLOB_MAX / 4) && lens.iter().any(|&l| l > BLOB_MAX / 2));
    }
}
