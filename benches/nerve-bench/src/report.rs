//! The row every suite emits, and the JSON / CSV / table writers (contract: docs/benchmarking.md).

use crate::machine::Machine;
use crate::stats::Summary;
use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::{Map, Value};
use std::io::Write;
use std::path::Path;

/// One measured figure (or the reason a peer could not run).
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The subcommand: `ipc`, `python`, `sched`, `rpc`, ...
    pub suite: String,
    /// `nerve` or the peer's name.
    pub system: String,
    /// `rust`, `python` or `c`.
    pub api: String,
    /// `same-thread`, `cross-thread`, `cross-process` or `network`.
    pub transport: String,
    /// `P:S`, publishers:subscribers.
    pub topology: String,
    /// `poll` or `blocking`.
    pub mode: String,
    /// The type or shape sent (`bytes`, `bytes-readall`, `CmdVel`, ...).
    pub message: String,
    /// Size of one message in bytes.
    pub payload_bytes: usize,
    /// `one_way_ns`, `rtt_ns`, `send_only_ns`, `msgs_per_s` or a suite's own metric.
    pub metric: String,
    /// The numbers; absent when `error` is set.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// Why the figure is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Suite-specific fields (`topics`, `rounds`, `note`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Row {
    /// A row with the identifying fields set and neither numbers nor error yet.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        suite: &str,
        system: &str,
        api: &str,
        transport: &str,
        topology: &str,
        mode: &str,
        message: &str,
        payload_bytes: usize,
        metric: &str,
    ) -> Self {
        Self {
            suite: suite.into(),
            system: system.into(),
            api: api.into(),
            transport: transport.into(),
            topology: topology.into(),
            mode: mode.into(),
            message: message.into(),
            payload_bytes,
            metric: metric.into(),
            summary: None,
            error: None,
            extra: Map::new(),
        }
    }

    /// Same identity, another metric.
    pub fn with_metric(&self, metric: &str) -> Self {
        let mut r = self.clone();
        r.metric = metric.into();
        r.summary = None;
        r.error = None;
        r
    }

    /// Sets the numbers.
    pub fn summary(mut self, s: Summary) -> Self {
        self.summary = Some(s);
        self
    }

    /// Sets the numbers, or marks the row "no value" when there are none.
    pub fn summary_opt(self, s: Option<Summary>) -> Self {
        match s {
            Some(s) => self.summary(s),
            None => self.error("no value"),
        }
    }

    /// Marks the row as not measured, with the reason.
    pub fn error(mut self, why: impl Into<String>) -> Self {
        self.error = Some(why.into());
        self
    }

    /// Adds a suite-specific field.
    pub fn field(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }
}

/// What `--json` writes.
#[derive(Serialize)]
pub struct Report<'a> {
    /// The machine the rows were measured on.
    pub machine: &'a Machine,
    /// Every row, in the order measured.
    pub results: &'a [Row],
}

/// Writes `{"machine": .., "results": [..]}` to `path`.
pub fn write_json(path: &Path, machine: &Machine, rows: &[Row]) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    serde_json::to_writer_pretty(
        &mut w,
        &Report {
            machine,
            results: rows,
        },
    )?;
    w.write_all(b"\n")?;
    w.flush()?;
    Ok(())
}

const CSV_FIXED: [&str; 18] = [
    "suite",
    "system",
    "api",
    "transport",
    "topology",
    "mode",
    "message",
    "payload_bytes",
    "metric",
    "min",
    "p50",
    "p90",
    "p99",
    "p999",
    "max",
    "mean",
    "n",
    "error",
];

/// Writes the same rows flat: the contract's columns, then every extra field seen, sorted.
pub fn write_csv(path: &Path, rows: &[Row]) -> Result<()> {
    let mut extras: Vec<String> = rows.iter().flat_map(|r| r.extra.keys().cloned()).collect();
    extras.sort();
    extras.dedup();
    let mut out = String::new();
    let header: Vec<&str> = CSV_FIXED
        .iter()
        .copied()
        .chain(extras.iter().map(String::as_str))
        .collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for r in rows {
        let v = serde_json::to_value(r)?;
        let cells: Vec<String> = header.iter().map(|k| csv_cell(v.get(*k))).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

fn csv_cell(v: Option<&Value>) -> String {
    let s = match v {
        None | Some(Value::Null) => return String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Formats a number for the table: integers as is, small values with one decimal.
fn num(x: f64) -> String {
    if x.abs() >= 1e7 {
        format!("{x:.3e}")
    } else if x.fract() == 0.0 || x.abs() >= 1000.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

/// Prints rows as an aligned table.
pub fn print_table(rows: &[Row]) {
    let head = [
        "system",
        "transport",
        "topo",
        "mode",
        "message",
        "bytes",
        "metric",
        "min",
        "p50",
        "p90",
        "p99",
        "p999",
        "max",
        "n",
        "extra",
    ];
    let mut table: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let mut line = vec![
            r.system.clone(),
            r.transport.clone(),
            r.topology.clone(),
            r.mode.clone(),
            r.message.clone(),
            r.payload_bytes.to_string(),
            r.metric.clone(),
        ];
        let extra: Vec<String> = r
            .extra
            .iter()
            .filter(|(k, _)| k.as_str() != "note")
            .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
            .collect();
        match (&r.summary, &r.error) {
            (Some(s), _) => {
                for x in [s.min, s.p50, s.p90, s.p99, s.p999, s.max] {
                    line.push(num(x));
                }
                line.push(s.n.to_string());
                line.push(extra.join(" "));
            }
            (None, err) => {
                line.push(format!("ERROR: {}", err.as_deref().unwrap_or("no data")));
            }
        }
        table.push(line);
    }
    let cols = head.len();
    let mut width = vec![0usize; cols];
    for line in &table {
        if line.len() == cols {
            for (w, c) in width.iter_mut().zip(line) {
                *w = (*w).max(c.len());
            }
        }
    }
    for line in &table {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i + 1 < line.len() && i < cols {
                    format!("{c:<w$}", w = width[i])
                } else {
                    c.clone()
                }
            })
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_json_is_flat() {
        let mut v = vec![1.0, 2.0, 3.0];
        let row = Row::new(
            "ipc",
            "udp",
            "rust",
            "cross-process",
            "1:1",
            "poll",
            "bytes",
            16,
            "one_way_ns",
        )
        .summary(Summary::of(&mut v).unwrap())
        .field("topics", 10);
        let j = serde_json::to_value(&row).unwrap();
        assert_eq!(j["p50"], 2.0);
        assert_eq!(j["topics"], 10);
        assert!(j.get("error").is_none());
        let e = Row::new(
            "ipc",
            "udp",
            "rust",
            "cross-process",
            "1:1",
            "poll",
            "bytes",
            1 << 20,
            "one_way_ns",
        )
        .error("too big");
        let j = serde_json::to_value(&e).unwrap();
        assert_eq!(j["error"], "too big");
        assert!(j.get("p50").is_none());
    }
}

/// Options every wrapped suite (`sched`, `rpc`) takes.
#[derive(clap::Args, Debug, Clone)]
pub struct SuiteArgs {
    /// The short run (each suite says what it shortens).
    #[arg(long)]
    pub quick: bool,
    /// Write `{"machine": .., "results": [..]}` here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
    /// Write the same rows flat here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<std::path::PathBuf>,
}

/// Prints `rows` as a table under the machine line and writes the files `args` asks for.
pub fn emit(suite: &str, args: &SuiteArgs, machine: &Machine, rows: &[Row]) -> Result<()> {
    println!(
        "# nerve-bench {suite}{} | {}",
        if args.quick { " --quick" } else { "" },
        machine.summary()
    );
    print_table(rows);
    if let Some(p) = &args.json {
        write_json(p, machine, rows)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &args.csv {
        write_csv(p, rows)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// The numbers of a row a suite crate computed itself (no samples here to summarise).
pub fn summary_of(min: f64, p50: f64, p90: f64, p99: f64, p999: f64, max: f64, n: u64) -> Summary {
    Summary {
        min,
        p50,
        p90,
        p99,
        p999,
        max,
        mean: None,
        n: usize::try_from(n).unwrap_or(usize::MAX),
    }
}
