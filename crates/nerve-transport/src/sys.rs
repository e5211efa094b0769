//! Operating-system plumbing the other nerve crates share, so that none of them reaches into
//! the memory layer itself: the futex wrapper, process identities (a [`ProcessId`] holds in
//! every pid namespace; a bare pid does not, so nerve offers no check by pid), liveness and
//! scope. Internal: the `nerve` facade does not re-export it (its clock is [`crate::time`]).
//!
//! **Poisoned locks.** nerve's one policy: a lock poisoned by a panic is recovered ([`lock`]),
//! never unwrapped. A panic in a user's callback (a service handler, a node's tick) is caught
//! and reported where it happened; it must not make every later call on the same object panic
//! too. So the state behind each of nerve's locks is kept consistent at every point a panic can
//! leave it (no invariant spans a call into user code with the lock held).

pub use nerve_shm::futex;
pub use nerve_shm::ProcessId;
pub use nerve_shm::{liveness, scope};

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`, recovering it if a panic poisoned it (see the module's policy).
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
