//! Launch files: the YAML a robot's team writes, read into a plan of processes.
//!
//! ```yaml
//! args: {robot: r1}                  # $(arg robot); `nerve launch FILE --arg robot=r2`
//! env: {RUST_LOG: info}              # for every node
//! include:
//!   - file: sensors.yaml             # relative to this file
//!     namespace: $(arg robot)
//!     args: {rate: "100"}
//! nodes:
//!   - name: driver
//!     exec: ./target/release/driver  # an executable (Rust, C++, anything) ...
//!     args: ["--port", "/dev/ttyUSB0"]
//!   - name: planner
//!     python: my_robot.planner       # ... or a Python module (`$NERVE_PYTHON -m`, default python3)
//!     namespace: $(arg robot)
//!     remap: {cmd_vel: /base/cmd_vel}
//!     params: {max_speed: 1.5}       # and/or params_files: [planner.yaml] (ros__parameters)
//!     env: {HOME_DIR: $(env HOME)}
//!     wait_for: [{topic: /imu, timeout: 10}]
//!     respawn: true                  # restarted with backoff (respawn_delay, doubling to 30 s)
//!     required: true                 # its death stops the launch
//!     after: [driver]                # started after these (default: file order)
//! ```
//!
//! Substitutions (`$(env NAME)`, `$(env NAME default)`, `$(arg NAME)`) apply to every string
//! value after the `args` are known; an unknown one is an error naming it and the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use serde::Deserialize;
use serde_norway::Value;

/// Deepest chain of includes.
const MAX_INCLUDE_DEPTH: usize = 8;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    /// Read before the rest (substitutions need them): see `load_into`.
    #[serde(default, rename = "args")]
    _args: BTreeMap<String, Value>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    include: Vec<IncludeSpec>,
    #[serde(default)]
    nodes: Vec<NodeSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IncludeSpec {
    file: String,
    #[serde(default)]
    args: BTreeMap<String, String>,
    #[serde(default)]
    namespace: Option<String>,
}

/// What must exist before a node starts.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WaitFor {
    /// A topic (resolved in the node's namespace).
    #[serde(default)]
    pub topic: Option<String>,
    /// A service.
    #[serde(default)]
    pub service: Option<String>,
    /// Seconds to wait (default 10).
    #[serde(default)]
    pub timeout: Option<f64>,
}

/// The shortest wait before a respawn (a launch file's `respawn_delay` may not go below it).
pub const MIN_RESPAWN_DELAY: f64 = 0.1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeSpec {
    name: String,
    #[serde(default)]
    exec: Option<String>,
    #[serde(default)]
    python: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    remap: BTreeMap<String, String>,
    #[serde(default)]
    params: BTreeMap<String, Value>,
    #[serde(default)]
    params_files: Vec<String>,
    #[serde(default)]
    respawn: bool,
    #[serde(default)]
    respawn_delay: Option<f64>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    wait_for: Vec<WaitFor>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    after: Vec<String>,
}

/// One process of the launch, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Its name, namespaced (`r1/driver`).
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Environment added to the launcher's.
    pub env: BTreeMap<String, String>,
    /// Its namespace ("" for none).
    pub namespace: String,
    /// `from:=to` rules.
    pub remap: Vec<(String, String)>,
    /// Inline parameters.
    pub params: BTreeMap<String, Value>,
    /// Parameter files (absolute).
    pub params_files: Vec<PathBuf>,
    /// Restart when it exits.
    pub respawn: bool,
    /// First restart delay, seconds.
    pub respawn_delay: f64,
    /// Its death stops the launch.
    pub required: bool,
    /// What must exist first.
    pub wait_for: Vec<WaitFor>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// Nodes that start before it (full names).
    pub after: Vec<String>,
}

/// `$(env NAME)`, `$(env NAME default)`, `$(arg NAME)` in `s`.
fn substitute(s: &str, args: &BTreeMap<String, String>, file: &Path) -> Result<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("$(") {
        out.push_str(&rest[..at]);
        let Some(end) = rest[at..].find(')') else {
            bail!("{}: unclosed substitution in {s:?}", file.display());
        };
        let inner = &rest[at + 2..at + end];
        let mut words = inner.split_whitespace();
        let value = match (words.next(), words.next()) {
            (Some("env"), Some(name)) => {
                let default: Vec<&str> = words.collect();
                match std::env::var(name) {
                    Ok(v) => v,
                    Err(_) if !default.is_empty() => default.join(" "),
                    Err(_) => bail!(
                        "{}: $(env {name}) is not set (give a default: $(env {name} value))",
                        file.display()
                    ),
                }
            }
            (Some("arg"), Some(name)) => args.get(name).cloned().with_context(|| {
                format!(
                    "{}: $(arg {name}) is not declared in `args:` nor given with --arg {name}=...",
                    file.display()
                )
            })?,
            _ => bail!(
                "{}: unknown substitution $({inner}): use $(env NAME), $(env NAME default) or $(arg NAME)",
                file.display()
            ),
        };
        out.push_str(&value);
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Substitutes in every string of `v` (map keys too).
fn substitute_all(v: &mut Value, args: &BTreeMap<String, String>, file: &Path) -> Result<()> {
    match v {
        Value::String(s) => *s = substitute(s, args, file)?,
        Value::Sequence(items) => {
            for i in items {
                substitute_all(i, args, file)?;
            }
        }
        Value::Mapping(m) => {
            let old = std::mem::take(m);
            for (mut k, mut val) in old {
                substitute_all(&mut k, args, file)?;
                substitute_all(&mut val, args, file)?;
                m.insert(k, val);
            }
        }
        Value::Tagged(t) => substitute_all(&mut t.value, args, file)?,
        _ => {}
    }
    Ok(())
}

fn join_ns(outer: &str, inner: &str) -> String {
    let (o, i) = (outer.trim_matches('/'), inner.trim_matches('/'));
    match (o.is_empty(), i.is_empty()) {
        (true, _) => i.to_owned(),
        (false, true) => o.to_owned(),
        (false, false) => format!("{o}/{i}"),
    }
}

/// Reads launch file `path` with `overrides` (`--arg`), in namespace `namespace`: every node
/// of it and of its includes, in order.
pub fn load(path: &Path, overrides: &BTreeMap<String, String>) -> Result<Vec<Node>> {
    let mut nodes = Vec::new();
    load_into(path, overrides, "", &mut vec![], &mut nodes)?;
    let mut seen = std::collections::HashSet::new();
    for n in &nodes {
        if !seen.insert(n.name.clone()) {
            bail!(
                "two nodes are named {:?}: give each a unique name (or a namespace)",
                n.name
            );
        }
    }
    in_start_order(nodes)
}

/// `nodes` in file order, except that a node comes after every node its `after:` names
/// (relative names are in its namespace); an unknown name or a circle is an error.
fn in_start_order(mut left: Vec<Node>) -> Result<Vec<Node>> {
    let names: std::collections::HashSet<String> = left.iter().map(|n| n.name.clone()).collect();
    for n in &left {
        if let Some(a) = n.after.iter().find(|a| !names.contains(*a)) {
            bail!(
                "node {:?} starts after {a:?}, which the launch does not start",
                n.name
            );
        }
    }
    let mut out: Vec<Node> = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let started = |a: &String| out.iter().any(|o| &o.name == a);
        let Some(i) = left.iter().position(|n| n.after.iter().all(started)) else {
            let waiting: Vec<&str> = left.iter().map(|n| n.name.as_str()).collect();
            bail!("the nodes {waiting:?} wait for each other in a circle (after:)");
        };
        out.push(left.remove(i));
    }
    Ok(out)
}

fn load_into(
    path: &Path,
    overrides: &BTreeMap<String, String>,
    namespace: &str,
    chain: &mut Vec<PathBuf>,
    out: &mut Vec<Node>,
) -> Result<()> {
    let path = path
        .canonicalize()
        .with_context(|| format!("cannot open launch file {}", path.display()))?;
    if chain.contains(&path) || chain.len() >= MAX_INCLUDE_DEPTH {
        bail!(
            "{}: includes go round in a circle or deeper than {MAX_INCLUDE_DEPTH} ({})",
            path.display(),
            chain
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" -> ")
        );
    }
    let text = nerve::document::read(&path)?;
    let mut value: Value = serde_norway::from_str(&text)
        .with_context(|| format!("{} is not valid YAML", path.display()))?;
    // The declared args (their defaults may use $(env ...)), then the overrides.
    let mut args = BTreeMap::new();
    if let Some(Value::Mapping(declared)) = value.get("args") {
        for (k, v) in declared {
            let (Some(k), Some(v)) = (k.as_str(), value_text(v)) else {
                bail!("{}: args are name: value pairs", path.display());
            };
            args.insert(k.to_owned(), substitute(&v, &BTreeMap::new(), &path)?);
        }
    }
    args.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
    substitute_all(&mut value, &args, &path)?;
    let spec: FileSpec = serde_norway::from_value(value)
        .with_context(|| format!("{}: not a launch file", path.display()))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    chain.push(path.clone());
    for inc in &spec.include {
        let ns = join_ns(namespace, inc.namespace.as_deref().unwrap_or(""));
        load_into(&dir.join(&inc.file), &inc.args, &ns, chain, out)
            .with_context(|| format!("included from {}", path.display()))?;
    }
    chain.pop();
    for n in spec.nodes {
        out.push(resolve_node(n, &spec.env, namespace, &dir, &path)?);
    }
    Ok(())
}

/// A scalar as text (args may be numbers in YAML).
fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn resolve_node(
    n: NodeSpec,
    file_env: &BTreeMap<String, String>,
    namespace: &str,
    dir: &Path,
    file: &Path,
) -> Result<Node> {
    let where_ = |what: &str| format!("{}: node {:?}: {what}", file.display(), n.name);
    if n.name.is_empty() || n.name.contains('/') {
        bail!(
            "{}",
            where_("a node's name is a non-empty word without '/' (use namespace: for a path)")
        );
    }
    let mut command = match (&n.exec, &n.python) {
        (Some(exec), None) => {
            // A path with a '/' is relative to the launch file; a bare word is looked up in PATH.
            let program = if exec.contains('/') && !exec.starts_with('/') {
                dir.join(exec).display().to_string()
            } else {
                exec.clone()
            };
            vec![program]
        }
        (None, Some(module)) => {
            let python = std::env::var("NERVE_PYTHON").unwrap_or_else(|_| "python3".into());
            vec![python, "-m".into(), module.clone()]
        }
        _ => bail!(
            "{}",
            where_("give exactly one of exec: (a program) and python: (a module)")
        ),
    };
    command.extend(n.args.iter().cloned());
    let ns = join_ns(namespace, n.namespace.as_deref().unwrap_or(""));
    let after: Vec<String> = n
        .after
        .iter()
        .map(|a| match a.strip_prefix('/') {
            Some(abs) => abs.to_owned(),
            None => join_ns(&ns, a),
        })
        .collect();
    let name = join_ns(&ns, &n.name);
    let mut env = file_env.clone();
    env.extend(n.env);
    // A respawn waits at least MIN_RESPAWN_DELAY: a node that exits at once is not restarted
    // in a busy loop.
    let delay = nerve::time::checked(
        n.respawn_delay.unwrap_or(1.0),
        MIN_RESPAWN_DELAY,
        false,
        nerve::time::MAX_SECONDS,
        "seconds",
    )
    .map_err(|e| anyhow::anyhow!("{}", where_(&format!("respawn_delay: {e}"))))?;
    // The nodes read their parameter files; a file nerve would refuse is refused here, before
    // anything starts.
    for f in &n.params_files {
        nerve::document::read(&dir.join(f))
            .map_err(|e| anyhow::anyhow!("{}", where_(&format!("params_files: {e}"))))?;
    }
    for w in &n.wait_for {
        if let Some(t) = w.timeout {
            nerve::time::checked_seconds(t, 0.0, false)
                .map_err(|e| anyhow::anyhow!("{}", where_(&format!("wait_for timeout: {e}"))))?;
        }
    }
    Ok(Node {
        name,
        command,
        env,
        namespace: ns,
        remap: n.remap.into_iter().collect(),
        params: n.params,
        params_files: n.params_files.iter().map(|f| dir.join(f)).collect(),
        respawn: n.respawn,
        respawn_delay: delay,
        required: n.required,
        wait_for: n.wait_for,
        cwd: n.cwd.map(|c| dir.join(c)),
        after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn substitutions_resolve_or_name_what_is_missing() {
        let f = Path::new("robot.yaml");
        std::env::set_var("NERVE_LAUNCH_TEST_HOME", "/home/r");
        let a = args(&[("robot", "r1")]);
        assert_eq!(substitute("$(arg robot)/imu", &a, f).unwrap(), "r1/imu");
        assert_eq!(
            substitute("$(env NERVE_LAUNCH_TEST_HOME)/x", &a, f).unwrap(),
            "/home/r/x"
        );
        assert_eq!(
            substitute("$(env NERVE_LAUNCH_TEST_NOPE fallback value)", &a, f).unwrap(),
            "fallback value"
        );
        let e = substitute("$(arg speed)", &a, f).unwrap_err().to_string();
        assert!(
            e.contains("robot.yaml") && e.contains("--arg speed="),
            "{e}"
        );
        let e = substitute("$(find pkg)", &a, f).unwrap_err().to_string();
        assert!(e.contains("unknown substitution $(find pkg)"), "{e}");
        assert!(substitute("$(env X", &a, f).is_err());
    }

    fn node(name: &str, after: &[&str]) -> Node {
        Node {
            name: name.into(),
            command: vec!["true".into()],
            env: BTreeMap::new(),
            namespace: String::new(),
            remap: Vec::new(),
            params: BTreeMap::new(),
            params_files: Vec::new(),
            respawn: false,
            respawn_delay: 1.0,
            required: false,
            wait_for: Vec::new(),
            cwd: None,
            after: after.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn after_reorders_and_refuses_circles_and_strangers() {
        let order = |v: Vec<Node>| {
            in_start_order(v).map(|o| o.iter().map(|n| n.name.clone()).collect::<Vec<_>>())
        };
        assert_eq!(
            order(vec![
                node("planner", &["driver"]),
                node("ui", &[]),
                node("driver", &[])
            ])
            .unwrap(),
            ["ui", "driver", "planner"]
        );
        let e = order(vec![node("a", &["b"]), node("b", &["a"])])
            .unwrap_err()
            .to_string();
        assert!(e.contains("in a circle"), "{e}");
        let e = order(vec![node("a", &["ghost"])]).unwrap_err().to_string();
        assert!(
            e.contains("\"ghost\", which the launch does not start"),
            "{e}"
        );
    }

    #[test]
    fn namespaces_join() {
        assert_eq!(join_ns("", "r1"), "r1");
        assert_eq!(join_ns("/r1/", "/arm"), "r1/arm");
        assert_eq!(join_ns("r1", ""), "r1");
    }
}
