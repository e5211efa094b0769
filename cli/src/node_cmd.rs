//! `nerve node list | info` (from the records running schedulers publish,
//! `nerve::exec::announce`) and `nerve param list | get | set | describe | dump | load` (a
//! node's parameter services).

use std::time::Duration;

use clap::Subcommand;
use nerve::exec::announce::{self, NodeRecord};
use nerve::plumbing::TopicKind;
use nerve::registry;
use nerve::rpc::discovery;
use nerve::rpc::{ParamClient, ParamValue};

use crate::rpc_cmd::find_service;

/// How long a parameter call waits for the node.
const PARAM_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Subcommand)]
pub enum NodeCommand {
    /// The nodes of the domain: process, rate, lateness, misses, and whether they run.
    ///
    /// Example: `nerve node list`
    List,
    /// One node: its statistics, its process's topics and services, and its parameters.
    ///
    /// Example: `nerve node info controller`
    Info { name: String },
}

#[derive(Subcommand)]
pub enum ParamCommand {
    /// A node's parameters and their values.
    ///
    /// Example: `nerve param list camera`
    List { node: String },
    /// One parameter's value.
    ///
    /// Example: `nerve param get camera fps`
    Get { node: String, name: String },
    /// Set a parameter (the node validates it: type, range, its own checks).
    ///
    /// Example: `nerve param set camera fps 60`
    Set {
        node: String,
        name: String,
        /// The value, YAML (`60`, `0.5`, `true`, `hello`, `[1, 2]`).
        #[arg(allow_hyphen_values = true)]
        value: String,
    },
    /// How a parameter was declared: type, default, range, description.
    ///
    /// Example: `nerve param describe camera fps`
    Describe { node: String, name: String },
    /// Every parameter of a node as YAML (`node: {ros__parameters: ...}`), what `load` reads.
    ///
    /// Example: `nerve param dump camera > camera.yaml`
    Dump { node: String },
    /// Set the parameters a YAML file holds for the node (the shape `dump` writes).
    ///
    /// Example: `nerve param load camera camera.yaml`
    Load {
        node: String,
        file: std::path::PathBuf,
    },
}

fn us(ns: u64) -> String {
    format!("{:.1} µs", ns as f64 / 1e3)
}

fn state(r: &NodeRecord) -> &'static str {
    match (r.up, r.alive()) {
        (_, true) => "running",
        (0, _) => "stopped",
        _ => "DEAD",
    }
}

pub fn node(domain: u32, cmd: NodeCommand) -> anyhow::Result<()> {
    match cmd {
        NodeCommand::List => {
            let nodes = announce::nodes(domain);
            outln!(
                "{:<24} {:>8} {:>9} {:>9} {:>10} {:>12} {:>7}  state",
                "node",
                "pid",
                "rate Hz",
                "achieved",
                "ticks",
                "late p99",
                "misses"
            )?;
            for r in &nodes {
                outln!(
                    "{:<24} {:>8} {:>9.1} {:>9.1} {:>10} {:>12} {:>7}  {}{}",
                    r.name(),
                    r.pid,
                    r.rate_hz,
                    r.achieved_hz,
                    r.ticks,
                    us(r.lateness_p99_ns),
                    r.misses,
                    state(r),
                    crate::topic_cmd::elsewhere(&r.process())
                )?;
            }
            // Nodes on other hosts, from the bridge running here (if one runs).
            let remote = nerve_zenoh::view::read(domain).map_or_else(Vec::new, |v| v.nodes);
            for r in &remote {
                outln!(
                    "{:<24} {:>8} {:>9} {:>9} {:>10} {:>12} {:>7}  remote (on {})",
                    r.name,
                    "-",
                    "-",
                    "-",
                    "-",
                    "-",
                    "-",
                    r.host
                )?;
            }
            if nodes.is_empty() && remote.is_empty() {
                outln!("(no nodes in domain {domain}: none runs a scheduler that announces them)")?;
            }
        }
        NodeCommand::Info { name } => info(domain, name.trim_start_matches('/'))?,
    }
    Ok(())
}

fn info(domain: u32, name: &str) -> anyhow::Result<()> {
    let r = announce::nodes(domain)
        .into_iter()
        .find(|r| r.name() == name)
        .ok_or_else(|| {
            anyhow::anyhow!("no node '{name}' in domain {domain} (see `nerve node list`)")
        })?;
    outln!(
        "node          {}\nstate         {}\npid           {}",
        name,
        state(&r),
        r.process().describe_pid()
    )?;
    outln!(
        "rate          {:.1} Hz asked, {:.1} Hz achieved, {} ticks",
        r.rate_hz,
        r.achieved_hz,
        r.ticks
    )?;
    outln!(
        "lateness      p50 {}  p99 {}  max {}",
        us(r.lateness_p50_ns),
        us(r.lateness_p99_ns),
        us(r.lateness_max_ns)
    )?;
    outln!(
        "tick          p50 {}  p99 {}  max {}",
        us(r.tick_p50_ns),
        us(r.tick_p99_ns),
        us(r.tick_max_ns)
    )?;
    outln!(
        "misses        {} deadline, {} over budget, {} skipped, {} panics, {} restarts, {} hangs",
        r.misses,
        r.budget_overruns,
        r.skipped,
        r.panics,
        r.restarts,
        r.hangs
    )?;
    outln!("topics of its process:")?;
    for t in registry::list(domain)
        .iter()
        .filter(|t| !TopicKind::of_info(t).is_plumbing())
    {
        for e in t
            .endpoints
            .iter()
            .filter(|e| e.process.token == r.token && e.alive)
        {
            let role = if e.publisher {
                "publishes"
            } else {
                "subscribes"
            };
            outln!("  {role:<11} {}  [{}]", t.name, t.type_name)?;
        }
    }
    let services = discovery::services(domain);
    let served = |action: bool| {
        services.iter().filter(move |s| {
            s.server.is_some_and(|p| p.token == r.token) && s.action.is_some() == action
        })
    };
    let names: Vec<&str> = served(false).map(|s| s.name.as_str()).collect();
    outln!("services it serves:\n{}", listing(&names))?;
    let mut actions: Vec<&str> = served(true).filter_map(|s| s.action.as_deref()).collect();
    actions.dedup();
    outln!("actions it serves:\n{}", listing(&actions))?;
    if let Ok(client) = param_client(domain, name) {
        outln!("parameters:")?;
        for p in client.list(PARAM_TIMEOUT)? {
            outln!("  {} = {}", p.descriptor.name, p.value)?;
        }
    }
    Ok(())
}

/// Names one per line, indented; `(none)` for none.
fn listing(names: &[&str]) -> String {
    if names.is_empty() {
        return "  (none)".into();
    }
    names
        .iter()
        .map(|n| format!("  {n}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A client of `node`'s parameters, if it serves them (nothing is created otherwise).
fn param_client(domain: u32, node: &str) -> anyhow::Result<ParamClient> {
    let node = node.trim_start_matches('/');
    let list = find_service(domain, &format!("{node}/param/list")).map_err(|_| {
        anyhow::anyhow!(
            "node '{node}' serves no parameters in domain {domain} (see `nerve service list`)"
        )
    })?;
    if list.server.is_none() {
        anyhow::bail!("node '{node}' is down: its parameter services have no server");
    }
    Ok(ParamClient::with_domain(node, domain)?)
}

pub fn param(domain: u32, cmd: ParamCommand) -> anyhow::Result<()> {
    match cmd {
        ParamCommand::List { node } => {
            for p in param_client(domain, &node)?.list(PARAM_TIMEOUT)? {
                outln!("{} = {}  ({})", p.descriptor.name, p.value, p.descriptor.ty)?;
            }
        }
        ParamCommand::Get { node, name } => {
            outln!(
                "{}",
                param_client(domain, &node)?.get(&name, PARAM_TIMEOUT)?
            )?;
        }
        ParamCommand::Set { node, name, value } => {
            let v = ParamValue::parse(&value).ok_or_else(|| {
                anyhow::anyhow!(
                    "cannot read '{value}' as a parameter value for '{name}' of node '{node}' \
                     (a bool, number, string or a list of one of them)"
                )
            })?;
            param_client(domain, &node)?.set(&name, v, PARAM_TIMEOUT)?;
            outln!("set {name} = {value}")?;
        }
        ParamCommand::Describe { node, name } => {
            let list = param_client(domain, &node)?.list(PARAM_TIMEOUT)?;
            let p = list
                .iter()
                .find(|p| p.descriptor.name == name)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "node '{node}' has no parameter '{name}' (see `nerve param list {node}`)"
                    )
                })?;
            let d = &p.descriptor;
            outln!(
                "parameter    {}\ntype         {}\nvalue        {}\ndefault      {}",
                d.name,
                d.ty,
                p.value,
                d.default
            )?;
            if let Some(r) = &d.range {
                outln!("range        {r}")?;
            }
            if !d.description.is_empty() {
                outln!("description  {}", d.description)?;
            }
            if d.read_only {
                outln!("read-only    yes (set only by loading before it is declared)")?;
            }
        }
        ParamCommand::Dump { node } => {
            let text = param_client(domain, &node)?.dump_yaml(PARAM_TIMEOUT)?;
            outln!("{}", text.trim_end())?;
        }
        ParamCommand::Load { node, file } => {
            let text = nerve::document::read(&file)?;
            let n = param_client(domain, &node)?.load_yaml_str(&text, PARAM_TIMEOUT)?;
            outln!(
                "set {n} parameters of node '{node}' from {}",
                file.display()
            )?;
        }
    }
    Ok(())
}
