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
    /// Ctrl-C: runs `python -m nerve.ros2_bridge` (rclpy) in a Python that has both nerve
    /// and ROS 2: $NERVE_ROS2_PYTHON, else `python3` if it has rclpy, else the one
    /// `make ros2-env` made. Its options follow (`--help`, which needs no rclpy).
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
        "{:<36} {:<6} {:>9} {:>9} {:>7} {:>8} {:>7} {:>7} {:>6} {:>6}",
        "topic",
        "dir",
        "sent",
        "received",
        "lost",
        "rejected",
        "dropped",
        "missed",
        "resets",
        "dups"
    )?;
    for t in stats {
        outln!(
            "{:<36} {:<6} {:>9} {:>9} {:>7} {:>8} {:>7} {:>7} {:>6} {:>6}",
            t.topic,
            match (t.exported, t.imported) {
                // Sent by its publishers themselves: the bridge only announces it.
                (true, false) if t.direct => "direct",
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
            t.resets,
            t.duplicates
        )?;
    }
    Ok(())
}

/// `nerve bridge status`: the Zenoh bridge's view and the ROS 2 bridge's, whichever run.
/// `--json`: the Zenoh bridge's view object, with the ROS 2 bridge's under `ros2`.
fn status_cmd(domain: u32, json: bool) -> anyhow::Result<()> {
    let zenoh = nerve_zenoh::view::read(domain);
    let ros2 = nerve_ros2::view::read(domain);
    if zenoh.is_none() && ros2.is_none() {
        anyhow::bail!(
            "no bridge runs on this host in domain {domain}: start one with `nerve bridge zenoh` \
             (other machines) or `nerve bridge ros2` (a ROS 2 graph)"
        );
    }
    if json {
        let mut v = match &zenoh {
            Some(z) => serde_json::to_value(z)?,
            None => serde_json::json!({}),
        };
        if let Some((r, alive)) = &ros2 {
            v["ros2"] = serde_json::json!({"alive": alive, "view": r});
        }
        return outln!("{v}");
    }
    if let Some((r, alive)) = &ros2 {
        ros2_status(r, *alive)?;
    }
    match zenoh {
        Some(v) => zenoh_status(domain, &v),
        None => Ok(()),
    }
}

/// The ROS 2 bridge's part of `nerve bridge status`.
fn ros2_status(r: &nerve_ros2::view::Ros2View, alive: bool) -> anyhow::Result<()> {
    let state = if alive { "runs" } else { "stopped" };
    outln!("ROS 2 bridge (pid {}) {state}, domain {}", r.pid, r.domain)?;
    for (name, c) in &r.exports {
        outln!(
            "  nerve → ROS 2  {name} → {} [{}]  sent {}, failed {}",
            c.ros,
            c.type_name,
            c.sent,
            c.failed
        )?;
    }
    for (name, c) in &r.imports {
        outln!(
            "  ROS 2 → nerve  {name} → {} [{}]  received {}, failed {}",
            c.nerve,
            c.type_name,
            c.received,
            c.failed
        )?;
    }
    for (name, c) in r.ros_services.iter().chain(&r.nerve_services) {
        outln!(
            "  service        {name} [{}]  calls {}, failed {}",
            c.type_name,
            c.calls,
            c.failed
        )?;
    }
    for (what, why) in &r.skipped {
        outln!("  skipped        {what}: {why}")?;
    }
    Ok(())
}

/// The Zenoh bridge's part of `nerve bridge status`.
fn zenoh_status(domain: u32, v: &nerve_zenoh::view::BridgeView) -> anyhow::Result<()> {
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
    // The one-line setup, unless the flags or a file say where to listen and connect.
    if a.config.is_none() && a.listen.is_empty() && a.connect.is_empty() {
        if let Ok(peers) = std::env::var(nerve_zenoh::config::PEERS_ENV) {
            c.peers(&peers)?;
        } else if let Some((file, peers)) = nerve_zenoh::network::peers()? {
            let what = format!("{} [network] peers", file.display());
            c.peer_list(&peers, &what, "several as a list")?;
            tracing::info!(file = %file.display(), ?peers, "peers from the config file");
        }
    }
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

/// Why `python` cannot import `module` (its last line of error), or None when it can.
fn lacks(python: &str, module: &str) -> Option<String> {
    match std::process::Command::new(python)
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
}

/// Where `make ros2-env` (`bindings/python/ros2_env.sh`) puts the bridge's Python: rclpy from
/// PyPI in a cached venv, nerve's package linked into it.
fn cached_ros2_python() -> Option<String> {
    let cache = std::env::var_os("NERVE_PEER_CACHE")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME").map(|c| std::path::Path::new(&c).join("nerve/peers"))
        })
        .or_else(|| {
            std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache/nerve/peers"))
        })?;
    let py = cache.join("ros2/bin/python");
    py.exists().then(|| py.to_string_lossy().into_owned())
}

/// What to do when no Python has both rclpy and nerve.
const ROS2_ENV_HELP: &str = "From nerve's repository, `make ros2-env` makes one (rclpy and its \
     message packages from PyPI into a cached venv, nerve's package linked into it), which \
     `nerve bridge ros2` then finds by itself; or use your ROS 2 install's Python (source \
     /opt/ros/<distro>/setup.bash) with nerve's package built into it (nerve is not on PyPI: \
     `pip install <nerve's repository>/bindings/python`, built with maturin), and set \
     NERVE_ROS2_PYTHON to that interpreter";

/// `nerve bridge ros2`: the bridge is Python on rclpy (ROS 2's own client library). The Python
/// is `$NERVE_ROS2_PYTHON`, else `python3` when it has rclpy, else the one `make ros2-env`
/// made. This checks that it has both halves (`--help` needs nerve only), then becomes it.
fn ros2(domain: u32, args: &[String]) -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let help = args.iter().any(|a| a == "--help" || a == "-h");
    let python = match std::env::var("NERVE_ROS2_PYTHON") {
        Ok(p) => p,
        Err(_) if lacks("python3", "rclpy").is_none() => "python3".into(),
        Err(_) => cached_ros2_python().unwrap_or_else(|| "python3".into()),
    };
    if let Some(why) = lacks(&python, "nerve.ros2_bridge") {
        anyhow::bail!("{python} cannot import nerve's ROS 2 bridge ({why}). {ROS2_ENV_HELP}");
    }
    if !help {
        if let Some(why) = lacks(&python, "rclpy") {
            anyhow::bail!(
                "{python} cannot import rclpy ({why}): the ROS 2 bridge runs on ROS 2's Python \
                 client library. {ROS2_ENV_HELP}"
            );
        }
    }
    let err = std::process::Command::new(&python)
        .args(["-m", "nerve.ros2_bridge"])
        .args(args)
        .env("NERVE_DOMAIN", domain.to_string())
        .exec();
    Err(anyhow::anyhow!("cannot run {python}: {err}"))
}
