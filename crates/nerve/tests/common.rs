//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

/// A domain no other test (or test process) uses, so tests run in parallel.
pub fn unique_domain() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    1_000_000 + (std::process::id() % 40_000) * 100 + n
}

/// Removes a domain's directory when dropped.
pub struct DomainGuard(pub u32);

impl Drop for DomainGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(self.0));
    }
}

pub fn domain() -> (u32, DomainGuard) {
    let d = unique_domain();
    (d, DomainGuard(d))
}
