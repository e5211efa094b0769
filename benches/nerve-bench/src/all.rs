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
    let mut timing = Timing::default();
    for suite in SUITES {
        let chosen = args.only.is_empty() || args.only.iter().any(|s| s == suite);
        if !chosen || args.skip.iter().any(|s| s == suite) {
            continue;
        }
        let quick: &[&str] = if args.quick { &["--quick"] } else { &[] };
        timing.run(&args.out, suite, quick, args.quick)?;
    }
    timing.write(&args.out)?;
    report(&args.out, args.docs)?;
    timing.ensure_ok()
}

/// The suites one run started: each one's wall time, whether it succeeded and whether it was
/// a quick run (`timing.json`, which the report and `targets.toml`'s wall-time target read).
#[derive(Default)]
pub struct Timing(serde_json::Map<String, serde_json::Value>);

impl Timing {
    /// Runs `nerve-bench <suite> --json DIR/<suite>.json --csv DIR/<suite>.csv <extra>` as a
    /// child process of this binary (one suite's failure or leftovers cannot spoil the next);
    /// a failure leaves `DIR/<suite>.error`.
    pub fn run(&mut self, out: &Path, suite: &str, extra: &[&str], quick: bool) -> Result<()> {
        let json = out.join(format!("{suite}.json"));
        let csv = out.join(format!("{suite}.csv"));
        let error = out.join(format!("{suite}.error"));
        let _ = std::fs::remove_file(&error);
        let _ = std::fs::remove_file(&json);
        eprintln!("== nerve-bench {suite} {}", extra.join(" "));
        let started = Instant::now();
        let status = Command::new(std::env::current_exe()?)
            .arg(suite)
            .arg("--json")
            .arg(&json)
            .arg("--csv")
            .arg(&csv)
            .args(extra)
            .status()
            .with_context(|| format!("starting the {suite} suite"))?;
        let secs = started.elapsed().as_secs_f64();
        eprintln!("== {suite}: {status} after {secs:.0} s");
        self.0.insert(
            suite.to_owned(),
            json!({"seconds": secs, "ok": status.success(), "quick": quick}),
        );
        if !status.success() {
            std::fs::write(
                &error,
                format!("nerve-bench {suite} exited with {status}\n"),
            )?;
        }
        Ok(())
    }

    pub fn write(&self, out: &Path) -> Result<()> {
        std::fs::write(
            out.join("timing.json"),
            serde_json::to_string_pretty(&self.0)?,
        )?;
        Ok(())
    }

    /// An error naming the suites that failed, if any did.
    pub fn ensure_ok(&self) -> Result<()> {
        let failed: Vec<&String> = self
            .0
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
}

/// nerve's `.venv` Python where it exists (for matplotlib's plots), else `python3`.
pub fn python() -> PathBuf {
    let venv = repo_root().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// The source tree this binary was built from (benches/nerve-bench/../..).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the report generator over the folder (nerve's `.venv` Python where it exists, for
/// matplotlib's plots; else `python3`, which writes the tables without plots).
fn report(out: &Path, docs: bool) -> Result<()> {
    let root = repo_root();
    let mut c = Command::new(python());
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
