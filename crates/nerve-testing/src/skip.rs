//! A test that cannot run its main case says so, and under CI it fails unless it is on the
//! committed list of allowed skips (`ci/allowed-skips.txt`, one `id | reason` a line).
//!
//! ```no_run
//! # fn make_namespaces() -> Result<(), String> { Ok(()) }
//! #[test]
//! fn hosts_exchange_topics() {
//!     let net = match make_namespaces() {
//!         Ok(n) => n,
//!         Err(why) => return nerve_testing::skip("cli/bridge/hosts_exchange_topics", &why),
//!     };
//! }
//! ```
//!
//! Every skip is appended to `$NERVE_SKIP_LOG` (set by `ci/test.sh`), so the summary at the end
//! of `make test` lists each one with its reason even though libtest hides a passing test's
//! output.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The committed list of allowed skips.
pub fn allowed_skips_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/allowed-skips.txt")
}

/// Whether this run is CI's (`CI` set to anything but `false`/`0`/empty).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Whether `id` is on the list of allowed skips (a line `id | reason`; `#` starts a comment).
pub fn is_allowed(id: &str) -> bool {
    std::fs::read_to_string(allowed_skips_file())
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| l.split_once('|'))
        .any(|(allowed, _)| allowed.trim() == id)
}

/// The test `id` cannot run its main case, for `reason`: recorded in `$NERVE_SKIP_LOG` and
/// printed; under CI a panic (the test fails) unless `id` is an allowed skip. The caller
/// returns right after.
pub fn skip(id: &str, reason: &str) {
    let reason = reason.replace(['\n', '\t'], " ");
    let allowed = is_allowed(id);
    let fails = under_ci() && !allowed;
    if let Some(log) = std::env::var_os("NERVE_SKIP_LOG") {
        let verdict = if fails { "FAILED" } else { "skipped" };
        let line = format!("rust\t{id}\t{verdict}\t{reason}\n");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log);
        // One write of one line: lines from tests running at once do not interleave.
        if let Err(e) = file.and_then(|mut f| f.write_all(line.as_bytes())) {
            eprintln!(
                "could not record the skip in {}: {e}",
                log.to_string_lossy()
            );
        }
    }
    if fails {
        panic!(
            "{id} cannot run its main case under CI: {reason}. Make it runnable on this machine, \
             or add `{id} | <why>` to ci/allowed-skips.txt"
        );
    }
    eprintln!("SKIPPED {id}: {reason}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_list_is_read() {
        let text = std::fs::read_to_string(allowed_skips_file()).expect("ci/allowed-skips.txt");
        let first = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .find_map(|l| l.split_once('|'))
            .map(|(id, _)| id.trim().to_string());
        if let Some(id) = first {
            assert!(is_allowed(&id));
        }
        assert!(!is_allowed("no/such/test"));
    }
}
