//! `nerve`: the command-line tool. Topics, nodes, services, actions, parameters, message types,
//! clean-up, and the demo robot graph.
//!
//! Errors end the command on one line and a status (see `exit`); numeric arguments are
//! checked while the command line is parsed (see `args`).

#[macro_use]
mod output;
mod args;
mod bag_cmd;
mod bridge_cmd;
mod demo;
mod doctor;
mod echo;
mod exit;
mod launch;
mod log_cmd;
mod node_cmd;
mod publish;
mod rates;
mod rpc_cmd;
mod signals;
mod topic_cmd;
mod view_cmd;
mod web;

use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "nerve",
    version,
    about = "nerve robotics middleware: tools and demo"
)]
struct Cli {
    /// Domain: topics of different domains never meet (0 to 4294967295).
    #[arg(long, global = true, env = "NERVE_DOMAIN", default_value_t = 0,
          value_parser = args::domain, allow_negative_numbers = true)]
    domain: u32,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the demo robot graph: sensor, controller and monitor in separate processes.
    ///
    /// Example: `nerve demo --duration 10`, `nerve demo --rt`
    Demo(demo::DemoArgs),
    /// Start a robot from a launch file: its nodes (executables, Python modules) with their
    /// namespaces, remaps and parameters, output prefixed by node; Ctrl-C stops them all.
    ///
    /// Example: `nerve launch robot.yaml --arg robot=r2`, `nerve launch robot.yaml --dry-run`
    Launch(launch::LaunchArgs),
    /// Every process's log records (the domain's `nerve/log` topic): filter by node, level or
    /// text, follow as they come.
    ///
    /// Example: `nerve log -f --level warn`, `nerve log --node r1/planner --grep timeout`
    Log(log_cmd::LogArgs),
    /// Watch the domain live: a page in the browser (graph, topic rates, node lateness, the
    /// e-stop, the log), or with `--foxglove` the Foxglove app (every topic, services,
    /// parameters, the graph and the log).
    ///
    /// Example: `nerve view` (http://127.0.0.1:8080/), `nerve view --foxglove --host 0.0.0.0`
    View(view_cmd::ViewArgs),
    /// Inspect topics.
    #[command(subcommand)]
    Topic(topic_cmd::TopicCommand),
    /// Message types: the standard set, and what a topic carries.
    #[command(subcommand)]
    Interface(InterfaceCommand),
    /// Nodes run by schedulers in any process of the domain.
    #[command(subcommand)]
    Node(node_cmd::NodeCommand),
    /// Services: list, types, call.
    #[command(subcommand)]
    Service(rpc_cmd::ServiceCommand),
    /// Actions: list, types, send a goal.
    #[command(subcommand)]
    Action(rpc_cmd::ActionCommand),
    /// A node's parameters: list, get, set, describe, dump, load.
    #[command(subcommand)]
    Param(node_cmd::ParamCommand),
    /// Record topics into an MCAP file (Ctrl-C ends it with a complete file).
    ///
    /// Example: `nerve record -a -o field_test.mcap`, `nerve record imu odom --split-size 500`
    Record(bag_cmd::RecordArgs),
    /// Play a recording back: its topics, at the recorded timing.
    ///
    /// Example: `nerve play field_test.mcap --rate 0.5 --topics imu`
    Play(bag_cmd::PlayArgs),
    /// Recordings: what one holds, restoring one a killed recorder left.
    #[command(subcommand)]
    Bag(bag_cmd::BagCommand),
    /// Bridges to other machines.
    #[command(subcommand)]
    Bridge(bridge_cmd::BridgeCommand),
    /// Remove shared-memory segments no live process uses (and corrupt ones).
    ///
    /// Example: `nerve clean --domain 7`
    Clean,
    /// Check this machine for what nerve needs: /dev/shm, memlock and rtprio limits,
    /// SCHED_FIFO, membarrier, stale or foreign segments; each finding with what to do.
    ///
    /// Example: `nerve doctor`
    Doctor,
    /// Print a shell completion script.
    ///
    /// Example: `nerve completions bash > ~/.local/share/bash-completion/completions/nerve`
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// One process of the demo graph, started by `nerve demo`.
    #[command(hide = true, name = "__demo-role")]
    DemoRole {
        role: demo::Role,
        /// The pid of the `nerve demo` that started this process: this one ends with it.
        #[arg(long, value_parser = args::pid)]
        parent: u32,
        #[arg(long)]
        rt: bool,
    },
}

#[derive(Subcommand)]
enum InterfaceCommand {
    /// Every standard message type, its kind and its ROS 2 counterpart.
    ///
    /// Example: `nerve interface list | grep sensor_msgs`
    List,
    /// The fields of a type (`Imu`, `nerve/Imu` or `sensor_msgs/msg/Imu`), with units and docs.
    ///
    /// Example: `nerve interface show Imu`, `nerve interface show --topic wheels`
    Show {
        /// The type, or with --topic a topic whose type to show.
        name: String,
        /// NAME is a topic: show the type it carries (declared in any language).
        #[arg(long)]
        topic: bool,
    },
}

fn main() -> ExitCode {
    exit::install_panic_hook();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    // Usage errors, --help and --version: printed by clap, which exits (2, 0, 0).
    let cli = Cli::parse();
    exit::finish(run(cli))
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let domain = cli.domain;
    // A publisher of this process sends to other hosts itself once one wants its topic
    // (nothing happens before; `NERVE_DIRECT=0` keeps it to the bridge). Not in the bridge.
    if !matches!(cli.command, Command::Bridge(_)) {
        nerve_zenoh::direct::install_auto();
    }
    match cli.command {
        Command::Demo(args) => demo::run(domain, args),
        Command::DemoRole { role, parent, rt } => demo::role(domain, role, parent, rt),
        Command::Launch(args) => launch::run(domain, args),
        Command::Log(args) => log_cmd::run(domain, args),
        Command::View(args) => view_cmd::run(domain, args),
        Command::Topic(cmd) => topic_cmd::run(domain, cmd),
        Command::Node(cmd) => node_cmd::node(domain, cmd),
        Command::Service(cmd) => rpc_cmd::service(domain, cmd),
        Command::Action(cmd) => rpc_cmd::action(domain, cmd),
        Command::Param(cmd) => node_cmd::param(domain, cmd),
        Command::Interface(InterfaceCommand::List) => echo::list(),
        Command::Interface(InterfaceCommand::Show { name, topic }) => {
            echo::show(domain, &name, topic)
        }
        Command::Record(a) => bag_cmd::record(domain, a),
        Command::Play(a) => bag_cmd::play_file(domain, a),
        Command::Bag(cmd) => bag_cmd::bag(cmd),
        Command::Bridge(cmd) => bridge_cmd::bridge(domain, cmd),
        Command::Doctor => doctor::doctor(domain),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "nerve",
                &mut out,
            );
            outln!("{}", String::from_utf8_lossy(&out).trim_end())
        }
        Command::Clean => {
            let r = nerve::registry::clean(domain).with_context(|| {
                format!(
                    "cannot clean domain {domain} ({})",
                    nerve::registry::domain_dir(domain).display()
                )
            })?;
            for p in &r.stale {
                outln!("removed stale   {}", p.display())?;
            }
            for p in &r.corrupt {
                outln!("removed corrupt {}", p.display())?;
            }
            outln!(
                "{} removed, {} in use kept",
                r.stale.len() + r.corrupt.len(),
                r.kept
            )
        }
    }
}
