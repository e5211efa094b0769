//! `nerve launch FILE.yaml`: starts a robot's processes (Rust and C++ executables, Python
//! modules) from a launch file (`file.rs`), each in its own process group with its namespace,
//! remaps and parameters given through the environment (`NERVE_NAMESPACE`, `NERVE_REMAP`,
//! `NERVE_PARAMS`, read by nerve's name resolution and `Parameters`); prefixes every line they
//! print with their name; restarts the respawning ones with backoff; stops everything when a
//! required one dies. Ctrl-C or SIGTERM stops the whole tree: SIGINT to every group, SIGKILL
//! to what remains after the grace period, then the domain's stale segments are removed, so
//! nothing is left behind.

mod file;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};

use crate::signals;
use file::Node;

/// Longest wait between two restarts of a respawning node.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A node that ran this long before exiting restarts after its first delay again.
const HEALTHY_RUN: Duration = Duration::from_secs(10);

/// Options of `nerve launch`.
#[derive(clap::Args, Debug)]
pub struct LaunchArgs {
    /// The launch file (YAML).
    pub file: PathBuf,
    /// A launch argument, `NAME=VALUE` (overrides the file's `args:`); repeatable.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// Seconds the nodes get to stop after Ctrl-C before they are killed.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = crate::args::any_seconds, allow_hyphen_values = true)]
    pub grace: Duration,
    /// Print what would start (commands, namespaces, remaps, parameters, environment) and exit.
    #[arg(long)]
    pub dry_run: bool,
}

/// One node's process, and what the launcher knows of it.
struct Member {
    node: Node,
    child: Option<Child>,
    started: Instant,
    restarts: u32,
    /// When a respawning node that exited starts again.
    respawn_at: Option<Instant>,
}

/// `[name] line` on our stdout or stderr, for every line `from` prints.
fn prefix_lines(name: String, from: impl std::io::Read + Send + 'static, to_stderr: bool) {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if to_stderr {
                let _ = writeln!(std::io::stderr().lock(), "[{name}] {line}");
            } else {
                let _ = writeln!(std::io::stdout().lock(), "[{name}] {line}");
            }
        }
    });
}

/// The `NERVE_PARAMS` files of `node` (its files, then its inline parameters written to
/// `run_dir`, so inline values win).
fn params_files(node: &Node, run_dir: &std::path::Path) -> Result<Vec<PathBuf>> {
    let mut files = node.params_files.clone();
    if !node.params.is_empty() {
        let mut inner = serde_norway::Mapping::new();
        inner.insert(
            "ros__parameters".into(),
            serde_norway::to_value(&node.params)?,
        );
        let mut doc = serde_norway::Mapping::new();
        doc.insert("/**".into(), serde_norway::Value::Mapping(inner));
        let path = run_dir.join(format!("{}.yaml", node.name.replace('/', "__")));
        std::fs::write(&path, serde_norway::to_string(&doc)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
        files.push(path);
    }
    Ok(files)
}

/// The environment nerve reads in `node`'s process.
fn nerve_env(
    node: &Node,
    domain: u32,
    run_dir: &std::path::Path,
) -> Result<BTreeMap<String, String>> {
    let mut env = node.env.clone();
    env.insert("NERVE_DOMAIN".into(), domain.to_string());
    env.insert("NERVE_NODE".into(), node.name.clone());
    env.insert("NERVE_NAMESPACE".into(), node.namespace.clone());
    let remap: Vec<String> = node
        .remap
        .iter()
        .map(|(f, t)| format!("{f}:={t}"))
        .collect();
    env.insert("NERVE_REMAP".into(), remap.join(","));
    let files: Vec<String> = params_files(node, run_dir)?
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    env.insert("NERVE_PARAMS".into(), files.join(":"));
    Ok(env)
}

fn spawn(node: &Node, domain: u32, run_dir: &std::path::Path) -> Result<Child> {
    let mut cmd = Command::new(&node.command[0]);
    cmd.args(&node.command[1..])
        .envs(nerve_env(node, domain, run_dir)?)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: stopping it stops what it started too.
        .process_group(0);
    if let Some(dir) = &node.cwd {
        cmd.current_dir(dir);
    }
    // SAFETY: the closure runs in the child between fork and exec and calls only prctl, which
    // is async-signal-safe; it asks the kernel to send SIGTERM when the launcher (the main
    // thread that spawned it) dies, so a `kill -9` of `nerve launch` leaves no orphan.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGTERM as libc::c_ulong,
                0,
                0,
                0,
            );
            Ok(())
        });
    }
    let mut child = cmd.spawn().with_context(|| {
        format!(
            "node {:?}: cannot start {:?} (is it built, and on PATH or relative to the launch file?)",
            node.name, node.command[0]
        )
    })?;
    if let Some(out) = child.stdout.take() {
        prefix_lines(node.name.clone(), out, false);
    }
    if let Some(err) = child.stderr.take() {
        prefix_lines(node.name.clone(), err, true);
    }
    Ok(child)
}

/// Waits for what `node` needs (`wait_for`), or fails naming it.
fn wait_ready(node: &Node, domain: u32) -> Result<()> {
    let resolver = nerve::name::Resolver::new(
        &node.namespace,
        &node
            .remap
            .iter()
            .map(|(f, t)| format!("{f}:={t}"))
            .collect::<Vec<_>>()
            .join(","),
    );
    for w in &node.wait_for {
        // Checked when the file was read (`file::node`): finite, 0 to a week.
        let timeout = nerve::time::checked_seconds(w.timeout.unwrap_or(10.0), 0.0, false)
            .unwrap_or(Duration::from_secs(10));
        let deadline = Instant::now() + timeout;
        let (what, name) = match (&w.topic, &w.service) {
            (Some(t), None) => ("topic", resolver.resolve(t)),
            (None, Some(s)) => ("service", resolver.resolve(s)),
            _ => bail!(
                "node {:?}: a wait_for entry names one topic or one service",
                node.name
            ),
        };
        loop {
            let there = if what == "topic" {
                nerve::registry::list(domain).iter().any(|t| t.name == name)
            } else {
                nerve::rpc::discovery::services(domain)
                    .iter()
                    .any(|s| s.name == name && s.server.is_some())
            };
            if there {
                break;
            }
            if signals::stopped() {
                bail!(
                    "stopped while node {:?} waited for {what} {name}",
                    node.name
                );
            }
            if Instant::now() >= deadline {
                bail!(
                    "node {:?} waited {:.1} s for {what} '{name}' (domain {domain}), which no process created: start its publisher first, or raise timeout:",
                    node.name,
                    timeout.as_secs_f64()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(())
}

fn signal_group(child: &Child, sig: libc::c_int) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) on the process group we created for this child (its pid); it is
        // reaped only after this, so the group id is not reused yet.
        unsafe { libc::kill(-pid, sig) };
    }
}

/// The scheduler statistics the launched processes announce (`nerve node list`'s records),
/// on stderr, before they stop: what each node achieved over the run.
fn print_stats(members: &[Member], domain: u32) {
    let pids: Vec<(u32, &str)> = members
        .iter()
        .filter_map(|m| Some((m.child.as_ref()?.id(), m.node.name.as_str())))
        .collect();
    let records: Vec<_> = nerve::exec::announce::nodes(domain)
        .into_iter()
        .filter(|r| r.alive() && pids.iter().any(|(p, _)| *p == r.pid))
        .collect();
    if records.is_empty() {
        return;
    }
    eprintln!("[launch] node statistics (from their schedulers):");
    eprintln!(
        "[launch]   {:<24} {:<16} {:>9} {:>8} {:>7} {:>9} {:>7} {:>12}",
        "process", "node", "ticks", "Hz", "misses", "overruns", "panics", "late p99 us"
    );
    for r in records {
        let process = pids
            .iter()
            .find(|(p, _)| *p == r.pid)
            .map_or("?", |(_, n)| n);
        eprintln!(
            "[launch]   {:<24} {:<16} {:>9} {:>8.1} {:>7} {:>9} {:>7} {:>12.1}",
            process,
            r.name(),
            r.ticks,
            r.achieved_hz,
            r.misses,
            r.budget_overruns,
            r.panics,
            r.lateness_p99_ns as f64 / 1000.0
        );
    }
}

/// Stops every running member: SIGINT, then SIGKILL after `grace`; reaps them all.
fn stop_all(members: &mut [Member], grace: Duration, domain: u32) {
    print_stats(members, domain);
    for m in members.iter().rev() {
        if let Some(c) = &m.child {
            signal_group(c, libc::SIGINT);
        }
    }
    let deadline = Instant::now() + grace;
    loop {
        let mut running = 0;
        for c in members.iter_mut().filter_map(|m| m.child.as_mut()) {
            if matches!(c.try_wait(), Ok(None)) {
                running += 1;
            }
        }
        if running == 0 || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for m in members.iter_mut() {
        if let Some(mut c) = m.child.take() {
            if matches!(c.try_wait(), Ok(None)) {
                eprintln!(
                    "[launch] {} did not stop within {:.1} s: killed",
                    m.node.name,
                    grace.as_secs_f64()
                );
            }
            signal_group(&c, libc::SIGKILL);
            let _ = c.wait();
        }
    }
}

/// `nerve launch`.
/// The launch's scratch directory (`/tmp/nerve-launch-<pid>`: the nodes' parameter files),
/// removed when the launch ends however it ends: an error, a panic, or Ctrl-C.
struct RunDir(PathBuf);

impl RunDir {
    fn make() -> Result<RunDir> {
        let dir = std::env::temp_dir().join(format!("nerve-launch-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(RunDir(dir))
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(domain: u32, a: LaunchArgs) -> Result<()> {
    let mut overrides = BTreeMap::new();
    for kv in &a.args {
        let Some((k, v)) = kv.split_once('=') else {
            bail!("--arg takes NAME=VALUE, got {kv:?}");
        };
        overrides.insert(k.to_owned(), v.to_owned());
    }
    let nodes = file::load(&a.file, &overrides)?;
    if nodes.is_empty() {
        bail!("{} starts no node", a.file.display());
    }
    let run_dir = RunDir::make()?;
    if a.dry_run {
        for n in &nodes {
            println!("{}: {}", n.name, n.command.join(" "));
            for (k, v) in nerve_env(n, domain, &run_dir.0)? {
                println!("    {k}={v}");
            }
        }
        return Ok(());
    }
    signals::install();
    let result = supervise(nodes, domain, &run_dir.0, a.grace);
    drop(run_dir);
    match nerve::registry::clean(domain) {
        Ok(r) if !r.stale.is_empty() => eprintln!(
            "[launch] removed {} segments the nodes left in domain {domain}",
            r.stale.len()
        ),
        Ok(_) => {}
        Err(e) => eprintln!("[launch] could not clean domain {domain}: {e}"),
    }
    result
}

fn supervise(
    nodes: Vec<Node>,
    domain: u32,
    run_dir: &std::path::Path,
    grace: Duration,
) -> Result<()> {
    // The launch holds the log topic open: the records of a node that crashed or exited stay
    // readable (`nerve log`) while the robot runs.
    let _log = nerve::log::log_topic(domain)
        .map_err(|e| eprintln!("[launch] the log topic could not be opened: {e}"))
        .ok();
    let mut members: Vec<Member> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let started = wait_ready(&node, domain).and_then(|()| spawn(&node, domain, run_dir));
        match started {
            Ok(child) => {
                eprintln!("[launch] started {} (pid {})", node.name, child.id());
                members.push(Member {
                    node,
                    child: Some(child),
                    started: Instant::now(),
                    restarts: 0,
                    respawn_at: None,
                });
            }
            Err(e) => {
                stop_all(&mut members, grace, domain);
                return Err(e);
            }
        }
    }
    loop {
        if signals::stopped() {
            eprintln!(
                "[launch] stopping {} nodes",
                members.iter().filter(|m| m.child.is_some()).count()
            );
            stop_all(&mut members, grace, domain);
            return Ok(());
        }
        let now = Instant::now();
        let mut failed = None;
        for m in members.iter_mut() {
            if let Some(at) = m.respawn_at.filter(|at| *at <= now) {
                let _ = at;
                m.respawn_at = None;
                match spawn(&m.node, domain, run_dir) {
                    Ok(c) => {
                        eprintln!(
                            "[launch] restarted {} (pid {}, restart {})",
                            m.node.name,
                            c.id(),
                            m.restarts
                        );
                        m.child = Some(c);
                        m.started = now;
                    }
                    Err(e) => eprintln!("[launch] {e:#}"),
                }
            }
            let Some(c) = m.child.as_mut() else { continue };
            let Ok(Some(status)) = c.try_wait() else {
                continue;
            };
            m.child = None;
            if m.node.required {
                failed = Some(format!(
                    "required node {} exited ({status}): the launch stopped",
                    m.node.name
                ));
            } else if m.node.respawn {
                if m.started.elapsed() >= HEALTHY_RUN {
                    m.restarts = 0;
                }
                m.restarts += 1;
                let delay = Duration::from_secs_f64(m.node.respawn_delay)
                    .saturating_mul(1 << (m.restarts - 1).min(16))
                    .min(MAX_BACKOFF);
                eprintln!(
                    "[launch] {} exited ({status}); restarting in {:.2} s",
                    m.node.name,
                    delay.as_secs_f64()
                );
                m.respawn_at = Some(now + delay);
            } else {
                eprintln!("[launch] {} exited ({status})", m.node.name);
            }
        }
        if let Some(why) = failed {
            stop_all(&mut members, grace, domain);
            bail!("{why}");
        }
        if members
            .iter()
            .all(|m| m.child.is_none() && m.respawn_at.is_none())
        {
            eprintln!("[launch] every node has exited");
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
