//! The processes a watch has seen holding endpoints or in-process topics, and how it learns
//! that one of them died without polling every topic: each one's life file (see
//! `nerve_shm::liveness`) stays open, and one `fcntl` per process asks whether its lock is
//! still held each time the watch wakes. That holds in every pid namespace, where a pidfd
//! would not (a pid from another container names nobody, or someone else, here).

use std::collections::HashMap;

use nerve_shm::liveness::Watched;
use nerve_shm::ProcessId;

/// Processes being watched for their death.
#[derive(Default)]
pub(crate) struct Procs {
    /// Each live process seen.
    known: HashMap<ProcessId, Watched>,
}

impl Procs {
    /// Whether `id` is alive; from now on its death is noticed by [`Procs::reap`].
    pub(crate) fn track(&mut self, id: ProcessId) -> bool {
        if self.known.contains_key(&id) {
            return true;
        }
        match id.watch() {
            Some(w) => {
                self.known.insert(id, w);
                true
            }
            None => false,
        }
    }

    /// The tracked processes that died since the last call (forgotten from now on).
    pub(crate) fn reap(&mut self) -> Vec<ProcessId> {
        let dead: Vec<ProcessId> = self
            .known
            .iter()
            .filter(|(_, w)| !w.is_alive())
            .map(|(id, _)| *id)
            .collect();
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
        // A process without a life file of its own: the fallback identity (pid + start time).
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .unwrap();
        let id = ProcessId {
            pid: child.id(),
            token: nerve_shm::liveness::LEGACY
                | nerve_shm::liveness::start_time(child.id()).unwrap(),
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
        assert!(!procs.track(ProcessId::NONE));
    }
}
