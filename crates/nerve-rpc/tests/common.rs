//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

/// A domain no other test (or test process) uses, so tests run in parallel.
pub fn unique_domain() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    2_000_000 + (std::process::id() % 40_000) * 100 + n
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

/// Re-executes this test binary running only test `entry`, with `NERVE_RPC_CHILD=role`.
pub fn spawn_child(entry: &str, role: &str, domain: u32) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args([entry, "--exact", "--nocapture", "--test-threads=1"])
        .env("NERVE_RPC_CHILD", role)
        .env("NERVE_DOMAIN", domain.to_string())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the test binary")
}

/// The role this process was re-executed for, if any.
pub fn child_role() -> Option<String> {
    std::env::var("NERVE_RPC_CHILD").ok()
}
