//! `nerve-bench check`: the hot paths' targets in a few minutes. It runs, each as a child
//! process of this binary and in interleaved rounds like every suite, only the scenarios that
//! feed the targets marked `check = true` in `benches/nerve-bench/targets.toml` — the 16 B and
//! 6 MB hops against the raw floor and iceoryx2 (and iceoryx2 in its own benchmark's shape), the
//! C and C++ hop, Python CmdVel / Pose2D / Imu / 1080p against HORUS, the service against a topic
//! round trip, the logger, the recorder — then prints the targets' table (`targets.py --check`)
//! and exits non-zero when one misses. Every change to a hot path quotes its output before and
//! after.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};
use clap::Args;

use crate::all::{python, repo_root, Timing};

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Where the suites' JSON and the table go.
    #[arg(long, value_name = "DIR", default_value = "bench-results/check")]
    pub out: PathBuf,
    /// Alternating rounds of the ipc and python scenarios (more rounds, a steadier median).
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
}

/// The ipc scenarios the check targets read (`--only` texts: scenario descriptions contain them).
const IPC_ONLY: &str = "cross-process poll 1:1 bytes 16 B topics=1 latency,\
cross-process poll 1:1 bytes 6291456 B topics=1 latency,ffi,iceoryx2-benchmark";

/// The python scenarios the check targets read.
const PYTHON_ONLY: &str = "CmdVel,Pose2D,Imu,Image-1920x1080";

pub fn run(args: &CheckArgs) -> Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let rounds = args.rounds.to_string();
    let mut timing = Timing::default();
    let suites: [(&str, Vec<&str>); 5] = [
        (
            "ipc",
            vec![
                "--quick",
                "--rounds",
                &rounds,
                "--systems",
                "nerve,iceoryx2,raw-shm",
                "--only",
                IPC_ONLY,
            ],
        ),
        (
            "python",
            vec![
                "--quick",
                "--rounds",
                &rounds,
                "--systems",
                "nerve,horus",
                "--only",
                PYTHON_ONLY,
            ],
        ),
        ("rpc", vec!["--quick", "--systems", "nerve"]),
        ("log", vec!["--quick"]),
        ("record", vec!["--quick"]),
    ];
    for (suite, extra) in &suites {
        timing.run(&args.out, suite, extra, true)?;
    }
    timing.write(&args.out)?;
    let status = Command::new(python())
        .arg(repo_root().join("benches/nerve-bench/targets.py"))
        .arg(&args.out)
        .arg("--check")
        .status()
        .context("running benches/nerve-bench/targets.py")?;
    timing.ensure_ok()?;
    if !status.success() {
        // A miss is the check's answer, not a failure of the program: one line and status 1
        // (an error would print a backtrace wherever RUST_BACKTRACE is set).
        eprintln!(
            "nerve-bench check: a target missed (the table above; the rows are in {})",
            args.out.display()
        );
        std::process::exit(1);
    }
    Ok(())
}
