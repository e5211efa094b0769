//! Operating-system plumbing the other nerve crates share, so that none of them reaches into
//! the memory layer itself: the futex wrapper and process identities. Internal: the `nerve`
//! facade does not re-export it (its clock is [`crate::time`]).

pub use nerve_shm::futex;
pub use nerve_shm::ProcessId;

/// Whether a process with this pid is running (not a zombie). A pid alone is not an identity
/// (pids are reused): records that outlive a process store a [`ProcessId`] instead.
pub fn pid_alive(pid: u32) -> bool {
    pid != 0 && nerve_shm::liveness::start_time(pid).is_some()
}
