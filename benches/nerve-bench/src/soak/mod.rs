//! `nerve-bench soak`: proof by endurance that nerve never delivers a corrupt message and
//! accounts for every one it does not deliver, across real processes that are `kill -9`ed at
//! random.
//!
//! Five workloads run one after another, each on its own topic ([`workloads`]): 1:1 fixed
//! best-effort, 3:3 fixed reliable, 3:3 fixed best-effort, 2:2 blobs (1 B – 256 KiB through
//! loans) best-effort, 2:2 blobs reliable. One after another, not at once: the machine this runs
//! on has two cores, and concurrent workloads would only share them (topics share nothing in
//! nerve but the domain's lock at open), muddle each workload's rate, and make a failure
//! harder to pin on one topology.
//!
//! - [`message`]: what is sent and how each byte is recomputed by the receiver;
//! - [`ledger`]: the shared file where every process counts, so a kill loses no count;
//! - [`child`]: the publisher and subscriber processes (`__soak-child`);
//! - [`killer`]: the seeded dice and `--kill-every`;
//! - [`phase`]: one workload run: spawn, kill, restart, stop, drain;
//! - [`account`]: the books of a workload and its invariants.

mod account;
mod child;
mod killer;
mod ledger;
mod message;
mod phase;

pub use child::child_main;

use crate::machine::Machine;
use crate::report::{self, Row};
use anyhow::{bail, Result};
use killer::{KillEvery, Rng};
use message::{Kind, TopicSpec, BLOB_MAX};
use phase::{Env, Outcome, Plan};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Options of `nerve-bench soak`.
#[derive(clap::Args, Debug, Clone)]
pub struct SoakArgs {
    /// The short run: 2 million messages unless --messages says otherwise.
    #[arg(long)]
    pub quick: bool,
    /// Messages to send in all, split between the workloads (default 100 000 000).
    #[arg(long, value_name = "N")]
    pub messages: Option<u64>,
    /// Stop after about this many seconds in all, whatever was sent (split between the
    /// workloads like the messages).
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Seed of the killer's dice: the same seed replays the same schedule of kills.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Time between two kills, uniform in MIN..MAX milliseconds; 0: no kills.
    #[arg(long, value_name = "MS..MS", default_value = "50..500")]
    pub kill_every: KillEvery,
    /// A workload that sent its share goes on until the killer struck this many times
    /// (default 50, with --quick 1): the fixed-size workloads send their share in seconds.
    #[arg(long, value_name = "N")]
    pub min_kills: Option<u64>,
    /// Only the workloads whose name contains one of these texts, comma separated (e.g.
    /// `reliable`, `blob`, `1:1,3:3 fixed best`).
    #[arg(long, value_name = "TEXT,..", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Write `{"machine": .., "results": [..]}` here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the same rows flat here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

/// The workloads: (name, kind, reliable, publishers, subscribers, share of the messages,
/// share of `--duration`). Blobs are ~2 000× bigger than fixed messages, hence their share.
const WORKLOADS: [(&str, Kind, bool, usize, usize, f64, f64); 5] = [
    (
        "1:1 fixed best-effort",
        Kind::Fixed,
        false,
        1,
        1,
        0.40,
        0.25,
    ),
    ("3:3 fixed reliable", Kind::Fixed, true, 3, 3, 0.25, 0.20),
    (
        "3:3 fixed best-effort",
        Kind::Fixed,
        false,
        3,
        3,
        0.33,
        0.20,
    ),
    ("2:2 blob best-effort", Kind::Blob, false, 2, 2, 0.01, 0.175),
    ("2:2 blob reliable", Kind::Blob, true, 2, 2, 0.01, 0.175),
];

/// The plans for this run.
fn workloads(args: &SoakArgs, domain: u32) -> Vec<Plan> {
    let total = args
        .messages
        .unwrap_or(if args.quick { 2_000_000 } else { 20_000_000 });
    let chosen: Vec<_> = WORKLOADS
        .iter()
        .filter(|w| args.only.is_empty() || args.only.iter().any(|o| w.0.contains(o.as_str())))
        .collect();
    // Shares of the workloads chosen, scaled to add up to 1.
    let (msg_sum, time_sum) = chosen
        .iter()
        .fold((0.0, 0.0), |(m, t), w| (m + w.5, t + w.6));
    chosen
        .into_iter()
        .enumerate()
        .map(
            |(i, &(name, kind, reliable, publishers, subscribers, share, time))| Plan {
                name: name.into(),
                topic: TopicSpec {
                    name: format!("soak/{i}"),
                    domain,
                    kind,
                    reliable,
                },
                publishers,
                subscribers,
                quota: ((total as f64 * share / msg_sum) as u64).max(1),
                min_kills: args.min_kills.unwrap_or(if args.quick { 1 } else { 20 }),
                time_limit: args
                    .duration
                    .map(|d| Duration::from_secs_f64(d * time / time_sum)),
            },
        )
        .collect()
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Relaxed);
}

/// Removes the run's shared memory (the domain's topics and the soak's own directory), and
/// with it every ledger, when the run ends, whichever way.
struct RunDirs {
    domain: PathBuf,
    run: PathBuf,
}

impl Drop for RunDirs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.domain);
        let _ = std::fs::remove_dir_all(&self.run);
    }
}

/// Removes what earlier runs left when they were killed themselves (SIGKILL leaves no time
/// to clean up): a `<domain dir>.soak` directory whose run's process is gone, and its domain.
/// Only directories named like the ones this suite creates are touched.
fn sweep_dead_runs() {
    let probe = nerve::registry::domain_dir(0);
    let (Some(root), Some(name)) = (probe.parent(), probe.file_name()) else {
        return;
    };
    // `nerve-<uid>-0` without its domain.
    let name = name.to_string_lossy();
    let Some(prefix) = name.strip_suffix('0') else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(domain) = name
            .strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(".soak"))
            .and_then(|d| d.parse::<u32>().ok())
        else {
            continue;
        };
        // `nerve_testing::unique_domain`: 100 000 000 + 1 000 × pid + n (a pid of this pid
        // namespace: soak runs are started here).
        let pid = domain.saturating_sub(100_000_000) / 1000;
        if domain >= 100_000_000 && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
            let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(domain));
            eprintln!("soak: removed {name} and its domain, left by a run that was killed");
        }
    }
}

/// `nerve-bench soak`.
pub fn run_suite(args: &SoakArgs) -> Result<()> {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
    sweep_dead_runs();
    let machine = Machine::detect();
    let seed = args.seed.unwrap_or_else(Rng::fresh_seed);
    let domain = nerve_testing::unique_domain();
    let domain_dir = nerve::registry::domain_dir(domain);
    let run_dir = domain_dir.with_extension("soak");
    let _dirs = RunDirs {
        domain: domain_dir,
        run: run_dir.clone(),
    };
    std::fs::create_dir_all(&run_dir)?;
    let plans = workloads(args, domain);
    if plans.is_empty() {
        bail!(
            "--only {:?} matches no workload: {:?}",
            args.only,
            WORKLOADS.map(|w| w.0)
        );
    }
    eprintln!(
        "soak: seed {seed}, kills every {}, domain {domain}, {} workloads | {}",
        args.kill_every,
        plans.len(),
        machine.summary()
    );
    let mut rng = Rng::new(seed);
    let mut env = Env {
        run_dir: &run_dir,
        rng: &mut rng,
        kill_every: args.kill_every,
        interrupted: &INTERRUPTED,
    };
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for plan in &plans {
        eprintln!(
            "soak: {} (topic {}): {} messages{}",
            plan.name,
            plan.topic.name,
            plan.quota,
            plan.time_limit
                .map(|t| format!(" or {:.1} s", t.as_secs_f64()))
                .unwrap_or_default()
        );
        let o = phase::run(plan, &mut env)?;
        print_outcome(&o);
        outcomes.push(o);
        if INTERRUPTED.load(Relaxed) {
            break;
        }
    }
    let rows = rows(&outcomes, seed);
    report::print_table(&rows);
    if let Some(p) = &args.json {
        report::write_json(p, &machine, &rows)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &args.csv {
        report::write_csv(p, &rows)?;
        eprintln!("wrote {}", p.display());
    }
    let failed: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| !o.books.failures.is_empty())
        .collect();
    let t: Total = outcomes.iter().map(|o| &o.books).collect();
    eprintln!(
        "soak total: {:.1} s, sent {}, received {}, lost {}, dropped {}, corrupt skipped {}, corrupt delivered {}, kills {} (seed {seed})",
        started.elapsed().as_secs_f64(),
        t.sent,
        t.received,
        t.lost,
        t.dropped,
        t.corrupt_skipped,
        t.corrupt_delivered,
        t.kills
    );
    if !failed.is_empty() {
        let names: Vec<&str> = failed.iter().map(|o| o.plan.name.as_str()).collect();
        bail!("soak FAILED in {names:?} (see above); replay the kills with --seed {seed}");
    }
    eprintln!("soak PASSED: no corrupt message delivered, every message accounted for");
    Ok(())
}

/// Sums over workloads.
#[derive(Default)]
struct Total {
    sent: u64,
    received: u64,
    lost: u64,
    dropped: u64,
    corrupt_skipped: u64,
    corrupt_delivered: u64,
    kills: u64,
}

impl<'a> FromIterator<&'a account::Books> for Total {
    fn from_iter<I: IntoIterator<Item = &'a account::Books>>(iter: I) -> Self {
        let mut t = Total::default();
        for b in iter {
            t.sent += b.sent;
            t.received += b.received;
            t.lost += b.lost;
            t.dropped += b.dropped;
            t.corrupt_skipped += b.corrupt_skipped;
            t.corrupt_delivered += b.corrupt_delivered;
            t.kills += b.kill_count();
        }
        t
    }
}

/// The readable summary of one workload, on stderr.
fn print_outcome(o: &Outcome) {
    let b = &o.books;
    let rate = b.sent as f64 / o.run_s.max(1e-9);
    eprintln!(
        "  {} — {}: {:.1} s, {:.0} msgs/s sent",
        o.plan.name,
        if b.failures.is_empty() {
            "PASS"
        } else {
            "FAIL"
        },
        o.run_s,
        rate
    );
    eprintln!(
        "    publishers: {} incarnations, sent {}, claimed {} ({} abandoned or published by a sender killed inside send; {} sends cut by a kill), full {}, pool exhausted {}",
        b.incarnations.0, b.sent, b.claimed, b.abandoned(), b.in_flight, b.full, b.exhausted
    );
    eprintln!(
        "    subscribers: {} incarnations, received {}, lost {}, dropped {}, corrupt skipped {}; delivered corrupt {}, phantom {}, out of order {}",
        b.incarnations.1, b.received, b.lost, b.dropped, b.corrupt_skipped, b.corrupt_delivered, b.phantom, b.disorder
    );
    eprintln!(
        "    kills: {} publishers ({} inside send, {} mid-loan), {} subscribers ({} holding a sample), {} of them while opening the topic{}",
        b.kills.0,
        b.killed_in_send,
        b.kills.2,
        b.kills.1,
        b.kills.3,
        b.killed_opening,
        o.chunks_after
            .map(|(u, n)| format!(
                "; chunks in use at the end {u} of {n} ({} leaked: beyond the ring's {})",
                u.saturating_sub(o.plan.topic.depth()),
                o.plan.topic.depth()
            ))
            .unwrap_or_default()
    );
    eprintln!(
        "    killer: one kill every {}; longest pause with nothing sent or received {:.2} s, {} pauses over {:?}",
        o.kill_interval_s
            .map(|s| format!("{:.0} ms", s * 1e3))
            .unwrap_or_else(|| "-".into()),
        o.stalls.0,
        o.stalls.1,
        phase::LONG_STALL
    );
    for line in &b.exact {
        eprintln!("    exact: {line}");
    }
    for line in &b.notes {
        eprintln!("    note: {line}");
    }
    for line in &b.failures {
        eprintln!("    FAILURE: {line}");
    }
    if let Some(dir) = &o.kept {
        eprintln!(
            "    kept the topic's segment and every child's output in {}",
            dir.display()
        );
    }
}

/// The report's rows: each metric of each workload, then of all together.
fn rows(outcomes: &[Outcome], seed: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    let value = |v: f64| report::summary_of(v, v, v, v, v, v, 1);
    for o in outcomes {
        let b = &o.books;
        let (message, bytes) = match o.plan.topic.kind {
            Kind::Fixed => ("Soak64", 64),
            Kind::Blob => ("SoakBlob", BLOB_MAX),
        };
        let base = Row::new(
            "soak",
            "nerve",
            "rust",
            "cross-process",
            &format!("{}:{}", o.plan.publishers, o.plan.subscribers),
            "blocking",
            message,
            bytes,
            "",
        )
        .field("workload", o.plan.name.as_str())
        .field(
            "reliability",
            if o.plan.topic.reliable {
                "reliable"
            } else {
                "best-effort"
            },
        )
        .field("seed", seed)
        .field("duration_s", o.run_s)
        .field("claimed", b.claimed)
        .field("abandoned", b.abandoned())
        .field("exact_subscribers", b.exact.len())
        .field("longest_stall_s", o.stalls.0)
        .field("stalls_over_1s", o.stalls.1)
        .field("pass", b.failures.is_empty());
        let base = match o.chunks_after {
            Some((u, n)) => base
                .field("chunks_in_use_after", u)
                .field("chunks_leaked", u.saturating_sub(o.plan.topic.depth()))
                .field("chunks", n),
            None => base,
        };
        for (metric, v) in [
            ("messages_sent", b.sent as f64),
            ("messages_received", b.received as f64),
            ("lost", b.lost as f64),
            ("dropped", b.dropped as f64),
            ("corrupt_skipped", b.corrupt_skipped as f64),
            ("corrupt_delivered", b.corrupt_delivered as f64),
            ("kills", b.kill_count() as f64),
            ("msgs_per_s", b.sent as f64 / o.run_s.max(1e-9)),
        ] {
            rows.push(base.with_metric(metric).summary(value(v)));
        }
    }
    let t: Total = outcomes.iter().map(|o| &o.books).collect();
    let pass = outcomes.iter().all(|o| o.books.failures.is_empty());
    let base = Row::new(
        "soak",
        "nerve",
        "rust",
        "cross-process",
        "all",
        "blocking",
        "mixed",
        0,
        "",
    )
    .field("seed", seed)
    .field("pass", pass);
    for (metric, v) in [
        ("messages_sent", t.sent),
        ("messages_received", t.received),
        ("lost", t.lost),
        ("dropped", t.dropped),
        ("corrupt_skipped", t.corrupt_skipped),
        ("corrupt_delivered", t.corrupt_delivered),
        ("kills", t.kills),
    ] {
        rows.push(base.with_metric(metric).summary(value(v as f64)));
    }
    rows
}
