//! `nerve topic list | info | type | find | hz | echo | pub`.

use std::time::{Duration, Instant};

use clap::Subcommand;
use nerve::registry::{self, TopicInfo};
use nerve::TransportPath;

use crate::args;

#[derive(Subcommand)]
pub enum TopicCommand {
    /// List topics with type, endpoints, path and owners.
    List,
    /// Everything about one topic, endpoint by endpoint.
    Info { name: String },
    /// The message type of a topic.
    Type { name: String },
    /// The topics that carry a type (`Imu`, `nerve/Imu` or `sensor_msgs/msg/Imu`).
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
    Hz {
        name: String,
        /// Seconds to measure, in one-second windows (1 to 604800; default: until Ctrl-C).
        #[arg(long, value_name = "SECONDS", value_parser = args::window_seconds,
          allow_hyphen_values = true)]
        duration: Option<Duration>,
    },
}

fn path(p: &TransportPath) -> &'static str {
    match p {
        TransportPath::Shm(_) => "shm",
        TransportPath::Heap => "heap",
    }
}

fn find(domain: u32, name: &str) -> anyhow::Result<TopicInfo> {
    let name = nerve::name::canonical(name);
    registry::list(domain)
        .into_iter()
        .find(|t| t.name == name)
        .ok_or_else(|| {
            anyhow::anyhow!("no topic '{name}' in domain {domain} (see `nerve topic list`)")
        })
}

/// How many messages topic `name` has published; an error if it is gone or damaged.
fn published(domain: u32, name: &str) -> anyhow::Result<u64> {
    let t = find(domain, name)?;
    match t.error {
        Some(e) => anyhow::bail!(
            "topic '{name}' in domain {domain} is damaged ({e}); stop its processes and run `nerve clean`"
        ),
        None => Ok(t.published),
    }
}

pub fn run(domain: u32, cmd: TopicCommand) -> anyhow::Result<()> {
    match cmd {
        TopicCommand::List => {
            let topics = registry::list(domain);
            outln!(
                "{:<32} {:<20} {:>4} {:>4} {:<5} {:>10}  pids",
                "topic",
                "type",
                "pubs",
                "subs",
                "path",
                "published"
            )?;
            for t in &topics {
                if let Some(e) = &t.error {
                    outln!("{:<32} CORRUPT: {e}", t.name)?;
                    continue;
                }
                let pids: Vec<String> = t.pids().iter().map(u32::to_string).collect();
                outln!(
                    "{:<32} {:<20} {:>4} {:>4} {:<5} {:>10}  {}",
                    t.name,
                    t.type_name,
                    t.publishers(),
                    t.subscribers(),
                    path(&t.path),
                    t.published,
                    pids.join(",")
                )?;
            }
            if topics.is_empty() {
                outln!(
                    "(no topics in domain {domain}: {})",
                    registry::domain_dir(domain).display()
                )?;
            }
        }
        TopicCommand::Info { name } => {
            let t = find(domain, &name)?;
            if let Some(e) = &t.error {
                return outln!(
                    "topic      {}\ndamaged    {e} (stop its processes and run `nerve clean`)",
                    t.name
                );
            }
            outln!("topic      {}\ntype       {}\npath       {:?}\nqos        {:?}, depth {}\npublished  {}\nclaims     {} (solo: one publisher, plain stores; locked: several publishers or threads)", t.name, t.type_name, t.path, t.reliability, t.depth, t.published, t.claims)?;
            for e in &t.endpoints {
                outln!(
                    "  {:<10} pid {:<8} {:<5} {} {:>10}  {} {}",
                    if e.publisher {
                        "publisher"
                    } else {
                        "subscriber"
                    },
                    e.pid,
                    if e.alive { "alive" } else { "DEAD" },
                    if e.publisher { "sent" } else { "recv" },
                    e.count,
                    if e.publisher { "full" } else { "lost" },
                    e.lost
                )?;
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
        TopicCommand::Hz { name, duration } => {
            let start = Instant::now();
            let mut last = (Instant::now(), published(domain, &name)?);
            loop {
                std::thread::sleep(Duration::from_secs(1));
                let now = (Instant::now(), published(domain, &name)?);
                match now.1.checked_sub(last.1) {
                    Some(n) => {
                        let hz = n as f64 / (now.0 - last.0).as_secs_f64();
                        outln!("{name}: {hz:.1} Hz")?;
                    }
                    // The count went down: the topic was removed and created again.
                    None => outln!("{name}: the topic was created again; measuring anew")?,
                }
                last = now;
                if duration.is_some_and(|d| start.elapsed() >= d) {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}
