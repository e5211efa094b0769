//! Real-time setup (only when asked): `SCHED_FIFO`, CPU pinning, `mlockall`, and the report of
//! what could not be done.

use std::fmt;

/// One real-time action the scheduler attempted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtAction {
    /// What was attempted, e.g. `SCHED_FIFO priority 80 on lane rt-p80-cpu1`.
    pub what: String,
    /// `None` if it worked; otherwise why not (the OS error and what to do).
    pub error: Option<String>,
}

/// What real-time setup was asked for and what of it the OS refused
/// ([`Scheduler::rt_report`](crate::Scheduler::rt_report)). Empty when no node asked for RT.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtReport {
    /// Every action attempted, in order.
    pub actions: Vec<RtAction>,
}

impl RtReport {
    /// Whether every requested action succeeded (true when nothing was requested).
    pub fn all_ok(&self) -> bool {
        self.actions.iter().all(|a| a.error.is_none())
    }

    /// The actions that failed.
    pub fn failures(&self) -> impl Iterator<Item = &RtAction> {
        self.actions.iter().filter(|a| a.error.is_some())
    }

    pub(crate) fn push(&mut self, what: String, result: Result<(), String>) {
        if let Err(e) = &result {
            tracing::warn!(action = %what, error = %e, "real-time setup not done; running without it");
        }
        self.actions.push(RtAction {
            what,
            error: result.err(),
        });
    }
}

impl fmt::Display for RtReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.actions.is_empty() {
            return writeln!(f, "no real-time setup requested");
        }
        for a in &self.actions {
            match &a.error {
                None => writeln!(f, "ok      {}", a.what)?,
                Some(e) => writeln!(f, "FAILED  {}: {}", a.what, e)?,
            }
        }
        Ok(())
    }
}

fn os_err(hint: &str) -> String {
    let e = std::io::Error::last_os_error();
    format!("{e}; {hint}")
}

/// `mlockall` for the length of a run: [`MemoryLock::acquire`] locks, dropping the guard
/// unlocks. Left on after the run, every later allocation of the process (thousands of async
/// tasks, say) would be faulted in and locked as it is made.
pub(crate) struct MemoryLock(());

impl MemoryLock {
    /// Locks the process's memory; the guard is `None` when it failed or memory was already
    /// locked by someone else (then it is theirs to undo).
    pub(crate) fn acquire() -> (Result<(), String>, Option<MemoryLock>) {
        let before = locked_kb();
        let r = lock_memory();
        let ours = r.is_ok() && before == Some(0);
        (r, ours.then_some(MemoryLock(())))
    }
}

impl Drop for MemoryLock {
    fn drop(&mut self) {
        // SAFETY: munlockall takes no arguments and touches no user memory.
        unsafe { libc::munlockall() };
    }
}

/// `VmLck` of this process in kB (`/proc/self/status`).
fn locked_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmLck:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `mlockall(MCL_CURRENT | MCL_FUTURE)` for the whole process.
pub(crate) fn lock_memory() -> Result<(), String> {
    // SAFETY: mlockall takes flags only and touches no user memory.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if rc == 0 {
        Ok(())
    } else {
        Err(os_err(
            "needs CAP_IPC_LOCK or a larger RLIMIT_MEMLOCK (ulimit -l / limits.conf)",
        ))
    }
}

/// `SCHED_FIFO` at `priority` for the calling thread.
pub(crate) fn set_fifo(priority: u8) -> Result<(), String> {
    let param = libc::sched_param {
        sched_priority: priority as libc::c_int,
    };
    // SAFETY: pthread_self() is the calling thread; `param` is a valid sched_param.
    let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "{}; needs CAP_SYS_NICE or an RLIMIT_RTPRIO ≥ {priority} (limits.conf rtprio), \
             and a cgroup with real-time runtime",
            std::io::Error::from_raw_os_error(rc)
        ))
    }
}

/// Back to `SCHED_OTHER` (normal time sharing) for the calling thread.
pub(crate) fn set_other() -> Result<(), String> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pthread_self() is the calling thread; `param` is a valid sched_param.
    let rc =
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_OTHER, &param) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(rc).to_string())
    }
}

/// `SCHED_IDLE` (below every normal thread) for the calling thread.
pub(crate) fn set_idle() -> Result<(), String> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pthread_self() is the calling thread; `param` is a valid sched_param.
    let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_IDLE, &param) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(rc).to_string())
    }
}

/// Pins the calling thread to `cpu`.
pub(crate) fn pin_to(cpu: usize) -> Result<(), String> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(format!("cpu {cpu} is out of range"));
    }
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` < CPU_SETSIZE, checked above, so CPU_SET stays inside `set`.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: pid 0 is the calling thread; `set` is valid for the given size.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(os_err(
            "is the CPU online and inside this process's cpuset?",
        ))
    }
}
