//! Internal: what nerve's test suites share, so no suite keeps a copy of its own.
//!
//! - [`domain()`]: a `NERVE_DOMAIN` no other test or test process uses (tests run in
//!   parallel), whose directory in `/dev/shm` is removed when the guard drops;
//! - [`process`]: the test binary re-executed as a child process in a named role, killed when
//!   its guard drops so a failing test leaves no process behind, with a line protocol on its
//!   stdout;
//! - [`payload`]: deterministic patterns and checksums, so a receiver checks every byte it got;
//! - [`container`]: a process in a pid and mount namespace of its own (a container sharing
//!   `/dev/shm`);
//! - [`hostile`]: a process that writes what no nerve process writes into a live segment;
//! - [`skip()`]: a test that cannot run its main case says why, and fails under CI unless it is
//!   an allowed skip (`ci/allowed-skips.txt`).
//!
//! A dev-dependency only: nothing in the product depends on it.
#![warn(missing_docs)]

pub mod container;
pub mod hostile;
pub mod mapping;
pub mod netns;
pub mod payload;
pub mod process;
pub mod skip;

pub use skip::skip;

use std::sync::atomic::{AtomicU32, Ordering};

/// A domain no other test (or test process) uses: 100 000 000 + 1 000 × (pid mod 4 000 000) + a
/// per-process counter, far from the small domains people use by hand.
pub fn unique_domain() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed) % 1000;
    100_000_000 + (std::process::id() % 4_000_000) * 1000 + n
}

/// Removes a domain's directory (every topic segment in it) when dropped.
#[must_use = "dropping the guard removes the domain's directory at once"]
pub struct DomainGuard(pub u32);

impl Drop for DomainGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(nerve_transport::registry::domain_dir(self.0));
    }
}

/// A fresh domain and the guard that cleans it up: `let (domain, _guard) = domain();`.
pub fn domain() -> (u32, DomainGuard) {
    let d = unique_domain();
    (d, DomainGuard(d))
}
