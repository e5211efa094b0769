//! `nerve topic list | info | type | find | hz | echo | pub`.

use std::time::Duration;

use clap::Subcommand;
use nerve::registry::{self, TopicInfo};
use nerve::TransportPath;

use crate::args;
use crate::rates::find;

#[derive(Subcommand)]
pub enum TopicCommand {
    /// The topics of the domain (names; `-t` with types, `-v` a table of everything).
    ///
    /// Example: `nerve topic list -t`
    List {
        /// Show each topic's type.
        #[arg(short = 't', long = "show-types")]
        types: bool,
        /// A table: type, publishers, subscribers, QoS, where it lives, messages, pids.
        #[arg(short, long)]
        verbose: bool,
        /// Include nerve's own plumbing (services' topics, node records, type announcements).
        #[arg(short, long)]
        all: bool,
    },
    /// Everything about one topic, endpoint by endpoint (`-v`: with its type's fields).
    ///
    /// Example: `nerve topic info imu -v`
    Info {
        name: String,
        /// Also print the type's fields.
        #[arg(short, long)]
        verbose: bool,
    },
    /// The message type of a topic.
    ///
    /// Example: `nerve topic type imu`
    Type { name: String },
    /// The topics that carry a type (`Imu`, `nerve/Imu` or `sensor_msgs/msg/Imu`).
    ///
    /// Example: `nerve topic find sensor_msgs/msg/Imu`
    Find {
        #[arg(value_name = "TYPE")]
        ty: String,
    },
    /// Print a topic's messages, decoded from the description the topic carries.
    ///
    /// Example: `nerve topic echo imu --once`, `nerve topic echo odom --field pose.position --json`
    Echo(crate::echo::EchoArgs),
    /// Publish values (YAML or JSON) on a topic; with a standard type first, create it if
    /// needed.
    ///
    /// Example: `nerve topic pub cmd_vel CmdVel "{linear: 0.5}" -r 10`, `nerve topic pub odom "{twist: {linear: {x: 1}}}" --once`
    Pub(crate::publish::PubArgs),
    /// Publish rate of a topic, measured without subscribing (from its sequence counter).
    ///
    /// Example: `nerve topic hz imu --duration 5`
    Hz(Measure),
    /// Bandwidth of a topic: bytes per second and message sizes (subscribes).
    ///
    /// Example: `nerve topic bw camera/image`
    Bw(Measure),
    /// Delay from each message's stamp (`header.stamp_ns`, taken with nerve::time::now_ns)
    /// to its receipt here.
    ///
    /// Example: `nerve topic delay imu`
    Delay(Measure),
}

/// A topic measured in one-second windows.
#[derive(clap::Args)]
pub struct Measure {
    name: String,
    /// Seconds to measure, in one-second windows (1 to 604800; default: until Ctrl-C).
    #[arg(long, value_name = "SECONDS", value_parser = args::window_seconds,
      allow_hyphen_values = true)]
    duration: Option<Duration>,
}

fn path(p: &TransportPath) -> &'static str {
    match p {
        TransportPath::Shm(_) => "shm",
        TransportPath::Heap => "heap",
    }
}

pub fn run(domain: u32, cmd: TopicCommand) -> anyhow::Result<()> {
    match cmd {
        TopicCommand::List {
            types,
            verbose,
            all,
        } => list(domain, types, verbose, all)?,
        TopicCommand::Info { name, verbose } => {
            info(domain, &name)?;
            if verbose {
                outln!("message type:")?;
                crate::echo::show(domain, &name, true)?;
            }
        }
        TopicCommand::Type { name } => {
            outln!("{}", find(domain, &name)?.type_name)?;
        }
        TopicCommand::Find { ty } => {
            // A standard type by any of its names, else the name as the topics store it.
            let wanted = crate::publish::standard(&ty).map_or(ty.clone(), |s| s.name.to_owned());
            for t in registry::list(domain) {
                if t.type_name == wanted {
                    outln!("{}", t.name)?;
                }
            }
        }
        TopicCommand::Echo(args) => crate::echo::echo(domain, args)?,
        TopicCommand::Pub(args) => crate::publish::publish(domain, args)?,
        TopicCommand::Hz(m) => crate::rates::hz(domain, &m.name, m.duration)?,
        TopicCommand::Bw(m) => crate::rates::bw(domain, &m.name, m.duration)?,
        TopicCommand::Delay(m) => crate::rates::delay(domain, &m.name, m.duration)?,
    }
    Ok(())
}

/// Where a topic lives, for people: shared memory, or the heap of process `pid`.
fn place(t: &TopicInfo) -> String {
    match (&t.path, t.owner) {
        (TransportPath::Heap, Some(pid)) => format!("in-process (pid {pid})"),
        (p, _) => path(p).to_owned(),
    }
}

fn list(domain: u32, types: bool, verbose: bool, all: bool) -> anyhow::Result<()> {
    let topics: Vec<TopicInfo> = registry::list(domain)
        .into_iter()
        .filter(|t| all || !hidden(t))
        .collect();
    // Topics other hosts export, from the bridge running here (if one runs).
    let remote = nerve_zenoh::view::read(domain).map_or_else(Vec::new, |v| v.topics);
    let hosts_of = |name: &str| {
        let hosts: Vec<&str> = remote
            .iter()
            .filter(|r| r.topic == name)
            .map(|r| r.host.as_str())
            .collect();
        hosts.join(", ")
    };
    if topics.is_empty() && remote.is_empty() {
        return outln!(
            "(no topics in domain {domain}: {})",
            registry::domain_dir(domain).display()
        );
    }
    if verbose {
        outln!(
            "{:<32} {:<24} {:>4} {:>4} {:<11} {:>5} {:<20} {:>10}  pids",
            "topic",
            "type",
            "pubs",
            "subs",
            "qos",
            "depth",
            "where",
            "published"
        )?;
    }
    for t in &topics {
        if let Some(e) = &t.error {
            outln!(
                "{:<32} CORRUPT: {e} (stop its processes and run `nerve clean`)",
                t.name
            )?;
            continue;
        }
        if verbose {
            let pids: Vec<String> = t.pids().iter().map(u32::to_string).collect();
            outln!(
                "{:<32} {:<24} {:>4} {:>4} {:<11} {:>5} {:<20} {:>10}  {}",
                t.name,
                t.type_name,
                t.publishers(),
                t.subscribers(),
                format!("{:?}", t.reliability),
                t.depth,
                place(t),
                t.published,
                pids.join(",")
            )?;
        } else {
            let from = match hosts_of(&t.name) {
                h if h.is_empty() => String::new(),
                h => format!("  (from {h})"),
            };
            if types {
                outln!("{} [{}]{from}", t.name, t.type_name)?;
            } else {
                outln!("{}{from}", t.name)?;
            }
        }
    }
    // Remote topics not brought to this host (not imported here).
    let mut shown = std::collections::BTreeSet::new();
    for r in &remote {
        if topics.iter().any(|t| t.name == r.topic) || !shown.insert(&r.topic) {
            continue;
        }
        let hosts = hosts_of(&r.topic);
        match (types, r.type_name.is_empty()) {
            (true, false) => outln!("{} [{}]  (on {hosts})", r.topic, r.type_name)?,
            _ => outln!("{}  (on {hosts})", r.topic)?,
        }
    }
    Ok(())
}

/// nerve's plumbing, left out of `topic list` unless `-a` (the log and the e-stop are listed).
fn hidden(t: &TopicInfo) -> bool {
    nerve::plumbing::TopicKind::of_info(t).is_plumbing()
}

fn info(domain: u32, name: &str) -> anyhow::Result<()> {
    let t = find(domain, name)?;
    if let Some(e) = &t.error {
        return outln!(
            "topic      {}\ndamaged    {e} (stop its processes and run `nerve clean`)",
            t.name
        );
    }
    outln!(
        "topic      {}\ntype       {}\nwhere      {}\nqos        {:?}, depth {}\npublished  {}",
        t.name,
        t.type_name,
        place(&t),
        t.reliability,
        t.depth,
        t.published
    )?;
    if let Some((used, pool)) = t.chunks {
        outln!("chunks     {used} of {pool} in use")?;
    }
    outln!(
        "claims     {} (solo: one publisher, plain stores; locked: several publishers or threads)",
        t.claims
    )?;
    for e in &t.endpoints {
        outln!(
            "  {:<10} pid {:<8} {:<5} {} {:>10}  {} {}{}",
            if e.publisher {
                "publisher"
            } else {
                "subscriber"
            },
            e.process.pid,
            if e.alive { "alive" } else { "DEAD" },
            if e.publisher { "sent" } else { "recv" },
            e.count,
            if e.publisher { "full" } else { "lost" },
            e.lost,
            elsewhere(&e.process)
        )?;
    }
    Ok(())
}

/// `  (in another pid namespace, host …)` for a process in another container; empty for ours.
pub fn elsewhere(process: &nerve::sys::ProcessId) -> String {
    let pid = process.describe_pid();
    match pid.split_once(' ') {
        Some((_, rest)) => format!("  {rest}"),
        None => String::new(),
    }
}
