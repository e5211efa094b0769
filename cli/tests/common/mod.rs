//! What the CLI test programs share: running the built `nerve` as a user does.

use std::process::{Command, Stdio};

pub const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

/// `nerve args` in `domain`: (status, stdout, stderr).
pub fn nerve(domain: u32, args: &[&str]) -> (i32, String, String) {
    nerve_env(&[("NERVE_DOMAIN", domain.to_string())], args)
}

/// `nerve args` with these environment variables: (status, stdout, stderr).
pub fn nerve_env(env: &[(&str, String)], args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new(NERVE);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    run(cmd)
}

/// Runs `cmd` (a `nerve` command line, without RUST_LOG and stdin): (status, stdout, stderr).
pub fn run(mut cmd: Command) -> (i32, String, String) {
    let out = cmd
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run nerve");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts that `nerve args` failed with one error line (status 1) containing `says`.
pub fn assert_fails(domain: u32, args: &[&str], says: &str) {
    let (code, out, err) = nerve(domain, args);
    assert_eq!(code, 1, "{args:?} should fail: {out}{err}");
    assert!(
        err.contains(says) && err.lines().count() == 1,
        "{args:?}: expected one line with {says:?}, got: {err}"
    );
}

/// `nerve args` in `domain`, which must succeed: its stdout.
pub fn ok(domain: u32, args: &[&str]) -> String {
    let (code, out, err) = nerve(domain, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}
