//! `nerve service list | type | call` and `nerve action list | info | send_goal`: a domain's
//! services and actions, found from their topics (`nerve::rpc::discovery`), called with
//! values in YAML or JSON through the MessagePack they carry (named fields, so a value typed
//! by hand reaches a Rust struct or a Python dict alike).

use std::time::{Duration, Instant};

use clap::Subcommand;
use nerve::rpc::discovery::{self, ActionInfo, Interface, ServiceInfo};
use nerve::rpc::{ActionClient, GoalStatus, Service};
use nerve::sys::ProcessId;
use serde_json::Value as Json;

use crate::args;

#[derive(Subcommand)]
pub enum ServiceCommand {
    /// The services of the domain, with their server's pid (or `down`).
    ///
    /// Example: `nerve service list -t`
    List {
        /// Show the request and response types.
        #[arg(short = 't', long = "show-types")]
        types: bool,
        /// Include the services actions are made of.
        #[arg(short, long)]
        all: bool,
    },
    /// A service's request and response types, with their fields.
    ///
    /// Example: `nerve service type arm/plan`
    Type { name: String },
    /// Call a service with a request in YAML or JSON and print the response.
    ///
    /// Example: `nerve service call arm/plan "{goal: [1.0, 2.0], speed: 0.5}"`
    Call {
        name: String,
        /// The request, YAML or JSON (`"{a: 1}"`, `"[2, 3]"`, `"hello"`).
        values: String,
        /// Seconds to wait for the response.
        #[arg(long, value_name = "SECONDS", default_value = "5",
              value_parser = args::run_seconds, allow_hyphen_values = true)]
        timeout: Duration,
        /// Print the response as one line of JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum ActionCommand {
    /// The actions of the domain, with their server's pid (or `down`).
    ///
    /// Example: `nerve action list -t`
    List {
        /// Show the goal, feedback and result types.
        #[arg(short = 't', long = "show-types")]
        types: bool,
    },
    /// An action's server and its goal, feedback and result types.
    ///
    /// Example: `nerve action info fib`
    Info { name: String },
    /// Send a goal (YAML or JSON), wait for its result and print it.
    ///
    /// Example: `nerve action send_goal fib 10 --feedback`
    #[command(name = "send_goal", alias = "send-goal")]
    SendGoal {
        name: String,
        /// The goal, YAML or JSON.
        values: String,
        /// Print the feedback as it arrives.
        #[arg(long)]
        feedback: bool,
        /// Seconds to wait for the result.
        #[arg(long, value_name = "SECONDS", default_value = "60",
              value_parser = args::run_seconds, allow_hyphen_values = true)]
        timeout: Duration,
    },
}

/// YAML or JSON from the command line.
pub fn parse_values(what: &str, text: &str) -> anyhow::Result<Json> {
    nerve::document::check(text, what)?;
    serde_norway::from_str(text)
        .map_err(|e| anyhow::anyhow!("cannot read the {what} as YAML or JSON: {e}"))
}

/// A value for people: YAML, without the document marker.
pub fn yaml(v: &impl serde::Serialize) -> anyhow::Result<String> {
    let text = serde_norway::to_string(v)?;
    Ok(text.trim_end().to_owned())
}

/// `text` indented by two spaces.
pub fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The service `name`, or an error saying there is none (nothing is created).
pub fn find_service(domain: u32, name: &str) -> anyhow::Result<ServiceInfo> {
    let name = name.trim_start_matches('/');
    discovery::services(domain)
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| {
            anyhow::anyhow!("no service '{name}' in domain {domain} (see `nerve service list`)")
        })
}

fn find_action(domain: u32, name: &str) -> anyhow::Result<ActionInfo> {
    let name = name.trim_start_matches('/');
    discovery::actions(domain)
        .into_iter()
        .find(|a| a.name == name)
        .ok_or_else(|| {
            anyhow::anyhow!("no action '{name}' in domain {domain} (see `nerve action list`)")
        })
}

pub fn pid_or_down(server: Option<ProcessId>) -> String {
    server.map_or("down".into(), |p| format!("pid {}", p.describe_pid()))
}

fn type_names(i: Option<&Interface>, roles: &[&str]) -> String {
    match i {
        None => "types not announced".into(),
        Some(i) => roles
            .iter()
            .map(|r| i.part(r).map_or("?", |p| p.type_name.as_str()))
            .collect::<Vec<_>>()
            .join(" → "),
    }
}

/// One line per service or action: name, server pid (or `down`), and with `roles` its types.
fn print_rows<'a>(
    rows: impl Iterator<Item = (&'a str, Option<ProcessId>, Option<&'a Interface>)>,
    roles: Option<&[&str]>,
    what: &str,
    domain: u32,
) -> anyhow::Result<()> {
    let mut any = false;
    for (name, pid, interface) in rows {
        any = true;
        let t = roles.map_or(String::new(), |r| {
            format!("  [{}]", type_names(interface, r))
        });
        outln!("{name:<32} {:<10}{t}", pid_or_down(pid))?;
    }
    if !any {
        outln!("(no {what} in domain {domain})")?;
    }
    Ok(())
}

/// Each part of an interface: role, type, and its fields when it was traced.
fn print_interface(i: &Interface) -> anyhow::Result<()> {
    for p in &i.parts {
        outln!("{:<9} {}", p.role, p.type_name)?;
        if let Some(doc) = p.description() {
            for line in doc.outline().lines().skip(1) {
                outln!("        {line}")?;
            }
        }
    }
    Ok(())
}

pub fn service(domain: u32, cmd: ServiceCommand) -> anyhow::Result<()> {
    match cmd {
        ServiceCommand::List { types, all } => {
            let services: Vec<ServiceInfo> = discovery::services(domain)
                .into_iter()
                .filter(|s| all || s.action.is_none())
                .collect();
            let rows = services
                .iter()
                .map(|s| (s.name.as_str(), s.server, s.interface.as_ref()));
            let roles: &[&str] = &["request", "response"];
            print_rows(rows, types.then_some(roles), "services", domain)?;
        }
        ServiceCommand::Type { name } => {
            let s = find_service(domain, &name)?;
            match &s.interface {
                Some(i) => print_interface(i)?,
                None => outln!(
                    "service '{}' announced no types (its server was not built from Rust types)",
                    s.name
                )?,
            }
        }
        ServiceCommand::Call {
            name,
            values,
            timeout,
            json,
        } => {
            let s = find_service(domain, &name)?;
            let req = parse_values(&format!("request for service '{}'", s.name), &values)?;
            let client = Service::<Json, Json>::builder(&s.name)
                .domain(domain)
                .build()
                .client()?;
            let resp = client.call(&req, timeout)?;
            if json {
                outln!("{}", serde_json::to_string(&resp)?)?;
            } else {
                outln!("{}", yaml(&resp)?)?;
            }
        }
    }
    Ok(())
}

pub fn action(domain: u32, cmd: ActionCommand) -> anyhow::Result<()> {
    match cmd {
        ActionCommand::List { types } => {
            let actions = discovery::actions(domain);
            let rows = actions
                .iter()
                .map(|a| (a.name.as_str(), a.server, a.interface.as_ref()));
            let roles: &[&str] = &["goal", "feedback", "result"];
            print_rows(rows, types.then_some(roles), "actions", domain)?;
        }
        ActionCommand::Info { name } => {
            let a = find_action(domain, &name)?;
            outln!("action    {}\nserver    {}", a.name, pid_or_down(a.server))?;
            match &a.interface {
                Some(i) => print_interface(i)?,
                None => outln!("(types not announced)")?,
            }
        }
        ActionCommand::SendGoal {
            name,
            values,
            feedback,
            timeout,
        } => send_goal(domain, &name, &values, feedback, timeout)?,
    }
    Ok(())
}

fn send_goal(
    domain: u32,
    name: &str,
    values: &str,
    feedback: bool,
    timeout: Duration,
) -> anyhow::Result<()> {
    let a = find_action(domain, name)?;
    let goal = parse_values(&format!("goal for action '{}'", a.name), values)?;
    let client = ActionClient::<Json, Json, Json>::builder(&a.name)
        .domain(domain)
        .open()?;
    let handle = client.send_goal(goal, timeout.min(Duration::from_secs(5)))?;
    outln!("goal {} accepted", handle.id())?;
    let end = Instant::now() + timeout;
    let show = |fb: Vec<Json>| -> anyhow::Result<()> {
        for f in fb.iter().filter(|_| feedback) {
            outln!("feedback: {}", serde_json::to_string(f)?)?;
        }
        Ok(())
    };
    while !handle.status().is_terminal() {
        show(handle.feedback())?;
        if Instant::now() >= end {
            anyhow::bail!(
                "no result from action '{}' within {timeout:?} (goal {} is {:?})",
                a.name,
                handle.id(),
                handle.status()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    show(handle.feedback())?;
    let result = handle.wait(Duration::from_secs(1))?;
    outln!("status: {:?}", result.status)?;
    if !result.message.is_empty() {
        outln!("message: {}", result.message)?;
    }
    if let Some(r) = &result.result {
        outln!("result:\n{}", indent(&yaml(r)?))?;
    }
    if result.status != GoalStatus::Succeeded {
        anyhow::bail!(
            "goal {} of action '{}' ended {:?}",
            handle.id(),
            a.name,
            result.status
        );
    }
    Ok(())
}
