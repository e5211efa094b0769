//! Where the Python benchmarks live and which interpreter runs each system: nerve from the
//! repository's `.venv`, each peer from its own venv (made on demand by
//! `benches/python/setup_peers.sh`). Shared by the Python, in-process and services suites.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `benches/python` (or `dir`) and the repository root.
pub(crate) fn repo_dirs(dir: Option<&Path>) -> (PathBuf, PathBuf) {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| manifest.join("..").join("python"));
    let root = manifest.join("..").join("..");
    (
        dir.canonicalize().unwrap_or(dir),
        root.canonicalize().unwrap_or(root),
    )
}

/// The interpreter of a system, or why there is none.
pub(crate) fn interpreter(
    system: &str,
    dir: &Path,
    root: &Path,
    setup: bool,
) -> Result<PathBuf, String> {
    if system == "nerve" {
        let py = root.join(".venv/bin/python");
        if !py.exists() {
            return Err(format!(
                "{} missing: build nerve's Python package first (bash bindings/python/dev.sh)",
                py.display()
            ));
        }
        let ok = Command::new(&py)
            .args(["-c", "import nerve"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        return if ok {
            Ok(py)
        } else {
            Err("`import nerve` fails in .venv: run bash bindings/python/dev.sh".into())
        };
    }
    let venv = dir.join(".venvs").join(system);
    let py = venv.join("bin/python");
    let err = dir.join(".venvs").join(format!("{system}.error"));
    if setup && (!py.exists() || err.exists()) {
        eprintln!("python: setting up peer {system} (benches/python/setup_peers.sh {system}) ...");
        let _ = Command::new("bash")
            .arg(dir.join("setup_peers.sh"))
            .arg(system)
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .status();
    }
    if let Ok(e) = std::fs::read_to_string(&err) {
        return Err(format!("peer set-up failed: {}", e.trim()));
    }
    if !py.exists() {
        return Err(format!(
            "{} missing: run benches/python/setup_peers.sh {system}",
            py.display()
        ));
    }
    Ok(py)
}
