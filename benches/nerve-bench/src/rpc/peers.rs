//! The Python systems of `nerve-bench rpc`: one `benches/python/rpc_pingpong.py --serve`
//! process per system and variant, driven round by round, and their rows.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

use super::measured::Measured;
use crate::python::PyProc;
use crate::report::Row;
use crate::stats;

/// The row fields each runner's process reported in its hello line (how it waits; ROS 2:
/// its Fast DDS profile and executor), by runner label. Kept here rather than in
/// [`PyRunner`], whose fields the suite spells out where it makes the runners.
static FIELDS: Mutex<BTreeMap<String, Map<String, Value>>> = Mutex::new(BTreeMap::new());

/// One Python system (and variant) driven by `rpc_pingpong.py --serve`.
pub struct PyRunner {
    pub system: String,
    pub variant: String,
    pub proc: Option<PyProc>,
    pub dead: Option<String>,
    pub version: String,
}

impl PyRunner {
    pub fn label(&self) -> String {
        if self.variant.is_empty() {
            self.system.clone()
        } else {
            format!("{}[{}]", self.system, self.variant)
        }
    }

    pub fn start(&mut self, py: &Path, script: &Path) {
        let r = (|| -> Result<()> {
            let mut p = PyProc::spawn(py, script, &self.system, &self.variant)?;
            let hello = p.recv(Duration::from_secs(120))?;
            if let Some(f) = hello.get("fatal") {
                bail!("{}", f.as_str().unwrap_or("start-up failed"));
            }
            self.version = hello["version"].as_str().unwrap_or("").to_string();
            if let Some(f) = hello["fields"].as_object() {
                nerve::sys::lock(&FIELDS).insert(self.label(), f.clone());
            }
            self.proc = Some(p);
            Ok(())
        })();
        if let Err(e) = r {
            self.dead = Some(format!("could not start: {e:#}"));
        }
    }

    /// One round at `payload` bytes; `Err` also marks the runner dead when its process went.
    pub fn round(
        &mut self,
        payload: usize,
        parallelism: usize,
        time: Duration,
        warmup: usize,
    ) -> Result<(Measured, String)> {
        if let Some(e) = &self.dead {
            bail!("{e}");
        }
        let proc = self.proc.as_mut().context("no process")?;
        let cmd = json!({"payload": payload, "parallelism": parallelism,
            "max_s": time.as_secs_f64(), "warmup": warmup, "timeout_s": 5.0});
        let v = match proc
            .send(&cmd)
            .and_then(|_| proc.recv(Duration::from_secs(120)))
        {
            Ok(v) => v,
            Err(e) => {
                self.dead = Some(format!("died: {e:#}"));
                self.proc = None;
                bail!("{e:#}");
            }
        };
        if let Some(f) = v.get("fatal") {
            self.dead = Some(f.as_str().unwrap_or("fatal").to_string());
            self.proc = None;
        }
        if let Some(e) = v.get("error").or(v.get("fatal")) {
            bail!("{}", e.as_str().unwrap_or("error"));
        }
        let m = Measured {
            samples: v["samples_ns"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default(),
            calls: v["calls"].as_u64().unwrap_or(0),
            errors: v["errors"].as_u64().unwrap_or(0),
            elapsed: Duration::from_secs_f64(v["elapsed_s"].as_f64().unwrap_or(0.0)),
        };
        Ok((m, v["variant"].as_str().unwrap_or("").to_string()))
    }
}

/// One system's results at one payload over the rounds.
#[derive(Default)]
pub struct Series {
    pub measured: Measured,
    pub round_p50: Vec<Option<f64>>,
    pub error: Option<String>,
    pub variant: String,
}

impl Series {
    pub fn add(&mut self, r: Result<(Measured, String)>) {
        match r {
            Ok((m, variant)) => {
                self.round_p50.push(m.p50());
                self.measured.merge(m);
                self.variant = variant;
            }
            Err(e) => {
                self.round_p50.push(None);
                self.error.get_or_insert(format!("{e:#}"));
            }
        }
    }
}

pub fn python_rows(r: &PyRunner, payload: usize, parallelism: usize, s: &Series) -> Vec<Row> {
    let base = |metric: &str| {
        let row = Row::new(
            "rpc",
            &r.system,
            "python",
            "cross-process",
            &format!("{parallelism}:1"),
            "blocking",
            "bytes",
            payload,
            metric,
        )
        .field("parallelism", parallelism)
        .field("errors", s.measured.errors)
        .field("variant", s.variant.clone())
        .field("version", r.version.clone());
        let mut row = if r.variant.starts_with("rust-server") {
            row.field("server", "rust echo (nerve-bench __rpc-echo)")
        } else {
            row
        };
        if let Some(f) = nerve::sys::lock(&FIELDS).get(&r.label()) {
            for (k, v) in f {
                row = row.field(k, v.clone());
            }
        }
        row
    };
    if let Some(e) = &s.error {
        return vec![
            base("rtt_ns").error(e.clone()),
            base("qps").error(e.clone()),
        ];
    }
    let m = &s.measured;
    m.rows(base).unwrap_or_else(|| {
        let why = m.no_success();
        vec![base("rtt_ns").error(why.clone()), base("qps").error(why)]
    })
}

/// Median over rounds of `a` p50 / `b` p50 in the same round.
pub fn round_ratio(a: &Series, b: &Series) -> Option<(f64, usize)> {
    let r: Vec<f64> = a
        .round_p50
        .iter()
        .zip(&b.round_p50)
        .filter_map(|(x, y)| Some(x.as_ref()? / y.filter(|y| *y > 0.0)?))
        .collect();
    stats::median(&r).map(|m| (m, r.len()))
}
