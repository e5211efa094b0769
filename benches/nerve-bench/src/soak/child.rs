//! The child processes of a soak: this binary re-executed as `__soak-child --spec JSON`, one
//! publisher or subscriber of one workload each.
//!
//! Counters go to the [ledger](super::ledger) after every message; stdout (a file the parent
//! reads after the child is gone) carries the line protocol: `BAD …` the moment a check fails
//! (at most [`MAX_BAD_LINES`] lines, every case counted in the ledger), `ERROR …` when nerve
//! returned an error, and on a clean exit one `FINAL …` line — for a subscriber, what it saw
//! of each sender as `slot:first:last:count`.

use super::ledger::*;
use super::message::{blob_fill, blob_len, soak64, Kind, Soak64, SoakBlobHeader};
use super::message::{TopicSpec, BLOB_MAX};
use anyhow::{bail, Result};
use nerve::{SendError, SubscriberStats};
use nerve_testing::payload::fnv1a;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// Most `BAD` lines one child prints (the ledger counts them all).
pub const MAX_BAD_LINES: u64 = 20;

/// Publisher or subscriber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// Sends as fast as it can until the parent says stop.
    Pub,
    /// Receives and checks every message until the parent says the stream is complete.
    Sub,
}

/// What one child does: passed as JSON on its command line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ChildSpec {
    /// The workload's topic.
    pub topic: TopicSpec,
    /// Publisher or subscriber.
    pub role: Role,
    /// The workload's ledger file.
    pub ledger: PathBuf,
    /// This child's ledger slot (a publisher's sender id).
    pub slot: u32,
    /// The parent's pid: a child whose parent is gone exits at once.
    pub parent: u32,
    /// Subscriber created before any message was published: it sees every ring index, so it
    /// must account for every one of them.
    pub from_start: bool,
}

/// `nerve-bench __soak-child --spec JSON`.
pub fn child_main(spec: &str) -> Result<()> {
    let spec: ChildSpec = serde_json::from_str(spec)?;
    // The parent set PR_SET_PDEATHSIG before exec; if it died before that, nobody would
    // kill us: check once here.
    // SAFETY: getppid has no preconditions.
    if unsafe { libc::getppid() } as u32 != spec.parent {
        bail!("soak parent {} is gone", spec.parent);
    }
    let ledger = Ledger::open(&spec.ledger)?;
    let c = Ctx {
        ledger: &ledger,
        spec: &spec,
    };
    let result = match (spec.role, spec.topic.kind) {
        (Role::Pub, Kind::Fixed) => c.publish_fixed(),
        (Role::Pub, Kind::Blob) => c.publish_blobs(),
        (Role::Sub, Kind::Fixed) => c.subscribe_fixed(),
        (Role::Sub, Kind::Blob) => c.subscribe_blobs(),
    };
    let mut out = std::io::stdout().lock();
    let final_line = match result {
        Ok(line) => line,
        Err(e) => {
            // For the parent's summary; main prints it on stderr too.
            let _ = writeln!(out, "ERROR {e:#}");
            let _ = out.flush();
            return Err(e);
        }
    };
    writeln!(out, "FINAL {final_line}")?;
    out.flush()?;
    ledger.slot(spec.slot, STATE).store(STATE_DONE, Relaxed);
    Ok(())
}

struct Ctx<'a> {
    ledger: &'a Ledger,
    spec: &'a ChildSpec,
}

impl Ctx<'_> {
    fn word(&self, w: usize) -> &std::sync::atomic::AtomicU64 {
        self.ledger.slot(self.spec.slot, w)
    }

    fn stopping(&self) -> bool {
        self.ledger.header(STOP).load(Relaxed) != 0
    }

    fn hold_asked(&self) -> bool {
        self.word(CMD).load(Relaxed) == CMD_HOLD
    }

    /// Says so in the ledger, then waits to be killed (holding whatever the caller holds).
    fn hold_forever(&self) -> ! {
        self.word(STATE).store(STATE_HOLDING, Relaxed);
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }

    fn publish_fixed(&self) -> Result<String> {
        let topic = self.spec.topic.open_fixed()?;
        let mut p = topic.publisher()?;
        // Short, so a publisher waiting for room on a reliable topic sees `STOP` soon.
        p.set_timeout(Duration::from_millis(200));
        self.word(STATE).store(STATE_READY, Relaxed);
        let me = self.spec.slot;
        let mut seq = 0u64;
        while !self.stopping() {
            self.word(BEGUN).store(seq + 1, Relaxed);
            match p.send(&soak64(me, seq)) {
                Ok(()) => {
                    seq += 1;
                    self.word(DONE).store(seq, Relaxed);
                }
                Err(SendError::Full { .. }) => self.ledger.bump(me, FULL),
                Err(e) => return Err(e.discard().into()),
            }
        }
        // A retry cut short by STOP claimed nothing.
        self.word(BEGUN).store(seq, Relaxed);
        Ok(format!("pub slot={me} sent={seq}"))
    }

    fn publish_blobs(&self) -> Result<String> {
        let topic = self.spec.topic.open_blob()?;
        let mut p = topic.publisher()?;
        p.set_timeout(Duration::from_millis(200));
        self.word(STATE).store(STATE_READY, Relaxed);
        let me = self.spec.slot;
        let mut seq = 0u64;
        while !self.stopping() {
            self.word(BEGUN).store(seq + 1, Relaxed);
            let len = blob_len(me, seq);
            let mut loan = match p.loan(len) {
                Ok(l) => l,
                Err(SendError::PoolExhausted { .. }) => {
                    self.ledger.bump(me, EXHAUSTED);
                    std::thread::sleep(Duration::from_micros(200));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if self.hold_asked() {
                // Killed mid-loan: the chunk is ours and half written.
                blob_fill(me, seq, &mut loan.data_mut()[..len / 2]);
                self.hold_forever();
            }
            blob_fill(me, seq, loan.data_mut());
            let check = fnv1a(loan.data_mut());
            *loan.header_mut() = SoakBlobHeader {
                publisher: me,
                _pad: 0,
                seq,
                check,
            };
            match loan.send() {
                Ok(()) => {
                    seq += 1;
                    self.word(DONE).store(seq, Relaxed);
                }
                Err(SendError::Full { .. }) => self.ledger.bump(me, FULL),
                Err(e) => return Err(e.into()),
            }
        }
        self.word(BEGUN).store(seq, Relaxed);
        Ok(format!("pub slot={me} sent={seq}"))
    }

    fn subscribe_fixed(&self) -> Result<String> {
        let topic = self.spec.topic.open_fixed()?;
        let mut s = topic.subscriber()?;
        let mut check = Checker::new(self);
        self.word(STATE).store(STATE_READY, Relaxed);
        loop {
            let got = match s.recv_timeout(Duration::from_millis(50))? {
                Some(m) => {
                    check.fixed(&m);
                    true
                }
                None => false,
            };
            if check.store_and_done(s.stats(), got) {
                return Ok(check.final_line());
            }
        }
    }

    fn subscribe_blobs(&self) -> Result<String> {
        let topic = self.spec.topic.open_blob()?;
        let mut s = topic.subscriber()?;
        let mut check = Checker::new(self);
        let mut expect = vec![0u8; BLOB_MAX];
        self.word(STATE).store(STATE_READY, Relaxed);
        loop {
            let got = match s.recv_timeout(Duration::from_millis(50))? {
                Some(sample) => {
                    check.blob(sample.header(), sample.data(), &mut expect);
                    if self.hold_asked() {
                        // Killed while holding a sample: its chunk stays pinned by us.
                        check.store_and_done(s.stats(), true);
                        let _held = sample;
                        self.hold_forever();
                    }
                    true
                }
                None => false,
            };
            if check.store_and_done(s.stats(), got) {
                return Ok(check.final_line());
            }
        }
    }
}

/// What one subscriber saw of one sender.
#[derive(Clone, Copy)]
struct Seen {
    first: u64,
    last: u64,
    count: u64,
}

/// A subscriber's checks: bytes, sender, order; results into the ledger.
struct Checker<'a> {
    ctx: &'a Ctx<'a>,
    seen: Vec<Option<Seen>>,
    bad_lines: u64,
}

impl<'a> Checker<'a> {
    fn new(ctx: &'a Ctx<'a>) -> Self {
        Self {
            ctx,
            seen: Vec::new(),
            bad_lines: 0,
        }
    }

    /// Counts a failed check in the ledger at once, then says what it was on stdout.
    fn bad(&mut self, word: usize, what: std::fmt::Arguments) {
        self.ctx.ledger.bump(self.ctx.spec.slot, word);
        if self.bad_lines < MAX_BAD_LINES {
            self.bad_lines += 1;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "BAD slot={} {what}", self.ctx.spec.slot);
            let _ = out.flush();
        }
    }

    fn fixed(&mut self, m: &Soak64) {
        let want = soak64(m.publisher, m.seq);
        if *m != want {
            let words: &[u64] = bytemuck::cast_slice(bytemuck::bytes_of(m));
            self.bad(
                CORRUPT_DELIVERED,
                format_args!(
                    "corrupt publisher={} seq={} words={words:x?} check_expected={:x}",
                    m.publisher, m.seq, want.check
                ),
            );
            return;
        }
        self.sequence(m.publisher, m.seq);
    }

    fn blob(&mut self, h: &SoakBlobHeader, data: &[u8], expect: &mut [u8]) {
        let len = blob_len(h.publisher, h.seq);
        let ok_len = data.len() == len;
        let fnv = fnv1a(data);
        blob_fill(h.publisher, h.seq, &mut expect[..len]);
        let ok_bytes = ok_len && data == &expect[..len];
        if !ok_len || fnv != h.check || !ok_bytes {
            let first_diff = (0..data.len().min(len)).find(|&i| data[i] != expect[i]);
            self.bad(
                CORRUPT_DELIVERED,
                format_args!(
                    "corrupt publisher={} seq={} len={} expected_len={len} fnv={fnv:x} header_check={:x} first_bad_byte={first_diff:?}",
                    h.publisher, h.seq, data.len(), h.check
                ),
            );
            return;
        }
        self.sequence(h.publisher, h.seq);
    }

    /// Sender and order checks of a message whose bytes are right.
    fn sequence(&mut self, p: u32, seq: u64) {
        let ledger = self.ctx.ledger;
        let begun = ledger.get(p, BEGUN).unwrap_or(0);
        if ledger.get(p, ROLE) != Some(ROLE_PUB) || seq >= begun {
            self.bad(
                PHANTOM,
                format_args!("phantom publisher={p} seq={seq} sender_begun={begun}"),
            );
            return;
        }
        let reliable = self.ctx.spec.topic.reliable;
        let i = p as usize;
        if self.seen.len() <= i {
            self.seen.resize(i + 1, None);
        }
        let in_order = match self.seen[i] {
            // A subscriber that predates every sender sees a reliable stream from its start.
            None => !reliable || !self.ctx.spec.from_start || seq == 0,
            Some(s) if reliable => seq == s.last + 1,
            Some(s) => seq > s.last,
        };
        if !in_order {
            let last = self.seen[i].map(|s| s.last);
            self.bad(
                DISORDER,
                format_args!("disorder publisher={p} seq={seq} previous={last:?}"),
            );
        }
        let s = self.seen[i].get_or_insert(Seen {
            first: seq,
            last: seq,
            count: 0,
        });
        s.last = s.last.max(seq);
        s.count += 1;
        ledger.bump(self.ctx.spec.slot, VERIFIED);
    }

    /// Stores nerve's counters; says whether the subscriber is done: the parent set the
    /// target after every publisher left, and this subscriber reached it (one that started
    /// at index 0) or found nothing more (one that started later: it cannot know its start).
    fn store_and_done(&self, st: SubscriberStats, got: bool) -> bool {
        let w = |i, v| self.ctx.word(i).store(v, Relaxed);
        w(RECEIVED, st.received);
        w(LOST, st.lost);
        w(DROPPED, st.dropped);
        w(CORRUPT_SKIPPED, st.corrupt);
        let target = self.ctx.ledger.header(TARGET).load(Relaxed);
        if target == u64::MAX {
            return false;
        }
        if self.ctx.spec.from_start {
            st.received + st.lost + st.dropped + st.corrupt >= target
        } else {
            !got
        }
    }

    fn final_line(&self) -> String {
        let seen: Vec<String> = self
            .seen
            .iter()
            .enumerate()
            .filter_map(|(p, s)| s.map(|s| format!("{p}:{}:{}:{}", s.first, s.last, s.count)))
            .collect();
        format!("sub slot={} seen={}", self.ctx.spec.slot, seen.join(","))
    }
}
