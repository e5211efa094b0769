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
        let _ = std::fs::remove_dir_all(nerve_transport::registry::domain_dir(self.0));
    }
}

pub fn domain() -> (u32, DomainGuard) {
    let d = unique_domain();
    (d, DomainGuard(d))
}

/// A child process killed when dropped (a failing test leaves no process behind).
pub struct ChildGuard(Option<std::process::Child>);

impl ChildGuard {
    /// Waits for the child to exit and collects its output.
    pub fn wait_with_output(mut self) -> std::process::Output {
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl std::ops::Deref for ChildGuard {
    type Target = std::process::Child;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref().unwrap()
    }
}

impl std::ops::DerefMut for ChildGuard {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.0.as_mut().unwrap()
    }
}

/// Re-executes this test binary running only test `entry`, with `NERVE_RPC_CHILD=role`.
pub fn spawn_child(entry: &str, role: &str, domain: u32) -> ChildGuard {
    ChildGuard(Some(
        std::process::Command::new(std::env::current_exe().unwrap())
            .args([entry, "--exact", "--nocapture", "--test-threads=1"])
            .env("NERVE_RPC_CHILD", role)
            .env("NERVE_DOMAIN", domain.to_string())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn the test binary"),
    ))
}

/// The role this process was re-executed for, if any.
pub fn child_role() -> Option<String> {
    std::env::var("NERVE_RPC_CHILD").ok()
}
