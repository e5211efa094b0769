//! The ledger: one shared file per workload where every process keeps its counters, so that a
//! `kill -9` loses none of them.
//!
//! A report printed every N ms loses whatever happened since the last one when its process is
//! killed; a counter stored in shared memory after each message does not: the kernel keeps
//! the page, and every store the process made before it died is there when the parent reads
//! the file after reaping it. So the ledger, not stdout, is where the soak counts.
//!
//! Layout: records of [`WORDS`] `u64`s (128 bytes, so two processes never share a cache
//! line). Record 0 is the header the parent writes ([`STOP`], [`TARGET`]); record `1 + k`
//! belongs to the child in slot `k` (a publisher's slot is also the sender id in its
//! messages). Each word has one writer: the parent for the header and for a slot's [`ROLE`]
//! and [`CMD`], the slot's child for everything else.
//!
//! Every access is `Relaxed`. Counters are read by the parent after the child was reaped
//! (`waitpid` orders them) or for progress only; a subscriber reads a publisher's [`BEGUN`]
//! after receiving that publisher's message, whose Release commit in the ring comes after the
//! publisher's store of `BEGUN`, and the subscriber's Acquire read of the slot orders it.

use anyhow::{bail, Context, Result};
use nerve_testing::mapping::SharedMapping;
use std::fs::{File, OpenOptions};
use std::path::Path;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Words per record.
pub const WORDS: usize = 16;
const RECORD_BYTES: usize = WORDS * 8;
const MAGIC: u64 = 0x6e65_7276_6553_4f4b; // "nervSOK"

// Header words (record 0).
/// Header: 1 once publishers must finish.
pub const STOP: usize = 1;
/// Header: the ring index every subscriber that started at 0 must reach (`u64::MAX`: not yet).
pub const TARGET: usize = 2;
/// Header: number of slots.
const SLOTS: usize = 3;

// Slot words, for every role.
/// The child's progress: one of the `STATE_*` values.
pub const STATE: usize = 0;
/// A command from the parent: 0 (none) or `CMD_HOLD`.
pub const CMD: usize = 1;
/// Set by the parent before the child starts: `ROLE_PUB` or `ROLE_SUB`.
pub const ROLE: usize = 2;

// Publisher words.
/// Sequence of the message being sent + 1: stored before `send` (or `loan`) is called.
pub const BEGUN: usize = 3;
/// Messages whose `send` returned `Ok`: stored after it returned.
pub const DONE: usize = 4;
/// Sends refused as `Full` (reliable topics; retried).
pub const FULL: usize = 5;
/// Loans refused as `PoolExhausted` (retried).
pub const EXHAUSTED: usize = 6;

// Subscriber words: nerve's own counters (`SubscriberStats`) as of the last message checked...
/// `SubscriberStats::received`.
pub const RECEIVED: usize = 3;
/// `SubscriberStats::lost`.
pub const LOST: usize = 4;
/// `SubscriberStats::dropped`.
pub const DROPPED: usize = 5;
/// `SubscriberStats::corrupt`.
pub const CORRUPT_SKIPPED: usize = 6;
// ...and what the subscriber's own checks found.
/// Messages delivered whose bytes were not what their sender wrote.
pub const CORRUPT_DELIVERED: usize = 7;
/// Messages out of order for their sender (a repeat, a step back, or a gap on a reliable
/// topic).
pub const DISORDER: usize = 8;
/// Messages naming a sender or sequence that was never sent.
pub const PHANTOM: usize = 9;
/// Messages delivered and checked good.
pub const VERIFIED: usize = 10;

/// Spawned, not yet ready.
pub const STATE_STARTING: u64 = 0;
/// Topic open, endpoint created, running.
pub const STATE_READY: u64 = 1;
/// Holding a loan or a sample on the parent's command, waiting to be killed.
pub const STATE_HOLDING: u64 = 2;
/// Finished cleanly.
pub const STATE_DONE: u64 = 3;

/// Take a loan (publisher) or keep the next sample (subscriber), then stop and wait.
pub const CMD_HOLD: u64 = 1;

/// A publisher's slot.
pub const ROLE_PUB: u64 = 1;
/// A subscriber's slot.
pub const ROLE_SUB: u64 = 2;

/// A mapped ledger file.
pub struct Ledger {
    base: NonNull<AtomicU64>,
    slots: usize,
    _map: SharedMapping,
}

impl Ledger {
    /// Creates a ledger of `slots` records at `path` (a new file; pages are only backed
    /// when touched).
    pub fn create(path: &Path, slots: usize) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("creating the soak ledger {}", path.display()))?;
        let len = (slots + 1) * RECORD_BYTES;
        file.set_len(len as u64)
            .with_context(|| format!("sizing the soak ledger {}", path.display()))?;
        let ledger = Self::map(file, len, path)?;
        ledger.header(SLOTS).store(slots as u64, Relaxed);
        ledger.header(TARGET).store(u64::MAX, Relaxed);
        ledger.header(0).store(MAGIC, Relaxed);
        Ok(ledger)
    }

    /// Opens the ledger the parent created.
    pub fn open(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .with_context(|| format!("opening the soak ledger {}", path.display()))?;
        let len = file.metadata()?.len() as usize;
        if len < RECORD_BYTES || !len.is_multiple_of(RECORD_BYTES) {
            bail!("soak ledger {} has a bad size {len}", path.display());
        }
        let ledger = Self::map(file, len, path)?;
        let slots = ledger.header(SLOTS).load(Relaxed) as usize;
        if ledger.header(0).load(Relaxed) != MAGIC || (slots + 1) * RECORD_BYTES != len {
            bail!("{} is not a soak ledger", path.display());
        }
        Ok(ledger)
    }

    fn map(file: File, len: usize, path: &Path) -> Result<Self> {
        let map = SharedMapping::new(&file, len)
            .with_context(|| format!("mapping the soak ledger {}", path.display()))?;
        Ok(Self {
            base: map.ptr().cast(),
            slots: len / RECORD_BYTES - 1,
            _map: map,
        })
    }

    fn word(&self, record: usize, word: usize) -> &AtomicU64 {
        assert!(
            record <= self.slots && word < WORDS,
            "ledger index out of range"
        );
        // SAFETY: in bounds (checked above) of a page-aligned mapping that lives as long as
        // `self`; every process touches these words only through atomics.
        unsafe { &*self.base.as_ptr().add(record * WORDS + word) }
    }

    /// Header word `word`.
    pub fn header(&self, word: usize) -> &AtomicU64 {
        self.word(0, word)
    }

    /// Word `word` of slot `slot`.
    pub fn slot(&self, slot: u32, word: usize) -> &AtomicU64 {
        self.word(slot as usize + 1, word)
    }

    /// Word `word` of slot `slot` if the slot exists (a sender id read from a message is
    /// untrusted).
    pub fn get(&self, slot: u32, word: usize) -> Option<u64> {
        ((slot as usize) < self.slots).then(|| self.slot(slot, word).load(Relaxed))
    }

    /// Adds one to a slot's counter (only its child writes it: no read-modify-write needed).
    pub fn bump(&self, slot: u32, word: usize) {
        let w = self.slot(slot, word);
        w.store(w.load(Relaxed) + 1, Relaxed);
    }

    /// A copy of slot `slot`'s words.
    pub fn snapshot(&self, slot: u32) -> [u64; WORDS] {
        std::array::from_fn(|w| self.slot(slot, w).load(Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_mappings_see_each_others_stores() {
        let dir = std::env::temp_dir().join(format!("nerve-soak-ledger-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let a = Ledger::create(&dir, 4).unwrap();
        let b = Ledger::open(&dir).unwrap();
        assert_eq!(b.header(TARGET).load(Relaxed), u64::MAX);
        a.bump(3, DONE);
        a.bump(3, DONE);
        assert_eq!(b.get(3, DONE), Some(2));
        assert_eq!(b.get(4, DONE), None);
        std::fs::remove_file(&dir).unwrap();
    }
}
