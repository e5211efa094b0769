//! Child processes for cross-process tests: the test binary re-executes itself, running one
//! test function (the *entry*) in a *role* named by `NERVE_TEST_ROLE`. The entry does the
//! role's work when the variable is set and returns at once otherwise:
//!
//! ```no_run
//! # use nerve_testing::process;
//! #[test]
//! fn child_entry() {
//!     let Some(role) = process::role() else { return };
//!     println!("READY {role}");
//! }
//!
//! #[test]
//! fn parent() {
//!     let mut child = process::spawn_self("child_entry", "echo", 7, &[]);
//!     assert_eq!(child.wait_line("READY"), "READY echo");
//! }
//! ```

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};

/// The variable naming a child's role.
pub const ROLE_VAR: &str = "NERVE_TEST_ROLE";

/// The role this process was re-executed for, if any.
pub fn role() -> Option<String> {
    std::env::var(ROLE_VAR).ok()
}

/// An environment variable a child needs, or a panic naming it.
pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"))
}

/// [`env`] parsed as a number.
pub fn env_u64(name: &str) -> u64 {
    env(name)
        .parse()
        .unwrap_or_else(|_| panic!("{name} is not a number"))
}

/// Re-executes this test binary running only test `entry`, in `role`, on `NERVE_DOMAIN =
/// domain`, with `vars` added to its environment. Its stdout is piped (read it with
/// [`ChildGuard::wait_line`]); its stderr goes to the test's.
pub fn spawn_self(entry: &str, role: &str, domain: u32, vars: &[(&str, String)]) -> ChildGuard {
    spawn_self_in(None, entry, role, domain, vars)
}

/// [`spawn_self`], in a container of its own named `host` when given (see
/// [`crate::container`]: its pid namespace and `/proc` are its own, `/dev/shm` is shared).
pub fn spawn_self_in(
    host: Option<&str>,
    entry: &str,
    role: &str,
    domain: u32,
    vars: &[(&str, String)],
) -> ChildGuard {
    let exe = std::env::current_exe().expect("the test binary's path");
    let args = [entry, "--exact", "--nocapture", "--test-threads=1"];
    let mut cmd = match host {
        Some(host) => crate::container::command(host, exe, args),
        None => {
            let mut c = Command::new(exe);
            c.args(args);
            c
        }
    };
    cmd.env(ROLE_VAR, role)
        .env("NERVE_DOMAIN", domain.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    ChildGuard::new(cmd.spawn().expect("spawn the test binary"))
}

/// A child process killed (SIGKILL) and reaped when dropped, with a buffered reader on its
/// stdout that keeps what it read ahead between calls.
pub struct ChildGuard {
    child: Option<Child>,
    stdout: Option<BufReader<ChildStdout>>,
}

impl ChildGuard {
    /// Guards `child` (its stdout, if piped, is read through the guard).
    pub fn new(mut child: Child) -> Self {
        let stdout = child.stdout.take().map(BufReader::new);
        ChildGuard {
            child: Some(child),
            stdout,
        }
    }

    fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("the child is still guarded")
    }

    /// The child's pid.
    pub fn id(&self) -> u32 {
        self.child
            .as_ref()
            .expect("the child is still guarded")
            .id()
    }

    /// Reads the child's stdout until a line containing `prefix`; returns that line from
    /// `prefix` on, trimmed (libtest prints "test entry ... " without a newline before the
    /// child's first line). Panics if the child closes its stdout first.
    pub fn wait_line(&mut self, prefix: &str) -> String {
        let out = self.stdout.as_mut().expect("the child's stdout is piped");
        let mut line = String::new();
        loop {
            line.clear();
            if out.read_line(&mut line).expect("read the child's stdout") == 0 {
                panic!("child exited before printing {prefix}");
            }
            if let Some(at) = line.find(prefix) {
                return line[at..].trim().to_owned();
            }
        }
    }

    /// The next line of the child's stdout (trimmed), None once it is closed.
    pub fn read_line(&mut self) -> Option<String> {
        let out = self.stdout.as_mut()?;
        let mut line = String::new();
        match out.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_owned()),
        }
    }

    /// Waits for the `RESULT` line, then for a successful exit; returns the line.
    pub fn finish(mut self) -> String {
        let line = self.wait_line("RESULT");
        let status = self.wait();
        assert!(status.success(), "child failed: {status}");
        line
    }

    /// Waits for the child to exit.
    pub fn wait(&mut self) -> ExitStatus {
        self.child().wait().expect("wait for the child")
    }

    /// Reads the rest of the child's stdout, then waits for it to exit.
    pub fn wait_with_output(mut self) -> (ExitStatus, String) {
        let mut rest = String::new();
        if let Some(out) = self.stdout.as_mut() {
            let _ = out.read_to_string(&mut rest);
        }
        (self.wait(), rest)
    }

    /// `kill -9` of the child and every process under it (a container's process under its
    /// `unshare`), then reaps it and waits until they have all exited: when this returns,
    /// each of them has closed its files and dropped its locks.
    pub fn kill9(&mut self) {
        let below = descendants(self.id());
        for &pid in &below {
            // SAFETY: kill(2) of a process under our own child (it cannot be reaped, and its
            // pid reused, before our child is: we have not reaped that yet).
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        let child = self.child();
        let _ = child.kill();
        let _ = child.wait();
        let end = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while below.iter().any(|&pid| running(pid)) && std::time::Instant::now() < end {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Sends `signal` (e.g. `libc::SIGINT`) without waiting.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) with a pid we spawned and have not reaped yet (the guard holds it).
        unsafe { libc::kill(self.id() as i32, signal) };
    }

    /// Whether the child has exited (reaping it if so).
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child().try_wait().ok().flatten()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Every process under `pid` (children, theirs, ...), from `/proc/<pid>/task/*/children`.
fn descendants(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let kids = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            for k in kids.split_whitespace().filter_map(|k| k.parse().ok()) {
                out.push(k);
                todo.push(k);
            }
        }
    }
    out
}

/// Whether any thread of `pid` still runs (a thread group leader shows as a zombie while its
/// other threads are still exiting, with the files they share still open).
fn running(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        std::fs::read_to_string(t.path().join("stat")).is_ok_and(|s| {
            let state = s
                .rfind(')')
                .and_then(|i| s[i + 1..].split_whitespace().next());
            !matches!(state, Some("Z" | "X") | None)
        })
    })
}

/// The value of `name=VALUE` in a `RESULT a=1 b=2` line.
pub fn field(line: &str, name: &str) -> u64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} missing in {line}"))
        .parse()
        .unwrap_or_else(|_| panic!("{name} is not a number in {line}"))
}

/// Stress scale: `NERVE_STRESS_SCALE` (default 1.0) multiplies every message count.
pub fn scaled(n: u64) -> u64 {
    let s: f64 = std::env::var("NERVE_STRESS_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    ((n as f64) * s).max(1.0) as u64
}

/// The high-water mark of this process's resident memory (`VmHWM`), in bytes.
pub fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/self/status");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|k| k.parse().ok())
        .expect("VmHWM in kB");
    kib << 10
}
