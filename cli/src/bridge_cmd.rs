//! `nerve bridge zenoh`: this host's topics to and from other hosts through Zenoh.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Subcommand};
use nerve_zenoh::{Bridge, BridgeConfig};

use crate::signals;

#[derive(Subcommand)]
pub enum BridgeCommand {
    /// Bridge this host's topics over Zenoh (peer mode unless configured), until Ctrl-C.
    ///
    /// Example: `nerve bridge zenoh --listen tcp/0.0.0.0:7447`,
    /// `nerve bridge zenoh --connect tcp/10.0.0.2:7447 --export 'robot/**'`,
    /// `nerve bridge zenoh --config bridge.json5` (mode, TLS, access control: see docs/bridges.md)
    Zenoh(ZenohArgs),
}

#[derive(Args)]
pub struct ZenohArgs {
    /// A JSON5 file: domain, host, export, import, and Zenoh's own configuration under
    /// `zenoh` (the flags below override it).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Listen on this Zenoh endpoint (repeatable), e.g. `tcp/0.0.0.0:7447`.
    #[arg(long)]
    listen: Vec<String>,
    /// Connect to this Zenoh endpoint (repeatable), e.g. `tcp/10.0.0.2:7447`.
    #[arg(long)]
    connect: Vec<String>,
    /// peer (default), client or router.
    #[arg(long)]
    mode: Option<String>,
    /// Do not look for other hosts by multicast (connect to named endpoints only).
    #[arg(long)]
    no_multicast: bool,
    /// Send only topics matching this Zenoh key expression (repeatable), e.g. `robot/**`.
    #[arg(long)]
    export: Vec<String>,
    /// Bring in only topics matching this (repeatable).
    #[arg(long)]
    import: Vec<String>,
    /// This host's name as other hosts list it (default: the machine's host name).
    #[arg(long)]
    host: Option<String>,
    /// Print the bridge's counters every this many seconds (0: only at the end).
    #[arg(long, default_value_t = 5.0)]
    stats_every: f64,
}

pub fn bridge(domain: u32, cmd: BridgeCommand) -> anyhow::Result<()> {
    let BridgeCommand::Zenoh(a) = cmd;
    let config = config(domain, &a)?;
    let (host, domain) = (config.host.clone(), config.domain);
    let bridge = Bridge::start(config)?;
    signals::install();
    outln!(
        "bridge {} up: host {host}, domain {domain}. Ctrl-C stops it",
        bridge.id()
    )?;
    let every = (a.stats_every > 0.0).then(|| Duration::from_secs_f64(a.stats_every));
    let mut last = Instant::now();
    while !signals::stopped() {
        std::thread::sleep(Duration::from_millis(50));
        if every.is_some_and(|e| last.elapsed() >= e) {
            last = Instant::now();
            outln!("{}", status(&bridge))?;
        }
    }
    outln!("{}", status(&bridge))?;
    for t in bridge.stats() {
        outln!(
            "  {:<40} {:>3}{:>3} sent {:>8} received {:>8} lost {:>6} rejected {:>6} dropped {:>6}",
            t.topic,
            if t.exported { "out" } else { "" },
            if t.imported { "in" } else { "" },
            t.sent,
            t.received,
            t.lost,
            t.rejected,
            t.dropped
        )?;
    }
    Ok(())
}

fn status(b: &Bridge) -> String {
    let stats = b.stats();
    let sum = |f: fn(&nerve_zenoh::TopicStats) -> u64| stats.iter().map(f).sum::<u64>();
    let hosts: Vec<String> = b.hosts().into_iter().map(|(_, h)| h).collect();
    format!(
        "hosts [{}]  exported {}  imported {}  sent {}  received {}  lost {}  rejected {}",
        hosts.join(", "),
        stats.iter().filter(|t| t.exported).count(),
        stats.iter().filter(|t| t.imported).count(),
        sum(|t| t.sent),
        sum(|t| t.received),
        sum(|t| t.lost),
        sum(|t| t.rejected) + b.bad_metas(),
    )
}

fn config(domain: u32, a: &ZenohArgs) -> anyhow::Result<BridgeConfig> {
    let mut c = match &a.config {
        Some(path) => BridgeConfig::from_file(path)?,
        None => BridgeConfig {
            domain,
            ..BridgeConfig::new()
        },
    };
    let set = |c: &mut BridgeConfig, key: &str, value: String| {
        c.zenoh
            .insert_json5(key, &value)
            .map_err(|e| anyhow::anyhow!("{e}"))
            .with_context(|| format!("zenoh setting {key} = {value}"))
    };
    if !a.listen.is_empty() {
        set(
            &mut c,
            "listen/endpoints",
            serde_json::to_string(&a.listen)?,
        )?;
    }
    if !a.connect.is_empty() {
        set(
            &mut c,
            "connect/endpoints",
            serde_json::to_string(&a.connect)?,
        )?;
    }
    if let Some(m) = &a.mode {
        set(&mut c, "mode", serde_json::to_string(m)?)?;
    }
    if a.no_multicast {
        set(&mut c, "scouting/multicast/enabled", "false".into())?;
    }
    let patterns = |list: &[String]| -> anyhow::Result<_> {
        list.iter()
            .map(|p| {
                nerve_zenoh::config::pattern(p)
                    .map_err(|e| anyhow::anyhow!("--export/--import {p:?}: {e}"))
            })
            .collect()
    };
    if !a.export.is_empty() {
        c.export = patterns(&a.export)?;
    }
    if !a.import.is_empty() {
        c.import = patterns(&a.import)?;
    }
    if let Some(h) = &a.host {
        c.host = h.clone();
    }
    Ok(c)
}
