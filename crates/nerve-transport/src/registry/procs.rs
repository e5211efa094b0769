//! The processes a watch has seen holding endpoints or in-process topics, and how it learns
//! that one of them died without polling every topic: a pidfd per process (Linux 5.3+),
//! which becomes readable when the process exits, all checked with one `poll` of timeout 0
//! each time the watch wakes. Where pidfds are unavailable (an older kernel, a sandbox), the
//! process's `/proc` entry is checked instead, also each time the watch wakes.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use nerve_shm::ProcessId;

/// A pidfd for `pid`, or None (no such process, or no pidfd support).
fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        let pid = libc::pid_t::try_from(pid).ok()?;
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; it
        // touches no memory of ours.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd < 0 {
            return None;
        }
        // SAFETY: the kernel just gave us this descriptor; nobody else owns it.
        Some(unsafe { OwnedFd::from_raw_fd(fd as i32) })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// Processes being watched for their death.
#[derive(Default)]
pub(crate) struct Procs {
    /// Each live process seen, with its pidfd (None: checked through `/proc`).
    known: HashMap<ProcessId, Option<OwnedFd>>,
}

impl Procs {
    /// Whether `id` is alive; from now on its death is noticed by [`Procs::reap`].
    pub(crate) fn track(&mut self, id: ProcessId) -> bool {
        if id.pid == 0 {
            return false;
        }
        if self.known.contains_key(&id) {
            return true;
        }
        // The pidfd first, then the identity: if the start time still matches once the pidfd
        // is open, the pidfd is of that very process (not of a later one that reused the pid).
        let fd = pidfd_open(id.pid);
        if !id.is_alive() {
            return false;
        }
        self.known.insert(id, fd);
        true
    }

    /// The tracked processes that died since the last call (forgotten from now on).
    pub(crate) fn reap(&mut self) -> Vec<ProcessId> {
        let (ids, mut fds): (Vec<ProcessId>, Vec<libc::pollfd>) = self
            .known
            .iter()
            .filter_map(|(id, fd)| {
                let fd = fd.as_ref()?.as_raw_fd();
                Some((
                    *id,
                    libc::pollfd {
                        fd,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ))
            })
            .unzip();
        let mut dead = Vec::new();
        if !fds.is_empty() {
            // SAFETY: `fds` is a live array of `fds.len()` pollfd structs; timeout 0 never
            // blocks.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
            if n > 0 {
                dead.extend(
                    ids.iter()
                        .zip(&fds)
                        .filter(|(_, p)| p.revents != 0)
                        .map(|(id, _)| *id),
                );
            }
        }
        dead.extend(
            self.known
                .iter()
                .filter(|(id, fd)| fd.is_none() && !id.is_alive())
                .map(|(id, _)| *id),
        );
        for id in &dead {
            self.known.remove(id);
        }
        dead
    }

    /// Stops watching the processes for which `keep` is false.
    pub(crate) fn retain(&mut self, keep: impl Fn(&ProcessId) -> bool) {
        self.known.retain(|id, _| keep(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_that_exits_is_reaped_once() {
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .unwrap();
        let id = ProcessId {
            pid: child.id(),
            start_time: nerve_shm::liveness::start_time(child.id()).unwrap(),
        };
        let mut procs = Procs::default();
        assert!(procs.track(id));
        assert!(procs.track(ProcessId::current()));
        assert!(procs.reap().is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(procs.reap(), vec![id]);
        assert!(procs.reap().is_empty());
        assert!(!procs.track(id), "a dead process is not tracked again");
        assert!(!procs.track(ProcessId {
            pid: 0,
            start_time: 0
        }));
    }
}
