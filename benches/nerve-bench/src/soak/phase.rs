//! One workload of the soak, start to end: subscribers first (so the first generation sees
//! every message), then publishers; the killer while it runs; then stop, drain, and the books.
//!
//! Every child is this binary re-executed with `PR_SET_PDEATHSIG = SIGKILL` (set between fork
//! and exec, from the main thread, which lives as long as the run), so no child outlives the
//! parent, whatever kills it; [`Procs`] kills and reaps the live ones when dropped, on success,
//! on a failure and on Ctrl-C alike.

use super::account::{account, Books, Fate, Incarnation};
use super::child::{ChildSpec, Role};
use super::killer::{KillEvery, KillMode, Rng};
use super::ledger::*;
use super::message::{AnyTopic, Kind, TopicSpec};
use anyhow::{Context, Result};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Ledger slots per workload: every incarnation takes one; the killer stops when they run out.
const SLOTS: usize = 1 << 16;
/// No message sent or received for this long while publishers run: a hang.
const STALL: Duration = Duration::from_secs(20);
/// How long publishers get to stop, and subscribers to drain, before they count as hung.
const FINISH: Duration = Duration::from_secs(30);
/// How long a child gets to reach a state the parent waits for (ready, holding).
const REACH: Duration = Duration::from_secs(20);
/// A pause this long is counted (and the longest reported): nothing in a workload should
/// keep every process waiting this long, kills included (a dead subscriber of a reliable
/// topic is reclaimed within ~100 ms, an abandoned message skipped within ~200 ms).
pub const LONG_STALL: Duration = Duration::from_secs(1);

/// One workload.
#[derive(Clone, Debug)]
pub struct Plan {
    /// E.g. `3:3 fixed reliable`.
    pub name: String,
    /// Its topic.
    pub topic: TopicSpec,
    /// Publisher processes at any time.
    pub publishers: usize,
    /// Subscriber processes at any time; the first is the witness, never killed.
    pub subscribers: usize,
    /// Stop once this many messages were sent and the killer struck `min_kills` times...
    pub quota: u64,
    /// ...(ignored when the killer is off).
    pub min_kills: u64,
    /// ...or after this long.
    pub time_limit: Option<Duration>,
}

/// What a workload produced.
pub struct Outcome {
    /// The plan it ran.
    pub plan: Plan,
    /// Seconds from the first publisher spawned to the stop signal.
    pub run_s: f64,
    /// Chunks in use after every child left and the dead were reclaimed (blob topics).
    pub chunks_after: Option<(u32, u32)>,
    /// Pauses while publishers ran: the longest (s), and how many lasted over [`LONG_STALL`].
    pub stalls: (f64, u64),
    /// Mean time between two kills (s), as achieved.
    pub kill_interval_s: Option<f64>,
    /// Where the topic's segment and the children's output were copied after a failure.
    pub kept: Option<PathBuf>,
    /// The books.
    pub books: Books,
}

/// What every workload shares.
pub struct Env<'a> {
    /// The run's private directory (ledgers, children's stdout).
    pub run_dir: &'a Path,
    /// The killer's dice.
    pub rng: &'a mut Rng,
    /// The killer's range.
    pub kill_every: KillEvery,
    /// Set by SIGINT/SIGTERM.
    pub interrupted: &'a AtomicBool,
}

struct Proc {
    inc: usize,
    child: Child,
    killable: bool,
}

/// The workload's processes: live children and every incarnation so far.
struct Procs<'a> {
    plan: &'a Plan,
    ledger: &'a Ledger,
    ledger_path: PathBuf,
    run_dir: &'a Path,
    live: Vec<Proc>,
    incs: Vec<Incarnation>,
}

impl Procs<'_> {
    fn spawn(&mut self, role: Role, from_start: bool, witness: bool) -> Result<()> {
        let slot = self.incs.len() as u32;
        self.ledger.slot(slot, ROLE).store(
            if role == Role::Pub {
                ROLE_PUB
            } else {
                ROLE_SUB
            },
            Relaxed,
        );
        let spec = ChildSpec {
            topic: self.plan.topic.clone(),
            role,
            ledger: self.ledger_path.clone(),
            slot,
            parent: std::process::id(),
            from_start,
        };
        let tag = self.plan.topic.name.replace('/', "_");
        let out = self.run_dir.join(format!("{tag}-{slot}.out"));
        let file = std::fs::File::create(&out)?;
        let mut cmd = Command::new(std::env::current_exe()?);
        cmd.args(["__soak-child", "--spec", &serde_json::to_string(&spec)?])
            .env("NERVE_DOMAIN", self.plan.topic.domain.to_string())
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(Stdio::inherit());
        // SAFETY: the closure runs between fork and exec and only calls prctl, which is
        // async-signal-safe and allocates nothing.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().context("spawning a soak child")?;
        self.incs.push(Incarnation {
            slot,
            role,
            from_start,
            witness,
            fate: Fate::Running,
            out,
        });
        self.live.push(Proc {
            inc: self.incs.len() - 1,
            child,
            killable: !witness,
        });
        Ok(())
    }

    fn state(&self, p: &Proc) -> u64 {
        self.ledger.slot(self.incs[p.inc].slot, STATE).load(Relaxed)
    }

    /// Reaps children that exited by themselves; says whether any did.
    fn reap_exited(&mut self) -> bool {
        let mut any = false;
        let mut i = 0;
        while i < self.live.len() {
            if let Ok(Some(status)) = self.live[i].child.try_wait() {
                let p = self.live.swap_remove(i);
                self.incs[p.inc].fate = Fate::Exited {
                    ok: status.success(),
                    status: status.to_string(),
                };
                any = true;
            } else {
                i += 1;
            }
        }
        any
    }

    /// `kill -9` of live child `i`, then reaped.
    fn kill(&mut self, i: usize, mode: KillMode) {
        let state = self.state(&self.live[i]);
        let mut p = self.live.swap_remove(i);
        let _ = p.child.kill();
        let _ = p.child.wait();
        self.incs[p.inc].fate = Fate::Killed { mode, state };
    }

    /// Waits until every live child of `role` exited by itself, at most `limit`; the ones
    /// still there are killed and marked hung.
    fn finish(&mut self, role: Role, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            self.reap_exited();
            let left: Vec<usize> = (0..self.live.len())
                .filter(|&i| self.incs[self.live[i].inc].role == role)
                .collect();
            if left.is_empty() {
                return;
            }
            if Instant::now() > deadline {
                for &i in left.iter().rev() {
                    let mut p = self.live.swap_remove(i);
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                    self.incs[p.inc].fate = Fate::Hung;
                }
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Sum of `DONE` over publishers, and of everything subscribers counted (for progress).
    fn totals(&self) -> (u64, u64) {
        let (mut sent, mut seen) = (0, 0);
        for inc in &self.incs {
            let w = self.ledger.snapshot(inc.slot);
            match inc.role {
                Role::Pub => sent += w[DONE],
                Role::Sub => seen += w[RECEIVED] + w[LOST] + w[DROPPED] + w[CORRUPT_SKIPPED],
            }
        }
        (sent, seen)
    }
}

impl Drop for Procs<'_> {
    fn drop(&mut self) {
        for p in &mut self.live {
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }
}

/// Runs one workload and accounts for it.
pub fn run(plan: &Plan, env: &mut Env) -> Result<Outcome> {
    let tag = plan.topic.name.replace('/', "_");
    let ledger_path = env.run_dir.join(format!("{tag}.ledger"));
    let ledger = Ledger::create(&ledger_path, SLOTS)?;
    // Held open by the parent for the whole workload: the segment is never rebuilt while
    // every child happens to be dead, and the chunks can be counted at the end.
    let topic = AnyTopic::open(&plan.topic)?;
    let mut procs = Procs {
        plan,
        ledger: &ledger,
        ledger_path,
        run_dir: env.run_dir,
        live: Vec::new(),
        incs: Vec::new(),
    };
    let mut failures = Vec::new();
    for i in 0..plan.subscribers {
        procs.spawn(Role::Sub, true, i == 0)?;
    }
    let deadline = Instant::now() + REACH;
    while procs.live.iter().any(|p| procs.state(p) != STATE_READY) {
        if procs.reap_exited() || Instant::now() > deadline {
            failures.push("the first subscribers did not all become ready".to_string());
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    for _ in 0..plan.publishers {
        procs.spawn(Role::Pub, false, false)?;
    }

    let start = Instant::now();
    let mut next_kill = start + env.kill_every.draw(env.rng);
    let mut kills = 0u64;
    let (mut last_total, mut last_change) = (0u64, start);
    let (mut longest_stall, mut long_stalls) = (Duration::ZERO, 0u64);
    let mut last_print = start;
    while failures.is_empty() {
        std::thread::sleep(Duration::from_millis(5));
        let now = Instant::now();
        if env.interrupted.load(Relaxed) {
            failures.push("interrupted (SIGINT/SIGTERM)".into());
            break;
        }
        if procs.reap_exited() {
            failures.push("a child exited by itself before the end of the workload".into());
            break;
        }
        let (sent, seen) = procs.totals();
        let killed_enough = kills >= plan.min_kills || !env.kill_every.enabled();
        if (sent >= plan.quota && killed_enough)
            || plan.time_limit.is_some_and(|t| now - start >= t)
        {
            break;
        }
        if sent + seen != last_total {
            let pause = now - last_change;
            longest_stall = longest_stall.max(pause);
            if pause >= LONG_STALL {
                long_stalls += 1;
                eprintln!(
                    "  {}: nothing sent or received for {:.1} s (kills so far {kills})",
                    plan.name,
                    pause.as_secs_f64()
                );
            }
            (last_total, last_change) = (sent + seen, now);
        } else if now - last_change > STALL {
            failures.push(format!(
                "no message sent or received for {STALL:?}: a hang; {}",
                describe_topic(&plan.topic)
            ));
            break;
        }
        if now - last_print >= Duration::from_secs(5) {
            last_print = now;
            eprintln!(
                "  {}: {:.0} s, sent {sent}, kills {kills}",
                plan.name,
                (now - start).as_secs_f64()
            );
        }
        if env.kill_every.enabled() && now >= next_kill && procs.incs.len() + 1 < SLOTS {
            if let Some(role) = kill_one(&mut procs, env.rng)? {
                kills += 1;
                procs.spawn(role, false, false)?;
            }
            next_kill = Instant::now() + env.kill_every.draw(env.rng);
        }
    }
    // A pause still under way when the workload ended counts too.
    longest_stall = longest_stall.max(last_change.elapsed());
    let run_s = start.elapsed().as_secs_f64();
    let kill_interval_s = (kills > 0).then(|| run_s / kills as f64);

    // Stop: publishers finish their message and exit; then the head is final.
    ledger.header(STOP).store(1, Relaxed);
    procs.finish(Role::Pub, FINISH);
    let claimed = nerve::registry::list(plan.topic.domain)
        .into_iter()
        .find(|t| t.name == plan.topic.name)
        .map(|t| t.published)
        .context("the workload's topic is not in the registry")?;
    ledger.header(TARGET).store(claimed, Relaxed);
    procs.finish(Role::Sub, FINISH);
    if procs
        .incs
        .iter()
        .any(|i| matches!(i.fate, Fate::Hung) && i.role == Role::Sub)
    {
        failures.push(format!(
            "a subscriber did not drain to the head; {}",
            describe_topic(&plan.topic)
        ));
    }
    let chunks_after = topic.reclaim_and_count_chunks();
    let incs = std::mem::take(&mut procs.incs);
    drop(procs);
    let mut books = account(&ledger, &incs, claimed, plan.topic.reliable);
    if let Some((in_use, _)) = chunks_after {
        // The ring holds one chunk per slot; a process killed between two steps of the pool
        // may leak one more (nerve's documented bound), never more.
        let depth = plan.topic.depth();
        let bound = u64::from(depth) + books.kill_count();
        if u64::from(in_use) > bound {
            books.failures.push(format!("{in_use} chunks still in use after every process left and the dead were reclaimed: more than the ring's {depth} plus one per kill"));
        } else if in_use > depth {
            books.notes.push(format!("{} chunks leaked by {} kills (a process killed in the few instructions between two steps of the pool leaks one chunk until the topic is rebuilt: docs/design/transport.md); when the pool runs out, loans fail until then", in_use - depth, books.kill_count()));
        }
    }
    books.failures.extend(failures);
    let kept = if books.failures.is_empty() || env.interrupted.load(Relaxed) {
        None
    } else {
        keep_evidence(plan, &incs)
    };
    Ok(Outcome {
        plan: plan.clone(),
        run_s,
        chunks_after,
        stalls: (longest_stall.as_secs_f64(), long_stalls),
        kill_interval_s,
        kept,
        books,
    })
}

/// Picks a victim and kills it; a blob workload's victim sometimes first takes a loan or
/// keeps a sample. Returns the role to restart, or None when nobody may be killed.
fn kill_one(procs: &mut Procs, rng: &mut Rng) -> Result<Option<Role>> {
    let killable = |role: Role, procs: &Procs| -> Vec<usize> {
        (0..procs.live.len())
            .filter(|&i| procs.live[i].killable && procs.incs[procs.live[i].inc].role == role)
            .collect()
    };
    let (pubs, subs) = (killable(Role::Pub, procs), killable(Role::Sub, procs));
    let pool = match (pubs.is_empty(), subs.is_empty()) {
        (true, true) => return Ok(None),
        (false, true) => pubs,
        (true, false) => subs,
        (false, false) => {
            if rng.one_in(2) {
                pubs
            } else {
                subs
            }
        }
    };
    let i = pool[rng.below(pool.len())];
    let role = procs.incs[procs.live[i].inc].role;
    let hold = procs.plan.topic.kind == Kind::Blob && rng.one_in(3);
    let mut mode = KillMode::Anywhere;
    if hold && procs.state(&procs.live[i]) == STATE_READY {
        let slot = procs.incs[procs.live[i].inc].slot;
        procs.ledger.slot(slot, CMD).store(CMD_HOLD, Relaxed);
        let deadline = Instant::now() + REACH.min(Duration::from_secs(2));
        while Instant::now() < deadline {
            if procs.state(&procs.live[i]) == STATE_HOLDING {
                mode = if role == Role::Pub {
                    KillMode::MidLoan
                } else {
                    KillMode::HoldingSample
                };
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    procs.kill(i, mode);
    Ok(Some(role))
}

/// After a failure, copies the topic's segment and every child's output out of the run's
/// shared memory (which is removed at the end of the run) into `$TMPDIR`, for a post-mortem.
fn keep_evidence(plan: &Plan, incs: &[Incarnation]) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "nerve-soak-{}-{}",
        plan.topic.domain,
        plan.topic.name.replace('/', "_")
    ));
    std::fs::create_dir_all(&dir).ok()?;
    let file = format!("{}.topic", plan.topic.name.replace('/', "%"));
    let seg = nerve::registry::domain_dir(plan.topic.domain).join(&file);
    let _ = std::fs::copy(seg, dir.join(file));
    for i in incs {
        if let Some(name) = i.out.file_name() {
            let _ = std::fs::copy(&i.out, dir.join(name));
        }
    }
    Some(dir)
}

/// The topic as the registry sees it, for a failure message.
fn describe_topic(spec: &TopicSpec) -> String {
    match nerve::registry::list(spec.domain)
        .into_iter()
        .find(|t| t.name == spec.name)
    {
        Some(t) => {
            let eps: Vec<String> = t
                .endpoints
                .iter()
                .map(|e| {
                    format!(
                        "{} pid {} {} count {} lost {}",
                        if e.publisher { "pub" } else { "sub" },
                        e.process.pid,
                        if e.alive { "alive" } else { "dead" },
                        e.count,
                        e.lost
                    )
                })
                .collect();
            format!(
                "topic {} head {} claims {} endpoints [{}]",
                t.name,
                t.published,
                t.claims,
                eps.join("; ")
            )
        }
        None => format!("topic {} vanished from the registry", spec.name),
    }
}
