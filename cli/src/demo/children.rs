//! The processes of the demo graph, seen from both sides.
//!
//! - The parent (`nerve demo`) holds them in [`Children`]: started with its pid, stopped with
//!   SIGINT (the scheduler in each runs every node's shutdown) and, if one is still there
//!   after a grace period, SIGKILL. Dropping the set stops them too, so no early return or
//!   panic of the parent leaves one behind.
//! - Each child calls [`end_with_parent`] first: when the parent dies without stopping them
//!   (`kill -9`, a crash), the kernel sends them SIGTERM, so no orphan keeps a topic alive.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// The signal a child gets when its parent dies. SIGTERM, not SIGKILL: the scheduler in the
/// child catches it and runs every node's shutdown, so publishers leave their topics
/// cleanly. Before the scheduler runs, and after it returns, SIGTERM's default action
/// ends the process at once: either way it does not outlive its parent by more than a
/// shutdown (the scheduler bounds that at 2 s).
const PARENT_DEATH_SIGNAL: libc::c_int = libc::SIGTERM;

/// Makes the kernel send this process SIGTERM when the process `parent` dies, and fails if
/// it is already gone: the first thing a demo child does.
///
/// The death signal follows the parent's *thread* that spawned this process; `nerve demo`
/// spawns its children from its main thread, which lives as long as the process.
pub fn end_with_parent(parent: u32) -> anyhow::Result<()> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes integers only and changes only this process's
    // parent-death signal.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            PARENT_DEATH_SIGNAL as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error())
            .context("cannot ask the kernel to end this process with nerve demo (prctl)");
    }
    // The parent may have died between our start and the prctl above: then no signal
    // comes, and this process was handed to another parent (init or a subreaper).
    // SAFETY: getppid() has no preconditions and cannot fail.
    let now = unsafe { libc::getppid() };
    if u32::try_from(now).ok() != Some(parent) {
        anyhow::bail!("the nerve demo that started this process (pid {parent}) is gone");
    }
    Ok(())
}

struct Member {
    name: &'static str,
    child: Child,
    /// Set once reaped: from then on its pid may belong to another process and is never
    /// signalled.
    status: Option<ExitStatus>,
}

/// The demo's child processes.
pub struct Children {
    members: Vec<Member>,
}

/// How a child that did not end on its own ended.
fn ended_well(status: ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt as _;
    // SIGINT/SIGTERM before its scheduler caught them (a very short demo) is a stop too.
    status.success() || matches!(status.signal(), Some(libc::SIGINT | libc::SIGTERM))
}

impl Children {
    pub fn new() -> Self {
        Children {
            members: Vec::new(),
        }
    }

    /// Starts `exe` with `args`, told this process's pid (`--parent`); returns its pid.
    pub fn spawn(
        &mut self,
        name: &'static str,
        exe: &Path,
        args: &[String],
    ) -> anyhow::Result<u32> {
        let child = Command::new(exe)
            .args(args)
            .args(["--parent", &std::process::id().to_string()])
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start the demo {name} process ({})", exe.display()))?;
        let pid = child.id();
        self.members.push(Member {
            name,
            child,
            status: None,
        });
        Ok(pid)
    }

    /// A child that ended although nobody asked it to: why, on one line.
    pub fn ended_early(&mut self) -> Option<String> {
        for m in &mut self.members {
            if m.status.is_some() {
                continue;
            }
            if let Ok(Some(status)) = m.child.try_wait() {
                m.status = Some(status);
                return Some(format!(
                    "the demo {} process (pid {}) ended on its own ({status}); see its message above",
                    m.name,
                    m.child.id()
                ));
            }
        }
        None
    }

    /// Stops every child still running: SIGINT, then after `grace` SIGKILL. An error names
    /// the ones that had to be killed or failed.
    pub fn stop(&mut self, grace: Duration) -> anyhow::Result<()> {
        for m in self.members.iter().filter(|m| m.status.is_none()) {
            if let Ok(pid) = libc::pid_t::try_from(m.child.id()) {
                // SAFETY: kill(2) on a child of ours that is not reaped yet (status is None),
                // so the pid is still its own.
                unsafe { libc::kill(pid, libc::SIGINT) };
            }
        }
        let deadline = Instant::now() + grace;
        let mut problems = Vec::new();
        for m in &mut self.members {
            if m.status.is_some() {
                continue;
            }
            let status = loop {
                match m.child.try_wait() {
                    Ok(Some(s)) => break Some(s),
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    _ => break None,
                }
            };
            let (status, killed) = match status {
                Some(s) => (s, false),
                None => {
                    let _ = m.child.kill();
                    match m.child.wait() {
                        Ok(s) => (s, true),
                        Err(_) => continue,
                    }
                }
            };
            m.status = Some(status);
            if killed {
                problems.push(format!(
                    "the demo {} process (pid {}) did not stop within {grace:?} and was killed",
                    m.name,
                    m.child.id()
                ));
            } else if !ended_well(status) {
                problems.push(format!(
                    "the demo {} process (pid {}) failed ({status})",
                    m.name,
                    m.child.id()
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            anyhow::bail!(problems.join("; "))
        }
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        let _ = self.stop(Duration::from_secs(3));
    }
}
