//! `nerve-bench open`: how long opening a topic takes while other processes use it — the
//! opener validates the segment, claims its handle record, reads the other processes' records
//! and asks whether each of them lives, then posts to the domain's registry. A child (core 1)
//! holds a publisher and a subscriber on `bench/open`; this process (core 0) opens the topic,
//! takes a subscriber and drops both, `--n` times per round, in `--rounds` rounds. Prints one
//! JSON line per round (p50, p90, mean ns of one open) and writes them to `--out`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use nerve::msgs::CmdVel;
use nerve::prelude::*;

use crate::pin;

/// A domain of its own, far from those people and the other suites use.
const DOMAIN: u32 = 4_242_001;

/// `nerve-bench open`.
#[derive(clap::Args, Debug)]
pub struct OpenArgs {
    /// Opens per round.
    #[arg(long, default_value_t = 2000)]
    n: usize,
    /// Rounds.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
    /// Where to write the rounds as JSON lines (default: only printed).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn open() -> Result<Topic<CmdVel>> {
    Ok(Topic::<CmdVel>::builder("bench/open")
        .domain(DOMAIN)
        .open()?)
}

/// The child: a publisher and a subscriber on the topic, until killed.
pub fn hold_child_main() -> Result<()> {
    let (_, echo) = pin::bench_cores();
    pin::pin_current_thread(echo)?;
    let t = open()?;
    let _p = t.publisher()?;
    let _s = t.subscriber()?;
    println!("READY");
    loop {
        std::thread::sleep(Duration::from_secs(60));
    }
}

/// The suite.
pub fn run(args: &OpenArgs) -> Result<()> {
    let (ping, _) = pin::bench_cores();
    pin::pin_current_thread(ping)?;
    let mut child = Command::new(std::env::current_exe()?)
        .arg("__open-hold")
        .stdout(Stdio::piped())
        .spawn()
        .context("start the holding child")?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().context("the child's stdout")?).read_line(&mut line)?;
    if line.trim() != "READY" {
        let _ = child.kill();
        bail!("the holding child did not start: {line:?}");
    }
    let result = rounds(args);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(nerve::registry::domain_dir(DOMAIN));
    let lines = result?;
    if let Some(out) = &args.out {
        std::fs::write(out, lines.join("\n") + "\n")
            .with_context(|| format!("write {}", out.display()))?;
    }
    Ok(())
}

fn rounds(args: &OpenArgs) -> Result<Vec<String>> {
    let n = args.n.max(10);
    for _ in 0..200 {
        drop(open()?.subscriber()?);
    }
    let mut lines = Vec::new();
    for round in 0..args.rounds {
        let mut ns = Vec::with_capacity(n);
        for _ in 0..n {
            let t0 = Instant::now();
            let t = open()?;
            let s = t.subscriber()?;
            drop(s);
            drop(t);
            ns.push(t0.elapsed().as_nanos() as u64);
        }
        ns.sort_unstable();
        let mean = ns.iter().sum::<u64>() as f64 / n as f64;
        let line = format!(
            "{{\"suite\": \"open\", \"round\": {round}, \"n\": {n}, \"p50_ns\": {}, \"p90_ns\": {}, \"mean_ns\": {mean:.0}}}",
            ns[n / 2],
            ns[n * 9 / 10]
        );
        println!("{line}");
        lines.push(line);
    }
    Ok(lines)
}
