//! Processes in containers of their own, for tests of what must hold across pid namespaces:
//! [`command`] runs a program under `unshare --pid --mount --uts --fork --mount-proc
//! --kill-child` (a pid namespace where it is pid 1, a mount namespace with its own `/proc`,
//! a host name of its own) while it shares the caller's `/dev/shm` (or `$NERVE_SHM_DIR`), as
//! containers started with `--ipc=host` or a shared tmpfs volume do. Killing the `unshare`
//! process (`ChildGuard::kill9`) kills the container's process with SIGKILL: a `kill -9`
//! across the namespace boundary. Needs root (or unprivileged user namespaces, which these
//! tests do not use); [`check`] says why when the namespaces cannot be made.

use std::ffi::OsStr;
use std::process::{Command, Stdio};

/// Whether containers can be made here; the reason when not.
pub fn check() -> Result<(), String> {
    let out = command("probe", "sh", ["-c", "test $$ = 1"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `unshare` (util-linux): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`unshare --pid --mount --uts` failed (needs root): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// `program args` in a container of its own named `host` (its host name).
pub fn command<I, S>(host: &str, program: impl AsRef<OsStr>, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new("unshare");
    cmd.args([
        "--pid",
        "--mount",
        "--uts",
        "--fork",
        "--mount-proc",
        "--kill-child",
        "sh",
        "-c",
        "hostname \"$0\" && exec \"$@\"",
        host,
    ])
    .arg(program)
    .args(args);
    cmd
}
