//! Python tables measured inside one process, each by a script that prints one `inproc {json}`
//! line per run: HORUS's (`benches/python/inproc.py`: zero-copy views against copies, Python
//! node tick overhead, generic-message sizes; nerve against HORUS) and rclcpp_async's
//! (`benches/python/async_tables.py`: sleep overhead, pub/sub and service as callbacks and as
//! coroutines, concurrent tasks; nerve's Python API against rclpy). The two systems' runs
//! alternate; samples are pooled per system, and nerve / peer ratios are taken per round.
//! Every script runs with Fast DDS's large-message profile
//! (`benches/python/fastdds_large_messages.xml`) for whatever rclpy process it starts.

use crate::pyenv::interpreter;
use crate::report::Row;
use crate::stats::{self, Summary};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// One script's tables: the script (in `benches/python`), nerve and the peer (round order).
pub struct Tables {
    pub script: &'static str,
    pub systems: [&'static str; 2],
    /// Per-round nerve / peer ratio rows (false: the two "systems" are two interpreters of
    /// one comparison, which the rows carry themselves).
    pub ratios: bool,
    /// Rounds with `--quick` (None: the suite's).
    pub quick_rounds: Option<usize>,
}

/// HORUS's in-process tables.
pub const HORUS: Tables = Tables {
    script: "inproc.py",
    systems: ["nerve", "horus"],
    ratios: true,
    quick_rounds: None,
};

/// rclcpp_async's tables in Python. Quick: one round per system (rclpy's side runs every case
/// on both of its executors and thousands of coroutine tasks: ~30 s a round here).
pub const ASYNC: Tables = Tables {
    script: "async_tables.py",
    systems: ["nerve", "ros2"],
    ratios: true,
    quick_rounds: Some(1),
};

/// Wrapyfi's Fig. 1: every framework over nerve, Zenoh, ZeroMQ and ROS 2 (rclpy), in the
/// frameworks venv and MXNet's own (`benches/python/setup_peers.sh frameworks`). The script
/// alternates the middlewares in rounds itself and reports nerve / peer per round.
pub const WRAPYFI: Tables = Tables {
    script: "wrapyfi.py",
    systems: ["frameworks", "mxnet"],
    ratios: false,
    quick_rounds: Some(1),
};

/// What one system measured for one (table, case, metric) over the rounds.
#[derive(Clone, Default)]
struct Pooled {
    samples: Vec<f64>,
    round_p50: Vec<Option<f64>>,
    value: Option<f64>,
    error: Option<String>,
    payload_bytes: usize,
    note: String,
    /// Row fields the case reports (ROS 2: `dds_profile`, `executor`; `python_api`: what ran).
    fields: serde_json::Map<String, Value>,
    /// The case runs none of nerve's code (`"ratio": false`: a plain asyncio sleep): no
    /// nerve / peer ratio row.
    no_ratio: bool,
}

type Key = (String, String, String);

/// One run of `inproc.py` in `python`: its cases, or why there are none.
fn run_once(python: &Path, script: &Path, system: &str, quick: bool) -> Result<Vec<Value>, String> {
    let mut cmd = Command::new(python);
    cmd.arg(script)
        .arg(system)
        .arg(if quick { "1" } else { "0" });
    let named = |v: &str| std::env::var_os(v).is_some();
    if !named("FASTDDS_DEFAULT_PROFILES_FILE") && !named("FASTRTPS_DEFAULT_PROFILES_FILE") {
        // Like for like: every rclpy process with Fast DDS's large-message / shared-memory
        // profile (the scripts set it too; wrapyfi.py's ROS 2 processes inherit it from here).
        let xml = script.with_file_name("fastdds_large_messages.xml");
        cmd.env("FASTDDS_DEFAULT_PROFILES_FILE", xml);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("starting {}: {e}", python.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("inproc "))
        .ok_or_else(|| {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(3).collect();
            format!("inproc.py printed no result ({})", tail.join(" | "))
        })?;
    let v: Value = serde_json::from_str(line).map_err(|e| format!("inproc.py result: {e}"))?;
    if let Some(f) = v.get("fatal").and_then(Value::as_str) {
        return Err(f.to_string());
    }
    Ok(v["cases"].as_array().cloned().unwrap_or_default())
}

fn row(system: &str, table: &str, case: &str, payload: usize, metric: &str) -> Row {
    Row::new(
        "python",
        system,
        "python",
        "same-thread",
        "-",
        "-",
        case,
        payload,
        metric,
    )
    .field("table", table)
}

/// The rows of one script's tables: `rounds` alternating rounds of each system.
pub fn rows(
    tables: &Tables,
    dir: &Path,
    root: &Path,
    setup: bool,
    rounds: usize,
    quick: bool,
) -> Vec<Row> {
    let script = dir.join(tables.script);
    let systems = tables.systems;
    let pythons: Vec<Result<_, String>> = systems
        .iter()
        .map(|s| interpreter(s, dir, root, setup))
        .collect();
    let mut pooled: Vec<BTreeMap<Key, Pooled>> = vec![BTreeMap::new(); systems.len()];
    let mut fatal: Vec<Option<String>> = vec![None; systems.len()];
    let rounds = match (quick, tables.quick_rounds) {
        (true, Some(r)) => r,
        _ => rounds,
    };
    for _ in 0..rounds {
        for (i, system) in systems.iter().enumerate() {
            let cases = match &pythons[i] {
                Err(e) => Err(e.clone()),
                Ok(py) => run_once(py, &script, system, quick),
            };
            let cases = match cases {
                Ok(c) => c,
                Err(e) => {
                    fatal[i] = Some(e);
                    continue;
                }
            };
            for c in cases {
                let text = |k: &str| c[k].as_str().unwrap_or("").to_string();
                let key = (text("table"), text("case"), text("metric"));
                let p = pooled[i].entry(key).or_default();
                p.payload_bytes = c["payload_bytes"].as_u64().unwrap_or(0) as usize;
                p.note = text("note");
                if let Some(f) = c["fields"].as_object() {
                    p.fields = f.clone();
                }
                p.no_ratio = c["ratio"] == Value::Bool(false);
                if let Some(e) = c.get("error").and_then(Value::as_str) {
                    p.error = Some(e.to_string());
                    p.round_p50.push(None);
                } else if let Some(v) = c.get("value").and_then(Value::as_f64) {
                    p.value = Some(v);
                } else {
                    let mut s: Vec<f64> = c["samples_ns"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_f64).collect())
                        .unwrap_or_default();
                    p.round_p50.push(stats::median(&s));
                    p.samples.append(&mut s);
                }
            }
        }
    }
    let mut out = Vec::new();
    let keys: Vec<Key> = pooled.iter().flat_map(|m| m.keys().cloned()).collect();
    let mut seen = std::collections::BTreeSet::new();
    for key in keys {
        if !seen.insert(key.clone()) {
            continue;
        }
        let (table, case, metric) = &key;
        for (i, system) in systems.iter().enumerate() {
            let Some(p) = pooled[i].get_mut(&key) else {
                if !tables.ratios && fatal[i].is_none() {
                    // The other interpreter's case (a framework measured in one venv only).
                    continue;
                }
                let why = fatal[i]
                    .clone()
                    .unwrap_or_else(|| format!("{system} has no such case"));
                out.push(row(system, table, case, 0, metric).error(why));
                continue;
            };
            let mut r = row(system, table, case, p.payload_bytes, metric);
            if !p.note.is_empty() {
                r = r.field("note", p.note.as_str());
            }
            for (k, v) in &p.fields {
                r = r.field(k, v.clone());
            }
            out.push(match (&p.error, p.value) {
                (Some(e), _) => r.error(e.clone()),
                (None, Some(v)) => r.summary_opt(Summary::of(&mut [v])),
                (None, None) => {
                    let mut r = r.field("rounds", p.round_p50.len());
                    if !tables.ratios {
                        // The distribution itself, for the box plots (µs, 0.1 µs steps).
                        let us: Vec<f64> = p
                            .samples
                            .iter()
                            .map(|v| (v / 100.0).round() / 10.0)
                            .collect();
                        r = r.field("samples_us", us);
                    }
                    r.summary_opt(Summary::of(&mut p.samples))
                }
            });
        }
        // nerve / the peer per round, for the timed metrics both have.
        let (true, Some(n), Some(h)) = (tables.ratios, pooled[0].get(&key), pooled[1].get(&key))
        else {
            continue;
        };
        if n.no_ratio {
            continue;
        }
        let mut ratios: Vec<f64> = n
            .round_p50
            .iter()
            .zip(&h.round_p50)
            .filter_map(|(a, b)| Some((*a)? / (*b)?))
            .collect();
        if let Some(s) = Summary::of_rounds(&ratios) {
            ratios.clear();
            out.push(
                row(
                    "nerve",
                    table,
                    case,
                    n.payload_bytes,
                    &format!("ratio_{metric}_vs_{}", systems[1]),
                )
                .summary(s)
                .field(
                    "note",
                    "nerve / the peer per round (each round's median sample), median over rounds",
                ),
            );
        }
    }
    out
}
