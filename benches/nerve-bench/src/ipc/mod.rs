//! `nerve-bench ipc`: one-way latency and throughput of nerve and its peers, measured by the
//! same harness in the same run, in alternating rounds.
//!
//! # What one step is (all systems, all topologies)
//!
//! Two sides, pinned to two different cores (both on the first core for `same-thread`):
//! - the **ping side** owns the `P` publishers of the *ping* topic and the one subscriber of the
//!   *pong* topic;
//! - the **echo side** owns the `S` subscribers of the ping topic and the one publisher of the
//!   pong topic.
//!
//! Step `k` of an `P:S` topology: the ping side starts its clock, publishers `1..P` each send
//! message `k`, then publisher 0 sends message `k`. On the echo side, subscriber 0 receives and
//! verifies all `P` messages of step `k` (each publisher's message must reach every
//! subscriber), then the echo side sends message `k` back on the pong topic, and only then
//! subscribers `1..S` receive and verify the same `P` messages. The ping side stops its clock
//! when it has received and verified the echo. One-way latency = that round trip / 2: it
//! includes `P` sends and `P` receives on each side of the critical path, and the fan-out to
//! the other `S - 1` subscribers is paid by the echo side before it can take step `k + 1`.
//! All endpoints live on the two pinned sides (a 2-core machine cannot run 6 busy-polling
//! processes without measuring the scheduler instead).
//!
//! Throughput (`msgs_per_s`, 1:1): the ping side sends a window of `W` messages back to back,
//! the echo side receives and verifies all of them and acknowledges the last one on the pong
//! topic; the rate is messages verified per second over a block of windows.
//!
//! Modes: `poll` spins on the non-blocking receive; `blocking` uses the system's own way of
//! waiting (futex for raw-shm, blocking `recv` for UDP, an iceoryx2 event service Listener,
//! nerve's `recv_timeout`). nerve runs blocking scenarios twice: with its default adaptive wait
//! (spin 20 µs, then futex) and, as `SystemKind::NerveFutex`, with the spin set to zero so it
//! sleeps at once like the peers (rows differ in `variant`). Every wait gives up after [`TIMEOUT`] and reports an error row.

#[cfg(feature = "peers")]
pub mod iceoryx2;
#[cfg(not(feature = "peers"))]
#[path = "iceoryx2_absent.rs"]
pub mod iceoryx2;
pub mod nerve;
pub mod payload;
mod plan;
pub mod raw_shm;
mod rows;
mod runner;
mod shape;
pub mod udp;

use anyhow::{bail, Result};
use payload::Check;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

pub use runner::{echo_child_main, run_suite, IpcArgs};

/// How long any single wait may take before the benchmark reports the peer as stuck.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// A system under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SystemKind {
    /// This project, with its default wait (blocking mode: spin 20 µs, then futex).
    Nerve,
    /// This project with every subscriber's spin set to zero, so a blocking receive sleeps on
    /// the futex at once, as the peers' blocking waits do. Blocking mode only; its rows say
    /// `system: nerve` and differ from [`SystemKind::Nerve`]'s in `variant`.
    NerveFutex,
    /// The `iceoryx2` crate, publish-subscribe.
    Iceoryx2,
    /// Our own one-cache-line ping-pong through `/dev/shm`: the floor.
    RawShm,
    /// Loopback UDP sockets from `std`.
    Udp,
}

impl SystemKind {
    /// Every system, in the order rounds alternate.
    pub const ALL: [SystemKind; 5] = [
        Self::Nerve,
        Self::NerveFutex,
        Self::Iceoryx2,
        Self::RawShm,
        Self::Udp,
    ];

    /// The `system` field of a row (both nerve variants are `nerve`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Nerve | Self::NerveFutex => "nerve",
            Self::Iceoryx2 => "iceoryx2",
            Self::RawShm => "raw-shm",
            Self::Udp => "udp",
        }
    }

    /// The name `--systems` takes (unique per kind).
    pub fn cli_name(self) -> &'static str {
        match self {
            Self::NerveFutex => "nerve-futex",
            other => other.name(),
        }
    }

    /// Whether this is one of nerve's variants (rows that get `ratio_*_vs_<peer>` rows).
    pub fn is_nerve(self) -> bool {
        matches!(self, Self::Nerve | Self::NerveFutex)
    }

    /// Whether the system takes part in scenarios of `mode` at all (a system that does not
    /// gets no row there, rather than an error row).
    pub fn runs_in(self, mode: Mode) -> bool {
        match self {
            Self::NerveFutex => mode == Mode::Blocking,
            _ => true,
        }
    }

    /// Parses a `--systems` entry.
    pub fn parse(s: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.cli_name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|k| k.cli_name()).collect();
                anyhow::anyhow!("unknown system `{s}`; expected one of {}", names.join(", "))
            })
    }
}

/// Where the two sides run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Transport {
    /// Both sides in one thread, calls interleaved.
    SameThread,
    /// Echo side in a second thread on the second core.
    CrossThread,
    /// Echo side in a child process (this binary re-executed) on the second core.
    CrossProcess,
}

impl Transport {
    /// The `transport` field of a row.
    pub fn name(self) -> &'static str {
        match self {
            Self::SameThread => "same-thread",
            Self::CrossThread => "cross-thread",
            Self::CrossProcess => "cross-process",
        }
    }
}

/// How a side waits for a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Busy-poll the non-blocking receive.
    Poll,
    /// The system's own blocking wait.
    Blocking,
}

impl Mode {
    /// The `mode` field of a row.
    pub fn name(self) -> &'static str {
        match self {
            Self::Poll => "poll",
            Self::Blocking => "blocking",
        }
    }
}

/// Everything both sides need to build their endpoints. Sent to the child process as JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Spec {
    /// Which system.
    pub system: SystemKind,
    /// Where the sides run.
    pub transport: Transport,
    /// How receivers wait.
    pub mode: Mode,
    /// Publishers on the ping topic (`P`).
    pub publishers: u32,
    /// Subscribers on the ping topic (`S`).
    pub subscribers: u32,
    /// Bytes per message, both directions.
    pub payload: usize,
    /// What the row calls the message (`bytes`, `bytes-readall`, `CmdVel`, ...).
    pub message: String,
    /// Which bytes are written and verified.
    pub check: Check,
    /// Topics alive (the measured one plus idle ones with a publisher and a subscriber each).
    pub topics: usize,
    /// Messages in flight per acknowledgement (1 for latency); receive buffers hold at least
    /// this many.
    pub window: u32,
    /// Unique name for this run's topics / services / files.
    pub name: String,
}

/// The side that publishes on the ping topic and times the round trip.
pub trait PingSide {
    /// Every publisher sends message `seq`; publisher 0 last.
    fn send(&mut self, seq: u64) -> Result<()>;
    /// Waits for the echo of `seq` on the pong topic and verifies it.
    fn recv_echo(&mut self, seq: u64) -> Result<()>;
}

/// The side that subscribes to the ping topic and echoes.
pub trait EchoSide {
    /// Subscriber 0 receives and verifies the messages of step `seq` from every publisher.
    fn recv(&mut self, seq: u64) -> Result<()>;
    /// Sends message `seq` on the pong topic.
    fn echo(&mut self, seq: u64) -> Result<()>;
    /// Subscribers `1..S` receive and verify the messages of step `seq` from every publisher.
    fn drain_others(&mut self, seq: u64) -> Result<()>;
}

/// Whether `system` can run `spec`; the reason when not (reported as the row's `error`).
pub fn supports(spec: &Spec) -> Result<(), String> {
    if spec.check == Check::Untouched && spec.system != SystemKind::Iceoryx2 {
        return Err("an untouched payload is only the iceoryx2 diagnostic row".into());
    }
    match spec.system {
        SystemKind::Nerve | SystemKind::NerveFutex => nerve::supports(spec),
        SystemKind::Iceoryx2 => iceoryx2::supports(spec),
        SystemKind::RawShm => raw_shm::supports(spec),
        SystemKind::Udp => udp::supports(spec),
    }
}

/// The `message` field for `spec` on its system (nerve says which path carried the bytes).
pub fn message_label(spec: &Spec) -> String {
    match spec.system {
        SystemKind::Nerve | SystemKind::NerveFutex => nerve::message_label(spec),
        _ => spec.message.clone(),
    }
}

/// Which flavour of the system ran, when it has several (rows carry it as `variant`).
pub fn variant(spec: &Spec) -> Option<String> {
    match spec.system {
        SystemKind::Iceoryx2 => Some(iceoryx2::variant(spec).to_string()),
        SystemKind::Nerve | SystemKind::NerveFutex => nerve::variant(spec),
        _ => None,
    }
}

/// Builds the echo side (it creates what has to exist first) and returns what the ping side
/// needs to find it.
pub fn echo_side(spec: &Spec) -> Result<(Box<dyn EchoSide>, String)> {
    match spec.system {
        SystemKind::Nerve | SystemKind::NerveFutex => nerve::echo_side(spec),
        SystemKind::Iceoryx2 => iceoryx2::echo_side(spec),
        SystemKind::RawShm => raw_shm::echo_side(spec),
        SystemKind::Udp => udp::echo_side(spec),
    }
}

/// Builds the ping side from the echo side's rendezvous string.
pub fn ping_side(spec: &Spec, rendezvous: &str) -> Result<Box<dyn PingSide>> {
    match spec.system {
        SystemKind::Nerve | SystemKind::NerveFutex => nerve::ping_side(spec, rendezvous),
        SystemKind::Iceoryx2 => iceoryx2::ping_side(spec, rendezvous),
        SystemKind::RawShm => raw_shm::ping_side(spec, rendezvous),
        SystemKind::Udp => udp::ping_side(spec, rendezvous),
    }
}

/// A spin loop's way out: checks the clock every 4096 turns and fails after [`TIMEOUT`].
pub struct Deadline {
    spins: u32,
    start: Option<Instant>,
}

impl Deadline {
    /// Starts counting.
    #[inline]
    pub fn new() -> Self {
        Self {
            spins: 0,
            start: None,
        }
    }

    /// One more turn of the loop; `what` describes the wait for the error message.
    #[inline]
    pub fn tick(&mut self, what: impl FnOnce() -> String) -> Result<()> {
        self.spins = self.spins.wrapping_add(1);
        if self.spins & 0xfff == 0 {
            let start = *self.start.get_or_insert_with(Instant::now);
            if start.elapsed() > TIMEOUT {
                bail!("timed out after {TIMEOUT:?} waiting for {}", what());
            }
        }
        Ok(())
    }
}

impl Default for Deadline {
    fn default() -> Self {
        Self::new()
    }
}

/// Tracks which publishers' messages of the current step a subscriber has seen. Messages of
/// the next step may arrive early (the ping side starts step `k + 1` as soon as subscriber 0
/// echoed step `k`), so they are remembered rather than rejected.
#[derive(Clone, Debug)]
pub struct StepTracker {
    full: u64,
    current: u64,
    seen: u64,
    ahead: u64,
}

impl StepTracker {
    /// For `publishers` publishers (at most 64).
    pub fn new(publishers: u32) -> Self {
        assert!((1..=64).contains(&publishers), "1 to 64 publishers");
        let full = if publishers == 64 {
            u64::MAX
        } else {
            (1u64 << publishers) - 1
        };
        Self {
            full,
            current: u64::MAX,
            seen: 0,
            ahead: 0,
        }
    }

    /// Starts waiting for step `seq`.
    pub fn begin(&mut self, seq: u64) {
        if self.current.wrapping_add(1) == seq {
            self.seen = self.ahead;
        } else if self.current != seq {
            self.seen = 0;
        }
        self.ahead = 0;
        self.current = seq;
    }

    /// Records a verified message; fails on a duplicate or a message from the wrong step.
    pub fn accept(&mut self, seq: u64, publisher: u32) -> Result<()> {
        let bit = 1u64.checked_shl(publisher).filter(|b| b & self.full != 0);
        let Some(bit) = bit else {
            bail!("message {seq} claims publisher {publisher}, which does not exist")
        };
        let set = if seq == self.current {
            &mut self.seen
        } else if seq == self.current.wrapping_add(1) {
            &mut self.ahead
        } else {
            bail!(
                "expected message {} (or the next), received {seq} from publisher {publisher}",
                self.current
            );
        };
        if *set & bit != 0 {
            bail!("message {seq} from publisher {publisher} received twice");
        }
        *set |= bit;
        Ok(())
    }

    /// Whether every publisher's message of the current step has arrived.
    pub fn complete(&self) -> bool {
        self.seen == self.full
    }
}

/// Verifies one received message and records it in `tracker`.
#[inline]
pub fn check_message(buf: &[u8], check: Check, tracker: &mut StepTracker) -> Result<()> {
    let (seq, publisher) = payload::verify(buf, check).map_err(anyhow::Error::msg)?;
    tracker.accept(seq, publisher)
}

/// Verifies an echo: it must be message `seq` from the echo side (publisher index 0).
#[inline]
pub fn check_echo(buf: &[u8], check: Check, seq: u64) -> Result<()> {
    let (got, _) = payload::verify(buf, check).map_err(anyhow::Error::msg)?;
    if got != seq {
        bail!("expected echo {seq}, received echo {got}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracker_accepts_next_step_early() {
        let mut t = StepTracker::new(3);
        t.begin(5);
        t.accept(5, 1).unwrap();
        t.accept(6, 1).unwrap();
        t.accept(5, 0).unwrap();
        assert!(!t.complete());
        t.accept(5, 2).unwrap();
        assert!(t.complete());
        assert!(t.accept(5, 2).is_err());
        assert!(t.accept(9, 0).is_err());
        assert!(t.accept(5, 3).is_err());
        t.begin(6);
        assert!(!t.complete());
        t.accept(6, 0).unwrap();
        t.accept(6, 2).unwrap();
        assert!(t.complete());
    }
}
