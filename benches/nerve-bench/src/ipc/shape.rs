//! iceoryx2's own benchmark shape: the loop of `benchmarks/publish-subscribe` in iceoryx2's
//! repository, reproduced (that program is not published as a crate, so it cannot be built
//! here), with nerve and the raw-shm floor run in the same loop, in alternating rounds.
//!
//! # iceoryx2's loop
//! Two threads of one process, pinned to cores 0 and 1, over a service pair `a2b` / `b2a` of
//! the variant under test (`ipc::Service` with `--bench-ipc`, `local::Service` with
//! `--bench-local`). Participant 1: send, loan the next sample, spin on `receive` until the
//! answer is there. Participant 2: loan a sample, spin on `receive` until a message is there,
//! send. N round trips (10^7 by default) timed as one block, from a start barrier to joining
//! both threads; one-way = block / (2 N), a mean. Nothing is written into a sample or read
//! from one.
//!
//! # The same loop here
//! Each system's own ping and echo sides (those of the main `ipc` rows, so every system runs
//! its recommended configuration, iceoryx2's loaning ahead as above) are built in the two
//! threads; participant 1 is the ping side (`send` then `recv_echo`), participant 2 the echo
//! side (`recv` then `echo`). Participant 1 times its N round trips as one block (iceoryx2's
//! program also times the barrier release and the joins: a few µs over a block of 10^6).
//! What nerve-bench adds, by its own rules: the receiver reads the message (16 B: sequence,
//! publisher and length, all 16 bytes, checked on both sides); [`WARM`] untimed round trips
//! first (first-touch of every slot, connection set-up); rounds alternate between the systems
//! and the ratios are per round. One diagnostic row runs iceoryx2's loop exactly
//! ([`Check::Untouched`]: no byte written or read) to show what the read costs; it gets no
//! ratio.
//!
//! Memory kinds match pairwise: nerve's `/dev/shm` topics against `ipc::Service` (what
//! iceoryx2's figures are usually quoted for), nerve's in-process (heap) topics against
//! `local::Service`. The [`Spec`] says `cross-process` for the shared-memory pair only so that
//! each system opens its inter-process variant; both threads are in this process, and the rows
//! say `cross-thread`.

use super::payload::Check;
use super::{echo_side, ping_side, supports, IpcArgs, Mode, Spec, SystemKind, Transport, TIMEOUT};
use crate::pin;
use crate::report::Row;
use crate::stats::{self, Summary};
use anyhow::{anyhow, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// What `--only` matches; also printed on stderr.
pub const DESCRIPTION: &str = "iceoryx2-benchmark shape: cross-thread poll 1:1 bytes 16 B";
/// The `harness` field of every row of this scenario.
const HARNESS: &str = "iceoryx2-benchmark";
/// Untimed round trips before each block.
pub const WARM: u64 = 1_000;
/// Round trips per block: `--quick`, full (the 10^6 iceoryx2's figures here were taken with).
const ROUND_TRIPS: [u64; 2] = [20_000, 1_000_000];
const PAYLOAD: usize = 16;

/// One system in one memory kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    system: SystemKind,
    /// Shared-memory variant (`ipc::Service`, nerve's `/dev/shm` topics), else process-local.
    shm: bool,
    check: Check,
}

impl Entry {
    fn variant(self) -> String {
        let memory = match (self.system, self.shm) {
            (SystemKind::Iceoryx2, true) => "ipc::Service, loan ahead",
            (SystemKind::Iceoryx2, false) => "local::Service, loan ahead",
            (SystemKind::RawShm, _) => "one cache line per direction, /dev/shm",
            (_, true) => "send (fixed Pod copy), shm",
            (_, false) => "send (fixed Pod copy), heap",
        };
        match self.check {
            Check::Untouched => format!("{memory}, payload untouched (iceoryx2's loop exactly)"),
            _ => memory.to_string(),
        }
    }

    fn spec(self) -> Spec {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        Spec {
            system: self.system,
            transport: if self.shm {
                Transport::CrossProcess
            } else {
                Transport::CrossThread
            },
            mode: Mode::Poll,
            publishers: 1,
            subscribers: 1,
            payload: PAYLOAD,
            message: "bytes".into(),
            check: self.check,
            topics: 1,
            window: 1,
            name: format!(
                "nb-{}-shape{n}-{}",
                std::process::id(),
                self.system.cli_name()
            ),
        }
    }
}

/// The entries `systems` asks for, in round order.
fn entries(systems: &[SystemKind]) -> Vec<Entry> {
    let mut out = Vec::new();
    let checked = |system, shm| Entry {
        system,
        shm,
        check: Check::Edges,
    };
    for &system in systems {
        match system {
            SystemKind::Nerve | SystemKind::Iceoryx2 => {
                out.push(checked(system, true));
                out.push(checked(system, false));
            }
            SystemKind::RawShm => out.push(checked(system, true)),
            SystemKind::NerveFutex | SystemKind::Udp => {}
        }
        if system == SystemKind::Iceoryx2 {
            out.push(Entry {
                check: Check::Untouched,
                ..checked(system, true)
            });
        }
    }
    out
}

/// One block: both sides built in their threads, [`WARM`] round trips, then `n` timed as one.
/// Returns the mean one-way time in ns.
fn block(spec: &Spec, cores: (usize, usize), n: u64) -> Result<f64> {
    let (ready_tx, ready_rx) = mpsc::channel::<String>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let echo = s.spawn(move || -> Result<()> {
            pin::pin_current_thread(cores.1)?;
            let (mut echo, rendezvous) = echo_side(spec)?;
            ready_tx
                .send(rendezvous)
                .map_err(|_| anyhow!("participant 1 is gone"))?;
            for seq in 1..=WARM + n {
                echo.recv(seq)?;
                echo.echo(seq)?;
            }
            // Keep the echo side (it created what the ping side maps) until the ping side closed.
            let _ = done_rx.recv_timeout(TIMEOUT);
            Ok(())
        });
        let ping = s.spawn(move || -> Result<f64> {
            pin::pin_current_thread(cores.0)?;
            let rendezvous = ready_rx
                .recv_timeout(TIMEOUT * 6)
                .map_err(|_| anyhow!("participant 2 did not start"))?;
            let mut ping = ping_side(spec, &rendezvous)?;
            for seq in 1..=WARM {
                ping.send(seq)?;
                ping.recv_echo(seq)?;
            }
            let t0 = Instant::now();
            for seq in WARM + 1..=WARM + n {
                ping.send(seq)?;
                ping.recv_echo(seq)?;
            }
            let ns = t0.elapsed().as_nanos() as f64;
            drop(ping);
            let _ = done_tx.send(());
            Ok(ns / (2.0 * n as f64))
        });
        let panicked = |who: &str| anyhow!("participant {who} panicked");
        let ping = ping.join().unwrap_or_else(|_| Err(panicked("1")));
        let echo = echo.join().unwrap_or_else(|_| Err(panicked("2")));
        match (ping, echo) {
            (Ok(v), Ok(())) => Ok(v),
            (Err(e), Ok(())) => Err(e),
            (Ok(_), Err(e)) => Err(e.context("participant 2")),
            (Err(p), Err(e)) => Err(anyhow!("{p:#}; participant 2: {e:#}")),
        }
    })
}

/// Results of one entry over the rounds.
struct Run {
    entry: Entry,
    means: Vec<f64>,
    error: Option<String>,
}

/// The scenario's rows, or none when `--only` leaves it out.
pub fn rows(args: &IpcArgs, systems: &[SystemKind], cores: (usize, usize)) -> Vec<Row> {
    let only = &args.only;
    if !only.is_empty() && !only.iter().any(|o| DESCRIPTION.contains(o.as_str())) {
        return Vec::new();
    }
    let started = Instant::now();
    let n = ROUND_TRIPS[usize::from(!args.quick)];
    let rounds = args
        .rounds
        .unwrap_or(if args.quick { 3 } else { 10 })
        .max(1);
    let mut runs: Vec<Run> = entries(systems)
        .into_iter()
        .map(|entry| Run {
            entry,
            means: Vec::new(),
            error: supports(&entry.spec()).err(),
        })
        .collect();
    // Round r starts with entry r mod k, so no entry always runs first.
    let k_max = runs.len();
    for r in 0..rounds {
        for k in 0..k_max {
            let run = &mut runs[(r + k) % k_max];
            if run.error.is_some() {
                continue;
            }
            match block(&run.entry.spec(), cores, n) {
                Ok(mean) => run.means.push(mean),
                Err(e) => run.error = Some(format!("round {r}: {e:#}")),
            }
        }
    }
    eprintln!(
        "[shape] {DESCRIPTION}, {rounds} rounds of {n} round trips ({:.2} s)",
        started.elapsed().as_secs_f64()
    );
    rows_for(&runs, n)
}

fn base_row(e: Entry, metric: &str, n: u64) -> Row {
    Row::new(
        "ipc",
        e.system.name(),
        "rust",
        Transport::CrossThread.name(),
        "1:1",
        Mode::Poll.name(),
        "bytes",
        PAYLOAD,
        metric,
    )
    .field("harness", HARNESS)
    .field("memory", if e.shm { "shm" } else { "heap" })
    .field("variant", e.variant())
    .field(
        "check",
        match e.check {
            Check::Untouched => "none (diagnostic: iceoryx2's loop exactly)",
            _ => "all 16 B (seq, publisher, length)",
        },
    )
    .field("round_trips_per_round", n)
    .field("warm_round_trips", WARM)
}

fn rows_for(runs: &[Run], n: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    for run in runs {
        let row = base_row(run.entry, "one_way_mean_ns", n);
        if let Some(e) = &run.error {
            rows.push(row.error(e.clone()));
            continue;
        }
        let Some(mut s) = Summary::of(&mut run.means.clone()) else {
            continue;
        };
        s.p50 = stats::median(&run.means).unwrap_or(s.p50);
        rows.push(row.summary(s).field("rounds", run.means.len()).field(
            "note",
            "reproduces iceoryx2's benchmarks/publish-subscribe loop: per round, N round trips timed as one block, block / (2 N); p50 = median of the rounds' means, mean = their mean; n = rounds",
        ));
    }
    // nerve against each peer of the same memory kind (raw-shm: the shared-memory floor).
    let ok = |r: &&Run| r.error.is_none() && r.entry.check != Check::Untouched;
    for nerve in runs.iter().filter(ok).filter(|r| r.entry.system.is_nerve()) {
        for peer in runs
            .iter()
            .filter(ok)
            .filter(|r| !r.entry.system.is_nerve())
        {
            if peer.entry.shm != nerve.entry.shm {
                continue;
            }
            let ratios: Vec<f64> = nerve
                .means
                .iter()
                .zip(&peer.means)
                .map(|(a, b)| a / b)
                .collect();
            let Some(s) = Summary::of_rounds(&ratios) else {
                continue;
            };
            let metric = format!("ratio_mean_vs_{}", peer.entry.system.name());
            rows.push(
                base_row(nerve.entry, &metric, n)
                    .summary(s)
                    .field("peer_variant", peer.entry.variant())
                    .field("rounds", ratios.len())
                    .field(
                        "note",
                        "per round: nerve's block mean / the peer's of the same round; p50 = median over rounds",
                    ),
            );
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_pair_memory_kinds() {
        let e = entries(&SystemKind::ALL);
        assert_eq!(e.len(), 6, "nerve x2, iceoryx2 x2 + diagnostic, raw-shm");
        assert!(e.iter().all(|x| x.system != SystemKind::Udp));
        let untouched: Vec<_> = e.iter().filter(|x| x.check == Check::Untouched).collect();
        assert_eq!(untouched.len(), 1);
        assert_eq!(untouched[0].system, SystemKind::Iceoryx2);
        assert!(untouched[0].shm);
    }
}
