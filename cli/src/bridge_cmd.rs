//! `nerve bridge zenoh`: this host's topics to and from other hosts through Zenoh.

use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    /// Carry topics and services both ways between this domain and a ROS 2 graph, until
    /// Ctrl-C: runs `python3 -m nerve.ros2_bridge` (rclpy) in a Python that has both nerve
    /// and ROS 2 ($NERVE_ROS2_PYTHON, default `python3`). Its options follow (`--help`).
    ///
    /// Example: `nerve bridge ros2`, `nerve bridge ros2 --export 'robot/**' --import /scan`,
    /// `nerve bridge ros2 --service arm/home=std_srvs/srv/Trigger`, `nerve bridge ros2
    /// --config ros2_bridge.yaml` (see docs/bridges.md)
    #[command(disable_help_flag = true)]
    Ros2 {
        /// The bridge's own options, passed on as they are.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// What the bridge running on this host sees: other hosts, remote topics and nodes, and
    /// its counters per topic (sent, received, lost on the way, refused, missed here), and
    /// the remote topics it refused for this host's limits (with their host and why).
    ///
    /// Example: `nerve bridge status`, `nerve bridge status --json`
    Status {
        /// One JSON object.
        #[arg(long)]
        json: bool,
    },
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
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = crate::args::any_seconds, allow_hyphen_values = true)]
    stats_every: Duration,
}

pub fn bridge(domain: u32, cmd: BridgeCommand) -> anyhow::Result<()> {
    let a = match cmd {
        BridgeCommand::Zenoh(a) => a,
        BridgeCommand::Status { json } => return status_cmd(domain, json),
        BridgeCommand::Ros2 { args } => return ros2(domain, &args),
    };
    let config = config(domain, &a)?;
    let (host, domain) = (config.host.clone(), config.domain);
    let bridge = Bridge::start(config)?;
    signals::install();
    outln!(
        "bridge {} up: host {host}, domain {domain}. Ctrl-C stops it",
        bridge.id()
    )?;
    let every = (!a.stats_every.is_zero()).then_some(a.stats_every);
    let mut last = Instant::now();
    while !signals::stopped() {
        std::thread::sleep(Duration::from_millis(50));
        if every.is_some_and(|e| last.elapsed() >= e) {
            last = Instant::now();
            outln!("{}", status(&bridge))?;
        }
    }
    outln!("{}", status(&bridge))?;
    counters(&bridge.view().stats)
}

/// The per-topic counters, one line each.
fn counters(stats: &[nerve_zenoh::TopicStats]) -> anyhow::Result<()> {
    outln!(
        "{:<36} {:<6} {:>9} {:>9} {:>7} {:>8} {:>7} {:>7} {:>6}",
        "topic",
        "dir",
        "sent",
        "received",
        "lost",
        "rejected",
        "dropped",
        "missed",
        "resets"
    )?;
    for t in stats {
        outln!(
            "{:<36} {:<6} {:>9} {:>9} {:>7} {:>8} {:>7} {:>7} {:>6}",
            t.topic,
            match (t.exported, t.imported) {
                (true, true) => "out+in",
                (true, false) => "out",
                (false, true) => "in",
                (false, false) => "",
            },
            t.sent,
            t.received,
            t.lost,
            t.rejected,
            t.dropped,
            t.missed,
            t.resets
        )?;
    }
    Ok(())
}

fn status_cmd(domain: u32, json: bool) -> anyhow::Result<()> {
    let Some(v) = nerve_zenoh::view::read(domain) else {
        anyhow::bail!(
            "no Zenoh bridge runs on this host in domain {domain}; start one with `nerve bridge zenoh`"
        );
    };
    if json {
        return outln!("{}", serde_json::to_string(&v)?);
    }
    outln!(
        "bridge {} on host {} (pid {}), domain {domain}",
        v.bridge,
        v.host,
        v.pid
    )?;
    let hosts: Vec<String> = v
        .hosts
        .iter()
        .map(|(id, h)| format!("{h} ({id})"))
        .collect();
    outln!(
        "hosts    {}",
        if hosts.is_empty() {
            "(none seen)".to_owned()
        } else {
            hosts.join(", ")
        }
    )?;
    for t in &v.topics {
        outln!("remote   topic {} (on {})", t.topic, t.host)?;
    }
    for n in &v.nodes {
        outln!("remote   node {} (on {})", n.name, n.host)?;
    }
    if v.bad_metas > 0 {
        outln!(
            "refused  {} topic or service metas (unreadable or lying)",
            v.bad_metas
        )?;
    }
    if v.refused_imports > 0 {
        outln!(
            "refused  {} remote topic(s) over this host's limits (max_topic_mib, \
             max_imported_mib, max_imported_topics in the bridge's configuration); the newest:",
            v.refused_imports
        )?;
        for r in &v.refused {
            let times = if r.count > 1 {
                format!(" ({} times)", r.count)
            } else {
                String::new()
            };
            outln!(
                "refused  topic {} (from {}): {}{times}",
                r.topic,
                r.host,
                r.reason
            )?;
        }
    }
    counters(&v.stats)
}

fn status(b: &Bridge) -> String {
    let stats = b.stats();
    let sum = |f: fn(&nerve_zenoh::TopicStats) -> u64| stats.iter().map(f).sum::<u64>();
    let hosts: Vec<String> = b.hosts().into_iter().map(|(_, h)| h).collect();
    format!(
        "hosts [{}]  exported {}  imported {}  sent {}  received {}  lost {}  rejected {}  missed {}  refused {}",
        hosts.join(", "),
        stats.iter().filter(|t| t.exported).count(),
        stats.iter().filter(|t| t.imported).count(),
        sum(|t| t.sent),
        sum(|t| t.received),
        sum(|t| t.lost),
        sum(|t| t.rejected) + b.bad_metas(),
        sum(|t| t.missed),
        b.refused().0,
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
    if !a.listen.is_empty() {
        c.listen(&a.listen)?;
    }
    if !a.connect.is_empty() {
        c.connect(&a.connect)?;
    }
    if let Some(m) = &a.mode {
        c.mode(m)?;
    }
    if a.no_multicast {
        c.multicast(false)?;
    }
    if !a.export.is_empty() {
        c.export = BridgeConfig::patterns(&a.export)?;
    }
    if !a.import.is_empty() {
        c.import = BridgeConfig::patterns(&a.import)?;
    }
    if let Some(h) = &a.host {
        c.host = h.clone();
    }
    Ok(c)
}

/// `nerve bridge ros2`: the bridge is Python on rclpy (ROS 2's own client library); this
/// checks that the chosen Python has both halves, then becomes it.
fn ros2(domain: u32, args: &[String]) -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let python = std::env::var("NERVE_ROS2_PYTHON").unwrap_or_else(|_| "python3".into());
    let lacks = |module: &str| -> Option<String> {
        match std::process::Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .output()
        {
            Ok(o) if o.status.success() => None,
            Ok(o) => Some(
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
                    .to_owned(),
            ),
            Err(e) => Some(e.to_string()),
        }
    };
    if let Some(why) = lacks("rclpy") {
        anyhow::bail!(
            "{python} cannot import rclpy ({why}). The ROS 2 bridge runs on ROS 2's Python client \
             library: source your ROS 2 install (source /opt/ros/<distro>/setup.bash), or \
             install rclpy from PyPI (pip install ros-rclpy ros-rmw-fastrtps-cpp ros-std-msgs \
             ros-sensor-msgs ros-geometry-msgs), and set NERVE_ROS2_PYTHON to that interpreter"
        );
    }
    if let Some(why) = lacks("nerve.ros2_bridge") {
        anyhow::bail!(
            "{python} has rclpy but cannot import nerve ({why}): install nerve's Python package \
             into it (pip install nerve), or set NERVE_ROS2_PYTHON to a Python that has both"
        );
    }
    let err = std::process::Command::new(&python)
        .args(["-m", "nerve.ros2_bridge"])
        .args(args)
        .env("NERVE_DOMAIN", domain.to_string())
        .exec();
    Err(anyhow::anyhow!("cannot run {python}: {err}"))
}
