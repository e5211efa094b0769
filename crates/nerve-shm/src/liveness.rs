//! Which processes are alive. A pid alone is not an identity (pids are reused), so every record
//! stores the pid together with the process start time from `/proc/<pid>/stat`.

use std::sync::OnceLock;

/// A process identity: pid + start time (clock ticks since boot; 0 where unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProcessId {
    /// The pid.
    pub pid: u32,
    /// Start time in clock ticks since boot, 0 if unknown.
    pub start_time: u64,
}

impl ProcessId {
    /// This process.
    pub fn current() -> Self {
        static ME: OnceLock<ProcessId> = OnceLock::new();
        *ME.get_or_init(|| {
            let pid = std::process::id();
            ProcessId {
                pid,
                start_time: start_time(pid).unwrap_or(0),
            }
        })
    }

    /// True while the process that owned this identity is still running.
    pub fn is_alive(&self) -> bool {
        if self.pid == 0 {
            return false;
        }
        if self.pid == std::process::id() {
            return self.start_time == ProcessId::current().start_time;
        }
        match start_time(self.pid) {
            Some(t) => self.start_time == 0 || t == self.start_time,
            None => false,
        }
    }
}

/// Reads field 22 (starttime) of `/proc/<pid>/stat`. None if the process does not exist or is
/// a zombie.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces: parse after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    // `rest` starts at field 3 (state); starttime is field 22, i.e. 19 further on.
    fields.nth(18)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "reads /proc, which miri isolates")]
    fn current_process_is_alive_and_unknown_pid_is_not() {
        assert!(ProcessId::current().is_alive());
        assert!(ProcessId::current().start_time > 0);
        let gone = ProcessId {
            pid: u32::MAX - 7,
            start_time: 1,
        };
        assert!(!gone.is_alive());
    }
}
