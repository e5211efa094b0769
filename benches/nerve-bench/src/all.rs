//! `nerve-bench all [--quick]`: every suite, one after the other (each a child process of this
//! binary, so one suite's failure or leftovers cannot spoil the next), its JSON and CSV in one
//! folder, then the report generator (`benches/nerve-bench/report.py`) writes `benchmarks.md`
//! from those files (and `docs/benchmarks.md` with `--docs`).
//!
//! A suite that fails leaves `<suite>.error` with its exit status and the report says so; the
//! others still run, and `all` exits non-zero at the end. The wall time of each suite is
//! printed and kept in `timing.json`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

/// The suites `all` runs, in this order: the cheapest and most shared first.
pub const SUITES: [&str; 10] = [
    "ipc", "sched", "rpc", "python", "log", "record", "ros2", "soak", "local", "network",
];

#[derive(Args, Debug)]
pub struct AllArgs {
    /// Every suite's short run.
    #[arg(long)]
    pub quick: bool,
    /// Where the JSON, CSV, plots and benchmarks.md go.
    #[arg(long, value_name = "DIR", default_value = "bench-results/all")]
    pub out: PathBuf,
    /// Only these suites (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Not these suites (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Also write the report to docs/benchmarks.md (what the README's figures are taken from).
    #[arg(long)]
    pub docs: bool,
}

pub fn run(args: &AllArgs) -> Result<()> {
    for s in args.only.iter().chain(&args.skip) {
        if !SUITES.contains(&s.as_str()) {
            anyhow::bail!("no suite '{s}' (the suites: {})", SUITES.join(", "));
        }
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let exe = std::env::current_exe()?;
    let mut timing = serde_json::Map::new();
    for suite in SUITES {
        let chosen = args.only.is_empty() || args.only.iter().any(|s| s == suite);
        if !chosen || args.skip.iter().any(|s| s == suite) {
            continue;
        }
        let json = args.out.join(format!("{suite}.json"));
        let csv = args.out.join(format!("{suite}.csv"));
        let error = args.out.join(format!("{suite}.error"));
        let _ = std::fs::remove_file(&error);
        eprintln!(
            "== nerve-bench all: {suite}{}",
            if args.quick { " --quick" } else { "" }
        );
        let started = Instant::now();
        let mut c = Command::new(&exe);
        c.arg(suite).arg("--json").arg(&json).arg("--csv").arg(&csv);
        if args.quick {
            c.arg("--quick");
        }
        let status = c
            .status()
            .with_context(|| format!("starting the {suite} suite"))?;
        let secs = started.elapsed().as_secs_f64();
        eprintln!("== {suite}: {status} after {secs:.0} s");
        timing.insert(
            suite.to_owned(),
            json!({"seconds": secs, "ok": status.success()}),
        );
        if !status.success() {
            std::fs::write(
                &error,
                format!("nerve-bench {suite} exited with {status}\n"),
            )?;
        }
    }
    std::fs::write(
        args.out.join("timing.json"),
        serde_json::to_string_pretty(&timing)?,
    )?;
    report(&args.out, args.docs)?;
    let failed: Vec<&String> = timing
        .iter()
        .filter(|(_, t)| t["ok"] == json!(false))
        .map(|(s, _)| s)
        .collect();
    anyhow::ensure!(
        failed.is_empty(),
        "suites that failed (see their output and <suite>.error): {failed:?}"
    );
    Ok(())
}

/// Runs the report generator over the folder (nerve's `.venv` Python where it exists, for
/// matplotlib's plots; else `python3`, which writes the tables without plots).
fn report(out: &Path, docs: bool) -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let venv = root.join(".venv/bin/python");
    let python = if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    };
    let mut c = Command::new(&python);
    c.arg(root.join("benches/nerve-bench/report.py"))
        .arg(out)
        .arg("--out")
        .arg(out.join("benchmarks.md"));
    if docs {
        c.arg("--copy-to").arg(root.join("docs/benchmarks.md"));
    }
    let status = c
        .status()
        .context("running benches/nerve-bench/report.py")?;
    anyhow::ensure!(status.success(), "report.py exited with {status}");
    eprintln!("wrote {}", out.join("benchmarks.md").display());
    Ok(())
}
